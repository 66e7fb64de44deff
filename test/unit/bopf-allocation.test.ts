import { describe, expect, it } from 'vitest';
import { allocate, type AllocQueue } from '../../src/policies/shared/queues/allocate.js';
import { capacityDecision, largestRemainder, planCapacities } from '../../src/policies/shared/queues/capacities.js';
import { bopfPolicy } from '../../src/policies/bopf/policy.js';
import { nbopfPolicy } from '../../src/policies/bopf/nbopf.js';
import type { QueueSpec } from '../../src/policies/bopf/spec.js';
import { bopfQueues } from './bopf-queues.js';

const C = { vcores: 10, memoryMB: 10240 };
const r = (vcores: number, memoryMB = 0) => ({ vcores, memoryMB });
const total = (m: { values(): Iterable<{ alloc: { vcores: number; memoryMB: number } }> }) => {
  let v = 0;
  let mem = 0;
  for (const a of m.values()) {
    v += a.alloc.vcores;
    mem += a.alloc.memoryMB;
  }
  return { vcores: v, memoryMB: mem };
};

describe('BoPF allocation at one instant', () => {
  it('a hard LQ in a burst gets the constant rate d/t; the TQ gets the rest', () => {
    const qs: AllocQueue[] = [
      { id: 'lq', kind: 'LQ', cls: 'hard', demand: r(10), burst: { rate: r(8), remaining: r(80) } },
      { id: 'tq', kind: 'TQ', cls: 'elastic', demand: r(10) },
    ];
    const a = allocate('bopf', C, qs);
    expect(a.get('lq')).toMatchObject({ tier: 'hard', guarantee: r(8), alloc: r(8) });
    expect(a.get('tq')!.alloc.vcores).toBeCloseTo(2, 9);
  });

  it('unused hard rate is redistributed (work conservation) but stays guaranteed', () => {
    const qs: AllocQueue[] = [
      { id: 'lq', kind: 'LQ', cls: 'hard', demand: r(3), burst: { rate: r(8), remaining: r(80) } },
      { id: 'tq', kind: 'TQ', cls: 'elastic', demand: r(10) },
    ];
    const a = allocate('bopf', C, qs);
    expect(a.get('lq')!.guarantee).toEqual(r(8));
    expect(a.get('lq')!.alloc.vcores).toBeCloseTo(3, 9);
    expect(a.get('tq')!.guarantee.vcores).toBeCloseTo(2, 9);
    expect(a.get('tq')!.alloc.vcores).toBeCloseTo(7, 9);
    expect(a.get('tq')!.why).toContain('unused by others');
  });

  it('soft LQs share what hard LQs leave in SRPT order', () => {
    const qs: AllocQueue[] = [
      { id: 'h', kind: 'LQ', cls: 'hard', demand: r(10), burst: { rate: r(4), remaining: r(40) } },
      { id: 'long', kind: 'LQ', cls: 'soft', demand: r(10), burst: { rate: r(5), remaining: r(100) } },
      { id: 'short', kind: 'LQ', cls: 'soft', demand: r(4), burst: { rate: r(5), remaining: r(20) } },
      { id: 'tq', kind: 'TQ', cls: 'elastic', demand: r(10) },
    ];
    const a = allocate('bopf', C, qs);
    expect(a.get('short')!.alloc.vcores).toBeCloseTo(4, 9); // least remaining first: all it can use
    expect(a.get('long')!.alloc.vcores).toBeCloseTo(2, 9); // then the 10 − 4 − 4 left
    expect(a.get('tq')!.alloc.vcores).toBeCloseTo(0, 9);
    expect(a.get('long')!.tier).toBe('soft');
  });

  it('a soft LQ that has received its burst demand competes as elastic', () => {
    const qs: AllocQueue[] = [
      { id: 's', kind: 'LQ', cls: 'soft', demand: r(10), burst: { rate: r(5), remaining: r(0) } },
      { id: 'tq', kind: 'TQ', cls: 'elastic', demand: r(10) },
    ];
    const a = allocate('bopf', C, qs);
    expect(a.get('s')!.tier).toBe('elastic');
    expect(a.get('s')!.alloc.vcores).toBeCloseTo(5, 9);
  });

  it('elastic queues share by DRF (equal dominant shares over two resources)', () => {
    const qs: AllocQueue[] = [
      { id: 'cpu', kind: 'TQ', cls: 'elastic', demand: r(10, 1024) },
      { id: 'mem', kind: 'TQ', cls: 'elastic', demand: r(1, 10240) },
    ];
    const a = allocate('bopf', C, qs);
    // Dominant share s for both: 10s + 1s ≤ 10 vcores and 1024s + 10240s ≤ 10240 MB → s = 10/11.
    expect(a.get('cpu')!.alloc.vcores).toBeCloseTo(100 / 11, 6);
    expect(a.get('mem')!.alloc.memoryMB).toBeCloseTo(102400 / 11, 6);
  });

  it('is work conserving: capacity is left idle only when every demand is met', () => {
    const qs: AllocQueue[] = [
      { id: 'h', kind: 'LQ', cls: 'hard', demand: r(1, 100), burst: { rate: r(6, 6000), remaining: r(60) } },
      { id: 'e', kind: 'LQ', cls: 'elastic', demand: r(0, 9000) },
      { id: 't', kind: 'TQ', cls: 'elastic', demand: r(20, 200) },
      { id: 'x', kind: 'TQ', cls: 'none', demand: r(5) },
    ];
    const a = allocate('bopf', C, qs);
    const sum = total(a);
    expect(sum.vcores).toBeCloseTo(10, 6); // vcores are wanted beyond capacity: all handed out
    expect(a.get('x')!.alloc).toEqual(r(0)); // not admitted: nothing
    expect(a.get('e')!.alloc.memoryMB).toBeCloseTo(9000, 6); // memory is plentiful: e (memory only) fully served
    expect(a.get('t')!.alloc.vcores).toBeCloseTo(9, 6); // and the vcores h leaves unused go to t
  });

  it('strict priority serves LQs fully first; DRF ignores kinds', () => {
    const qs: AllocQueue[] = [
      { id: 'lq', kind: 'LQ', cls: 'elastic', demand: r(8) },
      { id: 'tq', kind: 'TQ', cls: 'elastic', demand: r(10) },
    ];
    expect(allocate('sp', C, qs).get('lq')!.alloc.vcores).toBeCloseTo(8, 9);
    expect(allocate('sp', C, qs).get('tq')!.alloc.vcores).toBeCloseTo(2, 9);
    expect(allocate('drf', C, qs).get('lq')!.alloc.vcores).toBeCloseTo(5, 9);
  });
});

