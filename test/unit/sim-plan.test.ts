import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { actionSchema, decisionWithReasonOf, ListedRanking, type Action, type Decision } from '../../src/core/actions.js';
import type { ClusterSnapshot } from '../../src/core/model.js';
import { definePolicy, type AnyPolicy } from '../../src/core/policy.js';
import { alreadyValidAction, DEFAULT_LIMITS, plan, type PlannedDecision, type SessionContext } from '../../src/engine/session.js';
import { SIM_CAPABILITIES, SIM_LIMITS, Simulator, type SimOptions } from '../../src/sim/engine.js';
import { simulate } from '../../src/sim/simulate.js';
import type { JobSpec } from '../../src/sim/workload.js';

const ONE = { memoryMB: 1024, vcores: 1 };
const job = (arrivalS: number, workS: number[]): JobSpec => ({ arrivalMs: arrivalS * 1000, stages: [{ resource: ONE, workMs: workS.map((w) => w * 1000) }] });

/** A policy that asks for `fn`'s actions at every call. */
function scripted(fn: (s: ClusterSnapshot) => Action[]): AnyPolicy {
  return definePolicy<Record<string, never>, null>({
    name: 'scripted',
    description: 'test',
    paramsSchema: z.object({}),
    initialState: () => null,
    decide: ({ snapshot, state }) => ({
      decisions: fn(snapshot).map((action): Decision => ({ action, policy: 'scripted', rule: 'scripted.t', reason: 't' })),
      state,
    }),
  });
}

function run(jobs: JobSpec[], policy: AnyPolicy, o: Partial<SimOptions> = {}): { sim: Simulator; planned: PlannedDecision[] } {
  const planned: PlannedDecision[] = [];
  const sim = new Simulator({
    workload: { name: 't', jobs },
    nodes: 1,
    cores: 1,
    checkInvariants: true,
    policy,
    onPlanned: (_, p) => planned.push(...p),
    ...o,
  });
  sim.run();
  return { sim, planned };
}

const containersOf = (s: ClusterSnapshot) => [...s.containers.values()];

