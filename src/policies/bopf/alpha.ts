/**
 * The alpha-strategy (BoPF §3.5): an LQ whose burst sizes are uncertain requests, per resource,
 * the quantile of its demand distribution that makes the whole burst fit with probability α.
 * With K independent resources each quantile is taken at α^(1/K) (so the product is α); with
 * perfectly correlated resources at α itself.
 */
import type { BurstDemand, DemandDistribution, QueueSpec } from './spec.js';

/** Number of resources BoPF schedules here (vcores, memory). */
export const K_RESOURCES = 2;

/**
 * Inverse of the standard normal CDF (P. J. Acklam's rational approximation, relative error
 * below 1.2e-9 over (0,1)).
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`quantile level must be in (0,1), got ${p}`);
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/** F⁻¹(p): the smallest demand x with P(demand ≤ x) ≥ p (never below zero). */
export function quantile(dist: DemandDistribution, p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`quantile level must be in (0,1), got ${p}`);
  switch (dist.kind) {
    case 'normal':
      return Math.max(0, dist.mean + dist.std * normalQuantile(p));
    case 'uniform':
      return dist.min + p * (dist.max - dist.min);
    case 'empirical': {
      const s = [...dist.samples].sort((x, y) => x - y);
      return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
    }
  }
}

export interface ResolvedDemand {
  readonly demand: BurstDemand;
  /** How the demand was obtained, with the numbers. */
  readonly how: string;
}

/** The demand BoPF reasons about for one LQ burst: the declared one, or the alpha-strategy's. */
export function resolveDemand(spec: QueueSpec): ResolvedDemand {
  if (spec.demand) return { demand: spec.demand, how: 'declared demand' };
  if (!spec.distribution || spec.alpha === undefined) return { demand: { vcoreSeconds: 0, memoryMBSeconds: 0 }, how: 'no burst demand (TQ)' };
  const perfect = spec.distribution.correlation === 'perfect';
  const p = perfect ? spec.alpha : spec.alpha ** (1 / K_RESOURCES);
  const demand = {
    vcoreSeconds: quantile(spec.distribution.vcoreSeconds, p),
    memoryMBSeconds: quantile(spec.distribution.memoryMBSeconds, p),
  };
  const level = perfect ? `α = ${spec.alpha} (perfectly correlated)` : `α^(1/${K_RESOURCES}) = ${fmt(p)} (independent resources)`;
  return {
    demand,
    how: `alpha-strategy: quantile at ${level} → ${fmt(demand.vcoreSeconds)} vcore·s, ${fmt(demand.memoryMBSeconds)} MB·s`,
  };
}

export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x)) return String(x);
  return String(Number(x.toPrecision(6)));
}
