/**
 * BoPF guarantees as absolute resources (CapacityScheduler `capacity=[memory=…,vcores=…]`): the
 * policy's vectors, the one-write mode switch both ways, the floors, and the parts of the runtime
 * that must understand the mode (reconciliation, the plan's invariants, the simulated queue tree
 * and its capacity allocator).
 */
import { describe, expect, it } from 'vitest';
import type { ActionOf } from '../../src/core/actions.js';
import type { QueueView } from '../../src/core/model.js';
import { isAlreadyTrue } from '../../src/core/reconcile.js';
import { invariantViolation } from '../../src/engine/session.js';
import { absoluteGuarantees, bopfPolicy } from '../../src/policies/bopf/policy.js';
import type { QueueSpec } from '../../src/policies/bopf/spec.js';
import { QueueTree } from '../../src/sim/queues.js';
import { SIM_LIMITS } from '../../src/sim/engine.js';
import { toQueueTree } from '../../src/yarn/backend.js';
import { bopfQueues } from './bopf-queues.js';

// Memory-bound cluster as in the BoPF workloads: 100 vcores, 100 × 4 GB.
const C = { vcores: 100, memoryMB: 409_600 };

/** Containers of <1 vcore, 4 GB>. */
const { leaf, snapshotWith, app } = bopfQueues(C, 4096);

// The LQ's burst needs the whole memory for 10 s and a fifth of the vcores: d/t = <409,600 MB, 20 vcores>.
const specs: QueueSpec[] = [
  { name: 'tq0', kind: 'TQ' },
  { name: 'tq1', kind: 'TQ' },
  { name: 'lq', kind: 'LQ', periodMs: 1_000_000, burstDeadlineMs: 10_000, demand: { vcoreSeconds: 200, memoryMBSeconds: 4_096_000 } },
];
const queues = ['root.tq0', 'root.tq1', 'root.lq'];

function updateOf(out: { decisions: { action: unknown }[] }): ActionOf<'updateQueues'>['update'] {
  expect(out.decisions).toHaveLength(1);
  return (out.decisions[0].action as ActionOf<'updateQueues'>).update;
}