describe('capacities', () => {
  it('sum to exactly 100 on the decimal grid', () => {
    const leaves = ['a', 'b', 'c'];
    const p = planCapacities(leaves, [], leaves, new Map(), 1);
    expect([...p.units.values()].reduce((x, y) => x + y, 0)).toBe(1000);
    expect([...p.pct.values()].sort()).toEqual([33.3, 33.3, 33.4]);
    for (let n = 1; n <= 13; n++) {
      const ks = Array.from({ length: n }, (_, i) => `q${i}`);
      const w = new Map(ks.map((k, i) => [k, Math.sqrt(i + 1)]));
      for (const d of [0, 1, 2]) {
        const u = largestRemainder(ks, w, 100 * 10 ** d);
        expect([...u.values()].reduce((x, y) => x + y, 0)).toBe(100 * 10 ** d);
      }
    }
  });

  it('serves tiers in order and scales a tier that does not fit', () => {
    const leaves = ['h1', 'h2', 's', 'e'];
    const p = planCapacities(
      leaves,
      [
        {
          label: 'hard',
          shares: new Map([
            ['h1', 0.5],
            ['h2', 0.3],
          ]),
        },
        { label: 'soft', shares: new Map([['s', 0.4]]) },
      ],
      ['e'],
      new Map(),
      0,
    );
    expect(Object.fromEntries(p.pct)).toEqual({ h1: 50, h2: 30, s: 20, e: 0 });
    expect(p.notes[0]).toContain('soft shares sum to 40.0% > 20.0% left');
  });

  it('a floor raises the floored leaves, paid by the others above it (outside the tiers first), sum still exactly 100', () => {
    const leaves = ['h', 'e1', 'e2', 'idle', 'other'];
    const tiers = [{ label: 'hard', shares: new Map([['h', 0.5]]) }];
    // e1 and e2 share the remainder 3:1; idle and other get nothing.
    const w = new Map([
      ['e1', 3],
      ['e2', 1],
    ]);
    const without = planCapacities(leaves, tiers, ['e1', 'e2'], w, 1);
    expect(Object.fromEntries(without.pct)).toEqual({ h: 50, e1: 37.5, e2: 12.5, idle: 0, other: 0 });
    expect(without.floor).toBeUndefined();
    const p = planCapacities(leaves, tiers, ['e1', 'e2'], w, 1, { pct: 1, to: ['h', 'e1', 'e2', 'idle'] });
    // 'other' is not floored and stays at 0; the 1 % for 'idle' comes from e1/e2 above their own
    // floor (36.5 : 11.5), the hard guarantee is untouched.
    expect(p.pct.get('h')).toBe(50);
    expect(p.pct.get('idle')).toBe(1);
    expect(p.pct.get('other')).toBe(0);
    expect(p.pct.get('e1')! + p.pct.get('e2')!).toBeCloseTo(49, 9);
    expect(p.pct.get('e1')).toBeCloseTo(37.5 - (1 * 36.5) / 48, 1);
    expect([...p.units.values()].reduce((x, y) => x + y, 0)).toBe(1000);
    expect([...p.floor!.raised.keys()]).toEqual(['idle']);
    expect([...p.floor!.paid.keys()].sort()).toEqual(['e1', 'e2']);
    expect(p.floor!.raised.get('idle')).toBeCloseTo(0.01, 12);
    expect([...p.floor!.paid.values()].reduce((x, y) => x + y, 0)).toBeCloseTo(0.01, 12);
  });

  it('a floor takes from the guarantees only when nothing else is above it; it is rounded up to the grid and capped at an equal split', () => {
    // Hard shares fill 100 %: the floor of the idle leaf can only come from them, proportionally.
    const p = planCapacities(
      ['h1', 'h2', 'idle'],
      [
        {
          label: 'hard',
          shares: new Map([
            ['h1', 0.6],
            ['h2', 0.4],
          ]),
        },
      ],
      [],
      new Map(),
      1,
      { pct: 2, to: ['h1', 'h2', 'idle'] },
    );
    expect(Object.fromEntries(p.pct)).toEqual({ h1: 58.8, h2: 39.2, idle: 2 });
    // 0.25 % on a 1-decimal grid → 0.3 %.
    const g = planCapacities(['a', 'b'], [{ label: 'hard', shares: new Map([['a', 1]]) }], [], new Map(), 1, { pct: 0.25, to: ['a', 'b'] });
    expect(Object.fromEntries(g.pct)).toEqual({ a: 99.7, b: 0.3 });
    expect(g.floor!.pct).toBe(0.3);
    // 40 % × 3 queues > 100 %: each gets an equal third at most.
    const c = planCapacities(['a', 'b', 'c'], [{ label: 'hard', shares: new Map([['a', 1]]) }], [], new Map(), 0, { pct: 40, to: ['a', 'b', 'c'] });
    expect(Object.fromEntries(c.pct)).toEqual({ a: 34, b: 33, c: 33 });
    expect(c.notes.some((n) => n.includes('exceeds 100%'))).toBe(true);
  });

  it('hysteresis: small changes are not sent, larger ones are, as one mutation of all siblings', () => {
    const snap = snapshotWith([leaf('root.a', 50), leaf('root.b', 50)], []);
    const small = capacityDecision(
      snap,
      [
        { path: 'root.a', capacityPct: 51, why: '' },
        { path: 'root.b', capacityPct: 49, why: '' },
      ],
      { policy: 'p', rule: 'r', hysteresisPct: 2 },
    );
    expect(small.decision).toBeUndefined();
    expect(small.note).toContain('nothing sent');
    const big = capacityDecision(
      snap,
      [
        { path: 'root.a', capacityPct: 55, why: 'x' },
        { path: 'root.b', capacityPct: 45, why: 'y' },
      ],
      { policy: 'p', rule: 'r', hysteresisPct: 2 },
    );
    expect(big.decision!.action).toEqual({
      kind: 'updateQueues',
      add: [],
      update: [
        { path: 'root.a', capacityPct: 55 },
        { path: 'root.b', capacityPct: 45 },
      ],
    });
    const add = capacityDecision(
      snap,
      [
        { path: 'root.a', capacityPct: 50, why: '' },
        { path: 'root.b', capacityPct: 50, why: '' },
        { path: 'root.c', capacityPct: 0, maxCapacityPct: 100, why: '' },
      ],
      { policy: 'p', rule: 'r', hysteresisPct: 2 },
    );
    expect(add.decision!.action).toMatchObject({ add: [{ path: 'root.c', capacityPct: 0, maxCapacityPct: 100 }] });
  });
});

