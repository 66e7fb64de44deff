/**
 * A runtime distribution as 3Sigma's scheduler uses it: point masses at runtimes (ms, ascending)
 * with probabilities summing to 1. Made from a streaming histogram (its bins as masses), from a
 * point estimate (the `point` ablation), or by hand in tests. Plain JSON.
 */
import type { StreamingHistogram } from './histogram.js';

export interface RuntimeDistribution {
  /** Runtimes, ms, strictly ascending. */
  readonly valuesMs: readonly number[];
  /** Probability of each runtime; sums to 1. */
  readonly probs: readonly number[];
}

export function pointMass(runtimeMs: number): RuntimeDistribution {
  return { valuesMs: [Math.max(0, runtimeMs)], probs: [1] };
}

/** From runtimes and weights (any order, repeats allowed); weights need not be normalised. */
export function fromWeighted(valuesMs: readonly number[], weights: readonly number[]): RuntimeDistribution {
  const byValue = new Map<number, number>();
  let total = 0;
  for (let i = 0; i < valuesMs.length; i++) {
    const w = weights[i];
    if (!(w > 0)) continue;
    const v = Math.max(0, valuesMs[i]);
    byValue.set(v, (byValue.get(v) ?? 0) + w);
    total += w;
  }
  if (total === 0) throw new RangeError('a distribution needs a positive weight');
  const values = [...byValue.keys()].sort((a, b) => a - b);
  return { valuesMs: values, probs: values.map((v) => (byValue.get(v) as number) / total) };
}

/**
 * The histogram's bins as masses. The outermost bins give one sample each to the exact smallest
 * and largest runtime seen (their centroid moves so the mean is kept): the under-estimate rule
 * needs the true longest runtime, which merged centroids only approach.
 */
export function fromHistogram(h: StreamingHistogram): RuntimeDistribution {
  if (h.total === 0) throw new RangeError('empty histogram');
  const values: number[] = [];
  const weights: number[] = [];
  const last = h.centroids.length - 1;
  for (let i = 0; i <= last; i++) {
    let c = h.centroids[i];
    let m = h.counts[i];
    if (i === last && m > 1 && h.max > c) {
      values.push(h.max);
      weights.push(1);
      c = (c * m - h.max) / (m - 1);
      m -= 1;
    }
    if (i === 0 && m > 1 && h.min < c) {
      values.push(h.min);
      weights.push(1);
      c = (c * m - h.min) / (m - 1);
      m -= 1;
    }
    values.push(c);
    weights.push(m);
  }
  return fromWeighted(values, weights);
}

/** P(T ≤ t). */
export function cdf(d: RuntimeDistribution, tMs: number): number {
  let p = 0;
  for (let i = 0; i < d.valuesMs.length && d.valuesMs[i] <= tMs; i++) p += d.probs[i];
  return Math.min(1, p);
}

/** P(T > t): the probability that a job started `t` ago still holds its resources (§3.2). */
export function survival(d: RuntimeDistribution, tMs: number): number {
  return Math.max(0, 1 - cdf(d, tMs));
}

export function mean(d: RuntimeDistribution): number {
  let s = 0;
  for (let i = 0; i < d.valuesMs.length; i++) s += d.valuesMs[i] * d.probs[i];
  return s;
}

export function longest(d: RuntimeDistribution): number {
  return d.valuesMs[d.valuesMs.length - 1];
}

/**
 * Eq. 2: the distribution of a job that has run `elapsedMs`, renormalised over runtimes longer
 * than that; undefined when no runtime of the distribution is longer (an under-estimate).
 */
export function conditionalOnElapsed(d: RuntimeDistribution, elapsedMs: number): RuntimeDistribution | undefined {
  const values: number[] = [];
  const weights: number[] = [];
  for (let i = 0; i < d.valuesMs.length; i++) {
    if (d.valuesMs[i] > elapsedMs) {
      values.push(d.valuesMs[i]);
      weights.push(d.probs[i]);
    }
  }
  return values.length === 0 ? undefined : fromWeighted(values, weights);
}

/** The distribution with every runtime multiplied by `factor` (a slower placement). */
export function scaled(d: RuntimeDistribution, factor: number): RuntimeDistribution {
  return factor === 1 ? d : { valuesMs: d.valuesMs.map((v) => v * factor), probs: d.probs };
}
