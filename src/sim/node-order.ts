/**
 * Where new containers go: the candidate-node structure shared by all allocators.
 *
 * Only nodes with free advertised capacity are kept, in a heap ordered by the rule in force:
 * - stock order: node id;
 * - after a `rankNodes` action: (if `leastLoadedFirst`) fewest allocated containers first, then
 *   ascending score, unscored nodes last, then node id — exactly the order the action defines.
 *   A `partial` ranking updates only the listed nodes' scores.
 * Finding the first node that fits a request is O(log n) when the best candidate fits, and a
 * best-first walk of the heap otherwise. No per-event O(nodes) work.
 */
import { rankedNodeLists, type ActionOf, type RankedNodeLists } from '../core/actions.js';
import type { Resources } from '../core/resources.js';
import type { SimNode } from './engine.js';
import { firstInHeapOrder } from './heap.js';

/**
 * Candidate nodes in a binary min-heap on the key (load, score, id rank); each node holds its slot
 * (`orderHeapIndex`, -1 when out). The key of slot i is kept beside it in three arrays, so that a
 * comparison reads them instead of reaching two nodes and their container lists: every launch,
 * release and ranking moves a node, millions of times in a replay. The generic `IndexedHeap`
 * would call a comparator and two slot accessors at every step of the way.
 *
 * The owner gives each node's key when it enters or moves (`update`), and all keys again when the
 * rule changes (`reorder`).
 */
class CandidateHeap {
  readonly items: SimNode[] = [];
  private readonly loads: number[] = [];
  private readonly scores: number[] = [];
  private readonly ranks: number[] = [];

  get size(): number {
    return this.items.length;
  }

  has(n: SimNode): boolean {
    const i = n.orderHeapIndex;
    return i >= 0 && i < this.items.length && this.items[i] === n;
  }

  peek(): SimNode | undefined {
    return this.items[0];
  }

  /** Puts `n` in with the key (load, score, its id rank), or moves it to where that key belongs. */
  update(n: SimNode, load: number, score: number): void {
    const rank = n.idRank;
    if (!this.has(n)) {
      this.items.push(n);
      this.loads.push(load);
      this.scores.push(score);
      this.ranks.push(rank);
      this.up(this.items.length - 1, n, load, score, rank);
      return;
    }
    const i = n.orderHeapIndex;
    const p = (i - 1) >> 1;
    if (i > 0 && this.before(load, score, rank, p)) this.up(i, n, load, score, rank);
    else this.down(i, n, load, score, rank);
  }

  remove(n: SimNode): void {
    if (!this.has(n)) return;
    const i = n.orderHeapIndex;
    n.orderHeapIndex = -1;
    const last = this.items.pop() as SimNode;
    const load = this.loads.pop() as number;
    const score = this.scores.pop() as number;
    const rank = this.ranks.pop() as number;
    if (i < this.items.length) {
      if (i > 0 && this.before(load, score, rank, (i - 1) >> 1)) this.up(i, last, load, score, rank);
      else this.down(i, last, load, score, rank);
    }
  }

  /** Gives every node its key again (`keyOf` fills `key`: [load, score]) and rebuilds the heap. */
  reorder(keyOf: (n: SimNode, key: [number, number]) => void): void {
    const key: [number, number] = [0, 0];
    const a = this.items;
    for (let i = 0; i < a.length; i++) {
      keyOf(a[i], key);
      this.loads[i] = key[0];
      this.scores[i] = key[1];
      this.ranks[i] = a[i].idRank;
    }
    for (let i = (a.length >> 1) - 1; i >= 0; i--) this.down(i, a[i], this.loads[i], this.scores[i], this.ranks[i]);
  }

  /** The first node in heap order satisfying `pred` (the least of those that do). */
  findFirst(pred: (n: SimNode) => boolean): SimNode | undefined {
    const a = this.items;
    const i = firstInHeapOrder(a.length, (x, y) => this.slotBefore(x, y), (x) => pred(a[x]));
    return i < 0 ? undefined : a[i];
  }

  /** The key (load, score, rank) comes before slot j's. */
  private before(load: number, score: number, rank: number, j: number): boolean {
    const l = this.loads[j];
    if (load !== l) return load < l;
    const s = this.scores[j];
    if (score !== s) return score < s;
    return rank < this.ranks[j];
  }

  private slotBefore(i: number, j: number): boolean {
    return this.before(this.loads[i], this.scores[i], this.ranks[i], j);
  }

