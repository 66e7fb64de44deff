/**
 * Dominant Resource Fairness by progressive filling (Ghodsi et al., NSDI 2011), over continuous
 * demand vectors: every unsatisfied queue's dominant share rises at the same pace, each queue
 * grows along its own demand direction (Leontief), a queue stops when its demand is met, and
 * every queue that needs a resource stops when that resource runs out.
 *
 * O(n log n): queues are visited in order of the dominant share of their full demand, and a
 * resource can saturate at most once. `drfFill` works on typed arrays (one allocation round for
 * 20,000 queues runs it twice); `drfWaterFill` is the same fill over objects.
 */
import type { Resources } from '../../../core/resources.js';
import { orderByKeyInBuckets } from './bucket-order.js';

export interface DrfClaim {
  readonly id: string;
  /** What the queue could use right now (resource amounts, not shares). */
  readonly demand: Resources;
}

const EPS = 1e-12;

// Working memory of `drfFill`, kept between calls (a fill of 20,000 claims would otherwise
// allocate and zero a megabyte); calls never overlap.
function newWork(size: number) {
  return {
    claim: new Int32Array(size),
    domOf: new Float64Array(size),
    byDom: new Int32Array(size),
    item: new Int32Array(size),
    dom: new Float64Array(size),
    vm: new Float64Array(size),
    vv: new Float64Array(size),
    frozenAt: new Float64Array(size),
    active: new Uint8Array(size),
  };
}
let work = newWork(0);

/**
 * DRF allocation of (`capacityMB`, `capacityVcores`) to the claims `0..n-1` with demands
 * `demandMB[i]`, `demandVcores[i]`; writes claim i's allocation to `outMB[i]`, `outVcores[i]`
 * (zero for claims without demand). Returns the claims with demand in the order they were
 * filled (ascending dominant share of their demand, ties in claim order): a view of working
 * memory, valid until the next call (the allocation round does not read it; a copy cost a
 * fresh array per fill).
 */
export function drfFill(
  capacityMB: number,
  capacityVcores: number,
  demandMB: Float64Array,
  demandVcores: Float64Array,
  n: number,
  outMB: Float64Array,
  outVcores: Float64Array,
): Int32Array {
  if (work.claim.length < n) work = newWork(2 * n);
  const { claim, domOf, byDom, item, dom } = work;
  const count = claimsWithDemand(capacityMB, capacityVcores, demandMB, demandVcores, n, outMB, outVcores);
  // Fill order by dominant share, the shares in that order written to `dom`.
  orderByKeyInBuckets(domOf, count, byDom, dom);
  for (let k = 0; k < count; k++) item[k] = claim[byDom[k]];
  const level = fill(capacityMB, capacityVcores, demandMB, demandVcores, count);
  writeFilled(demandMB, demandVcores, count, level, outMB, outVcores);
  return item.subarray(0, count);
}

/** Claims with demand, in claim order, to `claim` and their dominant shares to `domOf`; every output zeroed. Returns their count. */
function claimsWithDemand(
  capacityMB: number,
  capacityVcores: number,
  demandMB: Float64Array,
  demandVcores: Float64Array,
  n: number,
  outMB: Float64Array,
  outVcores: Float64Array,
): number {
  const { claim, domOf } = work;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const m = capacityMB > 0 ? demandMB[i] / capacityMB : 0;
    const v = capacityVcores > 0 ? demandVcores[i] / capacityVcores : 0;
    const dom = Math.max(m, v);
    outMB[i] = 0;
    outVcores[i] = 0;
    if (!(dom > EPS)) continue;
    claim[count] = i;
    domOf[count++] = dom;
  }
  return count;
}

/**
 * Progressive filling over items `0..count-1` in fill order (`item`, `dom`): each item's
 * direction (allocation at level s is s·v), then the level raised to the next item's own demand
 * or a resource's saturation, whichever comes first. Writes `frozenAt`; returns the last level.
 */
