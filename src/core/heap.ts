/**
 * The project's priority queues, all binary min-heaps (docs/decisions.md, "One priority queue"):
 *
 * - `KeyedHeap`: items on two numeric keys (the second breaks ties), kept in arrays beside the
 *   items so that a move compares numbers without reaching the items. An item that carries a
 *   `heapIndex` slot can be taken out or re-keyed in O(log n).
 * - `EventQueue`: the simulators' future-event list, a KeyedHeap on (time, sequence number):
 *   events of one time come out in the order they were scheduled, so a run is deterministic.
 * - `IndexedHeap`: items under a comparator (orders that are not two numbers), with slots.
 * - `firstInHeapOrder`: the least slot of a binary heap that satisfies a predicate.
 *
 * heap-js was measured against the event queue on a replay's own operations and is slower
 * (docs/benchmarks.md, "One priority queue").
 */
import { numberList, objectList } from './lists.js';

/** Elements of a heap with removal carry their slot; -1 means "not in the heap". */
export interface HeapSlot {
  heapIndex: number;
}

/**
 * A min-heap on (a, b). With `removable`, every item is a `HeapSlot` and the heap keeps its
 * slot up to date, so `remove` and `update` find it; without, items are left untouched (plain
 * data, and the heap survives JSON when its items do).
 */
export class KeyedHeap<T> {
  protected items: T[] = objectList<T>();
  protected as: number[] = numberList();
  protected bs: number[] = numberList();
  protected readonly removable: boolean;

  constructor(opts: { removable?: boolean } = {}) {
    this.removable = opts.removable ?? false;
  }

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** The first key of the least item (undefined when empty). */
  peekKey(): number | undefined {
    return this.as[0];
  }

  insert(item: T, a: number, b: number): void {
    this.items.push(item);
    this.as.push(a);
    this.bs.push(b);
    this.up(this.items.length - 1, item, a, b);
  }

  pop(): T | undefined {
    const items = this.items;
    if (items.length === 0) return undefined;
    const top = items[0];
    const last = items.pop() as T;
    const a = this.as.pop() as number;
    const b = this.bs.pop() as number;
    if (this.removable) (top as HeapSlot).heapIndex = -1;
    if (items.length > 0) this.down(0, last, a, b);
    return top;
  }

  /** Empties the heap. */
  clear(): void {
    if (this.removable) for (const item of this.items) (item as HeapSlot).heapIndex = -1;
    this.items.length = 0;
    this.as.length = 0;
    this.bs.length = 0;
  }

  /** Whether `item` is in the heap (removable heaps only). */
  has(item: T): boolean {
    const i = (item as HeapSlot).heapIndex;
    return i >= 0 && this.items[i] === item;
  }

  /** Takes an item out before its turn (removable heaps only). False if it is not in. */
  remove(item: T): boolean {
    const items = this.items;
    const i = (item as HeapSlot).heapIndex;
    if (!(i >= 0) || items[i] !== item) return false;
    (item as HeapSlot).heapIndex = -1;
    const last = items.pop() as T;
    const a = this.as.pop() as number;
    const b = this.bs.pop() as number;
    if (i < items.length) this.sift(i, last, a, b);
    return true;
  }

  /** Gives `item` the keys (a, b): moves it, or puts it in (removable heaps only). */
  update(item: T, a: number, b: number): void {
    const i = (item as HeapSlot).heapIndex;
    if (i >= 0 && this.items[i] === item) this.sift(i, item, a, b);
    else this.insert(item, a, b);
  }

  /** Puts `item` (keys a, b) at slot i, then up or down to where its keys belong. */
  private sift(i: number, item: T, a: number, b: number): void {
    const p = (i - 1) >> 1;
    if (i > 0 && (a < this.as[p] || (a === this.as[p] && b < this.bs[p]))) this.up(i, item, a, b);
    else this.down(i, item, a, b);
  }

  /** Puts `item` (keys a, b) at slot i or above. */
  private up(i: number, item: T, a: number, b: number): void {
    const items = this.items;
    const as = this.as;
    const bs = this.bs;
    const removable = this.removable;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pa = as[p];
      if (pa < a || (pa === a && bs[p] < b)) break;
      const q = items[p];
      items[i] = q;
      as[i] = pa;
      bs[i] = bs[p];
      if (removable) (q as HeapSlot).heapIndex = i;
      i = p;
    }
    items[i] = item;
    as[i] = a;
    bs[i] = b;
    if (removable) (item as HeapSlot).heapIndex = i;
  }

  /** Puts `item` (keys a, b) at slot i or below. */
  private down(i: number, item: T, a: number, b: number): void {
    const items = this.items;
    const as = this.as;
    const bs = this.bs;
    const removable = this.removable;
    const m = items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= m) break;
      let c = l;
      let ca = as[l];
      let cb = bs[l];
      const r = l + 1;
      if (r < m && (as[r] < ca || (as[r] === ca && bs[r] < cb))) {
        c = r;
        ca = as[r];
        cb = bs[r];
      }
      if (a < ca || (a === ca && b < cb)) break;
      const ci = items[c];
      items[i] = ci;
      as[i] = ca;
      bs[i] = cb;
      if (removable) (ci as HeapSlot).heapIndex = i;
      i = c;
    }
    items[i] = item;
    as[i] = a;
    bs[i] = b;
    if (removable) (item as HeapSlot).heapIndex = i;
  }
}

