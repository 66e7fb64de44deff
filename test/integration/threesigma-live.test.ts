/**
 * 3Sigma live on the shared mini YARN (2 × <4 vcores, 4096 MB>): applications are submitted to a
 * hold queue of the test's own (capacity 0, maximum capacity 0: YARN keeps them ACCEPTED) and the
 * plan starts them by moving them into root.default, the run queue. Sleep tasks of 1 vcore / 512 MB;
 * each job's tasks in its `schedbrain.tasks` tag, an SLO job's deadline in `schedbrain.slo.deadline-ms`.
 *
 * 1. History: three best-effort jobs (`sigma-etl-1..3`, one task each) fit together: the plan starts
 *    them at once. The RM's ended applications are pulled into a history store.
 * 2. A second brain, its predictor warmed from that history, starts an SLO job of the same family
 *    (5 tasks, a deadline 60 s ahead) that waited ACCEPTED in the hold queue; while it runs, a
 *    best-effort job of 4 long tasks that cannot run beside it and one of one task that can arrive.
 * Asserted: the SLO job's prediction comes from the recorded runs; the SLO job is moved and starts;
 * the large job stays ACCEPTED in the hold queue while the SLO job runs, the small one is moved
 * and runs; the SLO job meets its deadline; the large job is moved once the plan has room for it,
 * and finishes; what finished is learned; no write refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Engine, type CycleReport } from '../../src/engine/engine.js';
import { HistoryPuller, HistoryStore, warmRunningPolicy } from '../../src/history/index.js';
import { normaliseName, SLO_DEADLINE_TAG, TASKS_TAG, type ThreeSigmaState } from '../../src/policies/threesigma/index.js';
import { Store } from '../../src/store/store.js';
import { YarnBackend } from '../../src/yarn/backend.js';
import { RmClient } from '../../src/yarn/client.js';
import type { JobSpec } from '../../src/yarn/workload.js';
import { eventually } from './helpers.js';
import { DONE, HoldQueue, RUN_PATH, rmApp as rmAppOf, waitDone as waitDoneOf, type RmApp } from './threesigma-hold.js';

const rmUrl = inject('rmUrl');
const confDir = inject('confDir');

const PERIOD_MS = 2_000;
const hold = new HoldQueue('sb3shold');
const TASK = { memoryMB: 512, vcores: 1 };
const SLO_AHEAD_MS = 60_000;
/** The predictor's feature value of the `sigma-etl-<n>` jobs' name. */
const ETL_NAME_KEY = `name=${normaliseName('sigma-etl-1')}`;

const policyParams = {
  sliceMs: 5_000,
  planAheadMs: 150_000,
  unknownRuntimeMs: 30_000,
  solver: { timeLimitMs: 2_000 },
  live: { holdQueue: hold.path, runQueue: RUN_PATH, preemption: 'kill' },
};

const rmApp = (appId: string): Promise<RmApp> => rmAppOf(rmUrl, appId);
const isHoldQueue = (q: string) => hold.holds(q);

interface Brain {
  engine: Engine;
  store: Store;
  dir: string;
  cycles: CycleReport[];
}

async function startBrain(backend: YarnBackend): Promise<Brain> {
  const dir = mkdtempSync(join(tmpdir(), 'schedbrain-threesigma-live-'));
  const store = await Store.open(dir);
  const engine = new Engine({ backend, store, periodMs: PERIOD_MS, limits: {}, initial: { policy: 'threesigma', params: policyParams, dryRun: false } });
  await engine.init();
  const cycles: CycleReport[] = [];
  const run = engine.runCycle.bind(engine);
  engine.runCycle = async () => {
    const r = await run();
    if (!cycles.includes(r)) cycles.push(r);
    return r;
  };
  return { engine, store, dir, cycles };
}

async function stopBrain(b: Brain | undefined): Promise<void> {
  if (!b) return;
  await b.engine.stop();
  await b.store.close();
  rmSync(b.dir, { recursive: true, force: true });
}

/** Decisions of a rule for an application, with their results. */
const journal = (b: Brain, rule: string, appId: string): string[] =>
  b.cycles.flatMap((c) => c.decisions.filter((d) => d.rule === rule && JSON.stringify(d.action).includes(appId)).map((d) => d.result));

/** When a rule's decision for an application was first applied (its cycle's end), epoch ms. */
const appliedAt = (b: Brain, rule: string, appId: string): number | undefined =>
  b.cycles.find((c) => c.decisions.some((d) => d.rule === rule && d.result === 'applied' && JSON.stringify(d.action).includes(appId)))?.finishedAtMs;