function fill(capacityMB: number, capacityVcores: number, demandMB: Float64Array, demandVcores: Float64Array, count: number): number {
  const { item, dom, vm, vv, frozenAt, active } = work;
  frozenAt.fill(NaN, 0, count);
  active.fill(1, 0, count);
  let activeCount = count;
  let sumM = 0;
  let sumV = 0;
  for (let k = 0; k < count; k++) {
    const i = item[k];
    const d = dom[k];
    vm[k] = demandMB[i] / d;
    vv[k] = demandVcores[i] / d;
    sumM += vm[k];
    sumV += vv[k];
  }
  let level = 0;
  let usedM = 0;
  let usedV = 0;
  let satM = false;
  let satV = false;
  let next = 0; // the next item to reach its own demand
  while (activeCount > 0) {
    while (next < count && !active[next]) next++;
    const capLevel = next < count ? dom[next] : Infinity;
    const levelM = sumM > EPS && !satM ? level + (capacityMB - usedM) / sumM : Infinity;
    const levelV = sumV > EPS && !satV ? level + (capacityVcores - usedV) / sumV : Infinity;
    const target = Math.min(capLevel, levelM, levelV);
    if (!Number.isFinite(target)) break;
    usedM += (target - level) * sumM;
    usedV += (target - level) * sumV;
    level = target;
    // An item stops (freezes) at the current level: every active item needing a saturated
    // resource, then the items whose own demand the level has reached, in fill order.
    if (target === levelM) {
      satM = true;
      for (let k = 0; k < count; k++) {
        if (!active[k] || !(vm[k] > EPS)) continue;
        active[k] = 0;
        activeCount--;
        frozenAt[k] = level;
        sumM -= vm[k];
        sumV -= vv[k];
      }
    }
    if (target === levelV) {
      satV = true;
      for (let k = 0; k < count; k++) {
        if (!active[k] || !(vv[k] > EPS)) continue;
        active[k] = 0;
        activeCount--;
        frozenAt[k] = level;
        sumM -= vm[k];
        sumV -= vv[k];
      }
    }
    for (; next < count && (!active[next] || dom[next] <= level + EPS); next++) {
      if (!active[next]) continue;
      active[next] = 0;
      activeCount--;
      frozenAt[next] = level;
      sumM -= vm[next];
      sumV -= vv[next];
    }
    if (Math.abs(sumM) < EPS) sumM = 0;
    if (Math.abs(sumV) < EPS) sumV = 0;
  }
  return level;
}

/** Each item's allocation: its direction at the level it stopped at (or the last level), never past its demand. */
function writeFilled(demandMB: Float64Array, demandVcores: Float64Array, count: number, level: number, outMB: Float64Array, outVcores: Float64Array): void {
  const { item, dom, vm, vv, frozenAt } = work;
  for (let k = 0; k < count; k++) {
    const i = item[k];
    const f = frozenAt[k];
    const s = Math.min(f === f ? f : level, dom[k]);
    outMB[i] = Math.min(demandMB[i], s * vm[k]);
    outVcores[i] = Math.min(demandVcores[i], s * vv[k]);
  }
}

/**
 * DRF allocation of `capacity` to `claims`. Returns an allocation per id (zero for queues without
 * demand). Work conserving: a resource is left over only when every queue needing it is satisfied.
 */
export function drfWaterFill(capacity: Resources, claims: readonly DrfClaim[]): Map<string, Resources> {
  const n = claims.length;
  const demandMB = new Float64Array(n);
  const demandVcores = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    demandMB[i] = claims[i].demand.memoryMB;
    demandVcores[i] = claims[i].demand.vcores;
  }
  const outMB = new Float64Array(n);
  const outVcores = new Float64Array(n);
  const filled = drfFill(capacity.memoryMB, capacity.vcores, demandMB, demandVcores, n, outMB, outVcores);
  // Claims without demand first, then in fill order (the order callers have always seen).
  const out = new Map<string, Resources>();
  const hasDemand = new Uint8Array(n);
  for (const i of filled) hasDemand[i] = 1;
  for (let i = 0; i < n; i++) if (!hasDemand[i]) out.set(claims[i].id, { memoryMB: 0, vcores: 0 });
  for (const i of filled) out.set(claims[i].id, { memoryMB: outMB[i], vcores: outVcores[i] });
  return out;
}
