/**
 * A writing policy the cluster cannot carry out is refused, not run silently advisory; and the
 * operator's state dump (`GET /v1/state`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SyntheticRm } from '../../bench/synthetic-rm.js';
import darssRoutes from '../../src/api/routes/darss.js';
import { buildApi } from '../../src/api/server.js';
import { serve } from '../../src/cli/main.js';
import { redactSecrets } from '../../src/config.js';
import { ConflictError } from '../../src/core/errors.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { Store } from '../../src/store/store.js';
import { asAdmin, testAuth } from '../support/api-auth.js';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-caps-'));
  store = await Store.open(join(dir, 'store'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a policy the cluster cannot carry out', () => {
  const engineOn = (backend: InMemoryBackend, requireCapabilities: boolean) =>
    new Engine({ backend, store, clock: new FakeClock(), periodMs: 10_000, requireCapabilities, initial: { policy: 'fifo', params: {}, dryRun: false } });

  it('names what it lacks: Kairos needs container suspension, DARSS queue writes, FIFO nothing', async () => {
    const engine = engineOn(
      new InMemoryBackend({ capabilities: { containerSuspend: false, notes: ['containerSuspend: no NodeManager shim configured'] } }),
      true,
    );
    await engine.init();
    expect(await engine.missingCapabilities('kairos')).toEqual({ missing: ['containerSuspend'], notes: ['containerSuspend: no NodeManager shim configured'] });
    expect(await engine.missingCapabilities('darss')).toEqual({ missing: [], notes: [] });
    expect(await engine.missingCapabilities('fifo')).toEqual({ missing: [], notes: [] });
  });

  it('is refused as a writing policy (409) and the running one stays; as a dry-run, or with advisory allowed, it runs', async () => {
    const backend = new InMemoryBackend({ capabilities: { containerSuspend: false } });
    const strict = engineOn(backend, true);
    await strict.init();
    await expect(strict.setPolicy({ name: 'kairos' })).rejects.toThrow(ConflictError);
    expect(strict.config().name).toBe('fifo');
    await expect(strict.setPolicy({ name: 'kairos', dryRun: true })).resolves.toMatchObject({ name: 'kairos', dryRun: true });
    await strict.stop();
    const lenient = engineOn(backend, false);
    await lenient.init();
    await expect(lenient.setPolicy({ name: 'kairos', dryRun: false })).resolves.toMatchObject({ name: 'kairos', dryRun: false });
    await lenient.stop();
  });

  it('does not start with `serve` (exit 2, saying what is missing and what to do)', async () => {
    const rm = await new SyntheticRm({ nodes: 2, apps: 0, containers: 0 }).start();
    const err: string[] = [];
    const io = { out: () => undefined, err: (s: string) => void err.push(s) };
    try {
      const code = await serve(
        ['--rm-url', rm.url, '--policy', 'kairos', '--state-dir', join(dir, 'serve'), '--port', '0', '--log-level', 'silent'],
        io,
        Promise.resolve(),
      );
      expect(code).toBe(2);
      expect(err.join('\n')).toMatch(/policy kairos needs containerSuspend[\s\S]*--dry-run[\s\S]*--allow-advisory/);
    } finally {
      await rm.stop();
    }
  });
});

describe('GET /v1/state', () => {
  it('shows configuration without secrets, the engine, the policy with a summary of its ledger, and what the backend keeps', async () => {
    const clock = new FakeClock();
    const backend = new InMemoryBackend({
      now: () => clock.now(),
      queues: { 'root.production': { capacityPct: 50, maxCapacityPct: 100 }, 'root.besteffort': { capacityPct: 50, maxCapacityPct: 100 } },
    });
    const engine = new Engine({
      backend,
      store,
      clock,
      periodMs: 10_000,
      limits: { allowZeroCapacity: ['root.production', 'root.besteffort'] },
      initial: { policy: 'darss', params: {} },
    });
    await engine.init();
    await engine.runCycle();
    const serviceInfo = () => ({
      config: redactSecrets({
        rmUrl: 'http://rm:8088',
        auth: { tokensFile: '/etc/sb/tokens.yaml' },
        shim: { secretFile: '/etc/sb/secret' },
        tokens: [{ name: 'ops', token: 'abc' }],
      }),
    });
    const api = await buildApi({
      engine,
      store,
      plugins: [darssRoutes],
      auth: testAuth([{ name: 'reader', role: 'read', token: 'reader-token-0123456789abcdef' }]),
      serviceInfo,
    });
    try {
      const denied = await api.inject({ method: 'GET', url: '/v1/state', headers: { authorization: 'Bearer reader-token-0123456789abcdef' } });
      expect(denied.statusCode).toBe(403);
      const admin = asAdmin(api);
      const post = await admin.inject({
        method: 'POST',
        url: '/v1/darss/requests',
        payload: { id: 'wf1', deadlineMs: clock.now() + 3_600_000, jobs: [{ name: 'a', tasks: 2, leaseMs: 600_000 }] },
      });
      expect(post.statusCode, post.body).toBe(201);
      const r = await admin.inject({ method: 'GET', url: '/v1/state' });
      expect(r.statusCode, r.body).toBe(200);
      const body = r.json();
      expect(body.service.config).toEqual({
        rmUrl: 'http://rm:8088',
        auth: { tokensFile: '/etc/sb/tokens.yaml' },
        shim: { secretFile: '/etc/sb/secret' },
        tokens: '(redacted)',
      });
      expect(body.engine).toMatchObject({ policy: 'darss', dryRun: false });
      expect(body.policy).toMatchObject({ name: 'darss', summary: { admitted: 1, judged: 1, rejected: 0, capacityUnits: 16 } });
      expect(body.policy.summary.reservedNowUnits).toBeGreaterThanOrEqual(0);
      expect(body.backend).toEqual({});
    } finally {
      await api.close();
      await engine.stop();
    }
  });

  it('redacts secrets at any depth and keeps paths to them', () => {
    expect(redactSecrets({ a: { token: 't', password: 'p', tokenFile: '/x' }, list: [{ secret: 's' }], key: 'k', keyFile: '/k' })).toEqual({
      a: { token: '(redacted)', password: '(redacted)', tokenFile: '/x' },
      list: [{ secret: '(redacted)' }],
      key: '(redacted)',
      keyFile: '/k',
    });
  });
});
