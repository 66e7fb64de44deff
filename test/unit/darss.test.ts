import { describe, expect, it } from 'vitest';
import { parseWorkflow, type WorkflowRequestInput } from '../../src/core/rsl.js';
import {
  admitWorkflow,
  bestEffortQuota,
  emptyLedger,
  maxWindowIntegral,
  productionCap,
  releaseBooking,
  timeToDeadline,
  ttdList,
  TtdQueue,
  unreservedUnitMs,
  type AdmissionParams,
  type Ledger,
} from '../../src/policies/darss/index.js';
import { addSteps, emptySteps, forEachSegment, integral, valueAt } from '../../src/policies/shared/step-function.js';
import { Rng } from '../../src/sim/rng.js';

const S = 1000; // one thesis time unit = 1 s
const params = (extra: Partial<AdmissionParams> = {}): AdmissionParams => ({
  quota: { m: 7, n: 70, periodMs: 10 * S },
  productionCapPct: 100,
  admission: 'critical-path',
  groupShares: {},
  ...extra,
});
const wf = (w: WorkflowRequestInput) => parseWorkflow(w);

describe('DARSS ledger (run-length step function)', () => {
  it('adds, reads, integrates and merges equal neighbours', () => {
    const f = emptySteps();
    addSteps(f, 10, 20, 3);
    addSteps(f, 15, 30, 2);
    expect([valueAt(f, 9), valueAt(f, 10), valueAt(f, 15), valueAt(f, 20), valueAt(f, 30)]).toEqual([0, 3, 5, 2, 0]);
    expect(integral(f, 0, 100)).toBe(3 * 10 + 2 * 15);
    addSteps(f, 15, 30, -2);
    expect(f).toEqual({ times: [10, 20], units: [3, 0] });
  });

  it('keeps one entry per change, not one per millisecond', () => {
    const f = emptySteps();
    addSteps(f, 0, 30 * 86_400_000, 5);
    expect(f.times.length).toBe(2);
  });
});

