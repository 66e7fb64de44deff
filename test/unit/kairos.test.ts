/** Kairos policy: node-level LAS, starvation guard, central dispatch, N+Q cap, state. */
import { S, app, kinds, node, snap, targets, type C } from './policy-fixtures.js';
import type { Action, Decision } from '../../src/core/actions.js';
import type { ClusterSnapshot } from '../../src/core/model.js';

import { describe, expect, it } from 'vitest';
import { kairosPolicy, kairosParamsSchema, dispatchScore, stateNodes, STATE_LAYOUT, type KairosState } from '../../src/policies/kairos/index.js';
import { getPolicy } from '../../src/policies/index.js';
import { copyStateFor } from '../../src/core/policy.js';
import { ChangeTracker } from '../../src/engine/change-tracking.js';

const params = (p: Record<string, unknown> = {}) => kairosParamsSchema.parse(p);
/** A decision of the node scheduler (Alg. 1 and the starvation guard): its rule is the function's name. */
const nodeRule = (d: Decision) => ['preemptOnArrival', 'swapOnQuantumEnd', 'starvationGuard', 'resumeOnFreeCore'].includes(d.rule);

/** The runtime's tracking, shared by the cycles of this file (a state it was not handed over with rebuilds it). */
const tracking = new ChangeTracker();

function run(snapshot: ClusterSnapshot, p: Record<string, unknown> = {}, state?: KairosState) {
  const prm = params(p);
  return kairosPolicy.decide({ snapshot, params: prm, state: state ?? kairosPolicy.initialState(prm), tracking });
}

describe('kairos params', () => {
  it('defaults follow the prototype the paper measured (W = 50 s, Q = 4, no starvation guard, swap margin W/2, variance tie-break)', () => {
    const p = params();
    expect(p).toMatchObject({
      quantumMs: 50_000,
      queueSlots: 4,
      starvationQuanta: 0,
      starvationRunQuanta: 1,
      windowsAfterPreemptions: 2,
      tieBreak: 'variance',
    });
    expect(p.swapMarginMs).toBeUndefined();
    expect(p.preemptionsAllowed).toBeUndefined();
    expect(p.lasLimitMs).toBeUndefined();
    expect(p.coresPerNode).toBeUndefined();
    expect(() => params({ tieBreak: 'fastest' })).toThrow();
    expect(() => params({ quantum: 5 })).toThrow();
    expect(() => params({ quantumMs: 0 })).toThrow();
  });

  it('is registered as `kairos`', () => {
    expect(getPolicy('kairos')).toBe(kairosPolicy);
  });
});

