import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import bopfRoutes, { BOPF_NAMESPACE } from '../../src/api/routes/bopf.js';
import { buildApi } from '../../src/api/server.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { bookSchema } from '../../src/policies/bopf/policy.js';
import { Store } from '../../src/store/store.js';
import { asAdmin, testAuth } from '../support/api-auth.js';

// The in-memory backend's cluster: 2 nodes × <8192 MB, 8 vcores> = 16 vcores, 16384 MB.
let dir: string;
let store: Store;
let backend: InMemoryBackend;
let engine: Engine;
let app: FastifyInstance;
const clock = new FakeClock();

async function start(policy = 'bopf') {
  store = await Store.open(dir);
  backend = new InMemoryBackend({ now: () => clock.now() });
  engine = new Engine({ backend, store, clock, periodMs: 10_000, initial: { policy, params: {} } });
  await engine.init();
  app = asAdmin(await buildApi({ engine, store, plugins: [bopfRoutes], auth: testAuth() }));
}
async function stop() {
  await app.close();
  await engine.stop();
  await store.close();
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-bopf-'));
  await start();
});
afterEach(async () => {
  await stop();
  rmSync(dir, { recursive: true, force: true });
});

const send = (method: 'POST' | 'PUT' | 'DELETE' | 'GET', url: string, body?: unknown) =>
  app.inject({ method, url, ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) } : {}) });
const lq = (name: string, vcoreSeconds: number) => ({
  name,
  kind: 'LQ',
  periodMs: 100_000,
  burstDeadlineMs: 10_000,
  demand: { vcoreSeconds, memoryMBSeconds: 0 },
});