describe('DARSS quota and admission (Fig. 3.7, 3.8)', () => {
  // Fig. 3.8: 7 containers in parallel, a window of 10 time units (70 unit-slots), m = 7 of
  // n = 70 per l = 10 for best-effort, PJ1 already holds 16: 47 units are left for PJ2.
  const cluster = () => {
    const l = emptyLedger(7);
    const pj1 = wf({ deadlineMs: 10 * S, jobs: [{ name: 'a', tasks: 16, leaseMs: S }] });
    const r = admitWorkflow(l, pj1, 'pj1', 0, params());
    expect(r.decision.accepted).toBe(true);
    return r.ledger!;
  };

  it('leaves 47 units for PJ2 with m=7, n=70, l=10', () => {
    const l = cluster();
    expect(bestEffortQuota(7, params().quota)).toBeCloseTo(0.7);
    expect(unreservedUnitMs(l, 0, 10 * S, params()) / S).toBeCloseTo(47);
  });

  it('accepts PJ2 of 47 units and rejects one of 48, with the numbers', () => {
    const l = cluster();
    const fits = admitWorkflow(l, wf({ deadlineMs: 10 * S, jobs: [{ name: 'b', tasks: 47, leaseMs: S }] }), 'pj2', 0, params({ admission: 'count-only' }));
    expect(fits.decision).toMatchObject({ accepted: true, rule: 'countOnlyAdmission', neededUnitMs: 47 * S, windowFromMs: 0, windowToMs: 10 * S });
    const over = admitWorkflow(l, wf({ deadlineMs: 10 * S, jobs: [{ name: 'b', tasks: 48, leaseMs: S }] }), 'pj2', 0, params({ admission: 'count-only' }));
    expect(over.decision).toMatchObject({ accepted: false, rule: 'countOnlyAdmission', neededUnitMs: 48 * S });
    expect(over.decision.freeUnitMs / S).toBeCloseTo(47);
    expect(over.ledger).toBeUndefined();
    expect(over.decision.reason).toMatch(/48\.0 unit·s.*47\.0 unit·s/);
  });

  it('rejects a workflow whose critical path is longer than the time left, though its units fit, and says the test is stricter', () => {
    const chain = wf({
      deadlineMs: 3 * S,
      jobs: [
        { name: 'x', tasks: 1, leaseMs: 2 * S },
        { name: 'y', tasks: 1, leaseMs: 2 * S, prerequisites: ['x'] },
      ],
    });
    const strict = admitWorkflow(emptyLedger(100), chain, 'c', 0, params());
    expect(strict.decision).toMatchObject({ accepted: false, rule: 'criticalPathLongerThanTimeLeft', criticalPathMs: 4 * S, timeLeftMs: 3 * S });
    expect(strict.decision.reason).toMatch(/stricter than the thesis's count-only test/);
    expect(admitWorkflow(emptyLedger(100), chain, 'c', 0, params({ admission: 'count-only' })).decision.accepted).toBe(true);
  });

  it('books a job no faster than its tasks can run, so the count alone is not enough', () => {
    // 4 units, quota 0, one task of 4 s due at 8 s; all 4 units are held in [0, 5 s): 12 unit·s
    // are free, but the task gets only 3 s of them.
    const l = emptyLedger(4);
    addSteps(l.production, 0, 5 * S, 4);
    const p = params({ quota: { m: 0, n: 1, periodMs: S } });
    const w = wf({ deadlineMs: 8 * S, jobs: [{ name: 'a', tasks: 1, leaseMs: 4 * S }] });
    expect(unreservedUnitMs(l, 0, 8 * S, p)).toBe(12 * S);
    const d = admitWorkflow(l, w, 'w', 0, p).decision;
    expect(d).toMatchObject({ accepted: false, rule: 'criticalPathAdmission' });
    expect(admitWorkflow(l, w, 'w', 0, { ...p, admission: 'count-only' }).decision.accepted).toBe(true);
  });

  it('books prerequisites before the jobs that need them, as late as they can go', () => {
    const w = wf({
      deadlineMs: 10 * S,
      jobs: [
        { name: 'first', tasks: 2, leaseMs: 2 * S },
        { name: 'then', tasks: 2, leaseMs: 3 * S, prerequisites: ['first'] },
      ],
    });
    const r = admitWorkflow(emptyLedger(10), w, 'w', 0, params({ quota: { m: 0, n: 1, periodMs: S } }));
    expect(r.decision.accepted).toBe(true);
    expect(r.ledger!.bookings.w).toEqual({ then: [[7 * S, 10 * S, 2]], first: [[5 * S, 7 * S, 2]] });
    expect(r.decision.bookedFromMs).toBe(5 * S);
  });

  it('caps production at productionCapPct and a group at its instantaneous and average shares', () => {
    const w = wf({ group: 'g', deadlineMs: 10 * S, jobs: [{ name: 'a', tasks: 80, leaseMs: S }] });
    expect(productionCap(10, params({ productionCapPct: 75 }))).toBe(7.5);
    expect(admitWorkflow(emptyLedger(10), w, 'w', 0, params({ productionCapPct: 75 })).decision.accepted).toBe(false);
    expect(admitWorkflow(emptyLedger(10), w, 'w', 0, params({ productionCapPct: 90, quota: { m: 0, n: 1, periodMs: S } })).decision.accepted).toBe(true);
    const capped = admitWorkflow(
      emptyLedger(10),
      w,
      'w',
      0,
      params({ productionCapPct: 90, quota: { m: 0, n: 1, periodMs: S }, groupShares: { g: { maxPct: 50 } } }),
    );
    expect(capped.decision).toMatchObject({ accepted: false, rule: 'criticalPathAdmission' });
    expect(capped.decision.reason).toMatch(/group g capped at 50%/);
    const avg = admitWorkflow(
      emptyLedger(10),
      wf({ group: 'g', deadlineMs: 10 * S, jobs: [{ name: 'a', tasks: 40, leaseMs: S }] }),
      'w',
      0,
      params({ groupShares: { '*': { averagePct: 20, averageWindowMs: 10 * S } } }),
    );
    expect(avg.decision).toMatchObject({ accepted: false, rule: 'groupAverageShareCap' });
  });

  it('gives back what a finished job still had booked', () => {
    const r = admitWorkflow(emptyLedger(10), wf({ deadlineMs: 10 * S, jobs: [{ name: 'a', tasks: 2, leaseMs: 4 * S }] }), 'w', 0, params());
    const l = r.ledger!;
    expect(integral(l.production, 0, 10 * S)).toBe(8 * S);
    expect(releaseBooking(l, 'w', 'default', 8 * S)).toBe(4 * S);
    expect(integral(l.production, 0, 10 * S)).toBe(4 * S);
    expect(releaseBooking(l, 'w', 'default', 0)).toBe(4 * S);
    expect(l.bookings.w).toBeUndefined();
    expect(l.production.times).toEqual([]);
  });

  it('never books more than capacity minus the quota (or the cap) in any slot (random requests)', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const rng = new Rng(seed);
      const C = 1 + rng.int(40);
      const p = params({
        quota: { m: rng.int(5), n: 5 + rng.int(20), periodMs: S },
        productionCapPct: 30 + rng.int(71),
        admission: rng.next() < 0.5 ? 'count-only' : 'critical-path',
      });
      const limit = Math.min(C - bestEffortQuota(C, p.quota), (C * p.productionCapPct) / 100);
      let l: Ledger = emptyLedger(C);
      let now = 0;
      for (let k = 0; k < 25; k++) {
        now += rng.int(5 * S);
        const jobs = Array.from({ length: 1 + rng.int(4) }, (_, i) => ({
          name: `j${i}`,
          tasks: 1 + rng.int(12),
          leaseMs: (1 + rng.int(6)) * S + rng.int(S),
          unitsPerTask: 1 + rng.int(3),
          prerequisites: i > 0 && rng.next() < 0.6 ? [`j${rng.int(i)}`] : [],
        }));
        const r = admitWorkflow(l, wf({ deadlineMs: now + (1 + rng.int(40)) * S, jobs }), `r${k}`, now, p);
        if (r.ledger) l = r.ledger;
        if (k % 7 === 6) releaseBooking(l, `r${k - 3}`, 'default', now + rng.int(10 * S));
        forEachSegment(l.production, 0, now + 100 * S, (_a, _b, v) => {
          expect(v).toBeLessThanOrEqual(limit + 1e-6);
          expect(v).toBeGreaterThanOrEqual(-1e-6);
        });
      }
    }
  });

  it('finds the worst window of a step function', () => {
    const f = emptySteps();
    addSteps(f, 0, 10, 1);
    addSteps(f, 20, 25, 4);
    expect(maxWindowIntegral(f, 0, 40, 10)).toBe(20);
    expect(maxWindowIntegral(f, 0, 40, 30)).toBe(10 + 20 - 0);
  });
});

