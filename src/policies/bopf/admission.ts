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
 * Every decision carries each condition it evaluated, passed or failed, with its numbers; the
 * text is written when first read (a decision keeps the numbers it was made on), so admitting
 * 20,000 queues formats nothing nobody reads.
 *
 * `AdmissionControl` is mutable for speed (admitting 20,000 queues is linear: the safety bound of
 * the committed queues is kept as a running minimum, the hard rates as a running sum) and
 * round-trips through plain JSON. With known phases the hard bursts are kept as a step function
 * (`RateProfile`, shared policy code) that each hard LQ is merged into.
 */
import type { Resources } from '../../core/resources.js';
import { RateProfile } from '../shared/rate-profile.js';
import { NameIndex } from '../shared/queues/name-index.js';
import { SlotColumns } from '../shared/queues/slot-columns.js';
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
type Res = (typeof RES)[number];

const NO_DEMAND: BurstDemand = Object.freeze({ vcoreSeconds: 0, memoryMBSeconds: 0 });

interface SafetyBound {
  /** Largest N' every committed queue tolerates. */
  readonly maxQueues: number;
  /** The committed queue's burst in its tightest resource, and that resource's capacity × its period (C·period): it holds while need ≤ C·period / N'. */
  readonly need: number;
  readonly capacityPeriod: number;
  /** The committed queue it comes from: its slot, and what its text needs. */
  readonly slot?: number;
  readonly spec?: QueueSpec;
  readonly cls?: AdmissionClass;
  readonly demand?: BurstDemand;
  readonly resource?: Res;
  /** Where the ledger keeps it (a slot records the bound its decision was judged against). */
  readonly index: number;
}

/** What the resource condition found, kept to write its explanation when read. */
interface ResourceFinding {
  readonly passed: boolean;
  /** The resource the candidate does not fit in (failed). */
  readonly short?: Res;
  /** Σ hard a_j(t) at the deciding point. */
  readonly committedVcores: number;
  readonly committedMB: number;
  /** Phases unknown: how many hard LQs were assumed to overlap. */
  readonly hardCount?: number;
  /** Phases known: the deciding point, and the burst it is in (failed) or the stretch swept (held). */
  readonly atMs?: number;
  readonly burstStartMs?: number;
  readonly horizonMs?: number;
  readonly capped?: boolean;
}

/** Admission classes of admitted queues, as stored in a slot. */
const CLASSES: readonly Exclude<AdmissionClass, 'rejected'>[] = ['hard', 'soft', 'elastic'];
const HARD = 0;
const SOFT = 1;
const ELASTIC = 2;

/** A slot's ints and floats (`SlotColumns`), by offset. */
const CLS = 0;
const N = 1;
const FLAGS = 2;
const HARD_COUNT = 3;
const BOUND = 4;
const INTS = 5;
const COMMITTED_VCORES = 0;
const COMMITTED_MB = 1;
const FLOATS = 2;

/** Bits of a slot's `flags`: how its decision went, enough to write its reason again. */
const FAIRNESS_EVALUATED = 1;
const FAIRNESS_HELD = 2;
const RESOURCE_EVALUATED = 4;
const RESOURCE_HELD = 8;
const PHASES_KNOWN = 16;
const HORIZON_CAPPED = 32;
const SHORT_VCORES = 64;
const SHORT_MEMORY = 128;
/** Inserted from a book: its reason is the book's. */
const FROM_BOOK = 256;
/** Its demand is not its spec's own (`Ledger.resolved`). */
const DEMAND_APART = 512;

/**
 * The admitted queues by slot (one per admission, never reused): class and the numbers their
 * decision was made on in typed columns, references in plain arrays. Nothing per queue is an
 * object until it is read (`AdmittedView`, the decision rebuilt for its reason).
 */
