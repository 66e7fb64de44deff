/** Kairos: a cycle looks only at the nodes that changed and the nodes whose deadline has come. */
import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot, ContainerView, NodeView } from '../../src/core/model.js';
import { res } from '../../src/core/resources.js';
import { buildSnapshot, defaultQueueTree } from '../../src/core/snapshot.js';
import * as fc from 'fast-check';
import type { Decision } from '../../src/core/actions.js';
import type { AnyPolicy } from '../../src/core/policy.js';
import { ChangeTracker } from '../../src/engine/change-tracking.js';
import { runStepsInline, type InlineMilpSolver, type SolveSteps } from '../../src/core/milp.js';
import { kairosParamsSchema, kairosPolicy, stateNodes, type KairosState } from '../../src/policies/kairos/index.js';
import { simulate } from '../../src/sim/simulate.js';
import { guarded } from './policy-fixtures.js';

const S = 1000;
const params = kairosParamsSchema.parse({});

interface C {
  id: string;
  node: string;
  state?: 'RUNNING' | 'SUSPENDED';
  attained: number;
  runningSince?: number;
}

const node = (id: string): NodeView => ({
  id,
  state: 'RUNNING',
  rack: '/r',
  capacity: res(5120, 1),
  physicalCapacity: res(5120, 1),
  used: res(0, 0),
  containerIds: [],
});

function snap(nowMs: number, nodes: NodeView[], cs: C[], changed?: string[]): ClusterSnapshot {
  const containers: ContainerView[] = cs.map((c) => ({
    id: c.id,
    appId: 'app1',
    nodeId: c.node,
    resource: res(1024, 1),
    state: c.state ?? 'RUNNING',
    startedAtMs: c.runningSince ?? 0,
    attainedServiceMs: c.attained,
    runningSinceMs: c.runningSince,
  }));
  const withIds = nodes.map((n) => ({ ...n, containerIds: containers.filter((c) => c.nodeId === n.id).map((c) => c.id) }));
  const s = buildSnapshot({ nowMs, nodes: withIds, apps: [], containers, rootQueue: defaultQueueTree() });
  return changed ? { ...s, changedNodeIds: new Set(changed) } : s;
}

describe('kairos cycles are proportional to what changed', () => {
  // 200 one-core nodes, each with a running task and a waiting one; node i's task started running
  // at i × 100 ms, so the quantum ends (50 s later) spread over 20 s. First cycle at 20 s.
  const nodes = Array.from({ length: 200 }, (_, i) => node(`n${String(i).padStart(3, '0')}`));
  const tasks = (t: number): C[] =>
    nodes.flatMap((n, i) => [
      { id: `${n.id}-r`, node: n.id, attained: 40 * S + t - i * 100, runningSince: i * 100 },
      { id: `${n.id}-w`, node: n.id, state: 'SUSPENDED' as const, attained: 1 * S },
    ]);
  const first = kairosPolicy.decide({
    snapshot: snap(20 * S, nodes, tasks(20 * S)),
    params,
    state: kairosPolicy.initialState(params),
    tracking: new ChangeTracker(),
  });
  // Each case starts from a copy of that state (decide updates the state it is given), with a
  // tracking of its own, rebuilt from the copy.

  it('a cycle where one node changed reads only that node and its containers', () => {
    const g = guarded(snap(21 * S, nodes, tasks(21 * S), ['n007']));
    const out = kairosPolicy.decide({ snapshot: g.snapshot, params, state: structuredClone(first.state) as KairosState, tracking: new ChangeTracker() });
    expect([...g.nodes]).toEqual(['n007']);
    expect([...g.containers].sort()).toEqual(['n007-r', 'n007-w']);
    const rank = out.decisions.find((d) => d.action.kind === 'rankNodes')!.action as { scores: Record<string, number>; partial: boolean };
    expect(rank.partial).toBe(true);
    expect(Object.keys(rank.scores)).toEqual(['n007']);
    // The earliest quantum end is n000's (50 s).
    expect(out.wakeAtMs).toBe(50 * S);
  });

  it('at a quantum end only the nodes due by then are read, and the next wake is the next deadline', () => {
    // At 51 s the quanta of n000..n010 have ended (50.0 s .. 51.0 s).
    const g = guarded(snap(51 * S, nodes, tasks(51 * S), []));
    const out = kairosPolicy.decide({ snapshot: g.snapshot, params, state: structuredClone(first.state) as KairosState, tracking: new ChangeTracker() });
    const due = nodes.slice(0, 11).map((n) => n.id);
    expect([...g.nodes].sort()).toEqual(due);
    const resumed = out.decisions.filter((d) => d.action.kind === 'resumeContainer').map((d) => (d.action as { nodeId: string }).nodeId);
    expect(resumed.sort()).toEqual(due);
    // n011's quantum ends at 51.1 s, acted on at the 51.5 s tick.
    expect(out.wakeAtMs).toBe(51.5 * S);
  });

  it('a cycle with nothing changed and nothing due reads no node at all', () => {
    const g = guarded(snap(30 * S, nodes, tasks(30 * S), []));
    const out = kairosPolicy.decide({ snapshot: g.snapshot, params, state: structuredClone(first.state) as KairosState, tracking: new ChangeTracker() });
    expect(g.nodes.size).toBe(0);
    expect(g.containers.size).toBe(0);
    expect(out.decisions).toHaveLength(0);
    expect(out.wakeAtMs).toBe(50 * S);
  });

  it('a sweep restores a lost cap and forgets the nodes that left or stopped running', () => {
    const p = kairosParamsSchema.parse({ sweepIntervalMs: 1000 });
    const capped = nodes.map((n) => ({ ...n, capacity: res(5120 * 5, 5) }));
    const tracking = new ChangeTracker();
    const before = kairosPolicy.decide({ snapshot: snap(20 * S, capped, tasks(20 * S)), params: p, state: kairosPolicy.initialState(p), tracking });
    expect(Object.keys(stateNodes(before.state as KairosState))).toHaveLength(200);
    // At 21 s (a sweep is due): n005 has left, n006 is lost, n008 advertises its physical size again.
    const after = capped
      .filter((n) => n.id !== 'n005')
      .map((n): NodeView => (n.id === 'n006' ? { ...n, state: 'LOST' } : n.id === 'n008' ? { ...n, capacity: res(5120, 1) } : n));
    const out = kairosPolicy.decide({
      snapshot: snap(
        21 * S,
        after,
        tasks(21 * S).filter((c) => c.node !== 'n005'),
        [],
      ),
      params: p,
      state: before.state,
      tracking,
    });
    const known = Object.keys(stateNodes(out.state as KairosState));
    expect(known).toHaveLength(198);
    expect(known).not.toContain('n005');
    expect(known).not.toContain('n006');
    const caps = out.decisions.filter((d) => d.action.kind === 'setNodeResource').map((d) => d.action);
    expect(caps).toEqual([{ kind: 'setNodeResource', nodeId: 'n008', resource: res(5120 * 5, 5) }]);
  });
});

