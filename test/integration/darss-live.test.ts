/**
 * DARSS live on the shared mini YARN, and the Rayon baseline live on a mini YARN of its own that
 * runs YARN's ReservationSystem (its plan follower stops after any scheduler-conf write, so it
 * cannot share an RM with a brain that sizes queues: ../shared/notes/yarn-facts.md).
 *
 * One scenario for both (sleep tasks of 1 vcore / 512 MB on 2 × <4 vcores, 4096 MB>; one unit =
 * 1 vcore + 1 GB, so 8 units):
 * - a stream of best-effort jobs fills the cluster;
 * - workflow A (job a1 → job a2, 2 tasks each) is submitted with a deadline well ahead: accepted;
 *   the test drives it as a workflow manager would (a2 is submitted when a1 has finished);
 * - workflow B (30 tasks of 60 s before a 70 s deadline) does not fit: 409 with the numbers;
 * - withdrawing A once a1 runs is refused (409).
 * Asserted: A finishes before its deadline; under DARSS best-effort containers run while A waits
 * for its start; no write of the brain is refused. The admin API is called over HTTP through the
 * generated client (src/client).
 */
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { REQUEST_TAG, JOB_TAG } from '../../src/core/rsl.js';
import darssRoutes from '../../src/api/routes/darss.js';
import rayonRoutes from '../../src/api/routes/rayon.js';
import { buildApi } from '../../src/api/server.js';
import { createAdminClient, type AdminClient } from '../../src/client/index.js';
import { Engine, type CycleReport } from '../../src/engine/engine.js';
import type { DarssState } from '../../src/policies/darss/index.js';
import { Store } from '../../src/store/store.js';
import { YarnBackend } from '../../src/yarn/backend.js';
import { startMiniCluster, type MiniCluster } from '../../src/yarn/minicluster.js';
import { submitJob, type JobSpec } from '../../src/yarn/workload.js';
import { TEST_ADMIN, testAuth } from '../support/api-auth.js';
import { eventually } from './helpers.js';
import { rmApp, waitDone } from './threesigma-hold.js';

const sharedRmUrl = inject('rmUrl');
const sharedConfDir = inject('confDir');

const PERIOD_MS = 2_000;
const tag = Date.now() % 100_000;
const PROD = `sbprod${tag}`;
const BE = `sbbe${tag}`;
const PROD_PATH = `root.${PROD}`;
const BE_PATH = `root.${BE}`;
const TASK = { memoryMB: 512, vcores: 1 };
/** Task lease: a task's sleep plus its container's launch and the AM's start, with room to spare. */
const LEASE_MS = 25_000;
const TASK_S = 4;
/** How far ahead workflow A's deadline is. */
const DEADLINE_AHEAD_MS = 110_000;

/** Request ids go lower-case: YARN lower-cases application tags. */
const workflowA = (id: string, now: number) => ({
  id,
  group: 'etl',
  deadlineMs: now + DEADLINE_AHEAD_MS,
  jobs: [
    { name: 'a1', tasks: 2, leaseMs: LEASE_MS },
    { name: 'a2', tasks: 2, leaseMs: LEASE_MS, prerequisites: ['a1'] },
  ],
});
const workflowB = (id: string, now: number) => ({ id, group: 'etl', deadlineMs: now + 70_000, jobs: [{ name: 'b1', tasks: 30, leaseMs: 60_000 }] });

async function killApp(rmUrl: string, appId: string): Promise<void> {
  await fetch(`${rmUrl}/ws/v1/cluster/apps/${appId}/state?user.name=schedbrain`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ state: 'KILLED' }),
  }).catch(() => undefined);
}

/** The brain under test: engine + admin API on a store of its own. */
interface Brain {
  engine: Engine;
  api: FastifyInstance;
  client: AdminClient;
  store: Store;
  dir: string;
  cycles: CycleReport[];
}