class Ledger {
  /** Per slot: ints CLS … BOUND; floats COMMITTED_VCORES, COMMITTED_MB. */
  readonly cols = new SlotColumns(INTS, FLOATS);
  readonly specs: QueueSpec[] = [];
  /** Demands that are not the spec's own (alpha-strategy LQs), with how they were obtained. */
  readonly resolved = new Map<number, { readonly demand: BurstDemand; readonly how?: string }>();
  /** Phases known: where the resource condition decided (the point, and the burst or the stretch swept). */
  readonly points = new Map<number, { readonly atMs: number; readonly burstStartMs?: number; readonly horizonMs?: number }>();
  /** Every safety bound the control has had, by `index`. */
  readonly bounds: SafetyBound[] = [];
  /** The object handed out for a slot: the book's own, or the view made when first read. */
  readonly entries: (AdmittedQueue | undefined)[] = [];

  add(spec: QueueSpec, cls: Exclude<AdmissionClass, 'rejected'>, flags: number): number {
    const slot = this.cols.add();
    this.cols.setInt(slot, CLS, cls === 'hard' ? HARD : cls === 'soft' ? SOFT : ELASTIC);
    this.cols.setInt(slot, FLAGS, flags);
    this.specs.push(spec);
    return slot;
  }

  /** The burst demand a slot was admitted on (zero for a TQ). */
  demandOf(slot: number): BurstDemand {
    return this.cols.int(slot, FLAGS) & DEMAND_APART ? this.resolved.get(slot)!.demand : (this.specs[slot].demand ?? NO_DEMAND);
  }

  /** A new safety bound (every bound has every field, so code reading them sees one shape). */
  bound(
    maxQueues: number,
    need = 0,
    capacityPeriod = 0,
    slot?: number,
    spec?: QueueSpec,
    cls?: AdmissionClass,
    demand?: BurstDemand,
    resource?: Res,
  ): SafetyBound {
    const bound: SafetyBound = { maxQueues, need, capacityPeriod, slot, spec, cls, demand, resource, index: this.bounds.length };
    this.bounds.push(bound);
    return bound;
  }
}

export class AdmissionControl {
  readonly capacity: Resources;
  readonly variant: Variant;
  readonly maxHorizonMs: number;
  private readonly ledger = new Ledger();
  /** Slots in admission order. */
  private readonly order: number[] = [];
  private readonly byName = new NameIndex(this.ledger.specs);
  /** `queues()` as last listed; cleared by any change. */
  private listed: AdmittedQueue[] | undefined;
  private bound: SafetyBound = this.ledger.bound(Infinity);
  /** Σ over hard LQs of d/t (per second), for the worst-case resource check. */
  private hardRateVcores = 0;
  private hardRateMB = 0;
  private hardCount = 0;
  /** Hard LQs without a known first arrival (forces the worst-case resource check). */
  private hardUnphased = 0;
  /** Least common multiple of the hard LQs' periods (ms, rounded); Infinity past `maxHorizonMs`. */
  private hardPeriodLcm = 1;
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

  /** The admitted queues as plain JSON (reasons written out). */
  toBook(): AdmissionBook {
    const { cols, entries } = this.ledger;
    return {
      capacity: this.capacity,
      variant: this.variant,
      queues: this.order.map((s) => (cols.int(s, FLAGS) & FROM_BOOK ? entries[s]! : (this.entry(s) as AdmittedView).toJSON())),
    };
  }

  get size(): number {
    return this.order.length;
  }

  queues(): readonly AdmittedQueue[] {
    return (this.listed ??= this.order.map((s) => this.entry(s)));
  }

  get(name: string): AdmittedQueue | undefined {
    const s = this.byName.get(name);
    return s < 0 ? undefined : this.entry(s);
  }

  /** Decides the class of `spec` without admitting it. A queue of the same name is ignored. */
  evaluate(spec: QueueSpec): AdmissionDecision {
    const existing = this.byName.get(spec.name);
    return existing >= 0 ? this.judgedWithout(existing, spec) : this.judge(spec);
  }

  /** Evaluates and, unless rejected, admits (replacing a queue of the same name). */
  admit(spec: QueueSpec): AdmissionDecision {
    const existing = this.byName.get(spec.name);
    const d = existing >= 0 ? this.judgedWithout(existing, spec) : this.judge(spec);
    if (d.cls !== 'rejected') {
      const slot = this.ledger.add(spec, d.cls, 0);
      d.keep(this.ledger, slot);
      this.attach(slot, existing >= 0 ? this.detach(existing) : this.order.length);
    }
    return d;
  }

