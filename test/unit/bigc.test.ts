/** Big-C policy: job classes, short priority, suspension of long tasks within the shares, resume. */
import { app, kinds, node, snap, targets, type C } from './policy-fixtures.js';
import type { ClusterSnapshot } from '../../src/core/model.js';

import { describe, expect, it } from 'vitest';
import { bigcPolicy, bigcParamsSchema, classify, type BigcState } from '../../src/policies/bigc/index.js';
import { getPolicy } from '../../src/policies/index.js';
import { ChangeTracker } from '../../src/engine/change-tracking.js';

const params = (p: Record<string, unknown> = {}) => bigcParamsSchema.parse(p);
/** The runtime's tracking, shared by the cycles of this file (a state it was not handed over with rebuilds it). */
const tracking = new ChangeTracker();
function run(snapshot: ClusterSnapshot, p: Record<string, unknown> = {}, state?: BigcState) {
  const prm = params(p);
  return bigcPolicy.decide({ snapshot, params: prm, state: state ?? bigcPolicy.initialState(prm), tracking });
}
const est = (ms: number) => ({ 'schedbrain.estimate-ms': String(ms) });

describe('bigc classes', () => {
  it('classifies by the estimate tag against the cutoff and gives short jobs priority', () => {
    const apps = [app('s', { tags: est(30_000) }), app('l', { tags: est(200_000) }), app('u'), app('done', { tags: est(1), state: 'FINISHED' })];
    const out = run(snap(0, [node('n1')], [], { apps }));
    const prio = kinds(out.decisions, 'setAppPriority');
    expect(prio.map((d) => d.action)).toEqual([{ kind: 'setAppPriority', appId: 's', priority: 10 }]);
    expect(prio[0].rule).toBe('class.priority');
    expect(prio[0].reason).toContain('estimate 30 s < cutoff 90.6 s');
    expect(classify(apps[2], params()).cls).toBe('long');
    expect(classify(apps[2], params({ unknownClass: 'short' })).cls).toBe('short');
    expect(classify(apps[1], params({ shortCutoffMs: 300_000 })).cls).toBe('short');
    expect(getPolicy('bigc')).toBe(bigcPolicy);
    expect(params().shortSharePct).toBe(95);
  });
});

