/**
 * DARSS admission (thesis §3.1.3.2–3.1.3.3, §3.2.4): a production workflow is accepted iff its
 * units fit in what the ledger leaves unreserved between now and its deadline, after the
 * best-effort quota (m of every n units, per period l) and under the production cap and the
 * group's shares. Accepted work is booked as late as it can be (the ledger's shape is ours: the
 * thesis books a count, not slots).
 *
 * Two tests (`AdmissionTest`):
 * - `count-only` is the thesis's: Σ units·lease ≤ unreserved unit·ms in [now, deadline).
 * - `critical-path` (default) is stricter: the workflow's critical path must fit in the time
 *   left, and each job is booked backward from its latest finish (its deadline, or the booked
 *   start of the jobs that need it) in waves of whole tasks (`bookInWaves`); the workflow fits iff
 *   no wave has to start before now.
 *
 * Every rule is a named function and a decision's `rule` is that name. Pure functions of a plain
 * JSON ledger: the admin API can call `admitWorkflow` as the policy does.
 */
import { criticalPathMs, jobsInOrder, jobSpanMs, taskChainLength, workUnitMs, type RslJob, type WorkflowRequest } from '../../core/rsl.js';
import { addSteps, changePointsIn, copySteps, emptySteps, forEachSegment, integral, maxOn, valueAt, type StepFunction } from '../shared/step-function.js';

export type AdmissionTest = 'critical-path' | 'count-only';

export interface QuotaParams {
  /** Best-effort gets m of every n units … */
  readonly m: number;
  readonly n: number;
  /** … in every period of this length, ms. */
  readonly periodMs: number;
}

export interface GroupShare {
  /** Largest share of the cluster's units the group may hold reserved at any time, 0–100. */
  readonly maxPct?: number;
  /** Largest share of the cluster's units the group may hold on average over `averageWindowMs`, 0–100. */
  readonly averagePct?: number;
  readonly averageWindowMs?: number;
}

export interface AdmissionParams {
  readonly quota: QuotaParams;
  /** Production may never hold more than this share of the units reserved, 0–100 (thesis: 75). */
  readonly productionCapPct: number;
  readonly admission: AdmissionTest;
  /** Shares by group; `*` applies to groups not listed. */
  readonly groupShares: Readonly<Record<string, GroupShare>>;
}

/** One booked piece: `units` over [fromMs, toMs). */
export type Piece = [fromMs: number, toMs: number, units: number];

export interface Ledger {
  /** Units the cluster has now (Σ over running nodes). */
  capacityUnits: number;
  /** Units reserved for production over time. */
  production: StepFunction;
  /** The same, by group (user shares). */
  byGroup: Record<string, StepFunction>;
  /** Booked pieces of every accepted request, by request id then job name. */
  bookings: Record<string, Record<string, Piece[]>>;
}

export type AdmissionRule =
  | 'criticalPathAdmission'
  | 'countOnlyAdmission'
  | 'criticalPathLongerThanTimeLeft'
  | 'groupShareCap'
  | 'groupAverageShareCap'
  | 'bestEffortRequest'
  | 'invalidRequest';

/** What an admission decided, and the numbers it decided on. */
export interface AdmissionDecision {
  readonly requestId: string;
  readonly group: string;
  readonly accepted: boolean;
  /** The function that decided. */
  readonly rule: AdmissionRule;
  readonly test: AdmissionTest;
  readonly nowMs: number;
  readonly deadlineMs?: number;
  /** Unit·ms the workflow needs. */
  readonly neededUnitMs: number;
  /** Unit·ms unreserved for production in the window (after quota, cap and bookings). */
  readonly freeUnitMs: number;
  readonly windowFromMs: number;
  readonly windowToMs: number;
  readonly criticalPathMs: number;
  /** Deadline less now; absent for a best-effort request. */
  readonly timeLeftMs?: number;
  /** Earliest booked start (accepted) or how far before now the booking would have had to start. */
  readonly bookedFromMs?: number;
  readonly reason: string;
}

