/**
 * Seeded pseudo-random numbers for the simulator and the workload generators. Nothing in the
 * simulator uses Math.random: the same seed always gives the same stream.
 *
 * mulberry32: 32-bit state, period 2^32, good enough statistical quality for workload sampling.
 */
export class Rng {
  private s: number;

  constructor(seed: number) {
    // Mix the seed so that nearby seeds (1, 2, 3, …) give unrelated streams.
    let h = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
    this.s = (h ^ (h >>> 16)) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Exponentially distributed with the given mean (Poisson-process inter-arrival times). */
  exponential(mean: number): number {
    // 1 - next() is in (0, 1], so the log is finite.
    return -Math.log(1 - this.next()) * mean;
  }

  /** Index drawn according to `weights` (need not sum to 1). */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let x = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i];
      if (x < 0) return i;
    }
    return weights.length - 1;
  }
}