async function startBrain(
  backend: YarnBackend,
  policy: { policy: string; params: Record<string, unknown>; dryRun: boolean },
  limits: Record<string, unknown>,
): Promise<Brain> {
  const dir = mkdtempSync(join(tmpdir(), 'schedbrain-darss-live-'));
  const store = await Store.open(dir);
  const engine = new Engine({ backend, store, periodMs: PERIOD_MS, limits, initial: policy });
  await engine.init();
  const cycles: CycleReport[] = [];
  const run = engine.runCycle.bind(engine);
  engine.runCycle = async () => {
    const r = await run();
    if (!cycles.includes(r)) cycles.push(r);
    return r;
  };
  const api = await buildApi({ engine, store, plugins: [darssRoutes, rayonRoutes], auth: testAuth() });
  await api.listen({ host: '127.0.0.1', port: 0 });
  const client = createAdminClient({ baseUrl: `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`, token: TEST_ADMIN.token });
  return { engine, api, client, store, dir, cycles };
}

async function stopBrain(b: Brain | undefined): Promise<void> {
  if (!b) return;
  await b.engine.stop();
  await b.api.close();
  await b.store.close();
  rmSync(b.dir, { recursive: true, force: true });
}

/** Refused or failed writes the brain journaled in its cycles. */
const refusedWrites = (b: Brain): string[] =>
  b.cycles.flatMap((c) =>
    c.decisions
      .filter((d) => d.result === 'failed' || (d.result === 'skipped' && (d.skipReason === 'invariant' || d.skipReason === 'unsupported')))
      .map((d) => `${d.result} ${d.rule}: ${d.error ?? d.detail ?? d.skipReason ?? ''}`),
  );

