/**
 * The allocation round and the DRF water-fill keep their numbers in typed arrays and write each
 * queue's explanation when read. They must give exactly what the object-based versions gave
 * (bopf-allocation-reference.ts): same guarantee, allocation, tier and explanation for every
 * queue, bit for bit, on random mixes of hard, soft, elastic and unadmitted queues.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderByKey } from '../../src/policies/shared/order-by-key.js';
import { orderByKeyInBuckets } from '../../src/policies/shared/queues/bucket-order.js';
import { allocate, type AllocQueue, type Mode } from '../../src/policies/shared/queues/allocate.js';
import { drfWaterFill } from '../../src/policies/shared/queues/drf-waterfill.js';
import { referenceAllocate, referenceDrfWaterFill } from './bopf-allocation-reference.js';

/** Amounts with ties, zeros and tiny values, so the water-fill's ties and thresholds are exercised. */
const amount = fc.oneof(fc.constantFrom(0, 1, 2, 4, 1e-10), fc.double({ min: 0, max: 64, noNaN: true }), fc.integer({ min: 0, max: 64 }));
const resources = fc.record({ vcores: amount, memoryMB: amount.map((x) => x * 1024) });

const arbQueue = fc.record({
  kind: fc.constantFrom('LQ' as const, 'TQ' as const),
  cls: fc.constantFrom('hard' as const, 'soft' as const, 'elastic' as const, 'none' as const),
  demand: resources,
  burst: fc.option(fc.record({ rate: resources, remaining: resources }), { nil: undefined }),
});

function mix(draw: { kind: 'LQ' | 'TQ'; cls: AllocQueue['cls']; demand: AllocQueue['demand']; burst?: AllocQueue['burst'] }[]): AllocQueue[] {
  return draw.map((q, i) => ({ id: `q${String(i).padStart(3, '0')}`, kind: q.kind, cls: q.cls, demand: q.demand, ...(q.burst ? { burst: q.burst } : {}) }));
}

describe('allocation on typed arrays', () => {
  it('gives every queue what the object-based round gave, explanations included (bopf, sp, drf)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Mode>('bopf', 'sp', 'drf'),
        fc.record({ vcores: fc.integer({ min: 0, max: 200 }), memoryMB: fc.integer({ min: 0, max: 200 }).map((x) => x * 1024) }),
        fc.array(arbQueue, { maxLength: 120 }),
        (mode, capacity, draw) => {
          const queues = mix(draw);
          const got = allocate(mode, capacity, queues);
          const want = referenceAllocate(mode, capacity, queues);
          expect(got.size).toBe(want.size);
          queues.forEach((q, i) => {
            const w = want.get(q.id)!;
            const a = got.at(i);
            expect({ guarantee: { ...a.guarantee }, alloc: { ...a.alloc }, tier: a.tier, why: a.why }).toEqual(w);
            expect(got.get(q.id)!.alloc).toEqual(w.alloc);
          });
        },
      ),
      { numRuns: 400, seed: 22 },
    );
  });

  it('the DRF water-fill gives what the object-based one gave, in the same order', () => {
    fc.assert(
      fc.property(
        fc.record({ vcores: fc.integer({ min: 0, max: 100 }), memoryMB: fc.integer({ min: 0, max: 100 }).map((x) => x * 1024) }),
        fc.array(resources, { maxLength: 300 }),
        (capacity, demands) => {
          const claims = demands.map((demand, i) => ({ id: `c${i}`, demand }));
          expect([...drfWaterFill(capacity, claims)]).toEqual([...referenceDrfWaterFill(capacity, claims)]);
        },
      ),
      { numRuns: 300, seed: 22 },
    );
  });

  it('orders by key stably, as a comparator sort does (above and below the radix threshold)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(0, -0, 1, 2, 1e-300, Infinity), fc.double({ min: 0, max: 1e6, noNaN: true })), { maxLength: 400 }),
        (keys) => {
          const k = Float64Array.from(keys);
          const want = keys.map((_, i) => i).sort((a, b) => keys[a] - keys[b] || a - b);
          expect(Array.from(orderByKey(k, k.length))).toEqual(want);
        },
      ),
      { numRuns: 300, seed: 22 },
    );
  });

  it('orders by key stably in buckets, as a comparator sort does (spread, clustered, tied and reversed keys)', () => {
    // Keys alike in their high bits or far out of order within a bucket take the radix sort.
    const spread = fc.oneof(fc.constantFrom(0, -0, 1, 2, 1e-300, Infinity), fc.double({ min: 0, max: 1e6, noNaN: true }));
    const clustered = fc.integer({ min: 0, max: 2 ** 20 }).map((k) => 0.5 + k * 2 ** -53);
    const tied = fc.integer({ min: 0, max: 5 }).map((k) => k / 7);
    fc.assert(
      fc.property(
        fc.oneof(fc.array(spread, { maxLength: 400 }), fc.array(fc.oneof(clustered, tied, spread), { maxLength: 400 })),
        fc.boolean(),
        (draw, reversed) => {
          const keys = reversed ? [...draw].sort((a, b) => b - a) : draw;
          const k = Float64Array.from(keys);
          const order = new Int32Array(k.length);
          const sorted = new Float64Array(k.length);
          orderByKeyInBuckets(k, k.length, order, sorted);
          const want = keys.map((_, i) => i).sort((a, b) => keys[a] - keys[b] || a - b);
          expect(Array.from(order)).toEqual(want);
          expect(Array.from(sorted)).toEqual(want.map((i) => (keys[i] === 0 ? 0 : keys[i])));
        },
      ),
      { numRuns: 300, seed: 22 },
    );
  });

  it('an entry read from a round keeps its numbers after the next round; the round itself is not read after it', () => {
    const C = { vcores: 10, memoryMB: 10240 };
    const round = (tqDemand: number): AllocQueue[] => [
      {
        id: 'lq',
        kind: 'LQ',
        cls: 'hard',
        demand: { vcores: 3, memoryMB: 0 },
        burst: { rate: { vcores: 8, memoryMB: 0 }, remaining: { vcores: 80, memoryMB: 0 } },
      },
      { id: 'tq', kind: 'TQ', cls: 'elastic', demand: { vcores: tqDemand, memoryMB: 0 } },
    ];
    const first = allocate('bopf', C, round(10));
    const tq = first.get('tq')!;
    allocate('bopf', C, round(1));
    // The explanation is written only now, after the second round wrote over the arrays.
    expect(JSON.parse(JSON.stringify(tq))).toEqual(referenceAllocate('bopf', C, round(10)).get('tq'));
    expect(tq.why).toContain('unused by others');
    expect(() => first.get('lq')).toThrow(/later round/);
    expect(() => first.at(0)).toThrow(/later round/);
  });

  it('explains the unused capacity a queue was given on top of its share', () => {
    const qs: AllocQueue[] = [
      {
        id: 'lq',
        kind: 'LQ',
        cls: 'hard',
        demand: { vcores: 3, memoryMB: 0 },
        burst: { rate: { vcores: 8, memoryMB: 0 }, remaining: { vcores: 80, memoryMB: 0 } },
      },
      { id: 'tq', kind: 'TQ', cls: 'elastic', demand: { vcores: 10, memoryMB: 0 } },
    ];
    const a = allocate('bopf', { vcores: 10, memoryMB: 10240 }, qs);
    expect(a.get('tq')!.why).toBe('elastic: DRF share 20.0% of the 100.0% left after guarantees; +50.0% unused by others');
    expect(JSON.parse(JSON.stringify(a.get('tq')))).toMatchObject({ tier: 'elastic', why: a.get('tq')!.why });
  });
});