export function emptyLedger(capacityUnits: number): Ledger {
  return { capacityUnits, production: emptySteps(), byGroup: {}, bookings: {} };
}

export function copyLedger(l: Ledger): Ledger {
  const byGroup: Record<string, StepFunction> = {};
  for (const [g, f] of Object.entries(l.byGroup)) byGroup[g] = copySteps(f);
  const bookings: Record<string, Record<string, Piece[]>> = {};
  for (const [id, jobs] of Object.entries(l.bookings)) {
    const c: Record<string, Piece[]> = {};
    for (const [j, ps] of Object.entries(jobs)) c[j] = ps.map((p) => [p[0], p[1], p[2]]);
    bookings[id] = c;
  }
  return { capacityUnits: l.capacityUnits, production: copySteps(l.production), byGroup, bookings };
}

/**
 * What an admission may write, copied: the production steps and the request's group's. Its
 * booking table holds only the request's own entries until `finish` accepts it.
 */
function trialLedger(l: Ledger, group: string): Ledger {
  const byGroup = { ...l.byGroup };
  if (byGroup[group]) byGroup[group] = copySteps(byGroup[group]);
  return { capacityUnits: l.capacityUnits, production: copySteps(l.production), byGroup, bookings: {} };
}

// --------------------------------------------------------------------------- quota and caps

/** Units per instant kept for best-effort work: m/n of the capacity, spread evenly over every period l. */
export function bestEffortQuota(capacityUnits: number, quota: QuotaParams): number {
  return quota.n > 0 ? (capacityUnits * quota.m) / quota.n : 0;
}

/** Units production may hold reserved at any instant: capacity less the quota, and under the cap. */
export function productionCap(capacityUnits: number, p: Pick<AdmissionParams, 'quota' | 'productionCapPct'>): number {
  return Math.max(0, Math.min(capacityUnits - bestEffortQuota(capacityUnits, p.quota), (capacityUnits * p.productionCapPct) / 100));
}

/** Unit·ms left unreserved for production over [from, to) (Fig. 3.7 and 3.8). */
export function unreservedUnitMs(ledger: Ledger, from: number, to: number, p: Pick<AdmissionParams, 'quota' | 'productionCapPct'>): number {
  const limit = productionCap(ledger.capacityUnits, p);
  let s = 0;
  forEachSegment(ledger.production, from, to, (a, b, v) => {
    if (v < limit) s += (limit - v) * (b - a);
  });
  return s;
}

function shareOf(p: AdmissionParams, group: string): GroupShare {
  return p.groupShares[group] ?? p.groupShares['*'] ?? {};
}

// --------------------------------------------------------------------------- the tests

/** The thesis's test: the units fit in the unreserved units before the deadline. */
export function countOnlyAdmission(needed: number, free: number): boolean {
  return needed <= free + 1e-6;
}

/** Ours, first half: a workflow whose critical path is longer than the time left cannot finish. */
export function criticalPathLongerThanTimeLeft(criticalPath: number, timeLeft: number): boolean {
  return criticalPath > timeLeft;
}

interface BookingOutcome {
  readonly fits: boolean;
  /** Earliest booked start; below `now` when it did not fit. */
  readonly fromMs: number;
  readonly failedJob?: string;
  readonly missingUnitMs?: number;
}

/**
 * Ours, second half: books each job backward from its latest finish in waves of whole tasks,
 * jobs needed by others before those others' booked starts. Fits iff nothing has to start
 * before now.
 */
export function criticalPathAdmission(trial: Ledger, w: WorkflowRequest, id: string, now: number, p: AdmissionParams): BookingOutcome {
  const order = jobsInOrder(w);
  const dependants = new Map<string, string[]>(order.map((j) => [j.name, []]));
  for (const j of order) for (const q of j.prerequisites) dependants.get(q)!.push(j.name);
  const start = new Map<string, number>();
  let earliest = Infinity;
  for (let k = order.length - 1; k >= 0; k--) {
    const j = order[k];
    let latestFinish = j.deadlineMs ?? w.deadlineMs!;
    for (const d of dependants.get(j.name)!) latestFinish = Math.min(latestFinish, start.get(d)!);
    const r = bookInWaves(trial, w.group, id, j, latestFinish, now, p);
    if (r.missing > 0) return { fits: false, fromMs: r.from, failedJob: j.name, missingUnitMs: r.missing };
    start.set(j.name, r.from);
    earliest = Math.min(earliest, r.from);
  }
  return { fits: true, fromMs: earliest };
}

