/**
 * 3Sigma's kill preemption live on the shared mini YARN (2 × <4 vcores, 4096 MB>), `live.preemption:
 * 'kill'`: a best-effort job of 5 long tasks runs when an SLO job of 5 short tasks arrives whose
 * deadline it cannot meet while the long job holds the room. The plan preempts the long job (§4.3.5):
 * its task containers are killed and it goes back to the hold queue; the SLO job is started, meets
 * its deadline, and the long job is started again later and finishes (its ApplicationMaster runs a
 * killed task again, as MapReduce runs a failed attempt again: `taskAttempts`).
 *
 * Both job families have recorded runs (history records added to the brain's store, the way
 * `POST /v1/threesigma/history` imports them), so the plan knows the long job has most of its
 * 90 s left and the SLO job needs about 15 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { HISTORY_RECORD_VERSION, type HistoryRecord } from '../../src/core/history.js';
import { Engine, type CycleReport } from '../../src/engine/engine.js';
import { HistoryStore, warmRunningPolicy } from '../../src/history/index.js';
import { normaliseName, SLO_DEADLINE_TAG, TASKS_TAG } from '../../src/policies/threesigma/index.js';
import { Store } from '../../src/store/store.js';
import { YarnBackend } from '../../src/yarn/backend.js';
import type { JobSpec } from '../../src/yarn/workload.js';
import { eventually } from './helpers.js';
import { HoldQueue, RUN_PATH, rmApp as rmAppOf, waitDone as waitDoneOf } from './threesigma-hold.js';

const rmUrl = inject('rmUrl');
const confDir = inject('confDir');

const PERIOD_MS = 2_000;
const hold = new HoldQueue('sb3skill');
const TASK = { memoryMB: 512, vcores: 1 };
const LONG_TASK_S = 90;
const SLO_TASK_S = 12;
const SLO_AHEAD_MS = 50_000;

const policyParams = {
  sliceMs: 5_000,
  planAheadMs: 150_000,
  unknownRuntimeMs: 30_000,
  solver: { timeLimitMs: 2_000 },
  live: { holdQueue: hold.path, runQueue: RUN_PATH, preemption: 'kill' },
};

const rmApp = (appId: string) => rmAppOf(rmUrl, appId);
const isHoldQueue = (q: string) => hold.holds(q);

/** Past runs of a job family: `runtimeS` each, one vcore task containers. */
function pastRuns(name: string, runtimeS: number, n: number): HistoryRecord[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => {
    const submittedAtMs = now - (n - i) * 600_000;
    const launchedAtMs = submittedAtMs + 1_000;
    return {
      v: HISTORY_RECORD_VERSION,
      appId: `application_1_${name.replace(/\W/g, '')}${i}`,
      user: 'schedbrain',
      queue: RUN_PATH,
      name: `${name}-${i + 1}`,
      nameKey: normaliseName(`${name}-${i + 1}`),
      tags: {},
      priority: 0,
      submittedAtMs,
      submitHourUtc: new Date(submittedAtMs).getUTCHours(),
      launchedAtMs,
      finishedAtMs: launchedAtMs + (runtimeS + (i % 3)) * 1_000,
      runtimeMs: (runtimeS + (i % 3)) * 1_000,
      waitMs: 1_000,
      state: 'FINISHED',
      finalStatus: 'SUCCEEDED',
      outcome: 'succeeded',
      source: 'import',
      recordedAtMs: now,
    };
  });
}