describe('kairos wake-ups', () => {
  it('visits every node whose wake-up has come, and asks for the earliest wake-up of any node (random cycles)', () => {
    // 40 one-core nodes with tasks arriving, finishing, and running or waiting as decided; random
    // steps of 0.1 to 60 s: wake-ups move later and earlier (quantum ends, starvation deadlines),
    // and many are left behind in the index by a node's later visit.
    // (No sweep: the cycles after the first read only the nodes they visit.)
    const p = kairosParamsSchema.parse({ quantumMs: 20 * S, monitorIntervalMs: 0, starvationQuanta: 2, sweepIntervalMs: 1e15 });
    let seed = 7;
    const rnd = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const ns = Array.from({ length: 40 }, (_, i) => node(`m${String(i).padStart(2, '0')}`));
    let tasks: C[] = [];
    let nextId = 0;
    let now = 0;
    let state = kairosPolicy.initialState(p) as KairosState;
    let last: { wakeAtMs?: number } = {};
    let dueVisits = 0;
    const tracking = new ChangeTracker();
    for (let cycle = 0; cycle < 2000; cycle++) {
      const dt = cycle === 0 ? 0 : rnd() < 0.5 ? 100 + Math.floor(rnd() * 2000) : Math.floor(rnd() * 60 * S);
      now += dt;
      for (const t of tasks) if (t.state !== 'SUSPENDED') t.attained += dt;
      const changed = new Set<string>();
      // A few tasks finish; a few arrive (at most three per node).
      tasks = tasks.filter((t) => (rnd() < 0.04 ? (changed.add(t.node), false) : true));
      for (let k = 0; k < 3; k++) {
        const n = ns[Math.floor(rnd() * ns.length)];
        if (tasks.filter((t) => t.node === n.id).length >= 3) continue;
        tasks.push({ id: `t${nextId++}`, node: n.id, attained: 0, runningSince: now });
        changed.add(n.id);
      }
      const before = stateNodes(state);
      const due = Object.keys(before).filter((id) => before[id].wake !== null && (before[id].wake as number) <= now);
      const plain = snap(now, ns, tasks, cycle === 0 ? undefined : [...changed]);
      const g = cycle === 0 ? { snapshot: plain, nodes: new Set(ns.map((n) => n.id)) } : guarded(plain);
      // Every seventh cycle starts from the state as stored (JSON) and restored: the wake-ups
      // are rebuilt from it.
      const given = cycle % 7 === 3 ? (JSON.parse(JSON.stringify(state)) as KairosState) : state;
      const out = kairosPolicy.decide({ snapshot: g.snapshot, params: p, state: given, tracking });
      state = out.state as KairosState;
      last = out;
      for (const id of due) expect(g.nodes.has(id), `${id} due at ${before[id].wake} not visited at ${now}`).toBe(true);
      dueVisits += due.length;
      const wakes = Object.values(stateNodes(state))
        .map((e) => e.wake)
        .filter((w): w is number => w !== null);
      expect(out.wakeAtMs).toBe(wakes.length ? Math.min(...wakes) : undefined);
      // The cluster does as decided.
      for (const d of out.decisions) {
        const a = d.action;
        if (a.kind !== 'suspendContainer' && a.kind !== 'resumeContainer') continue;
        const t = tasks.find((x) => x.id === a.containerId)!;
        t.state = a.kind === 'suspendContainer' ? 'SUSPENDED' : 'RUNNING';
        if (t.state === 'RUNNING') t.runningSince = now;
      }
    }
    expect(dueVisits).toBeGreaterThan(2000);
    expect(last.wakeAtMs).toBeDefined();
  });
});

