/** Big-C: a cycle looks at the nodes that changed, and decides as a full pass over every node would. */
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/core/actions.js';
import type { AnyPolicy } from '../../src/core/policy.js';
import { res } from '../../src/core/resources.js';
import * as fc from 'fast-check';
import { ChangeTracker } from '../../src/engine/change-tracking.js';
import { APP_TOTALS, bigcParamsSchema, bigcPolicy, NODE_TOTALS, type BigcState } from '../../src/policies/bigc/index.js';
import { simulate } from '../../src/sim/simulate.js';
import { app, guarded, kinds, node, snap, targets, type C } from './policy-fixtures.js';

const est = (ms: number) => ({ 'schedbrain.estimate-ms': String(ms) });

/** Decisions as plain data, reasons included. */
const plain = (ds: Decision[]) => ds.map((d) => ({ action: d.action, rule: d.rule, reason: d.reason }));
const sortedEntries = (o: Record<string, number>) => Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1));

describe('bigc cycles are proportional to what changed', () => {
  const params = bigcParamsSchema.parse({});
  // 200 one-core nodes, each running a task of the long job L (n000's the oldest).
  const ids = Array.from({ length: 200 }, (_, i) => `n${String(i).padStart(3, '0')}`);
  const longs: C[] = ids.map((id, i) => ({ id: `l${id.slice(1)}`, node: id, app: 'L', startedAt: i }));
  const apps = (shortPending: number) => [
    app('L', { tags: est(500_000) }),
    app('S', { tags: est(10_000), priority: 10, pendingContainers: shortPending, pendingContainerResource: res(5120, 1) }),
  ];
  const nodes = (over: Record<string, ReturnType<typeof node>> = {}) => ids.map((id) => over[id] ?? node(id, 1, 5120));
  const tracking = new ChangeTracker();

  it('a cycle where one node changed reads only that node and its containers', () => {
    // Full pass (first cycle): a short task waits, the newest long task (on n199) is suspended
    // and n199 advertises its room.
    const first = bigcPolicy.decide({
      snapshot: snap(10_000, nodes(), longs, { apps: apps(1), changed: [], changedApps: [] }),
      params,
      state: bigcPolicy.initialState(params),
      tracking,
    });
    expect(targets(first.decisions, 'suspendContainer')).toEqual(['l199']);
    expect(kinds(first.decisions, 'setNodeResource').map((d) => d.action)).toEqual([
      { kind: 'setNodeResource', nodeId: 'n199', resource: { memoryMB: 10240, vcores: 2 } },
    ]);
    let state: BigcState = first.state;

    // The suspension and the new capacity applied, the short task placed on n199.
    const n199 = node('n199', 1, 5120, res(10240, 2));
    const placed: C[] = [...longs.slice(0, 199), { ...longs[199], state: 'SUSPENDED' }, { id: 's1', node: 'n199', app: 'S', startedAt: 10_000 }];
    let g = guarded(snap(11_000, nodes({ n199 }), placed, { apps: apps(0), changed: ['n199'], changedApps: ['S'] }));
    let out = bigcPolicy.decide({ snapshot: g.snapshot, params, state, tracking });
    expect(out.decisions).toHaveLength(0);
    expect([...g.nodes]).toEqual(['n199']);
    expect([...g.apps]).toEqual(['S']);
    expect([...g.containers].every((c) => c === 'l199' || c === 's1')).toBe(true);
    state = out.state;

    // The short task done: l199 resumes and n199 goes back to its physical capacity.
    const done = placed.filter((c) => c.id !== 's1');
    g = guarded(snap(20_000, nodes({ n199 }), done, { apps: apps(0), changed: ['n199'], changedApps: ['S'] }));
    out = bigcPolicy.decide({ snapshot: g.snapshot, params, state, tracking });
    expect(targets(out.decisions, 'resumeContainer')).toEqual(['l199']);
    expect(kinds(out.decisions, 'setNodeResource').map((d) => d.action)).toEqual([
      { kind: 'setNodeResource', nodeId: 'n199', resource: { memoryMB: 5120, vcores: 1 } },
    ]);
    expect([...g.nodes]).toEqual(['n199']);
    expect(out.state.suspendedAtMs).toEqual({});
    state = out.state;

    // Resumed as asked, and a task done on n042: only those two nodes are read.
    const later = [...longs.filter((c) => c.id !== 'l042')];
    g = guarded(snap(30_000, nodes(), later, { apps: apps(0), changed: ['n042', 'n199'], changedApps: ['L'] }));
    out = bigcPolicy.decide({ snapshot: g.snapshot, params, state, tracking });
    expect(out.decisions).toHaveLength(0);
    expect([...g.nodes].sort()).toEqual(['n042', 'n199']);
    state = out.state;

    // Someone else raises n010's capacity: it is set back, and asked again while it stays so.
    const n010 = node('n010', 1, 5120, res(15360, 3));
    const setBack = [{ kind: 'setNodeResource', nodeId: 'n010', resource: { memoryMB: 5120, vcores: 1 } }];
    for (const [t, changed] of [
      [40_000, ['n010']],
      [41_000, []],
    ] as const) {
      g = guarded(snap(t, nodes({ n010 }), later, { apps: apps(0), changed: [...changed], changedApps: [] }));
      out = bigcPolicy.decide({ snapshot: g.snapshot, params, state, tracking });
      expect(out.decisions.map((d) => d.action)).toEqual(setBack);
      expect([...g.nodes]).toEqual(['n010']);
      state = out.state;
    }
  });

  it('makes a full pass when the backend cannot say what changed, and does not keep the figures then', () => {
    const unsaid = new ChangeTracker();
    bigcPolicy.decide({ snapshot: snap(10_000, nodes(), longs, { apps: apps(0) }), params, state: bigcPolicy.initialState(params), tracking: unsaid });
    expect(unsaid.kept(NODE_TOTALS)).toBeUndefined();
    const kept = bigcPolicy.decide({
      snapshot: snap(10_000, nodes(), longs, { apps: apps(0), changed: [] }),
      params,
      state: bigcPolicy.initialState(params),
      tracking,
    });
    expect(tracking.kept(NODE_TOTALS)?.totalCores).toBe(200);
    // The state holds no figures: a state restored from JSON (or one the tracking was not handed
    // over with), or other parameters, build them again (a full pass).
    expect(Object.keys(kept.state).sort()).toEqual(['lastScanMs', 'suspendedAtMs']);
    const restored = JSON.parse(JSON.stringify(kept.state)) as BigcState;
    expect(() =>
      bigcPolicy.decide({
        snapshot: guarded(snap(11_000, nodes(), longs, { apps: apps(0), changed: ['n001'] })).snapshot,
        params,
        state: restored,
        tracking: new ChangeTracker(),
      }),
    ).toThrow('scanned every entry');
    const other = bigcParamsSchema.parse({ shortSharePct: 90 });
    expect(() =>
      bigcPolicy.decide({
        snapshot: guarded(snap(11_000, nodes(), longs, { apps: apps(0), changed: ['n001'] })).snapshot,
        params: other,
        state: kept.state,
        tracking,
      }),
    ).toThrow('scanned every entry');
    // A state of the layout that kept the figures in it goes on, and sheds them.
    const older = {
      ...JSON.parse(JSON.stringify(kept.state)),
      nodeFigures: { params: '{}', size: 200, nodes: {} },
      appFigures: { params: '{}', apps: {} },
    } as BigcState;
    const goesOn = bigcPolicy.decide({
      snapshot: snap(11_000, nodes(), longs, { apps: apps(0), changed: ['n001'], changedApps: [] }),
      params,
      state: older,
      tracking: new ChangeTracker(),
    });
    expect(goesOn.decisions).toEqual([]);
    expect(Object.keys(goesOn.state).sort()).toEqual(['lastScanMs', 'suspendedAtMs']);
  });
});