  remove(name: string): boolean {
    const s = this.byName.get(name);
    if (s < 0) return false;
    this.detach(s);
    return true;
  }

  // ---------------------------------------------------------------------------------------------

  /** Re-evaluating a registered queue (update): judged as if the queue in `existing` were not there. */
  private judgedWithout(existing: number, spec: QueueSpec): Judgement {
    const at = this.detach(existing);
    try {
      return this.judge(spec);
    } finally {
      this.attach(existing, at);
    }
  }

  /** The object handed out for a slot, made when first asked for. */
  private entry(slot: number): AdmittedQueue {
    const l = this.ledger;
    return (l.entries[slot] ??= new AdmittedView(l.specs[slot], CLASSES[l.cols.int(slot, CLS)], l.demandOf(slot), () => this.decisionOf(slot).reason));
  }

  /** A slot's admission decision, made again from the numbers it was made on. */
  private decisionOf(slot: number): AdmissionDecision {
    const { cols, specs, bounds, resolved, points } = this.ledger;
    const flags = cols.int(slot, FLAGS);
    const spec = specs[slot];
    const phased = (flags & PHASES_KNOWN) !== 0;
    const held = (flags & RESOURCE_HELD) !== 0;
    const resource: ResourceFinding | undefined =
      flags & RESOURCE_EVALUATED
        ? {
            passed: held,
            short: flags & SHORT_VCORES ? RES[0] : flags & SHORT_MEMORY ? RES[1] : undefined,
            committedVcores: cols.float(slot, COMMITTED_VCORES),
            committedMB: cols.float(slot, COMMITTED_MB),
            ...(phased
              ? held
                ? { atMs: points.get(slot)!.atMs, horizonMs: points.get(slot)!.horizonMs, capped: (flags & HORIZON_CAPPED) !== 0 }
                : { atMs: points.get(slot)!.atMs, burstStartMs: points.get(slot)!.burstStartMs }
              : { hardCount: cols.int(slot, HARD_COUNT) }),
          }
        : undefined;
    const lq = spec.kind === 'LQ';
    return new Judgement(
      this.capacity,
      spec,
      CLASSES[cols.int(slot, CLS)],
      cols.int(slot, N),
      bounds[cols.int(slot, BOUND)],
      true,
      lq ? this.ledger.demandOf(slot) : undefined,
      lq ? (spec.demand ? 'declared demand' : resolved.get(slot)!.how) : undefined,
      flags & FAIRNESS_EVALUATED ? (flags & FAIRNESS_HELD) !== 0 : undefined,
      resource,
    );
  }

  /** The conditions in the paper's order; each later one only if the earlier ones leave it open. */
  private judge(spec: QueueSpec): Judgement {
    const n = this.order.length + 1;
    const bound = this.bound;
    const safety = this.safetyHolds(n);
    if (spec.kind === 'TQ') return new Judgement(this.capacity, spec, safety ? 'elastic' : 'rejected', n, bound, safety);
    let demand = spec.demand;
    let how = 'declared demand';
    if (!demand) ({ demand, how } = resolveDemand(spec));
    if (!safety) return new Judgement(this.capacity, spec, 'rejected', n, bound, safety, demand, how);
    if (!this.fairnessHolds(spec, demand, n)) return new Judgement(this.capacity, spec, 'elastic', n, bound, safety, demand, how, false);
    const resource = this.resourceCheck(spec, demand);
    const cls = resource.passed ? 'hard' : this.variant === 'nbopf' ? 'elastic' : 'soft';
    return new Judgement(this.capacity, spec, cls, n, bound, safety, demand, how, true, resource);
  }

  private insert(q: AdmittedQueue): void {
    const l = this.ledger;
    const slot = l.add(q.spec, q.cls, FROM_BOOK);
    l.entries[slot] = q;
    // Only a demand other than the spec's (or a TQ's zero) is kept apart.
    const own = q.spec.demand ?? NO_DEMAND;
    if (own.vcoreSeconds !== q.demand.vcoreSeconds || own.memoryMBSeconds !== q.demand.memoryMBSeconds) {
      l.resolved.set(slot, { demand: q.demand });
      l.cols.setInt(slot, FLAGS, FROM_BOOK | DEMAND_APART);
    }
    this.attach(slot, this.order.length);
  }

