/**
 * `maxCapacityStepPct` on guarantees written as absolute resources: each queue moves at most the
 * step's share of the parent's memory and vcores per cycle, siblings scaled together so that what
 * is sent stays valid for CapacityScheduler 3.4.1 (one mode per parent, the sum within the parent),
 * including the switches to and from percentages.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ActionOf } from '../../src/core/actions.js';
import type { QueueView } from '../../src/core/model.js';
import type { Resources } from '../../src/core/resources.js';
import { oneNodeSnapshot, queueView } from './bopf-queues.js';
import { clampQueueUpdate, DEFAULT_LIMITS, invariantViolation, plan } from '../../src/engine/session.js';

type Update = ActionOf<'updateQueues'>['update'][number];

// 100 vcores, 100 × 4 GB.
const C = { vcores: 100, memoryMB: 409_600 };

const queue = queueView;
const snapshotOf = (children: QueueView[], total: Resources = C) => oneNodeSnapshot(total, children);

const v = (memoryMB: number, vcores: number): Resources => ({ memoryMB, vcores });
const updateOf = (update: Update[]): ActionOf<'updateQueues'> => ({ kind: 'updateQueues', add: [], update });

describe('maxCapacityStepPct on absolute-resource guarantees', () => {
  it('steps vectors by at most the step of the parent per resource, siblings scaled by one factor per resource, and explains it', () => {
    const s = snapshotOf([queue('root.lq', 1, v(4096, 1)), queue('root.tq', 99, v(405_504, 99))]);
    // The LQ wants all the memory and 20 vcores; the TQ keeps a floor.
    const wanted = updateOf([
      { path: 'root.lq', capacityPct: 100, capacityResource: v(409_600, 20) },
      { path: 'root.tq', capacityPct: 80, capacityResource: v(41, 80) },
    ]);
    const { action, explanation } = clampQueueUpdate(wanted, s, 10);
    // 10 % of 409,600 MB is 40,960 MB; of 100 vcores, 10. Memory: the LQ moves most (405,504 MB)
    // and moves 40,960; the TQ's 405,463 are scaled alike (40,956, rounded down: 40,955.9 away from
    // where it is). Vcores: both move 19 → 10 each. The share is the vector's dominant share.
    expect(action.update).toEqual([
      { path: 'root.lq', capacityPct: 11, capacityResource: v(45_056, 11) },
      { path: 'root.tq', capacityPct: 89.001, capacityResource: v(364_548, 89) },
    ]);
    expect(explanation).toBe(
      'capacity step under root clamped to 10% of its resources (maxCapacityStepPct: 40960 MB, 10 vcores; memory scaled by 0.1, vcores scaled by 0.53): ' +
        'root.lq [memory=4096,vcores=1]→[memory=409600,vcores=20] limited to [memory=45056,vcores=11], ' +
        'root.tq [memory=405504,vcores=99]→[memory=41,vcores=80] limited to [memory=364548,vcores=89]',
    );
    // The request itself is left as the policy wrote it (the journal keeps both).
    expect(wanted.update[0].capacityResource).toEqual(v(409_600, 20));
  });

  it('leaves a step within the limit alone, and a resource within it unscaled', () => {
    const s = snapshotOf([queue('root.a', 50, v(204_800, 50)), queue('root.b', 50, v(204_800, 50))]);
    const small = updateOf([
      { path: 'root.a', capacityPct: 55, capacityResource: v(225_280, 55) },
      { path: 'root.b', capacityPct: 45, capacityResource: v(184_320, 45) },
    ]);
    expect(clampQueueUpdate(small, s, 10)).toEqual({ action: small });
    // Memory moves 30 %, vcores 5 %: only memory is clamped.
    const r = clampQueueUpdate(
      updateOf([
        { path: 'root.a', capacityPct: 80, capacityResource: v(327_680, 55) },
        { path: 'root.b', capacityPct: 45, capacityResource: v(81_920, 45) },
      ]),
      s,
      10,
    );
    expect(r.action.update.map((u) => u.capacityResource)).toEqual([v(245_760, 55), v(163_840, 45)]);
    expect(r.explanation).toMatch(/memory scaled by 0\.33\)/);
    expect(r.explanation).not.toMatch(/vcores scaled/);
  });

  it('a switch from percentages to vectors is stepped from the queues’ shares, in one write', () => {
    const s = snapshotOf([queue('root.a', 50), queue('root.b', 50)]);
    const r = clampQueueUpdate(
      updateOf([
        { path: 'root.a', capacityPct: 100, capacityResource: v(409_600, 100) },
        { path: 'root.b', capacityPct: 0.01, capacityResource: v(41, 0) },
      ]),
      s,
      20,
    );
    expect(r.action.update).toEqual([
      { path: 'root.a', capacityPct: 70, capacityResource: v(286_720, 70) },
      { path: 'root.b', capacityPct: 30.0039, capacityResource: v(122_896, 30) },
    ]);
    expect(invariantViolation([r.action], s, DEFAULT_LIMITS)).toBeUndefined();
  });

  it('a switch back to percentages waits in absolute mode, stepping toward their vectors, until no queue moves more than a step', () => {
    let s = snapshotOf([queue('root.a', 100, v(409_600, 100)), queue('root.b', 0.01, v(41, 0))]);
    const back = updateOf([
      { path: 'root.a', capacityPct: 50 },
      { path: 'root.b', capacityPct: 50 },
    ]);
    const r1 = clampQueueUpdate(back, s, 30);
    expect(r1.action.update).toEqual([
      { path: 'root.a', capacityPct: 70, capacityResource: v(286_720, 70) },
      { path: 'root.b', capacityPct: 30.0039, capacityResource: v(122_896, 30) },
    ]);
    expect(r1.explanation).toMatch(/; the switch to percentages waits until no queue moves more than that$/);
    s = snapshotOf(r1.action.update.map((u) => queue(u.path, u.capacityPct!, u.capacityResource)));
    // Within 30 % of 50 % on both resources now: the percentages go out as asked, in one write.
    const r2 = clampQueueUpdate(back, s, 30);
    expect(r2).toEqual({ action: back });
    expect(invariantViolation([r2.action], s, DEFAULT_LIMITS)).toBeUndefined();
  });

  it('under an absolute parent the step is a share of the parent’s vector; a step under one unit still moves one', () => {
    const p = queue('root.p', 50, v(204_800, 50), [queue('root.p.a', 50, v(102_400, 25)), queue('root.p.b', 50, v(102_400, 25))]);
    const s = snapshotOf([p, queue('root.q', 50, v(204_800, 50))]);
    const r = clampQueueUpdate(
      updateOf([
        { path: 'root.p.a', capacityPct: 100, capacityResource: v(204_800, 50) },
        { path: 'root.p.b', capacityPct: 0, capacityResource: v(0, 0) },
      ]),
      s,
      1,
    );
    // 1 % of <204,800 MB, 50 vcores>: 2,048 MB and half a vcore, taken as one.
    expect(r.action.update.map((u) => u.capacityResource)).toEqual([v(104_448, 26), v(100_352, 24)]);
    expect(r.explanation).toMatch(/under root\.p clamped to 1% of its resources \(maxCapacityStepPct: 2048 MB, 1 vcores;/);
  });

  it('in the plan: the clamped write is pending, marked clamped, and passes the invariants', () => {
    const s = snapshotOf([queue('root.lq', 1, v(4096, 1)), queue('root.tq', 99, v(405_504, 99))]);
    const action = updateOf([
      { path: 'root.lq', capacityPct: 100, capacityResource: v(409_600, 20) },
      { path: 'root.tq', capacityPct: 80, capacityResource: v(41, 80) },
    ]);
    const caps = { queueWrites: true, containerSuspend: false, nodeRanking: false, notes: [] };
    const [p] = plan({ cycleId: 'c', snapshot: s, capabilities: caps, limits: { ...DEFAULT_LIMITS, maxCapacityStepPct: 10 } }, [
      { action, policy: 'bopf', rule: 'allocate', reason: 'test' },
    ]);
    expect(p).toMatchObject({ status: 'pending', clamped: true });
    expect(p.detail).toMatch(/clamped to 10% of its resources/);
  });
});

/** Integer parts of `total` in proportion to `weights`, all of them at most `fill` of it. */
function split(weights: number[], total: number, fill: number): number[] {
  const sum = weights.reduce((a, b) => a + b, 0) || 1;
  return weights.map((w) => Math.floor(((w / sum) * fill * total) / 1) || 0);
}

