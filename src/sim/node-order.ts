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
import type { SimNode } from './model.js';
import { firstInHeapOrder } from '../core/heap.js';

/**
 * Candidate nodes in a binary min-heap on the key (load, score, id rank). Everything the heap
 * reads and writes while it moves slots is in typed arrays: each slot's node (by its id rank, the
 * node's index in the simulator's list) and its key (load and score side by side), and each
 * node's slot (by id rank; -1 when out). A move then touches two or three short arrays and no
 * node object: every launch, release and ranking moves a node, millions of times in a replay, and
 * each step of the way used to write the moved node's own slot field, a node object somewhere in
 * memory at every level.
 *
 * The owner gives each node's key when it enters or moves (`update`), and all keys again when the
 * rule changes (`reorder`).
 */
class CandidateHeap {
  private readonly nodes: readonly SimNode[];
  private n = 0;
  /** Slot i holds node `ranks[i]` (an id rank). */
  private readonly ranks: Int32Array;
  /** Slot i's key: load at `keys[2i]`, score at `keys[2i + 1]` (the id rank is `ranks[i]`). */
  private readonly keys: Float64Array;
  /** The slot of the node of id rank r, -1 when out. */
  private readonly slotOf: Int32Array;

  /** `nodes[r]` is the node of id rank r. */
  constructor(nodes: readonly SimNode[]) {
    for (let r = 0; r < nodes.length; r++) if (nodes[r].idRank !== r) throw new Error(`node ${nodes[r].id} has id rank ${nodes[r].idRank}, not its index ${r}`);
    this.nodes = nodes;
    this.ranks = new Int32Array(nodes.length);
    this.keys = new Float64Array(2 * nodes.length);
    this.slotOf = new Int32Array(nodes.length).fill(-1);
  }

  get size(): number {
    return this.n;
  }

  /** The candidates in slot order (for tests and debugging). */
  get items(): SimNode[] {
    const out: SimNode[] = [];
    for (let i = 0; i < this.n; i++) out.push(this.nodes[this.ranks[i]]);
    return out;
  }

  has(node: SimNode): boolean {
    return this.slotOf[node.idRank] >= 0;
  }

  peek(): SimNode | undefined {
    return this.n > 0 ? this.nodes[this.ranks[0]] : undefined;
  }

  /** Puts `node` in with the key (load, score, its id rank), or moves it to where that key belongs. */
  update(node: SimNode, load: number, score: number): void {
    const rank = node.idRank;
    const i = this.slotOf[rank];
    if (i < 0) this.up(this.n++, rank, load, score);
    else this.sift(i, rank, load, score);
  }

  remove(node: SimNode): void {
    const i = this.slotOf[node.idRank];
    if (i < 0) return;
    this.slotOf[node.idRank] = -1;
    const last = --this.n;
    if (i === last) return;
    const rank = this.ranks[last];
    this.sift(i, rank, this.keys[2 * last], this.keys[2 * last + 1]);
  }

  /**
   * Gives every node its key again and rebuilds the heap: the load is the node's container count
   * when `byLoad`, else 0; the score is the node's score when `byScore`, else 0 (`NodeOrder.loadOf`
   * and `scoreOf`, written out: a rescoring of most nodes reorders thousands of them).
   */
  reorder(byLoad: boolean, byScore: boolean): void {
    const nodes = this.nodes;
    const ranks = this.ranks;
    const keys = this.keys;
    const n = this.n;
    for (let i = 0; i < n; i++) {
      const node = nodes[ranks[i]];
      keys[2 * i] = byLoad ? node.containers.length : 0;
      keys[2 * i + 1] = byScore ? node.score : 0;
    }
    for (let i = (n >> 1) - 1; i >= 0; i--) this.down(i, ranks[i], keys[2 * i], keys[2 * i + 1]);
  }

  /** The first node in heap order satisfying `pred` (the least of those that do). */
  findFirst(pred: (n: SimNode) => boolean): SimNode | undefined {
    const i = firstInHeapOrder(
      this.n,
      (x, y) => this.before(this.keys[2 * x], this.keys[2 * x + 1], this.ranks[x], y),
      (x) => pred(this.nodes[this.ranks[x]]),
    );
    return i < 0 ? undefined : this.nodes[this.ranks[i]];
  }

  /** The key (load, score, rank) comes before slot j's. */
  private before(load: number, score: number, rank: number, j: number): boolean {
    const l = this.keys[2 * j];
    if (load !== l) return load < l;
    const s = this.keys[2 * j + 1];
    if (score !== s) return score < s;
    return rank < this.ranks[j];
  }

  /** Puts node `rank` with its key at slot i, or up or down from there to where the key belongs. */
  private sift(i: number, rank: number, load: number, score: number): void {
    if (i > 0 && this.before(load, score, rank, (i - 1) >> 1)) this.up(i, rank, load, score);
    else this.down(i, rank, load, score);
  }

  private up(i: number, rank: number, load: number, score: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(load, score, rank, p)) break;
      this.moveSlot(p, i);
      i = p;
    }
    this.place(i, rank, load, score);
  }

  private down(i: number, rank: number, load: number, score: number): void {
    const m = this.n;
    const keys = this.keys;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= m) break;
      const c = l + 1 < m && this.before(keys[2 * l + 2], keys[2 * l + 3], this.ranks[l + 1], l) ? l + 1 : l;
      if (this.before(load, score, rank, c)) break;
      this.moveSlot(c, i);
      i = c;
    }
    this.place(i, rank, load, score);
  }

  /** Moves the node in slot `from`, with its key, to slot `to`. */
  private moveSlot(from: number, to: number): void {
    this.place(to, this.ranks[from], this.keys[2 * from], this.keys[2 * from + 1]);
  }

  private place(i: number, rank: number, load: number, score: number): void {
    this.ranks[i] = rank;
    this.keys[2 * i] = load;
    this.keys[2 * i + 1] = score;
    this.slotOf[rank] = i;
  }
}

export class NodeOrder {
  private ranked = false;
  private leastLoadedFirst = false;
  private readonly heap: CandidateHeap;
  private readonly all: readonly SimNode[];
  /** The nodes and scores of the ranking being applied (reused by every ranking). */
  private readonly listed: RankedNodeLists = { nodeIds: [], values: [] };
  /**
   * Nodes whose score a ranking changed: `touched[0 .. count)`, reused by every ranking (never
   * emptied: setting its length to 0 would drop its room, to be allocated again at the next one).
   */
  private readonly touched: SimNode[] = [];

  /** `nodes[r]` is the node of id rank r (the simulator's list of nodes). */
  constructor(nodes: readonly SimNode[]) {
    this.all = nodes;
    this.heap = new CandidateHeap(nodes);
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
    if (ruleChanged || nTouched * 4 > this.heap.size) this.heap.reorder(this.byLoad, this.ranked);
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
    this.heap.reorder(this.byLoad, this.ranked);
  }

  /** The full candidate order (for tests and debugging; O(n log n)). */
  orderedCandidates(): SimNode[] {
    return [...this.heap.items].sort((a, b) => (this.less(a, b) ? -1 : 1));
  }

  /** First key: the container count when the fewest-loaded nodes go first, else 0. */
  private loadOf(n: SimNode): number {
    return this.byLoad ? n.containers.length : 0;
  }

  /** Whether the first key is the container count (least loaded first, once ranked). */
  private get byLoad(): boolean {
    return this.ranked && this.leastLoadedFirst;
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
