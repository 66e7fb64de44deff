import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiAuth, ensureAdminTokenFile, parseTokenList, readTokensFile, type ApiToken } from '../../src/api/auth.js';
import { buildApi } from '../../src/api/server.js';
import { adminAccess, serve } from '../../src/cli/main.js';
import { configSchema } from '../../src/config.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { Store } from '../../src/store/store.js';
import type { FastifyInstance } from 'fastify';
import { haveOpenssl, selfSignedCert } from '../support/tls.js';

const reader: ApiToken = { name: 'dashboard', role: 'read', token: 'read-token-0123456789abcdef' };
const operator: ApiToken = { name: 'oncall', role: 'operate', token: 'operate-token-0123456789abcd' };
const admin: ApiToken = { name: 'root-admin', role: 'admin', token: 'admin-token-0123456789abcdef' };
const bearer = (t: ApiToken) => ({ authorization: `Bearer ${t.token}` });
const targets = { targets: { 'root.a': { capacityPct: 40 }, 'root.b': { capacityPct: 60 } } };

let dir: string;
let store: Store;
let engine: Engine;
let app: FastifyInstance;

async function start(opts: Partial<ConstructorParameters<typeof ApiAuth>[0]> = {}) {
  app = await buildApi({ engine, store, auth: new ApiAuth({ tokens: [reader, operator, admin], ...opts }) });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-auth-'));
  store = await Store.open(join(dir, 'state'));
  const clock = new FakeClock();
  engine = new Engine({
    backend: new InMemoryBackend({ now: () => clock.now() }),
    store,
    clock,
    periodMs: 10_000,
    initial: { policy: 'capacity-targets', params: targets },
  });
  await engine.init();
});

