import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApiToken } from '../../src/api/auth.js';
import darssRoutes, { DARSS_NAMESPACE } from '../../src/api/routes/darss.js';
import { buildApi } from '../../src/api/server.js';
import type { AppView } from '../../src/core/model.js';
import { JOB_TAG, REQUEST_TAG } from '../../src/core/rsl.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import type { DarssState } from '../../src/policies/darss/index.js';
import { Store } from '../../src/store/store.js';
import { asAdmin, testAuth } from '../support/api-auth.js';

// The in-memory backend's cluster: 2 nodes × <8 vcores, 8192 MB> = 16 units of 1 vcore + 1 GB,
// 8 on the largest node. Default quota 7 of 70 units leaves 14.4; the 75 % cap makes it 12.
const OPERATOR: ApiToken = { name: 'ops', role: 'operate', token: 'operator-token-0123456789abcdef' };
const HOUR = 3_600_000;
const MIN10 = 600_000;
let dir: string;
let store: Store;
let backend: InMemoryBackend;
let engine: Engine;
let app: FastifyInstance;
let clock: FakeClock;

async function start() {
  store = await Store.open(dir);
  backend = new InMemoryBackend({
    now: () => clock.now(),
    queues: { 'root.production': { capacityPct: 50, maxCapacityPct: 100 }, 'root.besteffort': { capacityPct: 50, maxCapacityPct: 100 } },
  });
  engine = new Engine({
    backend,
    store,
    clock,
    periodMs: 10_000,
    limits: { allowZeroCapacity: ['root.production', 'root.besteffort'] },
    initial: { policy: 'darss', params: {} },
  });
  await engine.init();
  app = asAdmin(await buildApi({ engine, store, plugins: [darssRoutes], auth: testAuth([OPERATOR]) }));
}
async function stop() {
  await app.close();
  await engine.stop();
  await store.close();
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-darss-api-'));
  clock = new FakeClock();
  await start();
});
afterEach(async () => {
  await stop();
  rmSync(dir, { recursive: true, force: true });
});

const send = (method: 'POST' | 'PUT' | 'DELETE' | 'GET', url: string, body?: unknown, headers: Record<string, string> = {}) =>
  app.inject({
    method,
    url,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) } : { headers }),
  });

/** Two jobs, b after a: 4 + 2 tasks of one unit for 10 min, deadline in an hour. */
const small = (id: string, deadlineMs = clock.now() + HOUR) => ({
  id,
  group: 'etl',
  deadlineMs,
  jobs: [
    { name: 'a', tasks: 4, leaseMs: MIN10 },
    { name: 'b', tasks: 2, leaseMs: MIN10, prerequisites: ['a'] },
  ],
});

const state = () => engine.policyState() as DarssState;
const ledger = async () => (await send('GET', `/v1/darss/ledger?from=${clock.now()}&to=${clock.now() + 2 * HOUR}`)).json();

function tagged(id: string, rid: string, job: string, runningContainers: number): AppView {
  const t = clock.now();
  return {
    id,
    name: id,
    user: 'u',
    queue: 'root.production',
    state: 'RUNNING',
    priority: 0,
    submittedAtMs: t,
    startedAtMs: t,
    runningContainers,
    pendingContainers: 1,
    allocated: { memoryMB: 1024 * runningContainers, vcores: runningContainers },
    tags: { [REQUEST_TAG]: rid, [JOB_TAG]: job },
  };
}

