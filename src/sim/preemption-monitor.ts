/**
 * An opt-in model of YARN's preemption monitor for the simulator's capacity allocator:
 * CapacityScheduler's `ProportionalCapacityPreemptionPolicy` (cross-queue, default partition).
 *
 * Every `monitoringIntervalMs` the monitor:
 * 1. computes each leaf's ideal assignment: its guarantee, capped at what it uses plus what it
 *    asks for, and what is left water-filled over the leaves that want more in proportion to
 *    their guarantees, capped by their max-capacity;
 * 2. marks a leaf for preemption when it holds more than ideal × (1 + maxIgnoredOverCapacity),
 *    by (used − ideal) × naturalTerminationFactor (the rest is left to containers that end
 *    anyway), all leaves together at most totalPreemptionPerRound of the cluster;
 * 3. selects containers in those leaves, youngest application first and its latest containers
 *    first, ApplicationMasters last (never, here);
 * 4. kills a container selected in every round for maxWaitBeforeKillMs (the AM was asked to give
 *    it back and did not); a container no longer selected is forgotten.
 * Leaves in `disabledQueues` (CapacityScheduler's per-queue `disable_preemption`) lose nothing.
 *
 * Amounts are compared as dominant shares of the cluster (the DominantResourceCalculator's
 * order). The 3.4.1 defaults (`CapacitySchedulerConfiguration`) are in PREEMPTION_DEFAULTS.
 * The allocator runs a round at its first call at least one interval after the last one, and asks
 * the simulator to call it then (`AllocatorContext.wakeAt`) while some leaf waits for resources.
 */
import { dominantShare, type Resources } from '../core/resources.js';
import type { SimApp, SimContainer } from './model.js';
import type { SimQueue } from './queues.js';

export interface PreemptionOptions {
  /** `yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval` (ms). */
  readonly monitoringIntervalMs: number;
  /** `…preemption.max_wait_before_kill` (ms). */
  readonly maxWaitBeforeKillMs: number;
  /** `…preemption.total_preemption_per_round`: share of the cluster preempted in one round at most. */
  readonly totalPreemptionPerRound: number;
  /** `…preemption.natural_termination_factor`: share of a leaf's excess taken in one round. */
  readonly naturalTerminationFactor: number;
  /** `…preemption.max_ignored_over_capacity`: excess over the ideal assignment left alone. */
  readonly maxIgnoredOverCapacity: number;
  /** Leaf paths with `disable_preemption=true`. */
  readonly disabledQueues: readonly string[];
}

/** Hadoop 3.4.1's defaults (CapacitySchedulerConfiguration.DEFAULT_PREEMPTION_*). */
export const PREEMPTION_DEFAULTS: PreemptionOptions = Object.freeze({
  monitoringIntervalMs: 3000,
  maxWaitBeforeKillMs: 15_000,
  totalPreemptionPerRound: 0.1,
  naturalTerminationFactor: 0.2,
  maxIgnoredOverCapacity: 0.1,
  disabledQueues: [],
});

export interface PreemptionStats {
  rounds: number;
  /** Containers killed by the monitor. */
  killed: number;
  /** Work those containers had done, lost (container·s). */
  lostContainerSeconds: number;
  /** Containers selected at least once (the AM was warned). */
  warned: number;
}

export interface LeafDemand {
  readonly q: SimQueue;
  /** Guaranteed share of the cluster, 0–1. */
  readonly guaranteed: number;
  /** Max-capacity as a share of the cluster, 0–1. */
  readonly max: number;
  /** Held now, share of the cluster. */
  readonly used: number;
  /** Asked for beyond what it holds, share of the cluster. */
  readonly pending: number;
}

/**
 * The ideal assignment of `ProportionalCapacityPreemptionPolicy` (computeIdealResourceDistribution):
 * every leaf up to min(guarantee, used + pending), then what is left shared in proportion to
 * the guarantees of the leaves that still want more, capped by want and max-capacity, until
 * nothing is left or nobody wants more. Shares of the cluster.
 */
export function idealAssignment(leaves: readonly LeafDemand[]): Map<SimQueue, number> {
  const ideal = new Map<SimQueue, number>();
  let left = 1;
  for (const l of leaves) {
    const a = Math.min(l.guaranteed, l.used + l.pending, l.max);
    ideal.set(l.q, a);
    left -= a;
  }
  let wanting = leaves.filter((l) => ideal.get(l.q)! + 1e-12 < Math.min(l.used + l.pending, l.max));
  while (left > 1e-12 && wanting.length) {
    const weight = wanting.reduce((s, l) => s + l.guaranteed, 0);
    let given = 0;
    for (const l of wanting) {
      const share = weight > 0 ? (left * l.guaranteed) / weight : left / wanting.length;
      const room = Math.min(l.used + l.pending, l.max) - ideal.get(l.q)!;
      const g = Math.min(share, room);
      ideal.set(l.q, ideal.get(l.q)! + g);
      given += g;
    }
    left -= given;
    const next = wanting.filter((l) => ideal.get(l.q)! + 1e-12 < Math.min(l.used + l.pending, l.max));
    // Leaves without a guarantee get nothing of what is left while a guaranteed one wants it.
    if (given <= 1e-12 || (next.length === wanting.length && weight === 0)) break;
    wanting = next;
  }
  return ideal;
}

