/**
 * BoPF admission control (BoPF §3.3, conditions as written out in the design notes):
 *
 *   N' = |H| + |S| + |E| + 1  (queues once the candidate is in)
 *   (1) safety    for every committed LQ j ∈ H ∪ S:  d_j ≤ C · P_j / N'
 *   (2) fairness  for the candidate LQ i:            d_i ≤ C · P_i / N'
 *   (3) resource  for the candidate LQ i, every t in its bursts:  d_i / t_i ≤ C − Σ_{j∈H} a_j(t)
 *
 * Vector inequalities hold per resource (vcores, memory). An LQ failing (1) is rejected; passing
 * (1) but not (2) it is elastic; passing (1), (2) and (3) hard; (1) and (2) but not (3) soft —
 * except in N-BoPF, which has no soft class and makes it elastic. A TQ is elastic when (1) holds.
 *
 * Every decision carries each condition it evaluated, passed or failed, with its numbers.
 *
 * `AdmissionControl` is mutable for speed (admitting 20,000 queues is linear: the safety bound of
 * the committed queues is kept as a running minimum) and round-trips through plain JSON.
 */
import type { Resources } from '../../core/resources.js';
import { fmt, resolveDemand } from './alpha.js';
import type { AdmissionClass, BurstDemand, QueueSpec, Variant } from './spec.js';

export type Condition = 'safety' | 'fairness' | 'resource';

export interface ConditionCheck {
  readonly condition: Condition;
  readonly passed: boolean;
  /** The inequality with its numbers, e.g. `LQ b burst needs 120 vcore·s ≤ C·period/N' = 96 vcore·s`. */
  readonly detail: string;
}

export interface AdmissionDecision {
  readonly name: string;
  readonly kind: 'LQ' | 'TQ';
  readonly cls: AdmissionClass;
  /** N' used by the conditions. */
  readonly queuesIfAdmitted: number;
  readonly checks: readonly ConditionCheck[];
  /** The demand the conditions used (LQ), and how it was obtained. */
  readonly demand?: BurstDemand;
  readonly demandHow?: string;
  /** One line: class and the deciding condition(s). */
  readonly reason: string;
}

export interface AdmittedQueue {
  readonly spec: QueueSpec;
  readonly cls: Exclude<AdmissionClass, 'rejected'>;
  /** Burst demand in resource-seconds (LQ); zero for a TQ. */
  readonly demand: BurstDemand;
  /** Reason recorded when it was admitted. */
  readonly reason: string;
}

export interface AdmissionOptions {
  readonly variant?: Variant;
  /** Longest stretch of time the resource condition steps through when phases are known (ms). */
  readonly maxHorizonMs?: number;
}

/** Plain-JSON form (policy state, store). */
export interface AdmissionBook {
  readonly capacity: Resources;
  readonly variant: Variant;
  readonly queues: readonly AdmittedQueue[];
}

/** Relative tolerance of the inequalities (floating point). */
const REL_EPS = 1e-9;
const leq = (a: number, b: number) => a <= b + REL_EPS * Math.max(1, Math.abs(b));

const RES = [
  { key: 'vcoreSeconds', cap: 'vcores', unit: 'vcore·s', capUnit: 'vcores', rateUnit: 'vcores' },
  { key: 'memoryMBSeconds', cap: 'memoryMB', unit: 'MB·s', capUnit: 'MB', rateUnit: 'MB' },
] as const;

interface SafetyBound {
  /** Largest N' every committed queue tolerates. */
  readonly maxQueues: number;
  readonly queue?: AdmittedQueue;
  readonly resource?: (typeof RES)[number];
}

export class AdmissionControl {
  readonly capacity: Resources;
  readonly variant: Variant;
  readonly maxHorizonMs: number;
  private readonly order: AdmittedQueue[] = [];
  private readonly byName = new Map<string, AdmittedQueue>();
  private bound: SafetyBound = { maxQueues: Infinity };
  /** Σ over hard LQs of d/t (per second), for the worst-case resource check. */
  private hardRate = { vcores: 0, memoryMB: 0 };
  private hardCount = 0;
  /** Hard LQs without a known first arrival (forces the worst-case resource check). */
  private hardUnphased = 0;

  constructor(capacity: Resources, opts: AdmissionOptions = {}) {
    this.capacity = { memoryMB: capacity.memoryMB, vcores: capacity.vcores };
    this.variant = opts.variant ?? 'bopf';
    this.maxHorizonMs = opts.maxHorizonMs ?? 86_400_000;
  }

