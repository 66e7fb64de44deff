import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Decision } from '../../src/core/actions.js';
import { res } from '../../src/core/resources.js';
import type { AppView } from '../../src/core/model.js';
import { getPolicy } from '../../src/policies/index.js';
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
const params = (extra: Record<string, unknown> = {}): ThreeSigmaParams => threeSigmaParamsSchema.parse({ sliceMs: 150_000, planAheadMs: 20 * MIN, ...extra });

/** One node of 4 cores; every job asks for the whole of it (4 containers of 1 core). */
const cluster = [node('n1', 4, 4 * 5120)];
const pendingApp = (id: string, extra: Partial<AppView> = {}): AppView =>
  app(id, { name: id, state: 'ACCEPTED', pendingContainers: 4, pendingContainerResource: res(5120, 1), ...extra });
const sloTags = (deadlineMs: number) => ({ 'schedbrain.slo.deadline-ms': String(deadlineMs) });

/** A state whose history says jobs named `name` run `runtimeMs`. */
function trained(p: ThreeSigmaParams, runs: { name: string; runtimeMs: number }[]): ThreeSigmaState {
  const s = threeSigmaPolicy.initialState(p);
  for (const r of runs)
    for (let i = 0; i < 5; i++) learnRuntime(s.predictor, describeApp(pendingApp(`${r.name}-${i}`, { name: `${r.name}-${i}` })), r.runtimeMs, p.predictor);
  return s;
}

/** Every rule seen in these tests: each must be the name of an exported function that makes it. */
const rulesSeen = new Set<string>();
const byApp = (ds: Decision[]) =>
  Object.fromEntries(
    (ds.forEach((d) => rulesSeen.add(d.rule)), ds)
      .filter((d) => d.action.kind === 'setAppPriority')
      .map((d) => [(d.action as { appId: string }).appId, { rule: d.rule, priority: (d.action as { priority: number }).priority }]),
  );

describe('3Sigma policy: preferred nodes (§4.3.3, §5)', () => {
  // Two nodes of 4 cores; a best-effort job holds n1 for 2.5 more minutes; n2 is free.
  const two = [node('n1', 4, 4 * 5120), node('n2', 4, 4 * 5120)];
  const now = 10 * MIN;
  const held: C[] = [1, 2, 3, 4].map((i) => ({ id: `c${i}`, node: 'n1', app: 'crawl-1', startedAt: now - 2.5 * MIN }));
  const setup = (tags: Record<string, string>) => {
    const p = params({ preemption: { enabled: false } });
    const state = trained(p, [
      { name: 'crawl', runtimeMs: 5 * MIN },
      { name: 'billing', runtimeMs: 10 * MIN },
    ]);
    const s = snap(now, two, held, {
      apps: [
        app('crawl-1', { name: 'crawl-1', submittedAtMs: now - 2.5 * MIN, startedAtMs: now - 2.5 * MIN, runningContainers: 4 }),
        pendingApp('billing-1', { submittedAtMs: now, tags: { ...sloTags(now + 14 * MIN), ...tags } }),
      ],
    });
    return threeSigmaPolicy
      .decide({ snapshot: s, params: p, state })
      .decisions.filter((d) => d.action.kind === 'setAppPriority' && d.action.appId === 'billing-1');
  };

  it('waits for its preferred node when 1.5× elsewhere would miss the deadline', () => {
    // 10 min on n1 from 2.5 min: done at 12.5 of 14 min; 15 min on n2 from now: too late.
    const [d] = setup({ 'schedbrain.preferred-nodes': 'n1', 'schedbrain.off-preferred-slowdown': '1.5' });
    expect(d.rule).toBe('deferToPlannedStart');
    expect(d.reason).toMatch(/plan starts it in 150 s on its preferred nodes/);
  });

  it('starts at once anywhere when its slowdown elsewhere still meets the deadline, below starts on preferred nodes', () => {
    const [d] = setup({ 'schedbrain.preferred-nodes': 'n1', 'schedbrain.off-preferred-slowdown': '1.2' });
    expect(d.rule).toBe('startPlannedNow');
    expect(d.reason).toMatch(/anywhere/);
    expect((d.action as { priority: number }).priority).toBe(9);
  });

  it('without a preference starts at once on the free node', () => {
    const [d] = setup({});
    expect(d.rule).toBe('startPlannedNow');
    expect((d.action as { priority: number }).priority).toBe(10);
  });
});