describe('DARSS time-to-deadline list (Table 3.1)', () => {
  // Fig. 3.6 / Table 3.1: job2 after job1; in job1 tasks 3 and 4 need task 1; job3 is a chain.
  const fig36 = wf({
    deadlineMs: 10,
    jobs: [
      { name: 'j1', tasks: 4, leaseMs: 1, taskPrerequisites: { '3': [1], '4': [1] } },
      { name: 'j2', tasks: 4, leaseMs: 1, prerequisites: ['j1'] },
      { name: 'j3', tasks: 3, leaseMs: 1, taskPrerequisites: { '2': [1], '3': [2] } },
    ],
  });

  it('gives the thesis values 8, 9 and 10', () => {
    const ttd = Object.fromEntries(ttdList('w1', fig36).map((e) => [e.task, e.ttdMs]));
    expect(ttd).toEqual({
      'w1.j1.t1': 8,
      'w1.j3.t1': 8,
      'w1.j3.t2': 9,
      'w1.j1.t2': 9,
      'w1.j1.t3': 9,
      'w1.j1.t4': 9,
      'w1.j3.t3': 10,
      'w1.j2.t1': 10,
      'w1.j2.t2': 10,
      'w1.j2.t3': 10,
      'w1.j2.t4': 10,
    });
    const list = ttdList('w1', fig36).map((e) => e.ttdMs);
    expect(list).toEqual([...list].sort((a, b) => a - b));
  });

  it('gives each job its latest start', () => {
    const d = timeToDeadline(fig36);
    expect(d.get('j1')).toMatchObject({ latestFinishMs: 9, latestStartMs: 7 });
    expect(d.get('j2')).toMatchObject({ latestFinishMs: 10, latestStartMs: 9 });
    expect(d.get('j3')).toMatchObject({ latestFinishMs: 10, latestStartMs: 7 });
  });

  it('pops least ttd first, ties in insertion order, and survives JSON', () => {
    const q = new TtdQueue<string>();
    for (const [k, v] of [
      [5, 'a'],
      [1, 'b'],
      [5, 'c'],
      [0, 'd'],
      [1, 'e'],
    ] as const)
      q.push(k, v);
    const back = Object.assign(new TtdQueue<string>(), JSON.parse(JSON.stringify(q)));
    const out: string[] = [];
    for (let x = back.pop(); x !== undefined; x = back.pop()) out.push(x);
    expect(out).toEqual(['d', 'b', 'e', 'a', 'c']);
  });
});