describe('DARSS live on a real ResourceManager', () => {
  let direct: YarnBackend;
  let brain: Brain | undefined;
  let originalDefault: number | undefined;
  const apps: string[] = [];

  const rootLeaves = async () =>
    (await direct.snapshot()).rootQueue.children.map((q) => ({ path: q.path, capacityPct: q.capacityPct, apps: q.numApplications }));

  beforeAll(async () => {
    direct = new YarnBackend({ rmUrl: sharedRmUrl });
    const before = await rootLeaves();
    originalDefault = before.find((l) => l.path === 'root.default')!.capacityPct;
    // An operator's layout for DARSS: production and best-effort leaves, root.default emptied.
    // maximum-applications is absolute: CapacityScheduler would otherwise scale it by the
    // production queue's capacity, refusing submissions while DARSS holds it at 0 %.
    const leaf = (capacity: string) => ({ capacity, 'maximum-capacity': '100', 'maximum-applications': '100' });
    await direct.client.updateSchedulerConf({
      addQueues: [
        { queue: PROD_PATH, params: leaf('0') },
        { queue: BE_PATH, params: leaf(String(originalDefault)) },
      ],
      updateQueues: [{ queue: 'root.default', params: { capacity: '0' } }],
    });
    brain = await startBrain(
      direct,
      {
        policy: 'darss',
        params: { productionQueue: PROD_PATH, bestEffortQueue: BE_PATH, holdLeadMs: 10_000, unit: { vcores: 1, memoryMB: 1024 } },
        dryRun: false,
      },
      { allowZeroCapacity: [PROD_PATH, BE_PATH] },
    );
  });

  afterAll(async () => {
    await stopBrain(brain);
    for (const id of apps) await killApp(sharedRmUrl, id);
    if (direct && originalDefault !== undefined) {
      const ours = [PROD_PATH, BE_PATH];
      await eventually(
        'our queues to hold no application',
        async () => (await rootLeaves()).filter((l) => ours.includes(l.path)).every((l) => l.apps === 0),
        60_000,
        500,
      ).catch((e: unknown) => console.warn((e as Error).message));
      const present = (await rootLeaves()).filter((l) => ours.includes(l.path)).map((l) => l.path);
      if (present.length) {
        await direct.client.updateSchedulerConf({
          updateQueues: [
            { queue: 'root.default', params: { capacity: String(originalDefault) } },
            ...present.map((queue) => ({ queue, params: { capacity: '0', state: 'STOPPED' } })),
          ],
        });
        await direct.client.updateSchedulerConf({ removeQueues: present });
      }
      const after = await rootLeaves();
      expect(after.map((l) => l.path)).toEqual(['root.default']);
      expect(after[0].capacityPct).toBeCloseTo(originalDefault, 3);
    }
  });

  it('admits what fits, holds it toward its start while best-effort runs, meets the deadline, and refuses what does not fit', async () => {
    const b = brain!;
    const submit = async (job: JobSpec) => {
      const j = await submitJob(sharedConfDir, job);
      apps.push(j.appId);
      return j.appId;
    };
    b.engine.start();
    const diag = () =>
      `last cycles: ${JSON.stringify(b.cycles.slice(-2).map((c) => [c.outcome, c.notes, c.decisions.map((d) => `${d.rule} ${d.result} ${d.reason}`)]))}`;
    await eventually(
      'the brain to size the DARSS queues',
      async () => b.cycles.some((c) => c.decisions.some((d) => d.rule === 'productionQueueCapacity' && (d.result === 'applied' || d.result === 'noop'))),
      60_000,
      250,
      diag,
    );

    // Best-effort work fills the cluster.
    const beApps: string[] = [];
    for (let i = 0; i < 2; i++)
      beApps.push(await submit({ name: `darss-be-${i}`, queue: BE, containers: 40, ...TASK, command: { kind: 'sleep', seconds: 5 } }));

    // A fits: accepted with its latest starts.
    const now = Date.now();
    const idA = `wfa${tag}`;
    const ra = await b.client.POST('/v1/darss/requests', { body: workflowA(idA, now) });
    expect(ra.response.status, JSON.stringify(ra.error)).toBe(201);
    const created = ra.data!;
    expect(created.latestStarts.a1).toBeLessThan(created.latestStarts.a2);
    expect(created.latestStarts.a2).toBeLessThanOrEqual(now + DEADLINE_AHEAD_MS - LEASE_MS);

    // B does not: 409 with the numbers.
    const rb = await b.client.POST('/v1/darss/requests', { body: workflowB(`wfb${tag}`, now) });
    expect(rb.response.status, JSON.stringify(rb.data ?? rb.error)).toBe(409);
    const conflict = rb.error as { condition: string; numbers: { neededUnitMs: number; freeUnitMs: number } };
    expect(conflict.numbers.neededUnitMs).toBeGreaterThan(conflict.numbers.freeUnitMs);

    // a1 is submitted at once; DARSS holds it toward its start while best-effort runs.
    const tagsOf = (job: string) => ({ [REQUEST_TAG]: idA, [JOB_TAG]: job });
    const a1 = await submit({ name: 'darss-a1', queue: PROD, containers: 2, ...TASK, command: { kind: 'sleep', seconds: TASK_S }, tags: tagsOf('a1') });
    const state = () => b.engine.policyState() as DarssState;
    const a1Job = await eventually('the brain to see a1', async () => state().admitted[idA]?.jobs.a1, 30_000, 250, diag);
    let bestEffortRanWhileHeld = false;
    await eventually(
      'a1 to start',
      async () => {
        const [app, be] = await Promise.all([rmApp(sharedRmUrl, a1), rmApp(sharedRmUrl, beApps[0])]);
        if ((app.runningContainers ?? 0) <= 1 && Date.now() < a1Job.bookedStartMs - 10_000 && (be.runningContainers ?? 0) > 1) bestEffortRanWhileHeld = true;
        return (app.runningContainers ?? 0) > 1;
      },
      DEADLINE_AHEAD_MS,
      500,
      diag,
    );
    expect(bestEffortRanWhileHeld).toBe(true);

    // A started workflow cannot be withdrawn.
    const del = await b.client.DELETE('/v1/darss/requests/{id}', { params: { path: { id: idA } } });
    expect(del.response.status, JSON.stringify(del.error)).toBe(409);

    const doneA1 = await waitDone(sharedRmUrl, a1, DEADLINE_AHEAD_MS, diag);
    expect(doneA1.finalStatus).toBe('SUCCEEDED');
    const a2 = await submit({ name: 'darss-a2', queue: PROD, containers: 2, ...TASK, command: { kind: 'sleep', seconds: TASK_S }, tags: tagsOf('a2') });
    const doneA2 = await waitDone(sharedRmUrl, a2, DEADLINE_AHEAD_MS, diag);
    expect(doneA2.finalStatus).toBe('SUCCEEDED');
    expect(doneA2.finishedTime).toBeLessThanOrEqual(now + DEADLINE_AHEAD_MS);
    expect(refusedWrites(b)).toEqual([]);
  }, 300_000);
});