  static fromBook(book: AdmissionBook, opts: Omit<AdmissionOptions, 'variant'> = {}): AdmissionControl {
    const a = new AdmissionControl(book.capacity, { ...opts, variant: book.variant });
    for (const q of book.queues) a.insert(q);
    return a;
  }

  toBook(): AdmissionBook {
    return { capacity: this.capacity, variant: this.variant, queues: [...this.order] };
  }

  get size(): number {
    return this.order.length;
  }

  queues(): readonly AdmittedQueue[] {
    return this.order;
  }

  get(name: string): AdmittedQueue | undefined {
    return this.byName.get(name);
  }

  /** Decides the class of `spec` without admitting it. A queue of the same name is ignored. */
  evaluate(spec: QueueSpec): AdmissionDecision {
    const existing = this.byName.get(spec.name);
    if (existing) {
      // Re-evaluating a registered queue (update): judge it as if it were not there.
      const at = this.detach(existing);
      try {
        return this.evaluate(spec);
      } finally {
        this.attach(existing, at);
      }
    }
    const n = this.order.length + 1;
    const checks: ConditionCheck[] = [];
    const safety = this.safetyCheck(n);
    checks.push(safety);
    if (spec.kind === 'TQ') {
      const cls: AdmissionClass = safety.passed ? 'elastic' : 'rejected';
      return { name: spec.name, kind: 'TQ', cls, queuesIfAdmitted: n, checks, reason: `${cls}: ${summary(checks)}` };
    }
    const { demand, how } = resolveDemand(spec);
    const base = { name: spec.name, kind: 'LQ' as const, queuesIfAdmitted: n, demand, demandHow: how };
    if (!safety.passed) return { ...base, cls: 'rejected', checks, reason: `rejected: ${summary(checks)}` };
    const fairness = this.fairnessCheck(spec, demand, n);
    checks.push(fairness);
    if (!fairness.passed) return { ...base, cls: 'elastic', checks, reason: `elastic: ${summary(checks)}` };
    const resource = this.resourceCheck(spec, demand);
    checks.push(resource);
    if (resource.passed) return { ...base, cls: 'hard', checks, reason: `hard: ${summary(checks)}` };
    const cls = this.variant === 'nbopf' ? 'elastic' : 'soft';
    const note = this.variant === 'nbopf' ? ' (N-BoPF has no soft class)' : '';
    return { ...base, cls, checks, reason: `${cls}${note}: ${summary(checks)}` };
  }

  /** Evaluates and, unless rejected, admits (replacing a queue of the same name). */
  admit(spec: QueueSpec): AdmissionDecision {
    const d = this.evaluate(spec);
    if (d.cls !== 'rejected') {
      const q: AdmittedQueue = { spec, cls: d.cls, demand: d.demand ?? { vcoreSeconds: 0, memoryMBSeconds: 0 }, reason: d.reason };
      const old = this.byName.get(spec.name);
      this.attach(q, old ? this.detach(old) : this.order.length);
    }
    return d;
  }

  remove(name: string): boolean {
    const q = this.byName.get(name);
    if (!q) return false;
    this.detach(q);
    return true;
  }

  // ---------------------------------------------------------------------------------------------

  private insert(q: AdmittedQueue): void {
    this.attach(q, this.order.length);
  }

  /** Takes `q` out; returns where it was (admission order is kept for listing). */
  private detach(q: AdmittedQueue): number {
    const i = this.order.indexOf(q);
    this.order.splice(i, 1);
    this.byName.delete(q.spec.name);
    if (q.cls === 'hard') {
      this.hardCount--;
      if (q.spec.firstArrivalMs === undefined) this.hardUnphased--;
      const r = rateOf(q);
      this.hardRate = { vcores: this.hardRate.vcores - r.vcores, memoryMB: this.hardRate.memoryMB - r.memoryMB };
      if (this.hardCount === 0) this.hardRate = { vcores: 0, memoryMB: 0 };
    }
    if (this.bound.queue === q) this.recomputeBound();
    return i;
  }

  private attach(q: AdmittedQueue, at: number): void {
    this.order.splice(at, 0, q);
    this.byName.set(q.spec.name, q);
    if (q.cls === 'hard') {
      this.hardCount++;
      if (q.spec.firstArrivalMs === undefined) this.hardUnphased++;
      const r = rateOf(q);
      this.hardRate = { vcores: this.hardRate.vcores + r.vcores, memoryMB: this.hardRate.memoryMB + r.memoryMB };
    }
    this.tighten(q);
  }