describe('bigc scans for unknown suspended containers only when a count shows one', () => {
  const params = bigcParamsSchema.parse({});
  const ids = ['n0', 'n1', 'n2', 'n3'];
  const nodes = () => ids.map((id) => node(id, 1, 5120));
  const longs: C[] = ids.map((id, i) => ({ id: `l${i}`, node: id, app: 'L', startedAt: i }));
  const apps = [app('L', { tags: est(500_000) })];
  /** Listing the containers or the applications throws; the nodes may be listed (a due scan counts on every node). */
  const containersGuarded = (plainSnap: ReturnType<typeof snap>) => {
    const g = guarded(plainSnap);
    return { ...g, snapshot: { ...g.snapshot, nodes: plainSnap.nodes } };
  };

  it('a due scan with nothing unknown lists no container; one that finds a node holding more makes the scan', () => {
    const tracking = new ChangeTracker();
    const first = bigcPolicy.decide({
      snapshot: snap(0, nodes(), longs, { apps, changed: [], changedApps: [] }),
      params,
      state: bigcPolicy.initialState(params),
      tracking,
    });
    expect(first.state.lastScanMs).toBe(0);
    let state = first.state;

    // 61 s later a scan is due; every node holds the suspended containers known (none).
    let g = containersGuarded(snap(61_000, nodes(), longs, { apps, changed: [], changedApps: [] }));
    const quiet = bigcPolicy.decide({ snapshot: g.snapshot, params, state, tracking });
    expect(quiet.decisions).toEqual([]);
    expect(quiet.state).toBe(state);
    expect(quiet.state.lastScanMs).toBe(61_000);
    state = quiet.state;

    // l2 suspended without n2 being reported (a suspension that landed late): the count shows it
    // at the next due scan, which lists every container and finds it, and l2 resumes into its
    // free core.
    const late = longs.map((c) => (c.id === 'l2' ? { ...c, state: 'SUSPENDED' as const } : c));
    g = containersGuarded(snap(100_000, nodes(), late, { apps, changed: [], changedApps: [] }));
    expect(bigcPolicy.decide({ snapshot: g.snapshot, params, state, tracking }).state.lastScanMs).toBe(61_000);
    g = containersGuarded(snap(122_000, nodes(), late, { apps, changed: [], changedApps: [] }));
    expect(() => bigcPolicy.decide({ snapshot: g.snapshot, params, state, tracking })).toThrow('scanned every entry');
    const scanned = bigcPolicy.decide({ snapshot: snap(122_000, nodes(), late, { apps, changed: [], changedApps: [] }), params, state, tracking });
    expect(targets(scanned.decisions, 'resumeContainer')).toEqual(['l2']);
    expect(scanned.state.lastScanMs).toBe(122_000);
  });
});