afterEach(async () => {
  await app?.close();
  await engine.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const putPolicy = (headers: Record<string, string>) =>
  app.inject({ method: 'PUT', url: '/v1/policy', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify({ name: 'fifo' }) });

describe('admin API authentication', () => {
  it('a mutation without a token is refused with 401 and changes nothing', async () => {
    await start();
    const r = await putPolicy({});
    expect(r.statusCode).toBe(401);
    expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(r.json()).toMatchObject({ error: 'unauthorized' });
    expect(engine.config().name).toBe('capacity-targets');
    const wrong = await putPolicy({ authorization: 'Bearer not-a-token-of-ours-at-all' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().reason).toMatch(/not valid/);
  });

  it('roles are ordered: read < operate < admin; PUT /v1/policy needs admin', async () => {
    await start();
    for (const t of [reader, operator]) {
      const r = await putPolicy(bearer(t));
      expect(r.statusCode).toBe(403);
      expect(r.json().reason).toMatch(new RegExp(`token '${t.name}' has role ${t.role}; PUT /v1/policy needs admin`));
    }
    expect(engine.config().name).toBe('capacity-targets');
    const ok = await putPolicy(bearer(admin));
    expect(ok.statusCode).toBe(200);
    expect(engine.config().name).toBe('fifo');
  });

  it('reads need a token unless open reads are configured; probes are open unless closed', async () => {
    await start();
    expect((await app.inject('/v1/policy')).statusCode).toBe(401);
    expect((await app.inject({ url: '/v1/policy', headers: bearer(reader) })).statusCode).toBe(200);
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    expect((await app.inject('/livez')).statusCode).toBe(200);
    expect((await app.inject('/metrics')).statusCode).toBe(200);
    await app.close();
    await start({ openReads: true, openProbes: false });
    expect((await app.inject('/v1/policy')).statusCode).toBe(200);
    expect((await app.inject('/v1/decisions')).statusCode).toBe(200);
    expect((await putPolicy({})).statusCode).toBe(401);
    // A dry-run writes nothing but is still a POST: it needs a token, of any role.
    expect((await app.inject({ method: 'POST', url: '/v1/dry-run' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/v1/dry-run', headers: bearer(reader) })).statusCode).toBe(200);
    await app.close();
    await start({ openProbes: false });
    expect((await app.inject('/healthz')).statusCode).toBe(401);
    expect((await app.inject({ url: '/metrics', headers: bearer(reader) })).statusCode).toBe(200);
  });

  it('a Host header that does not name the service is refused (DNS rebinding), whatever the token', async () => {
    await start({ allowedHosts: ['brain.example.org'] });
    const evil = await app.inject({ url: '/v1/policy', headers: { host: 'evil.example', ...bearer(admin) } });
    expect(evil.statusCode).toBe(403);
    expect(evil.json().reason).toMatch(/Host 'evil\.example' does not name this service/);
    expect((await app.inject({ url: '/healthz', headers: { host: 'evil.example:7878' } })).statusCode).toBe(403);
    for (const host of ['localhost:7878', '127.0.0.1', '[::1]:7878', 'brain.example.org:443', 'BRAIN.example.org']) {
      expect((await app.inject({ url: '/v1/policy', headers: { host, ...bearer(reader) } })).statusCode).toBe(200);
    }
  });

  it('every mutation is audited in the journal: who, from where, what, before and after', async () => {
    await start();
    expect((await putPolicy(bearer(admin))).statusCode).toBe(200);
    expect((await putPolicy(bearer(operator))).statusCode).toBe(403);
    const entries = await store.journal.query({ limit: 10 });
    const audit = entries.filter((e) => e.rule === 'api.audit');
    expect(audit).toHaveLength(2);
    const ok = audit.find((e) => e.result === 'applied')!;
    expect(ok.reason).toMatch(/^root-admin from .+: PUT \/v1\/policy -> 200$/);
    expect(JSON.parse(ok.detail!)).toMatchObject({ before: { name: 'capacity-targets', params: targets }, after: { name: 'fifo' } });
    const refused = audit.find((e) => e.result === 'failed')!;
    expect(refused.reason).toMatch(/^oncall from .+: PUT \/v1\/policy -> 403$/);
  });

  it('extreme policy parameters are refused at PUT, before anything reaches the RM', async () => {
    await start();
    const put = (params: unknown) =>
      app.inject({
        method: 'PUT',
        url: '/v1/policy',
        headers: { 'content-type': 'application/json', ...bearer(admin) },
        payload: JSON.stringify({ name: 'kairos', params }),
      });
    const r1 = await put({ quantumMs: 1e-7 });
    expect(r1.statusCode).toBe(400);
    expect(r1.json().field).toBe('params.quantumMs');
    const r2 = await put({ queueSlots: 1e12 });
    expect(r2.statusCode).toBe(400);
    expect(r2.json()).toMatchObject({ field: 'params.queueSlots', reason: expect.stringMatching(/64/) });
    expect(engine.config().name).toBe('capacity-targets');
  });

  it('a repeated query parameter is refused naming it', async () => {
    await start();
    const r = await app.inject({ url: '/v1/decisions?limit=1&limit=2', headers: bearer(reader) });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({ error: 'bad_request', field: 'query.limit', reason: 'given 2 times; give it once' });
  });

  it('an error quotes at most a bounded part of what was sent', async () => {
    await start();
    const name = 'x'.repeat(500_000);
    const r = await app.inject({
      method: 'PUT',
      url: '/v1/policy',
      headers: { 'content-type': 'application/json', ...bearer(admin) },
      payload: JSON.stringify({ name }),
    });
    expect(r.statusCode).toBe(400);
    expect(r.body.length).toBeLessThan(1_000);
    expect(r.json().field).toBe('name');
  });
});

describe('tokens and first start', () => {
  it('reads tokens from a YAML file and from name:role:token lists, naming what is wrong', () => {
    const file = join(dir, 'tokens.yaml');
    writeFileSync(file, `- { name: dashboard, role: read, token: ${reader.token} }\n- { name: root-admin, role: admin, token: ${admin.token} }\n`);
    expect(readTokensFile(file)).toEqual([reader, admin]);
    writeFileSync(file, 'tokens:\n  - { name: a, role: boss, token: 0123456789abcdef0 }\n');
    expect(() => readTokensFile(file)).toThrow(/tokens\.yaml\[0\]\.role/);
    expect(parseTokenList(`oncall:operate:${operator.token}`, 'SCHEDBRAIN_API_TOKENS')).toEqual([operator]);
    expect(() => parseTokenList('oncall:operate:short', 'SCHEDBRAIN_API_TOKENS')).toThrow(/SCHEDBRAIN_API_TOKENS\[0\]\.token/);
    expect(() => new ApiAuth({ tokens: [reader, { ...admin, name: reader.name }] })).toThrow(/two API tokens are named 'dashboard'/);
  });

  it('with no token configured, the state directory gets an admin token readable by its owner only, kept across starts', () => {
    const stateDir = join(dir, 'fresh');
    const first = ensureAdminTokenFile(stateDir);
    expect(first.created).toBe(true);
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
    expect(first.token).toMatchObject({ name: 'admin', role: 'admin' });
    expect(first.token.token.length).toBeGreaterThanOrEqual(40);
    chmodSync(first.path, 0o644);
    const again = ensureAdminTokenFile(stateDir);
    expect(again.created).toBe(false);
    expect(again.token.token).toBe(first.token.token);
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
  });

  it('configured tokens replace the first-start token; a non-loopback bind without TLS is refused unless allowed', () => {
    const cfg = (x: Record<string, unknown>) => configSchema.parse({ stateDir: join(dir, 'cfg'), ...x });
    const withEnv = adminAccess(cfg({}), { SCHEDBRAIN_API_TOKENS: `oncall:operate:${operator.token}` });
    expect(withEnv.adminTokenFile).toBeUndefined();
    expect(withEnv.auth.identify(`Bearer ${operator.token}`)?.name).toBe('oncall');
    const first = adminAccess(cfg({}), {});
    expect(first.adminTokenFile).toBe(join(dir, 'cfg', 'admin.token'));
    expect(first.auth.identify(`Bearer ${readFileSync(first.adminTokenFile!, 'utf8').trim()}`)?.role).toBe('admin');
    expect(() => adminAccess(cfg({ host: '0.0.0.0' }), {})).toThrow(/host 0\.0\.0\.0 is not a loopback address and the admin API has no TLS/);
    expect(adminAccess(cfg({ host: '0.0.0.0', allowInsecureBind: true }), {}).https).toBeUndefined();
    expect(() => adminAccess(cfg({ tls: { certFile: join(dir, 'nope.pem'), keyFile: join(dir, 'nope.key') } }), {})).toThrow(/tls\.keyFile: cannot read/);
  });

  it('serve refuses to start on a non-loopback address without TLS and says why', async () => {
    const err: string[] = [];
    const code = await serve(
      ['--rm-url', 'http://127.0.0.1:1', '--host', '0.0.0.0', '--state-dir', join(dir, 's')],
      { out: () => undefined, err: (s) => err.push(s) },
      new Promise(() => undefined),
    );
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/not a loopback address .* --allow-insecure-bind/);
  });
});

describe('TLS', () => {
  it('serves HTTPS with the configured certificate, and the real address in the startup line', async (ctx) => {
    if (!haveOpenssl()) return ctx.skip('openssl is not installed: no certificate to test with');
    const { key, cert } = selfSignedCert(dir);
    const out: string[] = [];
    let stop!: (s: string) => void;
    const stopped = new Promise<string>((r) => (stop = r));
    const running = serve(
      ['--rm-url', 'http://127.0.0.1:1', '--port', '0', '--state-dir', join(dir, 'tls-state'), '--dry-run', '--tls-cert', cert, '--tls-key', key],
      { out: (s) => out.push(s), err: (s) => out.push(s) },
      stopped,
    );
    for (let i = 0; i < 200 && !out.some((l) => l.includes('admin API')); i++) await new Promise((r) => setTimeout(r, 50));
    const line = out.find((l) => l.includes('admin API'))!;
    const url = /admin API (https:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
    expect(url, line).toBeDefined();
    const token = readFileSync(join(dir, 'tls-state', 'admin.token'), 'utf8').trim();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${url}/v1/policy`, { ca: readFileSync(cert), headers: { authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    stop('SIGTERM');
    expect(await running).toBe(0);
  });
});

describe('shim lease holder', () => {
  it('is named after the host and the state directory: stable across restarts, distinct per directory', async () => {
    const { leaseHolderFor } = await import('../../src/cli/main.js');
    const { mkdirSync } = await import('node:fs');
    const a = join(dir, 'brain-a');
    const b = join(dir, 'brain-b');
    mkdirSync(a);
    mkdirSync(b);
    expect(leaseHolderFor(a)).toBe(leaseHolderFor(join(dir, '.', 'brain-a')));
    expect(leaseHolderFor(a)).not.toBe(leaseHolderFor(b));
    expect(leaseHolderFor(a)).toMatch(/^schedbrain@.+:[0-9a-f]{12}$/);
  });
});