describe('BoPF capacities as absolute resources', () => {
  const params = bopfPolicy.paramsSchema.parse({ queues: specs, hysteresisPct: 1, carryShortfall: false, maxHorizonMs: 2_000_000 });

  it('switches every managed leaf to resource vectors in one write, floors out of what no guarantee holds', () => {
    const out = bopfPolicy.decide({
      snapshot: snapshotWith([leaf('root.tq0', 40), leaf('root.tq1', 30), leaf('root.lq', 30)], [app('t0', 'tq0', 50, 100), app('t1', 'tq1', 50, 100)]),
      params,
      state: bopfPolicy.initialState(params),
    });
    expect(out.notes!.some((n) => n.startsWith('admission: lq → hard'))).toBe(true);
    const update = updateOf(out);
    expect(update.map((u) => u.path)).toEqual(queues);
    for (const u of update) expect(u.capacityResource).toBeDefined();
    // Idle LQ: its floor is 1 % of each resource; the TQs share the rest by DRF (half each).
    expect(update[2]).toMatchObject({ capacityResource: { memoryMB: 4096, vcores: 1 }, capacityPct: 1 });
    expect(update[0].capacityResource!.memoryMB + update[1].capacityResource!.memoryMB).toBeLessThanOrEqual(C.memoryMB);
    expect(out.notes).toContain('capacityMode: every managed leaf switches to absolute resources in one write');
  });

  it('gives a hard LQ exactly d/t as a vector; the floors come out of what it leaves (one application each when it leaves no memory)', () => {
    let state = bopfPolicy.initialState(params);
    const abs = (m: number, v: number) => ({ memoryMB: m, vcores: v });
    const idle = [leaf('root.tq0', 49.5, abs(202_752, 49)), leaf('root.tq1', 49.5, abs(202_752, 49)), leaf('root.lq', 1, abs(4096, 1))];
    state = bopfPolicy.decide({ snapshot: snapshotWith(idle, [app('t0', 'tq0', 50, 100), app('t1', 'tq1', 50, 100)]), params, state }).state;
    const out = bopfPolicy.decide({
      snapshot: snapshotWith(idle, [app('t0', 'tq0', 50, 100), app('t1', 'tq1', 50, 100), app('l', 'lq', 0, 100)], 1_000),
      params,
      state,
    });
    const update = updateOf(out);
    const lq = update.find((u) => u.path === 'root.lq')!;
    // d/t = <4,096,000 MB·s, 200 vcore·s> / 10 s: all the memory, 20 vcores.
    expect(lq.capacityResource).toEqual({ memoryMB: 409_600, vcores: 20 });
    expect(lq.capacityPct).toBe(100);
    // The TQs' floors: no memory left, so 41 MB each (1/10,000 of the memory: CapacityScheduler
    // then admits one application, at 0 MB none), vcores out of the 80 left.
    for (const u of update.filter((x) => x.path !== 'root.lq')) {
      expect(u.capacityResource!.memoryMB).toBe(41);
      expect(u.capacityResource!.vcores).toBeGreaterThanOrEqual(1);
    }
    const vcores = update.reduce((a, u) => a + u.capacityResource!.vcores, 0);
    expect(vcores).toBeLessThanOrEqual(C.vcores);
    expect(out.notes!.some((n) => n.includes('each gets 41 MB'))).toBe(true);
  });

  it('does not re-send vectors within the hysteresis once in absolute mode', () => {
    const abs = (m: number, v: number) => ({ memoryMB: m, vcores: v });
    const out = bopfPolicy.decide({
      snapshot: snapshotWith(
        [leaf('root.tq0', 49.5, abs(202_752, 49)), leaf('root.tq1', 49.5, abs(202_752, 49)), leaf('root.lq', 1, abs(4096, 1))],
        [app('t0', 'tq0', 50, 100), app('t1', 'tq1', 50, 100)],
      ),
      params,
      state: bopfPolicy.initialState(params),
    });
    expect(out.decisions).toEqual([]);
  });

  it('capacityMode=percentage brings absolute leaves back to percentages together, whatever the drift', () => {
    const p = bopfPolicy.paramsSchema.parse({ ...params, capacityMode: 'percentage', hysteresisPct: 50 });
    const abs = (m: number, v: number) => ({ memoryMB: m, vcores: v });
    const out = bopfPolicy.decide({
      snapshot: snapshotWith(
        [leaf('root.tq0', 49.5, abs(202_752, 49)), leaf('root.tq1', 49.5, abs(202_752, 49)), leaf('root.lq', 1, abs(4096, 1))],
        [app('t0', 'tq0', 50, 100), app('t1', 'tq1', 50, 100)],
      ),
      params: p,
      state: bopfPolicy.initialState(p),
    });
    const update = updateOf(out);
    expect(update.map((u) => u.path)).toEqual(queues);
    for (const u of update) expect(u.capacityResource).toBeUndefined();
    expect(update.reduce((a, u) => a + u.capacityPct!, 0)).toBeCloseTo(100, 6);
  });

  it('covers unadmitted leaves under the parent, and falls back to percentages (saying why) under a percentage parent', () => {
    const out = bopfPolicy.decide({
      snapshot: snapshotWith([leaf('root.tq0', 40), leaf('root.tq1', 30), leaf('root.lq', 30), leaf('root.other', 0)], [app('t0', 'tq0', 50, 100)]),
      params: { ...params, unadmittedMaxCapacityPct: 0 },
      state: bopfPolicy.initialState(params),
    });
    // root.other is under the parent, so it is managed (unadmitted): absolute mode covers it too.
    const update = updateOf(out);
    expect(update.find((u) => u.path === 'root.other')).toMatchObject({ capacityResource: { memoryMB: 0, vcores: 0 }, capacityPct: 0, maxCapacityPct: 0 });
    const nested = bopfPolicy.paramsSchema.parse({ ...params, parentQueue: 'root.bopf' });
    const parent: QueueView = { ...leaf('root.bopf', 100), children: [leaf('root.bopf.tq0', 40), leaf('root.bopf.tq1', 30), leaf('root.bopf.lq', 30)] };
    const out2 = bopfPolicy.decide({ snapshot: snapshotWith([parent], [app('t0', 'tq0', 50, 100)]), params: nested, state: bopfPolicy.initialState(nested) });
    expect(out2.notes!.some((n) => n.includes('capacityMode: percentages this cycle, root.bopf is in percentage mode'))).toBe(true);
    for (const u of updateOf(out2)) expect(u.capacityResource).toBeUndefined();
  });

  it('absoluteGuarantees scales guarantees that add up past the parent, and shrinks floors to what is left', () => {
    const alloc = new Map([
      ['a', { tier: 'hard', guarantee: { memoryMB: 300, vcores: 3 }, alloc: { memoryMB: 300, vcores: 3 } }],
      ['b', { tier: 'soft', guarantee: { memoryMB: 300, vcores: 3 }, alloc: { memoryMB: 300, vcores: 3 } }],
      ['c', { tier: 'elastic', guarantee: { memoryMB: 0, vcores: 0 }, alloc: { memoryMB: 0, vcores: 10 } }],
    ]);
    const r = absoluteGuarantees(
      ['a', 'b', 'c'],
      alloc,
      new Map([
        ['a', 1],
        ['b', 1],
        ['c', 1],
      ]),
      ['c'],
      { memoryMB: 500, vcores: 10 },
      10,
    );
    expect(r.resources.get('a')!.memoryMB + r.resources.get('b')!.memoryMB).toBeLessThanOrEqual(500);
    expect(r.notes.some((n) => n.includes('scaled by'))).toBe(true);
    // Scaled by 500/600: a and b get <250 MB, 2 vcores>. c's floor is 1 vcore (10 % of 10) and 1 MB
    // (no memory left); its DRF allocation (10 vcores) is more than the 5 vcores left after it: it gets those.
    expect(r.resources.get('a')).toEqual({ memoryMB: 250, vcores: 2 });
    expect(r.resources.get('c')).toEqual({ memoryMB: 1, vcores: 6 });
  });
});

