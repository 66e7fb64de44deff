/**
 * The one contract between the scheduling core and whatever runs the cluster (YuniKorn's
 * "shim" idea): the YARN backend and the simulator both implement it, and one conformance
 * suite (test/conformance) runs against both.
 */
import type { Action } from './actions.js';
import type { ClusterSnapshot, SnapshotPart } from './model.js';
import type { WorkflowRequest } from './rsl.js';

/** Version of this contract; bumped on any incompatible change to snapshot or actions. */
export const BACKEND_CONTRACT_VERSION = 1;

export type ApplyOutcome =
  /** The backend carried the action out. */
  | { readonly status: 'applied'; readonly detail?: string }
  /** The cluster already was as asked; nothing was sent. */
  | { readonly status: 'noop'; readonly detail: string }
  /** The backend refused or failed; the cluster is unchanged by this action. */
  | { readonly status: 'failed'; readonly error: string; readonly retryable: boolean };

export interface Capabilities {
  /** Can the backend change queue capacities (false: read-only scheduler conf → advisory). */
  readonly queueWrites: boolean;
  /** Can it suspend/resume containers (needs the NodeManager shim). */
  readonly containerSuspend: boolean;
  /** Does it honour rankNodes (needs the RM node-ordering plugin). */
  readonly nodeRanking: boolean;
  /**
   * How long the cluster keeps a published ranking before it falls back to its own order
   * (absent: until replaced). The engine sends an unchanged ranking again before it lapses.
   */
  readonly rankingTtlMs?: number;
  /** Human-readable reasons for each missing capability. */
  readonly notes: readonly string[];
}

/** What a caller of `snapshot()` asks for beyond the cluster itself. */
export interface SnapshotOptions {
  /**
   * The `changeMark` of the snapshot the caller's policy state was last built from: the change
   * sets (`changedNodeIds`, `changedAppIds`) are then relative to it. Absent, or a mark the
   * backend no longer knows: the change sets are left out (everything may have changed).
   */
  readonly changesSince?: number;
  /**
   * Read at least these parts (core/model.ts `SnapshotPart`, with those they bring), besides the
   * queue tree and the total capacity; undefined: everything. A backend may read more (the
   * simulator always has all of it); the snapshot's `parts` says what it holds.
   */
  readonly parts?: readonly SnapshotPart[];
}

/** A reservation the cluster's own reservation system (YARN's Rayon) accepted. */
export interface NativeReservation {
  readonly reservationId: string;
  /** Where the reservation's jobs are submitted (with its id). */
  readonly queue: string;
  readonly arrivalMs: number;
  readonly deadlineMs: number;
  /** What the cluster's agent placed: [fromMs, toMs) blocks with the resources held. */
  readonly allocations: readonly { readonly fromMs: number; readonly toMs: number; readonly memoryMB: number; readonly vcores: number }[];
}

/**
 * The cluster's own reservation system, where it has one the operator enabled. `reserve` throws
 * `ReservationRefusedError` (core/errors) with the cluster's reason when the workflow does not fit.
 */
export interface ReservationSystem {
  readonly queue: string;
  reserve(w: WorkflowRequest, name: string, nowMs: number): Promise<NativeReservation>;
  list(): Promise<NativeReservation[]>;
  delete(reservationId: string): Promise<void>;
}

export interface ClusterBackend {
  readonly name: string;
  /** Present when the cluster runs its own reservation system (the `rayon` baseline live). */
  readonly reservations?: ReservationSystem;
  /** Reads the whole cluster. Throws RmUnavailableError when it cannot. */
  snapshot(opts?: SnapshotOptions): Promise<ClusterSnapshot>;
  apply(action: Action): Promise<ApplyOutcome>;
  capabilities(): Promise<Capabilities>;
  /**
   * What the backend keeps that an operator may need to see (`GET /v1/state`): recorded physical
   * capacities, over-committed nodes, the published ranking. Plain JSON.
   */
  describeState?(): Promise<Record<string, unknown>>;
}
