import { describe, expect, it } from 'vitest';
import { AdmissionControl, admitAll } from '../../src/policies/bopf/admission.js';
import { normalQuantile, quantile, resolveDemand } from '../../src/policies/bopf/alpha.js';
import { queueSpecSchema, type QueueSpec } from '../../src/policies/bopf/spec.js';

// A 10-vcore, 10 GB cluster keeps the numbers checkable by hand.
const C = { vcores: 10, memoryMB: 10240 };
const lq = (name: string, vcoreSeconds: number, periodMs = 100_000, burstDeadlineMs = 10_000, extra: Partial<QueueSpec> = {}): QueueSpec => ({
  name,
  kind: 'LQ',
  periodMs,
  burstDeadlineMs,
  demand: { vcoreSeconds, memoryMBSeconds: 0 },
  ...extra,
});
const tq = (name: string): QueueSpec => ({ name, kind: 'TQ' });

describe('BoPF admission', () => {
  it('admits hard, soft, elastic and rejects, each with the numbers of its conditions', () => {
    const a = new AdmissionControl(C);
    // a: N' = 1; fairness 80 ≤ 10 × 100 / 1 = 1000; resource 80/10 = 8 ≤ 10 − 0 → hard.
    const da = a.admit(lq('a', 80));
    expect(da.cls).toBe('hard');
    expect(da.checks.map((c) => [c.condition, c.passed])).toEqual([
      ['safety', true],
      ['fairness', true],
      ['resource', true],
    ]);
    // b: N' = 2; safety 80 ≤ 500; fairness 50 ≤ 500; resource 5 > 10 − 8 = 2 → soft.
    const db = a.admit(lq('b', 50));
    expect(db.cls).toBe('soft');
    const res = db.checks.find((c) => c.condition === 'resource')!;
    expect(res.passed).toBe(false);
    expect(res.detail).toContain('= 5 vcores > C − Σ hard a_j(t) = 10 − 8 = 2 vcores');
    // c: N' = 3; fairness 100 > 10 × 20 / 3 = 66.6667 → elastic (resource not evaluated).
    const dc = a.admit(lq('c', 100, 20_000));
    expect(dc.cls).toBe('elastic');
    expect(dc.checks.map((c) => c.condition)).toEqual(['safety', 'fairness']);
    expect(dc.checks[1].detail).toContain("needs 100 vcore·s > C·period/N' = 10 vcores × 20 s / 3 = 66.6667 vcore·s");
    // TQs fill up to N' = 12 (a tolerates 1000 / 80 = 12.5 queues); the 13th breaks a's safety.
    for (let i = 4; i <= 12; i++) expect(a.admit(tq(`t${i}`)).cls).toBe('elastic');
    const d13 = a.admit(tq('t13'));
    expect(d13.cls).toBe('rejected');
    expect(d13.checks).toHaveLength(1);
    expect(d13.checks[0]).toMatchObject({ condition: 'safety', passed: false });
    expect(d13.checks[0].detail).toBe("committed hard LQ a burst needs 80 vcore·s > C·period/N' = 10 vcores × 100 s / 13 = 76.9231 vcore·s");
    expect(d13.reason.startsWith('rejected: safety fails')).toBe(true);
    expect(a.size).toBe(12);
    expect(a.get('t13')).toBeUndefined();
  });

  it('a rejected LQ is rejected before its own conditions are looked at', () => {
    const a = new AdmissionControl(C);
    a.admit(lq('big', 500)); // tolerates 10 × 100 / 500 = 2 queues
    a.admit(tq('t'));
    const d = a.admit(lq('small', 1));
    expect(d.cls).toBe('rejected');
    expect(d.checks.map((c) => c.condition)).toEqual(['safety']);
  });

  it('elastic LQs and TQs do not constrain later admissions; soft LQs do', () => {
    const a = new AdmissionControl(C);
    a.admit(lq('h', 80)); // hard, bound 12.5
    a.admit(lq('s', 300)); // fairness 300 ≤ 500 ok; resource 30 > 2 → soft, bound 1000/300 = 3.33
    expect(a.get('s')!.cls).toBe('soft');
    expect(a.admit(tq('t3')).cls).toBe('elastic'); // N' = 3 ≤ 3.33
    const d = a.admit(tq('t4'));
    expect(d.cls).toBe('rejected');
    expect(d.checks[0].detail).toContain('committed soft LQ s burst needs 300 vcore·s');
    // Removing the soft LQ lifts its bound.
    a.remove('s');
    expect(a.admit(tq('t4')).cls).toBe('elastic');
  });

  it('N-BoPF never admits to the soft class', () => {
    const specs = [lq('a', 80), lq('b', 50), lq('c', 30), lq('d', 20)];
    const bopf = admitAll(C, specs).decisions.map((d) => d.cls);
    const nbopf = admitAll(C, specs, { variant: 'nbopf' }).decisions.map((d) => d.cls);
    expect(bopf).toEqual(['hard', 'soft', 'soft', 'hard']);
    expect(nbopf).toEqual(['hard', 'elastic', 'elastic', 'hard']);
    expect(nbopf).not.toContain('soft');
    expect(admitAll(C, specs, { variant: 'nbopf' }).decisions[1].reason).toContain('N-BoPF has no soft class');
  });

  it('uses arrival phases when known: bursts that never overlap are both hard', () => {
    // Both need 8 of 10 vcores for 10 s every 100 s; one starts at 0 s, the other at 50 s.
    const specs = [lq('x', 80, 100_000, 10_000, { firstArrivalMs: 0 }), lq('y', 80, 100_000, 10_000, { firstArrivalMs: 50_000 })];
    expect(admitAll(C, specs).decisions.map((d) => d.cls)).toEqual(['hard', 'hard']);
    // Without phases the worst case (overlap) is assumed.
    const blind = [lq('x', 80), lq('y', 80)];
    const d = admitAll(C, blind).decisions[1];
    expect(d.cls).toBe('soft');
    expect(d.checks[2].detail).toContain('arrival phases unknown');
  });

  it('reproduces the three-LQ scenario: hard, soft, elastic (periods 150/110/60 s, arrivals 50/100/150 s)', () => {
    const C40 = { vcores: 1280, memoryMB: 40 * 65536 };
    const d = { vcoreSeconds: 10 * 1280, memoryMBSeconds: 20 * 40 * 65536 }; // 2/3 of memory for 30 s
    const mk = (name: string, periodMs: number, firstArrivalMs: number): QueueSpec => ({
      name,
      kind: 'LQ',
      periodMs,
      burstDeadlineMs: 30_000,
      demand: d,
      firstArrivalMs,
    });
    const { decisions } = admitAll(C40, [tq('tq0'), mk('lq0', 150_000, 50_000), mk('lq1', 110_000, 100_000), mk('lq2', 60_000, 150_000)]);
    expect(decisions.map((x) => x.cls)).toEqual(['elastic', 'hard', 'soft', 'elastic']);
    // lq1's burst at 210 s meets lq0's burst of 200–230 s: 2/3 + 2/3 of memory > C.
    expect(decisions[2].checks[2].detail).toContain('at t = 210 s');
    // lq2: fairness 52428800 MB·s > 2621440 MB × 60 s / 4 = 39321600 MB·s.
    expect(decisions[3].checks[1].detail).toContain("needs 52428800 MB·s > C·period/N' = 2621440 MB × 60 s / 4 = 39321600 MB·s");
  });

  it('re-evaluating a registered queue judges it as if it were absent and keeps the order', () => {
    const a = new AdmissionControl(C);
    a.admit(lq('a', 80));
    a.admit(tq('t'));
    const d = a.evaluate(lq('a', 80));
    expect(d.cls).toBe('hard');
    expect(d.queuesIfAdmitted).toBe(2);
    expect(a.queues().map((q) => q.spec.name)).toEqual(['a', 't']);
    // Updating in place keeps the position.
    a.admit(lq('a', 90));
    expect(a.queues().map((q) => q.spec.name)).toEqual(['a', 't']);
    expect(a.get('a')!.demand.vcoreSeconds).toBe(90);
  });

  it('round-trips through its JSON book', () => {
    const a = new AdmissionControl(C);
    a.admit(lq('a', 80));
    a.admit(lq('b', 50));
    const b = AdmissionControl.fromBook(JSON.parse(JSON.stringify(a.toBook())));
    expect(b.queues().map((q) => [q.spec.name, q.cls])).toEqual([
      ['a', 'hard'],
      ['b', 'soft'],
    ]);
    expect(b.evaluate(tq('z')).checks[0].detail).toBe(a.evaluate(tq('z')).checks[0].detail);
  });
});

