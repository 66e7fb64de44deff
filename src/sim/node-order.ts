/**
 * Where new containers go: the candidate-node structure shared by all allocators.
 *
 * Only nodes with free advertised capacity are kept, in an indexed heap ordered by the rule in
 * force:
 * - stock order: node id;
 * - after a `rankNodes` action: (if `leastLoadedFirst`) fewest allocated containers first, then
 *   ascending score, unscored nodes last, then node id — exactly the order the action defines.
 *   A `partial` ranking updates only the listed nodes' scores.
 * Finding the first node that fits a request is O(log n) when the best candidate fits, and a
 * best-first walk of the heap otherwise. No per-event O(nodes) work.
 */
import type { Resources } from '../core/resources.js';
import { IndexedHeap } from './heap.js';
import type { SimNode } from './engine.js';

export class NodeOrder {
  private ranked = false;
  private leastLoadedFirst = false;
  private readonly heap: IndexedHeap<SimNode>;
  private readonly all: readonly SimNode[];
  /** Nodes whose score a ranking changed (reused by every ranking). */
  private readonly touched: SimNode[] = [];

  constructor(nodes: readonly SimNode[]) {
    this.all = nodes;
    this.heap = new IndexedHeap<SimNode>(
      (a, b) => this.less(a, b),
      (n) => n.orderHeapIndex,
      (n, i) => {
        n.orderHeapIndex = i;
      },
    );
    this.heap.rebuild(nodes.filter(isCandidate));
  }

  get isRanked(): boolean {
    return this.ranked;
  }

  get size(): number {
    return this.heap.size;
  }

  hasFree(): boolean {
    return this.heap.size > 0;
  }

  /** Call after a node's used/capacity/state or container count changed. */
  nodeChanged(n: SimNode): void {
    if (isCandidate(n)) this.heap.update(n);
    else this.heap.remove(n);
  }

  find(r: Resources): SimNode | undefined {
    const top = this.heap.peek();
    if (!top) return undefined;
    if (fitsFree(r, top)) return top;
    return this.heap.findFirst((n) => fitsFree(r, n));
  }

  /** Applies a rankNodes action; returns the ids it did not know. */
  rank(scores: Readonly<Record<string, number>>, leastLoadedFirst: boolean, partial: boolean, byId: ReadonlyMap<string, SimNode>): readonly string[] {
    let unknown: string[] | undefined;
    const ruleChanged = !this.ranked || leastLoadedFirst !== this.leastLoadedFirst;
    this.ranked = true;
    this.leastLoadedFirst = leastLoadedFirst;
    const touched = this.touched;
    if (touched.length !== 0) touched.length = 0;
    if (partial) {
      // Object.keys rather than for-in: scores is a dictionary, which for-in walks slowly.
      const ids = Object.keys(scores);
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i];
        const n = byId.get(id);
        if (!n) {
          (unknown ??= []).push(id);
          continue;
        }
        const v = norm(scores[id]);
        if (v !== n.score) {
          n.score = v;
          touched.push(n);
        }
      }
    } else {
      // Every node not listed becomes unscored.
      let matched = 0;
      for (const n of this.all) {
        const raw = scores[n.id];
        if (raw !== undefined) matched++;
        const v = norm(raw);
        if (v !== n.score) {
          n.score = v;
          touched.push(n);
        }
      }
      let listed = 0;
      for (const _ in scores) listed++;
      if (listed > matched) for (const id in scores) if (!byId.has(id)) (unknown ??= []).push(id);
    }
    if (ruleChanged || touched.length * 4 > this.heap.size) this.heap.reorder();
    else for (const n of touched) if (this.heap.has(n)) this.heap.update(n);
    return unknown ?? NO_IDS;
  }

  /** Back to the stock order (node id). */
  reset(): void {
    this.ranked = false;
    this.leastLoadedFirst = false;
    for (const n of this.all) n.score = Infinity;
    this.heap.reorder();
  }

  /** The full candidate order (for tests and debugging; O(n log n)). */
  orderedCandidates(): SimNode[] {
    return [...this.heap.items].sort((a, b) => (this.less(a, b) ? -1 : 1));
  }

  private less(a: SimNode, b: SimNode): boolean {
    if (this.ranked) {
      if (this.leastLoadedFirst) {
        const d = a.containers.length - b.containers.length;
        if (d !== 0) return d < 0;
      }
      if (a.score !== b.score) return a.score < b.score;
    }
    return a.idRank < b.idRank;
  }
}

const NO_IDS: readonly string[] = [];

/** A score as the order uses it: missing or NaN means unscored (last). */
function norm(v: number | undefined): number {
  return v === undefined || Number.isNaN(v) ? Infinity : v;
}

function isCandidate(n: SimNode): boolean {
  return n.state === 'RUNNING' && n.capacity.vcores - n.used.vcores >= 1 && n.capacity.memoryMB - n.used.memoryMB >= 1;
}

function fitsFree(r: Resources, n: SimNode): boolean {
  return r.vcores <= n.capacity.vcores - n.used.vcores && r.memoryMB <= n.capacity.memoryMB - n.used.memoryMB;
}
