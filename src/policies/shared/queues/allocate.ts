/**
 * Queue-level allocation at one instant, for BoPF and its baselines (BoPF §3.3, Algorithm 1):
 *
 * - `bopf` / `nbopf`: hard LQs in a burst get the constant rate d/t; soft LQs in a burst share
 *   what is left in shortest-remaining-processing-time order; the rest goes to the elastic pool
 *   (TQs, elastic LQs, and LQs outside a burst) by DRF; whatever is still unused is shared by DRF
 *   among every admitted queue with unmet demand (work conservation).
 * - `sp`: LQs first (DRF among them), then TQs by DRF on what is left.
 * - `drf`: every queue by DRF.
 *
 * Amounts are rates (vcores, MB currently held), never shares.
 */
import { add as plus, dominantShare, ZERO as Z, type Resources } from '../../../core/resources.js';
import { drfWaterFill } from './drf-waterfill.js';

export type Tier = 'hard' | 'soft' | 'elastic' | 'priority' | 'fair' | 'none';

export interface AllocQueue {
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

export interface QueueAllocation {
  /** What the policy reserves for the queue (hard: d/t; soft: its SRPT share; elastic: its DRF share). */
  readonly guarantee: Resources;
  /** What the queue would hold after work-conserving redistribution. */
  readonly alloc: Resources;
  readonly tier: Tier;
  /** Short explanation with numbers. */
  readonly why: string;
}

export type Mode = 'bopf' | 'sp' | 'drf';

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

export function allocate(mode: Mode, capacity: Resources, queues: readonly AllocQueue[]): Map<string, QueueAllocation> {
  if (mode === 'drf') return allocateDrf(capacity, queues);
  if (mode === 'sp') return allocateSp(capacity, queues);
  return allocateBopf(capacity, queues);
}

function allocateDrf(capacity: Resources, queues: readonly AllocQueue[]): Map<string, QueueAllocation> {
  const fair = drfWaterFill(
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
  const first = drfWaterFill(
    capacity,
    lqs.map((q) => ({ id: q.id, demand: q.demand })),
  );
  let left = capacity;
  for (const a of first.values()) left = minus(left, a);
  const second = drfWaterFill(
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
  const fair = drfWaterFill(
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
  const extra = isZero(spare) ? new Map<string, Resources>() : drfWaterFill(spare, unmet);

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