describe('kairos node LAS', () => {
  it('a cycle that throws half-way hands none of its decisions to the next cycle', () => {
    const cs: C[] = [
      { id: 'a', node: 'n1', attained: 10 * S },
      { id: 'b', node: 'n1', attained: 5 * S },
      { id: 'x', node: 'n2' },
    ];
    const s = snap(0, [node('n1', 1, 5120), node('n2', 1, 5120)], cs);
    // n1 (visited first) is over-committed and gets a suspend; then n2's container view fails.
    const failing = (v: object) =>
      Object.defineProperty({ ...v }, 'state', {
        get: () => {
          throw new Error('bad view');
        },
      });
    const broken: ClusterSnapshot = { ...s, containers: new Map([...s.containers].map(([k, v]) => [k, k === 'x' ? (failing(v) as typeof v) : v])) };
    expect(() => run(broken)).toThrow('bad view');
    const next = run(snap(0, [node('n3', 1, 5120)], []));
    expect(kinds(next.decisions, 'suspendContainer')).toHaveLength(0);
    expect(next.decisions.map((d) => d.action.kind).sort()).toEqual(['rankNodes', 'setNodeResource']);
    // The same snapshot, whole, decides the suspend.
    expect(targets(run(s).decisions, 'suspendContainer')).toEqual(['a']);
  });

  it('a task arriving on a node whose N cores are busy preempts the running task with the most attained service', () => {
    const n = node('n1', 4);
    const base: C[] = [
      { id: 'a', node: 'n1', attained: 100 * S },
      { id: 'b', node: 'n1', attained: 20 * S },
      { id: 'c', node: 'n1', attained: 50 * S },
      { id: 'd', node: 'n1', attained: 10 * S },
    ];
    const first = run(snap(0, [n], base));
    expect(kinds(first.decisions, 'suspendContainer')).toHaveLength(0);
    const second = run(snap(500, [n], [...base, { id: 'e', node: 'n1', attained: 0, startedAt: 500 }], { changed: ['n1'] }), {}, first.state);
    const sus = kinds(second.decisions, 'suspendContainer');
    expect(targets(second.decisions, 'suspendContainer')).toEqual(['a']);
    expect(sus[0].rule).toBe('preemptOnArrival');
    expect(sus[0].reason).toContain('e arrived');
    expect(sus[0].reason).toContain('100 s');
    expect(kinds(second.decisions, 'resumeContainer')).toHaveLength(0);
    // a now waits: the node wants to be called back when the first running quantum ends.
    expect(second.wakeAtMs).toBe(50 * S);
  });

  it('on quantum expiry the running task yields to the youngest waiting task if it has attained no less service', () => {
    const n = node('n1', 1, 5120);
    const t0 = run(
      snap(
        0,
        [n],
        [
          { id: 'a', node: 'n1', attained: 40 * S, runningSince: 0 },
          { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 10 * S },
        ],
      ),
    );
    expect(t0.decisions.filter((d) => nodeRule(d))).toHaveLength(0);
    expect(t0.wakeAtMs).toBe(50 * S);

    const t50 = run(
      snap(
        50 * S,
        [n],
        [
          { id: 'a', node: 'n1', attained: 90 * S, runningSince: 0 },
          { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 10 * S },
        ],
        { changed: [] },
      ),
      {},
      t0.state,
    );
    expect(targets(t50.decisions, 'suspendContainer')).toEqual(['a']);
    expect(targets(t50.decisions, 'resumeContainer')).toEqual(['b']);
    const pre = kinds(t50.decisions, 'suspendContainer')[0];
    expect(pre.rule).toBe('swapOnQuantumEnd');
    expect(pre.reason).toMatch(/a attained 90 s >= b waiting with 10 s/);
    expect(kinds(t50.decisions, 'resumeContainer')[0].rule).toBe('swapOnQuantumEnd');
    // b's quantum ends at 100 s.
    expect(t50.wakeAtMs).toBe(100 * S);
  });

  it("a reason read after the cycle names its own node's tasks, though later visits reused the working space", () => {
    const ns = [node('n1', 1, 5120), node('n2', 1, 5120)];
    const cs = (t: number): C[] => [
      { id: 'a', node: 'n1', attained: 40 * S + t, runningSince: 0 },
      { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 10 * S },
      { id: 'c', node: 'n2', attained: 70 * S + t, runningSince: 0 },
      { id: 'd', node: 'n2', state: 'SUSPENDED', attained: 20 * S },
    ];
    const t0 = run(snap(0, ns, cs(0)));
    const t50 = run(snap(50 * S, ns, cs(50 * S), { changed: [] }), {}, t0.state);
    expect(targets(t50.decisions, 'suspendContainer')).toEqual(['a', 'c']);
    // Reasons are formatted only now, after n2 was scheduled in the same scratch space as n1.
    const [first, second] = kinds(t50.decisions, 'suspendContainer');
    expect(first.reason).toMatch(/a attained 90 s >= b waiting with 10 s/);
    expect(second.reason).toMatch(/c attained 120 s >= d waiting with 20 s/);
    expect(kinds(t50.decisions, 'resumeContainer')[0].reason).toMatch(/^b \(attained 10 s\) is the youngest waiting task on n1; takes the core of a/);
  });

  it('acts on quantum ends at the next monitor tick (500 ms by default; 0 = exact)', () => {
    const n = node('n1', 1, 5120);
    const cs = (t: number): C[] => [
      { id: 'a', node: 'n1', attained: t - 200, runningSince: 200 },
      { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 10 * S },
    ];
    const t0 = run(snap(200, [n], cs(200)));
    expect(t0.wakeAtMs).toBe(50_500);
    expect(run(snap(200, [n], cs(200)), { monitorIntervalMs: 0 }).wakeAtMs).toBe(50_200);
    const t1 = run(snap(50_500, [n], cs(50_500), { changed: [] }), {}, t0.state);
    expect(targets(t1.decisions, 'suspendContainer')).toEqual(['a']);
    expect(targets(t1.decisions, 'resumeContainer')).toEqual(['b']);
  });

  it('keeps the running task for another quantum when every waiting task has attained more', () => {
    const n = node('n1', 1, 5120);
    const cs = (att: number): C[] => [
      { id: 'a', node: 'n1', attained: att, runningSince: 0 },
      { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 95 * S },
    ];
    const t0 = run(snap(0, [n], cs(40 * S)));
    const t50 = run(snap(50 * S, [n], cs(90 * S), { changed: [] }), {}, t0.state);
    expect(t50.decisions.filter((d) => nodeRule(d))).toHaveLength(0);
    expect(t50.wakeAtMs).toBe(100 * S);
    // At 100 s a has 140 s > 95 s: now it yields.
    const t100 = run(snap(100 * S, [n], cs(140 * S), { changed: [] }), {}, t50.state);
    expect(targets(t100.decisions, 'suspendContainer')).toEqual(['a']);
    expect(targets(t100.decisions, 'resumeContainer')).toEqual(['b']);
  });

  it('swaps at a quantum end only when the waiting task has attained at least the swap margin (default W/2) less', () => {
    const n = node('n1', 1, 5120);
    const cs = (att: number): C[] => [
      { id: 'a', node: 'n1', attained: att, runningSince: 0 },
      { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 70 * S },
    ];
    // At 50 s a has 90 s, b 70 s: 20 s apart, less than W/2 = 25 s: a keeps its core.
    const t0 = run(snap(0, [n], cs(40 * S)));
    const t50 = run(snap(50 * S, [n], cs(90 * S), { changed: [] }), {}, t0.state);
    expect(t50.decisions.filter((d) => nodeRule(d))).toHaveLength(0);
    // With the paper's rule (margin 0) it yields.
    const u0 = run(snap(0, [n], cs(40 * S)), { swapMarginMs: 0 });
    const u50 = run(snap(50 * S, [n], cs(90 * S), { changed: [] }), { swapMarginMs: 0 }, u0.state);
    expect(targets(u50.decisions, 'suspendContainer')).toEqual(['a']);
    expect(targets(u50.decisions, 'resumeContainer')).toEqual(['b']);
  });

  it("the prototype head's guard: a task suspended more than preemptionsAllowed times keeps its core for a longer window", () => {
    const n = node('n1', 1, 5120);
    const p = { quantumMs: 10 * S, preemptionsAllowed: 1, windowsAfterPreemptions: 3, monitorIntervalMs: 0 };
    // a is suspended twice by newcomers (b, then c), resumed each time when they finish.
    let st = run(snap(0, [n], [{ id: 'a', node: 'n1', attained: 0, runningSince: 0 }]), p).state;
    st = run(
      snap(
        1 * S,
        [n],
        [
          { id: 'a', node: 'n1', state: 'SUSPENDED', attained: 1 * S },
          { id: 'b', node: 'n1', attained: 0, runningSince: 1 * S },
        ],
        { changed: ['n1'] },
      ),
      p,
      st,
    ).state;
    st = run(snap(2 * S, [n], [{ id: 'a', node: 'n1', attained: 1 * S, runningSince: 2 * S }], { changed: ['n1'] }), p, st).state;
    st = run(
      snap(
        3 * S,
        [n],
        [
          { id: 'a', node: 'n1', state: 'SUSPENDED', attained: 2 * S },
          { id: 'c', node: 'n1', attained: 0, runningSince: 3 * S },
        ],
        { changed: ['n1'] },
      ),
      p,
      st,
    ).state;
    st = run(snap(4 * S, [n], [{ id: 'a', node: 'n1', attained: 2 * S, runningSince: 4 * S }], { changed: ['n1'] }), p, st).state;
    expect(stateNodes(st).n1.tasks.a.preempts).toBe(2);
    // d waits from 14 s, with nothing attained; a's quantum (restarted at 14 s with no one waiting
    // before) ends at 24 s: a is not compared but runs 3 W more.
    const cs = (att: number): C[] => [
      { id: 'a', node: 'n1', attained: att, runningSince: 4 * S },
      { id: 'd', node: 'n1', state: 'SUSPENDED', attained: 0 },
    ];
    const t14 = run(snap(14 * S, [n], cs(12 * S), { changed: ['n1'] }), p, st);
    expect(t14.wakeAtMs).toBe(24 * S);
    const before = JSON.parse(JSON.stringify(t14.state)) as KairosState;
    const t24 = run(snap(24 * S, [n], cs(22 * S), { changed: [] }), p, t14.state);
    expect(t24.decisions.filter((d) => nodeRule(d))).toHaveLength(0);
    expect(stateNodes(t24.state).n1.tasks.a).toMatchObject({ qEnd: 54 * S, preempts: 0 });
    // Without the guard a yields at once.
    const off = run(snap(24 * S, [n], cs(22 * S), { changed: [] }), { ...p, preemptionsAllowed: undefined }, before);
    expect(targets(off.decisions, 'suspendContainer')).toEqual(['a']);
  });

  it('lasLimitMs: a task past the limit yields to young tasks, and old tasks run in the order of their jobs', () => {
    const n = node('n1', 1, 5120);
    const apps = [app('app1', { submittedAtMs: 0 }), app('app2', { submittedAtMs: 5 * S }), app('app3', { submittedAtMs: 9 * S })];
    const p = { lasLimitMs: 100 * S, monitorIntervalMs: 0 };
    // Old tasks: x (job 2, running, 300 s attained) and y (job 1, suspended, 500 s attained). LAS
    // would keep x; past the limit, y's job came first.
    const cs = (att: number): C[] => [
      { id: 'x', node: 'n1', app: 'app2', attained: att, runningSince: 0 },
      { id: 'y', node: 'n1', app: 'app1', state: 'SUSPENDED', attained: 500 * S },
    ];
    const t0 = run(snap(0, [n], cs(300 * S), { apps: apps.slice(0, 2) }), p);
    const t50 = run(snap(50 * S, [n], cs(350 * S), { apps: apps.slice(0, 2), changed: [] }), p, t0.state);
    expect(targets(t50.decisions, 'suspendContainer')).toEqual(['x']);
    expect(targets(t50.decisions, 'resumeContainer')).toEqual(['y']);
    // A young task (job 3) arriving takes the core of the old one, whatever its job.
    const t60 = run(
      snap(
        60 * S,
        [n],
        [
          { id: 'x', node: 'n1', app: 'app2', state: 'SUSPENDED', attained: 350 * S },
          { id: 'y', node: 'n1', app: 'app1', attained: 510 * S, runningSince: 50 * S },
          { id: 'z', node: 'n1', app: 'app3', attained: 0, runningSince: 60 * S },
        ],
        { apps, changed: ['n1'] },
      ),
      p,
      t50.state,
    );
    expect(targets(t60.decisions, 'suspendContainer')).toEqual(['y']);
  });

  it('a freed core goes to the youngest waiting task', () => {
    const n = node('n1', 2, 10240);
    const out = run(
      snap(
        5 * S,
        [n],
        [
          { id: 'a', node: 'n1', attained: 70 * S },
          { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 30 * S },
          { id: 'c', node: 'n1', state: 'SUSPENDED', attained: 10 * S },
        ],
      ),
    );
    expect(targets(out.decisions, 'resumeContainer')).toEqual(['c']);
    const r = kinds(out.decisions, 'resumeContainer')[0];
    expect(r.rule).toBe('resumeOnFreeCore');
    expect(r.reason).toContain('1/2 cores busy');
    expect(kinds(out.decisions, 'suspendContainer')).toHaveLength(0);
  });

  it('starvation guard: a task suspended for 3 quanta runs, unpreemptible for one quantum', () => {
    const n = node('n1', 1, 5120);
    const p = { quantumMs: 10 * S, starvationQuanta: 3, starvationRunQuanta: 1 };
    const at = (t: number, aAtt: number, extra: C[] = [], state?: KairosState) =>
      run(
        snap(
          t,
          [n],
          [{ id: 'a', node: 'n1', attained: aAtt, runningSince: 0 }, { id: 'x', node: 'n1', state: 'SUSPENDED', attained: 300 * S }, ...extra],
          state ? { changed: [] } : {},
        ),
        p,
        state,
      );
    let out = at(0, 0);
    expect(out.wakeAtMs).toBe(10 * S);
    out = at(10 * S, 10 * S, [], out.state);
    expect(out.decisions.filter((d) => nodeRule(d))).toHaveLength(0);
    out = at(20 * S, 20 * S, [], out.state);
    expect(out.decisions.filter((d) => nodeRule(d))).toHaveLength(0);
    out = at(30 * S, 30 * S, [], out.state);
    expect(targets(out.decisions, 'suspendContainer')).toEqual(['a']);
    expect(targets(out.decisions, 'resumeContainer')).toEqual(['x']);
    expect(out.decisions.filter((d) => nodeRule(d)).every((d) => d.rule === 'starvationGuard')).toBe(true);
    expect(kinds(out.decisions, 'resumeContainer')[0].reason).toMatch(/x waited 30 s >= 3 quanta of W=10 s/);

    // While protected, x is not preempted by a newcomer: the newcomer waits instead.
    const swapped = (t: number, xAtt: number, extra: C[], state: KairosState) =>
      run(
        snap(t, [n], [{ id: 'a', node: 'n1', state: 'SUSPENDED', attained: 30 * S }, { id: 'x', node: 'n1', attained: xAtt, runningSince: 30 * S }, ...extra], {
          changed: ['n1'],
        }),
        p,
        state,
      );
    const t35 = swapped(35 * S, 305 * S, [{ id: 'b', node: 'n1', attained: 0, startedAt: 35 * S }], out.state);
    expect(targets(t35.decisions, 'suspendContainer')).toEqual(['b']);
    expect(t35.wakeAtMs).toBe(40 * S);
    // Protection over at 40 s: x (310 s) yields to the youngest waiting task, b (0 s).
    const t40 = swapped(40 * S, 310 * S, [{ id: 'b', node: 'n1', state: 'SUSPENDED', attained: 0, startedAt: 35 * S }], t35.state);
    expect(targets(t40.decisions, 'suspendContainer')).toEqual(['x']);
    expect(targets(t40.decisions, 'resumeContainer')).toEqual(['b']);
  });

  it('starvationQuanta = 0 disables the guard', () => {
    const n = node('n1', 1, 5120);
    const p = { quantumMs: 10 * S, starvationQuanta: 0 };
    const cs = (t: number): C[] => [
      { id: 'a', node: 'n1', attained: t, runningSince: 0 },
      { id: 'x', node: 'n1', state: 'SUSPENDED', attained: 300 * S },
    ];
    let out = run(snap(0, [n], cs(0)), p);
    for (const t of [10, 20, 30, 40, 50]) {
      out = run(snap(t * S, [n], cs(t * S), { changed: [] }), p, out.state);
      expect(out.decisions.filter((d) => nodeRule(d))).toHaveLength(0);
    }
  });

  it('without attained-service accounting it falls back to the running time it tracks', () => {
    const n = node('n1', 1, 5120);
    const t0 = run(snap(0, [n], [{ id: 'a', node: 'n1', attained: null, runningSince: 0 }]));
    expect(t0.wakeAtMs).toBeUndefined();
    const t60 = run(
      snap(
        60 * S,
        [n],
        [
          { id: 'a', node: 'n1', attained: null, runningSince: 0 },
          { id: 'b', node: 'n1', attained: null, startedAt: 60 * S, runningSince: 60 * S },
        ],
        { changed: ['n1'] },
      ),
      {},
      t0.state,
    );
    expect(targets(t60.decisions, 'suspendContainer')).toEqual(['a']);
    expect(kinds(t60.decisions, 'suspendContainer')[0].reason).toContain('(60 s)');
    // a's 60 s are remembered while it is suspended: at b's quantum end (110 s) b has 50 s < 60 s, keeps running.
    const t110 = run(
      snap(
        110 * S,
        [n],
        [
          { id: 'a', node: 'n1', state: 'SUSPENDED', attained: null, runningSince: 0 },
          { id: 'b', node: 'n1', attained: null, startedAt: 60 * S, runningSince: 60 * S },
        ],
        { changed: [] },
      ),
      {},
      t60.state,
    );
    expect(t110.decisions.filter((d) => nodeRule(d))).toHaveLength(0);
    // At 160 s b has 100 s > 60 s: a resumes.
    const t160 = run(
      snap(
        160 * S,
        [n],
        [
          { id: 'a', node: 'n1', state: 'SUSPENDED', attained: null, runningSince: 0 },
          { id: 'b', node: 'n1', attained: null, startedAt: 60 * S, runningSince: 60 * S },
        ],
        { changed: [] },
      ),
      {},
      t110.state,
    );
    expect(targets(t160.decisions, 'resumeContainer')).toEqual(['a']);
  });
});