describe('3Sigma policy', () => {
  it('is registered', () => {
    expect(getPolicy('threesigma')).toBe(threeSigmaPolicy);
  });

  it('starts an SLO job with a tight deadline first and defers a best-effort job submitted before it', () => {
    const p = params();
    const state = trained(p, [
      { name: 'report', runtimeMs: 5 * MIN },
      { name: 'etl', runtimeMs: 5 * MIN },
    ]);
    const now = MIN;
    const s = snap(now, cluster, [], {
      apps: [pendingApp('report-7', { submittedAtMs: 0 }), pendingApp('etl-7', { submittedAtMs: MIN, tags: sloTags(now + 7 * MIN) })],
    });
    const out = threeSigmaPolicy.decide({ snapshot: s, params: p, state });
    expect(byApp(out.decisions)).toEqual({
      'report-7': { rule: 'deferToPlannedStart', priority: 1 },
      'etl-7': { rule: 'startPlannedNow', priority: 10 },
    });
    expect(out.wakeAtMs).toBe(now + p.sliceMs);
    expect(out.state.lastPlan).toMatchObject({ solver: 'highs', pending: 2, startNow: 1, deferred: 1 });
    expect(out.decisions.find((d) => d.rule === 'startPlannedNow')!.reason).toMatch(/SLO job, deadline in 420 s: plan starts it now/);
  });

  it('starts an over-estimated SLO job on a free cluster instead of starving it; without over-estimate handling it gets no utility', () => {
    const state = () => trained(params(), [{ name: 'sim', runtimeMs: 30 * MIN }]);
    const s = snap(0, cluster, [], { apps: [pendingApp('sim-1', { tags: sloTags(10 * MIN) })] });
    expect(byApp(threeSigmaPolicy.decide({ snapshot: s, params: params(), state: state() }).decisions)).toEqual({
      'sim-1': { rule: 'startPlannedNow', priority: 10 },
    });
    const off = params({ overestimate: { mode: 'off' } });
    expect(byApp(threeSigmaPolicy.decide({ snapshot: s, params: off, state: state() }).decisions)).toEqual({
      'sim-1': { rule: 'deprioritiseWithoutUtility', priority: 0 },
    });
  });

  it('deprioritises an SLO job past its deadline with no utility left, below a best-effort job', () => {
    const p = params();
    const state = trained(p, [
      { name: 'late', runtimeMs: 5 * MIN },
      { name: 'adhoc', runtimeMs: 5 * MIN },
    ]);
    const s = snap(20 * MIN, cluster, [], { apps: [pendingApp('late-1', { tags: sloTags(15 * MIN) }), pendingApp('adhoc-1', { submittedAtMs: 19 * MIN })] });
    expect(byApp(threeSigmaPolicy.decide({ snapshot: s, params: p, state }).decisions)).toEqual({
      'late-1': { rule: 'deprioritiseWithoutUtility', priority: 0 },
      'adhoc-1': { rule: 'startPlannedNow', priority: 10 },
    });
  });

  it('preempts a running best-effort job whose place an SLO job needs now: its task containers are killed', () => {
    const p = params();
    const state = trained(p, [
      { name: 'crawl', runtimeMs: 60 * MIN },
      { name: 'billing', runtimeMs: 10 * MIN },
    ]);
    const now = 10 * MIN;
    const held: C[] = [1, 2, 3, 4].map((i) => ({ id: `c${i}`, node: 'n1', app: 'crawl-1', startedAt: 9 * MIN }));
    const s = snap(now, cluster, held, {
      apps: [
        app('crawl-1', { name: 'crawl-1', submittedAtMs: 9 * MIN, startedAtMs: 9 * MIN, runningContainers: 4 }),
        pendingApp('billing-1', { submittedAtMs: now, tags: sloTags(now + 12 * MIN) }),
      ],
    });
    const out = threeSigmaPolicy.decide({ snapshot: s, params: p, state });
    const kills = out.decisions.filter((d) => d.action.kind === 'killContainer');
    expect(kills.map((d) => [d.rule, (d.action as { containerId: string }).containerId])).toEqual([1, 2, 3, 4].map((i) => ['preemptForPlan', `c${i}`]));
    expect(byApp(out.decisions)).toEqual({
      'billing-1': { rule: 'startPlannedNow', priority: 10 },
      'crawl-1': { rule: 'preemptForPlan', priority: 1 },
    });
    expect(out.state.jobs['crawl-1'].preemptedAtMs).toBe(now);
  });

  it('learns the runtime of a job it saw running once it finishes, and predicts the next one with it', () => {
    const p = params();
    let state = threeSigmaPolicy.initialState(p);
    const running = app('etl-1', { name: 'etl-1', submittedAtMs: 0, startedAtMs: MIN, runningContainers: 1 });
    state = threeSigmaPolicy.decide({
      snapshot: snap(2 * MIN, cluster, [{ id: 'c1', node: 'n1', app: 'etl-1', startedAt: MIN }], { apps: [running] }),
      params: p,
      state,
    }).state;
    const finished = { ...running, state: 'FINISHED' as const, runningContainers: 0 };
    state = threeSigmaPolicy.decide({
      snapshot: snap(7 * MIN, cluster, [], { apps: [finished, pendingApp('etl-2', { name: 'etl-2', submittedAtMs: 7 * MIN })] }),
      params: p,
      state,
    }).state;
    expect(state.predictor.seq).toBe(1);
    expect(state.predictor.features['name=etl-#'].histogram.max).toBe(6 * MIN);
    expect(state.jobs['etl-1']).toBeUndefined();
    expect(state.jobs['etl-2'].prediction).toMatchObject({ feature: 'all', fallback: true, pointEstimateMs: 6 * MIN });
  });

  it('with distributions puts the SLO job first where the point estimate (NoDist) would not (§2.3)', () => {
    // History of both kinds of job: 2.5, 10, 5 and 7.5 min, so every point estimate is at most 7.5 min.
    const history = (p: ThreeSigmaParams) => {
      const s = threeSigmaPolicy.initialState(p);
      for (let round = 0; round < 3; round++)
        for (const m of [2.5, 10, 5, 7.5])
          for (const name of ['etl', 'adhoc'])
            learnRuntime(s.predictor, describeApp(pendingApp(`${name}-${round}`, { name: `${name}-${round}` })), m * MIN, p.predictor);
      return s;
    };
    const s = snap(0, cluster, [], { apps: [pendingApp('adhoc-9', { name: 'adhoc-9' }), pendingApp('etl-9', { name: 'etl-9', tags: sloTags(15 * MIN) })] });
    const dist = params();
    expect(byApp(threeSigmaPolicy.decide({ snapshot: s, params: dist, state: history(dist) }).decisions)).toEqual({
      'adhoc-9': { rule: 'deferToPlannedStart', priority: 1 },
      'etl-9': { rule: 'startPlannedNow', priority: 10 },
    });
    const point = params({ runtimeModel: 'point' });
    expect(byApp(threeSigmaPolicy.decide({ snapshot: s, params: point, state: history(point) }).decisions)).toEqual({
      'adhoc-9': { rule: 'startPlannedNow', priority: 10 },
      'etl-9': { rule: 'deferToPlannedStart', priority: 1 },
    });
  });

  it('keeps running a job that outlived its history, its finish moved on by the under-estimate rule', () => {
    const p = params();
    const state = trained(p, [{ name: 'crawl', runtimeMs: 5 * MIN }]);
    const held: C[] = [{ id: 'c1', node: 'n1', app: 'crawl-1', startedAt: 0 }];
    const s = snap(6 * MIN, cluster, held, { apps: [app('crawl-1', { name: 'crawl-1', startedAtMs: 0, runningContainers: 1 })] });
    const out = threeSigmaPolicy.decide({ snapshot: s, params: p, state });
    expect(byApp(out.decisions)).toEqual({ 'crawl-1': { rule: 'keepRunning', priority: 10 } });
    const d = out.decisions.find((x) => x.rule === 'keepRunning')!;
    // Longest run 5 min, reached: one step (a 2.5 min slice) on, 7.5 min, 90 s from now.
    expect(d.reason).toMatch(/outlived its longest predicted runtime, finish now expected in 90 s \(exp-inc\)/);
    expect(out.wakeAtMs).toBeUndefined();
  });

  it('keeps its state as plain JSON: a restored state decides the same', () => {
    const p = params();
    const state = trained(p, [
      { name: 'report', runtimeMs: 5 * MIN },
      { name: 'etl', runtimeMs: 8 * MIN },
    ]);
    const s = snap(MIN, cluster, [], { apps: [pendingApp('report-1'), pendingApp('etl-1', { tags: sloTags(12 * MIN) })] });
    const restored = JSON.parse(JSON.stringify(state)) as ThreeSigmaState;
    const a = threeSigmaPolicy.decide({ snapshot: s, params: p, state });
    const b = threeSigmaPolicy.decide({ snapshot: s, params: p, state: restored });
    expect(b.decisions.map((d) => [d.rule, d.action])).toEqual(a.decisions.map((d) => [d.rule, d.action]));
    expect(JSON.parse(JSON.stringify(b.state))).toEqual(JSON.parse(JSON.stringify(a.state)));
  });

  it('names every decision by the exported function of its rule', () => {
    expect([...rulesSeen].sort()).toEqual(['deferToPlannedStart', 'deprioritiseWithoutUtility', 'keepRunning', 'preemptForPlan', 'startPlannedNow']);
    for (const rule of rulesSeen) expect(typeof (threesigma as Record<string, unknown>)[rule]).toBe('function');
  });

  it('validates its parameters with units and bounds', () => {
    expect(() => threeSigmaParamsSchema.parse({ sliceMs: 150_000, planAheadMs: 1_000_000 })).toThrow(/whole number of slices/);
    expect(() => threeSigmaParamsSchema.parse({ sliceMs: 10 })).toThrow();
    expect(() => threeSigmaParamsSchema.parse({ priorities: { start: 1, defer: 1 } })).toThrow(/start > defer/);
    expect(() => threeSigmaParamsSchema.parse({ planAheadMs: 86_400_000, sliceMs: 1_000 })).toThrow(/at most 200 slices/);
    expect(threeSigmaParamsSchema.parse({})).toMatchObject({ sliceMs: 150_000, planAheadMs: 1_200_000, predictor: { maxBins: 80, rollingAlpha: 0.6 } });
  });
});