describe("Rayon live: the same workflows through the RM's own ReservationSystem", () => {
  let mini: MiniCluster | undefined;
  let brain: Brain | undefined;
  const apps: string[] = [];

  beforeAll(async () => {
    mini = await startMiniCluster({ reservationQueue: 'plan', reservationCapacityPct: 75 });
    const backend = new YarnBackend({ rmUrl: mini.rmUrl, reservations: { queue: 'plan' } });
    // The brain writes nothing here: YARN's agent and plan follower do the scheduling.
    brain = await startBrain(backend, { policy: 'fifo', params: {}, dryRun: true }, {});
  }, 180_000);

  afterAll(async () => {
    await stopBrain(brain);
    if (mini) for (const id of apps) await killApp(mini.rmUrl, id);
    await mini?.stop();
  });

  it("reserves what fits, refuses what does not with the RM's reason, and the reserved jobs meet the deadline", async () => {
    const b = brain!;
    const m = mini!;
    const submit = async (job: JobSpec) => {
      const j = await submitJob(m.confDir, job);
      apps.push(j.appId);
      return j.appId;
    };
    b.engine.start();
    for (let i = 0; i < 2; i++) await submit({ name: `rayon-be-${i}`, queue: 'default', containers: 40, ...TASK, command: { kind: 'sleep', seconds: 5 } });

    const now = Date.now();
    const idA = `wfa${tag}`;
    const ra = await b.client.POST('/v1/rayon/reservations', { body: workflowA(idA, now) });
    expect(ra.response.status, JSON.stringify(ra.error)).toBe(201);
    const created = ra.data!;
    expect(created.reservationId).toMatch(/^reservation_/);
    expect(created.allocations.length).toBeGreaterThan(0);

    const rb = await b.client.POST('/v1/rayon/reservations', { body: workflowB(`wfb${tag}`, now) });
    expect(rb.response.status, JSON.stringify(rb.data ?? rb.error)).toBe(409);
    expect((rb.error as { condition?: string }).condition).toBe('reservation-refused');

    const inReservation = (job: string): JobSpec => ({
      name: `rayon-${job}`,
      queue: created.queue,
      reservationId: created.reservationId,
      containers: 2,
      ...TASK,
      command: { kind: 'sleep', seconds: TASK_S },
      tags: { [REQUEST_TAG]: idA, [JOB_TAG]: job },
    });
    const a1 = await submit(inReservation('a1'));
    const diag = () => `apps: ${apps.join(', ')}; last cycle notes: ${JSON.stringify(b.cycles.at(-1)?.notes)}`;
    await eventually('a1 to run in its reservation', async () => ((await rmApp(m.rmUrl, a1)).runningContainers ?? 0) > 0, DEADLINE_AHEAD_MS, 500, diag);
    const del = await b.client.DELETE('/v1/rayon/reservations/{id}', { params: { path: { id: idA } } });
    expect(del.response.status, JSON.stringify(del.error)).toBe(409);

    const doneA1 = await waitDone(m.rmUrl, a1, DEADLINE_AHEAD_MS);
    expect(doneA1.finalStatus).toBe('SUCCEEDED');
    const a2 = await submit(inReservation('a2'));
    const doneA2 = await waitDone(m.rmUrl, a2, DEADLINE_AHEAD_MS);
    expect(doneA2.finalStatus).toBe('SUCCEEDED');
    expect(doneA2.finishedTime).toBeLessThanOrEqual(now + DEADLINE_AHEAD_MS);
    // The brain never wrote the RM's scheduler configuration.
    expect(b.cycles.flatMap((c) => c.decisions.filter((d) => d.result === 'applied'))).toEqual([]);
  }, 300_000);
});
