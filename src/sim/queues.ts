/**
 * The simulated scheduler's queue tree (CapacityScheduler shape): capacities relative to the
 * parent, siblings summing to 100 %, applications in leaf queues. The simulator core keeps the
 * tree, applies `updateQueues` atomically, and tracks per-queue usage; allocators read it
 * (the stock FIFO allocator ignores capacities, the capacity allocator enforces them).
 */
import type { ActionOf } from '../core/actions.js';
import type { QueuePath, QueueState, QueueView } from '../core/model.js';
import { dominantShare, type Resources } from '../core/resources.js';
import type { QueueSpec } from './workload.js';

const PCT_EPSILON = 0.01;

export class SimQueue {
  readonly children: SimQueue[] = [];
  state: QueueState = 'RUNNING';
  /** Resources allocated to apps in this queue and its descendants (running + suspended). */
  readonly used = { memoryMB: 0, vcores: 0 };
  /** Active (unfinished) applications in this queue (leaves only; parents sum). */
  numApplications = 0;
  /**
   * The guarantee in absolute resources (CapacityScheduler `capacity=[memory=…,vcores=…]`);
   * undefined in percentage mode. `capacityPct` then holds its dominant share of the parent.
   */
  capacityResource: Resources | undefined = undefined;

  constructor(
    readonly path: QueuePath,
    readonly name: string,
    public capacityPct: number,
    public maxCapacityPct: number,
    readonly parent: SimQueue | undefined,
  ) {}

  get isLeaf(): boolean {
    return this.children.length === 0;
  }

  /**
   * Guaranteed share of the whole cluster, 0–1. In absolute mode, given the cluster's `total`, the
   * dominant share of the configured resources (as CapacityScheduler's DominantResourceCalculator
   * derives a queue's capacity from them); without it, the share the last update stated.
   */
  absoluteCapacity(total?: Resources): number {
    if (this.capacityResource && total) return Math.min(1, dominantShare(this.capacityResource, total));
    return (this.parent ? this.parent.absoluteCapacity(total) : 1) * (this.capacityPct / 100);
  }

  /** Guaranteed resources against the cluster's `total`: the configured vector in absolute mode. */
  guaranteed(total: Resources): Resources {
    if (this.capacityResource)
      return { memoryMB: Math.min(total.memoryMB, this.capacityResource.memoryMB), vcores: Math.min(total.vcores, this.capacityResource.vcores) };
    const abs = this.absoluteCapacity(total);
    return { memoryMB: total.memoryMB * abs, vcores: total.vcores * abs };
  }

  /** Maximum share of the whole cluster, 0–1. */
  absoluteMaxCapacity(): number {
    return (this.parent ? this.parent.absoluteMaxCapacity() : 1) * (this.maxCapacityPct / 100);
  }
}

export class QueueTree {
  root: SimQueue;
  private byPath = new Map<string, SimQueue>();

  constructor(specs?: readonly QueueSpec[]) {
    this.root = new SimQueue('root', 'root', 100, 100, undefined);
    this.byPath.set('root', this.root);
    const list = specs && specs.length ? specs : [{ path: 'root.default', capacityPct: 100, maxCapacityPct: 100 }];
    const err = this.tryApply(list, []);
    if (err) throw new Error(`bad initial queue configuration: ${err}`);
  }

  get(path: string): SimQueue | undefined {
    return this.byPath.get(path);
  }

  /** Resolves a full path or a unique leaf name to a leaf queue. */
  resolveLeaf(pathOrName: string): SimQueue | undefined {
    const q = this.byPath.get(pathOrName) ?? this.byPath.get(`root.${pathOrName}`);
    if (q) return q.isLeaf ? q : undefined;
    let found: SimQueue | undefined;
    for (const x of this.byPath.values()) {
      if (x.isLeaf && x.name === pathOrName) {
        if (found) return undefined; // ambiguous
        found = x;
      }
    }
    return found;
  }

  /** The path of every queue, the root included. */
  paths(): string[] {
    return [...this.byPath.keys()];
  }

  leaves(): SimQueue[] {
    return [...this.byPath.values()].filter((q) => q.isLeaf);
  }

  /** Applies an `updateQueues` action atomically; returns an error message or undefined. */
  apply(a: ActionOf<'updateQueues'>): string | undefined {
    return this.tryApply(a.add, a.update);
  }

  addUsage(q: SimQueue, r: Resources, k: 1 | -1): void {
    for (let x: SimQueue | undefined = q; x; x = x.parent) {
      x.used.memoryMB += k * r.memoryMB;
      x.used.vcores += k * r.vcores;
    }
  }

  addApp(q: SimQueue, k: 1 | -1): void {
    for (let x: SimQueue | undefined = q; x; x = x.parent) x.numApplications += k;
  }