describe('the simulator plans through the engine (plan)', () => {
  it('skips a second decision on the same container as a duplicate and applies the first', () => {
    let asked = false;
    const policy = scripted((s) => {
      const c = containersOf(s).find((x) => x.state === 'RUNNING');
      if (asked || !c) return [];
      asked = true;
      return [
        { kind: 'suspendContainer', containerId: c.id, nodeId: c.nodeId },
        { kind: 'resumeContainer', containerId: c.id, nodeId: c.nodeId },
      ];
    });
    const { sim, planned } = run([job(0, [10])], policy);
    expect(planned.map((p) => [p.status, p.skipReason])).toEqual([
      ['pending', undefined],
      ['skipped', 'duplicate'],
    ]);
    expect(sim.actionStats.byKind.suspendContainer.applied).toBe(1);
    expect(sim.actionStats.byKind.resumeContainer.skipped).toBe(1);
    expect(sim.actionStats.skipped).toBe(1);
  });

  it('reconciles what is already true to noop without applying it', () => {
    const policy = scripted((s) => containersOf(s).map((c) => ({ kind: 'resumeContainer', containerId: c.id, nodeId: c.nodeId })));
    const { sim, planned } = run([job(0, [5])], policy);
    expect(planned.length).toBeGreaterThan(0);
    expect(planned.every((p) => p.status === 'noop')).toBe(true);
    expect(sim.actionStats.applied).toBe(0);
    expect(sim.actionStats.noop).toBe(planned.length);
  });

  it('refuses an invalid action (failed) and applies nothing of it', () => {
    const policy = scripted(() => [{ kind: 'suspendContainer', containerId: '', nodeId: 'node1' } as Action]);
    const { sim, planned } = run([job(0, [1])], policy);
    expect(planned[0].status).toBe('failed');
    expect(planned[0].error).toMatch(/containerId/);
    expect(sim.actionStats.failed).toBe(planned.length);
    expect(sim.actionStats.applied).toBe(0);
  });

  it('applies maxActionsPerCycle when given, and none by default', () => {
    const twoNodes = (s: ClusterSnapshot): Action[] =>
      [...s.nodes.keys()].map((nodeId) => ({ kind: 'setNodeResource', nodeId, resource: { memoryMB: 2048, vcores: 2 } }));
    const limited = run([job(0, [1])], scripted(twoNodes), { nodes: 2, limits: { maxActionsPerCycle: 1 } });
    expect(limited.planned.slice(0, 2).map((p) => [p.status, p.skipReason])).toEqual([
      ['pending', undefined],
      ['skipped', 'limit'],
    ]);
    const free = run([job(0, [1])], scripted(twoNodes), { nodes: 2 });
    expect(free.sim.actionStats.byKind.setNodeResource.applied).toBe(2);
    expect(free.sim.actionStats.skipped).toBe(0);
  });

  it('checks node over-commit against maxOvercommitFactor: 65 by default, as configured otherwise', () => {
    const overCommit = (vcores: number) =>
      scripted((s) => [...s.nodes.keys()].map((nodeId) => ({ kind: 'setNodeResource', nodeId, resource: { memoryMB: 1024, vcores } })));
    expect(run([job(0, [1])], overCommit(65)).sim.actionStats.byKind.setNodeResource.applied).toBe(1);
    const refused = run([job(0, [1])], overCommit(66)).planned[0];
    expect([refused.status, refused.skipReason]).toEqual(['skipped', 'invariant']);
    const live = run([job(0, [1])], overCommit(5), { limits: { maxOvercommitFactor: DEFAULT_LIMITS.maxOvercommitFactor } }).planned[0];
    expect(live.detail).toMatch(/maxOvercommitFactor/);
  });

  it('lets a queue policy set any queue of the simulated cluster to 0, unless allowZeroCapacity says otherwise', () => {
    const queues = [
      { path: 'root.a', capacityPct: 50, maxCapacityPct: 100 },
      { path: 'root.b', capacityPct: 50, maxCapacityPct: 100 },
    ];
    const zeroA = scripted(() => [
      {
        kind: 'updateQueues',
        add: [],
        update: [
          { path: 'root.a', capacityPct: 0 },
          { path: 'root.b', capacityPct: 100 },
        ],
      },
    ]);
    const jobs = [{ ...job(0, [1]), queue: 'root.b' }];
    const free = new Simulator({ workload: { name: 't', jobs, queues }, nodes: 1, policy: zeroA });
    free.run();
    expect(free.actionStats.byKind.updateQueues.applied).toBe(1);
    const planned: PlannedDecision[] = [];
    const guarded = new Simulator({
      workload: { name: 't', jobs, queues },
      nodes: 1,
      policy: zeroA,
      limits: { allowZeroCapacity: [] },
      onPlanned: (_, p) => planned.push(...p),
    });
    guarded.run();
    expect(planned[0].skipReason).toBe('invariant');
  });

  it('plans before a decision delay and applies the plan when it is due', () => {
    let asked = false;
    const policy = scripted((s) => {
      if (asked) return [];
      asked = true;
      return [...s.nodes.keys()].map((nodeId) => ({ kind: 'setNodeResource', nodeId, resource: { memoryMB: 2048, vcores: 2 } }));
    });
    const { sim } = run([job(0, [10]), job(0, [10])], policy, { decisionDelayMs: 1000 });
    // The second task starts at 1 s, when the node advertises two cores, and shares the core.
    expect(sim.actionStats.byKind.setNodeResource.applied).toBe(1);
    expect(sim.records.map((r) => r?.finishMs)).toEqual([19_000, 20_000]);
  });

  it('gives the same results as before on a Kairos replay: no decision is planned away', () => {
    const planned: PlannedDecision[] = [];
    const r = simulate({
      workload: 'kairos-heavy',
      policy: 'kairos',
      seed: 1,
      jobs: 60,
      onPlanned: (_, p) => planned.push(...p.filter((x) => x.status !== 'pending')),
    });
    expect(r.actions.skipped).toBe(0);
    expect(planned.filter((p) => p.status === 'skipped')).toEqual([]);
  });
});

