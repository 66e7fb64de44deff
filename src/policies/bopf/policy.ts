/**
 * BoPF — Bounded Priority Fairness (Le et al.) — as a queue-capacity policy for CapacityScheduler.
 *
 * Each cycle: admit newly registered queues (hard / soft / elastic / rejected), follow every LQ's
 * bursts (a burst opens when an idle LQ gets work, at most once per period, and closes at its
 * deadline or when the LQ runs dry), allocate (hard d/t, soft SRPT, elastic DRF, spare shared),
 * and state the result as one `updateQueues` mutation of the leaves under `parentQueue`.
 *
 * The admitted set comes from `params.book` when the admin API manages admissions (its decisions
 * are authoritative), else from `params.queues`, admitted here in order and kept in the state.
 */
import { z } from 'zod';
import type { Decision } from '../../core/actions.js';
import { definePolicy, type Policy } from '../../core/policy.js';
import { dominantShare, ZERO as Z, type Resources } from '../../core/resources.js';
import { findQueue, type ClusterSnapshot, type QueueView } from '../../core/model.js';
import { AdmissionControl, burstRate, type AdmissionBook, type AdmittedQueue } from './admission.js';
import { allocate, type AllocQueue } from '../shared/queues/allocate.js';
import { capacityDecision, planCapacities, type CapacityTarget } from '../shared/queues/capacities.js';
import { childPath, leafLoads, managedLeaves } from '../shared/queues/leaves.js';
import { queueSpecSchema, type Variant } from './spec.js';

const resourcesSchema = z.object({ memoryMB: z.number().nonnegative(), vcores: z.number().nonnegative() });

export const bookSchema: z.ZodType<AdmissionBook, z.ZodTypeDef, unknown> = z.object({
  capacity: resourcesSchema,
  variant: z.enum(['bopf', 'nbopf']),
  queues: z.array(
    z.object({
      spec: queueSpecSchema,
      cls: z.enum(['hard', 'soft', 'elastic']),
      demand: z.object({ vcoreSeconds: z.number().nonnegative(), memoryMBSeconds: z.number().nonnegative() }),
      reason: z.string(),
    }),
  ),
});

export const bopfParamsSchema = z.object({
  /** Parent of the managed leaves; their capacities are set together. */
  parentQueue: z.string().min(1).default('root'),
  /** Registered queues in registration order (admitted by the policy when `book` is absent). */
  queues: z.array(queueSpecSchema).default([]),
  /** Admissions decided elsewhere (the admin API); when present the policy admits nothing itself. */
  book: bookSchema.optional(),
  /** Capacity changes smaller than this (percentage points) are not sent. */
  hysteresisPct: z.number().min(0).max(100).default(2),
  /** Capacities are multiples of 10^-decimals percent. */
  capacityDecimals: z.number().int().min(0).max(3).default(1),
  /**
   * Least capacity (percent of the parent) every admitted leaf keeps, idle or not. CapacityScheduler
   * caps a leaf's applications at maximum-applications × its absolute capacity: a leaf at 0 %
   * refuses every submission, so an idle LQ held at 0 % could never start its next burst. The
   * floor is taken from the other leaves' shares (elastic ones first); 0 turns it off.
   */
  minCapacityPct: z.number().min(0).max(100).default(1),
  /**
   * How guarantees reach CapacityScheduler. `absolute`: every managed leaf's capacity is a resource
   * vector (`capacity=[memory=…,vcores=…]`, Hadoop ≥ 3.1), hard and soft guarantees exactly d/t
   * and the floors only out of what no guarantee holds. `percentage`: one scalar per leaf (the
   * guarantee's dominant share), floors taken from the other leaves' shares. Absolute mode needs
   * every child of `parentQueue` managed here and the parent at root or itself absolute
   * (CapacityScheduler refuses mixed siblings and absolute children of a percentage parent);
   * otherwise the cycle falls back to percentages and says why.
   */
  capacityMode: z.enum(['absolute', 'percentage']).default('absolute'),
  /** Max-capacity of admitted leaves (elasticity: > capacity lets a queue use idle resources). */
  maxCapacityPct: z.number().min(0).max(100).default(100),
  /**
   * Max-capacity for leaves under the parent that are not admitted (unregistered or rejected).
   * Unset: left as it is (they get no guarantee but may still use idle resources); 0 shuts them.
   */
  unadmittedMaxCapacityPct: z.number().min(0).max(100).optional(),
  /** A new burst may open this fraction of a period early (arrival detection jitter). */
  burstGraceFraction: z.number().min(0).max(0.5).default(0.05),
  /**
   * When the deadline passes before an LQ with a guarantee has received its burst demand d (the
   * committed resources were still held by others: nothing is preempted), keep its guarantee
   * until it has received d or its period ends. Never more than d per period, so the long-term
   * bound of the admission conditions still holds. `false`: the guarantee ends at the deadline.
   */
  carryShortfall: z.boolean().default(true),
  /** Longest stretch the resource condition steps through when arrival phases are known. */
  maxHorizonMs: z.number().positive().default(86_400_000),
});
export type BopfParams = z.infer<typeof bopfParamsSchema>;

