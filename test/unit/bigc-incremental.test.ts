/** Big-C: a cycle looks at the nodes that changed, and decides as a full pass over every node would. */
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/core/actions.js';
import type { AnyPolicy } from '../../src/core/policy.js';
import { res } from '../../src/core/resources.js';
import { bigcParamsSchema, bigcPolicy, type BigcState } from '../../src/policies/bigc/index.js';
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

  it('a cycle where one node changed reads only that node and its containers', () => {
    // Full pass (first cycle): a short task waits, the newest long task (on n199) is suspended
    // and n199 advertises its room.
    const first = bigcPolicy.decide({ snapshot: snap(10_000, nodes(), longs, { apps: apps(1), changed: [], changedApps: [] }), params, state: bigcPolicy.initialState(params) });
    expect(targets(first.decisions, 'suspendContainer')).toEqual(['l199']);
    expect(kinds(first.decisions, 'setNodeResource').map((d) => d.action)).toEqual([{ kind: 'setNodeResource', nodeId: 'n199', resource: { memoryMB: 10240, vcores: 2 } }]);
    let state: BigcState = first.state;

    // The suspension and the new capacity applied, the short task placed on n199.
    const n199 = node('n199', 1, 5120, res(10240, 2));
    const placed: C[] = [...longs.slice(0, 199), { ...longs[199], state: 'SUSPENDED' }, { id: 's1', node: 'n199', app: 'S', startedAt: 10_000 }];
    let g = guarded(snap(11_000, nodes({ n199 }), placed, { apps: apps(0), changed: ['n199'], changedApps: ['S'] }));
    let out = bigcPolicy.decide({ snapshot: g.snapshot, params, state });
    expect(out.decisions).toHaveLength(0);
    expect([...g.nodes]).toEqual(['n199']);
    expect([...g.apps]).toEqual(['S']);
    expect([...g.containers].every((c) => c === 'l199' || c === 's1')).toBe(true);
    state = out.state;

    // The short task done: l199 resumes and n199 goes back to its physical capacity.
    const done = placed.filter((c) => c.id !== 's1');
    g = guarded(snap(20_000, nodes({ n199 }), done, { apps: apps(0), changed: ['n199'], changedApps: ['S'] }));
    out = bigcPolicy.decide({ snapshot: g.snapshot, params, state });
    expect(targets(out.decisions, 'resumeContainer')).toEqual(['l199']);
    expect(kinds(out.decisions, 'setNodeResource').map((d) => d.action)).toEqual([{ kind: 'setNodeResource', nodeId: 'n199', resource: { memoryMB: 5120, vcores: 1 } }]);
    expect([...g.nodes]).toEqual(['n199']);
    expect(out.state.suspendedAtMs).toEqual({});
    state = out.state;

    // Resumed as asked, and a task done on n042: only those two nodes are read.
    const later = [...longs.filter((c) => c.id !== 'l042')];
    g = guarded(snap(30_000, nodes(), later, { apps: apps(0), changed: ['n042', 'n199'], changedApps: ['L'] }));
    out = bigcPolicy.decide({ snapshot: g.snapshot, params, state });
    expect(out.decisions).toHaveLength(0);
    expect([...g.nodes].sort()).toEqual(['n042', 'n199']);
    state = out.state;

    // Someone else raises n010's capacity: it is set back, and asked again while it stays so.
    const n010 = node('n010', 1, 5120, res(15360, 3));
    const setBack = [{ kind: 'setNodeResource', nodeId: 'n010', resource: { memoryMB: 5120, vcores: 1 } }];
    for (const [t, changed] of [[40_000, ['n010']], [41_000, []]] as const) {
      g = guarded(snap(t, nodes({ n010 }), later, { apps: apps(0), changed: [...changed], changedApps: [] }));
      out = bigcPolicy.decide({ snapshot: g.snapshot, params, state });
      expect(out.decisions.map((d) => d.action)).toEqual(setBack);
      expect([...g.nodes]).toEqual(['n010']);
      state = out.state;
    }
  });

  it('makes a full pass when the backend cannot say what changed, and does not keep the figures then', () => {
    const out = bigcPolicy.decide({ snapshot: snap(10_000, nodes(), longs, { apps: apps(0) }), params, state: bigcPolicy.initialState(params) });
    expect(out.state.nodeFigures).toBeUndefined();
    const kept = bigcPolicy.decide({ snapshot: snap(10_000, nodes(), longs, { apps: apps(0), changed: [] }), params, state: bigcPolicy.initialState(params) });
    expect(kept.state.nodeFigures?.totalCores).toBe(200);
    // Figures restored from JSON, or for other parameters, are built again (a full pass).
    const restored = JSON.parse(JSON.stringify(kept.state)) as BigcState;
    expect(() => bigcPolicy.decide({ snapshot: guarded(snap(11_000, nodes(), longs, { apps: apps(0), changed: ['n001'] })).snapshot, params, state: restored })).toThrow('scanned every entry');
    const other = bigcParamsSchema.parse({ shortSharePct: 90 });
    expect(() => bigcPolicy.decide({ snapshot: guarded(snap(11_000, nodes(), longs, { apps: apps(0), changed: ['n001'] })).snapshot, params: other, state: kept.state })).toThrow('scanned every entry');
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
    const first = bigcPolicy.decide({ snapshot: snap(0, nodes(), longs, { apps, changed: [], changedApps: [] }), params, state: bigcPolicy.initialState(params) });
    expect(first.state.lastScanMs).toBe(0);
    let state = first.state;

    // 61 s later a scan is due; every node holds the suspended containers known (none).
    let g = containersGuarded(snap(61_000, nodes(), longs, { apps, changed: [], changedApps: [] }));
    const quiet = bigcPolicy.decide({ snapshot: g.snapshot, params, state });
    expect(quiet.decisions).toEqual([]);
    expect(quiet.state).toBe(state);
    expect(quiet.state.lastScanMs).toBe(61_000);
    state = quiet.state;

    // l2 suspended without n2 being reported (a suspension that landed late): the count shows it
    // at the next due scan, which lists every container and finds it, and l2 resumes into its
    // free core.
    const late = longs.map((c) => (c.id === 'l2' ? { ...c, state: 'SUSPENDED' as const } : c));
    g = containersGuarded(snap(100_000, nodes(), late, { apps, changed: [], changedApps: [] }));
    expect(bigcPolicy.decide({ snapshot: g.snapshot, params, state }).state.lastScanMs).toBe(61_000);
    g = containersGuarded(snap(122_000, nodes(), late, { apps, changed: [], changedApps: [] }));
    expect(() => bigcPolicy.decide({ snapshot: g.snapshot, params, state })).toThrow('scanned every entry');
    const scanned = bigcPolicy.decide({ snapshot: snap(122_000, nodes(), late, { apps, changed: [], changedApps: [] }), params, state });
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
    const f = bigcPolicy.decide({ snapshot: { ...s, changedAppIds: new Set<string>() }, params, state: bigcPolicy.initialState(params) }).state.appFigures!;
    return { shortCores: f.shortCores, longCores: f.longCores, shortPending: f.shortPending, size: f.size };
  };
  /** A guarded snapshot, and the plain one for a full pass to compare with. */
  const both = (...args: Parameters<typeof snap>) => {
    const plainSnap = snap(...args);
    return { ...guarded(plainSnap), plainSnap };
  };
  const totals = (st: BigcState) => {
    const f = st.appFigures!;
    return { shortCores: f.shortCores, longCores: f.longCores, shortPending: f.shortPending, size: f.size };
  };

  it('reads only the applications that changed and those it asked a priority change for', () => {
    let apps = [long, ...queued];
    const first = bigcPolicy.decide({ snapshot: snap(0, nodes(), longs, { apps, changed: [], changedApps: [] }), params, state: bigcPolicy.initialState(params) });
    expect(totals(first.state)).toEqual({ shortCores: 0, longCores: 4, shortPending: 500, size: 501 });
    let state = first.state;

    // A new short job arrives at the default priority: it is raised, and read again at the next
    // cycle, reported changed or not, until it has the priority asked for.
    const fresh = app('S500', { state: 'ACCEPTED', tags: est(10_000), priority: 0, pendingContainers: 2, pendingContainerResource: res(5120, 1) });
    apps = [long, ...queued, fresh];
    let g = both(1_000, nodes(), longs, { apps, changed: [], changedApps: ['S500'] });
    let out = bigcPolicy.decide({ snapshot: g.snapshot, params, state });
    expect(out.decisions.map((d) => d.action)).toEqual([{ kind: 'setAppPriority', appId: 'S500', priority: 10 }]);
    expect([...g.apps]).toEqual(['S500']);
    expect(totals(out.state)).toEqual(fullTotals(g.plainSnap));
    state = out.state;

    // Not applied yet (a decision delay): asked again, though nothing was reported.
    g = both(2_000, nodes(), longs, { apps, changed: [], changedApps: [] });
    out = bigcPolicy.decide({ snapshot: g.snapshot, params, state });
    expect(out.decisions.map((d) => d.action)).toEqual([{ kind: 'setAppPriority', appId: 'S500', priority: 10 }]);
    expect([...g.apps]).toEqual(['S500']);
    state = out.state;

    // Applied, and S007 finished while L lost a container: S500 is read once more, then not at all.
    apps = [long, ...queued.filter((a) => a.id !== 'S007'), { ...fresh, priority: 10 }];
    const fewer = longs.slice(1);
    g = both(3_000, nodes(), fewer, { apps, changed: ['n0'], changedApps: ['S500', 'S007', 'L'] });
    out = bigcPolicy.decide({ snapshot: g.snapshot, params, state });
    expect(out.decisions.filter((d) => d.action.kind === 'setAppPriority')).toEqual([]);
    expect([...g.apps].sort()).toEqual(['L', 'S007', 'S500']);
    expect(totals(out.state)).toEqual({ shortCores: 0, longCores: 3, shortPending: 501, size: 501 });
    expect(totals(out.state)).toEqual(fullTotals(g.plainSnap));
    state = out.state;

    g = both(4_000, nodes(), fewer, { apps, changed: [], changedApps: [] });
    bigcPolicy.decide({ snapshot: g.snapshot, params, state });
    expect([...g.apps]).toEqual([]);
  });

  it('walks every application when the figures do not count the snapshot, the backend cannot say, or the figures were restored', () => {
    const apps = [long, ...queued];
    const kept = bigcPolicy.decide({ snapshot: snap(0, nodes(), longs, { apps, changed: [], changedApps: [] }), params, state: bigcPolicy.initialState(params) }).state;
    // An application the backend did not report: the count is off, so every application is
    // walked again, and the new one gets its priority.
    const unreported = app('S900', { state: 'ACCEPTED', tags: est(10_000), pendingContainers: 3, pendingContainerResource: res(5120, 1) });
    const s = snap(1_000, nodes(), longs, { apps: [...apps, unreported], changed: [], changedApps: [] });
    const out = bigcPolicy.decide({ snapshot: s, params, state: JSON.parse(JSON.stringify(kept)) as BigcState });
    expect(out.decisions.map((d) => d.action)).toEqual([{ kind: 'setAppPriority', appId: 'S900', priority: 10 }]);
    const again = bigcPolicy.decide({ snapshot: s, params, state: kept });
    expect(again.decisions.map((d) => d.action)).toEqual([{ kind: 'setAppPriority', appId: 'S900', priority: 10 }]);
    expect(totals(again.state)).toEqual(fullTotals(s));
    expect(totals(again.state).shortPending).toBe(503);
    // Restored from JSON or other parameters: a full walk (which the guard refuses).
    const restored = JSON.parse(JSON.stringify(again.state)) as BigcState;
    const guardedSnap = () => guarded(snap(2_000, nodes(), longs, { apps: [...apps, unreported], changed: [], changedApps: [] })).snapshot;
    expect(() => bigcPolicy.decide({ snapshot: guardedSnap(), params, state: restored })).toThrow('scanned every entry');
    expect(() => bigcPolicy.decide({ snapshot: guardedSnap(), params: bigcParamsSchema.parse({ shortCutoffMs: 5_000 }), state: again.state })).toThrow('scanned every entry');
    expect(() => bigcPolicy.decide({ snapshot: guardedSnap(), params, state: again.state })).not.toThrow();
    // No changed applications given: the totals are not kept (the state is updated in place).
    expect(bigcPolicy.decide({ snapshot: snap(3_000, nodes(), longs, { apps, changed: [] }), params, state: again.state }).state.appFigures).toBeUndefined();
  });
});