describe('bigc keeps its application totals up to date from the applications that changed', () => {
  // No share guaranteed to short jobs: the backlog waits without preempting (choosing victims
  // looks at every node, which is not what these cycles are about).
  const params = bigcParamsSchema.parse({ shortSharePct: 0 });
  // Four one-core nodes busy with the long job L; a backlog of 500 short jobs waiting.
  const ids = ['n0', 'n1', 'n2', 'n3'];
  const nodes = () => ids.map((id) => node(id, 1, 5120));
  const longs: C[] = ids.map((id, i) => ({ id: `l${i}`, node: id, app: 'L', startedAt: i }));
  const queued = Array.from({ length: 500 }, (_, i) =>
    app(`S${String(i).padStart(3, '0')}`, { state: 'ACCEPTED', tags: est(10_000), priority: 10, pendingContainers: 1, pendingContainerResource: res(5120, 1) }),
  );
  const long = app('L', { tags: est(500_000) });
  /** The totals a full pass computes for the same snapshot. */
  const fullTotals = (s: ReturnType<typeof snap>) => {
    const own = new ChangeTracker();
    bigcPolicy.decide({ snapshot: { ...s, changedAppIds: new Set<string>() }, params, state: bigcPolicy.initialState(params), tracking: own });
    const f = own.kept(APP_TOTALS)!;
    return { shortCores: f.shortCores, longCores: f.longCores, shortPending: f.shortPending, size: f.size };
  };
  /** A guarded snapshot, and the plain one for a full pass to compare with. */
  const both = (...args: Parameters<typeof snap>) => {
    const plainSnap = snap(...args);
    return { ...guarded(plainSnap), plainSnap };
  };
  /** The application totals the tracking keeps for `st` (the state of the cycle just made). */
  const totals = (st: BigcState, tracking: ChangeTracker) => {
    expect(tracking.follows(st)).toBe(true);
    const f = tracking.kept(APP_TOTALS)!;
    return { shortCores: f.shortCores, longCores: f.longCores, shortPending: f.shortPending, size: f.size };
  };

  it('reads only the applications that changed and those it asked a priority change for', () => {
    let apps = [long, ...queued];
    const tracking = new ChangeTracker();
    const first = bigcPolicy.decide({
      snapshot: snap(0, nodes(), longs, { apps, changed: [], changedApps: [] }),
      params,
      state: bigcPolicy.initialState(params),
      tracking,
    });
    expect(totals(first.state, tracking)).toEqual({ shortCores: 0, longCores: 4, shortPending: 500, size: 501 });
    let state = first.state;

    // A new short job arrives at the default priority: it is raised, and read again at the next
    // cycle, reported changed or not, until it has the priority asked for.
    const fresh = app('S500', { state: 'ACCEPTED', tags: est(10_000), priority: 0, pendingContainers: 2, pendingContainerResource: res(5120, 1) });
    apps = [long, ...queued, fresh];
    let g = both(1_000, nodes(), longs, { apps, changed: [], changedApps: ['S500'] });
    let out = bigcPolicy.decide({ snapshot: g.snapshot, params, state, tracking });
    expect(out.decisions.map((d) => d.action)).toEqual([{ kind: 'setAppPriority', appId: 'S500', priority: 10 }]);
    expect([...g.apps]).toEqual(['S500']);
    expect(totals(out.state, tracking)).toEqual(fullTotals(g.plainSnap));
    state = out.state;

    // Not applied yet (a decision delay): asked again, though nothing was reported.
    g = both(2_000, nodes(), longs, { apps, changed: [], changedApps: [] });
    out = bigcPolicy.decide({ snapshot: g.snapshot, params, state, tracking });
    expect(out.decisions.map((d) => d.action)).toEqual([{ kind: 'setAppPriority', appId: 'S500', priority: 10 }]);
    expect([...g.apps]).toEqual(['S500']);
    state = out.state;

    // Applied, and S007 finished while L lost a container: S500 is read once more, then not at all.
    apps = [long, ...queued.filter((a) => a.id !== 'S007'), { ...fresh, priority: 10 }];
    const fewer = longs.slice(1);
    g = both(3_000, nodes(), fewer, { apps, changed: ['n0'], changedApps: ['S500', 'S007', 'L'] });
    out = bigcPolicy.decide({ snapshot: g.snapshot, params, state, tracking });
    expect(out.decisions.filter((d) => d.action.kind === 'setAppPriority')).toEqual([]);
    expect([...g.apps].sort()).toEqual(['L', 'S007', 'S500']);
    expect(totals(out.state, tracking)).toEqual({ shortCores: 0, longCores: 3, shortPending: 501, size: 501 });
    expect(totals(out.state, tracking)).toEqual(fullTotals(g.plainSnap));
    state = out.state;

    g = both(4_000, nodes(), fewer, { apps, changed: [], changedApps: [] });
    bigcPolicy.decide({ snapshot: g.snapshot, params, state, tracking });
    expect([...g.apps]).toEqual([]);
  });

  it('walks every application when the figures do not count the snapshot, the backend cannot say, or the figures were restored', () => {
    const apps = [long, ...queued];
    const tracking = new ChangeTracker();
    const kept = bigcPolicy.decide({
      snapshot: snap(0, nodes(), longs, { apps, changed: [], changedApps: [] }),
      params,
      state: bigcPolicy.initialState(params),
      tracking,
    }).state;
    // An application the backend did not report: the count is off, so every application is
    // walked again, and the new one gets its priority.
    const unreported = app('S900', { state: 'ACCEPTED', tags: est(10_000), pendingContainers: 3, pendingContainerResource: res(5120, 1) });
    const s = snap(1_000, nodes(), longs, { apps: [...apps, unreported], changed: [], changedApps: [] });
    const out = bigcPolicy.decide({ snapshot: s, params, state: JSON.parse(JSON.stringify(kept)) as BigcState, tracking: new ChangeTracker() });
    expect(out.decisions.map((d) => d.action)).toEqual([{ kind: 'setAppPriority', appId: 'S900', priority: 10 }]);
    const again = bigcPolicy.decide({ snapshot: s, params, state: kept, tracking });
    expect(again.decisions.map((d) => d.action)).toEqual([{ kind: 'setAppPriority', appId: 'S900', priority: 10 }]);
    expect(totals(again.state, tracking)).toEqual(fullTotals(s));
    expect(totals(again.state, tracking).shortPending).toBe(503);
    // Restored from JSON or other parameters: a full walk (which the guard refuses).
    const restored = JSON.parse(JSON.stringify(again.state)) as BigcState;
    const guardedSnap = () => guarded(snap(2_000, nodes(), longs, { apps: [...apps, unreported], changed: [], changedApps: [] })).snapshot;
    expect(() => bigcPolicy.decide({ snapshot: guardedSnap(), params, state: restored, tracking: new ChangeTracker() })).toThrow('scanned every entry');
    expect(() =>
      bigcPolicy.decide({ snapshot: guardedSnap(), params: bigcParamsSchema.parse({ shortCutoffMs: 5_000 }), state: again.state, tracking }),
    ).toThrow('scanned every entry');
    expect(() => bigcPolicy.decide({ snapshot: guardedSnap(), params, state: again.state, tracking })).not.toThrow();
    // No changed applications given: the totals are not kept.
    bigcPolicy.decide({ snapshot: snap(3_000, nodes(), longs, { apps, changed: [] }), params, state: again.state, tracking });
    expect(tracking.kept(APP_TOTALS)).toBeUndefined();
  });
});