/**
 * Books a job backward from `to` in waves: windows of one span (lease × longest task chain), each
 * holding as many lanes (a chain's units) as fit under every cap all through the window, until
 * every task has one. Tasks are not divisible: a count of unit·ms alone can promise what no
 * placement of whole tasks delivers. Returns the earliest booked instant and the unit·ms missing
 * when the waves reach now.
 */
function bookInWaves(l: Ledger, group: string, id: string, j: RslJob, to: number, now: number, p: AdmissionParams): { from: number; missing: number } {
  const limit = productionCap(l.capacityUnits, p);
  const share = shareOf(p, group);
  const groupLimit = share.maxPct !== undefined ? (l.capacityUnits * share.maxPct) / 100 : Infinity;
  const gf = (l.byGroup[group] ??= emptySteps());
  const span = jobSpanMs(j);
  const chain = taskChainLength(j);
  let lanes = Math.ceil(j.tasks / chain);
  const pieces: Piece[] = [];
  let t = to;
  while (lanes > 0) {
    const from = t - span;
    if (from < now) break;
    const room = Math.min(limit - maxOn(l.production, from, t), groupLimit < Infinity ? groupLimit - maxOn(gf, from, t) : Infinity);
    const k = Math.min(lanes, Math.floor((room + 1e-9) / j.unitsPerTask));
    if (k > 0) {
      addSteps(l.production, from, t, k * j.unitsPerTask);
      addSteps(gf, from, t, k * j.unitsPerTask);
      pieces.push([from, t, k * j.unitsPerTask]);
      lanes -= k;
    }
    t = from;
  }
  if (pieces.length) ((l.bookings[id] ??= {})[j.name] ??= []).push(...pieces);
  return { from: t, missing: lanes * chain * j.unitsPerTask * j.leaseMs };
}

/** Books `work` unit·ms as late as possible before `to`, never before `now`; returns what is missing. */
function bookBackward(
  l: Ledger,
  group: string,
  id: string,
  job: string,
  to: number,
  now: number,
  work: number,
  rateCap: number,
  p: AdmissionParams,
): { from: number; missing: number } {
  const limit = productionCap(l.capacityUnits, p);
  const share = shareOf(p, group);
  const groupLimit = share.maxPct !== undefined ? (l.capacityUnits * share.maxPct) / 100 : Infinity;
  const gf = (l.byGroup[group] ??= emptySteps());
  const points = [...new Set([now, ...changePointsIn(l.production, now, to), ...(groupLimit < Infinity ? changePointsIn(gf, now, to) : []), to])].sort(
    (a, b) => a - b,
  );
  let left = work;
  let from = to;
  const pieces: Piece[] = [];
  for (let i = points.length - 1; i > 0 && left > 1e-6; i--) {
    const a = points[i - 1];
    const b = points[i];
    if (b <= a) continue;
    const avail = Math.min(limit - valueAt(l.production, a), groupLimit - valueAt(gf, a), rateCap);
    if (avail <= 1e-9) continue;
    const room = avail * (b - a);
    if (room >= left) {
      // Starts at a whole millisecond, at the rate that books exactly what is left.
      const s = Math.max(a, b - Math.ceil(left / avail));
      pieces.push([s, b, left / (b - s)]);
      left = 0;
      from = s;
      break;
    }
    pieces.push([a, b, avail]);
    left -= room;
    from = a;
  }
  for (const [a, b, u] of pieces) {
    addSteps(l.production, a, b, u);
    addSteps(gf, a, b, u);
  }
  ((l.bookings[id] ??= {})[job] ??= []).push(...pieces);
  return { from, missing: Math.max(0, left) };
}