/** Percentages in proportion to `weights` (0.01 steps) summing to exactly 100. */
function percentages(weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const pct = weights.map((w) => (sum > 0 ? Math.round((w / sum) * 1e4) / 100 : 0));
  if (sum === 0) pct[0] = 100;
  const residue = Math.round((100 - pct.reduce((a, b) => a + b, 0)) * 100) / 100;
  const big = pct.indexOf(Math.max(...pct));
  pct[big] = Math.round((pct[big] + residue) * 100) / 100;
  return pct;
}

const side = (n: number) =>
  fc.record({
    absolute: fc.boolean(),
    memoryWeights: fc.array(fc.nat(1000), { minLength: n, maxLength: n }),
    vcoreWeights: fc.array(fc.nat(1000), { minLength: n, maxLength: n }),
    fill: fc.double({ min: 0, max: 1, noNaN: true }),
  });

const scenario = fc.integer({ min: 1, max: 6 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    total: fc.record({ memoryMB: fc.integer({ min: 1, max: 50_000_000 }), vcores: fc.integer({ min: 1, max: 100_000 }) }),
    stepPct: fc.double({ min: 1, max: 99.9, noNaN: true }),
    current: side(n),
    target: side(n),
  }),
);

type Side = { absolute: boolean; memoryWeights: number[]; vcoreWeights: number[]; fill: number };
const paths = (n: number) => Array.from({ length: n }, (_, i) => `root.q${i}`);

