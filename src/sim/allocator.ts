/**
 * Placement of pending containers: the part of the simulator that plays the ResourceManager's
 * scheduler. It is a replaceable module so that different RM schedulers can be modelled
 * (stock FIFO here; a CapacityScheduler-like allocator honouring queue capacities lives in
 * `capacity-allocator.ts`).
 *
 * Contract
 * --------
 * The simulator owns nodes, apps, containers, the queue tree and the node order (stock order by
 * node id, or the order a `rankNodes` action defines). An allocator only decides *which app's*
 * next pending container goes next, and asks the context for the node:
 *
 * - `appChanged(app)` is called whenever an app's pending count, priority, queue or state
 *   changed (arrival, a stage becoming ready, a killed container re-requested, `setAppPriority`,
 *   `moveApp`, `killApp`, completion). It is NOT called for the launches the allocator itself
 *   makes through `ctx.launch`.
 * - `queuesChanged()` after a successful `updateQueues`.
 * - `schedule()` is called after every batch of events and after actions are applied; it places
 *   as many pending containers as the scheduler would, by calling `ctx.findNode(resource)` (the
 *   first node in the current node order whose free advertised capacity fits) and
 *   `ctx.launch(app, node)` (allocates the app's next pending task there). It must be cheap
 *   when nothing can be placed: check `ctx.hasFreeCapacity()` first.
 *
 * Allocators must be deterministic (use `ctx.rng` if randomness is ever needed).
 */
import type { Resources } from '../core/resources.js';
import { IndexedHeap } from '../core/heap.js';
import type { QueueTree } from './queues.js';
import type { Rng } from './rng.js';
import type { SimApp, SimContainer, SimNode } from './model.js';
import { objectList } from '../core/lists.js';

export interface AllocatorContext {
  /** Current virtual time, ms. */
  readonly nowMs: number;
  readonly queues: QueueTree;
  readonly rng: Rng;
  /** Sum of RUNNING nodes' advertised capacity. */
  clusterCapacity(): Resources;
  /**
   * First node in the current placement order with free advertised capacity for `r`; for an `app`
   * with preferred nodes, a free preferred node first.
   */
  findNode(r: Resources, app?: SimApp): SimNode | undefined;
  /** Cheap: is any node able to take at least a 1 MB / 1 vcore container? */
  hasFreeCapacity(): boolean;
  /** Allocates `app`'s next pending task on `node` (which must fit it). */
  launch(app: SimApp, node: SimNode): SimContainer;
  /** Live containers in launch order (for a preemption model). */
  liveContainers?(): Iterable<SimContainer>;
  /** Unfinished applications (for a preemption model). */
  activeApps?(): Iterable<SimApp>;
  /** Kills a container as the RM's preemption does: its work is lost, its task is asked for again. */
  preempt?(c: SimContainer): void;
  /** Calls `schedule()` at `t` (ms) even if nothing else happens then (a preemption monitor's next round). */
  wakeAt?(t: number): void;
}

export interface Allocator {
  readonly name: string;
  appChanged(app: SimApp): void;
  queuesChanged(): void;
  schedule(): void;
}

export type AllocatorFactory = (ctx: AllocatorContext) => Allocator;

/** YARN's ordering of applications within a queue: priority (higher first), then submission. */
export function fifoAppLess(a: SimApp, b: SimApp): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  return a.seq < b.seq;
}

/**
 * Stock FIFO placement (YARN FifoScheduler / a single CapacityScheduler leaf queue): pending
 * containers go out by app priority then submission order; an app whose next container fits
 * nowhere is skipped for this round (as YARN does per node heartbeat), so smaller requests of
 * later apps may still be placed. Queue capacities are tracked by the simulator but not enforced.
 */
export function createFifoAllocator(ctx: AllocatorContext): Allocator {
  return new FifoAllocator(ctx);
}

const fifoSlotOf = (a: SimApp): number => a.allocHeapIndex;
const setFifoSlot = (a: SimApp, i: number): void => {
  a.allocHeapIndex = i;
};

// A class rather than an object of closures: every run's allocator then calls the same functions.
class FifoAllocator implements Allocator {
  readonly name = 'fifo';
  private readonly heap = new IndexedHeap<SimApp>(fifoAppLess, fifoSlotOf, setFifoSlot);
  // failed[0 .. nFailed) and skipped[0 .. nSkipped) of `schedule`: lists reused by every call,
  // never emptied (setting a list's length to 0 drops its room, allocated again at the next call).
  private readonly skipped = objectList<SimApp>();
  private readonly failed = objectList<Resources>();

  constructor(private readonly ctx: AllocatorContext) {}

  appChanged(app: SimApp): void {
    if (app.pendingContainers > 0 && app.isActive) this.heap.update(app);
    else this.heap.remove(app);
  }

  queuesChanged(): void {}

  schedule(): void {
    const { heap, ctx, skipped, failed } = this;
    if (heap.size === 0 || !ctx.hasFreeCapacity()) return;
    let nFailed = 0;
    let nSkipped = 0;
    for (;;) {
      const app = heap.peek();
      if (!app) break;
      const r = app.nextPendingResource() as Resources;
      let hopeless = false;
      for (let k = 0; k < nFailed; k++) if (failed[k].memoryMB <= r.memoryMB && failed[k].vcores <= r.vcores) hopeless = true;
      const node = hopeless ? undefined : ctx.findNode(r, app);
      if (!node) {
        if (!hopeless) failed[nFailed++] = r;
        skipped[nSkipped++] = heap.pop() as SimApp;
        continue;
      }
      ctx.launch(app, node);
      if (app.pendingContainers === 0) heap.pop();
      if (!ctx.hasFreeCapacity()) break;
    }
    for (let k = 0; k < nSkipped; k++) heap.push(skipped[k]);
  }
}