/** How much each leaf must give up this round (shares of the cluster). */
export function toPreempt(leaves: readonly LeafDemand[], opts: PreemptionOptions): Map<SimQueue, number> {
  const ideal = idealAssignment(leaves);
  const out = new Map<SimQueue, number>();
  let total = 0;
  for (const l of leaves) {
    if (opts.disabledQueues.includes(l.q.path)) continue;
    const i = ideal.get(l.q)!;
    if (l.used <= i * (1 + opts.maxIgnoredOverCapacity) + 1e-12) continue;
    const take = (l.used - i) * opts.naturalTerminationFactor;
    if (take > 1e-12) {
      out.set(l.q, take);
      total += take;
    }
  }
  if (total > opts.totalPreemptionPerRound) for (const [q, v] of out) out.set(q, (v * opts.totalPreemptionPerRound) / total);
  return out;
}

function pendingDemand(app: SimApp): Resources {
  let m = 0;
  let v = 0;
  for (let i = app.pendHead; i < app.pend.length; i++) {
    const seg = app.pend[i];
    const r = app.spec.stages[seg.stage].resource;
    const n = seg.end - seg.next;
    m += n * r.memoryMB;
    v += n * r.vcores;
  }
  return { memoryMB: m, vcores: v };
}

export interface PreemptionMonitor {
  readonly stats: PreemptionStats;
  /** When the next round is due (ms). */
  readonly nextRunMs: number;
  /** Runs a round if one is due at `nowMs`. */
  maybeRun(nowMs: number): void;
}

export function createPreemptionMonitor(
  opts: PreemptionOptions,
  env: {
    clusterCapacity(): Resources;
    leaves(): Iterable<SimQueue>;
    apps(): Iterable<SimApp>;
    containers(): Iterable<SimContainer>;
    kill(c: SimContainer): void;
  },
): PreemptionMonitor {
  const stats: PreemptionStats = { rounds: 0, killed: 0, lostContainerSeconds: 0, warned: 0 };
  /** Selected containers and when they were first selected (ms). */
  let marked = new Map<SimContainer, number>();
  let nextRunMs = 0;

  const round = (nowMs: number): void => {
    stats.rounds++;
    const total = env.clusterCapacity();
    const pending = new Map<SimQueue, Resources>();
    for (const app of env.apps()) {
      if (!app.isActive || app.pendingContainers === 0) continue;
      const p = pendingDemand(app);
      const acc = pending.get(app.queueRef);
      pending.set(app.queueRef, acc ? { memoryMB: acc.memoryMB + p.memoryMB, vcores: acc.vcores + p.vcores } : p);
    }
    const leaves: LeafDemand[] = [];
    for (const q of env.leaves()) {
      leaves.push({
        q,
        guaranteed: q.absoluteCapacity(total),
        max: q.absoluteMaxCapacity(),
        used: dominantShare(q.used, total),
        pending: dominantShare(pending.get(q) ?? { memoryMB: 0, vcores: 0 }, total),
      });
    }
    const take = toPreempt(leaves, opts);
    const next = new Map<SimContainer, number>();
    if (take.size) {
      // Candidates per leaf: youngest application first, its latest containers first.
      const byLeaf = new Map<SimQueue, SimContainer[]>();
      for (const c of env.containers()) {
        if (c.removed || c.isAppMaster || !take.has(c.app.queueRef)) continue;
        const list = byLeaf.get(c.app.queueRef);
        if (list) list.push(c);
        else byLeaf.set(c.app.queueRef, [c]);
      }
      for (const [q, share] of take) {
        const list = (byLeaf.get(q) ?? []).sort((a, b) => b.app.seq - a.app.seq || b.seqInApp - a.seqInApp);
        let got = 0;
        for (const c of list) {
          if (got >= share - 1e-12) break;
          got += dominantShare(c.resource, total);
          next.set(c, marked.get(c) ?? nowMs);
          if (!marked.has(c)) stats.warned++;
        }
      }
    }
    marked = next;
    for (const [c, since] of [...marked]) {
      if (nowMs - since < opts.maxWaitBeforeKillMs) continue;
      marked.delete(c);
      if (c.removed) continue;
      env.kill(c);
      stats.killed++;
      stats.lostContainerSeconds += c.attained / 1000;
    }
  };

  return {
    stats,
    get nextRunMs() {
      return nextRunMs;
    },
    maybeRun(nowMs) {
      if (nowMs < nextRunMs) return;
      nextRunMs = nowMs + opts.monitoringIntervalMs;
      round(nowMs);
    },
  };
}