describe('bigc incremental cycles decide as a full pass would', () => {
  /**
   * Runs Big-C in the simulator; at every cycle, the same snapshot also goes to Big-C without
   * kept figures (a full pass over every node and every application, with the same suspended
   * containers known), and both must decide alike, with the same reasons.
   */
  function compare(opts: { params: Record<string, unknown>; decisionDelayMs?: number; seed: number }) {
    let cycles = 0;
    let incremental = 0;
    let appsKept = 0;
    const rules = new Map<string, number>();
    const checked: AnyPolicy = {
      ...bigcPolicy,
      name: 'bigc-checked',
      decide(input) {
        const st = input.state as BigcState;
        const fullInput = { ...input, state: { suspendedAtMs: { ...st.suspendedAtMs }, lastScanMs: st.lastScanMs } };
        const full = bigcPolicy.decide(fullInput);
        const out = bigcPolicy.decide(input);
        cycles++;
        if (out.state === input.state) incremental++;
        if (st.appFigures !== undefined && out.state.appFigures === st.appFigures) appsKept++;
        expect(plain(out.decisions)).toEqual(plain(full.decisions));
        expect(sortedEntries(out.state.suspendedAtMs)).toEqual(sortedEntries(full.state.suspendedAtMs));
        for (const d of out.decisions) rules.set(d.rule, (rules.get(d.rule) ?? 0) + 1);
        return out;
      },
    };
    simulate({ workload: 'kairos-heavy', jobs: 30, seed: opts.seed, policy: checked, params: opts.params, decisionDelayMs: opts.decisionDelayMs });
    return { cycles, incremental, appsKept, rules };
  }

  it('with decisions applied at once (the paper setting)', () => {
    const r = compare({ params: { shortCutoffMs: 130_000 }, seed: 1 });
    expect(r.incremental).toBeGreaterThan(r.cycles / 2);
    expect(r.appsKept).toBe(r.cycles - 1);
    for (const rule of ['class.priority', 'preempt.suspend', 'preempt.resume', 'node.capacity']) expect(r.rules.get(rule)).toBeGreaterThan(0);
  });

  it('with N below the physical cores and decisions applied later', () => {
    const r = compare({ params: { shortCutoffMs: 130_000, coresPerNode: 3, shortSharePct: 70 }, decisionDelayMs: 2_000, seed: 1 });
    expect(r.incremental).toBeGreaterThan(r.cycles / 2);
    expect(r.appsKept).toBe(r.cycles - 1);
    for (const rule of ['node.cores', 'preempt.suspend', 'preempt.resume', 'node.capacity']) expect(r.rules.get(rule)).toBeGreaterThan(0);
  });
});