describe('alpha-strategy', () => {
  it('normal quantiles', () => {
    expect(normalQuantile(0.95)).toBeCloseTo(1.644854, 5);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.01)).toBeCloseTo(-2.326348, 5);
  });

  it('takes the α^(1/K) quantile per resource when independent, α when perfectly correlated', () => {
    const dist = { kind: 'normal' as const, mean: 100, std: 20 };
    const spec = (correlation: 'independent' | 'perfect'): QueueSpec => ({
      name: 'q',
      kind: 'LQ',
      periodMs: 60_000,
      burstDeadlineMs: 10_000,
      distribution: { vcoreSeconds: dist, memoryMBSeconds: { kind: 'uniform', min: 0, max: 1000 }, correlation },
      alpha: 0.95,
    });
    const ind = resolveDemand(spec('independent'));
    // sqrt(0.95) = 0.974679 → z = 1.95450 → 100 + 20 × 1.95450.
    expect(ind.demand.vcoreSeconds).toBeCloseTo(139.09, 1);
    expect(ind.demand.memoryMBSeconds).toBeCloseTo(974.679, 2);
    expect(ind.how).toContain('α^(1/2) = 0.974679');
    const per = resolveDemand(spec('perfect'));
    expect(per.demand.vcoreSeconds).toBeCloseTo(132.897, 2);
    expect(per.demand.memoryMBSeconds).toBeCloseTo(950, 6);
  });

  it('empirical quantile is the smallest sample covering the level', () => {
    const samples = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile({ kind: 'empirical', samples }, 0.9)).toBe(90);
    expect(quantile({ kind: 'empirical', samples }, 0.901)).toBe(91);
    expect(quantile({ kind: 'empirical', samples: [5] }, 0.5)).toBe(5);
  });

  it('an alpha-strategy LQ is admitted on its quantile demand', () => {
    const spec: QueueSpec = {
      name: 'q',
      kind: 'LQ',
      periodMs: 100_000,
      burstDeadlineMs: 10_000,
      distribution: { vcoreSeconds: { kind: 'uniform', min: 0, max: 100 }, memoryMBSeconds: { kind: 'uniform', min: 0, max: 0 }, correlation: 'independent' },
      alpha: 0.81,
    };
    const d = new AdmissionControl(C).admit(spec);
    expect(d.demand!.vcoreSeconds).toBeCloseTo(90, 9); // quantile at sqrt(0.81) = 0.9
    expect(d.cls).toBe('hard'); // 90 / 10 s = 9 ≤ 10 vcores
  });
});

