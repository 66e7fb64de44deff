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
  /** The hard LQs' bursts over time, for the resource condition when phases are known. */
  private readonly profile = new CommittedProfile();

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
    const safety = this.safetyCheck(n);
    if (spec.kind === 'TQ') return decided(spec.name, 'TQ', safety.passed ? 'elastic' : 'rejected', n, [safety]);
    const { demand, how } = resolveDemand(spec);
    if (!safety.passed) return decided(spec.name, 'LQ', 'rejected', n, [safety], demand, how);
    const fairness = this.fairnessCheck(spec, demand, n);
    if (!fairness.passed) return decided(spec.name, 'LQ', 'elastic', n, [safety, fairness], demand, how);
    const resource = this.resourceCheck(spec, demand);
    if (resource.passed) return decided(spec.name, 'LQ', 'hard', n, [safety, fairness, resource], demand, how);
    const nbopf = this.variant === 'nbopf';
    return decided(spec.name, 'LQ', nbopf ? 'elastic' : 'soft', n, [safety, fairness, resource], demand, how, nbopf ? ' (N-BoPF has no soft class)' : '');
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
      this.profile.invalidate();
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
      if (q.spec.firstArrivalMs !== undefined) this.profile.added(q);
      else this.profile.invalidate();
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
    if (!q || !r) return check('safety', true, () => `no LQ with a guarantee is committed; N' = ${n}`);
    const periodS = q.spec.periodMs! / 1000;
    const cap = this.capacity[r.cap];
    const limit = (cap * periodS) / n;
    const need = q.demand[r.key];
    const passed = leq(need, limit);
    return check(
      'safety',
      passed,
      () =>
        `${passed ? 'tightest committed' : 'committed'} ${q.cls} LQ ${q.spec.name} burst needs ${fmt(need)} ${r.unit} ` +
        `${passed ? '≤' : '>'} C·period/N' = ${fmt(cap)} ${r.capUnit} × ${fmt(periodS)} s / ${n} = ${fmt(limit)} ${r.unit}`,
    );
  }

  private fairnessCheck(spec: QueueSpec, d: BurstDemand, n: number): ConditionCheck {
    const periodS = spec.periodMs! / 1000;
    let worst: (typeof RES)[number] = RES[0];
    let worstRatio = -1;
    for (const r of RES) {
      const limit = (this.capacity[r.cap] * periodS) / n;
      const need = d[r.key];
      const ratio = limit > 0 ? need / limit : need > 0 ? Infinity : 0;
      if (ratio > worstRatio) {
        worst = r;
        worstRatio = ratio;
      }
    }
    const r = worst;
    const cap = this.capacity[r.cap];
    const limit = (cap * periodS) / n;
    const need = d[r.key];
    const passed = leq(need, limit);
    return check(
      'fairness',
      passed,
      () =>
        `LQ ${spec.name} burst needs ${fmt(need)} ${r.unit} ${passed ? '≤' : '>'} C·period/N' = ` +
        `${fmt(cap)} ${r.capUnit} × ${fmt(periodS)} s / ${n} = ${fmt(limit)} ${r.unit}`,
    );
  }

  private resourceCheck(spec: QueueSpec, d: BurstDemand): ConditionCheck {
    const tS = spec.burstDeadlineMs! / 1000;
    const rate = { vcores: d.vcoreSeconds / tS, memoryMB: d.memoryMBSeconds / tS };
    const capacity = this.capacity;
    const phased = spec.firstArrivalMs !== undefined && this.hardUnphased === 0 && this.hardCount > 0;
    /** The resource the candidate does not fit in beside `committed`, if any. */
    const short = (committedV: number, committedM: number): (typeof RES)[number] | undefined =>
      !leq(rate.vcores, capacity.vcores - committedV) ? RES[0] : !leq(rate.memoryMB, capacity.memoryMB - committedM) ? RES[1] : undefined;
    const failed = (r: (typeof RES)[number], committed: Resources, when: () => string): ConditionCheck =>
      check(
        'resource',
        false,
        () =>
          `LQ ${spec.name} needs d/t = ${fmt(d[r.key])} ${r.unit} / ${fmt(tS)} s = ${fmt(rate[r.cap])} ${r.rateUnit} > ` +
          `C − Σ hard a_j(t) = ${fmt(capacity[r.cap])} − ${fmt(committed[r.cap])} = ${fmt(capacity[r.cap] - committed[r.cap])} ${r.rateUnit} ${when()}`,
      );
    const held = (committed: Resources, when: () => string): ConditionCheck =>
      check('resource', true, () => {
        // Report the tighter resource.
        const slack = (x: (typeof RES)[number]) => (capacity[x.cap] - committed[x.cap] - rate[x.cap]) / Math.max(1e-12, capacity[x.cap]);
        const r = slack(RES[1]) < slack(RES[0]) ? RES[1] : RES[0];
        return (
          `LQ ${spec.name} needs d/t = ${fmt(d[r.key])} ${r.unit} / ${fmt(tS)} s = ${fmt(rate[r.cap])} ${r.rateUnit} ≤ ` +
          `C − Σ hard a_j(t) = ${fmt(capacity[r.cap])} − ${fmt(committed[r.cap])} = ${fmt(capacity[r.cap] - committed[r.cap])} ${r.rateUnit} ${when()}`
        );
      });
    if (!phased) {
      const committed = this.hardRate;
      const count = this.hardCount;
      const when = () => (count === 0 ? '(no hard LQ)' : `(arrival phases unknown: every hard burst assumed to overlap, ${count} hard LQ)`);
      const r = short(committed.vcores, committed.memoryMB);
      return r ? failed(r, committed, when) : held(committed, when);
    }
    // Phases known: the committed rate is a step function that changes only where a hard burst
    // starts or ends; each of the candidate's bursts over one hyperperiod (capped) is checked
    // against its highest step inside the burst.
    const hard = this.order.filter((q) => q.cls === 'hard');
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
    const s0 = spec.firstArrivalMs!;
    const len = spec.burstDeadlineMs!;
    const steps = this.profile.steps(hard, s0, s0 + horizon + len);
    let worstAt = s0;
    let worstV = 0;
    let worstM = 0;
    let worstDom = -1;
    let i = stepAt(steps, s0);
    for (let a = s0; a < s0 + horizon; a += spec.periodMs!) {
      const b = a + len;
      // The step in force at a, then every step that begins inside (a, b).
      while (i + 1 < steps.length && steps.times[i + 1] <= a) i++;
      for (let j = i; j < steps.length && (j === i || steps.times[j] < b); j++) {
        const t = j === i ? a : steps.times[j];
        const v = steps.vcores[j];
        const m = steps.memoryMB[j];
        const r = short(v, m);
        if (r) return failed(r, { vcores: v, memoryMB: m }, () => `at t = ${fmt(t / 1000)} s (burst starting ${fmt(a / 1000)} s)`);
        const dom = Math.max(v / Math.max(1e-12, capacity.vcores), m / Math.max(1e-12, capacity.memoryMB));
        if (dom > worstDom) {
          worstDom = dom;
          worstAt = t;
          worstV = v;
          worstM = m;
        }
      }
    }
    return held(
      { vcores: worstV, memoryMB: worstM },
      () => `at the busiest point t = ${fmt(worstAt / 1000)} s over ${fmt(horizon / 1000)} s${capped ? ' (horizon capped)' : ''}`,
    );
  }
}

