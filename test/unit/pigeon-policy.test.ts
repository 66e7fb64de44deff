import { describe, expect, it } from 'vitest';
import type { ActionOf, Decision } from '../../src/core/actions.js';
import type { AppView, ClusterSnapshot, QueueView } from '../../src/core/model.js';
import { res } from '../../src/core/resources.js';
import { getPolicy } from '../../src/policies/index.js';
import {
  pigeonParamsSchema,
  pigeonPolicy,
  RESERVED_SCORE_MIN,
  reservedWorkers,
  weightedFairQueuing,
  type PigeonState,
} from '../../src/policies/pigeon/index.js';
import { app, kinds, node, snap, type C } from './policy-fixtures.js';

const SHORT = 'root.pigeon.short';
const LONG = 'root.pigeon.long';

function queue(path: string, capacityPct: number, children: QueueView[] = [], maxCapacityPct = 100): QueueView {
  return {
    path,
    name: path.slice(path.lastIndexOf('.') + 1),
    state: 'RUNNING',
    capacityPct,
    maxCapacityPct,
    absoluteCapacityPct: capacityPct,
    absoluteMaxCapacityPct: maxCapacityPct,
    usedCapacityPct: 0,
    used: res(0, 0),
    numApplications: 0,
    children,
  };
}

/** root.default 0 %, root.pigeon 100 % with the two leaves at the given guarantees. */
function tree(shortPct: number, longPct: number): QueueView {
  return queue('root', 100, [queue('root.default', 0), queue('root.pigeon', 100, [queue(SHORT, shortPct), queue(LONG, longPct)])]);
}

function cluster(nowMs: number, cs: C[], apps: AppView[], shortPct = 99, longPct = 1, nodeIds = ['n1', 'n2']): ClusterSnapshot {
  return {
    ...snap(
      nowMs,
      nodeIds.map((id) => node(id)),
      cs,
      { apps },
    ),
    rootQueue: tree(shortPct, longPct),
  };
}

const params = (p: Record<string, unknown> = {}) => pigeonParamsSchema.parse(p);

function run(s: ClusterSnapshot, state: PigeonState, p = params()) {
  return pigeonPolicy.decide({ snapshot: s, params: p, state });
}

const queueUpdate = (ds: Decision[]) => kinds(ds, 'updateQueues')[0] as (Decision & { action: ActionOf<'updateQueues'> }) | undefined;
const capacities = (d: Decision | undefined) =>
  Object.fromEntries((d?.action as ActionOf<'updateQueues'>).update.map((u) => [u.path, u.capacityPct] as [string, number | undefined]));