describe('plan', () => {
  const ctx = (snapshot: Partial<ClusterSnapshot> = {}): SessionContext => ({
    cycleId: 'c1',
    snapshot: { nowMs: 0, nodes: new Map(), apps: new Map(), containers: new Map(), totalCapacity: { memoryMB: 0, vcores: 0 }, ...snapshot } as ClusterSnapshot,
    capabilities: SIM_CAPABILITIES,
    limits: SIM_LIMITS,
  });
  const d = (action: Action): Decision => ({ action, policy: 'p', rule: 'p.r', reason: 'why' });

  it('sends an application priority and a move of the same application in one cycle: two targets', () => {
    const p = plan(ctx(), [
      d({ kind: 'moveApp', appId: 'app1', queue: 'root.b' }),
      d({ kind: 'setAppPriority', appId: 'app1', priority: 3 }),
      d({ kind: 'setAppPriority', appId: 'app1', priority: 4 }),
    ]);
    expect(p.map((x) => [x.status, x.skipReason])).toEqual([
      ['pending', undefined],
      ['pending', undefined],
      ['skipped', 'duplicate'],
    ]);
    expect(p[2].detail).toContain('app:app1:priority');
  });

  it('finds a second decision on a target among many', () => {
    const suspend = (i: number) => d({ kind: 'suspendContainer', containerId: `c${i}`, nodeId: 'n1' });
    const decisions = [
      ...Array.from({ length: 30 }, (_, i) => suspend(i)),
      suspend(3),
      suspend(25),
      d({ kind: 'resumeContainer', containerId: 'c29', nodeId: 'n1' }),
    ];
    const p = plan(ctx(), decisions);
    expect(p.filter((x) => x.skipReason === 'duplicate').map((x) => (x.action as { containerId: string }).containerId)).toEqual(['c3', 'c25', 'c29']);
    expect(p.filter((x) => x.status === 'pending')).toHaveLength(30);
  });

  it('names the first decision on a target in a large plan, past invalid ones and across kinds of target', () => {
    const on = (kind: 'suspendContainer' | 'resumeContainer', id: string, rule: string): Decision => ({
      action: { kind, containerId: id, nodeId: 'n1' },
      policy: 'p',
      rule,
      reason: 'why',
    });
    const decisions = [
      ...Array.from({ length: 20 }, (_, i) => on('suspendContainer', `c${i}`, `p.first${i}`)),
      { action: { kind: 'suspendContainer', containerId: '' }, policy: 'p', rule: 'p.bad', reason: 'why' } as unknown as Decision,
      d({ kind: 'killApp', appId: 'c18' }),
      on('resumeContainer', 'c30', 'p.late'),
      on('resumeContainer', 'c18', 'p.again'),
      on('suspendContainer', 'c30', 'p.again'),
      on('suspendContainer', 'c2', 'p.again'),
      d({ kind: 'killApp', appId: 'c18' }),
    ];
    const p = plan(ctx(), decisions);
    expect(p.map((x) => x.status).slice(20)).toEqual(['failed', 'pending', 'pending', 'skipped', 'skipped', 'skipped', 'skipped']);
    expect(p.slice(23).map((x) => x.detail?.match(/\(rule (\S+)\)/)?.[1])).toEqual(['p.first18', 'p.late', 'p.first2', 'p.r']);
  });

  it('tells targets apart that share their length and last character, and finds a second ranking', () => {
    const suspend = (id: string) => d({ kind: 'suspendContainer', containerId: id, nodeId: 'n1' });
    const rank = (n: number) => d({ kind: 'rankNodes', scores: { n1: n }, leastLoadedFirst: false, partial: true });
    const p = plan(ctx(), [
      rank(1),
      suspend('c_1_9'),
      suspend('c_2_9'),
      d({ kind: 'killContainer', containerId: 'c_2_9', nodeId: 'n1' }),
      rank(2),
      suspend('c_1_9'),
    ]);
    expect(p.map((x) => [x.status, x.skipReason])).toEqual([
      ['pending', undefined],
      ['pending', undefined],
      ['pending', undefined],
      ['skipped', 'duplicate'],
      ['skipped', 'duplicate'],
      ['skipped', 'duplicate'],
    ]);
    expect(p.map((x) => x.detail?.match(/targets (\S+)/)?.[1])).toEqual([undefined, undefined, undefined, 'container:c_2_9', 'ranking', 'container:c_1_9']);
  });

  it('leaves a lazy reason unwritten', () => {
    let written = 0;
    const lazy = decisionWithReasonOf({ kind: 'killApp', appId: 'app1' }, 'p', 'p.r', () => `reason ${++written}`);
    const p = plan(ctx(), [lazy]);
    expect(p[0].status).toBe('pending');
    expect(written).toBe(0);
    expect(p[0].decision.reason).toBe('reason 1');
  });

  it('names a decision without policy, rule or reason', () => {
    const p = plan(ctx(), [{ action: { kind: 'killApp', appId: 'a' } } as Decision], 'pol');
    expect(p[0].decision).toMatchObject({ policy: 'pol', rule: 'pol.unnamed', reason: '(no reason given)' });
  });

  it('plans nothing from no decisions', () => {
    expect(plan(ctx(), [])).toEqual([]);
  });
});