  private tighten(q: AdmittedQueue): void {
    if (q.cls !== 'hard' && q.cls !== 'soft') return;
    const periodS = q.spec.periodMs! / 1000;
    for (const r of RES) {
      const d = q.demand[r.key];
      if (d <= 0) continue;
      const m = (this.capacity[r.cap] * periodS) / d;
      if (m < this.bound.maxQueues) this.bound = { maxQueues: m, queue: q, resource: r };
    }
  }

  private recomputeBound(): void {
    this.bound = { maxQueues: Infinity };
    for (const q of this.order) this.tighten(q);
  }

  private safetyCheck(n: number): ConditionCheck {
    const { queue: q, resource: r } = this.bound;
    if (!q || !r) {
      return { condition: 'safety', passed: true, detail: `no LQ with a guarantee is committed; N' = ${n}` };
    }
    const periodS = q.spec.periodMs! / 1000;
    const limit = (this.capacity[r.cap] * periodS) / n;
    const need = q.demand[r.key];
    const passed = leq(need, limit);
    return {
      condition: 'safety',
      passed,
      detail:
        `${passed ? 'tightest committed' : 'committed'} ${q.cls} LQ ${q.spec.name} burst needs ${fmt(need)} ${r.unit} ` +
        `${passed ? '≤' : '>'} C·period/N' = ${fmt(this.capacity[r.cap])} ${r.capUnit} × ${fmt(periodS)} s / ${n} = ${fmt(limit)} ${r.unit}`,
    };
  }

  private fairnessCheck(spec: QueueSpec, d: BurstDemand, n: number): ConditionCheck {
    const periodS = spec.periodMs! / 1000;
    let worst: { r: (typeof RES)[number]; need: number; limit: number; ratio: number } | undefined;
    for (const r of RES) {
      const limit = (this.capacity[r.cap] * periodS) / n;
      const need = d[r.key];
      const ratio = limit > 0 ? need / limit : need > 0 ? Infinity : 0;
      if (!worst || ratio > worst.ratio) worst = { r, need, limit, ratio };
    }
    const w = worst!;
    const passed = leq(w.need, w.limit);
    return {
      condition: 'fairness',
      passed,
      detail:
        `LQ ${spec.name} burst needs ${fmt(w.need)} ${w.r.unit} ${passed ? '≤' : '>'} C·period/N' = ` +
        `${fmt(this.capacity[w.r.cap])} ${w.r.capUnit} × ${fmt(periodS)} s / ${n} = ${fmt(w.limit)} ${w.r.unit}`,
    };
  }

