/**
 * A CapacityScheduler-like allocator for the simulator: queue capacities set by `updateQueues`
 * are honoured the way YARN's CapacityScheduler (DominantResourceCalculator, no preemption)
 * honours them.
 *
 * - Every leaf has a guaranteed share (absolute capacity) and a ceiling (absolute max-capacity).
 *   A guarantee given in absolute resources counts as its dominant share of the cluster, as the
 *   DominantResourceCalculator derives it (used ÷ guaranteed compares dominant shares).
 * - When resources free up, the leaf that is least served relative to its guarantee goes first
 *   (used dominant share ÷ guaranteed share, as CapacityScheduler's utilisation ordering does);
 *   leaves with no guarantee come after every leaf with one, least used first.
 * - A leaf may grow past its guarantee up to its max-capacity when nobody else wants the
 *   resources (work conserving, "elastic"); it never goes past max-capacity.
 * - Inside a leaf, applications are served FIFO (priority, then submission).
 * - Nothing is preempted: a guarantee is reached as running containers finish. Unless the
 *   preemption monitor is on (`capacityAllocatorWith({ preemption })`, a model of
 *   CapacityScheduler's ProportionalCapacityPreemptionPolicy in `preemption-monitor.ts`).
 *
 * Plugs in through `SimOptions.allocator` (see `allocator.ts` for the contract).
 */
import type { Resources } from '../core/resources.js';
import { fifoAppLess, type Allocator, type AllocatorContext } from './allocator.js';
import { IndexedHeap } from '../core/heap.js';
import type { SimQueue } from './queues.js';
import type { SimApp } from './model.js';
import { createPreemptionMonitor, PREEMPTION_DEFAULTS, type PreemptionOptions, type PreemptionStats } from './preemption-monitor.js';

interface Leaf {
  readonly q: SimQueue;
  readonly apps: IndexedHeap<SimApp>;
  absCap: number;
  absMax: number;
}

/** Bookkeeping this allocator keeps on `app.allocData`. */
interface AppSlot {
  leaf: Leaf;
  heapIndex: number;
}

const FIT_EPS = 1e-6;

/** The capacity allocator, with the preemption monitor on when `preemption` is given (3.4.1 defaults for what it leaves out). */
export function capacityAllocatorWith(opts: {
  preemption?: Partial<PreemptionOptions>;
}): (ctx: AllocatorContext) => Allocator & { preemption?: PreemptionStats } {
  return (ctx) => buildCapacityAllocator(ctx, opts.preemption ? { ...PREEMPTION_DEFAULTS, ...opts.preemption } : undefined);
}

export function createCapacityAllocator(ctx: AllocatorContext): Allocator {
  return buildCapacityAllocator(ctx, undefined);
}

