/**
 * The cluster as a policy sees it. Both backends produce this shape: the YARN backend builds it
 * from the ResourceManager REST API (plus the NodeManager shim), the simulator exposes its own
 * state through it. A policy cannot tell which one it is looking at.
 *
 * Conventions:
 * - times are epoch milliseconds (`...Ms`), durations are milliseconds (`...Ms`);
 * - percentages are 0–100, as YARN reports them (`...Pct`);
 * - every collection is read-only: a policy never mutates the snapshot, it returns actions.
 * - The simulator hands out live views for speed; a policy must not keep references to snapshot
 *   objects across cycles (copy what it needs into its state).
 */
import type { Resources } from './resources.js';

export type NodeId = string;
export type AppId = string;
export type ContainerId = string;
/** Full queue path, e.g. `root.default` (CapacityScheduler style). */
export type QueuePath = string;

export type NodeState = 'RUNNING' | 'UNHEALTHY' | 'DECOMMISSIONING' | 'DECOMMISSIONED' | 'LOST' | 'NEW' | 'REBOOTED' | 'SHUTDOWN';

export interface NodeView {
  readonly id: NodeId;
  readonly state: NodeState;
  readonly rack: string;
  /** Capacity the RM currently advertises for the node (after any over-commit). */
  readonly capacity: Resources;
  /** Physical capacity before any over-commit by the brain (equals `capacity` when untouched). */
  readonly physicalCapacity: Resources;
  readonly used: Resources;
  /** Containers allocated on the node, running or suspended. */
  readonly containerIds: readonly ContainerId[];
  /**
   * The same containers' views, in the same order, when the backend holds them at hand (the
   * simulator does); otherwise they are looked up in `ClusterSnapshot.containers` (`containerAt` does either).
   */
  readonly containers?: readonly ContainerView[];
}

export type ContainerState = 'RUNNING' | 'SUSPENDED';

export interface ContainerView {
  readonly id: ContainerId;
  readonly appId: AppId;
  readonly nodeId: NodeId;
  readonly resource: Resources;
  readonly state: ContainerState;
  /** When the container was allocated. */
  readonly startedAtMs: number;
  /**
   * CPU service the container has received so far (kernel accounting through the NodeManager
   * shim, or the simulator's exact figure). Undefined when no source knows it.
   */
  readonly attainedServiceMs?: number;
  /** When the container last went from SUSPENDED to RUNNING (or started). */
  readonly runningSinceMs?: number;
  /**
   * True for the application's master container (YARN's ApplicationMaster) rather than one of its
   * tasks: it holds resources but is not work to schedule, and policies leave it running (a
   * suspended AM stops heartbeating and the RM fails the attempt). Undefined: a task.
   */
  readonly appMaster?: boolean;
}

export type AppState = 'NEW' | 'NEW_SAVING' | 'SUBMITTED' | 'ACCEPTED' | 'RUNNING' | 'FINISHED' | 'FAILED' | 'KILLED';

export interface AppView {
  readonly id: AppId;
  readonly name: string;
  readonly user: string;
  readonly queue: QueuePath;
  readonly state: AppState;
  readonly priority: number;
  readonly submittedAtMs: number;
  readonly startedAtMs?: number;
  /** Containers the app is still asking for (sum of outstanding resource requests). */
  readonly pendingContainers: number;
  /** Resource of one pending container (the largest outstanding request), if any is pending. */
  readonly pendingContainerResource?: Resources;
  readonly runningContainers: number;
  readonly allocated: Resources;
  /**
   * Application tags as key=value (YARN application tags; the simulator sets them from the
   * workload). Policies read hints such as `schedbrain.estimate-ms` from here.
   */
  readonly tags: Readonly<Record<string, string>>;
}

export type QueueState = 'RUNNING' | 'STOPPED' | 'DRAINING';

export interface QueueView {
  readonly path: QueuePath;
  readonly name: string;
  readonly state: QueueState;
  /** Capacity guaranteed relative to the parent, 0–100. */
  readonly capacityPct: number;
  /** The configured guarantee when the queue is in absolute-resource mode (`capacityPct` is then derived). */
  readonly capacityResource?: Resources;
  /** Maximum capacity relative to the parent, 0–100. */
  readonly maxCapacityPct: number;
  /** Capacity relative to the whole cluster, 0–100. */
  readonly absoluteCapacityPct: number;
  readonly absoluteMaxCapacityPct: number;
  /** Share of its own guaranteed capacity in use (can exceed 100 when elastic). */
  readonly usedCapacityPct: number;
  readonly used: Resources;
  readonly numApplications: number;
  readonly children: readonly QueueView[];
}

/**
 * What a snapshot holds besides the queue tree and the total capacity (always there): the nodes,
 * the applications, the containers (on their nodes, of their applications: it brings both).
 */
