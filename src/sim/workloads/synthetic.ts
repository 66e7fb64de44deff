/**
 * Small synthetic traces with heavy-tailed task durations (bounded Pareto job sizes), used for
 * the sample traces shipped in `samples/` and for tests. Deterministic for a seed.
 */
import { Rng } from '../rng.js';

export interface SyntheticTraceOptions {
  readonly seed?: number;
  readonly jobs?: number;
  /** Mean inter-arrival time, s (Poisson arrivals). */
  readonly meanInterArrivalS?: number;
  /** Task count range (inclusive). */
  readonly minTasks?: number;
  readonly maxTasks?: number;
  /** Bounded Pareto over mean task duration, s. */
  readonly minTaskS?: number;
  readonly maxTaskS?: number;
  readonly alpha?: number;
}

export interface SyntheticJob {
  readonly arrivalS: number;
  readonly durationsS: number[];
}

export function syntheticTrace(o: SyntheticTraceOptions = {}): SyntheticJob[] {
  const rng = new Rng(o.seed ?? 1);
  const n = o.jobs ?? 50;
  const lo = o.minTaskS ?? 1;
  const hi = o.maxTaskS ?? 1000;
  const a = o.alpha ?? 1.1;
  const minT = o.minTasks ?? 1;
  const maxT = o.maxTasks ?? 50;
  const out: SyntheticJob[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0) t += rng.exponential(o.meanInterArrivalS ?? 10);
    // Bounded Pareto by inversion.
    const u = rng.next();
    const la = lo ** a;
    const ha = hi ** a;
    const mean = (-(u * ha - u * la - ha) / (ha * la)) ** (-1 / a);
    const k = minT + rng.int(maxT - minT + 1);
    const durs: number[] = [];
    for (let j = 0; j < k; j++) durs.push(Math.max(0.001, mean * (0.5 + rng.next())));
    out.push({ arrivalS: Math.round(t * 1000) / 1000, durationsS: durs });
  }
  return out;
}
