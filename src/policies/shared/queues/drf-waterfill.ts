/**
 * Dominant Resource Fairness by progressive filling (Ghodsi et al., NSDI 2011), over continuous
 * demand vectors: every unsatisfied queue's dominant share rises at the same pace, each queue
 * grows along its own demand direction (Leontief), a queue stops when its demand is met, and
 * every queue that needs a resource stops when that resource runs out.
 *
 * O(n log n): queues are visited in order of the dominant share of their full demand, and a
 * resource can saturate at most once.
 */
import { dominantShare, type Resources } from '../../../core/resources.js';

export interface DrfClaim {
  readonly id: string;
  /** What the queue could use right now (resource amounts, not shares). */
  readonly demand: Resources;
}

const EPS = 1e-12;

/**
 * DRF allocation of `capacity` to `claims`. Returns an allocation per id (zero for queues without
 * demand). Work conserving: a resource is left over only when every queue needing it is satisfied.
 */
export function drfWaterFill(capacity: Resources, claims: readonly DrfClaim[]): Map<string, Resources> {
  const out = new Map<string, Resources>();
  type Item = { id: string; demand: Resources; dom: number; vm: number; vv: number; frozenAt?: number };
  const items: Item[] = [];
  for (const c of claims) {
    const dom = dominantShare(c.demand, capacity);
    if (!(dom > EPS)) {
      out.set(c.id, { memoryMB: 0, vcores: 0 });
      continue;
    }
    // Direction with dominant share 1: allocation at level s is s·v.
    items.push({ id: c.id, demand: c.demand, dom, vm: c.demand.memoryMB / dom, vv: c.demand.vcores / dom });
  }
  items.sort((a, b) => a.dom - b.dom);
  let level = 0;
  let usedM = 0;
  let usedV = 0;
  // Active set sums of directions; items stop (freeze) at their own `dom` or at a saturation.
  let sumM = 0;
  let sumV = 0;
  for (const it of items) {
    sumM += it.vm;
    sumV += it.vv;
  }
  let satM = false;
  let satV = false;
  let next = 0; // index of the next item to reach its own demand
  const active = new Set(items);
  while (active.size > 0) {
    while (next < items.length && !active.has(items[next])) next++;
    const capLevel = next < items.length ? items[next].dom : Infinity;
    const levelM = sumM > EPS && !satM ? level + (capacity.memoryMB - usedM) / sumM : Infinity;
    const levelV = sumV > EPS && !satV ? level + (capacity.vcores - usedV) / sumV : Infinity;
    const target = Math.min(capLevel, levelM, levelV);
    if (!Number.isFinite(target)) break;
    usedM += (target - level) * sumM;
    usedV += (target - level) * sumV;
    level = target;
    const freeze = (it: Item) => {
      if (!active.delete(it)) return;
      it.frozenAt = level;
      sumM -= it.vm;
      sumV -= it.vv;
    };
    if (target === levelM) {
      satM = true;
      for (const it of [...active]) if (it.vm > EPS) freeze(it);
    }
    if (target === levelV) {
      satV = true;
      for (const it of [...active]) if (it.vv > EPS) freeze(it);
    }
    while (next < items.length && (!active.has(items[next]) || items[next].dom <= level + EPS)) {
      if (active.has(items[next])) freeze(items[next]);
      next++;
    }
    if (Math.abs(sumM) < EPS) sumM = 0;
    if (Math.abs(sumV) < EPS) sumV = 0;
  }
  for (const it of items) {
    const s = Math.min(it.frozenAt ?? level, it.dom);
    out.set(it.id, {
      memoryMB: Math.min(it.demand.memoryMB, s * it.vm),
      vcores: Math.min(it.demand.vcores, s * it.vv),
    });
  }
  return out;
}
