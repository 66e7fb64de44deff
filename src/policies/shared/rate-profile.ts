/**
 * Two rates (vcores, memory MB) over a stretch of time as a step function kept in typed arrays:
 * sorted change points, each with the rates in force from it to the next. Adding a set of
 * intervals merges their ends into the points in one pass and adds the rates on the points they
 * cover, so a point's value is the sum of the intervals over it in the order they were added
 * (exactly what summing them point by point gives), never a running sum that drifts.
 *
 * BoPF's admission keeps the hard LQs' bursts in one to check a candidate's bursts against.
 */
export class RateProfile {
  /** Stretch covered: [from, to). Nothing before `from` is represented. */
  from = 0;
  to = 0;
  /** Number of change points; point 0 is `from`. */
  length = 0;
  times = new Float64Array(64);
  vcores = new Float64Array(64);
  memoryMB = new Float64Array(64);
  /** New points of the interval set being added (scratch). */
  #fresh: number[] = [];

  /** Empty (zero rates) over [from, to). */
  reset(from: number, to: number): void {
    this.from = from;
    this.to = to;
    this.length = 1;
    this.times[0] = from;
    this.vcores[0] = 0;
    this.memoryMB[0] = 0;
  }

  /**
   * Adds `vcores`, `memoryMB` over each [starts[k], ends[k]) (starts at or after `from`, in any
   * order; an end may lie past `to`).
   */
  addIntervals(starts: readonly number[], ends: readonly number[], vcores: number, memoryMB: number): void {
    const fresh = this.#fresh;
    fresh.length = 0;
    for (let k = 0; k < starts.length; k++) fresh.push(starts[k], ends[k]);
    fresh.sort((x, y) => x - y);
    this.insertPoints(fresh);
    for (let k = 0; k < starts.length; k++) this.addOn(starts[k], ends[k], vcores, memoryMB);
  }

  /** Adds `vcores`, `memoryMB` on the points in [start, end); `start` must be a point already. */
  addOn(start: number, end: number, vcores: number, memoryMB: number): void {
    for (let i = this.indexAt(start); i < this.length && this.times[i] < end; i++) {
      this.vcores[i] += vcores;
      this.memoryMB[i] += memoryMB;
    }
  }

  /** The last point at or before `t` (`t` ≥ `from`). */
  indexAt(t: number): number {
    const times = this.times;
    let lo = 0;
    let hi = this.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (times[mid] <= t) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Makes each of `sorted` (ascending, duplicates allowed, none before `from`) a point, valued as the step it splits. */
  insertPoints(sorted: readonly number[]): void {
    // Which of them are new, and where each lands: merged from the back so each existing point
    // moves once (whole runs at a time).
    let add = 0;
    for (let k = 0; k < sorted.length; k++) {
      if (k > 0 && sorted[k] === sorted[k - 1]) continue;
      const i = this.indexAt(sorted[k]);
      if (this.times[i] !== sorted[k]) add++;
    }
    if (add === 0) return;
    this.#reserve(this.length + add);
    const { times, vcores, memoryMB } = this;
    let i = this.length - 1;
    let w = this.length + add - 1;
    for (let k = sorted.length - 1; k >= 0; k--) {
      const t = sorted[k];
      if (k + 1 < sorted.length && sorted[k + 1] === t) continue;
      // Existing points after t move up by the number of new points still to place.
      let j = i;
      if (j >= 0 && times[j] > t) {
        // The last existing point at or before t, below i.
        let lo = -1;
        let hi = i;
        while (hi - lo > 1) {
          const mid = (lo + hi) >> 1;
          if (times[mid] <= t) lo = mid;
          else hi = mid;
        }
        j = lo;
      }
      const shift = w - i;
      if (shift > 0 && i > j) {
        times.copyWithin(j + 1 + shift, j + 1, i + 1);
        vcores.copyWithin(j + 1 + shift, j + 1, i + 1);
        memoryMB.copyWithin(j + 1 + shift, j + 1, i + 1);
      }
      w -= i - j;
      i = j;
      if (j >= 0 && times[j] === t) continue;
      times[w] = t;
      vcores[w] = vcores[j];
      memoryMB[w] = memoryMB[j];
      w--;
    }
    this.length += add;
  }

  #reserve(size: number): void {
    if (size <= this.times.length) return;
    const grow = (a: Float64Array) => {
      const b = new Float64Array(Math.max(size, 2 * a.length));
      b.set(a.subarray(0, this.length));
      return b;
    };
    this.times = grow(this.times);
    this.vcores = grow(this.vcores);
    this.memoryMB = grow(this.memoryMB);
  }
}