  /** An immutable QueueView of the whole tree against the given cluster capacity. */
  view(total: Resources): QueueView {
    const mk = (q: SimQueue): QueueView => {
      const abs = q.absoluteCapacity(total);
      const guaranteed = q.guaranteed(total);
      const usedShare = dominantShare(q.used, guaranteed);
      return {
        path: q.path,
        name: q.name,
        state: q.state,
        capacityPct: q.capacityPct,
        ...(q.capacityResource ? { capacityResource: { ...q.capacityResource } } : {}),
        maxCapacityPct: q.maxCapacityPct,
        absoluteCapacityPct: abs * 100,
        absoluteMaxCapacityPct: q.absoluteMaxCapacity() * 100,
        usedCapacityPct: usedShare * 100,
        used: { memoryMB: q.used.memoryMB, vcores: q.used.vcores },
        numApplications: q.numApplications,
        children: q.children.map(mk),
      };
    };
    return mk(this.root);
  }

  private tryApply(
    add: readonly { path: string; capacityPct: number; maxCapacityPct: number }[],
    update: readonly { path: string; capacityPct?: number; maxCapacityPct?: number; capacityResource?: Resources }[],
  ): string | undefined {
    // Work on a copy of the scalar settings so a failure leaves the tree unchanged.
    const created: SimQueue[] = [];
    const saved = new Map<SimQueue, [number, number, Resources | undefined]>();
    const rollback = (msg: string): string => {
      for (const q of created.reverse()) {
        this.byPath.delete(q.path);
        const p = q.parent as SimQueue;
        p.children.splice(p.children.indexOf(q), 1);
      }
      for (const [q, [c, m, r]] of saved) {
        q.capacityPct = c;
        q.maxCapacityPct = m;
        q.capacityResource = r;
      }
      return msg;
    };
    for (const a of add) {
      if (this.byPath.has(a.path)) return rollback(`queue ${a.path} already exists`);
      const dot = a.path.lastIndexOf('.');
      if (dot <= 0) return rollback(`queue path ${a.path} must be below root`);
      const parent = this.byPath.get(a.path.slice(0, dot));
      if (!parent) return rollback(`parent of ${a.path} does not exist`);
      if (parent.isLeaf && parent.numApplications > 0) return rollback(`${parent.path} has applications and cannot become a parent queue`);
      const q = new SimQueue(a.path, a.path.slice(dot + 1), a.capacityPct, a.maxCapacityPct, parent);
      parent.children.push(q);
      this.byPath.set(a.path, q);
      created.push(q);
    }
    for (const u of update) {
      const q = this.byPath.get(u.path);
      if (!q) return rollback(`queue ${u.path} does not exist`);
      if (q === this.root) return rollback('root capacity cannot change');
      if (!saved.has(q)) saved.set(q, [q.capacityPct, q.maxCapacityPct, q.capacityResource]);
      if (u.capacityPct !== undefined) q.capacityPct = u.capacityPct;
      if (u.maxCapacityPct !== undefined) q.maxCapacityPct = u.maxCapacityPct;
      // A capacity stated as a percentage puts the queue back in percentage mode.
      if (u.capacityResource !== undefined) q.capacityResource = { ...u.capacityResource };
      else if (u.capacityPct !== undefined) q.capacityResource = undefined;
    }
    for (const q of this.byPath.values()) {
      if (q.maxCapacityPct + PCT_EPSILON < q.capacityPct) return rollback(`${q.path}: maximum capacity ${q.maxCapacityPct} below capacity ${q.capacityPct}`);
      if (q.children.length) {
        const err = childrenProblem(q);
        if (err) return rollback(err);
      }
    }
    return undefined;
  }
}

/**
 * CapacityScheduler's rules for a parent's children (legacy queue mode, Hadoop 3.4.1
 * `AbstractParentQueue.setChildQueues`): no mix of absolute-resource and non-zero percentage
 * siblings; percentage children sum to 100; absolute children need an absolute parent (root
 * excepted) and may not add up past the parent's configured resources.
 */
function childrenProblem(q: SimQueue): string | undefined {
  const absolute = q.children.filter((c) => c.capacityResource && (c.capacityResource.memoryMB > 0 || c.capacityResource.vcores > 0));
  if (absolute.length === 0) {
    const s = q.children.reduce((acc, c) => acc + c.capacityPct, 0);
    return Math.abs(s - 100) > PCT_EPSILON ? `children of ${q.path} sum to ${s}%, not 100%` : undefined;
  }
  const pct = q.children.filter((c) => !c.capacityResource && c.capacityPct > 0);
  if (pct.length) return `children of ${q.path} mix absolute resources (${absolute[0].path}) and percentages (${pct[0].path})`;
  if (!q.parent) return undefined;
  if (!q.capacityResource) return `${q.path} has children with absolute resources but is itself in percentage mode`;
  const sum = { memoryMB: 0, vcores: 0 };
  for (const c of absolute) {
    sum.memoryMB += c.capacityResource!.memoryMB;
    sum.vcores += c.capacityResource!.vcores;
  }
  if (sum.memoryMB > q.capacityResource.memoryMB || sum.vcores > q.capacityResource.vcores)
    return `children of ${q.path} add up to <${sum.memoryMB} MB, ${sum.vcores} vcores>, more than its <${q.capacityResource.memoryMB} MB, ${q.capacityResource.vcores} vcores>`;
  return undefined;
}
