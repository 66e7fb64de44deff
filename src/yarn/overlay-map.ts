/**
 * A read-only map made of an earlier map and the entries changed since: what a snapshot's
 * containers map is between two refreshes where few applications changed. Building a new Map of
 * 200,000 containers at every refresh was most of what a refresh cost on the event loop; the
 * earlier snapshot's map stays as it was (snapshots are immutable), and the next one reads
 * through to it. Overlays never stack: the next one starts from the same base with the changes
 * merged, and `flatten` makes a plain Map once the changes grow past a share of the base.
 */
export class OverlayMap<V> implements ReadonlyMap<string, V> {
  readonly size: number;

  private constructor(
    /** A plain map, never changed after it becomes a base. */
    private readonly base: ReadonlyMap<string, V>,
    /** Entries set since the base (new or replaced); disjoint from `removed`. */
    private readonly changed: ReadonlyMap<string, V>,
    /** Keys of the base deleted since. */
    private readonly removed: ReadonlySet<string>,
  ) {
    let added = 0;
    for (const k of changed.keys()) if (!base.has(k)) added++;
    this.size = base.size - removed.size + added;
  }

  /** `from` with the keys in `deletes` gone and the entries of `sets` set (deletes first). */
  static update<V>(from: ReadonlyMap<string, V>, deletes: Iterable<string>, sets: Iterable<readonly [string, V]>): OverlayMap<V> {
    const base = from instanceof OverlayMap ? (from as OverlayMap<V>).base : from;
    const changed = new Map(from instanceof OverlayMap ? (from as OverlayMap<V>).changed : undefined);
    const removed = new Set(from instanceof OverlayMap ? (from as OverlayMap<V>).removed : undefined);
    for (const k of deletes) {
      changed.delete(k);
      if (base.has(k)) removed.add(k);
    }
    for (const [k, v] of sets) {
      removed.delete(k);
      changed.set(k, v);
    }
    return new OverlayMap(base, changed, removed);
  }

  /** How many entries it holds apart from its base (a plain map: none). */
  static drift(m: ReadonlyMap<string, unknown>): number {
    return m instanceof OverlayMap ? (m as OverlayMap<unknown>).changed.size + (m as OverlayMap<unknown>).removed.size : 0;
  }

  get(key: string): V | undefined {
    const v = this.changed.get(key);
    if (v !== undefined || this.changed.has(key)) return v;
    return this.removed.has(key) ? undefined : this.base.get(key);
  }

  has(key: string): boolean {
    return this.changed.has(key) || (!this.removed.has(key) && this.base.has(key));
  }

  *entries(): MapIterator<[string, V]> {
    for (const e of this.base) if (!this.removed.has(e[0]) && !this.changed.has(e[0])) yield e;
    yield* this.changed;
  }

  *keys(): MapIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): MapIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  forEach(fn: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'OverlayMap';
  }
}