export type SnapshotPart = 'nodes' | 'apps' | 'containers';
export const SNAPSHOT_PARTS: readonly SnapshotPart[] = ['nodes', 'apps', 'containers'];

/** The parts `parts` names with those they bring (`containers`: nodes and apps); undefined: all. */
export function partsWith(parts: readonly SnapshotPart[] | undefined): ReadonlySet<SnapshotPart> {
  if (parts === undefined) return new Set(SNAPSHOT_PARTS);
  const out = new Set(parts);
  if (out.has('containers')) out.add('nodes').add('apps');
  return out;
}

/** Both parts' lists together; undefined (everything) when either is. */
export function unionParts(a: readonly SnapshotPart[] | undefined, b: readonly SnapshotPart[] | undefined): SnapshotPart[] | undefined {
  return a === undefined || b === undefined ? undefined : [...new Set([...a, ...b])];
}

/** The snapshot holds the parts `parts` names (with those they bring). */
export function covers(snapshot: ClusterSnapshot, parts: readonly SnapshotPart[] | undefined): boolean {
  if (snapshot.parts === undefined) return true;
  const have = partsWith(snapshot.parts);
  for (const p of partsWith(parts)) if (!have.has(p)) return false;
  return true;
}

export interface ClusterSnapshot {
  /** When the snapshot was taken (virtual time in the simulator). */
  readonly nowMs: number;
  /**
   * The parts read (`partsWith`); undefined: all. A part not read is empty (no nodes, apps or
   * containers), not absent from the cluster.
   */
  readonly parts?: readonly SnapshotPart[];
  /** Sum of RUNNING nodes' capacities. */
  readonly totalCapacity: Resources;
  readonly nodes: ReadonlyMap<NodeId, NodeView>;
  readonly apps: ReadonlyMap<AppId, AppView>;
  readonly containers: ReadonlyMap<ContainerId, ContainerView>;
  /** Queue tree root (`root`). */
  readonly rootQueue: QueueView;
  /**
   * Nodes whose containers changed since the previous snapshot handed to this policy, other
   * than by this policy's own suspends and resumes that were applied as asked (a container
   * started, ended, or was suspended or resumed by anyone else; a node's capacity or state
   * changed, or the node left).
   * Undefined means "assume everything changed" (the YARN backend says so unless asked for
   * changes since a snapshot it still knows, `SnapshotOptions.changesSince`).
   * The simulator uses it so per-node rules do not rescan thousands of idle nodes per event.
   */
  readonly changedNodeIds?: ReadonlySet<NodeId>;
  /**
   * Applications that arrived, changed in any field (state, priority, queue, allocation, pending
   * requests) or left the snapshot since the previous snapshot handed to this policy, whoever
   * changed them (this policy's own actions included). Undefined means "assume every
   * application changed" (the YARN backend: as for `changedNodeIds`). With it, a policy that keeps totals
   * over applications updates them for these alone instead of walking every queued application
   * at every event.
   */
  readonly changedAppIds?: ReadonlySet<AppId>;
  /**
   * Names this snapshot for a later `snapshot({ changesSince })` (the YARN backend: change sets
   * relative to the snapshot the caller's state came from, whatever was read in between).
   * Undefined when the backend does not say (the simulator's live view, built snapshots).
   */
  readonly changeMark?: number;
}

/**
 * The item of `list` whose id is `id`. Ids on one node share their length and most characters, so
 * the last character rules most of them out before a whole-string comparison.
 */
export function findById<T extends { readonly id: string }>(list: readonly T[], id: string): T | undefined {
  if (id.length === 0) return undefined;
  const last = id.length - 1;
  const lastChar = id.charCodeAt(last);
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (item.id.charCodeAt(last) === lastChar && item.id === id) return item;
  }
  return undefined;
}

/** The node's `i`-th container: its view at hand, else looked up in the snapshot. */
export function containerAt(snapshot: ClusterSnapshot, node: NodeView, i: number): ContainerView | undefined {
  return node.containers !== undefined ? node.containers[i] : snapshot.containers.get(node.containerIds[i]);
}

export function* walkQueues(q: QueueView): Generator<QueueView> {
  yield q;
  for (const c of q.children) yield* walkQueues(c);
}

export function findQueue(root: QueueView, path: QueuePath): QueueView | undefined {
  for (const q of walkQueues(root)) if (q.path === path) return q;
  return undefined;
}

export function leafQueues(root: QueueView): QueueView[] {
  return [...walkQueues(root)].filter((q) => q.children.length === 0);
}

/** Apps that are alive from the scheduler's point of view. */
export function isActiveApp(app: AppView): boolean {
  return app.state === 'ACCEPTED' || app.state === 'RUNNING' || app.state === 'SUBMITTED';
}
