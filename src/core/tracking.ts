/**
 * Change tracking, a service of the runtime (the simulator, the engine) that policies use through
 * `PolicyInput.tracking`: the ordered structures a cycle needs in order to cost what changed
 * rather than the cluster size (due wake-ups, running totals), kept between cycles by the runtime
 * and never persisted. What changed since the last cycle is in the snapshot (`changedNodeIds`,
 * `changedAppIds`); the service keeps what the policy built from earlier ones.
 *
 * The structures belong to one state: a policy asks `follows(state)` first; when it answers false
 * (the first cycle, a state loaded from the store, a copy, a cycle the engine discarded) the
 * service has emptied itself and the policy rebuilds them from its state; at the end of a cycle
 * the policy hands them over with the state it returns (`handOver`).
 */
import type { NodeId } from './model.js';

/** Where `WakeIndex.takeDue` lists nodes. */
export interface NodeSink {
  push(node: NodeId): void;
}

/** Due wake-ups, one per node, earliest first. */
export interface WakeIndex {
  /** The node wants a cycle at `atMs` (replacing the wake-up it had). */
  schedule(node: NodeId, atMs: number): void;
  /** The node wants no wake-up. */
  forget(node: NodeId): void;
  /** Lists into `into` every node whose wake-up is at `nowMs` or earlier, and forgets those wake-ups. */
  takeDue(nowMs: number, into: NodeSink): void;
  /** The earliest wake-up of any node; undefined when none. */
  earliest(): number | undefined;
}

/** A name for a structure a policy keeps in the service, and its type. */
export interface KeptKey<T> {
  readonly name: string;
  /** Never set: carries the type. */
  readonly type?: T;
}

/** Names a kept structure of type T. */
export const keptKey = <T>(name: string): KeptKey<T> => ({ name });

export interface ChangeTracking {
  /** True when the structures were handed over with this very state; false: they are empty now, rebuild them. */
  follows(state: object): boolean;
  /** The structures now go with `state` (the state the cycle returns). */
  handOver(state: object): void;
  readonly wakes: WakeIndex;
  /** A structure the policy keeps here (running totals and the like): undefined until kept, and after `follows` answered false. */
  kept<T>(key: KeptKey<T>): T | undefined;
  keep<T>(key: KeptKey<T>, value: T | undefined): void;
  /**
   * The entry `key` of the state's dictionary `field` (one of the policy's `stateEntries`) is about
   * to be changed in place, added or deleted: returns the entry to change, which the engine makes a
   * copy of first (a cycle it discards leaves the state it passed as it was), and notes the key so
   * that only the entries a cycle changed are saved.
   */
  changing<E>(field: string, entries: Record<string, E>, key: string): E | undefined;
}

/** The tracking a policy that needs one was given (the engine and the simulator always give one). */
export function trackingOf(input: { readonly tracking?: ChangeTracking }, policy: string): ChangeTracking {
  if (input.tracking === undefined) throw new Error(`${policy} needs the runtime's change tracking (PolicyInput.tracking)`);
  return input.tracking;
}
