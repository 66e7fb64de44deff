import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/core/actions.js';
import type { AppView } from '../../src/core/model.js';
import { res } from '../../src/core/resources.js';
import * as threesigma from '../../src/policies/threesigma/index.js';
import {
  describeApp,
  learnRuntime,
  threeSigmaParamsSchema,
  threeSigmaPolicy,
  type ThreeSigmaParams,
  type ThreeSigmaState,
} from '../../src/policies/threesigma/index.js';
import { app, node, snap, type C } from './policy-fixtures.js';

const MIN = 60_000;
const HOLD = 'root.threesigma.hold';
const RUN = 'root.threesigma.run';
const params = (live: Record<string, unknown> = {}): ThreeSigmaParams =>
  threeSigmaParamsSchema.parse({ sliceMs: 150_000, planAheadMs: 20 * MIN, live: { holdQueue: HOLD, runQueue: RUN, ...live } });

/** One node of 4 cores; a container is 1 core. */
const cluster = [node('n1', 4, 4 * 5120)];
/** Held as YARN shows it: ACCEPTED, asking only for its ApplicationMaster; its size in its tag. */
const heldApp = (id: string, tasks: number, extra: Partial<AppView> = {}): AppView =>
  app(id, {
    name: id,
    queue: HOLD,
    state: 'ACCEPTED',
    pendingContainers: 1,
    pendingContainerResource: res(5120, 1),
    ...extra,
    tags: { 'schedbrain.tasks': String(tasks), ...extra.tags },
  });
const sloTags = (deadlineMs: number) => ({ 'schedbrain.slo.deadline-ms': String(deadlineMs) });

function trained(p: ThreeSigmaParams, runs: { name: string; runtimeMs: number }[]): ThreeSigmaState {
  const s = threeSigmaPolicy.initialState(p);
  for (const r of runs)
    for (let i = 0; i < 5; i++) learnRuntime(s.predictor, describeApp(app(`${r.name}-${i}`, { name: `${r.name}-${i}` })), r.runtimeMs, p.predictor);
  return s;
}

const rulesSeen = new Set<string>();
/** Per application: its moves and its priority, with the rules that made them. */
function actionsByApp(ds: Decision[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const d of ds) {
    rulesSeen.add(d.rule);
    const a = d.action as { kind: string; appId?: string; queue?: string; priority?: number; containerId?: string };
    const id = a.appId ?? a.containerId!;
    const what = a.kind === 'moveApp' ? `moveApp ${a.queue}` : a.kind === 'setAppPriority' ? `priority ${a.priority}` : a.kind;
    (out[id] ??= []).push(`${d.rule}: ${what}`);
  }
  return out;
}