describe('bigc preemption', () => {
  const nodes = [node('n1', 2, 10240), node('n2', 2, 10240)];
  const longs: C[] = [
    { id: 'l1', node: 'n1', app: 'L', startedAt: 0 },
    { id: 'l2', node: 'n1', app: 'L', startedAt: 1_000 },
    { id: 'l3', node: 'n2', app: 'L', startedAt: 2_000 },
    { id: 'l4', node: 'n2', app: 'L', startedAt: 3_000 },
  ];
  const apps = (shortPending: number) => [
    app('L', { tags: est(500_000) }),
    app('Sh', { tags: est(10_000), priority: 10, pendingContainers: shortPending, pendingContainerResource: { memoryMB: 5120, vcores: 1 } }),
  ];

  it('short tasks that find no free core suspend the newest long containers, and their nodes advertise the room', () => {
    const out = run(snap(10_000, nodes, longs, { apps: apps(2) }), { shortSharePct: 75 });
    expect(targets(out.decisions, 'suspendContainer')).toEqual(['l3', 'l4']);
    const sus = kinds(out.decisions, 'suspendContainer')[0];
    expect(sus.rule).toBe('preempt.suspend');
    expect(sus.reason).toContain('short jobs wait for 2 cores (0 free)');
    const caps = kinds(out.decisions, 'setNodeResource');
    expect(caps.map((d) => d.action)).toEqual([{ kind: 'setNodeResource', nodeId: 'n2', resource: { memoryMB: 20480, vcores: 4 } }]);
    expect(caps[0].rule).toBe('node.capacity');
    expect(out.state.suspendedAtMs).toEqual({ l3: 10_000, l4: 10_000 });
  });

  it('preempts no more than the short share allows and leaves long jobs their guaranteed share', () => {
    // 4 cores, short share 75 %: short may reclaim 3 cores, long keeps 1.
    expect(targets(run(snap(0, nodes, longs, { apps: apps(10) }), { shortSharePct: 75 }).decisions, 'suspendContainer')).toEqual(['l2', 'l3', 'l4']);
    // Only one long container runs: it is within the long share, nothing is suspended.
    expect(kinds(run(snap(0, nodes, longs.slice(0, 1), { apps: apps(10) }), { shortSharePct: 75 }).decisions, 'suspendContainer')).toHaveLength(0);
    // Free cores absorb the short demand first.
    expect(kinds(run(snap(0, nodes, longs.slice(0, 2), { apps: apps(2) }), { shortSharePct: 75 }).decisions, 'suspendContainer')).toHaveLength(0);
  });

  it('never suspends short containers, even on an over-full node', () => {
    const cs: C[] = [
      { id: 's1', node: 'n1', app: 'Sh' },
      { id: 's2', node: 'n1', app: 'Sh' },
      { id: 's3', node: 'n1', app: 'Sh' },
    ];
    expect(kinds(run(snap(0, nodes, cs, { apps: apps(5) })).decisions, 'suspendContainer')).toHaveLength(0);
  });

  it('a node runs at most N cores of containers: excess long ones wait, newest first', () => {
    const cs: C[] = [
      { id: 's1', node: 'n1', app: 'Sh' },
      { id: 'l1', node: 'n1', app: 'L', startedAt: 0 },
      { id: 'l2', node: 'n1', app: 'L', startedAt: 5 },
    ];
    const out = run(snap(0, nodes, cs, { apps: apps(0) }));
    expect(targets(out.decisions, 'suspendContainer')).toEqual(['l2']);
    expect(kinds(out.decisions, 'suspendContainer')[0].rule).toBe('node.cores');
  });

  /** n1 runs long l1; n2 (2 cores, advertising 4) holds short s1 and long l3, l4 suspended. */
  const twoSuspendedOnN2 = () => {
    const n2 = node('n2', 2, 10240, { memoryMB: 20480, vcores: 4 });
    const cs: C[] = [
      { id: 'l1', node: 'n1', app: 'L' },
      { id: 'l3', node: 'n2', app: 'L', state: 'SUSPENDED' },
      { id: 'l4', node: 'n2', app: 'L', state: 'SUSPENDED' },
      { id: 's1', node: 'n2', app: 'Sh' },
    ];
    return { n2, cs };
  };

  it('resumes suspended long containers, oldest first, once a core is free and no short task waits', () => {
    const { n2, cs } = twoSuspendedOnN2();
    const used = (n: ReturnType<typeof node>, vcores: number) => ({ ...n, used: { memoryMB: vcores * 5120, vcores } });
    const prev: BigcState = { suspendedAtMs: { l3: 2_000, l4: 1_000 } };
    const out = run(snap(20_000, [nodes[0], used(n2, 3)], cs, { apps: apps(0) }), {}, prev);
    expect(targets(out.decisions, 'resumeContainer')).toEqual(['l4']);
    expect(kinds(out.decisions, 'resumeContainer')[0].rule).toBe('preempt.resume');
    expect(kinds(out.decisions, 'setNodeResource').map((d) => d.action)).toEqual([
      { kind: 'setNodeResource', nodeId: 'n2', resource: { memoryMB: 15360, vcores: 3 } },
    ]);
    expect(out.state.suspendedAtMs).toEqual({ l3: 2_000 });

    // Two free cores in the cluster and two short task cores waiting: the free cores are theirs.
    const blocked = run(snap(20_000, [nodes[0], used(n2, 3)], cs, { apps: apps(2) }), {}, prev);
    expect(kinds(blocked.decisions, 'resumeContainer')).toHaveLength(0);
    // One short task waiting: one free core is left over for the oldest suspended long task.
    const one = run(snap(20_000, [nodes[0], used(n2, 3)], cs, { apps: apps(1) }), {}, prev);
    expect(targets(one.decisions, 'resumeContainer')).toEqual(['l4']);
    expect(kinds(one.decisions, 'resumeContainer')[0].reason).toContain('2 in the cluster for 1 waiting short task core(s)');
  });

  it('between scans it tracks the containers it suspended; a periodic scan finds others', () => {
    const { n2, cs } = twoSuspendedOnN2();
    // Ours (in the state): resumed without a scan.
    const ours = run(snap(20_000, [nodes[0], n2], cs, { apps: apps(0), changed: [] }), {}, { suspendedAtMs: { l3: 2_000, l4: 1_000 }, lastScanMs: 15_000 });
    expect(targets(ours.decisions, 'resumeContainer')).toEqual(['l4']);
    // Suspended by someone else: unknown until the scan 60 s after the last one.
    const before = run(snap(20_000, [nodes[0], n2], cs, { apps: apps(0), changed: [] }), {}, { suspendedAtMs: {}, lastScanMs: 15_000 });
    expect(kinds(before.decisions, 'resumeContainer')).toHaveLength(0);
    const atScan = run(snap(75_000, [nodes[0], n2], cs, { apps: apps(0), changed: [] }), {}, { suspendedAtMs: {}, lastScanMs: 15_000 });
    expect(targets(atScan.decisions, 'resumeContainer')).toHaveLength(1);
    expect(atScan.state.lastScanMs).toBe(75_000);
  });

  it('does not hand a core freed for a short task back to another suspended long task', () => {
    // n2 already holds suspended l3; short demand now suspends l4 on n2: l3 must stay suspended.
    const n2 = node('n2', 2, 10240, { memoryMB: 15360, vcores: 3 });
    const cs: C[] = [
      { id: 'l1', node: 'n1', app: 'L', startedAt: 0 },
      { id: 'l2', node: 'n1', app: 'L', startedAt: 1_000 },
      { id: 'l3', node: 'n2', app: 'L', state: 'SUSPENDED', startedAt: 2_000 },
      { id: 's1', node: 'n2', app: 'Sh', startedAt: 2_500 },
      { id: 'l4', node: 'n2', app: 'L', startedAt: 3_000 },
    ];
    const out = run(
      snap(30_000, [nodes[0], { ...n2, used: { memoryMB: 15360, vcores: 3 } }], cs, { apps: apps(1) }),
      { shortSharePct: 50 },
      { suspendedAtMs: { l3: 5_000 } },
    );
    expect(targets(out.decisions, 'suspendContainer')).toEqual(['l4']);
    expect(kinds(out.decisions, 'resumeContainer')).toHaveLength(0);
    expect(kinds(out.decisions, 'setNodeResource').map((d) => d.action)).toEqual([
      { kind: 'setNodeResource', nodeId: 'n2', resource: { memoryMB: 20480, vcores: 4 } },
    ]);
  });

  it('never suspends an ApplicationMaster container', () => {
    const s0 = snap(10_000, nodes, longs, { apps: apps(2) });
    const withAm = { ...s0, containers: new Map([...s0.containers].map(([id, c]) => [id, id === 'l4' ? { ...c, appMaster: true } : c])) };
    expect(targets(run(withAm, { shortSharePct: 75 }).decisions, 'suspendContainer')).toEqual(['l2', 'l3']);
  });

  it('state round-trips through JSON', () => {
    const first = run(snap(10_000, nodes, longs, { apps: apps(2) }), { shortSharePct: 75 });
    const s = JSON.stringify(first.state);
    const a = run(snap(11_000, nodes, longs, { apps: apps(2) }), { shortSharePct: 75 }, first.state);
    const b = run(snap(11_000, nodes, longs, { apps: apps(2) }), { shortSharePct: 75 }, JSON.parse(s) as BigcState);
    expect(b).toEqual(a);
    expect(JSON.stringify(first.state)).toBe(s);
  });
});
