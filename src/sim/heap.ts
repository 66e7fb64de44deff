/**
 * Binary heaps used by the simulator.
 *
 * - `EventQueue`: the future-event list. Ordered by (time, sequence number): events at the same
 *   virtual time come out in the order they were scheduled, so a run is fully deterministic.
 * - `IndexedHeap`: a min-heap of objects that remember their own position, so that an element's
 *   key can change (or the element can be removed) in O(log n). Used for pending-application
 *   orderings (the candidate-node order keeps its own keyed heap, `node-order.ts`).
 * - `firstInHeapOrder`: the least slot of a binary heap that satisfies a predicate.
 */

export interface SimEvent {
  /** Virtual time, ms. */
  readonly t: number;
  /** Tie-breaker: scheduling order. */
  readonly seq: number;
  /** Position in the queue, kept by the queue (-1 once out of it), so it can be removed. */
  qi?: number;
}

export class EventQueue<E extends SimEvent> {
  private readonly a: E[] = [];
  // The keys of a[i], kept beside it: comparisons read these two contiguous arrays instead of
  // reaching every event on the path (a replay moves events millions of times). An event's time
  // and sequence number must not change while it is queued.
  private readonly ts: number[] = [];
  private readonly ss: number[] = [];

  get size(): number {
    return this.a.length;
  }

  peek(): E | undefined {
    return this.a[0];
  }

  push(e: E): void {
    this.a.push(e);
    this.ts.push(e.t);
    this.ss.push(e.seq);
    this.up(this.a.length - 1, e, e.t, e.seq);
  }

  pop(): E | undefined {
    const a = this.a;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop() as E;
    const t = this.ts.pop() as number;
    const s = this.ss.pop() as number;
    top.qi = -1;
    if (a.length > 0) this.down(0, last, t, s);
    return top;
  }

  /** Takes an event out before its time (e.g. one that no longer applies). False if not queued. */
  remove(e: E): boolean {
    const a = this.a;
    const i = e.qi ?? -1;
    if (i < 0 || a[i] !== e) return false;
    e.qi = -1;
    const last = a.pop() as E;
    const t = this.ts.pop() as number;
    const s = this.ss.pop() as number;
    if (i < a.length) {
      const p = (i - 1) >> 1;
      if (i > 0 && (t < this.ts[p] || (t === this.ts[p] && s < this.ss[p]))) this.up(i, last, t, s);
      else this.down(i, last, t, s);
    }
    return true;
  }

  /** Puts `e` (keys t, s) at slot i or above. */
  private up(i: number, e: E, t: number, s: number): void {
    const a = this.a;
    const ts = this.ts;
    const ss = this.ss;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = ts[p];
      if (pt < t || (pt === t && ss[p] < s)) break;
      const q = a[p];
      a[i] = q;
      ts[i] = pt;
      ss[i] = ss[p];
      q.qi = i;
      i = p;
    }
    a[i] = e;
    ts[i] = t;
    ss[i] = s;
    e.qi = i;
  }

  /** Puts `e` (keys t, s) at slot i or below. */
  private down(i: number, e: E, t: number, s: number): void {
    const a = this.a;
    const ts = this.ts;
    const ss = this.ss;
    const m = a.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= m) break;
      let c = l;
      let ct = ts[l];
      let cs = ss[l];
      const r = l + 1;
      if (r < m && (ts[r] < ct || (ts[r] === ct && ss[r] < cs))) {
        c = r;
        ct = ts[r];
        cs = ss[r];
      }
      if (t < ct || (t === ct && s < cs)) break;
      const ce = a[c];
      a[i] = ce;
      ts[i] = ct;
      ss[i] = cs;
      ce.qi = i;
      i = c;
    }
    a[i] = e;
    ts[i] = t;
    ss[i] = s;
    e.qi = i;
  }
}

/** Elements of an IndexedHeap carry their slot; -1 means "not in the heap". */
export interface HeapSlot {
  heapIndex: number;
}

/**
 * Min-heap under `less` (a strict total order). Each element may be in at most one IndexedHeap
 * at a time because the slot lives on the element; pass `slot` accessors to use another field.
 */
export class IndexedHeap<T> {
  readonly items: T[] = [];

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
    const i = firstInHeapOrder(a.length, (x, y) => less(a[x], a[y]), (x) => pred(a[x]));
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