describe('pigeon policy', () => {
  it('is registered under its name', () => {
    expect(getPolicy('pigeon')).toBe(pigeonPolicy);
  });

  it('takes the paper’s defaults and refuses leaves that are not siblings', () => {
    const p = params();
    expect(p).toMatchObject({ shortQueue: SHORT, longQueue: LONG, weight: 20, reservedPct: 10, cutoffMs: 90_581, classifier: 'queue' });
    expect(params({ weight: 'inf' }).weight).toBe(Infinity);
    expect(pigeonParamsSchema.safeParse({ weight: 0 }).success).toBe(false);
    const r = pigeonParamsSchema.safeParse({ longQueue: 'root.other.long' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['longQueue']);
  });

  it('reserves whole nodes: at least one, never all, the last in id order', () => {
    const s = (n: number) =>
      cluster(
        0,
        [],
        [],
        99,
        1,
        Array.from({ length: n }, (_, i) => `n${String(i).padStart(2, '0')}`),
      );
    expect(reservedWorkers(s(2), params())).toEqual(['n01']);
    expect(reservedWorkers(s(20), params())).toEqual(['n18', 'n19']);
    expect(reservedWorkers(s(1), params())).toEqual([]);
    expect(reservedWorkers(s(20), params({ reservedPct: 0 }))).toEqual([]);
    expect(reservedWorkers(s(3), params({ reservedNodes: ['n00', 'gone'] }))).toEqual(['n00']);
  });

  it('serves short first and ranks reserved nodes last, beyond the general-only policy’s cut', () => {
    const s = cluster(1_000, [], [], 50, 50);
    const out = run(s, pigeonPolicy.initialState(params()));
    const q = queueUpdate(out.decisions)!;
    expect(q.rule).toBe('serveShortFirst');
    expect(capacities(q)).toEqual({ [SHORT]: 99, [LONG]: 1 });
    expect(q.action.update.every((u) => u.maxCapacityPct === 100)).toBe(true);
    const rank = kinds(out.decisions, 'rankNodes')[0]!;
    expect(rank.rule).toBe('reserveWorkers');
    const scores = (rank.action as ActionOf<'rankNodes'>).scores;
    expect(scores.n1).toBe(0);
    expect(scores.n2).toBeGreaterThanOrEqual(RESERVED_SCORE_MIN);
    expect(out.state.reserved).toEqual(['n2']);

    // Nothing to send while the cluster is as asked and the reserved set is unchanged, however long
    // (the engine keeps the ranking in force: engine-ranking-refresh test).
    const again = run(cluster(2_000, [], []), out.state);
    expect(again.decisions).toEqual([]);
    expect(run(cluster(3_600_000, [], []), again.state).decisions).toEqual([]);
  });

  it('gives long its turn after W − 1 short dispatches while long work waits (one of every W), and takes it back when a long task starts', () => {
    const p = params({ weight: 3 });
    const apps = [app('s1', { queue: SHORT, pendingContainers: 5 }), app('l1', { queue: LONG, pendingContainers: 5 })];
    let state = run(cluster(0, [{ id: 'l-1', node: 'n1', app: 'l1' }], apps), pigeonPolicy.initialState(p), p).state;
    const shortTasks: C[] = [];
    for (let i = 1; i <= 2; i++) {
      shortTasks.push({ id: `s-${i}`, node: 'n1', app: 's1', startedAt: i });
      const out = run(cluster(i * 1_000, [{ id: 'l-1', node: 'n1', app: 'l1' }, ...shortTasks], apps), state, p);
      state = out.state;
      if (i < 2) expect(queueUpdate(out.decisions)).toBeUndefined();
      else {
        const q = queueUpdate(out.decisions)!;
        expect(q.rule).toBe('weightedFairQueuing');
        expect(capacities(q)).toEqual({ [SHORT]: 1, [LONG]: 99 });
      }
    }
    expect(state.longTurn).toBe(true);
    // A long task starts: short is served first again.
    const out = run(
      cluster(5_000, [{ id: 'l-1', node: 'n1', app: 'l1' }, { id: 'l-2', node: 'n1', app: 'l1', startedAt: 5 }, ...shortTasks], apps, 1, 99),
      state,
      p,
    );
    expect(out.state).toMatchObject({ longTurn: false, shortSinceLong: 0 });
    expect(queueUpdate(out.decisions)!.rule).toBe('serveShortFirst');
  });

  it('counts dispatches in start order, only while long work waits; W = ∞ is strict priority', () => {
    const s = (cls: 'short' | 'long', t: number) => ({ cls, startedAtMs: t });
    expect(weightedFairQueuing([s('short', 3), s('long', 2), s('short', 1)], true, { shortSinceLong: 5, longTurn: true }, 20)).toEqual({
      shortSinceLong: 1,
      longTurn: false,
    });
    expect(weightedFairQueuing([s('short', 1), s('short', 2)], false, { shortSinceLong: 5, longTurn: false }, 2)).toEqual({
      shortSinceLong: 0,
      longTurn: false,
    });
    expect(weightedFairQueuing([s('short', 1), s('short', 2)], true, { shortSinceLong: 100, longTurn: false }, Infinity)).toEqual({
      shortSinceLong: 102,
      longTurn: false,
    });
    // W = 1: every dispatch is long while long work waits.
    expect(weightedFairQueuing([], true, { shortSinceLong: 0, longTurn: false }, 1)).toEqual({ shortSinceLong: 0, longTurn: true });
    // Application masters are not dispatches, nor are short tasks on a reserved node (n2): WFQ
    // chooses what a freed general worker takes.
    const p = params({ weight: 1 });
    const apps = [app('s1', { queue: SHORT }), app('l1', { queue: LONG, pendingContainers: 1 })];
    const s0 = run(cluster(0, [], apps), pigeonPolicy.initialState(p), p).state;
    expect(run(cluster(1, [{ id: 'r', node: 'n2', app: 's1' }], apps), s0, p).state.shortSinceLong).toBe(0);
    const withAm = { ...cluster(1, [{ id: 'am', node: 'n1', app: 's1' }], apps) };
    const am = withAm.containers.get('am')!;
    const containers = new Map(withAm.containers);
    containers.set('am', { ...am, appMaster: true });
    expect(run({ ...withAm, containers }, s0, p).state.shortSinceLong).toBe(0);
    expect(run(withAm, s0, p).state.shortSinceLong).toBe(1);
  });

  it('classes by tag or estimate and moves an application to its class’s leaf; by queue it moves nothing', () => {
    const apps = [
      app('a', { queue: SHORT, tags: { 'schedbrain.class': 'long' } }),
      app('b', { queue: LONG, tags: { 'schedbrain.estimate-ms': '1000' } }),
      app('c', { queue: 'root.default', tags: { 'schedbrain.class': 'long' } }),
      app('d', { queue: LONG, state: 'FINISHED', tags: { 'schedbrain.class': 'short' } }),
    ];
    const moves = (classifier: string) =>
      kinds(run(cluster(0, [], apps), pigeonPolicy.initialState(params()), params({ classifier })).decisions, 'moveApp').map((d) => [d.rule, d.action]);
    expect(moves('tag')).toEqual([['classifyApp', { kind: 'moveApp', appId: 'a', queue: LONG }]]);
    expect(moves('estimate')).toEqual([['classifyApp', { kind: 'moveApp', appId: 'b', queue: SHORT }]]);
    expect(moves('queue')).toEqual([]);
  });

  it('adds no queue: without both leaves it says so and sends no queue change', () => {
    const s = { ...cluster(0, [], []), rootQueue: queue('root', 100, [queue('root.default', 100)]) };
    const out = run(s, pigeonPolicy.initialState(params()));
    expect(kinds(out.decisions, 'updateQueues')).toEqual([]);
    expect(out.notes?.some((n) => n.includes('does not exist'))).toBe(true);
  });
});