describe('3Sigma policy: the cycle budget (solver.cycleBudgetMs)', () => {
  afterEach(() => vi.restoreAllMocks());

  const cycle = (p: ThreeSigmaParams) => {
    const state = trained(p, [
      { name: 'report', runtimeMs: 5 * MIN },
      { name: 'etl', runtimeMs: 5 * MIN },
    ]);
    const s = snap(MIN, cluster, [], {
      apps: [pendingApp('report-7', { submittedAtMs: 0 }), pendingApp('etl-7', { submittedAtMs: MIN, tags: sloTags(8 * MIN) })],
    });
    return threeSigmaPolicy.decide({ snapshot: s, params: p, state });
  };

  it('a cycle whose budget is spent before the solve applies the warm start, and its decisions say so', () => {
    // A monotonic clock that moves 2 s at every read: the 1 s budget is gone by the solve.
    let t = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (t += 2_000));
    const out = cycle(params());
    expect(out.state.lastPlan).toMatchObject({ solver: 'greedy', pending: 2, startNow: 1, deferred: 1 });
    expect(out.state.lastPlan!.status).toMatch(/^cycle budget spent .*greedy packing kept, not solved$/);
    const start = out.decisions.find((d) => d.action.kind === 'setAppPriority' && d.action.appId === 'etl-7')!;
    expect(start.rule).toBe('startPlannedNow');
    expect(start.reason).toMatch(/plan starts it now.*\[cycle budget spent .*greedy packing kept, not solved\]$/);
    const deferred = out.decisions.find((d) => d.action.kind === 'setAppPriority' && d.action.appId === 'report-7')!;
    expect(deferred.rule).toBe('deferToPlannedStart');
    expect(deferred.reason).toMatch(/\[cycle budget spent/);
    expect(out.notes?.at(-1)).toMatch(/plan \(greedy, cycle budget spent/);
  });

  it('with a null budget the same late clock changes nothing: HiGHS solves and the decisions are those of an untimed cycle', () => {
    const none = params({ solver: { cycleBudgetMs: null } });
    const untimed = cycle(none);
    let t = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (t += 2_000));
    const late = cycle(none);
    expect(late.state.lastPlan).toMatchObject({ solver: 'highs' });
    expect(late.decisions.map((d) => [d.rule, d.action, d.reason])).toEqual(untimed.decisions.map((d) => [d.rule, d.action, d.reason]));
  });
});
