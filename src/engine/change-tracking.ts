/**
 * The runtime's change-tracking service (`ChangeTracking`, src/core/tracking.ts): one per run of a
 * policy, owned by the simulator (for a replay) or by the engine (for the live loop), handed to
 * the policy with every snapshot, never persisted. Policies write it (wake-ups, kept totals) and
 * read it back at the next cycle; a state it was not handed over with empties it, and the policy
 * rebuilds it from that state.
 */
import { KeyedHeap } from '../core/heap.js';
import type { NodeId } from '../core/model.js';
import { copyStateFor, type AnyPolicy } from '../core/policy.js';
import type { ChangeTracking, KeptKey, NodeSink, WakeIndex } from '../core/tracking.js';
import { numberList, objectList } from '../core/lists.js';

/**
 * Due wake-ups in two parts: a queue of items pushed in time order, and a binary min-heap on
 * (time, node number) for the others. Most wake-ups are a quantum's end, set in time order, so most
 * take the queue's one-step path. Items are not removed when a node's wake-up moves: an item whose
 * time is no longer its node's wake-up is dropped when it comes up.
 */
export class NodeWakes implements WakeIndex {
  /** Node number by id, and id by number. */
  private readonly numbers = new Map<NodeId, number>();
  private readonly ids: NodeId[] = objectList<NodeId>();
  /** The wake-up of node number o (NaN: none). */
  private readonly wakeOf: number[] = numberList();
  /** Node numbers by (time, node number): ties come out in the order of first wake-up. */
  private readonly heap = new KeyedHeap<number>();
  /** The queue: items head .. end, times never decreasing; room past `end` is reused. */
  private readonly queueTimes: number[] = numberList();
  private readonly queueNums: number[] = [];
  private head = 0;
  private end = 0;

  schedule(node: NodeId, atMs: number): void {
    let o = this.numbers.get(node);
    if (o === undefined) {
      o = this.ids.length;
      this.numbers.set(node, o);
      this.ids.push(node);
      this.wakeOf.push(NaN);
    } else if (this.wakeOf[o] === atMs) return;
    this.wakeOf[o] = atMs;
    const end = this.end;
    if (end === this.head || atMs >= this.queueTimes[end - 1]) {
      this.queueTimes[end] = atMs;
      this.queueNums[end] = o;
      this.end = end + 1;
    } else this.heap.insert(o, atMs, o);
  }

  forget(node: NodeId): void {
    const o = this.numbers.get(node);
    if (o !== undefined) this.wakeOf[o] = NaN;
  }

  takeDue(nowMs: number, into: NodeSink): void {
    this.take(nowMs, into);
  }

  earliest(): number | undefined {
    // Drops the items that no longer hold, up to the first that does in each part.
    this.take(-Infinity, undefined);
    const t = Math.min(this.heap.peekKey() ?? Infinity, this.head < this.end ? this.queueTimes[this.head] : Infinity);
    return t < Infinity ? t : undefined;
  }

  /** Empties the index (node numbers are kept). */
  clear(): void {
    this.wakeOf.fill(NaN);
    this.heap.clear();
    this.head = 0;
    this.end = 0;
  }

  /**
   * Takes every item of time `upTo` or earlier, listing the node of each whose wake-up has come
   * (and forgetting that wake-up), then the items that no longer hold up to the first that does.
   */
  private take(upTo: number, into: NodeSink | undefined): void {
    const wakes = this.wakeOf;
    const qt = this.queueTimes;
    const qn = this.queueNums;
    let head = this.head;
    for (; head < this.end; head++) {
      const t = qt[head];
      const o = qn[head];
      const wake = wakes[o];
      if (t <= upTo) {
        if (wake <= upTo) {
          into?.push(this.ids[o]);
          wakes[o] = NaN;
        }
      } else if (wake === t) break;
    }
    this.head = head;
    this.tidyQueue();
    const heap = this.heap;
    while (heap.size > 0) {
      const t = heap.peekKey() as number;
      const o = heap.peek() as number;
      const wake = wakes[o];
      if (t > upTo && wake === t) break;
      if (t <= upTo && wake <= upTo) {
        into?.push(this.ids[o]);
        wakes[o] = NaN;
      }
      heap.pop();
    }
  }

  /** Both ends go back to the start when the queue is empty; the items left move to the front once taken ones are most of it. */
  private tidyQueue(): void {
    const head = this.head;
    const end = this.end;
    if (head === end) {
      this.head = 0;
      this.end = 0;
    } else if (head >= 1024 && head * 2 >= end) {
      const qt = this.queueTimes;
      const qn = this.queueNums;
      for (let i = head; i < end; i++) {
        qt[i - head] = qt[i];
        qn[i - head] = qn[i];
      }
      this.head = 0;
      this.end = end - head;
    }
  }
}