  private resourceCheck(spec: QueueSpec, d: BurstDemand): ConditionCheck {
    const tS = spec.burstDeadlineMs! / 1000;
    const rate = { vcores: d.vcoreSeconds / tS, memoryMB: d.memoryMBSeconds / tS };
    const phased = spec.firstArrivalMs !== undefined && this.hardUnphased === 0 && this.hardCount > 0;
    const judge = (committed: Resources, when: string): ConditionCheck | undefined => {
      for (const r of RES) {
        const free = this.capacity[r.cap] - committed[r.cap];
        if (!leq(rate[r.cap], free)) {
          return {
            condition: 'resource',
            passed: false,
            detail:
              `LQ ${spec.name} needs d/t = ${fmt(d[r.key])} ${r.unit} / ${fmt(tS)} s = ${fmt(rate[r.cap])} ${r.rateUnit} > ` +
              `C − Σ hard a_j(t) = ${fmt(this.capacity[r.cap])} − ${fmt(committed[r.cap])} = ${fmt(free)} ${r.rateUnit} ${when}`,
          };
        }
      }
      return undefined;
    };
    const okDetail = (committed: Resources, when: string): ConditionCheck => {
      // Report the tighter resource.
      const r = RES.map((x) => ({ x, slack: (this.capacity[x.cap] - committed[x.cap] - rate[x.cap]) / Math.max(1e-12, this.capacity[x.cap]) })).sort(
        (a, b) => a.slack - b.slack,
      )[0].x;
      return {
        condition: 'resource',
        passed: true,
        detail:
          `LQ ${spec.name} needs d/t = ${fmt(d[r.key])} ${r.unit} / ${fmt(tS)} s = ${fmt(rate[r.cap])} ${r.rateUnit} ≤ ` +
          `C − Σ hard a_j(t) = ${fmt(this.capacity[r.cap])} − ${fmt(committed[r.cap])} = ${fmt(this.capacity[r.cap] - committed[r.cap])} ${r.rateUnit} ${when}`,
      };
    };
    if (!phased) {
      const when = this.hardCount === 0 ? '(no hard LQ)' : `(arrival phases unknown: every hard burst assumed to overlap, ${this.hardCount} hard LQ)`;
      return judge(this.hardRate, when) ?? okDetail(this.hardRate, when);
    }
    const hard = this.order.filter((q) => q.cls === 'hard');
    // Phases known: step through the candidate's bursts over one hyperperiod (capped).
    const periods = [spec.periodMs!, ...hard.map((q) => q.spec.periodMs!)].map((p) => Math.max(1, Math.round(p)));
    let horizon = periods[0];
    let capped = false;
    for (const p of periods.slice(1)) {
      horizon = lcm(horizon, p);
      if (horizon > this.maxHorizonMs) {
        horizon = this.maxHorizonMs;
        capped = true;
        break;
      }
    }
    const hardRates = hard.map((q) => ({ q, rate: rateOf(q), start: q.spec.firstArrivalMs!, period: q.spec.periodMs!, len: q.spec.burstDeadlineMs! }));
    const activeAt = (t: number) => {
      let v = 0;
      let m = 0;
      for (const h of hardRates) {
        const k = Math.floor((t - h.start) / h.period);
        if (k < 0) continue;
        if (t - (h.start + k * h.period) < h.len) {
          v += h.rate.vcores;
          m += h.rate.memoryMB;
        }
      }
      return { vcores: v, memoryMB: m };
    };
    const s0 = spec.firstArrivalMs!;
    let worst: { at: number; committed: Resources; dom: number } = { at: s0, committed: { vcores: 0, memoryMB: 0 }, dom: -1 };
    for (let a = s0; a < s0 + horizon; a += spec.periodMs!) {
      const b = a + spec.burstDeadlineMs!;
      const points = [a];
      for (const h of hardRates) {
        const k0 = Math.max(0, Math.ceil((a - h.start) / h.period));
        for (let k = k0; h.start + k * h.period < b; k++) {
          const st = h.start + k * h.period;
          if (st > a) points.push(st);
        }
      }
      for (const t of points) {
        const committed = activeAt(t);
        const when = `at t = ${fmt(t / 1000)} s (burst starting ${fmt(a / 1000)} s)`;
        const fail = judge(committed, when);
        if (fail) return fail;
        const dom = Math.max(committed.vcores / Math.max(1e-12, this.capacity.vcores), committed.memoryMB / Math.max(1e-12, this.capacity.memoryMB));
        if (dom > worst.dom) worst = { at: t, committed, dom };
      }
    }
    return okDetail(worst.committed, `at the busiest point t = ${fmt(worst.at / 1000)} s over ${fmt(horizon / 1000)} s${capped ? ' (horizon capped)' : ''}`);
  }
}

function rateOf(q: AdmittedQueue): Resources {
  if (q.spec.kind !== 'LQ') return { vcores: 0, memoryMB: 0 };
  const tS = q.spec.burstDeadlineMs! / 1000;
  return { vcores: q.demand.vcoreSeconds / tS, memoryMB: q.demand.memoryMBSeconds / tS };
}

/** Constant rate a hard LQ gets during a burst: d / t (vcores, MB). */
export function burstRate(q: AdmittedQueue): Resources {
  return rateOf(q);
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
function lcm(a: number, b: number): number {
  return (a / gcd(a, b)) * b;
}

function summary(checks: readonly ConditionCheck[]): string {
  return checks.map((c) => `${c.condition} ${c.passed ? 'holds' : 'fails'} (${c.detail})`).join('; ');
}

/** Admits `specs` in order on a fresh cluster of capacity `capacity`. */
export function admitAll(
  capacity: Resources,
  specs: readonly QueueSpec[],
  opts: AdmissionOptions = {},
): { control: AdmissionControl; decisions: AdmissionDecision[] } {
  const control = new AdmissionControl(capacity, opts);
  const decisions = specs.map((s) => control.admit(s));
  return { control, decisions };
}