/** Largest ∫ f over any window of `windowMs` starting in [from, to). */
export function maxWindowIntegral(f: StepFunction, from: number, to: number, windowMs: number): number {
  const starts = new Set<number>([from]);
  for (const c of changePointsIn(f, from - windowMs, to + windowMs)) {
    if (c >= from && c < to) starts.add(c);
    if (c - windowMs >= from && c - windowMs < to) starts.add(c - windowMs);
  }
  let best = 0;
  for (const s of starts) best = Math.max(best, integral(f, s, s + windowMs));
  return best;
}

/** The group's average share over its window, after booking, is within its cap. */
export function groupAverageShareCap(
  l: Ledger,
  group: string,
  from: number,
  to: number,
  p: AdmissionParams,
): { ok: boolean; worstPct: number; capPct?: number; windowMs?: number } {
  const share = shareOf(p, group);
  if (share.averagePct === undefined || l.capacityUnits <= 0) return { ok: true, worstPct: 0 };
  const windowMs = share.averageWindowMs ?? 72 * 3_600_000;
  const worst = maxWindowIntegral(l.byGroup[group] ?? emptySteps(), from, to, windowMs);
  const worstPct = (100 * worst) / (l.capacityUnits * windowMs);
  return { ok: worstPct <= share.averagePct + 1e-9, worstPct, capPct: share.averagePct, windowMs };
}

/** The group's instantaneous cap leaves room for the workflow at all (else the booking reports it). */
export function groupShareCap(p: AdmissionParams, group: string): number | undefined {
  return shareOf(p, group).maxPct;
}

// --------------------------------------------------------------------------- admission

/** A request without a deadline is best-effort: accepted, nothing reserved. */
export function bestEffortRequest(
  base: Pick<AdmissionDecision, 'requestId' | 'group' | 'test' | 'nowMs' | 'neededUnitMs' | 'criticalPathMs'>,
): AdmissionDecision {
  return {
    ...base,
    accepted: true,
    rule: 'bestEffortRequest',
    freeUnitMs: 0,
    windowFromMs: base.nowMs,
    windowToMs: base.nowMs,
    reason: 'best-effort request (no deadline): nothing reserved',
  };
}

const unitS = (unitMs: number): string => `${(unitMs / 1000).toFixed(1)} unit·s`;

/**
 * Judges one request at `now` against `ledger`. Returns the decision and, when accepted, the
 * ledger with the booking, which replaces the given one (a refusal leaves it alone; an acceptance
 * adds the request's entries to the booking table both share).
 */