  /** Takes a slot out; returns where it was (admission order is kept for listing). */
  private detach(slot: number): number {
    const { cols, specs } = this.ledger;
    const i = this.order.lastIndexOf(slot);
    this.order.splice(i, 1);
    this.listed = undefined;
    this.byName.delete(specs[slot].name);
    if (cols.int(slot, CLS) === HARD) {
      this.profile.invalidate();
      this.hardCount--;
      if (specs[slot].firstArrivalMs === undefined) this.hardUnphased--;
      const r = rateOf(specs[slot], this.ledger.demandOf(slot));
      this.hardRateVcores -= r.vcores;
      this.hardRateMB -= r.memoryMB;
      if (this.hardCount === 0) this.hardRateVcores = this.hardRateMB = 0;
      this.hardPeriodLcm = 1;
      for (const h of this.order) if (cols.int(h, CLS) === HARD) this.foldPeriod(specs[h]);
    }
    if (this.bound.slot === slot) this.recomputeBound();
    return i;
  }

  private attach(slot: number, at: number): void {
    const { cols, specs } = this.ledger;
    const spec = specs[slot];
    if (at === this.order.length) this.order.push(slot);
    else this.order.splice(at, 0, slot);
    this.listed = undefined;
    this.byName.set(spec.name, slot);
    if (cols.int(slot, CLS) === HARD) {
      this.hardCount++;
      if (spec.firstArrivalMs === undefined) this.hardUnphased++;
      const tS = spec.burstDeadlineMs! / 1000;
      const demand = this.ledger.demandOf(slot);
      this.hardRateVcores += demand.vcoreSeconds / tS;
      this.hardRateMB += demand.memoryMBSeconds / tS;
      this.foldPeriod(spec);
      if (spec.firstArrivalMs !== undefined) this.profile.added(spec, demand);
      else this.profile.invalidate();
    }
    this.tighten(slot);
  }

  private foldPeriod(spec: QueueSpec): void {
    if (this.hardPeriodLcm === Infinity) return;
    const l = lcm(this.hardPeriodLcm, roundedPeriod(spec));
    this.hardPeriodLcm = l > this.maxHorizonMs ? Infinity : l;
  }

  private tighten(slot: number): void {
    const cls = this.ledger.cols.int(slot, CLS);
    if (cls !== HARD && cls !== SOFT) return;
    const spec = this.ledger.specs[slot];
    const demand = this.ledger.demandOf(slot);
    const periodS = spec.periodMs! / 1000;
    // Vcores, then memory (RES order), written out: this runs for every guaranteed LQ admitted.
    const v = demand.vcoreSeconds;
    if (v > 0) {
      const capacityPeriod = this.capacity.vcores * periodS;
      const m = capacityPeriod / v;
      if (m < this.bound.maxQueues) this.bound = this.ledger.bound(m, v, capacityPeriod, slot, spec, CLASSES[cls], demand, RES[0]);
    }
    const mb = demand.memoryMBSeconds;
    if (mb > 0) {
      const capacityPeriod = this.capacity.memoryMB * periodS;
      const m = capacityPeriod / mb;
      if (m < this.bound.maxQueues) this.bound = this.ledger.bound(m, mb, capacityPeriod, slot, spec, CLASSES[cls], demand, RES[1]);
    }
  }

  private recomputeBound(): void {
    this.bound = this.ledger.bound(Infinity);
    for (const s of this.order) this.tighten(s);
  }

  /** (1) Safety: the committed LQ with the tightest bound still gets its burst with N' queues. */
  private safetyHolds(n: number): boolean {
    const bound = this.bound;
    return bound.resource === undefined || leq(bound.need, bound.capacityPeriod / n);
  }