/** The keys of a state's entries one cycle changed, by field of the state. */
export type ChangedEntries = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * What a copy-on-write cycle changed in its state's dictionaries: the keys by field, and the
 * changes themselves, which `adopt` writes into the dictionaries the kept state shares with the
 * cycle's (until then they hold the kept state's entries).
 */
export class CycleEntries {
  private adopted = false;

  constructor(
    readonly changed: ChangedEntries,
    private readonly redo: readonly { entries: Record<string, unknown>; key: string; value: unknown }[],
  ) {}

  /** Writes the cycle's entries (the state the cycle returned becomes whole); the kept state is then gone. */
  adopt(): void {
    if (this.adopted) return;
    this.adopted = true;
    for (const r of this.redo) {
      if (r.value === undefined) delete r.entries[r.key];
      else r.entries[r.key] = r.value;
    }
  }
}

const NO_ENTRIES = new CycleEntries(new Map(), []);

/** The service: wake-ups and kept structures, for the state they were handed over with. */
export class ChangeTracker implements ChangeTracking {
  readonly wakes = new NodeWakes();
  private readonly structures = new Map<string, unknown>();
  private basis: object | undefined;
  /** The engine's cycles copy an entry before it changes and note it; a replay does neither. */
  private copyOnWrite = false;
  private changed = new Map<string, Set<string>>();
  /** Each entry a cycle changed, as it was before (undefined: none), in the order first changed. */
  private undo: { entries: Record<string, unknown>; key: string; value: unknown }[] = [];

  /**
   * The state to hand to `policy.decide` for a cycle whose caller keeps `state` as it is (the
   * engine, until it commits). With `stateEntries`, a copy of the state's fields that shares its
   * dictionaries: `changing` copies an entry before the policy changes it, and `endCycle` puts the
   * kept state's entries back, so the cycle costs what it changed, not the state's size. Otherwise
   * `copyStateFor`'s copy. The structures that went with `state` go with the copy.
   */
  beginCycle<S>(policy: AnyPolicy, state: S): S {
    this.changed = new Map();
    this.undo = [];
    const fields = policy.updatesStateInPlace ? policy.stateEntries : undefined;
    let given: S;
    if (fields === undefined || typeof state !== 'object' || state === null) given = copyStateFor(policy, state);
    else {
      given = { ...state };
      this.copyOnWrite = true;
    }
    this.carry(state, given);
    return given;
  }

  /**
   * Ends the cycle begun by `beginCycle`: the dictionaries hold the kept state's entries again, and
   * the returned changes make the cycle's state whole when adopted.
   */
  endCycle(): CycleEntries {
    if (!this.copyOnWrite) return NO_ENTRIES;
    this.copyOnWrite = false;
    const redo = this.undo.map((u) => ({ entries: u.entries, key: u.key, value: u.entries[u.key] }));
    for (let i = this.undo.length - 1; i >= 0; i--) {
      const u = this.undo[i];
      if (u.value === undefined) delete u.entries[u.key];
      else u.entries[u.key] = u.value;
    }
    this.undo = [];
    return new CycleEntries(this.changed, redo);
  }

  changing<E>(field: string, entries: Record<string, E>, key: string): E | undefined {
    const entry = entries[key];
    if (!this.copyOnWrite) return entry;
    let keys = this.changed.get(field);
    if (keys === undefined) this.changed.set(field, (keys = new Set()));
    if (keys.has(key)) return entry;
    keys.add(key);
    this.undo.push({ entries: entries as Record<string, unknown>, key, value: entry });
    if (entry === undefined) return entry;
    const copy = structuredClone(entry);
    entries[key] = copy;
    return copy;
  }

  follows(state: object): boolean {
    if (state === this.basis) return true;
    this.basis = undefined;
    this.wakes.clear();
    this.structures.clear();
    return false;
  }

  handOver(state: object): void {
    this.basis = state;
  }

  kept<T>(key: KeptKey<T>): T | undefined {
    return this.structures.get(key.name) as T | undefined;
  }

  keep<T>(key: KeptKey<T>, value: T | undefined): void {
    if (value === undefined) this.structures.delete(key.name);
    else this.structures.set(key.name, value);
  }

  /**
   * `copy` goes on from `state` (the engine hands the policy a copy of its state at every cycle):
   * structures that went with `state` now go with the copy. A cycle that is then discarded leaves
   * the engine with `state`, which they no longer go with, so the next cycle rebuilds them.
   */
  carry(state: unknown, copy: unknown): void {
    if (state === this.basis && state !== copy && typeof copy === 'object' && copy !== null) this.basis = copy;
  }
}