const refusedWrites = (b: Brain): string[] =>
  b.cycles.flatMap((c) =>
    c.decisions
      .filter((d) => d.result === 'failed' || (d.result === 'skipped' && (d.skipReason === 'invariant' || d.skipReason === 'unsupported')))
      .map((d) => `${d.result} ${d.rule}: ${d.error ?? d.detail ?? d.skipReason ?? ''}`),
  );

describe('3Sigma live on a real ResourceManager: hold queue, run queue, history', () => {
  let backend: YarnBackend;
  let brains: Brain[] = [];

  beforeAll(async () => {
    backend = new YarnBackend({ rmUrl });
    // An operator's hold queue: no guarantee and no maximum, so applications in it wait ACCEPTED.
    await hold.create(backend);
  });

  afterAll(async () => {
    for (const b of brains) await stopBrain(b);
    await hold.remove(backend);
  });

  const submit = (job: JobSpec) => hold.submit(confDir, job);
  const waitDone = (appId: string, timeoutMs: number, diag?: () => string) => waitDoneOf(rmUrl, appId, timeoutMs, diag);
  const cycleDiag = (b: Brain) => () =>
    `last cycles: ${JSON.stringify(b.cycles.slice(-2).map((c) => [c.outcome, c.notes, c.decisions.map((d) => `${d.rule} ${d.result} ${d.reason}`)]))}`;

  it('holds what the plan defers, starts what it starts by a move, meets the SLO, and predicts from recorded history', async () => {
    // 1. Three small best-effort jobs: room for all, so the plan starts them at once.
    const first = await startBrain(backend);
    brains.push(first);
    first.engine.start();
    const etl = await Promise.all(
      [1, 2, 3].map((i) => submit({ name: `sigma-etl-${i}`, containers: 1, ...TASK, command: { kind: 'sleep', seconds: 8 }, tags: { [TASKS_TAG]: '1' } })),
    );
    const diag1 = cycleDiag(first);
    for (const id of etl) {
      const done = await waitDone(id, 180_000, diag1);
      expect(done.finalStatus, id).toBe('SUCCEEDED');
      expect(journal(first, 'releaseToRunQueue', id), id).toContain('applied');
      expect(journal(first, 'deferToPlannedStart', id), id).toEqual([]);
    }
    await stopBrain(first);
    brains = [];

    // The RM's ended applications, recorded.
    const second = await startBrain(backend);
    brains.push(second);
    const history = new HistoryStore(second.store);
    const puller = new HistoryPuller({ source: new RmClient({ rmUrl, user: 'schedbrain' }), history, overlapMs: 60_000, maxAgeMs: 0 });
    await eventually('the three runs in the history', async () => {
      await puller.pull();
      const records = await Promise.all(etl.map((id) => history.get(id)));
      return records.every((r) => r?.outcome === 'succeeded' && (r.runtimeMs ?? 0) > 0) ? records : undefined;
    });
    const learned = await warmRunningPolicy(second.engine, history);
    expect(learned).toBeGreaterThanOrEqual(3);

    // 2. An SLO job that needs 6 of the 8 cores waits in the hold queue until the brain runs.
    const submittedAt = Date.now();
    const deadlineMs = submittedAt + SLO_AHEAD_MS;
    const slo = await submit({
      name: 'sigma-etl-4',
      containers: 5,
      ...TASK,
      command: { kind: 'sleep', seconds: 12 },
      tags: { [TASKS_TAG]: '5', [SLO_DEADLINE_TAG]: String(deadlineMs) },
    });
    await new Promise((r) => setTimeout(r, 3_000));
    const waiting = await rmApp(slo);
    expect(isHoldQueue(waiting.queue), `SLO job in ${waiting.queue}`).toBe(true);
    expect(waiting.state).toBe('ACCEPTED');
    const b = second;
    b.engine.start();
    const state = () => b.engine.policyState() as ThreeSigmaState;
    const diag = cycleDiag(b);
    await eventually('the SLO job released', async () => journal(b, 'releaseToRunQueue', slo).includes('applied'), 30_000, 250, diag);
    // Best-effort work while it runs: one job that would take 5 cores, one that takes 2.
    const [large, small] = await Promise.all([
      submit({ name: 'sigma-batch-1', containers: 4, ...TASK, command: { kind: 'sleep', seconds: 40 }, tags: { [TASKS_TAG]: '4' } }),
      submit({ name: 'sigma-small-1', containers: 1, ...TASK, command: { kind: 'sleep', seconds: 8 }, tags: { [TASKS_TAG]: '1' } }),
    ]);

    // The SLO job's runtime is predicted from the recorded runs, not assumed.
    const prediction = await eventually('a prediction for the SLO job', async () => state().jobs[slo]?.prediction, 30_000, 250, diag);
    expect(prediction.fallback).toBe(false);
    expect(prediction.runs).toBeGreaterThanOrEqual(3);
    // The three runs of phase 1 (and any older ones an external cluster still lists).
    const etlRunsBefore = state().predictor.features[ETL_NAME_KEY]?.histogram.total ?? 0;
    expect(etlRunsBefore).toBeGreaterThanOrEqual(3);

    // The SLO job runs its tasks out of the hold queue; meanwhile the large best-effort job stays ACCEPTED in it.
    const largeHeldWhileSloRan = await eventually(
      'the SLO job running its tasks beside the large job held, or the chance gone',
      async () => {
        const [s, l] = await Promise.all([rmApp(slo), rmApp(large)]);
        // Held by the plan: deferred by a cycle that saw it, and still waiting.
        const deferred = journal(b, 'deferToPlannedStart', large).length > 0;
        if (deferred && (s.runningContainers ?? 0) > 1 && !isHoldQueue(s.queue) && isHoldQueue(l.queue) && l.state === 'ACCEPTED') return 'held';
        return DONE.has(s.state) || !isHoldQueue(l.queue) ? 'not held' : undefined;
      },
      SLO_AHEAD_MS,
      250,
      diag,
    );
    const timeline = () =>
      b.cycles
        .map((c) => {
          const mine = c.decisions.filter((d) => [slo, large, small].some((id) => JSON.stringify(d.action).includes(id)));
          const who = (d: (typeof mine)[number]) => [slo, large, small].findIndex((id) => JSON.stringify(d.action).includes(id));
          return `+${((c.startedAtMs - submittedAt) / 1000).toFixed(1)} s ${c.notes.at(-1) ?? ''}: ${mine.map((d) => `${['slo', 'large', 'small'][who(d)]} ${d.rule} ${d.result}`).join(', ')}`;
        })
        .join('\n');
    expect(largeHeldWhileSloRan, timeline()).toBe('held');
    expect(journal(b, 'releaseToRunQueue', slo)).toContain('applied');
    expect(journal(b, 'deferToPlannedStart', large).length).toBeGreaterThan(0);

    // The small job fits beside it: delayed only where the SLO job needs the room.
    const doneSmall = await waitDone(small, SLO_AHEAD_MS, diag);
    expect(doneSmall.finalStatus).toBe('SUCCEEDED');
    expect(journal(b, 'releaseToRunQueue', small)).toContain('applied');

    const doneSlo = await waitDone(slo, SLO_AHEAD_MS, diag);
    expect(doneSlo.finalStatus).toBe('SUCCEEDED');
    expect(doneSlo.finishedTime).toBeLessThanOrEqual(deadlineMs);

    // The large job is released once the plan has room for it, and finishes.
    const doneLarge = await waitDone(large, 180_000, diag);
    expect(doneLarge.finalStatus).toBe('SUCCEEDED');
    expect(journal(b, 'releaseToRunQueue', large)).toContain('applied');
    // What finished under this brain is learned too.
    await eventually('the SLO job learned', async () => (state().predictor.features[ETL_NAME_KEY]?.histogram.total ?? 0) > etlRunsBefore, 30_000, 500, diag);
    expect(refusedWrites(b)).toEqual([]);

    const s = (ms: number | undefined) => (ms === undefined ? '?' : `${(ms / 1000).toFixed(1)} s`);
    const releasedAt = (id: string) => appliedAt(b, 'releaseToRunQueue', id);
    const line = (what: string, a: RmApp) =>
      `  ${what}: submitted +0, released +${s((releasedAt(a.id) ?? NaN) - a.startedTime)}, ApplicationMaster +${s((a.launchTime ?? NaN) - a.startedTime)}, finished +${s(a.finishedTime - a.startedTime)}`;
    console.log(
      [
        `threesigma-live: prediction for the SLO job ${prediction.feature}/${prediction.estimator}, ${prediction.runs} runs, point ${s(prediction.pointEstimateMs)}`,
        line('SLO job (5 tasks of 12 s)', doneSlo),
        `  SLO deadline +${s(deadlineMs - doneSlo.startedTime)}, met with ${s(deadlineMs - doneSlo.finishedTime)} to spare`,
        line('small best-effort job (1 task of 8 s)', doneSmall),
        line('large best-effort job (4 tasks of 40 s)', doneLarge),
      ].join('\n'),
    );
  }, 600_000);
});