export interface BurstTrack {
  /** Start of the last burst (open or not). */
  start?: number;
  open: boolean;
  /** The open burst is past its deadline, kept open to make up a shortfall. */
  carried?: boolean;
  /** Received during the open burst: vcore·s, MB·s. */
  received: Resources;
  /** Held at the previous cycle (integrated over the next interval). */
  lastUsed: Resources;
}

export interface BopfState {
  book?: AdmissionBook;
  /** Registered queues that were rejected: name → [spec key, reason]. */
  rejected: Record<string, [string, string]>;
  tracks: Record<string, BurstTrack>;
  lastMs?: number;
}

function fmtShare(received: Resources, d: { vcoreSeconds: number; memoryMBSeconds: number }): string {
  const f = Math.min(
    d.vcoreSeconds > 0 ? received.vcores / d.vcoreSeconds : Infinity,
    d.memoryMBSeconds > 0 ? received.memoryMB / d.memoryMBSeconds : Infinity,
  );
  return Number.isFinite(f) ? `${(f * 100).toFixed(0)}%` : 'all';
}

export function makeBopfPolicy(name: string, variant: Variant, description: string): Policy<BopfParams, BopfState> {
  return definePolicy<BopfParams, BopfState>({
    needs: ['queueWrites'],
    // The queue tree, the total capacity and the apps' demand per queue (leafLoads).
    reads: ['apps'],
    name,
    description,
    paramsSchema: bopfParamsSchema,
    initialState: () => ({ rejected: {}, tracks: {} }),
    decide({ snapshot, params, state }) {
      const now = snapshot.nowMs;
      const capacity = snapshot.totalCapacity;
      const notes: string[] = [];
      const decisions: Decision[] = [];

      // --- admission -------------------------------------------------------------------------
      let book: AdmissionBook;
      let rejected = state.rejected;
      if (params.book) {
        book = params.book;
      } else {
        const control = state.book
          ? AdmissionControl.fromBook(state.book, { maxHorizonMs: params.maxHorizonMs })
          : new AdmissionControl(capacity, { variant, maxHorizonMs: params.maxHorizonMs });
        const wanted = new Map(params.queues.map((s) => [s.name, s]));
        let changed = false;
        for (const q of [...control.queues()]) {
          const s = wanted.get(q.spec.name);
          if (!s || JSON.stringify(s) !== JSON.stringify(q.spec)) {
            control.remove(q.spec.name);
            changed = true;
            notes.push(`admission: ${q.spec.name} ${s ? 'changed, re-admitted' : 'unregistered, removed'}`);
          }
        }
        const nextRejected: Record<string, [string, string]> = {};
        for (const s of params.queues) {
          if (control.get(s.name)) continue;
          const key = JSON.stringify(s);
          const prev = rejected[s.name];
          if (prev && prev[0] === key && !changed) {
            nextRejected[s.name] = prev;
            continue;
          }
          const d = control.admit(s);
          notes.push(`admission: ${s.name} → ${d.reason}`);
          if (d.cls === 'rejected') nextRejected[s.name] = [key, d.reason];
          else changed = true;
        }
        rejected = nextRejected;
        book = control.toBook();
      }

      // --- bursts ------------------------------------------------------------------------------
      const admitted = new Map<string, AdmittedQueue>(book.queues.map((q) => [childPath(params.parentQueue, q.spec.name), q]));
      const leaves = [...new Set([...managedLeaves(snapshot, params.parentQueue).map((q) => q.path), ...admitted.keys()])];
      const loads = leafLoads(snapshot, leaves);
      const dtS = state.lastMs !== undefined ? Math.max(0, now - state.lastMs) / 1000 : 0;
      const tracks: Record<string, BurstTrack> = {};
      let wakeAtMs: number | undefined;
      const allocQueues: AllocQueue[] = [];
      for (const path of leaves) {
        const load = loads.get(path)!;
        const q = admitted.get(path);
        if (!q) {
          allocQueues.push({ id: path, kind: 'TQ', cls: 'none', demand: load.demand });
          continue;
        }
        let burst: AllocQueue['burst'];
        if (q.spec.kind === 'LQ' && (q.cls === 'hard' || q.cls === 'soft')) {
          const prev = state.tracks[q.spec.name];
          const t: BurstTrack = prev ? { ...prev, received: { ...prev.received } } : { open: false, received: { ...Z }, lastUsed: { ...Z } };
          const busy = load.demand.vcores > 0 || load.demand.memoryMB > 0;
          const len = q.spec.burstDeadlineMs!;
          const period = q.spec.periodMs!;
          if (t.open) {
            t.received = { vcores: t.received.vcores + t.lastUsed.vcores * dtS, memoryMB: t.received.memoryMB + t.lastUsed.memoryMB * dtS };
            const got = t.received.vcores >= q.demand.vcoreSeconds && t.received.memoryMB >= q.demand.memoryMBSeconds;
            const late = now >= t.start! + len;
            const carry = params.carryShortfall && !got && now < t.start! + period;
            if (!busy || (late && !carry)) t.open = false;
            else if (late && !t.carried) {
              t.carried = true;
              notes.push(
                `burst: ${q.spec.name} past its deadline with ${fmtShare(t.received, q.demand)} of d received: guarantee kept until d or the period ends`,
              );
            }
          }
          if (!t.open && busy && (t.start === undefined || now >= t.start + period * (1 - params.burstGraceFraction))) {
            t.open = true;
            t.carried = false;
            t.start = now;
            t.received = { ...Z };
            notes.push(`burst: ${q.spec.name} opens at ${now} ms, deadline ${now + len} ms`);
          }
          t.lastUsed = load.used;
          tracks[q.spec.name] = t;
          if (t.open) {
            const remaining = {
              vcores: Math.max(0, q.demand.vcoreSeconds - t.received.vcores),
              memoryMB: Math.max(0, q.demand.memoryMBSeconds - t.received.memoryMB),
            };
            burst = { rate: burstRate(q), remaining };
            const end = now < t.start! + len ? t.start! + len : t.start! + period;
            wakeAtMs = wakeAtMs === undefined ? end : Math.min(wakeAtMs, end);
          }
        }
        allocQueues.push({ id: path, kind: q.spec.kind, cls: q.cls, demand: load.demand, ...(burst ? { burst } : {}) });
      }

      // --- allocation → capacities ---------------------------------------------------------------
      const alloc = allocate('bopf', capacity, allocQueues);
      const hard = new Map<string, number>();
      const soft = new Map<string, number>();
      const weights = new Map<string, number>();
      const elastic: string[] = [];
      for (const q of allocQueues) {
        const a = alloc.get(q.id)!;
        if (a.tier === 'hard') hard.set(q.id, dominantShare(a.guarantee, capacity));
        else if (a.tier === 'soft') soft.set(q.id, dominantShare(a.guarantee, capacity));
        else if (a.tier === 'elastic') {
          elastic.push(q.id);
          weights.set(q.id, dominantShare(a.alloc, capacity));
        }
      }
      const parentView = findQueue(snapshot.rootQueue, params.parentQueue);
      const absoluteProblem = params.capacityMode === 'absolute' ? absoluteModeProblem(snapshot, parentView, leaves) : undefined;
      if (absoluteProblem) notes.push(`capacityMode: percentages this cycle, ${absoluteProblem}`);
      if (params.capacityMode === 'absolute' && !absoluteProblem) {
        const parentResources = parentView!.capacityResource ?? capacity;
        const planned = absoluteGuarantees(leaves, alloc, admitted, elastic, parentResources, params.minCapacityPct);
        notes.push(...planned.notes);
        const targets: AbsoluteTarget[] = leaves.map((path) => {
          const r = planned.resources.get(path)!;
          const capacityPct = Math.round(dominantShare(r, parentResources) * 1e6) / 1e4;
          return {
            path,
            capacityResource: r,
            capacityPct,
            ...(admitted.has(path)
              ? { maxCapacityPct: Math.max(params.maxCapacityPct, capacityPct) }
              : params.unadmittedMaxCapacityPct !== undefined
                ? { maxCapacityPct: params.unadmittedMaxCapacityPct }
                : {}),
            why: alloc.get(path)!.why + (planned.floorWhy.get(path) ?? ''),
          };
        });
        const children = new Map(parentView!.children.map((c) => [c.path, c]));
        const { decision, note } = absoluteCapacityDecision(children, targets, parentResources, { policy: name, hysteresisPct: params.hysteresisPct });
        notes.push(note);
        if (decision) decisions.push(decision);
      } else {
        const plan = planCapacities(
          leaves,
          [
            { label: 'hard', shares: hard },
            { label: 'soft', shares: soft },
          ],
          elastic.length ? elastic : [...admitted.keys()],
          weights,
          params.capacityDecimals,
          { pct: params.minCapacityPct, to: [...admitted.keys()] },
        );
        notes.push(...plan.notes);
        const floorWhy = (path: string): string => {
          const f = plan.floor;
          const up = f?.raised.get(path);
          if (up !== undefined)
            return `; raised by ${(up * 100).toFixed(1)}% to the ${f!.pct}% floor (minCapacityPct: at 0 % CapacityScheduler admits no application to the queue)`;
          const down = f?.paid.get(path);
          if (down !== undefined && down * 100 >= 0.05) return `; ${(down * 100).toFixed(1)}% less for other queues' ${f!.pct}% floor`;
          return '';
        };
        if (plan.floor?.raised.size) notes.push(`floor: ${[...plan.floor.raised.keys()].join(', ')} raised to ${plan.floor.pct}% (minCapacityPct)`);
        const targets: CapacityTarget[] = leaves.map((path) => ({
          path,
          capacityPct: plan.pct.get(path)!,
          // Max-capacity never below capacity (CapacityScheduler would refuse the whole mutation).
          ...(admitted.has(path)
            ? { maxCapacityPct: Math.max(params.maxCapacityPct, plan.pct.get(path)!) }
            : params.unadmittedMaxCapacityPct !== undefined
              ? { maxCapacityPct: params.unadmittedMaxCapacityPct }
              : {}),
          why: alloc.get(path)!.why + floorWhy(path),
        }));
        // Leaves still in absolute mode switch back together, whatever the drift (no mixed siblings).
        const switchBack = parentView?.children.some((c) => c.capacityResource !== undefined) ?? false;
        const { decision, note } = capacityDecision(snapshot, targets, {
          policy: name,
          rule: 'allocate',
          hysteresisPct: switchBack ? -1 : params.hysteresisPct,
        });
        notes.push(switchBack ? `capacityMode: leaves back from absolute resources to percentages in one write; ${note}` : note);
        if (decision) decisions.push(decision);
      }

      return {
        decisions,
        state: { ...(params.book ? {} : { book }), rejected, tracks, lastMs: now },
        ...(wakeAtMs !== undefined ? { wakeAtMs } : {}),
        notes,
      };
    },
  });
}