  /**
   * (2) Fairness: the candidate's burst within its long-term fair share C·period/N', in the
   * resource it takes the largest part of (`worstFairnessResource`, written out here: this runs
   * for every LQ admitted).
   */
  private fairnessHolds(spec: QueueSpec, d: BurstDemand, n: number): boolean {
    const periodS = spec.periodMs! / 1000;
    const limitV = (this.capacity.vcores * periodS) / n;
    const limitM = (this.capacity.memoryMB * periodS) / n;
    const v = d.vcoreSeconds;
    const m = d.memoryMBSeconds;
    const ratioV = limitV > 0 ? v / limitV : v > 0 ? Infinity : 0;
    const ratioM = limitM > 0 ? m / limitM : m > 0 ? Infinity : 0;
    return ratioM > (ratioV > -1 ? ratioV : -1) ? leq(m, limitM) : leq(v, limitV);
  }

  /** (3) Resource: the candidate's rate d/t fits beside the hard LQs' rates at every point of its bursts. */
  private resourceCheck(spec: QueueSpec, d: BurstDemand): ResourceFinding {
    const tS = spec.burstDeadlineMs! / 1000;
    const rateV = d.vcoreSeconds / tS;
    const rateM = d.memoryMBSeconds / tS;
    const capacity = this.capacity;
    const phased = spec.firstArrivalMs !== undefined && this.hardUnphased === 0 && this.hardCount > 0;
    if (!phased) {
      const v = this.hardRateVcores;
      const m = this.hardRateMB;
      const r = shortOf(capacity, rateV, rateM, v, m);
      return { passed: !r, short: r, committedVcores: v, committedMB: m, hardCount: this.hardCount };
    }
    // Phases known: the committed rate is a step function that changes only where a hard burst
    // starts or ends; each of the candidate's bursts over one hyperperiod (capped) is checked
    // against every step inside the burst.
    const full = this.hardPeriodLcm === Infinity ? Infinity : lcm(roundedPeriod(spec), this.hardPeriodLcm);
    const capped = full > this.maxHorizonMs;
    const horizon = capped ? this.maxHorizonMs : full;
    const s0 = spec.firstArrivalMs!;
    const len = spec.burstDeadlineMs!;
    const steps = this.profile.covering(this.order, this.ledger, s0, s0 + horizon + len);
    const { times, vcores, memoryMB } = steps;
    const length = steps.length;
    let worstAt = s0;
    let worstV = 0;
    let worstM = 0;
    let worstDom = -1;
    const capV = Math.max(1e-12, capacity.vcores);
    const capM = Math.max(1e-12, capacity.memoryMB);
    let i = steps.indexAt(s0);
    for (let a = s0; a < s0 + horizon; a += spec.periodMs!) {
      const b = a + len;
      // The step in force at a, then every step that begins inside (a, b).
      while (i + 1 < length && times[i + 1] <= a) i++;
      for (let j = i; j < length && (j === i || times[j] < b); j++) {
        const v = vcores[j];
        const m = memoryMB[j];
        const r = shortOf(capacity, rateV, rateM, v, m);
        if (r) return { passed: false, short: r, committedVcores: v, committedMB: m, atMs: j === i ? a : times[j], burstStartMs: a };
        const dom = Math.max(v / capV, m / capM);
        if (dom > worstDom) {
          worstDom = dom;
          worstAt = j === i ? a : times[j];
          worstV = v;
          worstM = m;
        }
      }
    }
    return { passed: true, committedVcores: worstV, committedMB: worstM, atMs: worstAt, horizonMs: horizon, capped };
  }
}

/** The resource a candidate of rate (`rateV`, `rateM`) does not fit in beside `committed`, if any. */
function shortOf(capacity: Resources, rateV: number, rateM: number, committedV: number, committedM: number): Res | undefined {
  return !leq(rateV, capacity.vcores - committedV) ? RES[0] : !leq(rateM, capacity.memoryMB - committedM) ? RES[1] : undefined;
}

/** An admitted queue as handed out; the reason is its admission decision's, written when first read. */
class AdmittedView implements AdmittedQueue {
  readonly #reasonOf: () => string;
  #reason: string | undefined;

  constructor(
    readonly spec: QueueSpec,
    readonly cls: Exclude<AdmissionClass, 'rejected'>,
    readonly demand: BurstDemand,
    reasonOf: () => string,
  ) {
    this.#reasonOf = reasonOf;
  }

