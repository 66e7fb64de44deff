/**
 * Utility of a job as a function of its completion time (§3.1, Fig. 3), and the expected utility
 * of a start time under a runtime distribution (Eq. 1).
 */
import { cdf, type RuntimeDistribution } from './distribution.js';

export interface SloUtility {
  readonly kind: 'slo';
  readonly maxUtility: number;
  readonly deadlineMs: number;
  /**
   * Over-estimate handling (§4.2.2, Fig. 3d): past the deadline the utility starts at
   * `maxUtility × startFraction` and falls linearly to 0 over `decayMs`, instead of dropping to 0.
   */
  readonly afterDeadline?: { readonly startFraction: number; readonly decayMs: number };
}

export interface BestEffortUtility {
  readonly kind: 'bestEffort';
  readonly maxUtility: number;
  readonly submittedAtMs: number;
  /** Time after submission over which the utility falls linearly to its floor, ms. */
  readonly decayMs: number;
  /** Fraction of `maxUtility` kept however late (a best-effort job is never worthless). */
  readonly floorFraction: number;
}

export type UtilityCurve = SloUtility | BestEffortUtility;

export function utilityAt(u: UtilityCurve, completionMs: number): number {
  if (u.kind === 'bestEffort') {
    const late = Math.max(0, completionMs - u.submittedAtMs);
    return u.maxUtility * Math.max(u.floorFraction, 1 - late / u.decayMs);
  }
  if (completionMs <= u.deadlineMs) return u.maxUtility;
  if (!u.afterDeadline) return 0;
  const past = completionMs - u.deadlineMs;
  return u.maxUtility * u.afterDeadline.startFraction * Math.max(0, 1 - past / u.afterDeadline.decayMs);
}

/**
 * Eq. 1: E[U(start)] = Σ_t U(start + t)·P(T = t). `elapsedMs` is how long the job has already
 * run (its distribution is then the conditional one, Eq. 2): completion = start + t − elapsed.
 */
export function expectedUtility(d: RuntimeDistribution, startMs: number, u: UtilityCurve, elapsedMs = 0): number {
  let e = 0;
  for (let i = 0; i < d.valuesMs.length; i++) e += d.probs[i] * utilityAt(u, startMs + Math.max(0, d.valuesMs[i] - elapsedMs));
  return e;
}

/** P(T ≤ window): the chance the job can meet its deadline if started at submission (§4.2.3). */
export function chanceWithinWindow(d: RuntimeDistribution, windowMs: number): number {
  return cdf(d, windowMs);
}
