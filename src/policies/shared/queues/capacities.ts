/**
 * From desired shares to one CapacityScheduler `updateQueues` mutation: guaranteed capacities of
 * the leaves under one parent that sum to exactly 100 (largest-remainder rounding on a fixed
 * decimal grid), a max-capacity for elasticity, and hysteresis so that small drifts are not sent.
 */
import type { Decision } from '../../../core/actions.js';
import { walkQueues, type ClusterSnapshot, type QueueView } from '../../../core/model.js';

export interface ShareTier {
  readonly label: string;
  /** Desired fraction of the cluster (0–1) per leaf path. */
  readonly shares: ReadonlyMap<string, number>;
}

/**
 * A minimum capacity for some leaves. CapacityScheduler caps a leaf's applications at
 * maximum-applications × its absolute capacity, so a leaf held at 0 % refuses every submission
 * (its own burst included) even when its max-capacity would let it run.
 */
export interface CapacityFloor {
  /** Percent of the parent; rounded up to the decimal grid. */
  readonly pct: number;
  readonly to: readonly string[];
}

/** What the floor moved, as fractions of the parent. */
export interface FloorEffect {
  /** Percent each floored leaf was given (on the grid). */
  readonly pct: number;
  /** Leaves raised to the floor → fraction added. */
  readonly raised: Map<string, number>;
  /** Leaves that paid for it → fraction taken. */
  readonly paid: Map<string, number>;
}

/**
 * Capacity percentages for `leaves`, served tier by tier: each tier gets its shares in full when
 * they fit in what the earlier tiers left, else proportionally less. What remains after every
 * tier goes to `remainderTo` (in proportion to `remainderWeights`, equally when all are zero),
 * or equally to every leaf when `remainderTo` is empty.
 *
 * With a `floor`, every leaf in `floor.to` ends with at least `floor.pct` (at most an equal split
 * of 100 among them). What it takes comes from the leaves above the floor in proportion to what
 * they hold above it: first from leaves outside every tier, and from the tiers' guarantees only
 * when those do not suffice; no leaf is pushed below the floor by paying for it.
 *
 * Returned values are multiples of 10^-decimals and sum to exactly 100 (as integers on that grid:
 * `units` sums to 100·10^decimals).
 */
export function planCapacities(
  leaves: readonly string[],
  tiers: readonly ShareTier[],
  remainderTo: readonly string[],
  remainderWeights: ReadonlyMap<string, number>,
  decimals: number,
  floor?: CapacityFloor,
): { pct: Map<string, number>; units: Map<string, number>; notes: string[]; floor?: FloorEffect } {
  const notes: string[] = [];
  const raw = new Map<string, number>(leaves.map((l) => [l, 0]));
  let left = 1;
  for (const t of tiers) {
    let want = 0;
    for (const [p, s] of t.shares) if (raw.has(p)) want += Math.max(0, s);
    if (want <= 0) continue;
    const k = want > left ? left / want : 1;
    if (k < 1) notes.push(`${t.label} shares sum to ${(want * 100).toFixed(1)}% > ${(left * 100).toFixed(1)}% left: scaled by ${k.toFixed(3)}`);
    for (const [p, s] of t.shares) if (raw.has(p)) raw.set(p, raw.get(p)! + Math.max(0, s) * k);
    left -= want * k;
  }
  if (left > 1e-12) {
    const targets = remainderTo.filter((p) => raw.has(p));
    const to = targets.length ? targets : [...leaves];
    let w = 0;
    for (const p of to) w += Math.max(0, remainderWeights.get(p) ?? 0);
    for (const p of to) raw.set(p, raw.get(p)! + (w > 0 ? (left * Math.max(0, remainderWeights.get(p) ?? 0)) / w : left / to.length));
  }
  const total = 100 * 10 ** decimals;
  let floorEffect: FloorEffect | undefined;
  if (floor && floor.pct > 0) {
    const floored = [...new Set(floor.to)].filter((p) => raw.has(p));
    if (floored.length) {
      // On the grid, rounded up, and never more than an equal split among the floored leaves.
      let fu = Math.ceil(floor.pct * 10 ** decimals - 1e-9);
      const cap = Math.floor(total / floored.length);
      if (fu > cap) {
        notes.push(`floor ${floor.pct}% × ${floored.length} queues exceeds 100%: ${(cap / 10 ** decimals).toFixed(decimals)}% each`);
        fu = cap;
      }
      floorEffect = applyFloor(leaves, raw, floored, fu / total, new Set(tiers.flatMap((t) => [...t.shares.keys()])));
      floorEffect = { ...floorEffect, pct: Number((fu / 10 ** decimals).toFixed(decimals)) };
    }
  }
  const units = largestRemainder(leaves, raw, total);
  const pct = new Map<string, number>();
  for (const [p, u] of units) pct.set(p, Number((u / 10 ** decimals).toFixed(decimals)));
  return { pct, units, notes, ...(floorEffect ? { floor: floorEffect } : {}) };
}