  private up(i: number, n: SimNode, load: number, score: number, rank: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(load, score, rank, p)) break;
      this.moveSlot(p, i);
      i = p;
    }
    this.place(i, n, load, score, rank);
  }

  private down(i: number, n: SimNode, load: number, score: number, rank: number): void {
    const m = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= m) break;
      const c = l + 1 < m && this.slotBefore(l + 1, l) ? l + 1 : l;
      if (this.before(load, score, rank, c)) break;
      this.moveSlot(c, i);
      i = c;
    }
    this.place(i, n, load, score, rank);
  }

  /** Moves the node in slot `from`, with its key, to slot `to`. */
  private moveSlot(from: number, to: number): void {
    const q = this.items[from];
    this.place(to, q, this.loads[from], this.scores[from], this.ranks[from]);
  }

  private place(i: number, n: SimNode, load: number, score: number, rank: number): void {
    this.items[i] = n;
    this.loads[i] = load;
    this.scores[i] = score;
    this.ranks[i] = rank;
    n.orderHeapIndex = i;
  }
}

export class NodeOrder {
  private ranked = false;
  private leastLoadedFirst = false;
  private readonly heap = new CandidateHeap();
  private readonly all: readonly SimNode[];
  /** The nodes and scores of the ranking being applied (reused by every ranking). */
  private readonly listed: RankedNodeLists = { nodeIds: [], values: [] };
  /**
   * Nodes whose score a ranking changed: `touched[0 .. count)`, reused by every ranking (never
   * emptied: setting its length to 0 would drop its room, to be allocated again at the next one).
   */
  private readonly touched: SimNode[] = [];
  /** A node's key under the rule in force (for `CandidateHeap.reorder`). */
  private readonly keyOf = (n: SimNode, key: [number, number]): void => {
    key[0] = this.loadOf(n);
    key[1] = this.scoreOf(n);
  };

  constructor(nodes: readonly SimNode[]) {
    this.all = nodes;
    for (const n of nodes) if (isCandidate(n)) this.heap.update(n, 0, 0);
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
    if (isCandidate(n)) this.heap.update(n, this.loadOf(n), this.scoreOf(n));
    else this.heap.remove(n);
  }

  find(r: Resources): SimNode | undefined {
    const top = this.heap.peek();
    if (!top) return undefined;
    if (fitsFree(r, top)) return top;
    return this.heap.findFirst((n) => fitsFree(r, n));
  }

  /** Applies a rankNodes action; returns the ids it did not know. */
  rank(a: ActionOf<'rankNodes'>, byId: ReadonlyMap<string, SimNode>): readonly string[] {
    let unknown: string[] | undefined;
    const leastLoadedFirst = a.leastLoadedFirst;
    const ruleChanged = !this.ranked || leastLoadedFirst !== this.leastLoadedFirst;
    this.ranked = true;
    this.leastLoadedFirst = leastLoadedFirst;
    const touched = this.touched;
    let nTouched = 0;
    if (a.partial ?? false) {
      // The lists, not the dictionary: listing a dictionary's keys sorts them by insertion.
      const { nodeIds, values } = rankedNodeLists(a, this.listed);
      for (let i = 0; i < nodeIds.length; i++) {
        const id = nodeIds[i];
        const n = byId.get(id);
        if (!n) {
          (unknown ??= []).push(id);
          continue;
        }
        const v = norm(values[i]);
        if (v !== n.score) {
          n.score = v;
          touched[nTouched++] = n;
        }
      }
    } else {
      // Every node not listed becomes unscored.
      const scores = a.scores;
      let matched = 0;
      for (const n of this.all) {
        const raw = scores[n.id];
        if (raw !== undefined) matched++;
        const v = norm(raw);
        if (v !== n.score) {
          n.score = v;
          touched[nTouched++] = n;
        }
      }
      let listed = 0;
      for (const _ in scores) listed++;
      if (listed > matched) for (const id in scores) if (!byId.has(id)) (unknown ??= []).push(id);
    }
    if (ruleChanged || nTouched * 4 > this.heap.size) this.heap.reorder(this.keyOf);
    else
      for (let i = 0; i < nTouched; i++) {
        const n = touched[i];
        if (this.heap.has(n)) this.heap.update(n, this.loadOf(n), n.score);
      }
    return unknown ?? NO_IDS;
  }

  /** Back to the stock order (node id). */
  reset(): void {
    this.ranked = false;
    this.leastLoadedFirst = false;
    for (const n of this.all) n.score = Infinity;
    this.heap.reorder(this.keyOf);
  }

  /** The full candidate order (for tests and debugging; O(n log n)). */
  orderedCandidates(): SimNode[] {
    return [...this.heap.items].sort((a, b) => (this.less(a, b) ? -1 : 1));
  }

  /** First key: the container count when the fewest-loaded nodes go first, else 0. */
  private loadOf(n: SimNode): number {
    return this.ranked && this.leastLoadedFirst ? n.containers.length : 0;
  }

  /** Second key: the score once ranked, else 0 (node id alone decides). */
  private scoreOf(n: SimNode): number {
    return this.ranked ? n.score : 0;
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