describe('kairos central dispatch', () => {
  const nodes = [node('n1'), node('n2'), node('n3'), node('n4')];
  const cs: C[] = [
    { id: 'a', node: 'n1', attained: 10 * S },
    { id: 'b', node: 'n1', attained: 30 * S },
    { id: 'c', node: 'n2', attained: 5 * S },
    { id: 'd', node: 'n2', attained: 5 * S },
    { id: 'e', node: 'n4', attained: 0 },
    { id: 'f', node: 'n4', attained: 100 * S },
    { id: 'g', node: 'n4', attained: 200 * S },
  ];
  const rank = (ds: Decision[]) => {
    const r = kinds(ds, 'rankNodes');
    expect(r).toHaveLength(1);
    expect(r[0].rule).toBe('dispatchRank');
    return r[0].action as Extract<Action, { kind: 'rankNodes' }>;
  };

  it('ranks fewest tasks first, ties by the lowest variance of attained service', () => {
    const a = rank(run(snap(0, nodes, cs)).decisions);
    expect(a.leastLoadedFirst).toBe(true);
    expect(a.partial).toBe(false);
    // n1: mean 20 s, variance 100 s²; n2: 0; n3 (empty): 0; n4: mean 100, variance 20000/3.
    expect(a.scores).toEqual({ n1: 100, n2: 0, n3: 0, n4: 6666.667 });
    // The order the backend derives (fewest containers, then ascending score): n3, n2, n1, n4.
    const count = (id: string) => cs.filter((c) => c.node === id).length;
    const order = Object.keys(a.scores).sort((x, y) => count(x) - count(y) || a.scores[x] - a.scores[y] || (x < y ? -1 : 1));
    expect(order).toEqual(['n3', 'n2', 'n1', 'n4']);
  });

  it('sum and stddev tie-breaks', () => {
    expect(rank(run(snap(0, nodes, cs), { tieBreak: 'sum' }).decisions).scores).toEqual({ n1: 40, n2: 10, n3: 0, n4: 300 });
    expect(rank(run(snap(0, nodes, cs), { tieBreak: 'stddev' }).decisions).scores).toMatchObject({ n1: 10, n2: 0, n3: 0 });
    expect(dispatchScore('variance', [])).toBe(0);
  });

  it('random tie-break: seeded scores, different per node, deterministic per seed', () => {
    const s1 = rank(run(snap(0, nodes, cs), { tieBreak: 'random', seed: 7 }).decisions).scores;
    const s1b = rank(run(snap(0, nodes, cs), { tieBreak: 'random', seed: 7 }).decisions).scores;
    const s2 = rank(run(snap(0, nodes, cs), { tieBreak: 'random', seed: 8 }).decisions).scores;
    expect(s1).toEqual(s1b);
    expect(s1).not.toEqual(s2);
    expect(new Set(Object.values(s1)).size).toBe(4);
    for (const v of Object.values(s1)) expect(v >= 0 && v < 1000).toBe(true);
  });

  it('after the first cycle rescores only changed nodes (partial); the periodic sweep re-caps nodes', () => {
    const first = run(snap(0, nodes, cs));
    expect(rank(first.decisions).partial).toBe(false);
    expect(kinds(first.decisions, 'setNodeResource')).toHaveLength(4);
    const capped = nodes.map((n) => ({ ...n, capacity: { memoryMB: 2 * n.physicalCapacity.memoryMB, vcores: 8 } }));
    // A task arrives on n2 (n1 is reported too, but holds just what the policy left there).
    const second = run(snap(100, capped, [...cs, { id: 'h', node: 'n2', attained: 0, startedAt: 100 }], { changed: ['n1', 'n2'] }), {}, first.state);
    const r2 = rank(second.decisions);
    expect(r2.partial).toBe(true);
    expect(Object.keys(r2.scores)).toEqual(['n2']);
    expect(kinds(second.decisions, 'setNodeResource')).toHaveLength(0);
    const third = run(snap(300, capped, cs, { changed: [] }), {}, second.state);
    expect(third.decisions).toHaveLength(0);
    // n3's advertised capacity was reset behind our back: the next sweep (10 min) restores the cap.
    const reset = capped.map((n) => (n.id === 'n3' ? { ...n, capacity: n.physicalCapacity } : n));
    // decide updates the state it is given: each alternative below starts from a copy.
    expect(run(snap(599_999, reset, cs, { changed: [] }), {}, structuredClone(third.state)).decisions).toHaveLength(0);
    const swept = run(snap(600_000, reset, cs, { changed: [] }), {}, structuredClone(third.state));
    expect(swept.decisions.map((d) => d.action)).toEqual([{ kind: 'setNodeResource', nodeId: 'n3', resource: { memoryMB: 40960, vcores: 8 } }]);
    expect(run(snap(600_000, reset, cs, { changed: [] }), { sweepIntervalMs: 1_000_000 }, structuredClone(third.state)).decisions).toHaveLength(0);
  });

  it('a node with waiting tasks is rescored at its quantum end even when nothing else changed', () => {
    const two = [node('n1', 1, 5120), node('n2', 1, 5120)];
    const cs2 = (t: number): C[] => [
      { id: 'a', node: 'n1', attained: 40 * S + t, runningSince: 0 },
      { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 100 * S },
      { id: 'c', node: 'n2', attained: t, runningSince: 0 },
    ];
    const t0 = run(snap(0, two, cs2(0)));
    expect(t0.wakeAtMs).toBe(50 * S);
    const t50 = run(snap(50 * S, two, cs2(50 * S), { changed: [] }), {}, t0.state);
    const r = rank(t50.decisions);
    expect(r.partial).toBe(true);
    // n1: attained 90 s and 100 s → variance 25 s².
    expect(r.scores).toEqual({ n1: 25 });
  });

  it('a node reported changed that holds just what the policy left there is not revisited; one whose cap was reset is', () => {
    const n = node('n1', 1, 5120);
    const nc = { ...n, capacity: { memoryMB: 5 * 5120, vcores: 5 } };
    const t0 = run(
      snap(
        0,
        [n],
        [
          { id: 'a', node: 'n1', attained: 40 * S, runningSince: 0 },
          { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 10 * S },
        ],
      ),
    );
    const t50 = run(
      snap(
        50 * S,
        [nc],
        [
          { id: 'a', node: 'n1', attained: 90 * S, runningSince: 0 },
          { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 10 * S },
        ],
        { changed: [] },
      ),
      {},
      t0.state,
    );
    expect(targets(t50.decisions, 'suspendContainer')).toEqual(['a']);
    // The backend reports n1 changed: the swap just asked for.
    const swapped: C[] = [
      { id: 'a', node: 'n1', state: 'SUSPENDED', attained: 90 * S },
      { id: 'b', node: 'n1', attained: 11 * S, runningSince: 50 * S },
    ];
    const asPlanned = run(snap(51 * S, [nc], swapped, { changed: ['n1'] }), {}, structuredClone(t50.state));
    expect(asPlanned.decisions).toHaveLength(0);
    expect(asPlanned.wakeAtMs).toBe(100 * S);
    // Same, but the node's advertised capacity was reset by someone else: re-capped and rescored.
    const reset = run(snap(51 * S, [n], swapped, { changed: ['n1'] }), {}, structuredClone(t50.state));
    expect(kinds(reset.decisions, 'setNodeResource')).toHaveLength(1);
    expect(kinds(reset.decisions, 'rankNodes')).toHaveLength(1);
    expect(kinds(reset.decisions, 'suspendContainer')).toHaveLength(0);
  });

  it('caps every node at N+Q tasks by advertising N+Q vcores with memory scaled alike', () => {
    const out = run(snap(0, [node('n1', 4, 20480), node('n2', 4, 20480, { memoryMB: 40960, vcores: 8 })], []));
    const caps = kinds(out.decisions, 'setNodeResource');
    expect(caps).toHaveLength(1);
    expect(caps[0].rule).toBe('nodeCap');
    expect(caps[0].action).toEqual({ kind: 'setNodeResource', nodeId: 'n1', resource: { memoryMB: 40960, vcores: 8 } });
    expect(caps[0].reason).toContain('N+Q = 4+4');
    const q2 = kinds(run(snap(0, [node('n1', 4, 20480)], []), { queueSlots: 2 }).decisions, 'setNodeResource');
    expect(q2[0].action).toMatchObject({ resource: { memoryMB: 30720, vcores: 6 } });
    // The prototype's nodes: 5 vcores / 20 GB, 4 concurrent containers, at most 8 per node.
    const proto = kinds(run(snap(0, [node('n1', 5, 20480)], []), { coresPerNode: 4 }).decisions, 'setNodeResource');
    expect(proto[0].action).toMatchObject({ resource: { memoryMB: 40960, vcores: 8 } });
  });
});

