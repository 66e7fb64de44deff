/**
 * What the YARN backend needs from the Java shim (yarn-adapter/…/shim): per-container CPU
 * accounting and suspend/resume on the NodeManagers, and a node ranking the RM's placement
 * plugin honours. The HTTP implementation lives in shim-client.ts; the JSON on the wire is
 * described by yarn-adapter/src/main/resources/schedbrain-shim-contract.json, shared by both sides.
 */
import type { Resources } from '../core/resources.js';

export interface ShimContainer {
  readonly containerId: string;
  readonly nodeId: string;
  readonly state: 'RUNNING' | 'SUSPENDED';
  /** CPU time (user + system) the container's processes have consumed, in ms. */
  readonly attainedServiceMs: number;
  /** When the shim last started or resumed it, epoch ms. */
  readonly runningSinceMs: number;
  /**
   * What the RM allocated to it, from the NodeManager (contract 5; absent from an older shim):
   * with it, the shims' lists stand in for the RM's per-application container reads.
   */
  readonly allocated?: Resources;
  /** The RM's creation time of the container (its REST `startedTime`), from the container token. */
  readonly createdAtMs?: number;
  /** The container token says APPLICATION_MASTER. */
  readonly appMaster?: boolean;
}

/** One node shim's containers and the nodes it serves. */
export interface NodeShimListing {
  readonly nodes: readonly string[];
  readonly containers: readonly ShimContainer[];
}

export interface RankingPublication {
  /** Ascending score = preferred. */
  readonly scores: Readonly<Record<string, number>>;
  readonly leastLoadedFirst: boolean;
  /** The plugin falls back to the stock order when the ranking is older than this. */
  readonly ttlMs: number;
}

export interface NodeShim {
  /** Containers the shims know about, across all nodes. Throws RmUnavailableError if unreachable. */
  containers(): Promise<ShimContainer[]>;
  /** The node shims' base URLs, for reading them one at a time (`nodeShimContainers`). */
  nodeShimUrls?(): readonly string[];
  /** One node shim's containers, with their allocation where the shim tells it. Throws RmUnavailableError if unreachable. */
  nodeShimContainers?(url: string): Promise<NodeShimListing>;
  suspend(nodeId: string, containerId: string): Promise<void>;
  resume(nodeId: string, containerId: string): Promise<void>;
  /** Renews the brain's lease on every shim (the watchdog resumes everything when it lapses). */
  renewLease(ttlMs: number): Promise<void>;
  publishRanking(ranking: RankingPublication): Promise<void>;
  /** Gives the lease up at once: the shims resume what they suspended. Returns the resumed ids. */
  releaseLease?(): Promise<string[]>;
  /**
   * Each node's resources as its NodeManager is configured, whatever the RM advertises now (a
   * previous brain may have over-committed it). Nodes the shims cannot tell are absent.
   */
  configuredResources?(): Promise<Map<string, Resources>>;
}