describe('bigc incremental cycles decide as a full pass would', () => {
  /**
   * Runs Big-C in the simulator; at every cycle, the same snapshot also goes to Big-C with a
   * state of its own and a tracking of its own (a full pass over every node and every
   * application, with the same suspended containers known), and both must decide alike, with the
   * same reasons. Every `reloadEvery`-th cycle the incremental side is given its state as stored
   * and loaded (JSON), so that its totals are rebuilt there.
   */
  function compare(opts: { params: Record<string, unknown>; decisionDelayMs?: number; seed: number; jobs?: number; reloadEvery?: number }) {
    let cycles = 0;
    let incremental = 0;
    let appsKept = 0;
    const rules = new Map<string, number>();
    const checked: AnyPolicy = {
      ...bigcPolicy,
      name: 'bigc-checked',
      decide(input) {
        const st = input.state as BigcState;
        const fullInput = { ...input, state: { suspendedAtMs: { ...st.suspendedAtMs }, lastScanMs: st.lastScanMs }, tracking: new ChangeTracker() };
        const full = bigcPolicy.decide(fullInput);
        const reload = opts.reloadEvery !== undefined && cycles % opts.reloadEvery === opts.reloadEvery - 1;
        const given = reload ? { ...input, state: JSON.parse(JSON.stringify(st)) as BigcState } : input;
        const keptApps = input.tracking!.kept(APP_TOTALS);
        const out = bigcPolicy.decide(given);
        cycles++;
        if (out.state === given.state) incremental++;
        if (!reload && keptApps !== undefined && input.tracking!.kept(APP_TOTALS) === keptApps) appsKept++;
        expect(plain(out.decisions)).toEqual(plain(full.decisions));
        expect(sortedEntries(out.state.suspendedAtMs)).toEqual(sortedEntries(full.state.suspendedAtMs));
        for (const d of out.decisions) rules.set(d.rule, (rules.get(d.rule) ?? 0) + 1);
        return out;
      },
    };
    // Exponential gaps (the generator's default became the authors' near-periodic ones): bursts
    // enough for every rule to act in 30 jobs.
    simulate({
      workload: 'kairos-heavy',
      workloadOptions: { arrivals: 'exponential' },
      jobs: opts.jobs ?? 30,
      seed: opts.seed,
      policy: checked,
      params: opts.params,
      decisionDelayMs: opts.decisionDelayMs,
    });
    return { cycles, incremental, appsKept, rules };
  }

  it('with decisions applied at once (the paper setting)', () => {
    const r = compare({ params: { shortCutoffMs: 130_000 }, seed: 3 });
    expect(r.incremental).toBeGreaterThan(r.cycles / 2);
    expect(r.appsKept).toBe(r.cycles - 1);
    for (const rule of ['class.priority', 'preempt.suspend', 'preempt.resume', 'node.capacity']) expect(r.rules.get(rule)).toBeGreaterThan(0);
  });

  it('with N below the physical cores and decisions applied later', () => {
    const r = compare({ params: { shortCutoffMs: 130_000, coresPerNode: 3, shortSharePct: 70 }, decisionDelayMs: 2_000, seed: 3 });
    expect(r.incremental).toBeGreaterThan(r.cycles / 2);
    expect(r.appsKept).toBe(r.cycles - 1);
    for (const rule of ['node.cores', 'preempt.suspend', 'preempt.resume', 'node.capacity']) expect(r.rules.get(rule)).toBeGreaterThan(0);
  });

  it('on random workloads, parameters, delays and reloads (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          seed: fc.integer({ min: 1, max: 10_000 }),
          jobs: fc.integer({ min: 5, max: 25 }),
          shortCutoffMs: fc.constantFrom(60_000, 110_000, 130_000),
          shortSharePct: fc.integer({ min: 0, max: 100 }),
          coresPerNode: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
          decisionDelayMs: fc.constantFrom(0, 500, 2_000),
          reloadEvery: fc.option(fc.integer({ min: 2, max: 40 }), { nil: undefined }),
        }),
        ({ seed, jobs, shortCutoffMs, shortSharePct, coresPerNode, decisionDelayMs, reloadEvery }) => {
          const r = compare({
            params: { shortCutoffMs, shortSharePct, ...(coresPerNode !== undefined ? { coresPerNode } : {}) },
            decisionDelayMs,
            seed,
            jobs,
            reloadEvery,
          });
          expect(r.cycles).toBeGreaterThan(0);
        },
      ),
      { numRuns: 12, seed: 16 },
    );
  });
});
