/**
 * Streaming histogram of Ben-Haim and Tom-Tov (JMLR 11, 2010, Algorithm 1), as 3Sigma keeps one per
 * feature value (§4.1: at most 80 bins). Bins are (centroid, count) pairs in centroid order; a new
 * value becomes a bin of its own and, past the bin limit, the two closest centroids merge into
 * their weighted mean. One sample costs O(bins); the histogram is plain JSON.
 */

export interface StreamingHistogram {
  readonly maxBins: number;
  /** Bin centroids, ascending. */
  centroids: number[];
  /** Samples in each bin (same order). */
  counts: number[];
  /** Samples seen in all. */
  total: number;
  /** Smallest and largest sample seen (exact; centroids only approach them). */
  min: number;
  max: number;
}

export function emptyHistogram(maxBins: number): StreamingHistogram {
  if (!Number.isInteger(maxBins) || maxBins < 2) throw new RangeError(`maxBins must be an integer ≥ 2, got ${maxBins}`);
  return { maxBins, centroids: [], counts: [], total: 0, min: Infinity, max: -Infinity };
}

/** Index of the first centroid ≥ x (binary search). */
function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Adds `count` samples of value `x` (in place). */
export function addSample(h: StreamingHistogram, x: number, count = 1): void {
  if (!Number.isFinite(x)) throw new RangeError(`sample must be finite, got ${x}`);
  if (!(count > 0)) return;
  h.total += count;
  if (x < h.min) h.min = x;
  if (x > h.max) h.max = x;
  const i = lowerBound(h.centroids, x);
  if (i < h.centroids.length && h.centroids[i] === x) {
    h.counts[i] += count;
    return;
  }
  h.centroids.splice(i, 0, x);
  h.counts.splice(i, 0, count);
  if (h.centroids.length > h.maxBins) mergeClosestPair(h);
}

/** Merges the two neighbouring bins whose centroids are closest (the first such pair on ties). */
function mergeClosestPair(h: StreamingHistogram): void {
  const c = h.centroids;
  const m = h.counts;
  let best = 0;
  let bestGap = Infinity;
  for (let i = 0; i + 1 < c.length; i++) {
    const gap = c[i + 1] - c[i];
    if (gap < bestGap) {
      bestGap = gap;
      best = i;
    }
  }
  const n = m[best] + m[best + 1];
  c[best] = (c[best] * m[best] + c[best + 1] * m[best + 1]) / n;
  m[best] = n;
  c.splice(best + 1, 1);
  m.splice(best + 1, 1);
}

/** Mean of every sample seen (exact: merging keeps the weighted sum). */
export function histogramMean(h: StreamingHistogram): number {
  if (h.total === 0) return NaN;
  let s = 0;
  for (let i = 0; i < h.centroids.length; i++) s += h.centroids[i] * h.counts[i];
  return s / h.total;
}