describe('DARSS policy: cluster capacity changes', () => {
  const node = (i: number) => ({
    id: `n${i}`,
    state: 'RUNNING' as const,
    rack: '/r',
    capacity: { vcores: 1, memoryMB: 1024 },
    physicalCapacity: { vcores: 1, memoryMB: 1024 },
    used: { vcores: 0, memoryMB: 0 },
    containerIds: [],
  });
  const root = {
    path: 'root',
    name: 'root',
    state: 'RUNNING' as const,
    capacityPct: 100,
    maxCapacityPct: 100,
    absoluteCapacityPct: 100,
    absoluteMaxCapacityPct: 100,
    usedCapacityPct: 0,
    used: { vcores: 0, memoryMB: 0 },
    numApplications: 0,
    children: [],
  };
  const snapshot = (nowMs: number, nodes: number) => ({
    nowMs,
    totalCapacity: { vcores: nodes, memoryMB: nodes * 1024 },
    nodes: new Map(Array.from({ length: nodes }, (_, i) => [`n${i}`, node(i)] as const)),
    apps: new Map(),
    containers: new Map(),
    rootQueue: root,
  });

  it('reports admitted requests that no longer fit when nodes are lost, and forgets them when they fit again', async () => {
    const { darssPolicy } = await import('../../src/policies/darss/index.js');
    const params = darssPolicy.paramsSchema.parse({
      quota: { m: 0, n: 1 },
      productionCapPct: 100,
      requests: [{ id: 'r1', submittedAtMs: 0, deadlineMs: 100_000, jobs: [{ name: 'a', tasks: 7, leaseMs: 100_000 }] }],
    });
    let state = darssPolicy.initialState(params);
    state = darssPolicy.decide({ snapshot: snapshot(0, 10), params, state }).state;
    expect(state.judged.r1.accepted).toBe(true);
    expect(state.noLongerFit).toBeUndefined();
    const out = darssPolicy.decide({ snapshot: snapshot(1000, 5), params, state });
    expect(out.state.noLongerFit).toEqual({ r1: { atMs: 1000, capacityUnits: 5, limitUnits: 5, bookedUnits: 7 } });
    expect(out.notes?.some((n) => /capacityChanged: 10 → 5 units; no longer fit .*r1/.test(n))).toBe(true);
    expect(darssPolicy.decide({ snapshot: snapshot(2000, 10), params, state: out.state }).state.noLongerFit).toBeUndefined();
  });
});