export function admitWorkflow(
  ledger: Ledger,
  w: WorkflowRequest,
  id: string,
  now: number,
  p: AdmissionParams,
): { decision: AdmissionDecision; ledger?: Ledger } {
  const needed = workUnitMs(w);
  const cp = criticalPathMs(w);
  const base = { requestId: id, group: w.group, test: p.admission, nowMs: now, neededUnitMs: needed, criticalPathMs: cp };
  if (w.deadlineMs === undefined) return { decision: bestEffortRequest(base) };
  const D = w.deadlineMs;
  const timeLeft = D - now;
  const free = unreservedUnitMs(ledger, now, D, p);
  const numbers = { ...base, deadlineMs: D, freeUnitMs: free, windowFromMs: now, windowToMs: D, timeLeftMs: timeLeft };
  const fitText = `needs ${unitS(needed)}, ${unitS(free)} unreserved in [${now}, ${D}) ms`;
  if (p.admission === 'critical-path' && criticalPathLongerThanTimeLeft(cp, timeLeft)) {
    return {
      decision: {
        ...numbers,
        accepted: false,
        rule: 'criticalPathLongerThanTimeLeft',
        reason: `rejected: critical path ${cp} ms > ${timeLeft} ms left (${fitText}); stricter than the thesis's count-only test, which looks at units alone`,
      },
    };
  }
  const trial = trialLedger(ledger, w.group);
  if (p.admission === 'count-only') {
    if (!countOnlyAdmission(needed, free)) {
      return { decision: { ...numbers, accepted: false, rule: 'countOnlyAdmission', reason: `rejected: ${fitText}` } };
    }
    // The count fits; it is booked as one late fill ending at the deadline (no rate cap).
    const r = bookBackward(trial, w.group, id, '(workflow)', D, now, needed, Infinity, p);
    if (r.missing > 1e-6) {
      // Only the group's instantaneous cap can leave the count short here.
      return {
        decision: {
          ...numbers,
          accepted: false,
          rule: 'groupShareCap',
          reason: `rejected: group ${w.group} may hold ${groupShareCap(p, w.group)}% at once; ${unitS(r.missing)} of ${unitS(needed)} do not fit under it`,
        },
      };
    }
    return finish(ledger, trial, w, id, now, p, numbers, r.from, `accepted (count-only, the thesis's test): ${fitText}`, 'countOnlyAdmission');
  }
  const b = criticalPathAdmission(trial, w, id, now, p);
  if (!b.fits) {
    const cap = groupShareCap(p, w.group);
    return {
      decision: {
        ...numbers,
        accepted: false,
        rule: 'criticalPathAdmission',
        bookedFromMs: b.fromMs,
        reason: `rejected: job ${b.failedJob} is ${unitS(b.missingUnitMs ?? 0)} short before its latest finish (${fitText}; critical path ${cp} ms of ${timeLeft} ms left${cap !== undefined ? `; group ${w.group} capped at ${cap}%` : ''}); stricter than the thesis's count-only test`,
      },
    };
  }
  return finish(
    ledger,
    trial,
    w,
    id,
    now,
    p,
    numbers,
    b.fromMs,
    `accepted: ${fitText}; critical path ${cp} ms ≤ ${timeLeft} ms left, booked from ${b.fromMs} ms (stricter than the thesis's count-only test)`,
    'criticalPathAdmission',
  );
}

function finish(
  ledger: Ledger,
  trial: Ledger,
  w: WorkflowRequest,
  id: string,
  now: number,
  p: AdmissionParams,
  numbers: Omit<AdmissionDecision, 'accepted' | 'rule' | 'reason'>,
  from: number,
  why: string,
  rule: AdmissionRule,
): { decision: AdmissionDecision; ledger?: Ledger } {
  const avg = groupAverageShareCap(trial, w.group, now, w.deadlineMs!, p);
  if (!avg.ok) {
    return {
      decision: {
        ...numbers,
        accepted: false,
        rule: 'groupAverageShareCap',
        reason: `rejected: group ${w.group} would hold ${avg.worstPct.toFixed(1)}% of the units on average over ${avg.windowMs} ms, cap ${avg.capPct}%`,
      },
    };
  }
  // The booking table is not copied per trial (it holds every request): the accepted request's
  // entries join `ledger`'s table, which the returned ledger shares; `ledger` is superseded.
  Object.assign(ledger.bookings, trial.bookings);
  trial.bookings = ledger.bookings;
  return { decision: { ...numbers, accepted: true, rule, bookedFromMs: from, reason: why }, ledger: trial };
}

/** Gives back what a request still holds from `fromMs` on (a job done early, a request deleted). */
export function releaseBooking(l: Ledger, id: string, group: string, fromMs: number, job?: string): number {
  const jobs = l.bookings[id];
  if (!jobs) return 0;
  let released = 0;
  const gf = (l.byGroup[group] ??= emptySteps());
  for (const name of job !== undefined ? [job] : Object.keys(jobs)) {
    const kept: Piece[] = [];
    for (const [a, b, u] of jobs[name] ?? []) {
      if (b <= fromMs) {
        kept.push([a, b, u]);
        continue;
      }
      const s = Math.max(a, fromMs);
      addSteps(l.production, s, b, -u);
      addSteps(gf, s, b, -u);
      released += u * (b - s);
      if (a < s) kept.push([a, s, u]);
    }
    if (kept.length) jobs[name] = kept;
    else delete jobs[name];
  }
  if (Object.keys(jobs).length === 0) delete l.bookings[id];
  return released;
}