function buildCapacityAllocator(ctx: AllocatorContext, preemption: PreemptionOptions | undefined): Allocator & { preemption?: PreemptionStats } {
  const leaves = new Map<SimQueue, Leaf>();
  const busy = new Set<Leaf>();
  let sizedFor: Resources = ctx.clusterCapacity();
  const refresh = (total: Resources): void => {
    sizedFor = { ...total };
    for (const l of leaves.values()) {
      l.absCap = l.q.absoluteCapacity(total);
      l.absMax = l.q.absoluteMaxCapacity();
    }
  };
  const leafOf = (q: SimQueue): Leaf => {
    let l = leaves.get(q);
    if (!l) {
      l = {
        q,
        apps: new IndexedHeap<SimApp>(
          fifoAppLess,
          (a) => (a.allocData as AppSlot).heapIndex,
          (a, i) => {
            (a.allocData as AppSlot).heapIndex = i;
          },
        ),
        absCap: q.absoluteCapacity(ctx.clusterCapacity()),
        absMax: q.absoluteMaxCapacity(),
      };
      leaves.set(q, l);
    }
    return l;
  };

  /** Used dominant share of the cluster. */
  const usedShare = (l: Leaf, total: Resources): number =>
    Math.max(total.memoryMB > 0 ? l.q.used.memoryMB / total.memoryMB : 0, total.vcores > 0 ? l.q.used.vcores / total.vcores : 0);

  /** Sort key: below-guarantee leaves by utilisation, zero-guarantee leaves last. */
  const key = (l: Leaf, total: Resources): number => {
    const u = usedShare(l, total);
    return l.absCap > 1e-12 ? u / l.absCap : 1e12 + u;
  };

  const underMax = (q: SimQueue, absMax: number, r: Resources, total: Resources): boolean =>
    q.used.memoryMB + r.memoryMB <= absMax * total.memoryMB + FIT_EPS && q.used.vcores + r.vcores <= absMax * total.vcores + FIT_EPS;

  /** Under the leaf's max-capacity and every ancestor's (CapacityScheduler checks each level). */
  const fitsUnderMax = (l: Leaf, r: Resources, total: Resources): boolean => {
    if (!underMax(l.q, l.absMax, r, total)) return false;
    for (let q = l.q.parent; q && q.parent; q = q.parent) if (!underMax(q, q.absoluteMaxCapacity(), r, total)) return false;
    return true;
  };

  let wakeRequestedMs = -1;
  const monitor = preemption
    ? createPreemptionMonitor(preemption, {
        clusterCapacity: () => ctx.clusterCapacity(),
        leaves: () => ctx.queues.leaves(),
        apps: () => (ctx.activeApps ? ctx.activeApps() : []),
        containers: () => (ctx.liveContainers ? ctx.liveContainers() : []),
        kill: (c) => {
          if (!ctx.preempt) throw new Error('the simulator cannot preempt containers (AllocatorContext.preempt)');
          ctx.preempt(c);
        },
      })
    : undefined;

  return {
    name: monitor ? 'capacity+preemption' : 'capacity',
    ...(monitor ? { preemption: monitor.stats } : {}),
    appChanged(app) {
      let slot = app.allocData as AppSlot | undefined;
      const want = app.pendingContainers > 0 && app.isActive;
      if (slot && (slot.leaf.q !== app.queueRef || !want)) {
        slot.leaf.apps.remove(app);
        if (slot.leaf.apps.size === 0) busy.delete(slot.leaf);
        if (slot.leaf.q !== app.queueRef) {
          app.allocData = undefined;
          slot = undefined;
        }
      }
      if (!want) return;
      if (!slot) {
        slot = { leaf: leafOf(app.queueRef), heapIndex: -1 };
        app.allocData = slot;
      }
      slot.leaf.apps.update(app);
      busy.add(slot.leaf);
    },
    queuesChanged() {
      refresh(ctx.clusterCapacity());
    },
    schedule() {
      // The monitor runs on a full cluster too: that is when it matters. While some leaf waits
      // for resources its next round is due even if no event comes before it.
      if (monitor) {
        monitor.maybeRun(ctx.nowMs);
        if (busy.size > 0 && monitor.nextRunMs !== wakeRequestedMs) {
          wakeRequestedMs = monitor.nextRunMs;
          ctx.wakeAt?.(wakeRequestedMs);
        }
      }
      if (busy.size === 0 || !ctx.hasFreeCapacity()) return;
      const total = ctx.clusterCapacity();
      // Absolute-resource guarantees are a different share of a cluster that grew or shrank.
      if (total.memoryMB !== sizedFor.memoryMB || total.vcores !== sizedFor.vcores) refresh(total);
      // Leaves that cannot place their head container this round (no node fits, or at max).
      const blocked = new Set<Leaf>();
      const skippedApps: [Leaf, SimApp][] = [];
      const failed: Resources[] = [];
      for (;;) {
        let best: Leaf | undefined;
        let bestKey = Infinity;
        for (const l of busy) {
          if (blocked.has(l)) continue;
          const k = key(l, total);
          if (k < bestKey || (k === bestKey && best && l.q.path < best.q.path)) {
            best = l;
            bestKey = k;
          }
        }
        if (!best) break;
        const app = best.apps.peek();
        if (!app) {
          blocked.add(best);
          continue;
        }
        const r = app.nextPendingResource() as Resources;
        if (!fitsUnderMax(best, r, total)) {
          blocked.add(best);
          continue;
        }
        let hopeless = false;
        for (const f of failed) if (f.memoryMB <= r.memoryMB && f.vcores <= r.vcores) hopeless = true;
        const node = hopeless ? undefined : ctx.findNode(r, app);
        if (!node) {
          if (!hopeless) failed.push(r);
          // Let smaller requests of later apps in the same leaf try (YARN skips per heartbeat).
          best.apps.pop();
          skippedApps.push([best, app]);
          if (best.apps.size === 0) blocked.add(best);
          continue;
        }
        ctx.launch(app, node);
        if (app.pendingContainers === 0) best.apps.pop();
        if (best.apps.size === 0 && !skippedApps.some(([l]) => l === best)) busy.delete(best);
        if (!ctx.hasFreeCapacity()) break;
      }
      for (const [l, a] of skippedApps) {
        if (a.pendingContainers > 0 && a.isActive && a.queueRef === l.q) {
          l.apps.push(a);
          busy.add(l);
        }
      }
    },
  };
}
