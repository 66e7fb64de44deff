/**
 * The allocation round and the DRF water-fill as they were written over objects and Maps (commit
 * 93c3a19), kept as the reference the typed-array versions in src/policies/shared/queues must
 * match exactly (test/unit/bopf-allocation-fast.test.ts).
 */
import { add as plus, dominantShare, ZERO as Z, type Resources } from '../../src/core/resources.js';

interface DrfClaim {
  readonly id: string;
  /** What the queue could use right now (resource amounts, not shares). */
  readonly demand: Resources;
}

const DRF_EPS = 1e-12;

/**
 * DRF allocation of `capacity` to `claims`. Returns an allocation per id (zero for queues without
 * demand). Work conserving: a resource is left over only when every queue needing it is satisfied.
 */
export function referenceDrfWaterFill(capacity: Resources, claims: readonly DrfClaim[]): Map<string, Resources> {
  const out = new Map<string, Resources>();
  type Item = { id: string; demand: Resources; dom: number; vm: number; vv: number; frozenAt?: number };
  const items: Item[] = [];
  for (const c of claims) {
    const dom = dominantShare(c.demand, capacity);
    if (!(dom > DRF_EPS)) {
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
    const levelM = sumM > DRF_EPS && !satM ? level + (capacity.memoryMB - usedM) / sumM : Infinity;
    const levelV = sumV > DRF_EPS && !satV ? level + (capacity.vcores - usedV) / sumV : Infinity;
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
      for (const it of [...active]) if (it.vm > DRF_EPS) freeze(it);
    }
    if (target === levelV) {
      satV = true;
      for (const it of [...active]) if (it.vv > DRF_EPS) freeze(it);
    }
    while (next < items.length && (!active.has(items[next]) || items[next].dom <= level + DRF_EPS)) {
      if (active.has(items[next])) freeze(items[next]);
      next++;
    }
    if (Math.abs(sumM) < DRF_EPS) sumM = 0;
    if (Math.abs(sumV) < DRF_EPS) sumV = 0;
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

type Tier = 'hard' | 'soft' | 'elastic' | 'priority' | 'fair' | 'none';

interface AllocQueue {
  readonly id: string;
  readonly kind: 'LQ' | 'TQ';
  /** Admission class; `none` for a queue that is not admitted (gets nothing). */
  readonly cls: 'hard' | 'soft' | 'elastic' | 'none';
  /** What the queue can use now (held + pending). */
  readonly demand: Resources;
  /** Open burst of an LQ with a guarantee. */
  readonly burst?: {
    /** d/t. */
    readonly rate: Resources;
    /** Demand of the burst not yet received (resource amounts × seconds: vcore·s, MB·s). */
    readonly remaining: Resources;
  };
}

interface QueueAllocation {
  /** What the policy reserves for the queue (hard: d/t; soft: its SRPT share; elastic: its DRF share). */
  readonly guarantee: Resources;
  /** What the queue would hold after work-conserving redistribution. */
  readonly alloc: Resources;
  readonly tier: Tier;
  /** Short explanation with numbers. */
  readonly why: string;
}

type Mode = 'bopf' | 'sp' | 'drf';

const EPS = 1e-9;

/** a − b, never below zero. */
function minus(a: Resources, b: Resources): Resources {
  return { memoryMB: Math.max(0, a.memoryMB - b.memoryMB), vcores: Math.max(0, a.vcores - b.vcores) };
}
function isZero(a: Resources): boolean {
  return a.memoryMB <= EPS && a.vcores <= EPS;
}
/** The largest multiple k ≤ 1 of `want` that fits in `room` (Leontief: resources go together). */
function fitScaled(want: Resources, room: Resources): Resources {
  let k = 1;
  if (want.memoryMB > EPS) k = Math.min(k, Math.max(0, room.memoryMB) / want.memoryMB);
  if (want.vcores > EPS) k = Math.min(k, Math.max(0, room.vcores) / want.vcores);
  return { memoryMB: want.memoryMB * k, vcores: want.vcores * k };
}
const pct = (r: Resources, c: Resources) => `${(dominantShare(r, c) * 100).toFixed(1)}%`;

export function referenceAllocate(mode: Mode, capacity: Resources, queues: readonly AllocQueue[]): Map<string, QueueAllocation> {
  if (mode === 'drf') return allocateDrf(capacity, queues);
  if (mode === 'sp') return allocateSp(capacity, queues);
  return allocateBopf(capacity, queues);
}

function allocateDrf(capacity: Resources, queues: readonly AllocQueue[]): Map<string, QueueAllocation> {
  const fair = referenceDrfWaterFill(
    capacity,
    queues.map((q) => ({ id: q.id, demand: q.demand })),
  );
  const out = new Map<string, QueueAllocation>();
  for (const q of queues) {
    const a = fair.get(q.id) ?? Z;
    out.set(q.id, { guarantee: a, alloc: a, tier: 'fair', why: `DRF share ${pct(a, capacity)} of demand ${pct(q.demand, capacity)}` });
  }
  return out;
}

function allocateSp(capacity: Resources, queues: readonly AllocQueue[]): Map<string, QueueAllocation> {
  const lqs = queues.filter((q) => q.kind === 'LQ');
  const first = referenceDrfWaterFill(
    capacity,
    lqs.map((q) => ({ id: q.id, demand: q.demand })),
  );
  let left = capacity;
  for (const a of first.values()) left = minus(left, a);
  const second = referenceDrfWaterFill(
    left,
    queues.filter((q) => q.kind !== 'LQ').map((q) => ({ id: q.id, demand: q.demand })),
  );
  const out = new Map<string, QueueAllocation>();
  for (const q of queues) {
    const lq = q.kind === 'LQ';
    const a = (lq ? first : second).get(q.id) ?? Z;
    out.set(q.id, {
      guarantee: a,
      alloc: a,
      tier: lq ? 'priority' : 'fair',
      why: lq ? `strict priority: LQ gets ${pct(a, capacity)} (DRF among LQs)` : `after LQs: DRF share ${pct(a, capacity)} of the ${pct(left, capacity)} left`,
    });
  }
  return out;
}

function allocateBopf(capacity: Resources, queues: readonly AllocQueue[]): Map<string, QueueAllocation> {
  const out = new Map<string, QueueAllocation>();
  const used = new Map<string, Resources>();
  const guarantee = new Map<string, Resources>();
  const tier = new Map<string, Tier>();
  const why = new Map<string, string>();

  // 1. Hard LQs in a burst: constant rate d/t (scaled down only if the committed rates, against
  //    admission, exceed a capacity that has since shrunk).
  const hard = queues.filter((q) => q.cls === 'hard' && q.burst && !isZero(q.demand));
  let committed = Z;
  for (const q of hard) committed = plus(committed, q.burst!.rate);
  const fitted = fitScaled(committed, capacity);
  const k = isZero(committed) ? 1 : Math.max(fitted.memoryMB / Math.max(EPS, committed.memoryMB), fitted.vcores / Math.max(EPS, committed.vcores));
  let room = capacity;
  for (const q of hard) {
    const g = { memoryMB: q.burst!.rate.memoryMB * k, vcores: q.burst!.rate.vcores * k };
    guarantee.set(q.id, g);
    used.set(q.id, fitScaled(q.demand, g));
    tier.set(q.id, 'hard');
    why.set(q.id, `hard: burst rate d/t = ${pct(g, capacity)} of the cluster${k < 1 ? ` (scaled by ${k.toFixed(3)}: capacity shrank)` : ''}`);
    room = minus(room, g);
  }

  // 2. Soft LQs in a burst: SRPT on what is left, until each has received its burst demand.
  const soft = queues
    .filter((q) => q.cls === 'soft' && q.burst && !isZero(q.demand) && !isZero(q.burst.remaining))
    .sort((a, b) => dominantShare(a.burst!.remaining, capacity) - dominantShare(b.burst!.remaining, capacity) || (a.id < b.id ? -1 : 1));
  for (const q of soft) {
    const g = fitScaled(q.demand, room);
    guarantee.set(q.id, g);
    used.set(q.id, g);
    tier.set(q.id, 'soft');
    why.set(q.id, `soft: SRPT (remaining ${pct(q.burst!.remaining, capacity)}·s of cluster) gets ${pct(g, capacity)}`);
    room = minus(room, g);
  }

  // 3. Elastic pool by DRF: TQs, elastic LQs, LQs with a guarantee outside their burst.
  const pool = queues.filter((q) => q.cls !== 'none' && !tier.has(q.id));
  const fair = referenceDrfWaterFill(
    room,
    pool.map((q) => ({ id: q.id, demand: q.demand })),
  );
  for (const q of pool) {
    const a = fair.get(q.id) ?? Z;
    guarantee.set(q.id, a);
    used.set(q.id, a);
    tier.set(q.id, 'elastic');
    why.set(q.id, `elastic: DRF share ${pct(a, capacity)} of the ${pct(room, capacity)} left after guarantees`);
  }

  // 4. Work conservation: what is still unused goes, by DRF, to queues with unmet demand.
  let spare = capacity;
  for (const u of used.values()) spare = minus(spare, u);
  const unmet = queues
    .filter((q) => q.cls !== 'none')
    .map((q) => ({ id: q.id, demand: minus(q.demand, used.get(q.id) ?? Z) }))
    .filter((c) => !isZero(c.demand));
  const extra = isZero(spare) ? new Map<string, Resources>() : referenceDrfWaterFill(spare, unmet);

  for (const q of queues) {
    if (q.cls === 'none') {
      out.set(q.id, { guarantee: Z, alloc: Z, tier: 'none', why: 'not admitted' });
      continue;
    }
    const e = extra.get(q.id) ?? Z;
    const a = plus(used.get(q.id) ?? Z, e);
    out.set(q.id, {
      guarantee: guarantee.get(q.id) ?? Z,
      alloc: a,
      tier: tier.get(q.id)!,
      why: why.get(q.id)! + (isZero(e) ? '' : `; +${pct(e, capacity)} unused by others`),
    });
  }
  return out;
}
