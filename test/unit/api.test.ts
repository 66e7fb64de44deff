import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApi, type RoutePlugin } from '../../src/api/server.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { Store } from '../../src/store/store.js';
import { asAdmin, testAuth } from '../support/api-auth.js';

let dir: string;
let store: Store;
let backend: InMemoryBackend;
let engine: Engine;
let app: FastifyInstance;
const clock = new FakeClock();

const targets = (a: number, b: number) => ({ targets: { 'root.a': { capacityPct: a }, 'root.b': { capacityPct: b } } });

async function setup(plugins: RoutePlugin[] = []) {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-api-'));
  store = await Store.open(dir);
  backend = new InMemoryBackend({ now: () => clock.now() });
  engine = new Engine({ backend, store, clock, periodMs: 10_000, initial: { policy: 'capacity-targets', params: targets(50, 50) } });
  await engine.init();
  app = asAdmin(await buildApi({ engine, store, plugins, auth: testAuth() }));
}

beforeEach(async () => {
  await setup();
});

afterEach(async () => {
  await app.close();
  await engine.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const put = (payload: unknown, raw = false) =>
  app.inject({
    method: 'PUT',
    url: '/v1/policy',
    headers: { 'content-type': 'application/json' },
    payload: raw ? (payload as string) : JSON.stringify(payload),
  });

describe('admin API', () => {
  it('GET /healthz reports starting, ok, then down with 503 when the RM is unreachable', async () => {
    let r = await app.inject('/healthz');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'starting', rmReachable: null, policy: 'capacity-targets', dryRun: false });
    await engine.runCycle();
    r = await app.inject('/healthz');
    expect(r.json()).toMatchObject({ status: 'ok', rmReachable: true, lastCycleOk: true, advisory: false });
    backend.down = 'connection refused';
    await engine.runCycle();
    r = await app.inject('/healthz');
    expect(r.statusCode).toBe(503);
    expect(r.json()).toMatchObject({ status: 'down', rmReachable: false, lastCycleOk: false });
    expect(r.json().rmError).toMatch(/connection refused/);
  });

  it('GET /livez answers 200 even when the RM is down', async () => {
    backend.down = 'gone';
    await engine.runCycle();
    const r = await app.inject('/livez');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ status: 'alive', running: false });
  });

  it('GET /healthz says when the engine is advisory', async () => {
    backend.caps = { ...backend.caps, queueWrites: false, notes: ['file-based scheduler configuration'] };
    await engine.runCycle();
    const r = await app.inject('/healthz');
    expect(r.json()).toMatchObject({ advisory: true });
    expect(r.json().advisoryReason).toMatch(/file-based/);
  });

  it('GET /v1/snapshot serialises maps as arrays, from the view while it is fresh; 503 with why once it is stale and the RM is down', async () => {
    const r = await app.inject('/v1/snapshot');
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(Array.isArray(body.nodes)).toBe(true);
    expect(body.nodes).toHaveLength(2);
    expect(body.apps).toEqual([]);
    expect(body.containers).toEqual([]);
    expect(body.rootQueue.children.map((q: { path: string }) => q.path)).toEqual(['root.a', 'root.b']);
    expect(body.ageMs).toBe(0);
    const reads = backend.snapshotCalls;
    backend.down = 'connect ECONNREFUSED 127.0.0.1:8088';
    await clock.advance(5_000);
    const cached = await app.inject('/v1/snapshot');
    expect(cached.statusCode).toBe(200);
    expect(cached.json().ageMs).toBe(5_000);
    expect(backend.snapshotCalls).toBe(reads);
    await clock.advance(30_000);
    const d = await app.inject('/v1/snapshot');
    expect(d.statusCode).toBe(503);
    expect(d.json()).toEqual({ error: 'rm_unavailable', reason: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('GET /v1/snapshot?parts=: all (the view holds everything here: no read of its own), a bad value a 400 that names the field', async () => {
    const reads = backend.snapshotCalls;
    const all = await app.inject('/v1/snapshot?parts=all');
    expect(all.statusCode).toBe(200);
    expect(all.json().nodes).toHaveLength(2);
    expect(all.json().parts).toBeUndefined();
    const again = await app.inject('/v1/snapshot?parts=all');
    expect(again.statusCode).toBe(200);
    expect(backend.snapshotCalls).toBe(reads + 1);
    const bad = await app.inject('/v1/snapshot?parts=some');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'bad_request', field: 'query.parts' });
  });

  it('GET /v1/policy and PUT /v1/policy (validated, persisted, then effective)', async () => {
    const g = await app.inject('/v1/policy');
    expect(g.json()).toMatchObject({ name: 'capacity-targets', params: targets(50, 50), dryRun: false });
    expect(g.json().registered.map((p: { name: string }) => p.name)).toContain('capacity-targets');
    const r = await put({ name: 'capacity-targets', params: targets(30, 70), dryRun: true });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ name: 'capacity-targets', params: targets(30, 70), dryRun: true });
    expect(await store.getEngineConfig()).toMatchObject({ policy: 'capacity-targets', dryRun: true, params: targets(30, 70) });
  });

  it('GET /v1/policy/state shows the state and when it was saved', async () => {
    let r = (await app.inject('/v1/policy/state')).json();
    expect(r).toEqual({ policy: 'capacity-targets', state: {}, savedAtMs: null, savedByCycle: null });
    const c = await engine.runCycle();
    r = (await app.inject('/v1/policy/state')).json();
    expect(r).toMatchObject({ policy: 'capacity-targets', state: {}, savedByCycle: c.cycleId });
  });

  it('PUT /v1/policy rejects bad bodies with 400 naming the field, and changes nothing', async () => {
    const cases: Array<[unknown, string, RegExp, boolean?]> = [
      [{ name: 'capacity-targets', params: { targets: { 'root.a': { capacityPct: 150 } } } }, 'params.targets.root.a.capacityPct', /100/],
      [
        { name: 'capacity-targets', params: { targets: { 'root.a': { capacityPct: 'lots' } } } },
        'params.targets.root.a.capacityPct',
        /Expected number, received string/,
      ],
      [
        { name: 'capacity-targets', params: { targets: { 'root.a': { capacityPct: 60 }, 'root.b': { capacityPct: 50 } } } },
        'params.targets.root.b.capacityPct',
        /sum to 110%/,
      ],
      [{ name: 'no-such-policy' }, 'name', /unknown policy "no-such-policy"; registered: .*capacity-targets/],
      [{ name: 42 }, 'name', /Expected string, received number/],
      [{ name: 'capacity-targets', dryRun: 'yes' }, 'dryRun', /Expected boolean/],
      [{ name: 'capacity-targets', extra: 1 }, '', /Unrecognized key/],
      [[1, 2], '', /Expected object, received array/],
      ['{"name": "capacity-targets",', 'body', /malformed JSON/, true],
      ['', 'body', /JSON body/, true],
    ];
    for (const [payload, field, reason, raw] of cases) {
      const r = await put(payload, raw);
      expect(r.statusCode, JSON.stringify(payload)).toBe(400);
      const body = r.json();
      expect(body.error).toBe('bad_request');
      if (field) expect(body.field, JSON.stringify(payload)).toBe(field);
      else expect(typeof body.field).toBe('string');
      expect(body.reason, JSON.stringify(payload)).toMatch(reason);
    }
    expect(engine.config()).toMatchObject({ name: 'capacity-targets', params: targets(50, 50), dryRun: false });
    expect(await store.getEngineConfig()).toMatchObject({ params: targets(50, 50), dryRun: false });
  });

  it('PUT /v1/policy checks params against the live cluster once a snapshot exists', async () => {
    await engine.runCycle();
    const r = await put({ name: 'capacity-targets', params: { targets: { 'root.a': { capacityPct: 70 } } } });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ error: 'bad_request', field: 'params.targets.root.a.capacityPct' });
    expect(r.json().reason).toMatch(/children of root would sum to 120% after applying targets/);
    const missing = await put({ name: 'capacity-targets', params: { targets: { 'root.zz': { capacityPct: 0 } } } });
    expect(missing.json()).toMatchObject({ field: 'params.targets.root.zz', reason: expect.stringMatching(/does not exist/) });
  });

  it('rejects a non-JSON content type with 415', async () => {
    const r = await app.inject({ method: 'PUT', url: '/v1/policy', headers: { 'content-type': 'text/plain' }, payload: 'name=x' });
    expect(r.statusCode).toBe(415);
    expect(r.json().error).toBe('unsupported_media_type');
  });

  it('POST /v1/dry-run returns decisions with reasons and writes nothing', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/dry-run', payload: { name: 'capacity-targets', params: targets(20, 80) } });
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ policy: 'capacity-targets', outcome: 'ok', advisory: false });
    expect(body.decisions).toHaveLength(1);
    expect(body.decisions[0]).toMatchObject({ result: 'dryRun', rule: 'capacity-targets.hold', action: { kind: 'updateQueues' } });
    expect(body.decisions[0].reason).toBe('root.a capacity 50% → 20%; root.b capacity 50% → 80%');
    expect(backend.applied).toHaveLength(0);
    expect(backend.queues.get('root.a')?.capacityPct).toBe(50);
    expect(await store.journal.query({})).toHaveLength(0);
    expect(engine.config().params).toEqual(targets(50, 50));
    // Without a body: the running policy.
    const cur = await app.inject({ method: 'POST', url: '/v1/dry-run' });
    expect(cur.statusCode).toBe(200);
    expect(cur.json().decisions).toEqual([]);
    const bad = await app.inject({
      method: 'POST',
      url: '/v1/dry-run',
      payload: { name: 'capacity-targets', params: { targets: { 'root.a': { capacityPct: -1 } } } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('params.targets.root.a.capacityPct');
    backend.down = 'timeout after 10000 ms';
    await clock.advance(30_001);
    const down = await app.inject({ method: 'POST', url: '/v1/dry-run' });
    expect(down.statusCode).toBe(503);
    expect(down.json().reason).toMatch(/timeout after 10000 ms/);
  });

  it('GET /v1/decisions filters by limit, since and policy; bad query → 400', async () => {
    await store.journal.append(1000, [{ cycleId: 'c1', policy: 'x', rule: 'x.r', reason: 'one', result: 'applied', action: { kind: 'killApp', appId: 'a1' } }]);
    await store.journal.append(2000, [{ cycleId: 'c2', policy: 'y', rule: 'y.r', reason: 'two', result: 'noop', action: { kind: 'killApp', appId: 'a2' } }]);
    await store.journal.append(3000, [
      { cycleId: 'c3', policy: 'x', rule: 'x.r', reason: 'three', result: 'skipped', skipReason: 'limit', action: { kind: 'killApp', appId: 'a3' } },
    ]);
    const reasons = async (qs: string) => (await app.inject(`/v1/decisions${qs}`)).json().entries.map((e: { reason: string }) => e.reason);
    expect(await reasons('')).toEqual(['three', 'two', 'one']);
    expect(await reasons('?limit=1')).toEqual(['three']);
    expect(await reasons('?since=2000')).toEqual(['three', 'two']);
    expect(await reasons(`?since=${new Date(2000).toISOString()}`)).toEqual(['three', 'two']);
    expect(await reasons('?policy=x')).toEqual(['three', 'one']);
    expect(await reasons('?cycle=c2')).toEqual(['two']);
    expect(await reasons('?order=asc&since=2000&limit=1')).toEqual(['two']);
    expect((await app.inject('/v1/decisions?order=sideways')).json()).toMatchObject({ field: 'query.order' });
    const bad = await app.inject('/v1/decisions?limit=abc');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'bad_request', field: 'query.limit' });
    const bad2 = await app.inject('/v1/decisions?since=yesterday');
    expect(bad2.json()).toMatchObject({ field: 'query.since' });
    const bad3 = await app.inject('/v1/decisions?limit=0');
    expect(bad3.json()).toMatchObject({ field: 'query.limit' });
  });

  it('GET /metrics exposes Prometheus text', async () => {
    await engine.runCycle();
    await put({ name: 'capacity-targets', params: targets(40, 60) });
    await engine.runCycle();
    const r = await app.inject('/metrics');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/text\/plain; version=0\.0\.4/);
    expect(r.body).toMatch(/# TYPE schedbrain_cycles_total counter/);
    expect(r.body).toMatch(/schedbrain_cycles_total\{outcome="ok"\} 2/);
    expect(r.body).toMatch(/schedbrain_decisions_total\{policy="capacity-targets",result="applied"\} 1/);
    expect(r.body).toMatch(/schedbrain_cycle_duration_seconds_count 2/);
    expect(r.body).toMatch(/schedbrain_last_successful_snapshot_age_seconds 0/);
    expect(r.body).toMatch(/schedbrain_rm_errors_total 0/);
  });

  it('unknown routes answer 404 in the error format', async () => {
    const r = await app.inject('/v1/nope');
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ error: 'not_found', reason: 'no route GET /v1/nope' });
  });
});

describe('extra route plugins', () => {
  it('are registered with the engine and store, and share the error handler', async () => {
    await app.close();
    await engine.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    const rec = z.object({ appId: z.string(), admitted: z.boolean() });
    const plugin: RoutePlugin = async (f, opts) => {
      const kv = opts.store.namespace('demo.admissions', rec);
      f.put('/v1/demo/:id', async (req) => {
        const body = rec.parse(req.body);
        await kv.put((req.params as { id: string }).id, body);
        return { ok: true, policy: f.schedbrain.engine.config().name };
      });
      f.get('/v1/demo', async () => ({ entries: await kv.list() }));
    };
    await setup([plugin]);
    const ok = await app.inject({ method: 'PUT', url: '/v1/demo/a1', payload: { appId: 'a1', admitted: true } });
    expect(ok.json()).toEqual({ ok: true, policy: 'capacity-targets' });
    expect((await app.inject('/v1/demo')).json().entries).toEqual([{ key: 'a1', value: { appId: 'a1', admitted: true } }]);
    const bad = await app.inject({ method: 'PUT', url: '/v1/demo/a2', payload: { appId: 'a2', admitted: 'maybe' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'bad_request', field: 'body.admitted' });
  });
});