export interface SimEvent {
  /** Virtual time, ms. */
  readonly t: number;
  /** Tie-breaker: scheduling order. */
  readonly seq: number;
  /** The event's slot, kept by the queue (-1 once out of it). */
  heapIndex?: number;
}

/**
 * The future-event list: events by (time, sequence number), removable. An event's time and
 * sequence number must not change while it is queued.
 */
export class EventQueue<E extends SimEvent> extends KeyedHeap<E> {
  constructor() {
    super({ removable: true });
  }

  /** Queues `e` at its time and sequence number. */
  push(e: E): void {
    this.insert(e, e.t, e.seq);
  }
}

/**
 * Min-heap under `less` (a strict total order). Each element may be in at most one IndexedHeap
 * at a time because the slot lives on the element; pass `slot` accessors to use another field.
 */
export class IndexedHeap<T> {
  readonly items: T[] = objectList<T>();

  constructor(
    private readonly less: (a: T, b: T) => boolean,
    private readonly getIdx: (x: T) => number,
    private readonly setIdx: (x: T, i: number) => void,
  ) {}

  get size(): number {
    return this.items.length;
  }

  has(x: T): boolean {
    const i = this.getIdx(x);
    return i >= 0 && i < this.items.length && this.items[i] === x;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(x: T): void {
    this.items.push(x);
    this.up(this.items.length - 1, x);
  }

  pop(): T | undefined {
    const a = this.items;
    if (a.length === 0) return undefined;
    const top = a[0];
    this.removeAt(0);
    return top;
  }

  remove(x: T): void {
    if (this.has(x)) this.removeAt(this.getIdx(x));
  }

  /** Restores heap order after `x`'s key changed (or inserts it if absent). */
  update(x: T): void {
    if (!this.has(x)) {
      this.push(x);
      return;
    }
    const i = this.getIdx(x);
    if (i > 0 && this.less(x, this.items[(i - 1) >> 1])) this.up(i, x);
    else this.down(i, x);
  }

  /** Rebuilds from scratch (after a change of ordering rule). */
  rebuild(xs: Iterable<T>): void {
    for (const x of this.items) this.setIdx(x, -1);
    this.items.length = 0;
    for (const x of xs) this.items.push(x);
    for (let i = 0; i < this.items.length; i++) this.setIdx(this.items[i], i);
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.down(i, this.items[i]);
  }

  /** Re-heapifies in place (after many keys changed). */
  reorder(): void {
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.down(i, this.items[i]);
  }

  /**
   * The first element in heap order satisfying `pred`, visiting elements in ascending order
   * (best-first walk over the heap tree), so the answer is the true minimum among those that
   * satisfy it. Costs O(k log k) for k elements visited.
   */
  findFirst(pred: (x: T) => boolean): T | undefined {
    const a = this.items;
    const less = this.less;
    const i = firstInHeapOrder(
      a.length,
      (x, y) => less(a[x], a[y]),
      (x) => pred(a[x]),
    );
    return i < 0 ? undefined : a[i];
  }

  private removeAt(i: number): void {
    const a = this.items;
    const x = a[i];
    const last = a.pop() as T;
    this.setIdx(x, -1);
    if (i < a.length) {
      a[i] = last;
      this.setIdx(last, i);
      if (i > 0 && this.less(last, a[(i - 1) >> 1])) this.up(i, last);
      else this.down(i, last);
    }
  }

  private up(i: number, x: T): void {
    const a = this.items;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const q = a[p];
      if (!this.less(x, q)) break;
      a[i] = q;
      this.setIdx(q, i);
      i = p;
    }
    a[i] = x;
    this.setIdx(x, i);
  }

  private down(i: number, x: T): void {
    const a = this.items;
    const n = a.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let c = l;
      if (l + 1 < n && this.less(a[l + 1], a[l])) c = l + 1;
      if (!this.less(a[c], x)) break;
      a[i] = a[c];
      this.setIdx(a[c], i);
      i = c;
    }
    a[i] = x;
    this.setIdx(x, i);
  }
}

/**
 * The least slot, in heap order, of a binary heap of `size` slots that satisfies `pred` (-1 when
 * none does): a best-first walk over the heap tree whose frontier is itself a small heap of
 * slots, so it costs O(k log k) for k slots visited. `before(i, j)`: slot i's key is less.
 */
export function firstInHeapOrder(size: number, before: (i: number, j: number) => boolean, pred: (i: number) => boolean): number {
  if (size === 0) return -1;
  if (pred(0)) return 0;
  const f: number[] = [];
  const pushF = (i: number): void => {
    if (i >= size) return;
    let k = f.length;
    f.push(i);
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (!before(i, f[p])) break;
      f[k] = f[p];
      k = p;
    }
    f[k] = i;
  };
  const popF = (): number => {
    const top = f[0];
    const last = f.pop() as number;
    const m = f.length;
    if (m > 0) {
      let k = 0;
      for (;;) {
        const l = 2 * k + 1;
        if (l >= m) break;
        let c = l;
        if (l + 1 < m && before(f[l + 1], f[l])) c = l + 1;
        if (!before(f[c], last)) break;
        f[k] = f[c];
        k = c;
      }
      f[k] = last;
    }
    return top;
  };
  pushF(1);
  pushF(2);
  while (f.length > 0) {
    const i = popF();
    if (pred(i)) return i;
    pushF(2 * i + 1);
    pushF(2 * i + 2);
  }
  return -1;
}