describe('alreadyValidAction', () => {
  const cases: unknown[] = [
    { kind: 'suspendContainer', containerId: 'c1', nodeId: 'n1' },
    { kind: 'resumeContainer', containerId: 'c1', nodeId: 'n1' },
    { kind: 'killContainer', containerId: 'c1', nodeId: 'n1' },
    { kind: 'suspendContainer', containerId: '', nodeId: 'n1' },
    { kind: 'suspendContainer', containerId: 'c1' },
    { kind: 'suspendContainer', containerId: 'c1', nodeId: 'n1', extra: 1 },
    { kind: 'setNodeResource', nodeId: 'n1', resource: { memoryMB: 1024, vcores: 2 } },
    { kind: 'setNodeResource', nodeId: 'n1', resource: { memoryMB: 1024.5, vcores: 2 } },
    { kind: 'setNodeResource', nodeId: 'n1', resource: { memoryMB: -1, vcores: 2 } },
    { kind: 'setNodeResource', nodeId: 'n1', resource: { memoryMB: 1, vcores: 2, gpus: 1 } },
    { kind: 'setAppPriority', appId: 'a', priority: 3 },
    { kind: 'setAppPriority', appId: 'a', priority: 3.5 },
    { kind: 'moveApp', appId: 'a', queue: 'root.b' },
    { kind: 'moveApp', appId: 'a', queue: '' },
    { kind: 'killApp', appId: 'a' },
    { kind: 'killApp', appId: 7 },
    { kind: 'rankNodes', scores: { n1: 1 }, leastLoadedFirst: true, partial: false },
    new ListedRanking(['n1', 'n2'], [1, 2], false, true),
    new ListedRanking(['n1'], [NaN], false, true),
    { kind: 'updateQueues', update: [{ path: 'root.a', capacityPct: 10 }] },
    { kind: 'nonsense' },
    null,
    'killApp',
  ];

  it('passes an action only when the schema accepts it and gives it back unchanged', () => {
    for (const c of cases) {
      const fast = alreadyValidAction(c);
      const parsed = actionSchema.safeParse(c);
      if (fast === undefined) continue;
      expect(fast).toBe(c);
      expect(parsed.success).toBe(true);
      expect(JSON.parse(JSON.stringify(fast))).toEqual(parsed.data);
    }
    expect(cases.filter((c) => alreadyValidAction(c) !== undefined).length).toBe(8);
  });
});