/** Raises `floored` leaves of `raw` (fractions summing to 1) to `f`, in place; see planCapacities. */
function applyFloor(leaves: readonly string[], raw: Map<string, number>, floored: readonly string[], f: number, tiered: ReadonlySet<string>): FloorEffect {
  const isFloored = new Set(floored);
  const raised = new Map<string, number>();
  const paid = new Map<string, number>();
  let need = 0;
  for (const p of floored) {
    const add = f - raw.get(p)!;
    if (add > 1e-12) {
      raised.set(p, add);
      need += add;
      raw.set(p, f);
    }
  }
  // Leaves outside every tier first, then the tiers' guarantees. A floored leaf pays only with
  // what it holds above the floor; another leaf with all it holds.
  for (const group of [leaves.filter((p) => !tiered.has(p)), leaves.filter((p) => tiered.has(p))]) {
    if (need <= 1e-12) break;
    const above = new Map<string, number>();
    let sum = 0;
    for (const p of group) {
      if (raised.has(p)) continue;
      const a = raw.get(p)! - (isFloored.has(p) ? f : 0);
      if (a > 1e-12) {
        above.set(p, a);
        sum += a;
      }
    }
    if (sum <= 1e-12) continue;
    const take = Math.min(need, sum);
    for (const [p, a] of above) {
      const t = (take * a) / sum;
      raw.set(p, raw.get(p)! - t);
      paid.set(p, (paid.get(p) ?? 0) + t);
    }
    need -= take;
  }
  return { pct: f * 100, raised, paid };
}

/** Integers proportional to `weights` summing to exactly `total` (Hamilton's method). */
export function largestRemainder(keys: readonly string[], weights: ReadonlyMap<string, number>, total: number): Map<string, number> {
  const out = new Map<string, number>();
  if (keys.length === 0) return out;
  let sum = 0;
  for (const k of keys) sum += Math.max(0, weights.get(k) ?? 0);
  const exact = keys.map((k) => ({ k, x: sum > 0 ? (Math.max(0, weights.get(k) ?? 0) / sum) * total : total / keys.length }));
  let given = 0;
  for (const e of exact) {
    const f = Math.floor(e.x + 1e-9);
    out.set(e.k, f);
    given += f;
  }
  // Ties broken by key so the result is deterministic.
  const order = exact.map((e) => ({ k: e.k, r: e.x - out.get(e.k)! })).sort((a, b) => b.r - a.r || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  for (let i = 0; given < total; i = (i + 1) % order.length) {
    out.set(order[i].k, out.get(order[i].k)! + 1);
    given++;
  }
  return out;
}

export interface CapacityTarget {
  readonly path: string;
  readonly capacityPct: number;
  /** Undefined: leave max-capacity as it is. */
  readonly maxCapacityPct?: number;
  /** Why this leaf gets this capacity. */
  readonly why: string;
}

/**
 * One `updateQueues` decision carrying every managed leaf (siblings must sum to 100 in one
 * mutation), or none when every capacity is within `hysteresisPct` of what the cluster has and
 * no queue has to be created.
 */
export function capacityDecision(
  snapshot: ClusterSnapshot,
  targets: readonly CapacityTarget[],
  opts: { policy: string; rule: string; hysteresisPct: number },
): { decision?: Decision; note: string } {
  const add: { path: string; capacityPct: number; maxCapacityPct: number }[] = [];
  const update: { path: string; capacityPct: number; maxCapacityPct?: number }[] = [];
  let drift = 0;
  let maxChanged = false;
  const byPath = new Map<string, QueueView>();
  for (const q of walkQueues(snapshot.rootQueue)) byPath.set(q.path, q);
  for (const t of targets) {
    const q = byPath.get(t.path);
    if (!q) {
      add.push({ path: t.path, capacityPct: t.capacityPct, maxCapacityPct: t.maxCapacityPct ?? 100 });
      continue;
    }
    drift = Math.max(drift, Math.abs(q.capacityPct - t.capacityPct));
    if (t.maxCapacityPct !== undefined && Math.abs(q.maxCapacityPct - t.maxCapacityPct) > 1e-9) maxChanged = true;
    update.push({ path: t.path, capacityPct: t.capacityPct, ...(t.maxCapacityPct !== undefined ? { maxCapacityPct: t.maxCapacityPct } : {}) });
  }
  if (add.length === 0 && !maxChanged && drift < opts.hysteresisPct) {
    return { note: `capacities within ${opts.hysteresisPct}% of the cluster's (largest drift ${drift.toFixed(2)}%): nothing sent` };
  }
  const reason = targets.map((t) => `${t.path}=${t.capacityPct}% (${t.why})`).join('; ');
  return {
    decision: { action: { kind: 'updateQueues', add, update }, policy: opts.policy, rule: opts.rule, reason },
    note: `capacities changed by up to ${drift.toFixed(2)}%${add.length ? `, ${add.length} queue(s) added` : ''}`,
  };
}