// ------------------------------------------------------------------------------------------------

const { leaf, snapshotWith, app } = bopfQueues(C);

describe('BoPF policy cycle', () => {
  const specs: QueueSpec[] = [
    { name: 'tq', kind: 'TQ' },
    { name: 'lq', kind: 'LQ', periodMs: 100_000, burstDeadlineMs: 10_000, demand: { vcoreSeconds: 80, memoryMBSeconds: 0 } },
  ];
  const params = bopfPolicy.paramsSchema.parse({ queues: specs, hysteresisPct: 1, carryShortfall: false, capacityMode: 'percentage' });

  it('admits, opens a burst, gives the hard LQ d/t as capacity, and returns it after the deadline', () => {
    let state = bopfPolicy.initialState(params);
    // t = 0: only the TQ is busy: it gets everything but the idle LQ's 1 % floor (at 0 % the RM
    // would refuse the LQ's next burst).
    let out = bopfPolicy.decide({ snapshot: snapshotWith([leaf('root.tq', 50), leaf('root.lq', 50)], [app('t', 'tq', 10, 100)], 0), params, state });
    expect(out.notes!.some((n) => n.startsWith('admission: lq → hard'))).toBe(true);
    expect(out.decisions[0].action).toMatchObject({
      update: [
        { path: 'root.tq', capacityPct: 99 },
        { path: 'root.lq', capacityPct: 1 },
      ],
    });
    expect(out.decisions[0].reason).toContain(
      'root.lq=1% (elastic: DRF share 0.0% of the 100.0% left after guarantees; raised by 1.0% to the 1% floor (minCapacityPct',
    );
    expect(out.decisions[0].reason).toContain(
      "root.tq=99% (elastic: DRF share 100.0% of the 100.0% left after guarantees; 1.0% less for other queues' 1% floor)",
    );
    expect(out.notes).toContain('floor: root.lq raised to 1% (minCapacityPct)');
    state = out.state;
    // t = 5 s: a burst arrives in lq: hard rate 80 vcore·s / 10 s = 8 of 10 vcores → 80 %.
    out = bopfPolicy.decide({
      snapshot: snapshotWith([leaf('root.tq', 99), leaf('root.lq', 1)], [app('t', 'tq', 10, 100), app('l', 'lq', 0, 20)], 5_000),
      params,
      state,
    });
    expect(out.decisions[0].action).toMatchObject({
      update: [
        { path: 'root.tq', capacityPct: 20 },
        { path: 'root.lq', capacityPct: 80 },
      ],
    });
    expect(out.decisions[0].reason).toContain('hard: burst rate d/t = 80.0%');
    expect(out.wakeAtMs).toBe(15_000);
    state = out.state;
    // t = 15 s: deadline passed while the LQ still works: it is elastic again (DRF with the TQ).
    out = bopfPolicy.decide({
      snapshot: snapshotWith([leaf('root.tq', 20), leaf('root.lq', 80)], [app('t', 'tq', 2, 100), app('l', 'lq', 8, 20)], 15_000),
      params,
      state,
    });
    expect(out.decisions[0].action).toMatchObject({
      update: [
        { path: 'root.tq', capacityPct: 50 },
        { path: 'root.lq', capacityPct: 50 },
      ],
    });
    state = out.state;
    expect(state.tracks.lq.received.vcores).toBeCloseTo(0, 9); // it held nothing at 5 s
    // A new burst cannot open before one period has passed since the last one.
    out = bopfPolicy.decide({
      snapshot: snapshotWith([leaf('root.tq', 50), leaf('root.lq', 50)], [app('t', 'tq', 5, 100), app('l2', 'lq', 5, 20)], 50_000),
      params,
      state,
    });
    expect(out.state.tracks.lq.open).toBe(false);
    out = bopfPolicy.decide({
      snapshot: snapshotWith([leaf('root.tq', 50), leaf('root.lq', 50)], [app('t', 'tq', 5, 100), app('l3', 'lq', 5, 20)], 105_000),
      params,
      state: out.state,
    });
    expect(out.state.tracks.lq.open).toBe(true);
  });

  it('keeps a guarantee past the deadline until d is received (carryShortfall), never past the period', () => {
    const p = bopfPolicy.paramsSchema.parse({ queues: specs, hysteresisPct: 1 });
    const snap = (now: number, lqRunning: number) =>
      snapshotWith([leaf('root.tq', 20), leaf('root.lq', 80)], [app('t', 'tq', 10 - lqRunning, 100), app('l', 'lq', lqRunning, 100)], now);
    let state = bopfPolicy.decide({ snapshot: snap(0, 0), params: p, state: bopfPolicy.initialState(p) }).state; // burst opens at 0
    // It held 2 vcores from 0 to 10 s: 20 of its 80 vcore·s; past the 10 s deadline it stays hard.
    state = bopfPolicy.decide({ snapshot: snap(0, 2), params: p, state }).state;
    let out = bopfPolicy.decide({ snapshot: snap(10_000, 8), params: p, state });
    expect(out.state.tracks.lq.open).toBe(true);
    expect(out.notes!.some((n) => n.includes('past its deadline with 25% of d received'))).toBe(true);
    expect(out.wakeAtMs).toBe(100_000); // the period end bounds the carry
    // 10 → 17.5 s at 8 vcores brings it to 80 vcore·s: the guarantee ends.
    out = bopfPolicy.decide({ snapshot: snap(17_500, 8), params: p, state: out.state });
    expect(out.state.tracks.lq.open).toBe(false);
    expect(out.decisions[0].action).toMatchObject({
      update: [
        { path: 'root.tq', capacityPct: 50 },
        { path: 'root.lq', capacityPct: 50 },
      ],
    });
  });

  it('minCapacityPct 0 turns the floor off: the idle LQ is held at 0 %', () => {
    const p = bopfPolicy.paramsSchema.parse({ queues: specs, hysteresisPct: 1, minCapacityPct: 0 });
    const out = bopfPolicy.decide({
      snapshot: snapshotWith([leaf('root.tq', 50), leaf('root.lq', 50)], [app('t', 'tq', 10, 100)], 0),
      params: p,
      state: bopfPolicy.initialState(p),
    });
    expect(out.decisions[0].action).toMatchObject({
      update: [
        { path: 'root.tq', capacityPct: 100 },
        { path: 'root.lq', capacityPct: 0 },
      ],
    });
    expect(out.decisions[0].reason).not.toContain('floor');
  });

  it('does not re-send capacities that moved less than the hysteresis threshold', () => {
    const p = bopfPolicy.paramsSchema.parse({ queues: specs, hysteresisPct: 5, capacityMode: 'percentage' });
    const out = bopfPolicy.decide({
      snapshot: snapshotWith([leaf('root.tq', 97), leaf('root.lq', 3)], [app('t', 'tq', 10, 100)], 0),
      params: p,
      state: bopfPolicy.initialState(p),
    });
    expect(out.decisions).toEqual([]);
  });

  it('creates admitted queues that do not exist yet and gives unadmitted leaves no guarantee', () => {
    const p = bopfPolicy.paramsSchema.parse({ queues: specs });
    const out = bopfPolicy.decide({ snapshot: snapshotWith([leaf('root.default', 100)], []), params: p, state: bopfPolicy.initialState(p) });
    const a = out.decisions[0].action as { add: { path: string; capacityPct: number }[]; update: { path: string; capacityPct: number }[] };
    expect(a.add.map((q) => q.path).sort()).toEqual(['root.lq', 'root.tq']);
    expect(a.update).toEqual([{ path: 'root.default', capacityPct: 0 }]);
    const sum = [...a.add, ...a.update].reduce((s, q) => s + q.capacityPct, 0);
    expect(sum).toBeCloseTo(100, 9);
    // Optionally, leaves that are not admitted are shut (max-capacity 0).
    const shut = bopfPolicy.paramsSchema.parse({ queues: specs, unadmittedMaxCapacityPct: 0 });
    const o2 = bopfPolicy.decide({ snapshot: snapshotWith([leaf('root.default', 100)], []), params: shut, state: bopfPolicy.initialState(shut) });
    expect((o2.decisions[0].action as { update: unknown[] }).update).toEqual([{ path: 'root.default', capacityPct: 0, maxCapacityPct: 0 }]);
  });

  it('N-BoPF makes the would-be soft LQ elastic', () => {
    const two: QueueSpec[] = [
      ...specs,
      { name: 'lq2', kind: 'LQ', periodMs: 100_000, burstDeadlineMs: 10_000, demand: { vcoreSeconds: 50, memoryMBSeconds: 0 } },
    ];
    const snap = snapshotWith([leaf('root.tq', 34), leaf('root.lq', 33), leaf('root.lq2', 33)], []);
    const b = bopfPolicy.decide({ snapshot: snap, params: bopfPolicy.paramsSchema.parse({ queues: two }), state: bopfPolicy.initialState({} as never) });
    const n = nbopfPolicy.decide({ snapshot: snap, params: nbopfPolicy.paramsSchema.parse({ queues: two }), state: nbopfPolicy.initialState({} as never) });
    expect(b.state.book!.queues.map((q) => q.cls)).toEqual(['elastic', 'hard', 'soft']);
    expect(n.state.book!.queues.map((q) => q.cls)).toEqual(['elastic', 'hard', 'elastic']);
  });
});