export const bopfPolicy = makeBopfPolicy(
  'bopf',
  'bopf',
  'Bounded Priority Fairness: LQ bursts get hard (d/t) or soft (SRPT) guarantees within their long-term fair share; TQs and the rest share by DRF.',
);

/** Why the leaves under the parent cannot be given absolute-resource capacities this cycle (undefined: they can). */
export function absoluteModeProblem(snapshot: ClusterSnapshot, parent: QueueView | undefined, leaves: readonly string[]): string | undefined {
  if (!parent) return 'the parent queue is not on the cluster';
  if (parent.path !== snapshot.rootQueue.path && !parent.capacityResource)
    return `${parent.path} is in percentage mode (CapacityScheduler takes absolute children only under root or an absolute parent)`;
  const managed = new Set(leaves);
  const other = parent.children.find((c) => c.children.length > 0 || !managed.has(c.path));
  if (other) return `${other.path} under ${parent.path} is not a leaf managed here (siblings switch mode together)`;
  const present = new Set(parent.children.map((c) => c.path));
  const missing = leaves.find((path) => !present.has(path));
  if (missing) return `${missing} is added first (a new queue starts in percentage mode)`;
  return undefined;
}

interface AbsoluteTarget {
  readonly path: string;
  readonly capacityResource: Resources;
  /** The vector's dominant share of the parent, as CapacityScheduler reports it. */
  readonly capacityPct: number;
  readonly maxCapacityPct?: number;
  readonly why: string;
}