describe('/v1/darss/requests', () => {
  it('admits a workflow: 201 with its latest starts, booked in the running policy and the store', async () => {
    const deadline = clock.now() + HOUR;
    const r = await send('POST', '/v1/darss/requests', small('wf1', deadline));
    expect(r.statusCode).toBe(201);
    expect(r.json().id).toBe('wf1');
    // Backward pass: b must start a lease before the deadline, a a lease before b.
    expect(r.json().latestStarts).toEqual({ b: deadline - MIN10, a: deadline - 2 * MIN10 });
    expect(r.json().decision).toMatchObject({
      accepted: true,
      rule: 'criticalPathAdmission',
      numbers: { neededUnitMs: 6 * MIN10, criticalPathMs: 2 * MIN10, windowToMs: deadline },
    });
    expect(state().admitted.wf1.group).toBe('etl');
    expect(await store.namespace(DARSS_NAMESPACE, z.unknown()).get('wf1')).toMatchObject({ id: 'wf1', admitted: { group: 'etl' } });

    const list = (await send('GET', '/v1/darss/requests?group=etl')).json();
    expect(list.requests).toHaveLength(1);
    expect(list.requests[0]).toMatchObject({
      id: 'wf1',
      group: 'etl',
      deadlineMs: deadline,
      progress: { jobs: 2, jobsDone: 0, fraction: 0 },
      slackMs: deadline - 2 * MIN10 - clock.now(),
    });
    expect((await send('GET', '/v1/darss/requests?group=other')).json().requests).toEqual([]);
    const one = await send('GET', '/v1/darss/requests/wf1');
    expect(one.statusCode).toBe(200);
    expect(one.json().workflow.jobs.map((j: { name: string }) => j.name)).toEqual(['a', 'b']);
    expect((await send('GET', '/v1/darss/requests/nope')).statusCode).toBe(404);

    // The ledger shows the booking: nothing now, 4 units for a, then 2 for b up to the deadline.
    const l = await ledger();
    expect(l.capacityUnits).toBe(16);
    expect(l.productionLimitUnits).toBe(12);
    const at = (t: number) => l.steps.find((s: { fromMs: number; toMs: number }) => s.fromMs <= t && t < s.toMs).units;
    expect(at(deadline - MIN10 / 2)).toBe(2);
    expect(at(deadline - MIN10 - MIN10 / 2)).toBe(4);
    expect(at(clock.now())).toBe(0);
  });

  it('refuses a workflow that does not fit with 409, the failing condition and its numbers, and changes nothing', async () => {
    const deadline = clock.now() + HOUR;
    const before = await ledger();
    const big = { id: 'big', deadlineMs: deadline, jobs: [{ name: 'x', tasks: 100, unitsPerTask: 2, leaseMs: 50 * 60_000 }] };
    const r = await send('POST', '/v1/darss/requests', big);
    expect(r.statusCode).toBe(409);
    const body = r.json();
    expect(body.error).toBe('conflict');
    expect(body.condition).toBe('criticalPathAdmission');
    // Needed: 100 tasks × 2 units × 50 min; free: the 12-unit production limit over the hour.
    expect(body.numbers).toMatchObject({
      neededUnitMs: 100 * 2 * 50 * 60_000,
      freeUnitMs: 12 * HOUR,
      windowFromMs: clock.now(),
      windowToMs: deadline,
      criticalPathMs: 50 * 60_000,
      timeLeftMs: HOUR,
    });
    expect(body.reason).toContain('rejected');
    expect(await ledger()).toEqual(before);
    expect(state().judged.big).toBeUndefined();
    expect((await send('GET', '/v1/darss/requests')).json().requests).toEqual([]);
    // The id stays free: a request that fits may take it.
    expect((await send('POST', '/v1/darss/requests', small('big'))).statusCode).toBe(201);
    expect((await send('POST', '/v1/darss/requests', small('big'))).statusCode).toBe(409);
  });

  it('refuses a workflow whose critical path is longer than the time left', async () => {
    const r = await send('POST', '/v1/darss/requests', { id: 'long', deadlineMs: clock.now() + MIN10, jobs: [{ name: 'x', tasks: 1, leaseMs: 2 * MIN10 }] });
    expect(r.statusCode).toBe(409);
    expect(r.json()).toMatchObject({ condition: 'criticalPathLongerThanTimeLeft', numbers: { criticalPathMs: 2 * MIN10, timeLeftMs: MIN10 } });
  });

  it('answers 400 naming the field for each kind of bad request, and stores nothing', async () => {
    const now = clock.now();
    const cases: [unknown, RegExp][] = [
      [
        {
          deadlineMs: now + HOUR,
          jobs: [
            { name: 'a', tasks: 1, leaseMs: MIN10, prerequisites: ['b'] },
            { name: 'b', tasks: 1, leaseMs: MIN10, prerequisites: ['a'] },
          ],
        },
        /^body\.jobs\[[01]\]\.prerequisites$/,
      ],
      [{ deadlineMs: now + HOUR, jobs: [{ name: 'a', tasks: 1, leaseMs: MIN10, prerequisites: ['ghost'] }] }, /^body\.jobs\[0\]\.prerequisites\[0\]$/],
      [{ deadlineMs: now - 1, jobs: [{ name: 'a', tasks: 1, leaseMs: MIN10 }] }, /^body\.deadlineMs$/],
      [{ deadlineMs: now + HOUR, jobs: [{ name: 'a', tasks: 1, leaseMs: MIN10, unitsPerTask: 9 }] }, /^body\.jobs\[0\]\.unitsPerTask$/],
      [{ deadlineMs: now + HOUR, jobs: [{ name: 'a', tasks: 0, leaseMs: MIN10 }] }, /^body\.jobs\[0\]\.tasks$/],
      [{ deadlineMs: now + 365 * 24 * HOUR, jobs: [{ name: 'a', tasks: 1, leaseMs: MIN10 }] }, /^body\.deadlineMs$/],
      [{ deadlineMs: now + HOUR, jobs: [{ name: 'a', tasks: 1, leaseMs: 1 }] }, /^body\.jobs\[0\]\.leaseMs$/],
      [{ id: 'a/b', deadlineMs: now + HOUR, jobs: [{ name: 'a', tasks: 1, leaseMs: MIN10 }] }, /^body\.id$/],
      [{ jobs: [{ name: 'a', tasks: 1, leaseMs: MIN10 }] }, /^body\.deadlineMs$/],
    ];
    for (const [body, field] of cases) {
      const r = await send('POST', '/v1/darss/requests', body);
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(r.json().field, JSON.stringify(body)).toMatch(field);
    }
    const task = await send('POST', '/v1/darss/requests', cases[3][0]);
    expect(task.json().reason).toContain('larger than any node');
    const malformed = await app.inject({
      method: 'POST',
      url: '/v1/darss/requests',
      headers: { 'content-type': 'application/yaml' },
      payload: 'jobs: [unclosed',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().field).toBe('body');
    expect((await send('GET', '/v1/darss/requests')).json().requests).toEqual([]);
    expect(Object.keys(state().judged)).toEqual([]);
  });

  it('takes the workflow as YAML', async () => {
    const deadline = clock.now() + HOUR;
    const yaml = `id: wf-yaml\ngroup: etl\ndeadlineMs: ${deadline}\njobs:\n  - name: a\n    tasks: 4\n    leaseMs: ${MIN10}\n  - name: b\n    tasks: 2\n    leaseMs: ${MIN10}\n    prerequisites: [a]\n`;
    const r = await app.inject({ method: 'POST', url: '/v1/darss/requests', headers: { 'content-type': 'application/yaml' }, payload: yaml });
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({ id: 'wf-yaml', latestStarts: { a: deadline - 2 * MIN10, b: deadline - MIN10 } });
  });

  it('withdraws a request not started (bookings released) and refuses once a task has started', async () => {
    expect((await send('POST', '/v1/darss/requests', small('early'))).statusCode).toBe(201);
    const empty = (await ledger()).steps.every((s: { units: number }) => s.units === 0);
    expect(empty).toBe(false);
    expect((await send('DELETE', '/v1/darss/requests/early')).statusCode).toBe(204);
    expect((await ledger()).steps.every((s: { units: number }) => s.units === 0)).toBe(true);
    expect(state().admitted.early).toBeUndefined();
    expect((await send('GET', '/v1/darss/requests/early')).statusCode).toBe(404);
    expect((await send('DELETE', '/v1/darss/requests/early')).statusCode).toBe(404);

    expect((await send('POST', '/v1/darss/requests', small('late'))).statusCode).toBe(201);
    backend.apps.push(tagged('application_1_0001', 'late', 'a', 2));
    const r = await send('DELETE', '/v1/darss/requests/late');
    expect(r.statusCode).toBe(409);
    expect(r.json().reason).toContain('has started');
    expect(state().admitted.late).toBeDefined();
  });

  it('keeps admitted requests and the ledger across a restart, and rebooks what the policy state lost', async () => {
    const deadline = clock.now() + HOUR;
    expect((await send('POST', '/v1/darss/requests', small('kept', deadline))).statusCode).toBe(201);
    expect((await send('POST', '/v1/darss/requests', small('gone', deadline))).statusCode).toBe(201);
    expect((await send('DELETE', '/v1/darss/requests/gone')).statusCode).toBe(204);
    const before = await ledger();
    await stop();
    await start();
    expect((await send('GET', '/v1/darss/requests/kept')).json()).toMatchObject({ id: 'kept', deadlineMs: deadline });
    expect((await send('GET', '/v1/darss/requests/gone')).statusCode).toBe(404);
    expect(await ledger()).toEqual(before);
    expect(state().admitted.kept).toBeDefined();

    // The policy state lost (a crash before it was saved): the stored admission is booked again.
    await stop();
    store = await Store.open(dir);
    await store.delPolicyState('darss');
    await store.close();
    await start();
    await engine.runCycle();
    expect(state().admitted.kept).toBeDefined();
    expect(state().admitted.gone).toBeUndefined();
    expect(await ledger()).toEqual(before);

    // Booked in the state but never stored (a crash before the record, so no 201): released.
    await engine.runCycle();
    await stop();
    store = await Store.open(dir);
    await store.namespace(DARSS_NAMESPACE, z.unknown()).del('kept');
    await store.close();
    await start();
    expect(state().admitted.kept).toBeUndefined();
    expect((await ledger()).steps.every((s: { units: number }) => s.units === 0)).toBe(true);
  });

  it('reads and changes the quota (PUT needs admin) and names bookings that no longer fit', async () => {
    // The ledger learns the cluster's units from a cycle.
    expect((await send('GET', '/v1/darss/quota')).json().capacityUnits).toBe(0);
    expect((await engine.runCycle()).outcome).toBe('ok');
    expect((await send('GET', '/v1/darss/quota')).json()).toMatchObject({
      m: 7,
      n: 70,
      periodMs: 600_000,
      productionCapPct: 75,
      capacityUnits: 16,
      productionLimitUnits: 12,
    });
    const deadline = clock.now() + HOUR;
    // 12 units for 10 minutes before the deadline: the whole production limit.
    expect((await send('POST', '/v1/darss/requests', { id: 'full', deadlineMs: deadline, jobs: [{ name: 'x', tasks: 12, leaseMs: MIN10 }] })).statusCode).toBe(
      201,
    );
    const r = await send('PUT', '/v1/darss/quota', { m: 35, n: 70, periodMs: 600_000 });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ m: 35, n: 70, productionLimitUnits: 8, noLongerFit: ['full'] });
    expect((await send('GET', '/v1/darss/requests/full')).json().noLongerFit).toMatchObject({ limitUnits: 8, bookedUnits: 12 });
    expect((engine.config().params as { quota: { m: number } }).quota.m).toBe(35);
    const bad = await send('PUT', '/v1/darss/quota', { m: 80, n: 70, periodMs: 600_000 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('body.m');
    const op = await send('PUT', '/v1/darss/quota', { m: 1, n: 70, periodMs: 600_000 }, { authorization: `Bearer ${OPERATOR.token}` });
    expect(op.statusCode).toBe(403);
    expect((engine.config().params as { quota: { m: number } }).quota.m).toBe(35);
  });

  it('keeps an admission made while a cycle is in flight (the cycle decided on the state before it)', async () => {
    // An application of an unknown request: the cycle kills it, and waits in apply to do so.
    backend.apps.push(tagged('application_1_0009', 'stranger', 'x', 1));
    let release!: () => void;
    backend.applyGate = new Promise<void>((r) => (release = r));
    const cycle = engine.runCycle();
    // The cycle has decided and waits in apply when the request comes.
    await new Promise((r) => setTimeout(r, 20));
    expect(backend.applied).toEqual([]);
    const post = send('POST', '/v1/darss/requests', small('during'));
    await new Promise((r) => setTimeout(r, 20));
    release();
    const done = await cycle;
    expect(done.committed).toBe(true);
    expect(backend.applied.map((a) => a.kind)).toContain('killApp');
    expect((await post).statusCode).toBe(201);
    expect(state().admitted.during).toBeDefined();
    backend.applyGate = undefined;
    await engine.runCycle();
    expect(state().admitted.during).toBeDefined();
    expect(((await store.getPolicyState('darss'))?.state as DarssState).admitted.during).toBeDefined();
  });

  it('needs a token: 401 without one, and an operator may submit', async () => {
    const none = await send('POST', '/v1/darss/requests', small('anon'), { authorization: '' });
    expect(none.statusCode).toBe(401);
    expect((await send('GET', '/v1/darss/requests', undefined, { authorization: '' })).statusCode).toBe(401);
    expect((await send('GET', '/v1/darss/ledger', undefined, { authorization: '' })).statusCode).toBe(401);
    expect(state().judged.anon).toBeUndefined();
    const op = await send('POST', '/v1/darss/requests', small('by-ops'), { authorization: `Bearer ${OPERATOR.token}` });
    expect(op.statusCode).toBe(201);
  });

  it('bounds the ledger range and answers 409 when the running policy is not darss', async () => {
    expect((await send('GET', `/v1/darss/ledger?from=${clock.now()}&to=${clock.now() + 31 * 24 * HOUR}`)).json().field).toBe('query.to');
    expect((await send('GET', `/v1/darss/ledger?from=10&to=5`)).statusCode).toBe(400);
    expect((await send('GET', `/v1/darss/ledger?from=abc`)).json().field).toBe('query.from');
    await engine.setPolicy({ name: 'capacity-targets', params: {} });
    const r = await send('POST', '/v1/darss/requests', small('elsewhere'));
    expect(r.statusCode).toBe(409);
    expect(r.json().reason).toContain('darss');
  });
});