function asQueues(sd: Side, n: number, total: Resources): QueueView[] {
  if (!sd.absolute) return percentages(sd.memoryWeights).map((pct, i) => queue(`root.q${i}`, pct));
  const m = split(sd.memoryWeights, total.memoryMB, sd.fill);
  const c = split(sd.vcoreWeights, total.vcores, sd.fill);
  return paths(n).map((path, i) => queue(path, Math.max(m[i] / total.memoryMB, c[i] / total.vcores) * 100, v(m[i], c[i])));
}

function asUpdate(sd: Side, n: number, total: Resources): Update[] {
  return asQueues(sd, n, total).map((q) => ({
    path: q.path,
    capacityPct: q.capacityPct,
    ...(q.capacityResource ? { capacityResource: q.capacityResource } : {}),
  }));
}

/** A queue's guarantee as a vector: its own, or its percentage's share of the parent rounded down. */
const vectorOf = (pct: number, r: Resources | undefined, total: Resources): Resources =>
  r ?? { memoryMB: Math.floor((pct * total.memoryMB) / 100), vcores: Math.floor((pct * total.vcores) / 100) };

describe('property: a clamped plan never moves a queue more than the step and stays valid', () => {
  it('holds for any mix of modes, totals and steps, and reaches a vector target in ⌈largest move / step⌉ cycles (+1 to send a switch back)', () => {
    fc.assert(
      fc.property(scenario, ({ n, total, stepPct, current, target }) => {
        let queues = asQueues(current, n, total);
        const wanted = updateOf(asUpdate(target, n, total));
        const limits = { ...DEFAULT_LIMITS, maxCapacityStepPct: stepPct, allowZeroCapacity: paths(n) };
        const stepOf = { memoryMB: Math.max(1, (stepPct * total.memoryMB) / 100), vcores: Math.max(1, (stepPct * total.vcores) / 100) };
        const largest = (r: 'memoryMB' | 'vcores') =>
          Math.max(
            ...queues.map((q, i) =>
              Math.abs(
                vectorOf(wanted.update[i].capacityPct!, wanted.update[i].capacityResource, total)[r] - vectorOf(q.capacityPct, q.capacityResource, total)[r],
              ),
            ),
          );
        const bound = Math.max(Math.ceil(largest('memoryMB') / Math.floor(stepOf.memoryMB)), Math.ceil(largest('vcores') / Math.floor(stepOf.vcores))) + 1;
        const pctMove = Math.max(...queues.map((q, i) => Math.abs(wanted.update[i].capacityPct! - q.capacityPct)));
        // Percentages both sides take the point clamp, whose rounding to 0.01 can bend its path by
        // a few cycles: it is checked each cycle but not held to the bound.
        const points = !current.absolute && !target.absolute;
        const cycles = points ? Math.ceil(pctMove / stepPct) : bound;
        for (let cycle = 0; cycle <= cycles; cycle++) {
          const s = snapshotOf(queues, total);
          const { action } = clampQueueUpdate(wanted, s, stepPct);
          expect(invariantViolation([action], s, limits)).toBeUndefined();
          const absolute = action.update.filter((u) => u.capacityResource).length;
          expect([0, n]).toContain(absolute);
          if (absolute === 0 && queues.every((q) => !q.capacityResource)) {
            // Percentages both sides: the point clamp (siblings sum to 100, checked above). It rounds
            // to 0.01 and gives the residue, at most 0.005 a sibling, to the queue that moves most.
            action.update.forEach((u, i) => expect(Math.abs(u.capacityPct! - queues[i].capacityPct)).toBeLessThanOrEqual(stepPct + 0.005 * n + 1e-9));
          } else {
            for (const r of ['memoryMB', 'vcores'] as const) {
              let sumBefore = 0;
              let sumWanted = 0;
              let sumSent = 0;
              action.update.forEach((u, i) => {
                const before = vectorOf(queues[i].capacityPct, queues[i].capacityResource, total)[r];
                const want = vectorOf(wanted.update[i].capacityPct!, wanted.update[i].capacityResource, total)[r];
                const sent = vectorOf(u.capacityPct!, u.capacityResource, total)[r];
                expect(Math.abs(sent - before)).toBeLessThanOrEqual(stepOf[r]);
                expect(sent).toBeGreaterThanOrEqual(Math.min(before, want));
                expect(sent).toBeLessThanOrEqual(Math.max(before, want));
                sumBefore += before;
                sumWanted += want;
                sumSent += sent;
              });
              expect(sumSent).toBeLessThanOrEqual(Math.max(sumBefore, sumWanted));
              if (sumBefore <= total[r] && sumWanted <= total[r]) expect(sumSent).toBeLessThanOrEqual(total[r]);
            }
          }
          if (action === wanted) return;
          queues = action.update.map((u) => queue(u.path, u.capacityPct!, u.capacityResource));
        }
        if (!points) throw new Error(`not at the target after ${cycles} cycles`);
      }),
      { numRuns: 300 },
    );
  });
});
