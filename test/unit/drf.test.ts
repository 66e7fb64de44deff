import { describe, expect, it } from 'vitest';
import type { AppView } from '../../src/core/model.js';
import { bopfQueues } from './bopf-queues.js';
import { drfPolicy, drfWaterFill } from '../../src/policies/drf/index.js';

const C = { vcores: 12, memoryMB: 12_288 };
const { leaf, app: appOf, snapshotWith: snap } = bopfQueues(C, 1024);
/** An app of `pending` containers, none running. */
const app = (id: string, queue: string, pending: number): AppView => appOf(id, queue, 0, pending);

describe('DRF progressive filling', () => {
  it('equalises dominant shares (the NSDI paper example: 9 CPUs, 18 GB; <1,4> and <3,1> tasks)', () => {
    // User A: tasks <1 CPU, 4 GB> (memory-dominant), B: <3 CPU, 1 GB> (CPU-dominant); both unbounded.
    const a = drfWaterFill({ vcores: 9, memoryMB: 18 }, [
      { id: 'A', demand: { vcores: 100, memoryMB: 400 } },
      { id: 'B', demand: { vcores: 300, memoryMB: 100 } },
    ]);
    // DRF gives A 3 tasks <3, 12> and B 2 tasks <6, 2>: dominant shares 12/18 = 6/9 = 2/3.
    expect(a.get('A')!.vcores).toBeCloseTo(3, 9);
    expect(a.get('A')!.memoryMB).toBeCloseTo(12, 9);
    expect(a.get('B')!.vcores).toBeCloseTo(6, 9);
    expect(a.get('B')!.memoryMB).toBeCloseTo(2, 9);
  });

  it('caps at demand and hands the rest to the others', () => {
    const a = drfWaterFill(C, [
      { id: 'small', demand: { vcores: 2, memoryMB: 0 } },
      { id: 'big', demand: { vcores: 50, memoryMB: 0 } },
      { id: 'idle', demand: { vcores: 0, memoryMB: 0 } },
    ]);
    expect(a.get('small')!.vcores).toBeCloseTo(2, 9);
    expect(a.get('big')!.vcores).toBeCloseTo(10, 9);
    expect(a.get('idle')).toEqual({ vcores: 0, memoryMB: 0 });
  });

  it('leaves nothing idle that someone wants', () => {
    const claims = Array.from({ length: 50 }, (_, i) => ({ id: `q${i}`, demand: { vcores: (i % 7) * 0.5, memoryMB: (i % 5) * 300 } }));
    const a = drfWaterFill(C, claims);
    let v = 0;
    let m = 0;
    for (const x of a.values()) {
      v += x.vcores;
      m += x.memoryMB;
    }
    // Σ demand: vcores 75 > 12 (saturated), memory 29,400 > 12,288 — every queue touches a saturated resource or is satisfied.
    expect(v <= 12 + 1e-9 && m <= 12_288 + 1e-6).toBe(true);
    expect(Math.max(v / 12, m / 12_288)).toBeCloseTo(1, 9);
  });
});

describe('drf policy', () => {
  it('sets capacities to the DRF shares of the busy leaves, summing to 100', () => {
    const p = drfPolicy.paramsSchema.parse({});
    const out = drfPolicy.decide({
      snapshot: snap([leaf('root.a', 80), leaf('root.b', 10), leaf('root.c', 10)], [app('1', 'a', 100), app('2', 'b', 100), app('3', 'root.c', 2)]),
      params: p,
      state: {},
    });
    // c wants 2 of 12 vcores; a and b split the other 10.
    expect(out.decisions[0].action).toEqual({
      kind: 'updateQueues',
      add: [],
      update: [
        { path: 'root.a', capacityPct: 41.7, maxCapacityPct: 100 },
        { path: 'root.b', capacityPct: 41.7, maxCapacityPct: 100 },
        { path: 'root.c', capacityPct: 16.6, maxCapacityPct: 100 },
      ],
    });
  });
});