describe('3Sigma live on a real ResourceManager: kill preemption', () => {
  let backend: YarnBackend;
  let engine: Engine | undefined;
  let store: Store | undefined;
  let dir: string | undefined;
  const cycles: CycleReport[] = [];

  beforeAll(async () => {
    backend = new YarnBackend({ rmUrl });
    await hold.create(backend);
  });

  afterAll(async () => {
    await engine?.stop();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await hold.remove(backend);
  });

  const submit = (job: JobSpec) => hold.submit(confDir, job);
  // An application's decisions: its own actions, and those on its containers (container_[e<epoch>_]<cluster>_<app>_…).
  const mentions = (action: unknown, appId: string) => {
    const text = JSON.stringify(action);
    return text.includes(appId) || text.includes(`${appId.replace('application_', '')}_`);
  };
  const decisionsFor = (rule: string, appId: string) => cycles.flatMap((c) => c.decisions.filter((d) => d.rule === rule && mentions(d.action, appId)));
  const results = (rule: string, appId: string) => decisionsFor(rule, appId).map((d) => d.result);
  const diag = () =>
    `last cycles: ${JSON.stringify(cycles.slice(-3).map((c) => [c.outcome, c.notes, c.decisions.map((d) => `${d.rule} ${d.result} ${d.error ?? ''} ${d.reason}`)]))}`;
  const waitDone = (appId: string, timeoutMs: number) => waitDoneOf(rmUrl, appId, timeoutMs, diag);

  it('kills the long best-effort job the SLO job cannot wait for, holds it, meets the deadline, then runs the long job to the end', async () => {
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-threesigma-kill-'));
    store = await Store.open(dir);
    engine = new Engine({ backend, store, periodMs: PERIOD_MS, limits: {}, initial: { policy: 'threesigma', params: policyParams, dryRun: false } });
    await engine.init();
    const run = engine.runCycle.bind(engine);
    engine.runCycle = async () => {
      const r = await run();
      if (!cycles.includes(r)) cycles.push(r);
      return r;
    };
    const history = new HistoryStore(store);
    await history.add([...pastRuns('sigma-long', LONG_TASK_S + 5, 5), ...pastRuns('sigma-slo', SLO_TASK_S + 3, 5)]);
    expect(await warmRunningPolicy(engine, history)).toBeGreaterThanOrEqual(10);
    engine.start();

    // The long job takes 5 of the 8 cores (and its ApplicationMaster one more).
    const long = await submit({
      name: 'sigma-long-9',
      containers: 5,
      ...TASK,
      command: { kind: 'sleep', seconds: LONG_TASK_S },
      tags: { [TASKS_TAG]: '5' },
      taskAttempts: 3,
    });
    await eventually(
      'the long job running its 5 tasks',
      async () => {
        const a = await rmApp(long);
        return !isHoldQueue(a.queue) && (a.runningContainers ?? 0) >= 6 ? a : undefined;
      },
      60_000,
      500,
      diag,
    );

    // An SLO job of 5 tasks: the 2 free cores cannot run it by its deadline while the long job holds the rest.
    const deadlineMs = Date.now() + SLO_AHEAD_MS;
    const slo = await submit({
      name: 'sigma-slo-9',
      containers: 5,
      ...TASK,
      command: { kind: 'sleep', seconds: SLO_TASK_S },
      tags: { [TASKS_TAG]: '5', [SLO_DEADLINE_TAG]: String(deadlineMs) },
    });

    await eventually('the long job preempted', async () => results('preemptForPlan', long).includes('applied'), 30_000, 250, diag);
    const kills = decisionsFor('preemptForPlan', long).filter((d) => d.action?.kind === 'killContainer');
    expect(kills.length, diag()).toBeGreaterThanOrEqual(1);
    expect(
      kills.every((d) => d.result === 'applied'),
      diag(),
    ).toBe(true);
    expect(results('returnToHoldQueue', long), diag()).toContain('applied');
    await eventually(
      'the long job back in the hold queue',
      async () => {
        const a = await rmApp(long);
        return isHoldQueue(a.queue) && a.state === 'RUNNING' ? a : undefined;
      },
      30_000,
      500,
      diag,
    );

    const doneSlo = await waitDone(slo, SLO_AHEAD_MS + 30_000);
    expect(doneSlo.finalStatus).toBe('SUCCEEDED');
    expect(results('releaseToRunQueue', slo)).toContain('applied');
    expect(doneSlo.finishedTime, diag()).toBeLessThanOrEqual(deadlineMs);

    // Started again once the SLO job is done; its killed tasks run again and the job completes.
    const doneLong = await waitDone(long, 300_000);
    expect(doneLong.finalStatus, diag()).toBe('SUCCEEDED');
    expect(results('releaseToRunQueue', long).filter((r) => r === 'applied').length).toBeGreaterThanOrEqual(2);
    const refused = cycles.flatMap((c) => c.decisions.filter((d) => d.result === 'failed').map((d) => `${d.rule}: ${d.error ?? ''}`));
    expect(refused).toEqual([]);

    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const preemptedAt = cycles.find((c) => c.decisions.some((d) => d.rule === 'preemptForPlan' && d.result === 'applied'))?.finishedAtMs ?? NaN;
    console.log(
      [
        `threesigma-preempt-live: long job preempted +${s(preemptedAt - doneSlo.startedTime)} after the SLO job's submission (${kills.length} containers killed)`,
        `  SLO job (5 tasks of ${SLO_TASK_S} s) finished +${s(doneSlo.finishedTime - doneSlo.startedTime)}, deadline +${s(deadlineMs - doneSlo.startedTime)}`,
        `  long job (5 tasks of ${LONG_TASK_S} s) finished +${s(doneLong.finishedTime - doneLong.startedTime)} after its submission, started ${results('releaseToRunQueue', long).filter((r) => r === 'applied').length} times`,
      ].join('\n'),
    );
  }, 600_000);
});