describe('/v1/bopf/queues', () => {
  it('registers queues and answers each admission class with its reasons', async () => {
    let r = await send('POST', '/v1/bopf/queues', lq('a', 128)); // 12.8 of 16 vcores during a burst
    expect(r.statusCode).toBe(201);
    expect(r.json().admission).toMatchObject({ class: 'hard', queuesIfAdmitted: 1 });
    expect(r.json().admission.checks.map((c: { condition: string }) => c.condition)).toEqual(['safety', 'fairness', 'resource']);
    r = await send('POST', '/v1/bopf/queues', lq('b', 80)); // 8 > 16 − 12.8
    expect(r.json().admission.class).toBe('soft');
    expect(r.json().admission.reason).toContain('resource fails');
    expect(r.json().admission.checks[2].detail).toContain('= 8 vcores > C − Σ hard a_j(t) = 16 − 12.8 = 3.2 vcores');
    r = await send('POST', '/v1/bopf/queues', { name: 't', kind: 'TQ' });
    expect(r.statusCode).toBe(201);
    expect(r.json().queue).toMatchObject({ name: 't', kind: 'TQ', class: 'elastic' });
    r = await send('GET', '/v1/bopf/queues');
    expect(r.json()).toMatchObject({ capacity: { vcores: 16, memoryMB: 16384 }, variant: 'bopf' });
    expect(r.json().queues.map((q: { name: string; class: string }) => [q.name, q.class])).toEqual([
      ['a', 'hard'],
      ['b', 'soft'],
      ['t', 'elastic'],
    ]);
    r = await send('GET', '/v1/bopf/queues/b');
    expect(r.json()).toMatchObject({ name: 'b', class: 'soft', demand: { vcoreSeconds: 80, memoryMBSeconds: 0 } });
  });

  it('admits an LQ with a demand distribution on its alpha-strategy quantile', async () => {
    const r = await send('POST', '/v1/bopf/queues', {
      name: 'u',
      kind: 'LQ',
      periodMs: 100_000,
      burstDeadlineMs: 10_000,
      distribution: { vcoreSeconds: { kind: 'uniform', min: 0, max: 100 }, memoryMBSeconds: { kind: 'uniform', min: 0, max: 0 } },
      alpha: 0.81,
    });
    expect(r.statusCode).toBe(201);
    expect(r.json().admission.demand.vcoreSeconds).toBeCloseTo(90, 9); // quantile at sqrt(0.81)
    expect(r.json().admission.demandHow).toContain('alpha-strategy');
    expect(r.json().queue.spec.distribution.correlation).toBe('independent');
  });

  it('answers a rejected queue with 409, the failing condition and its numbers, and stores nothing', async () => {
    await send('POST', '/v1/bopf/queues', lq('big', 800)); // tolerates 16 × 100 / 800 = 2 queues
    await send('POST', '/v1/bopf/queues', { name: 't', kind: 'TQ' });
    const r = await send('POST', '/v1/bopf/queues', { name: 'u', kind: 'TQ' });
    expect(r.statusCode).toBe(409);
    expect(r.json()).toMatchObject({
      error: 'conflict',
      condition: 'safety',
      detail: "committed soft LQ big burst needs 800 vcore·s > C·period/N' = 16 vcores × 100 s / 3 = 533.333 vcore·s",
      admission: { class: 'rejected' },
    });
    expect((await send('GET', '/v1/bopf/queues')).json().queues).toHaveLength(2);
    expect((await send('GET', '/v1/bopf/queues/u')).statusCode).toBe(404);
    const stored = await store.namespace(BOPF_NAMESPACE, bookSchema).get('book');
    expect(stored!.queues.map((q) => q.spec.name)).toEqual(['big', 't']);
  });

  it('answers invalid input with 400 naming the field', async () => {
    let r = await send('POST', '/v1/bopf/queues', { name: 'x', kind: 'LQ', burstDeadlineMs: 1000, demand: { vcoreSeconds: 1, memoryMBSeconds: 0 } });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ error: 'bad_request', field: 'body.periodMs' });
    r = await send('POST', '/v1/bopf/queues', { ...lq('x', 1), demand: { vcoreSeconds: 'lots', memoryMBSeconds: 0 } });
    expect(r.json().field).toBe('body.demand.vcoreSeconds');
    r = await send('POST', '/v1/bopf/queues', { ...lq('x', 1), alpha: 0.9 });
    expect(r.json().field).toBe('body.alpha');
    r = await send('POST', '/v1/bopf/queues');
    expect(r.json()).toMatchObject({ error: 'bad_request', field: 'body' });
    r = await send('PUT', '/v1/bopf/queues/a', lq('other', 1));
    expect(r.statusCode).toBe(400);
    expect(r.json().field).toBe('body.name');
    expect((await send('GET', '/v1/bopf/queues')).json().queues).toEqual([]);
  });

  it('refuses a second registration of the same name (409) and updates with PUT', async () => {
    await send('POST', '/v1/bopf/queues', lq('a', 128));
    let r = await send('POST', '/v1/bopf/queues', lq('a', 10));
    expect(r.statusCode).toBe(409);
    expect(r.json().reason).toContain('already registered');
    // PUT without a name in the body takes the path's; judged as if absent: still hard.
    const { name: _n, ...noName } = lq('a', 64);
    r = await send('PUT', '/v1/bopf/queues/a', noName);
    expect(r.statusCode).toBe(200);
    expect(r.json().queue).toMatchObject({ class: 'hard', demand: { vcoreSeconds: 64 } });
    // A PUT that would be rejected leaves the queue as it was.
    await send('POST', '/v1/bopf/queues', { name: 't', kind: 'TQ' });
    r = await send('PUT', '/v1/bopf/queues/a', lq('a', 1200)); // fairness at N' = 2: 1200 > 800 → elastic, accepted
    expect(r.json().queue.class).toBe('elastic');
    expect((await send('PUT', '/v1/bopf/queues/zz', lq('zz', 1))).statusCode).toBe(404);
  });

  it('DELETE removes a queue and lifts its safety bound', async () => {
    await send('POST', '/v1/bopf/queues', lq('big', 800));
    await send('POST', '/v1/bopf/queues', { name: 't', kind: 'TQ' });
    expect((await send('POST', '/v1/bopf/queues', { name: 'u', kind: 'TQ' })).statusCode).toBe(409);
    expect((await send('DELETE', '/v1/bopf/queues/big')).statusCode).toBe(204);
    expect((await send('DELETE', '/v1/bopf/queues/big')).statusCode).toBe(404);
    expect((await send('POST', '/v1/bopf/queues', { name: 'u', kind: 'TQ' })).statusCode).toBe(201);
  });

  it('keeps admissions across a restart and hands them to the running BoPF policy', async () => {
    await send('POST', '/v1/bopf/queues', lq('a', 128));
    await send('POST', '/v1/bopf/queues', { name: 't', kind: 'TQ' });
    const params = engine.config().params as { book?: { queues: { spec: { name: string }; cls: string }[] } };
    expect(params.book!.queues.map((q) => [q.spec.name, q.cls])).toEqual([
      ['a', 'hard'],
      ['t', 'elastic'],
    ]);
    await stop();
    await start();
    const r = await send('GET', '/v1/bopf/queues');
    expect(r.json().queues.map((q: { name: string }) => q.name)).toEqual(['a', 't']);
    // The next registration is judged against the persisted set: N' = 3.
    expect((await send('POST', '/v1/bopf/queues', lq('c', 10))).json().admission.queuesIfAdmitted).toBe(3);
  });

  it('answers 503 and stores nothing when the cluster capacity cannot be read for a first registration', async () => {
    backend.down = 'connection refused';
    const r = await send('POST', '/v1/bopf/queues', lq('a', 1));
    expect(r.statusCode).toBe(503);
    backend.down = undefined;
    expect((await send('GET', '/v1/bopf/queues')).json().queues).toEqual([]);
  });
});