describe('runtime support for absolute-resource capacities', () => {
  const abs = { memoryMB: 1024, vcores: 1 };
  const snap = snapshotWith([leaf('root.a', 50), leaf('root.b', 50)], []);

  it('reconciliation: a switch to absolute resources at the same share is still a change, and back', () => {
    const toAbsolute: ActionOf<'updateQueues'> = { kind: 'updateQueues', add: [], update: [{ path: 'root.a', capacityPct: 50, capacityResource: abs }] };
    expect(isAlreadyTrue(toAbsolute, snap)).toBe(false);
    const absSnap = snapshotWith([leaf('root.a', 50, abs), leaf('root.b', 50, abs)], []);
    expect(isAlreadyTrue(toAbsolute, absSnap)).toBe(true);
    expect(isAlreadyTrue({ kind: 'updateQueues', add: [], update: [{ path: 'root.a', capacityPct: 50 }] }, absSnap)).toBe(false);
  });

  it('plan invariants: absolute siblings need not sum to 100, but may not sit beside non-zero percentages', () => {
    const limits = { ...SIM_LIMITS, allowZeroCapacity: ['root.a', 'root.b'] };
    const all: ActionOf<'updateQueues'> = {
      kind: 'updateQueues',
      add: [],
      update: [
        { path: 'root.a', capacityPct: 12.5, capacityResource: abs },
        { path: 'root.b', capacityPct: 30, capacityResource: { memoryMB: 3000, vcores: 1 } },
      ],
    };
    expect(invariantViolation([all], snap, limits)).toBeUndefined();
    const one: ActionOf<'updateQueues'> = { kind: 'updateQueues', add: [], update: [{ path: 'root.a', capacityPct: 50, capacityResource: abs }] };
    expect(invariantViolation([one], snap, limits)).toMatch(/mix absolute resources and percentages \(root\.b at 50%\)/);
  });

  it('simulated queue tree: refuses mixed siblings and absolute children of a percentage parent, and derives the share from the cluster', () => {
    const t = new QueueTree([
      { path: 'root.a', capacityPct: 50, maxCapacityPct: 100 },
      { path: 'root.b', capacityPct: 50, maxCapacityPct: 100 },
    ]);
    expect(t.apply({ kind: 'updateQueues', add: [], update: [{ path: 'root.a', capacityPct: 50, capacityResource: abs }] })).toMatch(/mix absolute resources/);
    expect(t.get('root.a')!.capacityResource).toBeUndefined();
    const err = t.apply({
      kind: 'updateQueues',
      add: [],
      update: [
        { path: 'root.a', capacityPct: 100, capacityResource: { memoryMB: 4096, vcores: 1 } },
        { path: 'root.b', capacityPct: 0, capacityResource: { memoryMB: 0, vcores: 0 } },
      ],
    });
    expect(err).toBeUndefined();
    const total = { memoryMB: 4096, vcores: 4 };
    expect(t.get('root.a')!.absoluteCapacity(total)).toBe(1);
    expect(t.get('root.a')!.absoluteCapacity({ memoryMB: 8192, vcores: 4 })).toBe(0.5);
    expect(t.view(total).children[0]).toMatchObject({ capacityResource: { memoryMB: 4096, vcores: 1 } });
    // Back to percentages in one write.
    expect(
      t.apply({
        kind: 'updateQueues',
        add: [],
        update: [
          { path: 'root.a', capacityPct: 50 },
          { path: 'root.b', capacityPct: 50 },
        ],
      }),
    ).toBeUndefined();
    expect(t.get('root.a')!.capacityResource).toBeUndefined();
    // Absolute children under a percentage parent are refused (root excepted).
    const nested = new QueueTree([
      { path: 'root.p', capacityPct: 100, maxCapacityPct: 100 },
      { path: 'root.p.x', capacityPct: 100, maxCapacityPct: 100 },
    ]);
    expect(nested.apply({ kind: 'updateQueues', add: [], update: [{ path: 'root.p.x', capacityPct: 100, capacityResource: abs }] })).toMatch(/percentage mode/);
  });

  it('YARN backend: reads the configured resources of an absolute queue back (as Hadoop 3.4.1 reports them), percentage queues have none', () => {
    const partition = (memory: number, vCores: number) => ({ queueCapacitiesByPartition: [{ partitionName: '', configuredMinResource: { memory, vCores } }] });
    const tree = toQueueTree({
      type: 'capacityScheduler',
      queueName: 'root',
      capacity: 100,
      maxCapacity: 100,
      usedCapacity: 0,
      queues: {
        queue: [
          { queueName: 'a', queuePath: 'root.a', capacity: 50, maxCapacity: 100, usedCapacity: 0, isAbsoluteResource: true, capacities: partition(4096, 2) },
          { queueName: 'b', queuePath: 'root.b', capacity: 0, maxCapacity: 100, usedCapacity: 0, isAbsoluteResource: false, capacities: partition(0, 0) },
        ],
      },
    });
    expect(tree.children[0]).toMatchObject({ path: 'root.a', capacityPct: 50, capacityResource: { memoryMB: 4096, vcores: 2 } });
    expect(tree.children[1].capacityResource).toBeUndefined();
  });
});