/** Decisions as plain data, reasons included. */
const plain = (ds: readonly Decision[]) => ds.map((d) => ({ action: d.action, rule: d.rule, reason: d.reason }));

describe('kairos incremental cycles decide as a full pass would', () => {
  /**
   * Runs Kairos in the simulator; at every cycle the same snapshot also goes to Kairos as a full
   * pass (a copy of the state with no sweep yet, so every node is visited and scored, and a
   * tracking of its own). Both must decide the same suspensions, resumes and caps, with the same
   * reasons, score the nodes they both score alike, and ask for the same wake-up. Every
   * `reloadEvery`-th cycle the incremental side is given its state as stored and loaded (JSON), so
   * that its wake-ups are rebuilt. The monitor tick is 0: with a tick, a due node waits for it by
   * design, which a full pass at another instant does not.
   */
  function compare(opts: { params: Record<string, unknown>; seed: number; jobs: number; workload: string; reloadEvery?: number }) {
    let cycles = 0;
    let incremental = 0;
    const rules = new Map<string, number>();
    const checked: AnyPolicy = {
      ...kairosPolicy,
      name: 'kairos-checked',
      decide(input) {
        const st = input.state as KairosState;
        const full = kairosPolicy.decide({ ...input, state: { ...structuredClone(st), lastSweepMs: null }, tracking: new ChangeTracker() });
        const reload = opts.reloadEvery !== undefined && cycles % opts.reloadEvery === opts.reloadEvery - 1;
        const out = kairosPolicy.decide(reload ? { ...input, state: JSON.parse(JSON.stringify(st)) as KairosState } : input);
        cycles++;
        const isRank = (d: Decision) => d.action.kind === 'rankNodes';
        expect(plain(out.decisions.filter((d) => !isRank(d)))).toEqual(plain(full.decisions.filter((d) => !isRank(d))));
        const rank = out.decisions.find(isRank)?.action as { scores: Record<string, number>; partial: boolean } | undefined;
        const fullRank = full.decisions.find(isRank)?.action as { scores: Record<string, number> } | undefined;
        if (rank !== undefined) {
          if (rank.partial) incremental++;
          for (const [id, score] of Object.entries(rank.scores)) expect(score, `score of ${id}`).toBe(fullRank?.scores[id]);
        }
        expect(out.wakeAtMs).toBe(full.wakeAtMs);
        for (const d of out.decisions) rules.set(d.rule, (rules.get(d.rule) ?? 0) + 1);
        return out;
      },
    };
    simulate({ workload: opts.workload, jobs: opts.jobs, seed: opts.seed, policy: checked, params: { monitorIntervalMs: 0, ...opts.params } });
    return { cycles, incremental, rules };
  }

  it('on the paper workload', () => {
    // The authors' job sequence (its first 40 jobs), with the guard of the paper's simulations on
    // (it is off by default) so that its rule is exercised too.
    const r = compare({ params: { starvationQuanta: 3 }, seed: 1, jobs: 40, workload: 'kairos-paper', reloadEvery: 25 });
    expect(r.incremental).toBeGreaterThan(r.cycles / 2);
    for (const rule of ['preemptOnArrival', 'swapOnQuantumEnd', 'starvationGuard', 'resumeOnFreeCore', 'nodeCap', 'dispatchRank'])
      expect(r.rules.get(rule), rule).toBeGreaterThan(0);
  });

  it.each([
    {
      what: "the head's guard and the kairos-plus rules by task",
      params: { preemptionsAllowed: 3, jobAgeLimitMs: 600_000, lasLimitMs: 100_000, oldTaskCores: 1 },
      seed: 1,
      rules: ['preemptOnArrival', 'swapOnQuantumEnd', 'resumeOnFreeCore'],
    },
    {
      what: 'LAS by job (kairos-plus)',
      params: { jobServiceRank: true, jobAgeLimitMs: 400_000, lasLimitMs: 100_000, oldTaskCores: 1 },
      seed: 2,
      rules: ['preemptOnArrival', 'rankByJobService', 'resumeOnFreeCore'],
    },
  ])('with $what', ({ params, seed, rules }) => {
    const r = compare({ params, seed, jobs: 40, workload: 'kairos-paper', reloadEvery: 25 });
    expect(r.incremental).toBeGreaterThan(r.cycles / 2);
    for (const rule of rules) expect(r.rules.get(rule), rule).toBeGreaterThan(0);
  });

  it('on random workloads, parameters and reloads (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          seed: fc.integer({ min: 1, max: 10_000 }),
          jobs: fc.integer({ min: 5, max: 25 }),
          workload: fc.constantFrom('kairos-heavy', 'kairos-uniform'),
          quantumMs: fc.constantFrom(5_000, 20_000, 50_000),
          queueSlots: fc.integer({ min: 0, max: 6 }),
          starvationQuanta: fc.integer({ min: 0, max: 4 }),
          tieBreak: fc.constantFrom('variance', 'stddev', 'sum'),
          reloadEvery: fc.option(fc.integer({ min: 2, max: 40 }), { nil: undefined }),
        }),
        ({ seed, jobs, workload, reloadEvery, ...params }) => {
          const r = compare({ params, seed, jobs, workload, reloadEvery });
          expect(r.cycles).toBeGreaterThan(0);
        },
      ),
      { numRuns: 12, seed: 16 },
    );
  });
});

