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
 * Amounts are rates (vcores, MB currently held), never shares. A round keeps its numbers in typed
 * arrays, one slot per queue in input order; a queue's explanation (`why`) is written when read.
 */
import { dominantShare, ZERO as Z, type Resources } from '../../../core/resources.js';
import { drfFill, drfWaterFill } from './drf-waterfill.js';

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

const NONE = 0;
const HARD = 1;
const SOFT = 2;
const ELASTIC = 3;
const PRIORITY = 4;
const FAIR = 5;
const TIERS: readonly Tier[] = ['none', 'hard', 'soft', 'elastic', 'priority', 'fair'];

const pct = (r: Resources, c: Resources) => `${(dominantShare(r, c) * 100).toFixed(1)}%`;

/** One allocation round's numbers, slot i for the i-th queue given to `allocate`. */
interface Round {
  readonly mode: Mode;
  readonly capacity: Resources;
  readonly tier: Uint8Array;
  readonly guaranteeMB: Float64Array;
  readonly guaranteeVcores: Float64Array;
  /** What the tier gave (before work conservation). */
  readonly usedMB: Float64Array;
  readonly usedVcores: Float64Array;
  /** What work conservation added. */
  readonly extraMB: Float64Array;
  readonly extraVcores: Float64Array;
  /** For the explanations: the hard rates' scale, what the guarantees left (bopf); what LQs left (sp). */
  hardScale: number;
  left: Resources;
}

function newRound(mode: Mode, capacity: Resources, n: number): Round {
  // One buffer for the six amounts (fewer, larger allocations: each buffer counts toward the
  // collector's external memory).
  const amounts = new Float64Array(6 * n);
  const part = (k: number) => amounts.subarray(k * n, (k + 1) * n);
  return {
    mode,
    capacity,
    tier: new Uint8Array(n),
    guaranteeMB: part(0),
    guaranteeVcores: part(1),
    usedMB: part(2),
    usedVcores: part(3),
    extraMB: part(4),
    extraVcores: part(5),
    hardScale: 1,
    left: capacity,
  };
}

/** Working arrays of a bopf round, kept between rounds (every slot used is written first); rounds never overlap. */
function newWork(size: number) {
  return {
    demandMB: new Float64Array(size),
    demandVcores: new Float64Array(size),
    claimMB: new Float64Array(size),
    claimVcores: new Float64Array(size),
    outMB: new Float64Array(size),
    outVcores: new Float64Array(size),
    given: new Int32Array(size),
    slot: new Int32Array(size),
    rateMB: new Float64Array(size),
    rateVcores: new Float64Array(size),
  };
}
let work = newWork(0);

/** One queue's allocation, read from its round's arrays; the explanation is written when read. */
class Allocation implements QueueAllocation {
  readonly guarantee: Resources;
  readonly alloc: Resources;
  readonly tier: Tier;
  #why: string | undefined;

  constructor(
    private readonly round: Round,
    private readonly queue: AllocQueue,
    private readonly i: number,
  ) {
    this.tier = TIERS[round.tier[i]];
    if (round.tier[i] === NONE) {
      this.guarantee = Z;
      this.alloc = Z;
      return;
    }
    this.guarantee = { memoryMB: round.guaranteeMB[i], vcores: round.guaranteeVcores[i] };
    this.alloc = { memoryMB: round.usedMB[i] + round.extraMB[i], vcores: round.usedVcores[i] + round.extraVcores[i] };
  }

  get why(): string {
    return (this.#why ??= explain(this.round, this.queue, this.i, this.tier, this.guarantee));
  }

  toJSON(): QueueAllocation {
    return { guarantee: this.guarantee, alloc: this.alloc, tier: this.tier, why: this.why };
  }
}

function explain(r: Round, q: AllocQueue, i: number, tier: Tier, g: Resources): string {
  const c = r.capacity;
  const extra = { memoryMB: r.extraMB[i], vcores: r.extraVcores[i] };
  const unusedByOthers = isZero(extra) ? '' : `; +${pct(extra, c)} unused by others`;
  switch (tier) {
    case 'none':
      return 'not admitted';
    case 'hard':
      return `hard: burst rate d/t = ${pct(g, c)} of the cluster${r.hardScale < 1 ? ` (scaled by ${r.hardScale.toFixed(3)}: capacity shrank)` : ''}${unusedByOthers}`;
    case 'soft':
      return `soft: SRPT (remaining ${pct(q.burst!.remaining, c)}·s of cluster) gets ${pct(g, c)}${unusedByOthers}`;
    case 'elastic':
      return `elastic: DRF share ${pct(g, c)} of the ${pct(r.left, c)} left after guarantees${unusedByOthers}`;
    case 'priority':
      return `strict priority: LQ gets ${pct(g, c)} (DRF among LQs)`;
    case 'fair':
      return r.mode === 'sp' ? `after LQs: DRF share ${pct(g, c)} of the ${pct(r.left, c)} left` : `DRF share ${pct(g, c)} of demand ${pct(q.demand, c)}`;
  }
}

/**
 * The allocations of one round, by queue id like a Map (the id index is built on first use), or
 * by position: `at(i)` for the i-th queue given to `allocate`. Entries are made when read.
 */
export class Allocations implements ReadonlyMap<string, QueueAllocation> {
  #byId: Map<string, number> | undefined;

