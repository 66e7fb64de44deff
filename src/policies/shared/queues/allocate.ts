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
 * arrays, one slot per queue in input order, which the next round writes over: a round is read
 * before the next `allocate` call (an entry once read keeps its numbers). A queue's explanation
 * (`why`) is written when read.
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

/**
 * One allocation round's numbers, slot i for the i-th queue given to `allocate`. The typed arrays
 * are the module's `buffers`, which the next round writes over: a round's result is read before
 * the next round (its callers read it at once; `Allocations` checks `generation`).
 */
interface Round {
  readonly mode: Mode;
  readonly capacity: Resources;
  /** `buffers.generation` when the round was made. */
  readonly generation: number;
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

/**
 * The rounds' arrays, one buffer for the six amounts and one for the tiers, written over by each
 * round (fresh ones cost a round of 20,000 queues about 0.5 ms, mostly the first touch of a
 * megabyte of new memory).
 */
const buffers = { amounts: new Float64Array(0), tier: new Uint8Array(0), generation: 0 };

function newRound(mode: Mode, capacity: Resources, n: number): Round {
  if (buffers.tier.length < n) {
    buffers.amounts = new Float64Array(6 * n);
    buffers.tier = new Uint8Array(n);
  }
  const { amounts } = buffers;
  const part = (k: number) => amounts.subarray(k * n, (k + 1) * n);
  // Every round writes each queue's tier, guarantee and use; work conservation adds to zero.
  amounts.fill(0, 4 * n, 6 * n);
  return {
    mode,
    capacity,
    generation: ++buffers.generation,
    tier: buffers.tier.subarray(0, n),
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
    /** Queues in the order their tier gave them a share: hard and soft first, then the elastic pool. */
    given: new Int32Array(size),
    /** The elastic pool's queues, then the queues with unmet demand. */
    slot: new Int32Array(size),
    rateMB: new Float64Array(size),
    rateVcores: new Float64Array(size),
  };
}
let work = newWork(0);
/** What `readQueues` found besides its arrays: the hard rates' sums, and how many queues each tier starts with. */
const found = { committedMB: 0, committedVcores: 0, hard: 0, pool: 0, soft: [] as number[] };
/** What a tier leaves of the capacity (memory, vcores). */
const room = new Float64Array(2);

/**
 * One queue's allocation, its numbers read from its round's arrays when made (it stays valid
 * after later rounds); the explanation is written when read.
 */
class Allocation implements QueueAllocation {
  readonly guarantee: Resources;
  readonly alloc: Resources;
  readonly tier: Tier;
  /** What work conservation added (for the explanation). */
  readonly #extra: Resources;
  #why: string | undefined;