describe('queue spec validation', () => {
  const issues = (x: unknown) => {
    const r = queueSpecSchema.safeParse(x);
    return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
  };
  it('names the offending field', () => {
    expect(issues({ name: 'a', kind: 'LQ', burstDeadlineMs: 1, demand: { vcoreSeconds: 1, memoryMBSeconds: 1 } })).toEqual(['periodMs']);
    expect(issues({ name: 'a', kind: 'LQ', periodMs: 10, burstDeadlineMs: 20, demand: { vcoreSeconds: 1, memoryMBSeconds: 1 } })).toEqual(['burstDeadlineMs']);
    expect(issues({ name: 'a', kind: 'TQ', periodMs: 10 })).toEqual(['periodMs']);
    expect(issues({ name: 'a b', kind: 'TQ' })).toEqual(['name']);
    expect(issues({ name: 'a', kind: 'LQ', periodMs: 10, burstDeadlineMs: 5 })).toEqual(['demand']);
    expect(issues({ name: 'a', kind: 'LQ', periodMs: 10, burstDeadlineMs: 5, demand: { vcoreSeconds: -1, memoryMBSeconds: 1 } })).toEqual([
      'demand.vcoreSeconds',
    ]);
    expect(issues({ name: 'a', kind: 'TQ' })).toEqual([]);
  });
});