  constructor(
    private readonly round: Round,
    private readonly queues: readonly AllocQueue[],
  ) {}

  get size(): number {
    return this.queues.length;
  }

  at(i: number): QueueAllocation {
    return new Allocation(this.round, this.queues[i], i);
  }

  #index(): Map<string, number> {
    if (!this.#byId) {
      this.#byId = new Map();
      for (let i = 0; i < this.queues.length; i++) this.#byId.set(this.queues[i].id, i);
    }
    return this.#byId;
  }

  get(id: string): QueueAllocation | undefined {
    const i = this.#index().get(id);
    return i === undefined ? undefined : this.at(i);
  }

  has(id: string): boolean {
    return this.#index().has(id);
  }

  *entries(): MapIterator<[string, QueueAllocation]> {
    for (const [id, i] of this.#index()) yield [id, this.at(i)];
  }

  *keys(): MapIterator<string> {
    yield* this.#index().keys();
  }

  *values(): MapIterator<QueueAllocation> {
    for (const i of this.#index().values()) yield this.at(i);
  }

  [Symbol.iterator](): MapIterator<[string, QueueAllocation]> {
    return this.entries();
  }

  forEach(fn: (value: QueueAllocation, key: string, map: ReadonlyMap<string, QueueAllocation>) => void, thisArg?: unknown): void {
    for (const [id, a] of this.entries()) fn.call(thisArg, a, id, this);
  }
}

export function allocate(mode: Mode, capacity: Resources, queues: readonly AllocQueue[]): Allocations {
  if (mode === 'drf') return allocateDrf(capacity, queues);
  if (mode === 'sp') return allocateSp(capacity, queues);
  return allocateBopf(capacity, queues);
}

function allocateDrf(capacity: Resources, queues: readonly AllocQueue[]): Allocations {
  const r = newRound('drf', capacity, queues.length);
  const n = queues.length;
  const demandMB = new Float64Array(n);
  const demandVcores = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    demandMB[i] = queues[i].demand.memoryMB;
    demandVcores[i] = queues[i].demand.vcores;
  }
  drfFill(capacity.memoryMB, capacity.vcores, demandMB, demandVcores, n, r.guaranteeMB, r.guaranteeVcores);
  r.tier.fill(FAIR);
  r.usedMB.set(r.guaranteeMB);
  r.usedVcores.set(r.guaranteeVcores);
  return new Allocations(r, queues);
}

function allocateSp(capacity: Resources, queues: readonly AllocQueue[]): Allocations {
  const r = newRound('sp', capacity, queues.length);
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
  r.left = left;
  queues.forEach((q, i) => {
    const lq = q.kind === 'LQ';
    const a = (lq ? first : second).get(q.id) ?? Z;
    r.tier[i] = lq ? PRIORITY : FAIR;
    r.guaranteeMB[i] = r.usedMB[i] = a.memoryMB;
    r.guaranteeVcores[i] = r.usedVcores[i] = a.vcores;
  });
  return new Allocations(r, queues);
}

/** a − b, never below zero. */
function minus(a: Resources, b: Resources): Resources {
  return { memoryMB: Math.max(0, a.memoryMB - b.memoryMB), vcores: Math.max(0, a.vcores - b.vcores) };
}
function isZero(a: Resources): boolean {
  return a.memoryMB <= EPS && a.vcores <= EPS;
}

function allocateBopf(capacity: Resources, queues: readonly AllocQueue[]): Allocations {
  const n = queues.length;
  const r = newRound('bopf', capacity, n);
  const { tier, guaranteeMB: gM, guaranteeVcores: gV, usedMB: uM, usedVcores: uV } = r;
  if (work.given.length < n) work = newWork(2 * n);
  const { demandMB, demandVcores, claimMB, claimVcores, outMB, outVcores, given, slot, rateMB, rateVcores } = work;
  // The queues read once: demand, and which tier each starts in (hard, soft, elastic pool, none).
  const soft: number[] = [];
  let committedM = 0;
  let committedV = 0;
  for (let i = 0; i < n; i++) {
    const q = queues[i];
    const m = q.demand.memoryMB;
    const v = q.demand.vcores;
    demandMB[i] = m;
    demandVcores[i] = v;
    const busy = !(m <= EPS && v <= EPS);
    if (q.cls === 'none') tier[i] = NONE;
    else if (q.cls === 'hard' && q.burst && busy) {
      tier[i] = HARD;
      // Kept for the hard tier below, which would otherwise read each queue's objects again.
      rateMB[i] = q.burst.rate.memoryMB;
      rateVcores[i] = q.burst.rate.vcores;
      committedM += rateMB[i];
      committedV += rateVcores[i];
    } else if (q.cls === 'soft' && q.burst && busy && !isZero(q.burst.remaining)) {
      tier[i] = SOFT;
      soft.push(i);
    } else tier[i] = ELASTIC;
  }
  // Order in which the tiers handed out their shares (hard, soft, elastic): what is left over
  // is the capacity minus each share in this order, as the reference computed it.
  let givenCount = 0;

  // 1. Hard LQs in a burst: constant rate d/t (scaled down only if the committed rates, against
  //    admission, exceed a capacity that has since shrunk).
  let k = 1;
  if (!(committedM <= EPS && committedV <= EPS)) {
    const f = fitScale(committedM, committedV, capacity.memoryMB, capacity.vcores);
    k = Math.max((committedM * f) / Math.max(EPS, committedM), (committedV * f) / Math.max(EPS, committedV));
  }
  r.hardScale = k;
  let roomM = capacity.memoryMB;
  let roomV = capacity.vcores;
  for (let i = 0; i < n; i++) {
    if (tier[i] !== HARD) continue;
    gM[i] = rateMB[i] * k;
    gV[i] = rateVcores[i] * k;
    const f = fitScale(demandMB[i], demandVcores[i], gM[i], gV[i]);
    uM[i] = demandMB[i] * f;
    uV[i] = demandVcores[i] * f;
    roomM = Math.max(0, roomM - gM[i]);
    roomV = Math.max(0, roomV - gV[i]);
    given[givenCount++] = i;
  }

  // 2. Soft LQs in a burst: SRPT on what is left, until each has received its burst demand.
  if (soft.length > 1) {
    const rem = new Map(soft.map((i) => [i, dominantShare(queues[i].burst!.remaining, capacity)]));
    soft.sort((a, b) => rem.get(a)! - rem.get(b)! || (queues[a].id < queues[b].id ? -1 : 1));
  }
  for (const i of soft) {
    const f = fitScale(demandMB[i], demandVcores[i], roomM, roomV);
    gM[i] = uM[i] = demandMB[i] * f;
    gV[i] = uV[i] = demandVcores[i] * f;
    roomM = Math.max(0, roomM - gM[i]);
    roomV = Math.max(0, roomV - gV[i]);
    given[givenCount++] = i;
  }
  r.left = { memoryMB: roomM, vcores: roomV };

  // 3. Elastic pool by DRF: TQs, elastic LQs, LQs with a guarantee outside their burst.
  let pool = 0;
  for (let i = 0; i < n; i++) {
    if (tier[i] !== ELASTIC) continue;
    slot[pool] = i;
    claimMB[pool] = demandMB[i];
    claimVcores[pool++] = demandVcores[i];
  }
  drfFill(roomM, roomV, claimMB, claimVcores, pool, outMB, outVcores);
  for (let p = 0; p < pool; p++) {
    const i = slot[p];
    gM[i] = uM[i] = outMB[p];
    gV[i] = uV[i] = outVcores[p];
    given[givenCount++] = i;
  }

  // 4. Work conservation: what is still unused goes, by DRF, to queues with unmet demand.
  let spareM = capacity.memoryMB;
  let spareV = capacity.vcores;
  for (let j = 0; j < givenCount; j++) {
    const i = given[j];
    spareM = Math.max(0, spareM - uM[i]);
    spareV = Math.max(0, spareV - uV[i]);
  }
  if (!(spareM <= EPS && spareV <= EPS)) {
    let unmet = 0;
    for (let i = 0; i < n; i++) {
      if (tier[i] === NONE) continue;
      const m = Math.max(0, demandMB[i] - uM[i]);
      const v = Math.max(0, demandVcores[i] - uV[i]);
      if (m <= EPS && v <= EPS) continue;
      slot[unmet] = i;
      claimMB[unmet] = m;
      claimVcores[unmet++] = v;
    }
    drfFill(spareM, spareV, claimMB, claimVcores, unmet, outMB, outVcores);
    for (let p = 0; p < unmet; p++) {
      r.extraMB[slot[p]] = outMB[p];
      r.extraVcores[slot[p]] = outVcores[p];
    }
  }
  return new Allocations(r, queues);
}

/** The largest k ≤ 1 with k·want fitting in `room` (Leontief: resources go together). */
function fitScale(wantMB: number, wantVcores: number, roomMB: number, roomVcores: number): number {
  let k = 1;
  if (wantMB > EPS) k = Math.min(k, Math.max(0, roomMB) / wantMB);
  if (wantVcores > EPS) k = Math.min(k, Math.max(0, roomVcores) / wantVcores);
  return k;
}