describe('3Sigma live on YARN: hold and run queues', () => {
  it('is off unless configured; queues are full leaf paths, and two different ones', () => {
    expect(threeSigmaParamsSchema.parse({}).live).toBeUndefined();
    const refused = (live: unknown) => {
      const r = threeSigmaParamsSchema.safeParse({ live });
      return r.success ? 'accepted' : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    };
    expect(refused({ holdQueue: HOLD, runQueue: HOLD })).toMatch(/^live\.runQueue: must differ/);
    expect(refused({ holdQueue: 'hold', runQueue: RUN })).toMatch(/^live\.holdQueue: must be a full leaf queue path/);
    expect(refused({ holdQueue: HOLD, runQueue: RUN, preemption: 'pause' })).toMatch(/^live\.preemption/);
    expect(params().live).toEqual({ holdQueue: HOLD, runQueue: RUN, preemption: 'kill', tasksTag: 'schedbrain.tasks', withoutUtility: 'leftover' });
  });

  it('releases the SLO job the plan starts now into the run queue and keeps a best-effort job that does not fit beside it held', () => {
    const p = params();
    const state = trained(p, [
      { name: 'report', runtimeMs: 5 * MIN },
      { name: 'etl', runtimeMs: 5 * MIN },
    ]);
    const now = MIN;
    // Each asks for 3 tasks and its ApplicationMaster: the whole node.
    const s = snap(now, cluster, [], {
      apps: [heldApp('report-7', 3, { submittedAtMs: 0 }), heldApp('etl-7', 3, { submittedAtMs: MIN, tags: sloTags(now + 7 * MIN) })],
    });
    const out = threeSigmaPolicy.decide({ snapshot: s, params: p, state });
    expect(actionsByApp(out.decisions)).toEqual({
      'report-7': ['deferToPlannedStart: priority 1'],
      'etl-7': ['startPlannedNow: priority 10', `releaseToRunQueue: moveApp ${RUN}`],
    });
    // Described as it will run: in the run queue, with its tagged tasks.
    expect(out.state.jobs['etl-7'].description).toMatchObject({ queue: RUN, containers: 3 });
    expect(out.state.jobs['etl-7'].releasedAtMs).toBe(now);

    // Next cycle: the SLO job is in the run queue, its ApplicationMaster starting; it runs for the
    // plan (not planned again) with its whole runtime ahead, and the best-effort job still waits for the node.
    const released = app('etl-7', {
      name: 'etl-7',
      queue: RUN,
      state: 'RUNNING',
      submittedAtMs: MIN,
      tags: { ...sloTags(now + 7 * MIN), 'schedbrain.tasks': '3' },
    });
    const later = now + 10_000;
    const next = threeSigmaPolicy.decide({
      snapshot: snap(later, cluster, [], { apps: [heldApp('report-7', 3, { submittedAtMs: 0 }), { ...released, allocated: res(5120, 1) }] }),
      params: p,
      state: out.state,
    });
    expect(actionsByApp(next.decisions)).toEqual({ 'report-7': ['deferToPlannedStart: priority 1'], 'etl-7': ['keepRunning: priority 10'] });
    expect(next.state.jobs['etl-7'].runningSinceMs).toBeUndefined();
  });

  it('delays best-effort work only when the SLO job needs its room: one that fits beside it starts too', () => {
    const p = params();
    const state = trained(p, [
      { name: 'report', runtimeMs: 5 * MIN },
      { name: 'etl', runtimeMs: 5 * MIN },
    ]);
    const now = MIN;
    // One task and an ApplicationMaster each: half the node.
    const s = snap(now, cluster, [], {
      apps: [heldApp('report-7', 1, { submittedAtMs: 0 }), heldApp('etl-7', 1, { submittedAtMs: MIN, tags: sloTags(now + 7 * MIN) })],
    });
    expect(actionsByApp(threeSigmaPolicy.decide({ snapshot: s, params: p, state }).decisions)).toEqual({
      'report-7': ['startPlannedNow: priority 10', `releaseToRunQueue: moveApp ${RUN}`],
      'etl-7': ['startPlannedNow: priority 10', `releaseToRunQueue: moveApp ${RUN}`],
    });
  });

  /** A best-effort job running the whole node in the run queue, and an SLO job that needs the node now. */
  function crowded(p: ThreeSigmaParams) {
    const state = trained(p, [
      { name: 'crawl', runtimeMs: 60 * MIN },
      { name: 'billing', runtimeMs: 10 * MIN },
    ]);
    const now = 10 * MIN;
    const tasks: C[] = [1, 2, 3, 4].map((i) => ({ id: `c${i}`, node: 'n1', app: 'crawl-1', startedAt: 9 * MIN }));
    const crawl = app('crawl-1', { name: 'crawl-1', queue: RUN, submittedAtMs: 9 * MIN, startedAtMs: 9 * MIN, runningContainers: 4 });
    const s = snap(now, cluster, tasks, { apps: [crawl, heldApp('billing-1', 3, { submittedAtMs: now, tags: sloTags(now + 12 * MIN) })] });
    return { state, s, now, crawl, tasks };
  }

  it('kill preemption: the victim loses its task containers and goes back to the hold queue', () => {
    const p = params();
    const { state, s } = crowded(p);
    const out = threeSigmaPolicy.decide({ snapshot: s, params: p, state });
    expect(actionsByApp(out.decisions)).toEqual({
      ...Object.fromEntries([1, 2, 3, 4].map((i) => [`c${i}`, ['preemptForPlan: killContainer']])),
      'crawl-1': ['preemptForPlan: priority 1', `returnToHoldQueue: moveApp ${HOLD}`],
      'billing-1': ['startPlannedNow: priority 10', `releaseToRunQueue: moveApp ${RUN}`],
    });
  });

  it('suspend preemption: the victim is suspended into the hold queue, and resumes when the plan releases it again', () => {
    const p = params({ preemption: 'suspend' });
    const { state, s, now, crawl, tasks } = crowded(p);
    const out = threeSigmaPolicy.decide({ snapshot: s, params: p, state });
    expect(actionsByApp(out.decisions)).toEqual({
      ...Object.fromEntries([1, 2, 3, 4].map((i) => [`c${i}`, ['suspendForPlan: suspendContainer']])),
      'crawl-1': ['suspendForPlan: priority 1', `returnToHoldQueue: moveApp ${HOLD}`],
      'billing-1': ['startPlannedNow: priority 10', `releaseToRunQueue: moveApp ${RUN}`],
    });
    // Later, the SLO job gone: the suspended job, held, is started again where it stopped.
    const suspended = tasks.map((t) => ({ ...t, state: 'SUSPENDED' as const }));
    const again = threeSigmaPolicy.decide({
      snapshot: snap(now + 11 * MIN, cluster, suspended, { apps: [{ ...crawl, queue: HOLD }] }),
      params: p,
      state: out.state,
    });
    expect(actionsByApp(again.decisions)).toEqual({
      ...Object.fromEntries([1, 2, 3, 4].map((i) => [`c${i}`, ['releaseToRunQueue: resumeContainer']])),
      'crawl-1': ['startPlannedNow: priority 10', `releaseToRunQueue: moveApp ${RUN}`],
    });
  });

  it('runs a held job without utility on what the plan leaves free now, or keeps it held with withoutUtility: never', () => {
    // Past its deadline, no over-estimate handling: no start earns anything. The node is free.
    const decide = (withoutUtility: string) => {
      const p = threeSigmaParamsSchema.parse({ ...params({ withoutUtility }), overestimate: { mode: 'off' } });
      const state = trained(p, [{ name: 'late', runtimeMs: 5 * MIN }]);
      const s = snap(20 * MIN, cluster, [], { apps: [heldApp('late-1', 1, { submittedAtMs: 0, tags: sloTags(15 * MIN) })] });
      return actionsByApp(threeSigmaPolicy.decide({ snapshot: s, params: p, state }).decisions);
    };
    expect(decide('leftover')).toEqual({ 'late-1': ['deprioritiseWithoutUtility: priority 0', `runOnLeftoverCapacity: moveApp ${RUN}`] });
    expect(decide('never')).toEqual({ 'late-1': ['deprioritiseWithoutUtility: priority 0'] });
  });

  it('names every decision by the exported function of its rule', () => {
    for (const rule of rulesSeen) expect(typeof (threesigma as Record<string, unknown>)[rule], rule).toBe('function');
    expect([...rulesSeen]).toEqual(expect.arrayContaining(['releaseToRunQueue', 'returnToHoldQueue', 'suspendForPlan']));
  });
});