  constructor(
    private readonly round: Round,
    private readonly queue: AllocQueue,
    i: number,
  ) {
    this.tier = TIERS[round.tier[i]];
    if (round.tier[i] === NONE) {
      this.guarantee = Z;
      this.alloc = Z;
      this.#extra = Z;
      return;
    }
    this.guarantee = { memoryMB: round.guaranteeMB[i], vcores: round.guaranteeVcores[i] };
    this.#extra = { memoryMB: round.extraMB[i], vcores: round.extraVcores[i] };
    this.alloc = { memoryMB: round.usedMB[i] + this.#extra.memoryMB, vcores: round.usedVcores[i] + this.#extra.vcores };
  }

  get why(): string {
    return (this.#why ??= explain(this.round, this.queue, this.tier, this.guarantee, this.#extra));
  }

  toJSON(): QueueAllocation {
    return { guarantee: this.guarantee, alloc: this.alloc, tier: this.tier, why: this.why };
  }
}

function explain(r: Round, q: AllocQueue, tier: Tier, g: Resources, extra: Resources): string {
  const c = r.capacity;
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
 * by position: `at(i)` for the i-th queue given to `allocate`. Entries are made when read, until
 * the next `allocate` call, which writes over the round's arrays: reading one after that throws
 * (an entry already read keeps its numbers).
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
    if (this.round.generation !== buffers.generation) throw new Error('allocation round read after a later round: read a round before the next allocate call');
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
  if (work.given.length < n) work = newWork(2 * n);
  readQueues(queues, r.tier);

  // 1. Hard LQs in a burst: constant rate d/t (scaled down only if the committed rates, against
  //    admission, exceed a capacity that has since shrunk).
  const { committedMB, committedVcores } = found;
  let k = 1;
  if (!(committedMB <= EPS && committedVcores <= EPS)) {
    const f = fitScale(committedMB, committedVcores, capacity.memoryMB, capacity.vcores);
    k = Math.max((committedMB * f) / Math.max(EPS, committedMB), (committedVcores * f) / Math.max(EPS, committedVcores));
  }
  r.hardScale = k;
  room[0] = capacity.memoryMB;
  room[1] = capacity.vcores;
  hardTier(r, k, found.hard);

  // 2. Soft LQs in a burst: SRPT on what is left, until each has received its burst demand.
  const soft = found.soft;
  if (soft.length > 1) {
    const rem = new Map(soft.map((i) => [i, dominantShare(queues[i].burst!.remaining, capacity)]));
    soft.sort((a, b) => rem.get(a)! - rem.get(b)! || (queues[a].id < queues[b].id ? -1 : 1));
  }
  softTier(r, soft, found.hard);
  const givenCount = found.hard + soft.length;
  r.left = { memoryMB: room[0], vcores: room[1] };

  // 3. Elastic pool by DRF: TQs, elastic LQs, LQs with a guarantee outside their burst.
  const { claimMB, claimVcores, outMB, outVcores } = work;
  drfFill(room[0], room[1], claimMB, claimVcores, found.pool, outMB, outVcores);
  elasticTier(r, found.pool, givenCount);

  // 4. Work conservation: what is still unused goes, by DRF, to queues with unmet demand.
  spare(r, givenCount + found.pool);
  if (!(room[0] <= EPS && room[1] <= EPS)) {
    const unmet = unmetClaims(r, n);
    drfFill(room[0], room[1], claimMB, claimVcores, unmet, outMB, outVcores);
    const { slot } = work;
    for (let p = 0; p < unmet; p++) {
      r.extraMB[slot[p]] = outMB[p];
      r.extraVcores[slot[p]] = outVcores[p];
    }
  }
  return new Allocations(r, queues);
}

/**
 * The queues read once: each one's demand, the tier it starts in (hard, soft, elastic pool,
 * none), a hard queue's rate (listed in `given`), the elastic pool's claims (listed in `slot`).
 */
function readQueues(queues: readonly AllocQueue[], tier: Uint8Array): void {
  const { demandMB, demandVcores, rateMB, rateVcores, given, slot, claimMB, claimVcores } = work;
  const soft: number[] = [];
  let committedMB = 0;
  let committedVcores = 0;
  let hard = 0;
  let pool = 0;
  for (let i = 0; i < queues.length; i++) {
    const q = queues[i];
    const m = q.demand.memoryMB;
    const v = q.demand.vcores;
    demandMB[i] = m;
    demandVcores[i] = v;
    const busy = !(m <= EPS && v <= EPS);
    if (q.cls === 'none') tier[i] = NONE;
    else if (q.cls === 'hard' && q.burst && busy) {
      tier[i] = HARD;
      rateMB[i] = q.burst.rate.memoryMB;
      rateVcores[i] = q.burst.rate.vcores;
      committedMB += rateMB[i];
      committedVcores += rateVcores[i];
      given[hard++] = i;
    } else if (q.cls === 'soft' && q.burst && busy && !isZero(q.burst.remaining)) {
      tier[i] = SOFT;
      soft.push(i);
    } else {
      tier[i] = ELASTIC;
      slot[pool] = i;
      claimMB[pool] = m;
      claimVcores[pool++] = v;
    }
  }
  found.committedMB = committedMB;
  found.committedVcores = committedVcores;
  found.hard = hard;
  found.pool = pool;
  found.soft = soft;
}

/** The hard queues (`given[0..count)`) at their rate scaled by `k`, each using what it can of it. */
function hardTier(r: Round, k: number, count: number): void {
  const { guaranteeMB: gM, guaranteeVcores: gV, usedMB: uM, usedVcores: uV } = r;
  const { demandMB, demandVcores, rateMB, rateVcores, given } = work;
  let roomMB = room[0];
  let roomVcores = room[1];
  for (let j = 0; j < count; j++) {
    const i = given[j];
    gM[i] = rateMB[i] * k;
    gV[i] = rateVcores[i] * k;
    const f = fitScale(demandMB[i], demandVcores[i], gM[i], gV[i]);
    uM[i] = demandMB[i] * f;
    uV[i] = demandVcores[i] * f;
    roomMB = Math.max(0, roomMB - gM[i]);
    roomVcores = Math.max(0, roomVcores - gV[i]);
  }
  room[0] = roomMB;
  room[1] = roomVcores;
}

/** The soft queues in SRPT order, each what fits of its demand in the room left; listed in `given` after the hard ones. */
function softTier(r: Round, soft: readonly number[], at: number): void {
  const { guaranteeMB: gM, guaranteeVcores: gV, usedMB: uM, usedVcores: uV } = r;
  const { demandMB, demandVcores, given } = work;
  for (const i of soft) {
    const f = fitScale(demandMB[i], demandVcores[i], room[0], room[1]);
    gM[i] = uM[i] = demandMB[i] * f;
    gV[i] = uV[i] = demandVcores[i] * f;
    room[0] = Math.max(0, room[0] - gM[i]);
    room[1] = Math.max(0, room[1] - gV[i]);
    given[at++] = i;
  }
}

/** The elastic pool's DRF shares (`outMB`, `outVcores` by pool position) to its queues; listed in `given` from `at`. */
function elasticTier(r: Round, pool: number, at: number): void {
  const { guaranteeMB: gM, guaranteeVcores: gV, usedMB: uM, usedVcores: uV } = r;
  const { outMB, outVcores, slot, given } = work;
  for (let p = 0; p < pool; p++) {
    const i = slot[p];
    gM[i] = uM[i] = outMB[p];
    gV[i] = uV[i] = outVcores[p];
    given[at++] = i;
  }
}

/** What the tiers left unused, taken off the capacity in the order they gave (to `room`). */
function spare(r: Round, givenCount: number): void {
  const { usedMB: uM, usedVcores: uV } = r;
  const { given } = work;
  let spareMB = r.capacity.memoryMB;
  let spareVcores = r.capacity.vcores;
  for (let j = 0; j < givenCount; j++) {
    const i = given[j];
    spareMB = Math.max(0, spareMB - uM[i]);
    spareVcores = Math.max(0, spareVcores - uV[i]);
  }
  room[0] = spareMB;
  room[1] = spareVcores;
}

/** The admitted queues with demand their tier did not meet, as claims (`slot`, `claimMB`, `claimVcores`); returns their count. */
function unmetClaims(r: Round, n: number): number {
  const { tier, usedMB: uM, usedVcores: uV } = r;
  const { demandMB, demandVcores, slot, claimMB, claimVcores } = work;
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
  return unmet;
}

/** The largest k ≤ 1 with k·want fitting in `room` (Leontief: resources go together). */
function fitScale(wantMB: number, wantVcores: number, roomMB: number, roomVcores: number): number {
  let k = 1;
  if (wantMB > EPS) k = Math.min(k, Math.max(0, roomMB) / wantMB);
  if (wantVcores > EPS) k = Math.min(k, Math.max(0, roomVcores) / wantVcores);
  return k;
}