/**
 * Hard and soft guarantees as resource vectors, exactly d/t (rounded up to whole MB and vcores;
 * scaled down together only if they add up past the parent). Every other admitted leaf gets the
 * floor (`floorPct` of the parent in each resource) out of what the guarantees leave, shrunk to
 * fit it; an elastic leaf's guarantee is then its DRF allocation as a vector (scaled down to what
 * is left), not a share of every resource: a memory-bound queue given idle vcores would count as
 * less served than it is (the DominantResourceCalculator compares used and guaranteed dominant
 * shares) and go ahead of an LQ. What no one is given stays unassigned (absolute children need
 * not add up to the parent). CapacityScheduler reads a vector with 0 MB as no guarantee at all and
 * admits maximum-applications × a queue's share, so a floor keeps at least 1/10,000 of the memory
 * (one application), even when the guarantees leave less: then the RM trims every child by that.
 */
export function absoluteGuarantees(
  leaves: readonly string[],
  alloc: { get(path: string): { tier: string; guarantee: Resources; alloc: Resources } | undefined },
  admitted: ReadonlyMap<string, unknown>,
  elastic: readonly string[],
  parent: Resources,
  floorPct: number,
): { resources: Map<string, Resources>; floorWhy: Map<string, string>; notes: string[] } {
  const notes: string[] = [];
  const resources = new Map<string, Resources>(leaves.map((p) => [p, { memoryMB: 0, vcores: 0 }]));
  const floorWhy = new Map<string, string>();
  const guaranteed = leaves.filter((p) => {
    const t = alloc.get(p)!.tier;
    return t === 'hard' || t === 'soft';
  });
  const isGuaranteed = new Set(guaranteed);
  const wanted = guaranteed.map((p) => {
    const g = alloc.get(p)!.guarantee;
    return { p, memoryMB: Math.ceil(g.memoryMB - 1e-9), vcores: Math.ceil(g.vcores - 1e-9) };
  });
  const sum = wanted.reduce((a, w) => ({ memoryMB: a.memoryMB + w.memoryMB, vcores: a.vcores + w.vcores }), { memoryMB: 0, vcores: 0 });
  const scale = Math.min(1, sum.memoryMB > 0 ? parent.memoryMB / sum.memoryMB : 1, sum.vcores > 0 ? parent.vcores / sum.vcores : 1);
  if (scale < 1) notes.push(`absolute: hard and soft guarantees add up past ${fmtResources(parent)}: scaled by ${scale.toFixed(3)}`);
  const left = { memoryMB: parent.memoryMB, vcores: parent.vcores };
  for (const w of wanted) {
    const r = scale < 1 ? { memoryMB: Math.floor(w.memoryMB * scale), vcores: Math.floor(w.vcores * scale) } : { memoryMB: w.memoryMB, vcores: w.vcores };
    resources.set(w.p, r);
    left.memoryMB -= r.memoryMB;
    left.vcores -= r.vcores;
  }
  const floored = leaves.filter((p) => admitted.has(p) && !isGuaranteed.has(p));
  if (floorPct > 0 && floored.length) {
    const n = floored.length;
    // The least memory that still admits one application: CapacityScheduler allows a queue
    // maximum-system-applications (10,000 by default) × its share; 0 MB reads as no guarantee.
    const leastMB = Math.max(1, Math.ceil(parent.memoryMB / MAX_SYSTEM_APPLICATIONS));
    const f = {
      memoryMB: Math.max(leastMB, Math.min(Math.floor((parent.memoryMB * floorPct) / 100), Math.floor(left.memoryMB / n))),
      vcores: Math.min(Math.floor((parent.vcores * floorPct) / 100), Math.floor(left.vcores / n)),
    };
    if (f.memoryMB * n > left.memoryMB)
      notes.push(
        `floor: the guarantees leave ${left.memoryMB} MB for ${n} floors; each gets ${f.memoryMB} MB (one application's worth) and CapacityScheduler trims every child's memory by the excess`,
      );
    for (const p of floored) {
      resources.set(p, { ...f });
      floorWhy.set(
        p,
        `; floor <${f.memoryMB} MB, ${f.vcores} vcores> (minCapacityPct, out of what the guarantees leave: at 0 MB CapacityScheduler admits no application)`,
      );
    }
    left.memoryMB = Math.max(0, left.memoryMB - f.memoryMB * n);
    left.vcores = Math.max(0, left.vcores - f.vcores * n);
  }
  const sharers = elastic.filter((p) => resources.has(p) && !isGuaranteed.has(p));
  const extra = sharers.map((p) => {
    const a = alloc.get(p)!.alloc;
    const r = resources.get(p)!;
    return { p, memoryMB: Math.max(0, a.memoryMB - r.memoryMB), vcores: Math.max(0, a.vcores - r.vcores) };
  });
  const want = extra.reduce((a, e) => ({ memoryMB: a.memoryMB + e.memoryMB, vcores: a.vcores + e.vcores }), { memoryMB: 0, vcores: 0 });
  const fm = want.memoryMB > left.memoryMB ? left.memoryMB / want.memoryMB : 1;
  const fv = want.vcores > left.vcores ? left.vcores / want.vcores : 1;
  for (const e of extra) {
    const r = resources.get(e.p)!;
    resources.set(e.p, { memoryMB: r.memoryMB + Math.floor(e.memoryMB * fm), vcores: r.vcores + Math.floor(e.vcores * fv) });
  }
  return { resources, floorWhy, notes };
}