describe('kairos state', () => {
  it('round-trips through JSON; decide updates the state it is given, so a copy keeps the old one', () => {
    expect(kairosPolicy.updatesStateInPlace).toBe(true);
    const n = node('n1', 1, 5120);
    const cs = (t: number): C[] => [
      { id: 'a', node: 'n1', attained: 40 * S + t, runningSince: 0 },
      { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 10 * S },
    ];
    const t0 = run(snap(0, [n], cs(0)), { tieBreak: 'random' });
    const frozen = JSON.stringify(t0.state);
    const viaJson = JSON.parse(frozen) as KairosState;
    const kept = copyStateFor(kairosPolicy, t0.state);
    const direct = run(snap(50 * S, [n], cs(50 * S), { changed: [] }), { tieBreak: 'random' }, kept);
    const restored = run(snap(50 * S, [n], cs(50 * S), { changed: [] }), { tieBreak: 'random' }, viaJson);
    expect(JSON.stringify(t0.state)).toBe(frozen);
    expect(JSON.stringify(kept)).not.toBe(frozen);
    expect(restored.decisions.map((d) => [d.action, d.rule, d.reason])).toEqual(direct.decisions.map((d) => [d.action, d.rule, d.reason]));
    expect(JSON.stringify(restored.state)).toBe(JSON.stringify(direct.state));
    expect(restored.wakeAtMs).toBe(direct.wakeAtMs);
    expect(JSON.parse(JSON.stringify(direct.state))).toEqual(JSON.parse(JSON.stringify(restored.state)));
  });

  it('takes over a state of an earlier layout (task records, in buckets or by node) and goes on from it', () => {
    const n = node('n1', 1, 5120);
    const cs = (t: number): C[] => [
      { id: 'a', node: 'n1', attained: 40 * S + t, runningSince: 0 },
      { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 10 * S },
    ];
    const t0 = run(snap(0, [n], cs(0)));
    const entry = stateNodes(t0.state).n1;
    const records = { id: 'n1', tasks: Object.values(entry.tasks), wake: entry.wake };
    const buckets = { buckets: [[records]], due: [], lastSweepMs: 0, rng: 1 };
    const byNode = { layout: 2, nodes: { n1: records }, size: 1, wakeTimes: [entry.wake], wakeIds: ['n1'], lastSweepMs: 0, rng: 1 };
    for (const old of [buckets, byNode]) {
      const out = run(snap(50 * S, [n], cs(50 * S), { changed: [] }), {}, JSON.parse(JSON.stringify(old)) as KairosState);
      expect(targets(out.decisions, 'suspendContainer')).toEqual(['a']);
      expect(targets(out.decisions, 'resumeContainer')).toEqual(['b']);
      expect(out.state.layout).toBe(STATE_LAYOUT);
      expect(Object.keys(stateNodes(out.state))).toEqual(['n1']);
      expect(stateNodes(out.state).n1.tasks.b).toMatchObject({ since: 50 * S, susp: null });
    }
    // Layouts 3 to 5 kept the wake-up index in the state (layouts 3 and 4 in a heap only, layout 5
    // in a queue and a heap); it is the runtime's now. Each goes on exactly as the current layout
    // does, as a live object or restored from JSON, and sheds the index.
    const direct = run(snap(50 * S, [n], cs(50 * S), { changed: [] }), {}, copyStateFor(kairosPolicy, t0.state));
    for (const layout of [3, 4, 5, 6] as const) {
      for (const viaJson of [false, true]) {
        const old = olderLayout(t0.state, layout);
        const out = run(snap(50 * S, [n], cs(50 * S), { changed: [] }), {}, (viaJson ? JSON.parse(JSON.stringify(old)) : old) as KairosState);
        expect(out.decisions.map((d) => [d.action, d.rule, d.reason])).toEqual(direct.decisions.map((d) => [d.action, d.rule, d.reason]));
        expect(out.wakeAtMs).toBe(direct.wakeAtMs);
        expect(out.state.layout).toBe(STATE_LAYOUT);
        expect(stateNodes(out.state)).toEqual(stateNodes(direct.state));
        expect(JSON.parse(JSON.stringify(out.state))).toEqual(JSON.parse(JSON.stringify(direct.state)));
      }
    }
  });

  it('visits the nodes due at the same time in id order, whatever order they were first seen in', () => {
    const n1 = node('n1', 1, 5120);
    const n2 = node('n2', 1, 5120);
    const cs = (t: number, on: string[]): C[] =>
      on.flatMap((n) => [
        { id: `a${n}`, node: n, attained: t, runningSince: 0 },
        { id: `b${n}`, node: n, state: 'SUSPENDED' as const, attained: 0 },
      ]);
    // n2 is seen first, n1 one cycle later; both quanta end at 50 s.
    const first = run(snap(0, [n2], cs(0, ['n2'])));
    const second = run(snap(0, [n1, n2], cs(0, ['n1', 'n2']), { changed: ['n1'] }), {}, first.state);
    const due = run(snap(50 * S, [n1, n2], cs(50 * S, ['n1', 'n2']), { changed: [] }), {}, second.state);
    const inOrder = due.decisions
      .filter((d) => d.action.kind === 'suspendContainer' || d.action.kind === 'resumeContainer')
      .map((d) => (d.action as { containerId: string }).containerId);
    expect(inOrder).toEqual(['an1', 'bn1', 'an2', 'bn2']);
  });

  it('a node listing a container the snapshot lacks is scheduled as if it did not list it', () => {
    // n1 holds a, b, c (one core). At 60 s it still lists b, whose container view is missing:
    // the visit works on the entry in place (same ids, same order) and must come out as the visit
    // of a node listing a and c only.
    const n = node('n1', 1, 5120);
    const cs = (t: number): C[] => [
      { id: 'a', node: 'n1', attained: 40 * S + t, runningSince: 0 },
      { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 20 * S },
      { id: 'c', node: 'n1', state: 'SUSPENDED', attained: 10 * S },
    ];
    const t0 = run(snap(0, [n], cs(0)));
    const withoutB = cs(60 * S).filter((c) => c.id !== 'b');
    const listed = snap(60 * S, [n], withoutB, { changed: ['n1'] });
    const n1 = listed.nodes.get('n1')!;
    const lacking: ClusterSnapshot = { ...listed, nodes: new Map([['n1', { ...n1, containerIds: ['a', 'b', 'c'] }]]) };
    const viaLacking = run(lacking, {}, copyStateFor(kairosPolicy, t0.state));
    const viaListed = run(listed, {}, copyStateFor(kairosPolicy, t0.state));
    expect(viaLacking.decisions.map((d) => [d.action, d.rule, d.reason])).toEqual(viaListed.decisions.map((d) => [d.action, d.rule, d.reason]));
    expect(stateNodes(viaLacking.state)).toEqual(stateNodes(viaListed.state));
    expect(Object.keys(stateNodes(viaLacking.state).n1.tasks)).toEqual(['a', 'c']);
    expect(targets(viaLacking.decisions, 'resumeContainer')).toEqual(['c']);
  });

  it('forgets finished containers and removed nodes', () => {
    const first = run(
      snap(
        0,
        [node('n1', 1, 5120), node('n2', 1, 5120)],
        [
          { id: 'a', node: 'n1', attained: 0 },
          { id: 'b', node: 'n1', state: 'SUSPENDED', attained: 0 },
          { id: 'c', node: 'n2', attained: 0 },
        ],
      ),
    );
    expect(Object.keys(stateNodes(first.state)).sort()).toEqual(['n1', 'n2']);
    const second = run(
      snap(2_000, [node('n1', 1, 5120)], [{ id: 'b', node: 'n1', state: 'SUSPENDED', attained: 0 }], { changed: ['n1', 'n2'] }),
      {},
      first.state,
    );
    expect(Object.keys(stateNodes(second.state))).toEqual(['n1']);
    expect(Object.keys(stateNodes(second.state).n1.tasks)).toEqual(['b']);
    expect(targets(second.decisions, 'resumeContainer')).toEqual(['b']);
    // n1 empties: its entry stays, with no task and no wake-up.
    const empty = run(snap(3_000, [node('n1', 1, 5120)], [], { changed: ['n1'] }), {}, second.state);
    expect(stateNodes(empty.state)).toEqual({ n1: { tasks: {}, wake: null } });
    expect(empty.wakeAtMs).toBeUndefined();
    const refilled = run(snap(4_000, [node('n1', 1, 5120)], [{ id: 'd', node: 'n1', attained: 0 }], { changed: ['n1'] }), {}, empty.state);
    expect(Object.keys(stateNodes(refilled.state).n1.tasks)).toEqual(['d']);
    // It is forgotten when it stops running.
    const lost = run(snap(5_000, [{ ...node('n1', 1, 5120), state: 'LOST' }], [], { changed: ['n1'] }), {}, refilled.state);
    expect(stateNodes(lost.state)).toEqual({});
    expect(Object.keys(lost.state.nodes)).toEqual([]);
  });
});