  get reason(): string {
    return (this.#reason ??= this.#reasonOf());
  }

  toJSON(): AdmittedQueue {
    return { spec: this.spec, cls: this.cls, demand: this.demand, reason: this.reason };
  }
}

/**
 * An admission decision: class and numbers at once, each condition's text (`checks`) and the
 * one-line `reason` written when first read, from what the conditions found.
 */
class Judgement implements AdmissionDecision {
  readonly #demand: BurstDemand | undefined;
  readonly #demandHow: string | undefined;
  readonly #capacity: Resources;
  readonly #spec: QueueSpec;
  readonly #bound: SafetyBound;
  readonly #safety: boolean;
  /** Undefined: not evaluated. */
  readonly #fairness: boolean | undefined;
  readonly #resource: ResourceFinding | undefined;
  #checks: readonly ConditionCheck[] | undefined;
  #reason: string | undefined;

  constructor(
    capacity: Resources,
    spec: QueueSpec,
    readonly cls: AdmissionClass,
    readonly queuesIfAdmitted: number,
    bound: SafetyBound,
    safety: boolean,
    demand?: BurstDemand,
    demandHow?: string,
    fairness?: boolean,
    resource?: ResourceFinding,
  ) {
    this.#demand = demand;
    this.#demandHow = demand ? demandHow : undefined;
    this.#capacity = capacity;
    this.#spec = spec;
    this.#bound = bound;
    this.#safety = safety;
    this.#fairness = fairness;
    this.#resource = resource;
  }

  // Read from the spec and the fields when asked: one shape of object for every decision, and
  // fewer fields to write for each of thousands of admissions.
  get name(): string {
    return this.#spec.name;
  }

  get kind(): 'LQ' | 'TQ' {
    return this.#spec.kind;
  }

  get demand(): BurstDemand | undefined {
    return this.#demand;
  }

  get demandHow(): string | undefined {
    return this.#demandHow;
  }