/** CapacityScheduler's `yarn.scheduler.capacity.maximum-applications` default. */
const MAX_SYSTEM_APPLICATIONS = 10_000;

function fmtResources(r: Resources): string {
  return `<${r.memoryMB} MB, ${r.vcores} vcores>`;
}

/**
 * One `updateQueues` carrying every managed leaf as a resource vector, or none when each is within
 * `hysteresisPct` of the parent in every resource and already in absolute mode. A leaf still in
 * percentage mode makes the whole group switch in this one write (CapacityScheduler refuses mixed siblings).
 */
export function absoluteCapacityDecision(
  children: ReadonlyMap<string, QueueView>,
  targets: readonly AbsoluteTarget[],
  parent: Resources,
  opts: { policy: string; hysteresisPct: number },
): { decision?: Decision; note: string } {
  let drift = 0;
  let modeSwitch = false;
  let maxChanged = false;
  for (const t of targets) {
    const q = children.get(t.path);
    if (!q?.capacityResource) {
      modeSwitch = true;
      continue;
    }
    const dm = parent.memoryMB > 0 ? Math.abs(q.capacityResource.memoryMB - t.capacityResource.memoryMB) / parent.memoryMB : 0;
    const dv = parent.vcores > 0 ? Math.abs(q.capacityResource.vcores - t.capacityResource.vcores) / parent.vcores : 0;
    drift = Math.max(drift, dm * 100, dv * 100);
    if (t.maxCapacityPct !== undefined && Math.abs(q.maxCapacityPct - t.maxCapacityPct) > 1e-9) maxChanged = true;
  }
  if (!modeSwitch && !maxChanged && drift < opts.hysteresisPct)
    return { note: `absolute capacities within ${opts.hysteresisPct}% of the cluster's (largest drift ${drift.toFixed(2)}%): nothing sent` };
  const update = targets.map((t) => ({
    path: t.path,
    capacityPct: t.capacityPct,
    capacityResource: t.capacityResource,
    ...(t.maxCapacityPct !== undefined ? { maxCapacityPct: t.maxCapacityPct } : {}),
  }));
  const reason = targets.map((t) => `${t.path}=${fmtResources(t.capacityResource)} (${t.why})`).join('; ');
  return {
    decision: { action: { kind: 'updateQueues', add: [], update }, policy: opts.policy, rule: 'allocate', reason },
    note: modeSwitch
      ? 'capacityMode: every managed leaf switches to absolute resources in one write'
      : `absolute capacities changed by up to ${drift.toFixed(2)}% of the parent`,
  };
}