/** A copy of a current state in the form of an earlier layout: every wake-up item in the heap. */
function olderLayout(state: KairosState, layout: 3 | 4 | 5 | 6): Record<string, unknown> {
  // Up to layout 5 the state also held the wake-up index and each entry a number `ord`; up to
  // layout 6 a task had five figures (no count of suspensions).
  const copy = copyStateFor(kairosPolicy, state);
  for (const e of Object.values(copy.nodes)) e.t = e.t.filter((_, i) => i === 0 || (i - 1) % 6 !== 5);
  const ids = Object.keys(copy.nodes).sort();
  if (layout === 6) return { ...copy, layout };
  const nodes = Object.fromEntries(ids.map((id, ord) => [id, { ...copy.nodes[id], ord }]));
  const items = ids.flatMap((id, ord): [number, string, number][] => (Number.isNaN(copy.nodes[id].t[0]) ? [] : [[copy.nodes[id].t[0], id, ord]]));
  // A sorted list is a heap, and a queue.
  items.sort((a, b) => a[0] - b[0] || a[2] - b[2]);
  const inHeap = layout === 5 ? [] : items;
  const queued = layout === 5 ? items : [];
  return {
    ...copy,
    nodes,
    layout,
    size: ids.length,
    nextOrd: ids.length,
    ...(layout >= 4 ? { wakeOfOrd: ids.map((id) => copy.nodes[id].t[0]) } : {}),
    ...(layout === 5
      ? { queuedTimes: queued.map((x) => x[0]), queuedIds: queued.map((x) => x[1]), queuedOrds: queued.map((x) => x[2]), queueHead: 0, queueEnd: queued.length }
      : {}),
    wakeTimes: inHeap.map((x) => x[0]),
    wakeIds: inHeap.map((x) => x[1]),
    wakeOrds: inHeap.map((x) => x[2]),
  };
}