  get checks(): readonly ConditionCheck[] {
    if (this.#checks) return this.#checks;
    const n = this.queuesIfAdmitted;
    const out: ConditionCheck[] = [{ condition: 'safety', passed: this.#safety, detail: safetyDetail(this.#capacity, this.#bound, n) }];
    if (this.#fairness !== undefined)
      out.push({ condition: 'fairness', passed: this.#fairness, detail: fairnessDetail(this.#capacity, this.#spec, this.demand!, n, this.#fairness) });
    if (this.#resource)
      out.push({ condition: 'resource', passed: this.#resource.passed, detail: resourceDetail(this.#capacity, this.#spec, this.demand!, this.#resource) });
    return (this.#checks = out);
  }

  get reason(): string {
    const note = this.cls === 'elastic' && this.#resource && !this.#resource.passed ? ' (N-BoPF has no soft class)' : '';
    return (this.#reason ??= `${this.cls}${note}: ${summary(this.checks)}`);
  }

  /** Writes what this decision was made on into an admitted queue's slot (`decisionOf` reads it back). */
  keep(ledger: Ledger, slot: number): void {
    const cols = ledger.cols;
    const ints = cols.ints(slot);
    const at = cols.intAt(slot);
    const floats = cols.floats(slot);
    const fAt = cols.floatAt(slot);
    const r = this.#resource;
    let flags = 0;
    if (this.#fairness !== undefined) flags |= FAIRNESS_EVALUATED | (this.#fairness ? FAIRNESS_HELD : 0);
    if (r) {
      flags |= RESOURCE_EVALUATED | (r.passed ? RESOURCE_HELD : 0) | (r.capped ? HORIZON_CAPPED : 0);
      if (r.short) flags |= r.short === RES[0] ? SHORT_VCORES : SHORT_MEMORY;
      floats[fAt + COMMITTED_VCORES] = r.committedVcores;
      floats[fAt + COMMITTED_MB] = r.committedMB;
      if (r.hardCount !== undefined) ints[at + HARD_COUNT] = r.hardCount;
      else {
        flags |= PHASES_KNOWN;
        ledger.points.set(slot, r.passed ? { atMs: r.atMs!, horizonMs: r.horizonMs! } : { atMs: r.atMs!, burstStartMs: r.burstStartMs! });
      }
    }
    if (this.demand && this.demand !== this.#spec.demand) {
      ledger.resolved.set(slot, { demand: this.demand, how: this.demandHow });
      flags |= DEMAND_APART;
    }
    ints[at + FLAGS] |= flags;
    ints[at + N] = this.queuesIfAdmitted;
    ints[at + BOUND] = this.#bound.index;
  }

  toJSON(): AdmissionDecision {
    const { name, kind, cls, queuesIfAdmitted, checks } = this;
    return { name, kind, cls, queuesIfAdmitted, checks, ...(this.demand ? { demand: this.demand, demandHow: this.demandHow } : {}), reason: this.reason };
  }
}

function safetyDetail(capacity: Resources, bound: SafetyBound, n: number): string {
  const { spec, demand, cls, resource: r } = bound;
  if (!spec || !demand || !r) return `no LQ with a guarantee is committed; N' = ${n}`;
  const periodS = spec.periodMs! / 1000;
  const cap = capacity[r.cap];
  const limit = (cap * periodS) / n;
  const need = demand[r.key];
  const passed = leq(need, limit);
  return (
    `${passed ? 'tightest committed' : 'committed'} ${cls} LQ ${spec.name} burst needs ${fmt(need)} ${r.unit} ` +
    `${passed ? '≤' : '>'} C·period/N' = ${fmt(cap)} ${r.capUnit} × ${fmt(periodS)} s / ${n} = ${fmt(limit)} ${r.unit}`
  );
}

/** The resource the candidate's burst takes the largest part of its fair share of. */
function worstFairnessResource(capacity: Resources, spec: QueueSpec, d: BurstDemand, n: number): Res {
  const periodS = spec.periodMs! / 1000;
  let worst: Res = RES[0];
  let worstRatio = -1;
  for (const r of RES) {
    const limit = (capacity[r.cap] * periodS) / n;
    const need = d[r.key];
    const ratio = limit > 0 ? need / limit : need > 0 ? Infinity : 0;
    if (ratio > worstRatio) {
      worst = r;
      worstRatio = ratio;
    }
  }
  return worst;
}

function fairnessDetail(capacity: Resources, spec: QueueSpec, d: BurstDemand, n: number, passed: boolean): string {
  const r = worstFairnessResource(capacity, spec, d, n);
  const periodS = spec.periodMs! / 1000;
  const cap = capacity[r.cap];
  const limit = (cap * periodS) / n;
  return (
    `LQ ${spec.name} burst needs ${fmt(d[r.key])} ${r.unit} ${passed ? '≤' : '>'} C·period/N' = ` +
    `${fmt(cap)} ${r.capUnit} × ${fmt(periodS)} s / ${n} = ${fmt(limit)} ${r.unit}`
  );
}

function resourceDetail(capacity: Resources, spec: QueueSpec, d: BurstDemand, f: ResourceFinding): string {
  const tS = spec.burstDeadlineMs! / 1000;
  const rate = { vcores: d.vcoreSeconds / tS, memoryMB: d.memoryMBSeconds / tS };
  const committed = { vcores: f.committedVcores, memoryMB: f.committedMB };
  const when =
    f.hardCount !== undefined
      ? f.hardCount === 0
        ? '(no hard LQ)'
        : `(arrival phases unknown: every hard burst assumed to overlap, ${f.hardCount} hard LQ)`
      : f.passed
        ? `at the busiest point t = ${fmt(f.atMs! / 1000)} s over ${fmt(f.horizonMs! / 1000)} s${f.capped ? ' (horizon capped)' : ''}`
        : `at t = ${fmt(f.atMs! / 1000)} s (burst starting ${fmt(f.burstStartMs! / 1000)} s)`;
  // Failed: the resource that does not fit; held: the tighter one.
  const slack = (x: Res) => (capacity[x.cap] - committed[x.cap] - rate[x.cap]) / Math.max(1e-12, capacity[x.cap]);
  const r = f.short ?? (slack(RES[1]) < slack(RES[0]) ? RES[1] : RES[0]);
  return (
    `LQ ${spec.name} needs d/t = ${fmt(d[r.key])} ${r.unit} / ${fmt(tS)} s = ${fmt(rate[r.cap])} ${r.rateUnit} ${f.passed ? '≤' : '>'} ` +
    `C − Σ hard a_j(t) = ${fmt(capacity[r.cap])} − ${fmt(committed[r.cap])} = ${fmt(capacity[r.cap] - committed[r.cap])} ${r.rateUnit} ${when}`
  );
}

/**
 * The hard LQs' bursts over a stretch of time as a step function (a burst's rate in force from
 * its start to its end), each hard LQ admitted with known phases merged in as it comes; a
 * removal, or a stretch not covered yet, rebuilds it from the hard LQs.
 */
class CommittedProfile {
  private readonly steps = new RateProfile();
  private built = false;
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  invalidate(): void {
    this.built = false;
  }

  /** A hard LQ was admitted. */
  added(spec: QueueSpec, demand: BurstDemand): void {
    if (!this.built) return;
    this.starts.length = this.ends.length = 0;
    burstIntervals(spec, this.steps.from, this.steps.to, this.starts, this.ends);
    const r = rateOf(spec, demand);
    this.steps.addIntervals(this.starts, this.ends, r.vcores, r.memoryMB);
  }

  /** Steps covering at least [from, to), from the hard LQs among the slots `queues`. */
  covering(queues: readonly number[], ledger: Ledger, from: number, to: number): RateProfile {
    const s = this.steps;
    if (!this.built || from < s.from || to > s.to) {
      // A stretch that must grow grows by a quarter more, so that candidates reaching a little
      // further each time do not rebuild each time.
      const span = (this.built ? Math.max(to, s.to) - Math.min(from, s.from) : to - from) / 4;
      const lo = !this.built ? from : from < s.from ? Math.max(0, Math.min(from, s.from - span)) : s.from;
      const hi = !this.built ? to : to > s.to ? Math.max(to, s.to + span) : s.to;
      s.reset(lo, hi);
      // Every hard burst's ends made points at once, then each hard LQ's rate added in
      // admission order (as merging them in one by one would).
      const hard = queues.filter((q) => ledger.cols.int(q, CLS) === HARD);
      const points: number[] = [];
      for (const q of hard) burstIntervals(ledger.specs[q], lo, hi, points, points);
      s.insertPoints(points.sort((x, y) => x - y));
      for (const q of hard) {
        this.starts.length = this.ends.length = 0;
        burstIntervals(ledger.specs[q], lo, hi, this.starts, this.ends);
        const r = rateOf(ledger.specs[q], ledger.demandOf(q));
        for (let k = 0; k < this.starts.length; k++) s.addOn(this.starts[k], this.ends[k], r.vcores, r.memoryMB);
      }
      this.built = true;
    }
    return s;
  }
}

/** Appends the start and end of each of `spec`'s bursts that overlap [from, to) (a start before `from` counts at `from`). */
function burstIntervals(spec: QueueSpec, from: number, to: number, starts: number[], ends: number[]): void {
  const start = spec.firstArrivalMs!;
  const period = spec.periodMs!;
  const len = spec.burstDeadlineMs!;
  for (let k = Math.max(0, Math.ceil((from - start - len) / period)); start + k * period < to; k++) {
    const st = start + k * period;
    if (st + len <= from) continue;
    starts.push(Math.max(from, st));
    ends.push(st + len);
  }
}

function rateOf(spec: QueueSpec, demand: BurstDemand): Resources {
  if (spec.kind !== 'LQ') return { vcores: 0, memoryMB: 0 };
  const tS = spec.burstDeadlineMs! / 1000;
  return { vcores: demand.vcoreSeconds / tS, memoryMB: demand.memoryMBSeconds / tS };
}

/** Constant rate a hard LQ gets during a burst: d / t (vcores, MB). */
export function burstRate(q: AdmittedQueue): Resources {
  return rateOf(q.spec, q.demand);
}

function roundedPeriod(spec: QueueSpec): number {
  return Math.max(1, Math.round(spec.periodMs!));
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
