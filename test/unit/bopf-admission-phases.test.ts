/**
 * The resource condition with known arrival phases (BoPF §3.3, condition 3) checks each of the
 * candidate's bursts against the highest committed rate inside it. The admission computes that
 * rate as a step function swept once; this checks it against the condition evaluated point by
 * point (every burst start of the candidate, every hard burst start inside it) on random mixes:
 * the same verdict, the same first failing point, and the same busiest point when it holds.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AdmissionControl, burstRate, type AdmittedQueue } from '../../src/policies/bopf/admission.js';
import type { QueueSpec } from '../../src/policies/bopf/spec.js';

const C = { vcores: 100, memoryMB: 100 * 1024 };
const S = 1000;

/**
 * The condition point by point: the earliest time the candidate does not fit (`shortfallAt`), or,
 * when it fits everywhere, the first point where the hard bursts take the largest dominant share.
 */
function pointByPoint(candidate: QueueSpec, hard: readonly AdmittedQueue[], horizonMs: number): { shortfallAt?: number; busiestAt: number } {
  const rate = {
    vcores: candidate.demand!.vcoreSeconds / (candidate.burstDeadlineMs! / S),
    memoryMB: candidate.demand!.memoryMBSeconds / (candidate.burstDeadlineMs! / S),
  };
  const activeAt = (t: number) => {
    let v = 0;
    let m = 0;
    for (const q of hard) {
      const k = Math.floor((t - q.spec.firstArrivalMs!) / q.spec.periodMs!);
      if (k >= 0 && t - (q.spec.firstArrivalMs! + k * q.spec.periodMs!) < q.spec.burstDeadlineMs!) {
        v += burstRate(q).vcores;
        m += burstRate(q).memoryMB;
      }
    }
    return { v, m };
  };
  const eps = (b: number) => 1e-9 * Math.max(1, Math.abs(b));
  let busiestAt = candidate.firstArrivalMs!;
  let busiest = -1;
  for (let a = candidate.firstArrivalMs!; a < candidate.firstArrivalMs! + horizonMs; a += candidate.periodMs!) {
    const b = a + candidate.burstDeadlineMs!;
    const points = [a];
    for (const q of hard)
      for (let k = 0; q.spec.firstArrivalMs! + k * q.spec.periodMs! < b; k++) {
        const st = q.spec.firstArrivalMs! + k * q.spec.periodMs!;
        if (st > a) points.push(st);
      }
    for (const t of points.sort((x, y) => x - y)) {
      const { v, m } = activeAt(t);
      if (rate.vcores > C.vcores - v + eps(C.vcores - v) || rate.memoryMB > C.memoryMB - m + eps(C.memoryMB - m)) return { shortfallAt: t, busiestAt };
      const dom = Math.max(v / C.vcores, m / C.memoryMB);
      if (dom > busiest) {
        busiest = dom;
        busiestAt = t;
      }
    }
  }
  return { busiestAt };
}

const lq = (name: string, periodS: number, lenS: number, vcores: number, firstS: number): QueueSpec => ({
  name,
  kind: 'LQ',
  periodMs: periodS * S,
  burstDeadlineMs: lenS * S,
  demand: { vcoreSeconds: vcores * lenS, memoryMBSeconds: vcores * lenS * 512 },
  firstArrivalMs: firstS * S,
});

const arbLq = fc.record({
  period: fc.constantFrom(20, 30, 40, 60),
  len: fc.integer({ min: 1, max: 20 }),
  vcores: fc.integer({ min: 1, max: 60 }),
  first: fc.integer({ min: 0, max: 90 }),
});

describe('BoPF resource condition with known phases', () => {
  it('agrees with the condition evaluated at every point, on random mixes', () => {
    fc.assert(
      fc.property(fc.array(arbLq, { minLength: 1, maxLength: 8 }), arbLq, fc.boolean(), (committed, cand, removeFirst) => {
        const control = new AdmissionControl(C);
        committed.forEach((x, i) => control.admit(lq(`q${i}`, x.period, x.len, x.vcores, x.first)));
        // A removal makes the next candidate rebuild the hard bursts' steps from the queues left.
        if (removeFirst) control.remove('q0');
        const hard = control.queues().filter((q) => q.cls === 'hard');
        if (hard.length === 0) return;
        const candidate = lq('cand', cand.period, cand.len, cand.vcores, cand.first);
        const d = control.evaluate(candidate);
        const resource = d.checks.find((c) => c.condition === 'resource');
        if (!resource) return;
        const lcmOf = (a: number, b: number): number => {
          const g = (x: number, y: number): number => (y ? g(y, x % y) : x);
          return (a / g(a, b)) * b;
        };
        const horizon = [candidate, ...hard.map((q) => q.spec)].map((s) => s.periodMs!).reduce(lcmOf);
        const expected = pointByPoint(candidate, hard, horizon);
        expect(resource.passed).toBe(expected.shortfallAt === undefined);
        if (expected.shortfallAt !== undefined) expect(resource.detail).toContain(`at t = ${expected.shortfallAt / S} s`);
        else expect(resource.detail).toContain(`at the busiest point t = ${expected.busiestAt / S} s`);
      }),
      { numRuns: 400, seed: 7 },
    );
  });

  it('admits 400 phased LQs, each judged against the bursts already committed', () => {
    const control = new AdmissionControl({ vcores: 4_000, memoryMB: 4_000 * 1024 });
    const decisions = Array.from({ length: 400 }, (_, i) =>
      control.admit(lq(`lq${i}`, 600 + (i % 3) * 300, 1 + (i % 5), 200 + ((i * 37) % 1000), (i * 13) % 900)),
    );
    const classes = new Set(decisions.map((d) => d.cls));
    expect(classes.has('hard')).toBe(true);
    expect(classes.has('soft')).toBe(true);
    // Every soft LQ was refused by the resource condition at a point in time.
    for (const d of decisions.filter((x) => x.cls === 'soft')) expect(d.checks[2].detail).toMatch(/> C − Σ hard a_j\(t\) = .* at t = /);
  });
});