interface Steps {
  /** From `times[k]` on (until the next time) the hard bursts in force need `vcores[k]`, `memoryMB[k]`. */
  readonly times: Float64Array;
  readonly vcores: Float64Array;
  readonly memoryMB: Float64Array;
  readonly length: number;
}

/**
 * The hard LQs' bursts as events (a burst's rate added at its start, taken off at its end) over a
 * stretch of time, kept sorted as hard LQs are admitted, so admitting LQ after LQ with known
 * phases merges each one's bursts in place instead of sorting everyone's again; the steps are
 * summed when next read. A removal, or a stretch not covered yet, rebuilds.
 */
class CommittedProfile {
  private from = 0;
  private to = 0;
  private built = false;
  private n = 0;
  private at = new Float64Array(64);
  private dv = new Float64Array(64);
  private dm = new Float64Array(64);
  private summed: Steps | undefined;

  invalidate(): void {
    this.built = false;
    this.summed = undefined;
  }

  /** A hard LQ was admitted. */
  added(q: AdmittedQueue): void {
    if (!this.built) return;
    const at: number[] = [];
    const dv: number[] = [];
    const dm: number[] = [];
    burstEvents(q, this.from, this.to, at, dv, dm);
    const order = at.map((_, k) => k).sort((x, y) => at[x] - at[y]);
    this.reserve(this.n + at.length);
    // Merged from the back, in place.
    let i = this.n - 1;
    let w = this.n + at.length - 1;
    for (let j = order.length - 1; j >= 0; j--) {
      const k = order[j];
      while (i >= 0 && this.at[i] > at[k]) {
        this.at[w] = this.at[i];
        this.dv[w] = this.dv[i];
        this.dm[w--] = this.dm[i--];
      }
      this.at[w] = at[k];
      this.dv[w] = dv[k];
      this.dm[w--] = dm[k];
    }
    this.n += at.length;
    this.summed = undefined;
  }

