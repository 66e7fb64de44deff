/**
 * Suspend/resume on a node's cores and the over-commit that goes with it, for policies that
 * preempt by pausing containers (Kairos, Big-C). The mechanics live here; a policy supplies only
 * its orders: which running task yields its core first (its victim order) and which waiting task
 * gets a free core first. (Ending containers instead, as CapacityScheduler does: `preempt.ts`.)
 *
 * The node's RM-side allocation is left to the policy's over-commit: a suspended container keeps
 * its allocation in YARN, so a node that holds more than it can run advertises more than it has.
 */
import type { Resources } from '../../core/resources.js';

/** A node's N cores and the vcores its running tasks hold, as a cycle updates them. */
export interface CoreLedger {
  readonly cores: number;
  used: number;
}

/** A node's tasks during a visit, with the policy's victim order and its suspend step. */
export interface SuspendOnNode<T> extends CoreLedger {
  /** The node's tasks are `taskAt(0 .. count)`. */
  readonly count: number;
  taskAt(i: number): T;
  /** Running, and of a kind the policy may suspend. */
  isVictim(t: T): boolean;
  /** Negative when `a` yields its core before `b`. */
  victimOrder(a: T, b: T): number;
  vcoresOf(t: T): number;
  /** Takes `t` off its core and records the decision (`used` still counts it). */
  suspend(t: T): void;
}

/** The node's next victim: the running task first in the policy's victim order. */
export function nextVictim<T>(node: SuspendOnNode<T>): T | undefined {
  let best: T | undefined;
  for (let i = 0; i < node.count; i++) {
    const t = node.taskAt(i);
    if (!node.isVictim(t)) continue;
    if (best === undefined || node.victimOrder(t, best) < 0) best = t;
  }
  return best;
}

/**
 * While the node runs more than its cores, suspends its next victim: a node never runs more
 * tasks than it has cores (the RM placed more because it advertises more).
 */
export function suspendUntilWithinCores<T>(node: SuspendOnNode<T>): void {
  while (node.used > node.cores) {
    const victim = nextVictim(node);
    if (victim === undefined) return;
    node.suspend(victim);
    node.used -= node.vcoresOf(victim);
  }
}

/** Where a waiting task would run, and how a policy resumes it. */
export interface ResumeInto<T> {
  /** The ledger of the node the task is on. */
  ledgerOf(t: T): CoreLedger;
  vcoresOf(t: T): number;
  /** Gives `t` its core and records the decision (its ledger does not count it yet). */
  resume(t: T, ledger: CoreLedger): void;
}

/**
 * Resumes `waiting[0 .. n)`, already in the policy's resume order, each into its node's free
 * cores when it fits there and within `budget` cores in all (a task that does not fit is passed
 * over, the next may). Returns the budget left.
 */
export function resumeInOrder<T>(waiting: readonly T[], n: number, into: ResumeInto<T>, budget = Infinity): number {
  for (let k = 0; k < n; k++) {
    if (budget <= 0) break;
    const t = waiting[k];
    const ledger = into.ledgerOf(t);
    const need = into.vcoresOf(t);
    if (ledger.cores - ledger.used < need || budget < need) continue;
    into.resume(t, ledger);
    ledger.used += need;
    budget -= need;
  }
  return budget;
}

/** Sorts `list[0 .. n)` in place by `order` (insertion sort, stable: for a node's few tasks). */
export function sortFirst<T>(list: T[], n: number, order: (a: T, b: T) => number): void {
  for (let i = 1; i < n; i++) {
    const x = list[i];
    let j = i - 1;
    while (j >= 0 && order(list[j], x) > 0) {
      list[j + 1] = list[j];
      j--;
    }
    list[j + 1] = x;
  }
}

/**
 * The first `k` of the items offered, by `order`, kept sorted as they come (top-k without sorting
 * every candidate): victims across the cluster.
 */
export class FirstK<T> {
  readonly items: T[] = [];

  constructor(
    readonly k: number,
    private readonly order: (a: T, b: T) => number,
  ) {}

  offer(x: T): void {
    const items = this.items;
    const k = this.k;
    if (items.length === k && this.order(x, items[k - 1]) >= 0) return;
    let i = items.length < k ? items.length : k - 1;
    if (items.length < k) items.push(x);
    while (i > 0 && this.order(x, items[i - 1]) < 0) {
      items[i] = items[i - 1];
      i--;
    }
    items[i] = x;
  }
}

// Over-commit: what a node advertises to the RM.

/**
 * Capacity for `slots` one-core tasks on a node of `cores` cores: `slots` vcores, memory scaled by
 * slots / cores so that memory does not cap the node first.
 */
export function slotCapacity(physical: Resources, cores: number, slots: number): Resources {
  return { memoryMB: Math.round((physical.memoryMB * slots) / cores), vcores: slots };
}

/** Whether the node advertises `slotCapacity` (compared without building it: checked at every visit). */
export function advertisesSlots(advertised: Resources, physical: Resources, cores: number, slots: number): boolean {
  return advertised.vcores === slots && advertised.memoryMB === Math.round((physical.memoryMB * slots) / cores);
}

/** Physical capacity plus what the node's suspended containers hold: they keep their allocation. */
export function capacityWithSuspended(physical: Resources, suspended: readonly { readonly resource: Resources }[]): Resources {
  let memoryMB = physical.memoryMB;
  let vcores = physical.vcores;
  for (const c of suspended) {
    memoryMB += c.resource.memoryMB;
    vcores += c.resource.vcores;
  }
  return { memoryMB, vcores };
}