describe('kairos in steps (the live engine lets the event loop run between visits)', () => {
  const noSolve: InlineMilpSolver = () => {
    throw new Error('kairos asked for a solve');
  };
  /** Runs the steps, counting the turns they offer. */
  function stepped(steps: SolveSteps<ReturnType<typeof kairosPolicy.decide>>): { out: ReturnType<typeof kairosPolicy.decide>; turns: number } {
    let turns = 0;
    const counting: SolveSteps<ReturnType<typeof kairosPolicy.decide>> = {
      ...steps,
      next: (v) => {
        const r = steps.next(v as never);
        if (!r.done) turns++;
        return r;
      },
      [Symbol.iterator]() {
        return this;
      },
    };
    return { out: runStepsInline(counting, noSolve), turns };
  }

  it('a cycle over 200 nodes takes a turn and decides what decide does', () => {
    const nodes = Array.from({ length: 200 }, (_, i) => node(`n${String(i).padStart(3, '0')}`));
    const cs: C[] = nodes.flatMap((n, i) => [
      { id: `${n.id}-r`, node: n.id, attained: 60 * S - i * 100, runningSince: i * 100 },
      { id: `${n.id}-w`, node: n.id, state: 'SUSPENDED' as const, attained: 1 * S },
    ]);
    const input = () => ({ snapshot: snap(60 * S, nodes, cs), params, state: kairosPolicy.initialState(params), tracking: new ChangeTracker() });
    const whole = kairosPolicy.decide(input());
    const { out, turns } = stepped(kairosPolicy.decideInSteps!(input()));
    expect(turns).toBeGreaterThan(0);
    expect(plain(out.decisions)).toEqual(plain(whole.decisions));
    expect(JSON.parse(JSON.stringify(out.state))).toEqual(JSON.parse(JSON.stringify(whole.state)));
    expect(out.wakeAtMs).toBe(whole.wakeAtMs);
  });

  it('a replay decided in steps ends as the one decided in one go', () => {
    const inSteps: AnyPolicy = { ...kairosPolicy, decide: (input) => stepped(kairosPolicy.decideInSteps!(input as never)).out };
    const opts = { workload: 'kairos-paper', jobs: 40, seed: 3, params: { monitorIntervalMs: 0 } };
    const a = simulate({ ...opts, policy: kairosPolicy });
    const b = simulate({ ...opts, policy: inSteps });
    expect(a.jobs).toBe(40);
    expect(b.perJob.map((j) => j.jctS)).toEqual(a.perJob.map((j) => j.jctS));
    expect(b.actions).toEqual(a.actions);
  });
});