  /** Steps covering at least [from, to). */
  steps(hard: readonly AdmittedQueue[], from: number, to: number): Steps {
    if (!this.built || from < this.from || to > this.to) {
      // A stretch that must grow grows by a quarter more, so that candidates reaching a little
      // further each time do not rebuild each time.
      const span = (this.built ? Math.max(to, this.to) - Math.min(from, this.from) : to - from) / 4;
      const lo = !this.built ? from : from < this.from ? Math.max(0, Math.min(from, this.from - span)) : this.from;
      const hi = !this.built ? to : to > this.to ? Math.max(to, this.to + span) : this.to;
      const at: number[] = [];
      const dv: number[] = [];
      const dm: number[] = [];
      for (const q of hard) burstEvents(q, lo, hi, at, dv, dm);
      const order = at.map((_, k) => k).sort((x, y) => at[x] - at[y]);
      this.n = 0;
      this.reserve(at.length);
      for (const k of order) {
        this.at[this.n] = at[k];
        this.dv[this.n] = dv[k];
        this.dm[this.n++] = dm[k];
      }
      this.from = lo;
      this.to = hi;
      this.built = true;
      this.summed = undefined;
    }
    return (this.summed ??= this.sum());
  }

  private reserve(size: number): void {
    if (size <= this.at.length) return;
    const grow = (a: Float64Array) => {
      const b = new Float64Array(Math.max(size, 2 * a.length));
      b.set(a.subarray(0, this.n));
      return b;
    };
    this.at = grow(this.at);
    this.dv = grow(this.dv);
    this.dm = grow(this.dm);
  }

  private sum(): Steps {
    const times = new Float64Array(this.n + 1);
    const vcores = new Float64Array(this.n + 1);
    const memoryMB = new Float64Array(this.n + 1);
    times[0] = this.from;
    let len = 1;
    let v = 0;
    let m = 0;
    for (let k = 0; k < this.n;) {
      const t = this.at[k];
      while (k < this.n && this.at[k] === t) {
        v += this.dv[k];
        m += this.dm[k];
        k++;
      }
      if (t !== times[len - 1]) len++;
      times[len - 1] = t;
      vcores[len - 1] = v;
      memoryMB[len - 1] = m;
    }
    return { times, vcores, memoryMB, length: len };
  }
}

/** Appends the start and end events of `q`'s bursts that overlap [from, to) (a start before `from` counts at `from`). */
function burstEvents(q: AdmittedQueue, from: number, to: number, at: number[], dv: number[], dm: number[]): void {
  const r = rateOf(q);
  const start = q.spec.firstArrivalMs!;
  const period = q.spec.periodMs!;
  const len = q.spec.burstDeadlineMs!;
  for (let k = Math.max(0, Math.ceil((from - start - len) / period)); start + k * period < to; k++) {
    const st = start + k * period;
    if (st + len <= from) continue;
    at.push(Math.max(from, st), st + len);
    dv.push(r.vcores, -r.vcores);
    dm.push(r.memoryMB, -r.memoryMB);
  }
}

/** The last k with times[k] <= t (times ascending, times[0] <= t). */
function stepAt(steps: Steps, t: number): number {
  const times = steps.times;
  let lo = 0;
  let hi = steps.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (times[mid] <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
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

function check(condition: Condition, passed: boolean, format: () => string): ConditionCheck {
  return { condition, passed, detail: format() };
}

function decided(
  name: string,
  kind: 'LQ' | 'TQ',
  cls: AdmissionClass,
  queuesIfAdmitted: number,
  checks: readonly ConditionCheck[],
  demand?: BurstDemand,
  demandHow?: string,
  note = '',
): AdmissionDecision {
  return { name, kind, cls, queuesIfAdmitted, checks, ...(demand ? { demand, demandHow } : {}), reason: `${cls}${note}: ${summary(checks)}` };
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
