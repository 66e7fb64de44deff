/**
 * The YARN implementation of ClusterBackend: snapshots come from the ResourceManager REST API
 * (plus the NodeManager shim for CPU accounting and suspension), actions go back through the
 * RM's own knobs (scheduler-conf, app priority/queue/state, node resource, container signals)
 * or the shim (suspend/resume, node ranking).
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import { describeAction, type Action, type ActionOf } from '../core/actions.js';
import type { ApplyOutcome, Capabilities, ClusterBackend, SnapshotOptions } from '../core/backend.js';
import { ReadOnlySchedulerConfError, RmProtocolError, RmRejectedError, RmUnavailableError, SchedbrainError, UnsupportedActionError } from '../core/errors.js';
import {
  findQueue,
  partsWith,
  SNAPSHOT_PARTS,
  type AppState,
  type AppView,
  type ClusterSnapshot,
  type ContainerView,
  type NodeState,
  type NodeView,
  type QueueState,
  type QueueView,
} from '../core/model.js';
import { equals, sum, ZERO, type Resources } from '../core/resources.js';
import { isAlreadyTrue } from '../core/reconcile.js';
import { buildSnapshot, defaultQueueTree, type SnapshotParts } from '../core/snapshot.js';
import { ChangeLog, sameApp, sameContainer, sameNode } from './changes.js';
import { OverlayMap } from './overlay-map.js';
import { TimeSlicer } from './time-slice.js';
import type { NodeShim, ShimContainer } from './shim-contract.js';
import { RmClient, type QueueConfigChange, type RmAppState, type RmTlsOptions } from './client.js';
import { YarnReservations } from './reservations.js';
import { DEFAULT_UNIT, type ResourceUnit } from '../core/rsl.js';
import { mapWithConcurrency } from './retry.js';
import type { RmAppInfo, RmCapacitySchedulerInfo, RmContainerInfo, RmNodeInfo, RmQueueInfo, RmResourceInfo } from './schemas.js';

export interface YarnBackendOptions {
  readonly rmUrl: string;
  readonly user?: string;
  readonly requestTimeoutMs?: number;
  /** An HTTPS RM's CA and client certificate; a delegation token for a Kerberos-secured one. */
  readonly tls?: RmTlsOptions;
  readonly delegationToken?: string;
  readonly shim?: NodeShim;
  readonly logger?: Logger;
  /** Pre-known physical capacities (e.g. from config), for nodes over-committed before we started. */
  readonly physicalCapacities?: Readonly<Record<string, Resources>>;
  /**
   * Durable record of the physical capacity of every node the brain over-commits, written before
   * the over-commit is sent: a restarted brain (even after a crash) reads the physical figure from
   * here instead of mistaking the over-committed one the RM reports for it.
   */
  readonly physicalCapacityStore?: PhysicalCapacityStore;
  /** How long the RM plugin honours a published ranking before falling back to its stock order. */
  readonly rankingTtlMs?: number;
  /** In-flight per-app container reads during a snapshot. */
  readonly snapshotConcurrency?: number;
  /**
   * Running apps whose containers are read again each snapshot although their counters did not
   * move, in turn (a container swapped for one of the same size changes no counter the RM
   * lists; with a shim its new id shows at once). Default 8.
   */
  readonly containerSweepPerSnapshot?: number;
  /**
   * Node shims read at once when the shims' lists stand in for the RM's per-app container reads
   * (a shim that serves `nodeShimContainers`). Default 16.
   */
  readonly shimReadConcurrency?: number;
  /**
   * A node shim whose nodes the RM shows unchanged is read again after this long anyway: the
   * containers' attained service moves without any RM figure moving, and a container swapped
   * for one of the same size moves none either. Default 10 s.
   */
  readonly shimListMaxAgeMs?: number;
  /** For tests: a ready client (e.g. with a fake adapter or a fast retry policy). */
  readonly client?: RmClient;
  /**
   * The RM runs YARN's ReservationSystem with this reservable leaf of root: reservations go to it
   * (the `rayon` baseline live) and the brain never writes the scheduler configuration, which
   * would stop the RM's plan follower.
   */
  readonly reservations?: { readonly queue: string; readonly unit?: ResourceUnit; readonly amOverheadMs?: number };
}

/** A node's physical capacity as `physicalCapacityStore` keeps it. */
export const physicalCapacitySchema: z.ZodType<Resources, z.ZodTypeDef, unknown> = z
  .object({ memoryMB: z.number().int().nonnegative(), vcores: z.number().int().nonnegative() })
  .strict();

/** Where the backend keeps the physical capacity of nodes it over-commits (e.g. a store namespace). */
export interface PhysicalCapacityStore {
  list(): Promise<Array<{ key: string; value: Resources }>>;
  put(nodeId: string, physical: Resources): Promise<void>;
  del(nodeId: string): Promise<void>;
}

/** What `standDown()` undid. */
export interface StandDownReport {
  /** Nodes whose advertised capacity went back to the physical one. */
  readonly restoredNodes: string[];
  /** Containers the shims resumed when the lease was released. */
  readonly resumedContainers: string[];
  /** What could not be undone (the rest was still tried). */
  readonly errors: string[];
}

/** What a new leader does with what a previous brain left: give it back to the stock scheduler, or keep it as its own. */
export type TakeOverMode = 'undo' | 'adopt';

/** What `takeOver()` found and did. */
export interface TakeOverReport {
  readonly mode: TakeOverMode;
  /**
   * Where each node's physical capacity came from: its NodeManager's configuration (through the
   * shim), the record a previous brain left in this store, or (neither at hand) what the RM advertises.
   */
  readonly physicalFrom: Readonly<Record<string, 'nodemanager' | 'recorded' | 'advertised'>>;
  /** Nodes advertised above their physical capacity when found, with both figures. */
  readonly overcommitted: ReadonlyArray<{ readonly nodeId: string; readonly advertised: Resources; readonly physical: Resources }>;
  /** Containers found suspended by the shims. */
  readonly suspended: readonly string[];
  /** undo: nodes given their physical capacity back, containers resumed. */
  readonly restoredNodes: readonly string[];
  readonly resumedContainers: readonly string[];
  /** What could not be read (the take-over went on without it). */
  readonly notes: readonly string[];
  /** What could not be undone or adopted (the rest was still tried). */
  readonly errors: readonly string[];
}

/** States of an app that still runs or waits (ended apps are read separately, for a while). */
const LIVE_APP_STATES: readonly RmAppState[] = ['NEW', 'NEW_SAVING', 'SUBMITTED', 'ACCEPTED', 'RUNNING'];
const FINAL_APP_STATES: readonly RmAppState[] = ['FINISHED', 'FAILED', 'KILLED'];
/** How long an ended app stays in the snapshot. */
const RECENTLY_FINISHED_MS = 10 * 60_000;
/** What a part not read gives (`SnapshotOptions.parts`). */
const NO_RM_NODES: readonly RmNodeInfo[] = [];
const NO_RM_APPS: readonly RmAppInfo[] = [];
const NO_CONTAINERS: ReadonlyMap<string, ContainerView> = new Map();
/** Ended apps are read since the previous read, less this, for clock skew between RM and brain. */
const FINISHED_OVERLAP_MS = 60_000;
/**
 * Fields of the apps listing nothing here reads (RM 3.1+, YARN-6871): `resourceInfo` alone is
 * half of an app's JSON. Ended apps' outstanding requests are not read either.
 */
const LIVE_APP_DESELECTS = ['resourceInfo', 'timeouts', 'appNodeLabelExpression', 'amNodeLabelExpression'];
const FINAL_APP_DESELECTS = [...LIVE_APP_DESELECTS, 'resourceRequests'];
const APP_STATES: ReadonlySet<string> = new Set<AppState>(['NEW', 'NEW_SAVING', 'SUBMITTED', 'ACCEPTED', 'RUNNING', 'FINISHED', 'FAILED', 'KILLED']);
const NODE_STATES: ReadonlySet<string> = new Set<NodeState>([
  'RUNNING',
  'UNHEALTHY',
  'DECOMMISSIONING',
  'DECOMMISSIONED',
  'LOST',
  'NEW',
  'REBOOTED',
  'SHUTDOWN',
]);
const QUEUE_STATES: ReadonlySet<string> = new Set<QueueState>(['RUNNING', 'STOPPED', 'DRAINING']);
/** The YARN resource-request name meaning "anywhere": its count is the app's total outstanding ask. */
const ANY_RESOURCE_NAME = '*';
const DEFAULT_RANKING_TTL_MS = 60_000;
/** A reservation's AM holds its container a little longer than one task lease. */
const DEFAULT_AM_OVERHEAD_MS = 10_000;
const RESERVATION_SYSTEM_NOTE =
  "this RM runs YARN's ReservationSystem, whose plan follower stops after any scheduler-conf write: the brain leaves queues to it";

/** A running app's containers as last read, and what they were read for. */
interface AppContainers {
  /** The app's counters at the read (`countersKey`); '' forces the next read. */
  readonly key: string;
  /** Taken from the node shims' lists (views with the shims' figures), not read from the RM. */
  readonly fromShims?: boolean;
  /** The AM container's log link at the read: it names the AM container, so a new attempt shows. */
  readonly amKey?: string;
  readonly attempt?: { readonly id: string; readonly amContainerId?: string };
  /** Views without the shim's figures (merged in per snapshot), unless the backend reads node shims one by one. */
  readonly containers: readonly ContainerView[];
  /** Their allocation summed. */
  readonly memoryMB: number;
  readonly vcores: number;
}

/** What moves in the apps listing when an app's containers change (other than a same-size swap). */
function countersKey(a: RmAppInfo): string {
  let key = countersKeys.get(a);
  if (key === undefined) {
    key = `${a.state}|${a.runningContainers ?? ''}|${a.allocatedMB ?? ''}|${a.allocatedVCores ?? ''}|${a.amContainerLogs ?? ''}`;
    countersKeys.set(a, key);
  }
  return key;
}

/** What moves in the nodes listing when a node's containers change (other than a same-size swap). */
function nodeShimKey(n: RmNodeInfo): string {
  let key = nodeShimKeys.get(n);
  if (key === undefined) {
    key = `${n.state}|${n.numContainers}|${n.usedMemoryMB}|${n.usedVirtualCores}`;
    nodeShimKeys.set(n, key);
  }
  return key;
}

// The lists' items a read found unchanged are the last read's objects (list-parser.ts): their
// keys are made once, not at every refresh.
const countersKeys = new WeakMap<RmAppInfo, string>();
const nodeShimKeys = new WeakMap<RmNodeInfo, string>();

/** The AM container the RM names in an app's `amContainerLogs` (AppInfo: the current attempt's master container). */
export function amContainerIdOf(amContainerLogs: string | undefined): string | undefined {
  const m = /\/(container_[0-9e_]+)(?:\/|$)/.exec(amContainerLogs ?? '');
  return m?.[1];
}

/** One node shim's last list, grouped for the refresh that follows. */
interface ShimList {
  readonly readAtMs: number;
  readonly containers: readonly ShimContainer[];
  /** The RM's figures (`nodeShimKey`) of the nodes it serves, when it was read. */
  readonly nodeKeys: ReadonlyMap<string, string>;
  /** Containers on nodes whose list agreed with the RM's figures (count, memory, vcores) at the read. */
  readonly complete: readonly ShimContainer[];
  /** Nodes with containers whose list did not agree (or carried no allocation): read again next time. */
  readonly incompleteNodes: ReadonlySet<string>;
}

/** A running app's containers on nodes whose shim list is complete, summed. */
interface ShimAppContainers {
  readonly byId: Map<string, ShimContainer>;
  n: number;
  memoryMB: number;
  vcores: number;
}
const NO_SHIM_CONTAINERS: ShimAppContainers = { byId: new Map(), n: 0, memoryMB: 0, vcores: 0 };

/** What the backend did to read containers, since it was made (the bench and the state dump read it). */
export interface ContainerReadStats {
  /** Node shim list requests, and those that failed. */
  shimRequests: number;
  shimFailures: number;
  /** Per-app container reads from the RM (attempts + containers: up to two requests each). */
  rmAppReads: number;
  /** Refreshes' sums of nodes with containers no complete shim list covered, and of running apps read from the RM for that. */
  fallbackNodes: number;
  fallbackApps: number;
}

/** `container_[e<epoch>_]<clusterTs>_<app>_<attempt>_<seq>` → `application_<clusterTs>_<app>`. */
export function appIdOfContainer(containerId: string): string | undefined {
  // container_[e<epoch>_]<cluster timestamp>_<app>_<attempt>_<container>, read without a regex's match arrays.
  const id = containerId;
  if (!id.startsWith('container_')) return undefined;
  let at = 10;
  if (id.charCodeAt(at) === 101) {
    const end = digitsEnd(id, at + 1);
    if (end === at + 1 || id.charCodeAt(end) !== 95) return undefined;
    at = end + 1;
  }
  const start = at;
  let appEnd = -1;
  for (let part = 0; part < 4; part++) {
    const end = digitsEnd(id, at);
    if (end === at || (part === 3 ? end !== id.length : id.charCodeAt(end) !== 95)) return undefined;
    if (part === 1) appEnd = end;
    at = end + 1;
  }
  return 'application_' + id.slice(start, appEnd);
}

/** Where the run of ASCII digits that starts at `from` ends. */
function digitsEnd(s: string, from: number): number {
  let i = from;
  for (let c = s.charCodeAt(i); c >= 48 && c <= 57; c = s.charCodeAt(++i));
  return i;
}

export class YarnBackend implements ClusterBackend {
  readonly name = 'yarn';
  readonly client: RmClient;
  readonly reservations?: YarnReservations;
  private readonly shim?: NodeShim;
  private readonly logger?: Logger;
  private readonly rankingTtlMs: number;
  private readonly concurrency: number;
  /** First capacity seen per node, before the brain over-commits it. */
  private readonly physical = new Map<string, Resources>();
  /** Nodes recorded in `physicalCapacityStore` (over-committed by this brain, now or before a restart). */
  private readonly persisted = new Set<string>();
  /** Nodes this process set above their physical capacity (with or without a durable record). */
  private readonly overcommitted = new Set<string>();
  private readonly physicalStore?: PhysicalCapacityStore;
  private physicalLoaded: Promise<void> | undefined;
  /** Last full ranking published, so a `partial` ranking can be merged into it. */
  private publishedScores: Record<string, number> = {};
  /** Per running app: its containers as last read, reused until its counters move. */
  private readonly appContainers = new Map<string, AppContainers>();
  /** Apps that ended lately (final: read once, kept for RECENTLY_FINISHED_MS). */
  private readonly finishedApps = new Map<string, RmAppInfo>();
  private finishedReadAtMs: number | undefined;
  private readonly sweepPerSnapshot: number;
  private sweepCursor = 0;
  private readonly shimReadConcurrency: number;
  private readonly shimListMaxAgeMs: number;
  /** The shim can be read one node shim at a time, with allocations: its lists stand in for the RM's per-app reads. */
  private readonly perNodeShims: boolean;
  /** Node shim URL → its last list (absent: never read, or its last read failed). */
  private readonly shimLists = new Map<string, ShimList>();
  /** Node → the shim whose last list holds it (`setShimList`). */
  private readonly shimUrlOfNode = new Map<string, string>();
  /** The RM's nodes by id as the last refresh listed them (`mirrorRmNodes`). */
  private readonly rmNodeById = new Map<string, RmNodeInfo>();
  /** Running apps' containers on complete shim lists, and every container the shims list, by id. */
  private readonly shimApps = new Map<string, ShimAppContainers>();
  private readonly shimById = new Map<string, ShimContainer>();
  /** Node shims to read at the next refresh whatever the RM shows (the brain suspended or resumed there). */
  private readonly shimsToReread = new Set<string>();
  /** Nodes left to the RM's per-app reads at the last refresh (logged when it changes). */
  private lastFallbackNodes = 0;
  /** Node shims found listing no allocations (warned once each). */
  private readonly olderShims = new Set<string>();
  readonly readStats: ContainerReadStats = { shimRequests: 0, shimFailures: 0, rmAppReads: 0, fallbackNodes: 0, fallbackApps: 0 };
  private readonly changes = new ChangeLog();
  private previous: ClusterSnapshot | undefined;
  /** Container ids per node as in the last snapshot (nodes the RM no longer lists included); lists are replaced, never changed. */
  private nodeLists = new Map<string, string[]>();
  /** Each node's container views, in its list's order, and the list they were read for (a list replaced is read again). */
  private nodeViews = new Map<string, { ids: string[]; views: ContainerView[] }>();
  /** The last snapshot's containers came without the shim's figures: the next may build on its map. */
  private listedWithoutShim = false;
  /**
   * The last snapshot's node and app views with the RM items they were made from. The RM list
   * parser hands back the very item of the last answer when it did not change (list-parser.ts),
   * so such an item's view is the last one: at 1 % of apps changed most views are not made again.
   */
  private lastNodeViews = new Map<string, { rm: RmNodeInfo; view: NodeView }>();
  private lastAppViews = new Map<string, { rm: RmAppInfo; base: AppView; view: AppView }>();
  /** The parts the last refresh read (`SnapshotOptions.parts`), as a key. */
  private lastPartsKey: string | undefined;
  /** Snapshots one at a time: each builds on the previous one's reads. */
  private refreshing: Promise<unknown> = Promise.resolve();
  /** The scheduler-conf version behind the last queueWrites answer (re-read when it moves). */
  private confChecked: { version: number; queueWrites: true } | undefined;

  constructor(opts: YarnBackendOptions) {
    this.client =
      opts.client ??
      new RmClient({
        rmUrl: opts.rmUrl,
        user: opts.user,
        requestTimeoutMs: opts.requestTimeoutMs,
        logger: opts.logger,
        tls: opts.tls,
        delegationToken: opts.delegationToken,
      });
    this.shim = opts.shim;
    this.logger = opts.logger;
    this.rankingTtlMs = opts.rankingTtlMs ?? DEFAULT_RANKING_TTL_MS;
    this.concurrency = opts.snapshotConcurrency ?? 4;
    this.sweepPerSnapshot = opts.containerSweepPerSnapshot ?? 8;
    this.shimReadConcurrency = opts.shimReadConcurrency ?? 16;
    this.shimListMaxAgeMs = opts.shimListMaxAgeMs ?? 10_000;
    this.perNodeShims = this.shim?.nodeShimUrls !== undefined && this.shim.nodeShimContainers !== undefined;
    for (const [id, r] of Object.entries(opts.physicalCapacities ?? {})) this.physical.set(id, r);
    this.physicalStore = opts.physicalCapacityStore;
    if (opts.reservations) {
      const r = opts.reservations;
      this.reservations = new YarnReservations(
        this.client,
        { queue: r.queue, unit: r.unit ?? DEFAULT_UNIT, amOverheadMs: r.amOverheadMs ?? DEFAULT_AM_OVERHEAD_MS },
        this.logger,
      );
    }
  }

  /** Loads the durable physical capacities once (configured ones take precedence). */
  private loadPhysical(): Promise<void> {
    if (!this.physicalStore) return Promise.resolve();
    this.physicalLoaded ??= this.physicalStore.list().then(
      (entries) => {
        for (const { key, value } of entries) {
          this.persisted.add(key);
          if (!this.physical.has(key)) this.physical.set(key, value);
        }
      },
      (err: unknown) => {
        this.physicalLoaded = undefined;
        throw err;
      },
    );
    return this.physicalLoaded;
  }

  // ---- snapshot --------------------------------------------------------------------------------

  async snapshot(opts: SnapshotOptions = {}): Promise<ClusterSnapshot> {
    const run = this.refreshing.then(() => this.refresh(opts));
    this.refreshing = run.catch(() => undefined);
    return run;
  }

  /**
   * One read of the cluster, building on the previous one: a constant number of list requests
   * (nodes, scheduler, live apps, apps ended since the last read, the shim's containers), plus a
   * containers read only for the running apps whose counters moved (or whose new containers the
   * shim lists) and a few others in turn. With shims of contract 5, running apps take their
   * containers from the node shims' lists (one request per shim whose nodes moved) and only the
   * apps those lists do not cover are read per app. See docs/decisions.md ("The YARN snapshot reads
   * what changed", "Running containers come from the NodeManager shims").
   */
  private async refresh(opts: SnapshotOptions): Promise<ClusterSnapshot> {
    await this.loadPhysical();
    if (this.reservations) {
      // A reservation queue's apps wait until its resources are recomputed (reservations.ts).
      await this.reservations
        .nudgeWaitingApps(Date.now())
        .catch((err: unknown) => this.logger?.warn({ err: (err as Error).message }, 'could not nudge reservation queues'));
    }
    // Only the parts asked for are read (docs/decisions.md, "A policy's reads decide the RM's");
    // reads of other parts than the last refresh's start over.
    const parts = partsWith(opts.parts);
    const partsKey = SNAPSHOT_PARTS.filter((x) => parts.has(x)).join(',');
    if (this.lastPartsKey !== undefined && partsKey !== this.lastPartsKey) this.forgetReads();
    this.lastPartsKey = partsKey;
    const withNodes = parts.has('nodes');
    const withApps = parts.has('apps');
    const withContainers = parts.has('containers');
    const startMs = Date.now();
    const finishedSinceMs = this.finishedReadAtMs === undefined ? startMs - RECENTLY_FINISHED_MS : this.finishedReadAtMs - FINISHED_OVERLAP_MS;
    const [rmNodes, scheduler, liveApps, recentlyFinished, shimContainers] = await Promise.all([
      withNodes ? this.client.nodes() : NO_RM_NODES,
      this.client.scheduler(),
      withApps ? this.client.apps({ states: LIVE_APP_STATES, deSelects: LIVE_APP_DESELECTS, withoutUsage: true }) : NO_RM_APPS,
      // Like the simulator, the snapshot keeps apps that ended lately in view, so a policy (and
      // reconciliation) sees that a job it killed or watched has ended rather than losing it.
      withApps ? this.client.apps({ states: FINAL_APP_STATES, finishedSinceMs, deSelects: FINAL_APP_DESELECTS }) : NO_RM_APPS,
      withContainers && !this.perNodeShims ? this.shimContainers() : [],
    ]);
    // Without the node list, the total capacity is the scheduler's: root's effective resource in the
    // answer just read, or (a scheduler that does not report it) the cluster metrics' total.
    const totalCapacity = withNodes ? undefined : (rootPartitionResource(scheduler) ?? (await this.metricsTotal()));
    // The shims read after the RM: which to read depends on the nodes' figures the RM gives now.
    const shimDirtyApps =
      withContainers && this.perNodeShims
        ? await this.readNodeShims(
            rmNodes,
            liveApps.filter((a) => a.state === 'RUNNING'),
          )
        : undefined;
    const nowMs = Date.now();
    if (withApps) {
      this.finishedReadAtMs = startMs;
      for (const [id, a] of this.finishedApps) if ((a.finishedTime ?? 0) < startMs - RECENTLY_FINISHED_MS) this.finishedApps.delete(id);
      for (const a of recentlyFinished) this.finishedApps.set(a.id, a);
    }
    const rootQueue = toQueueTree(scheduler);
    const leafPaths = leafPathsByName(rootQueue);
    let rmApps: readonly RmAppInfo[] = liveApps;
    if (this.finishedApps.size > 0) {
      const liveIds = new Set<string>();
      for (const a of liveApps) liveIds.add(a.id);
      const all = [...liveApps];
      for (const a of this.finishedApps.values()) if (!liveIds.has(a.id)) all.push(a);
      rmApps = all;
    }
    const slicer = new TimeSlicer();
    const apps: AppView[] = [];
    for (let i = 0; i < rmApps.length; i++) {
      if ((i & 255) === 0) await slicer.maybeNext();
      const a = rmApps[i]!;
      const last = this.lastAppViews.get(a.id);
      apps.push(last?.rm === a && last.base.queue === resolveQueuePath(a.queue, leafPaths) ? last.base : toAppView(a, i, leafPaths));
    }

    const running = withContainers ? rmApps.filter((a) => a.state === 'RUNNING') : NO_RM_APPS;
    // Nodes where a container may differ from the last snapshot's: the others hold the very same
    // container objects, so the change sets compare only their own fields there.
    const { touched, replaced } = withContainers
      ? await this.readChangedContainers(running, shimContainers, shimDirtyApps)
      : { touched: new Set<string>(), replaced: new Map<string, Replacement>() };
    await slicer.next();

    // The RM's per-app counters and its container lists are separate reads, and an AM trading
    // containers moves between them: for apps whose containers we list, derive the counters
    // from that list so the snapshot agrees with itself.
    const runningIds = new Set<string>();
    for (const a of running) runningIds.add(a.id);
    const gone: AppContainers[] = [];
    this.appContainers.forEach((e, id) => {
      if (runningIds.has(id)) return;
      for (const c of e.containers) touched.add(c.nodeId);
      gone.push(e);
      this.appContainers.delete(id);
    });
    const prev = this.previous;
    // Per-node shims: the entries' views carry the shims' figures already, nothing to merge.
    const containers = !withContainers
      ? NO_CONTAINERS
      : shimContainers.length === 0 && this.listedWithoutShim && prev
        ? await this.changedContainers(prev.containers, replaced, gone, slicer)
        : await this.allContainers(running, shimContainers, touched, slicer);
    this.listedWithoutShim = shimContainers.length === 0;
    const nodes: NodeView[] = [];
    const nodeViews = this.lastNodeViews;
    for (let i = 0; i < rmNodes.length; i++) {
      if ((i & 255) === 0) await slicer.maybeNext();
      const n = rmNodes[i]!;
      const ids = this.nodeLists.get(n.id) ?? [];
      const last = nodeViews.get(n.id);
      const view = last?.rm === n && this.sameNodeInputs(last.view, ids) ? last.view : this.toNodeView(n, i, ids, containers);
      if (last === undefined) nodeViews.set(n.id, { rm: n, view });
      else {
        last.rm = n;
        last.view = view;
      }
      nodes.push(view);
    }
    forgetUnlisted(nodeViews, nodes);
    const consistentApps: AppView[] = [];
    const appViews = this.lastAppViews;
    for (let i = 0; i < apps.length; i++) {
      const base = apps[i]!;
      const last = appViews.get(base.id);
      let view = base;
      if (runningIds.has(base.id)) {
        const mine = this.appContainers.get(base.id);
        const n = mine?.containers.length ?? 0;
        const memoryMB = mine?.memoryMB ?? 0;
        const vcores = mine?.vcores ?? 0;
        const same =
          last?.base === base && last.view.runningContainers === n && last.view.allocated.memoryMB === memoryMB && last.view.allocated.vcores === vcores;
        view = same ? last.view : { ...base, runningContainers: n, allocated: { memoryMB, vcores } };
      }
      if (last === undefined) appViews.set(base.id, { rm: rmApps[i]!, base, view });
      else {
        last.rm = rmApps[i]!;
        last.base = base;
        last.view = view;
      }
      consistentApps.push(view);
    }
    forgetUnlisted(appViews, consistentApps);
    const snapshot = await buildSnapshotSliced({ nowMs, nodes, apps: consistentApps, containers, rootQueue, totalCapacity }, slicer);
    const changeMark = await this.recordChanges(snapshot, nodes, consistentApps, touched, slicer);
    const changed = this.changes.since(opts.changesSince);
    return {
      ...snapshot,
      ...(parts.size < SNAPSHOT_PARTS.length ? { parts: SNAPSHOT_PARTS.filter((x) => parts.has(x)) } : {}),
      changeMark,
      ...(changed ? { changedNodeIds: changed.nodes, changedAppIds: changed.apps } : {}),
    };
  }

  /**
   * Forgets what the reads built on (container lists, shim lists, the views made from the last
   * lists) when the parts asked for change: the next refresh reads its parts as a first one does.
   */
  private forgetReads(): void {
    this.appContainers.clear();
    this.shimLists.clear();
    this.shimUrlOfNode.clear();
    this.rmNodeById.clear();
    this.shimApps.clear();
    this.shimById.clear();
    this.nodeLists = new Map();
    this.nodeViews = new Map();
    this.listedWithoutShim = false;
    this.lastNodeViews = new Map();
    this.lastAppViews = new Map();
  }

  /**
   * Every running app's containers, with the shim's figures merged in: a new map and new
   * per-node lists. Nodes where a container gained the shim's figures join `touched`.
   */
  private async allContainers(
    running: readonly RmAppInfo[],
    shimContainers: readonly ShimContainer[],
    touched: Set<string>,
    slicer: TimeSlicer,
  ): Promise<Map<string, ContainerView>> {
    const shimById = new Map(shimContainers.map((c) => [c.containerId, c]));
    const containers = new Map<string, ContainerView>();
    const containersByNode = new Map<string, string[]>();
    const viewsByNode = new Map<string, { ids: string[]; views: ContainerView[] }>();
    let walked = 0;
    for (const a of running) {
      if ((walked++ & 63) === 0) await slicer.maybeNext();
      for (const base of this.appContainers.get(a.id)?.containers ?? []) {
        const shim = shimById.get(base.id);
        let c = base;
        if (shim) {
          c = { ...base, state: shim.state, attainedServiceMs: shim.attainedServiceMs, runningSinceMs: shim.runningSinceMs };
          touched.add(c.nodeId);
        }
        containers.set(c.id, c);
        const ids = containersByNode.get(c.nodeId);
        if (ids) {
          ids.push(c.id);
          viewsByNode.get(c.nodeId)!.views.push(c);
        } else {
          const list = [c.id];
          containersByNode.set(c.nodeId, list);
          viewsByNode.set(c.nodeId, { ids: list, views: [c] });
        }
      }
    }
    this.nodeLists = containersByNode;
    this.nodeViews = viewsByNode;
    return containers;
  }

  /**
   * Without a shim, a container is exactly what its app's last read gave: the last snapshot's
   * map with the containers of the apps read again (and of those gone) swapped, and new lists
   * only for the nodes they are on. A node's list keeps its containers in their order, the
   * ended ones taken out and the new ones after them.
   */
  private async changedContainers(
    previous: ReadonlyMap<string, ContainerView>,
    replaced: ReadonlyMap<string, Replacement>,
    gone: readonly AppContainers[],
    slicer: TimeSlicer,
  ): Promise<ReadonlyMap<string, ContainerView>> {
    const deletes: string[] = [];
    const sets: Array<[string, ContainerView]> = [];
    const removedByNode = new Map<string, Set<string>>();
    const addedByNode = new Map<string, string[]>();
    const remove = (c: ContainerView): void => {
      deletes.push(c.id);
      const s = removedByNode.get(c.nodeId);
      if (s) s.add(c.id);
      else removedByNode.set(c.nodeId, new Set([c.id]));
    };
    for (const [appId, r] of replaced) {
      r.removed.forEach(remove);
      for (const c of r.added ?? this.appContainers.get(appId)?.containers ?? []) {
        sets.push([c.id, c]);
        const ids = addedByNode.get(c.nodeId);
        if (ids) ids.push(c.id);
        else addedByNode.set(c.nodeId, [c.id]);
      }
    }
    for (const e of gone) e.containers.forEach(remove);
    // A container set again as the very object it was is no change: the overlay grows only by what
    // moved, and a node where nothing else did keeps its list, and with it its view.
    const same = new Set<string>();
    for (const [id, c] of sets) if (previous.get(id) === c) same.add(id);
    for (const nodeId of new Set([...removedByNode.keys(), ...addedByNode.keys()])) {
      const out = removedByNode.get(nodeId);
      const added = addedByNode.get(nodeId) ?? [];
      const last = this.nodeLists.get(nodeId) ?? [];
      if (out !== undefined && out.size === added.length && added.every((id) => same.has(id) && out.has(id) && last.includes(id))) continue;
      // A container read again in place stays in place: only ended ones leave, new ones join at the end.
      const readAgain = new Set(added);
      const kept = last.filter((id) => !out?.has(id) || readAgain.has(id));
      const had = new Set(kept);
      const list = kept.concat(added.filter((id) => !had.has(id)));
      if (list.length > 0) this.nodeLists.set(nodeId, list);
      else this.nodeLists.delete(nodeId);
    }
    const next =
      same.size === 0
        ? OverlayMap.update(previous, deletes, sets)
        : OverlayMap.update(
            previous,
            deletes.filter((id) => !same.has(id)),
            sets.filter(([id]) => !same.has(id)),
          );
    // Past a share of the base, reads through the overlay cost more than a new map.
    if (OverlayMap.drift(next) <= next.size / 16 + 1024) return next;
    const flat = new Map<string, ContainerView>();
    let i = 0;
    for (const [id, c] of next) {
      if ((i++ & 1023) === 0) await slicer.maybeNext();
      flat.set(id, c);
    }
    return flat;
  }

  /**
   * With per-node shims, first takes the containers of the apps the shims' lists cover from there
   * (`shimDirtyApps`: those whose listed containers changed). Then reads from the RM the
   * containers of the other running apps that need it: new ones, those whose counters
   * (state, running containers, allocation, AM container) moved since their last read, those
   * holding a container the shim lists and the last snapshot did not, and `sweepPerSnapshot`
   * others in turn. The attempts read is skipped while the AM container stays the same. Returns
   * the nodes of the containers read and of those they replace, and what each app's new entry
   * replaced: an app read again (or rebuilt) its whole last list, an app whose shim-listed
   * containers changed only those (`patchShimEntry`: the cost follows the changes, not the app's size).
   */
  private async readChangedContainers(
    running: readonly RmAppInfo[],
    shimContainers: readonly ShimContainer[],
    shimDirtyApps?: ShimChanges,
  ): Promise<{ touched: Set<string>; replaced: Map<string, Replacement> }> {
    const touched = new Set<string>();
    const replaced = new Map<string, Replacement>();
    // An app takes one kind of entry per refresh: patched from the shims, or put whole (read from
    // the RM, possibly put again with the shims' figures): a patch never meets a whole put.
    const put = (appId: string, entry: AppContainers): void => {
      const old = this.appContainers.get(appId)?.containers ?? [];
      for (const c of old) touched.add(c.nodeId);
      for (const c of entry.containers) touched.add(c.nodeId);
      if (!replaced.has(appId)) replaced.set(appId, { removed: old });
      this.appContainers.set(appId, entry);
    };
    // Per-node shims: an app whose containers on complete shim lists add up to its RM counters
    // takes them from there; only the others are read from the RM (and swept).
    let fromRm: readonly RmAppInfo[] = running;
    if (shimDirtyApps) {
      const uncovered: RmAppInfo[] = [];
      for (const a of running) {
        const listed = this.shimApps.get(a.id) ?? NO_SHIM_CONTAINERS;
        if (!shimCovers(listed, a)) {
          uncovered.push(a);
          continue;
        }
        const old = this.appContainers.get(a.id);
        const key = countersKey(a);
        const changedIds = shimDirtyApps.get(a.id);
        if (old?.fromShims && old.key === key && !changedIds) continue;
        const patch = old?.fromShims ? patchShimEntry(a, key, listed, old, changedIds) : undefined;
        if (patch) {
          this.appContainers.set(a.id, patch.entry);
          if (patch.removed.length + patch.added.length === 0) continue;
          for (const c of patch.removed) touched.add(c.nodeId);
          for (const c of patch.added) touched.add(c.nodeId);
          replaced.set(a.id, { removed: patch.removed, added: patch.added });
          continue;
        }
        const entry = shimEntry(a, key, listed);
        if (old?.fromShims && sameViews(old.containers, entry.containers)) this.appContainers.set(a.id, { ...old, key });
        else put(a.id, old?.fromShims ? withViewsKept(entry, old.containers) : entry);
      }
      fromRm = uncovered;
      this.readStats.fallbackApps += uncovered.length;
    }
    const toRead = new Set<string>();
    for (const a of fromRm) {
      const e = this.appContainers.get(a.id);
      if (e?.key !== countersKey(a) || e.fromShims) toRead.add(a.id);
    }
    if (this.previous && shimContainers.length > 0) {
      const runningIds = new Set(running.map((a) => a.id));
      for (const c of shimContainers) {
        if (this.previous.containers.has(c.containerId)) continue;
        const appId = appIdOfContainer(c.containerId);
        if (appId !== undefined && runningIds.has(appId)) toRead.add(appId);
      }
    }
    let budget = this.sweepPerSnapshot;
    let k = 0;
    for (; k < fromRm.length && budget > 0; k++) {
      const a = fromRm[(this.sweepCursor + k) % fromRm.length]!;
      if (!toRead.has(a.id)) {
        toRead.add(a.id);
        budget--;
      }
    }
    this.sweepCursor = fromRm.length ? (this.sweepCursor + k) % fromRm.length : 0;
    const list = fromRm.filter((a) => toRead.has(a.id));
    this.readStats.rmAppReads += list.length;
    const read = await mapWithConcurrency(list, this.concurrency, (a) => this.liveContainers(a, this.appContainers.get(a.id)));
    list.forEach((a, i) => put(a.id, read[i]!));
    if (shimDirtyApps) {
      // Apps read from the RM get the shims' figures of the containers the shims list.
      for (const a of fromRm) {
        const e = this.appContainers.get(a.id);
        if (!e) continue;
        const merged = withShimFigures(e, this.shimById);
        if (merged !== e) {
          if (replaced.has(a.id)) this.appContainers.set(a.id, merged);
          else put(a.id, merged);
        }
      }
    }
    return { touched, replaced };
  }

  /** /cluster/metrics' total: the root queue's available + allocated + reserved. */
  private async metricsTotal(): Promise<Resources> {
    const m = await this.client.metrics();
    return { memoryMB: m.totalMB, vcores: m.totalVirtualCores };
  }

  /**
   * Reads the node shims whose lists may have moved: never read (or failed last time), a node of
   * theirs the RM shows with other figures (state, container count, memory, vcores used) or whose
   * list disagreed with them, or read longer than `shimListMaxAgeMs` ago; one request each,
   * `shimReadConcurrency` at a time. Keeps the running apps' containers on complete lists summed
   * and returns the apps whose containers there changed.
   */
  private async readNodeShims(rmNodes: readonly RmNodeInfo[], running: readonly RmAppInfo[]): Promise<ShimChanges> {
    const shim = this.shim!;
    const rmNode = this.mirrorRmNodes(rmNodes);
    const nowMs = Date.now();
    const moved = (key: string, id: string): boolean => {
      const n = rmNode.get(id);
      return n === undefined || nodeShimKey(n) !== key;
    };
    const stale = (url: string, l: ShimList | undefined): boolean => {
      if (!l || this.shimsToReread.has(url) || l.incompleteNodes.size > 0 || nowMs - l.readAtMs >= this.shimListMaxAgeMs) return true;
      return someEntry(l.nodeKeys, moved);
    };
    const urls = shim.nodeShimUrls!().filter((u) => stale(u, this.shimLists.get(u)));
    for (const u of urls) this.shimsToReread.delete(u);
    const dirty: ShimChanges = new Map();
    const failed: string[] = [];
    const read = async (batch: readonly string[]): Promise<void> => {
      const lists = await mapWithConcurrency(batch, this.shimReadConcurrency, (url) =>
        shim.nodeShimContainers!(url).then(
          (l) => l,
          (err: unknown) => err as Error,
        ),
      );
      this.readStats.shimRequests += batch.length;
      batch.forEach((url, i) => {
        const got = lists[i]!;
        const old = this.shimLists.get(url);
        if (got instanceof Error) {
          if (old) this.dropShimList(old, new Set(), new Set(), dirty);
          failed.push(`${url}: ${got.message}`);
          this.setShimList(url, undefined);
          return;
        }
        // A container listed as before stays the same object: its app is not rebuilt.
        const containers = got.containers.map((c) => {
          const had = this.shimById.get(c.containerId);
          return had !== undefined && sameShimContainer(had, c) ? had : c;
        });
        const list = completeShimList(got.nodes, containers, rmNode, nowMs);
        if (containers.length > 0 && containers.every((c) => c.allocated === undefined) && !this.olderShims.has(url)) {
          this.olderShims.add(url);
          this.logger?.warn({ url }, "node shim lists no allocations (contract before 5): its nodes' containers are read from the RM per application");
        }
        if (old) this.dropShimList(old, new Set(containers), new Set(list.complete), dirty);
        this.setShimList(url, list);
        this.addShimList(list, dirty);
      });
    };
    await read(urls);
    // A swap on one node that leaves its figures as they were (a container of one app ended, one
    // of the same size of another started) shows as apps whose listed containers no longer add up
    // to their counters: the shims holding those apps' containers are read once more now.
    const readNow = new Set(urls);
    const nodeUrl = this.shimUrlOfNode;
    const again = new Set<string>();
    for (const a of running) {
      const listed = this.shimApps.get(a.id);
      if (!listed || shimCovers(listed, a)) continue;
      for (const c of listed.byId.values()) {
        const url = nodeUrl.get(c.nodeId);
        if (url !== undefined && !readNow.has(url)) again.add(url);
      }
    }
    if (again.size > 0) await read([...again]);
    this.readStats.shimFailures += failed.length;
    if (failed.length > 0)
      this.logger?.warn({ failed: failed.length, first: failed[0] }, "node shims unreachable: their nodes' containers are read from the RM per application");
    // Nodes holding containers that no complete list covers: their apps are read from the RM.
    let fallbackNodes = 0;
    for (const n of rmNodes) {
      if (n.numContainers === 0) continue;
      const url = nodeUrl.get(n.id);
      const l = url === undefined ? undefined : this.shimLists.get(url);
      if (l === undefined || l.incompleteNodes.has(n.id)) fallbackNodes++;
    }
    this.readStats.fallbackNodes += fallbackNodes;
    // A node disagrees for a moment whenever a container is allocated and not yet launched: the
    // count is logged when it changes, at debug; shims that fail or are older warn (above, below).
    if (fallbackNodes !== this.lastFallbackNodes)
      this.logger?.debug({ nodes: fallbackNodes }, 'nodes whose containers no complete shim list covers: their apps are read from the RM per application');
    this.lastFallbackNodes = fallbackNodes;
    return dirty;
  }

  /**
   * The RM's nodes by id, as last listed: kept from one refresh to the next and changed where the
   * list did (an unchanged node is the same object, list-parser.ts).
   */
  private mirrorRmNodes(rmNodes: readonly RmNodeInfo[]): ReadonlyMap<string, RmNodeInfo> {
    const byId = this.rmNodeById;
    for (const n of rmNodes) if (byId.get(n.id) !== n) byId.set(n.id, n);
    if (byId.size > rmNodes.length) {
      const listed = new Set(rmNodes.map((n) => n.id));
      for (const id of byId.keys()) if (!listed.has(id)) byId.delete(id);
    }
    return byId;
  }

  /** Keeps a node shim's list (undefined: none) and which shim serves each of its nodes. */
  private setShimList(url: string, list: ShimList | undefined): void {
    const old = this.shimLists.get(url);
    if (old) for (const id of old.nodeKeys.keys()) if (this.shimUrlOfNode.get(id) === url) this.shimUrlOfNode.delete(id);
    if (list === undefined) {
      this.shimLists.delete(url);
      return;
    }
    this.shimLists.set(url, list);
    for (const id of list.nodeKeys.keys()) this.shimUrlOfNode.set(id, url);
  }

  /** Takes a list's containers out, but for those listed again as they were (`kept`; `keptComplete` on a complete node still). */
  private dropShimList(l: ShimList, kept: ReadonlySet<ShimContainer>, keptComplete: ReadonlySet<ShimContainer>, dirty: ShimChanges): void {
    for (const c of l.containers) if (!kept.has(c) && this.shimById.get(c.containerId) === c) this.shimById.delete(c.containerId);
    for (const c of l.complete) {
      if (keptComplete.has(c)) continue;
      const appId = appIdOfContainer(c.containerId)!;
      const a = this.shimApps.get(appId);
      if (a?.byId.get(c.containerId) !== c) continue;
      a.byId.delete(c.containerId);
      a.n--;
      a.memoryMB -= c.allocated!.memoryMB;
      a.vcores -= c.allocated!.vcores;
      if (a.byId.size === 0) this.shimApps.delete(appId);
      noteShimChange(dirty, appId, c.containerId);
    }
  }

  private addShimList(l: ShimList, dirty: ShimChanges): void {
    for (const c of l.containers) this.shimById.set(c.containerId, c);
    for (const c of l.complete) {
      const appId = appIdOfContainer(c.containerId)!;
      let a = this.shimApps.get(appId);
      if (!a) this.shimApps.set(appId, (a = { byId: new Map(), n: 0, memoryMB: 0, vcores: 0 }));
      const had = a.byId.get(c.containerId);
      if (had === c) continue;
      if (had) {
        a.n--;
        a.memoryMB -= had.allocated!.memoryMB;
        a.vcores -= had.allocated!.vcores;
      }
      a.byId.set(c.containerId, c);
      a.n++;
      a.memoryMB += c.allocated!.memoryMB;
      a.vcores += c.allocated!.vcores;
      noteShimChange(dirty, appId, c.containerId);
    }
  }

  /** Numbers the snapshot (its `nodes` and `apps` also as lists) and notes which nodes and apps changed since the previous one. */
  private async recordChanges(
    snapshot: ClusterSnapshot,
    nodes: readonly NodeView[],
    apps: readonly AppView[],
    touched: ReadonlySet<string>,
    slicer: TimeSlicer,
  ): Promise<number> {
    // Compared in slices, but recorded in one go: nothing reads the log until the snapshot is out.
    const changedNodes: string[] = [];
    const changedApps: string[] = [];
    const prev = this.previous;
    if (prev) {
      let walked = 0;
      // By index over the lists: an iterator's results are made anew around each await. Ids gone
      // since are looked for only when the lists did not hold every one of the last snapshot's.
      let nodesKept = 0;
      for (let k = 0; k < nodes.length; k++) {
        if ((walked++ & 255) === 0) await slicer.maybeNext();
        const n = nodes[k]!;
        const p = prev.nodes.get(n.id);
        if (p !== undefined) nodesKept++;
        // The last view kept (sameNodeInputs): same RM item, same container list and views.
        if (p === n) continue;
        let same = p !== undefined && sameNode(p, n);
        for (let i = 0; same && touched.has(n.id) && i < n.containerIds.length; i++) {
          const id = n.containerIds[i]!;
          const a = prev.containers.get(id);
          const b = snapshot.containers.get(id)!;
          same = a === b || (a !== undefined && sameContainer(a, b));
        }
        if (!same) changedNodes.push(n.id);
      }
      if (!(nodesKept === prev.nodes.size && nodes.length === snapshot.nodes.size))
        for (const id of prev.nodes.keys()) if (!snapshot.nodes.has(id)) changedNodes.push(id);
      let appsKept = 0;
      for (let k = 0; k < apps.length; k++) {
        if ((walked++ & 255) === 0) await slicer.maybeNext();
        const a = apps[k]!;
        const p = prev.apps.get(a.id);
        if (p !== undefined) appsKept++;
        if (p !== a && (p === undefined || !sameApp(p, a))) changedApps.push(a.id);
      }
      if (!(appsKept === prev.apps.size && apps.length === snapshot.apps.size))
        for (const id of prev.apps.keys()) if (!snapshot.apps.has(id)) changedApps.push(id);
    }
    const mark = this.changes.next();
    for (const id of changedNodes) this.changes.nodeChanged(id);
    for (const id of changedApps) this.changes.appChanged(id);
    this.changes.compact(snapshot.nodes, snapshot.apps);
    this.previous = snapshot;
    return mark;
  }

  /** Containers of the app's current attempt that still hold resources, and which one is its AM. */
  private async liveContainers(app: RmAppInfo, last: AppContainers | undefined): Promise<AppContainers> {
    const key = countersKey(app);
    const amKey = app.amContainerLogs || undefined;
    try {
      let attempt = last?.attempt;
      if (attempt === undefined || amKey === undefined || last?.amKey !== amKey) {
        const attempts = await this.client.appAttempts(app.id);
        const current = attempts.reduce<(typeof attempts)[number] | undefined>((best, a) => (!best || a.id > best.id ? a : best), undefined);
        if (!current) return { key, containers: [], memoryMB: 0, vcores: 0 };
        attempt = { id: current.appAttemptId, amContainerId: current.containerId };
      }
      const list = await this.client.attemptContainers(app.id, attempt.id);
      const containers: ContainerView[] = [];
      let memoryMB = 0;
      let vcores = 0;
      for (const c of list) {
        if (c.containerState === 'COMPLETE') continue;
        const view = toContainerView(c, app.id, undefined, c.containerId === attempt.amContainerId);
        containers.push(view);
        memoryMB += view.resource.memoryMB;
        vcores += view.resource.vcores;
      }
      return { key, amKey, attempt, containers, memoryMB, vcores };
    } catch (err) {
      // The app can finish between the apps listing and this read: the RM then answers 404
      // (no containers this time; read again next time).
      if (err instanceof RmRejectedError && err.status === 404) return { key: '', containers: [], memoryMB: 0, vcores: 0 };
      throw err;
    }
  }

  private rereadShimOf(nodeId: string): void {
    if (!this.perNodeShims) return;
    const url = this.shimUrlOfNode.get(nodeId);
    if (url !== undefined) this.shimsToReread.add(url);
  }

  /** The containers of the shim serving `nodeId`: one list read when the backend knows that shim, else every shim's. */
  private async shimContainersOfNode(nodeId: string): Promise<readonly ShimContainer[]> {
    const shim = this.shim!;
    if (this.perNodeShims) {
      const url = this.shimUrlOfNode.get(nodeId);
      if (url !== undefined) return (await shim.nodeShimContainers!(url)).containers;
    }
    return shim.containers();
  }

  private async shimContainers(): Promise<ShimContainer[]> {
    if (!this.shim) return [];
    try {
      return await this.shim.containers();
    } catch (err) {
      // The RM view is still right without the shim; the policy just loses CPU accounting.
      this.logger?.warn({ err: (err as Error).message }, 'shim unreachable, snapshot without container accounting');
      return [];
    }
  }

  /** A node's last view still holds: the same container list, its views as read for it, the same physical capacity. */
  private sameNodeInputs(last: NodeView, containerIds: string[]): boolean {
    if (last.containerIds !== containerIds || last.physicalCapacity !== this.physical.get(last.id)) return false;
    if (containerIds.length === 0) return last.containers === undefined;
    const views = this.nodeViews.get(last.id);
    return views !== undefined && views.ids === containerIds && last.containers === views.views;
  }

  private toNodeView(n: RmNodeInfo, index: number, containerIds: string[], containers?: ReadonlyMap<string, ContainerView>): NodeView {
    if (!NODE_STATES.has(n.state)) throw new RmProtocolError(`GET /nodes: nodes.node.${index}.state: unknown node state ${n.state}`);
    const capacity = nodeCapacity(n);
    if (!this.physical.has(n.id)) this.physical.set(n.id, capacity);
    // The views at hand spare a policy a lookup per container (`containerAt`); a list replaced since they were made is read again.
    let views = containers && containerIds.length > 0 ? this.nodeViews.get(n.id) : undefined;
    if (containers && containerIds.length > 0 && views?.ids !== containerIds) {
      const read: ContainerView[] = [];
      for (const id of containerIds) {
        const c = containers.get(id);
        if (c === undefined) break;
        read.push(c);
      }
      views = read.length === containerIds.length ? { ids: containerIds, views: read } : undefined;
      if (views) this.nodeViews.set(n.id, views);
      else this.nodeViews.delete(n.id);
    }
    return {
      id: n.id,
      state: n.state as NodeState,
      rack: n.rack,
      capacity,
      physicalCapacity: this.physical.get(n.id)!,
      used: n.usedResource ? toResources(n.usedResource) : { memoryMB: n.usedMemoryMB, vcores: n.usedVirtualCores },
      containerIds,
      ...(views ? { containers: views.views } : {}),
    };
  }

  // ---- apply -----------------------------------------------------------------------------------

  async apply(action: Action): Promise<ApplyOutcome> {
    if (this.reservations && action.kind === 'updateQueues') {
      return { status: 'failed', error: RESERVATION_SYSTEM_NOTE, retryable: false };
    }
    try {
      // Every backend answers `noop` for an action already true of the cluster (the conformance
      // suite holds both to it); the engine reconciles against its cycle snapshot, but the
      // cluster may have moved since, and callers outside the engine get the same guarantee.
      const current = await this.narrowSnapshot(action).catch(() => undefined);
      if (current && isAlreadyTrue(action, current)) return { status: 'noop', detail: 'already true on the cluster; nothing sent' };
      return await this.applyUnchecked(action, current);
    } catch (err) {
      const outcome = toFailedOutcome(err);
      this.logger?.warn({ action: describeAction(action), error: outcome.error, retryable: outcome.retryable }, 'action failed');
      return outcome;
    }
  }

  /**
   * Fresh reads of just what an action concerns, shaped as a snapshot core's reconciliation can
   * judge: one or two requests instead of a full snapshot per action. Undefined when the kind
   * has no cheap read (killContainer: the RM's own answer says "already gone"; rankNodes: the
   * engine compares with the ranking it published).
   */
  private async narrowSnapshot(action: Action): Promise<ClusterSnapshot | undefined> {
    const parts = { nowMs: Date.now(), nodes: [] as NodeView[], apps: [] as AppView[], containers: [] as ContainerView[], rootQueue: defaultQueueTree() };
    switch (action.kind) {
      case 'updateQueues':
        if (action.add.length === 0 && action.update.length === 0) return undefined;
        return buildSnapshot({ ...parts, rootQueue: toQueueTree(await this.client.scheduler()) });
      case 'setAppPriority':
      case 'killApp':
      case 'moveApp': {
        const [app, scheduler] = await Promise.all([this.client.app(action.appId), action.kind === 'moveApp' ? this.client.scheduler() : undefined]);
        const rootQueue = scheduler ? toQueueTree(scheduler) : parts.rootQueue;
        return buildSnapshot({ ...parts, rootQueue, apps: [toAppView(app, 0, leafPathsByName(rootQueue))] });
      }
      case 'setNodeResource':
        await this.loadPhysical();
        return buildSnapshot({ ...parts, nodes: [this.toNodeView(await this.client.node(action.nodeId), 0, [])] });
      case 'suspendContainer':
      case 'resumeContainer': {
        const c = this.shim ? (await this.shimContainersOfNode(action.nodeId)).find((x) => x.containerId === action.containerId) : undefined;
        if (!c) return undefined;
        const view: ContainerView = { id: c.containerId, appId: '', nodeId: c.nodeId, resource: ZERO, state: c.state, startedAtMs: c.runningSinceMs };
        return buildSnapshot({ ...parts, containers: [view] });
      }
      case 'killContainer':
      case 'rankNodes':
        return undefined;
    }
  }

  private async applyUnchecked(action: Action, current: ClusterSnapshot | undefined): Promise<ApplyOutcome> {
    switch (action.kind) {
      case 'updateQueues':
        return this.applyUpdateQueues(action, current?.rootQueue);
      case 'setAppPriority': {
        const effective = await this.client.setAppPriority(action.appId, action.priority);
        // The RM clamps to yarn.cluster.max-application-priority (and the queue's limit).
        if (effective !== undefined && effective !== action.priority) {
          return { status: 'applied', detail: `RM set priority ${effective} (asked ${action.priority}; capped by the cluster/queue maximum)` };
        }
        return { status: 'applied' };
      }
      case 'moveApp': {
        // A move to a missing or parent queue is refused by the RM as a bare 503
        // UndeclaredThrowableException; checking first gives the operator the actual reason.
        const tree = current?.rootQueue ?? toQueueTree(await this.client.scheduler());
        const target = resolveQueuePath(action.queue, leafPathsByName(tree));
        const queue = findQueue(tree, target);
        if (!queue) return { status: 'failed', error: `cannot move ${action.appId}: queue ${target} does not exist`, retryable: false };
        if (queue.children.length > 0)
          return { status: 'failed', error: `cannot move ${action.appId}: ${target} is a parent queue, apps live in leaf queues`, retryable: false };
        await this.client.moveApp(action.appId, target);
        return { status: 'applied' };
      }
      case 'killApp': {
        const { status, state } = await this.client.killApp(action.appId);
        // 200: the app is in a final state (killed just now or finished before); 202: killing.
        return { status: 'applied', detail: status === 202 ? 'kill in progress' : `app is ${state ?? 'in a final state'}` };
      }
      case 'setNodeResource':
        return this.applySetNodeResource(action);
      case 'killContainer':
        try {
          await this.client.signalContainer(action.containerId, 'FORCEFUL_SHUTDOWN');
        } catch (err) {
          // "Trying to signal an absent container": it finished or was killed already.
          if (err instanceof RmRejectedError && /absent container/.test(err.message)) {
            return { status: 'noop', detail: `container ${action.containerId} is already gone` };
          }
          throw err;
        }
        return { status: 'applied' };
      case 'suspendContainer':
        // No RM figure shows a suspension: the node's list is read again at the next refresh.
        this.rereadShimOf(action.nodeId);
        await this.requireShim('suspend containers').suspend(action.nodeId, action.containerId);
        return { status: 'applied' };
      case 'resumeContainer':
        this.rereadShimOf(action.nodeId);
        await this.requireShim('resume containers').resume(action.nodeId, action.containerId);
        return { status: 'applied' };
      case 'rankNodes': {
        const shim = this.requireShim('rank nodes');
        const scores = action.partial ? { ...this.publishedScores, ...action.scores } : { ...action.scores };
        await shim.publishRanking({ scores, leastLoadedFirst: action.leastLoadedFirst, ttlMs: this.rankingTtlMs });
        this.publishedScores = scores;
        return { status: 'applied', detail: `${Object.keys(scores).length} nodes ranked` };
      }
    }
  }

  private async applyUpdateQueues(action: ActionOf<'updateQueues'>, tree?: QueueView): Promise<ApplyOutcome> {
    if (action.add.length === 0 && action.update.length === 0) return { status: 'noop', detail: 'no queue changes' };
    // The RM answers 200 to updates of queues that do not exist (the keys land in the conf and
    // are ignored), so unknown paths are caught here rather than silently "applied".
    const problem = queueUpdateProblem(action, tree ?? toQueueTree(await this.client.scheduler()));
    if (problem) return { status: 'failed', error: problem, retryable: false };
    const addQueues: QueueConfigChange[] = action.add.map((q) => ({
      queue: q.path,
      params: { capacity: pct(q.capacityPct), 'maximum-capacity': pct(q.maxCapacityPct) },
    }));
    const updateQueues: QueueConfigChange[] = [];
    for (const u of action.update) {
      const params: Record<string, string> = {};
      if (u.capacityResource) params.capacity = absoluteResources(u.capacityResource);
      else if (u.capacityPct !== undefined) params.capacity = pct(u.capacityPct);
      if (u.maxCapacityPct !== undefined) params['maximum-capacity'] = pct(u.maxCapacityPct);
      if (Object.keys(params).length) updateQueues.push({ queue: u.path, params });
    }
    const message = await this.client.updateSchedulerConf({ addQueues, updateQueues });
    return { status: 'applied', detail: message.trim() || undefined };
  }

  private async applySetNodeResource(action: ActionOf<'setNodeResource'>): Promise<ApplyOutcome> {
    await this.loadPhysical();
    if (!this.physical.has(action.nodeId)) {
      // Remember the capacity before our first change, or a later snapshot would mistake the
      // over-committed figure for the physical one.
      this.physical.set(action.nodeId, nodeCapacity(await this.client.node(action.nodeId)));
    }
    const physical = this.physical.get(action.nodeId)!;
    const backToPhysical = equals(action.resource, physical);
    if (!backToPhysical && this.physicalStore && !this.persisted.has(action.nodeId)) {
      // Durable before the RM changes: a brain restarted after a crash must still know it.
      await this.physicalStore.put(action.nodeId, physical);
      this.persisted.add(action.nodeId);
    }
    await this.client.setNodeResource(action.nodeId, action.resource, -1);
    if (backToPhysical) this.overcommitted.delete(action.nodeId);
    else this.overcommitted.add(action.nodeId);
    if (backToPhysical && this.physicalStore && this.persisted.has(action.nodeId)) {
      await this.physicalStore.del(action.nodeId);
      this.persisted.delete(action.nodeId);
    }
    return { status: 'applied' };
  }

  /**
   * A new leader's first step: physical node capacities from each NodeManager's own configuration
   * (through the shims) where they tell, not from what a previous brain recorded, and what that
   * brain left (over-committed nodes, suspended containers) undone or adopted. Adopted nodes are
   * recorded like the brain's own over-commits, so a later stand-down gives them back too.
   * Throws when the RM cannot be read (nothing was changed then).
   */
  async takeOver(mode: TakeOverMode): Promise<TakeOverReport> {
    const errors: string[] = [];
    const notes: string[] = [];
    let configured = new Map<string, Resources>();
    if (this.shim?.configuredResources) {
      try {
        configured = await this.shim.configuredResources();
      } catch (err) {
        notes.push(`could not read the NodeManagers' configured resources: ${(err as Error).message}`);
      }
    }
    await this.loadPhysical();
    const nodes = await this.client.nodes();
    const physicalFrom: Record<string, 'nodemanager' | 'recorded' | 'advertised'> = {};
    const overcommitted: { nodeId: string; advertised: Resources; physical: Resources }[] = [];
    for (const n of nodes) {
      const advertised = nodeCapacity(n);
      const fromNm = configured.get(n.id);
      const recorded = this.persisted.has(n.id) ? this.physical.get(n.id) : undefined;
      const physical = fromNm ?? recorded ?? advertised;
      physicalFrom[n.id] = fromNm ? 'nodemanager' : recorded ? 'recorded' : 'advertised';
      this.physical.set(n.id, physical);
      // Only a figure above the physical one is an over-commit; one below is an operator's (a drain, say).
      if (advertised.memoryMB > physical.memoryMB || advertised.vcores > physical.vcores) overcommitted.push({ nodeId: n.id, advertised, physical });
      else if (!equals(advertised, physical))
        notes.push(
          `${n.id} is advertised below its physical capacity (${advertised.memoryMB} MB / ${advertised.vcores} vcores of ${physical.memoryMB} / ${physical.vcores}): left as it is`,
        );
    }
    const restoredNodes: string[] = [];
    const off = new Set(overcommitted.map((o) => o.nodeId));
    for (const o of overcommitted) {
      try {
        if (mode === 'undo') {
          await this.client.setNodeResource(o.nodeId, o.physical, -1);
          restoredNodes.push(o.nodeId);
          this.overcommitted.delete(o.nodeId);
          if (this.persisted.has(o.nodeId)) {
            await this.physicalStore?.del(o.nodeId);
            this.persisted.delete(o.nodeId);
          }
        } else {
          if (this.physicalStore && !this.persisted.has(o.nodeId)) {
            await this.physicalStore.put(o.nodeId, o.physical);
            this.persisted.add(o.nodeId);
          } else if (this.physicalStore) {
            await this.physicalStore.put(o.nodeId, o.physical);
          }
          this.overcommitted.add(o.nodeId);
        }
      } catch (err) {
        errors.push(
          `${mode === 'undo' ? 'restore' : 'adopt'} ${o.nodeId} (${o.physical.memoryMB} MB / ${o.physical.vcores} vcores): ${(err as Error).message}`,
        );
      }
    }
    // Records of nodes that are back at their physical capacity serve no one.
    for (const id of [...this.persisted]) {
      if (off.has(id) || !physicalFrom[id]) continue;
      await this.physicalStore?.del(id).catch((err: unknown) => errors.push(`drop the record of ${id}: ${(err as Error).message}`));
      this.persisted.delete(id);
    }
    const suspended: string[] = [];
    const resumedContainers: string[] = [];
    if (this.shim) {
      try {
        for (const c of await this.shim.containers()) {
          if (c.state !== 'SUSPENDED') continue;
          suspended.push(c.containerId);
          if (mode !== 'undo') continue;
          try {
            await this.shim.resume(c.nodeId, c.containerId);
            resumedContainers.push(c.containerId);
          } catch (err) {
            errors.push(`resume ${c.containerId}: ${(err as Error).message}`);
          }
        }
      } catch (err) {
        notes.push(`could not list the shims' containers (a lapsed lease resumes them): ${(err as Error).message}`);
      }
    }
    return { mode, physicalFrom, overcommitted, suspended, restoredNodes, resumedContainers, notes, errors };
  }

  /**
   * Hands the cluster back to the stock scheduler (clean shutdown): releases the shim lease so
   * every suspended container resumes at once, withdraws the node ranking, and gives every node
   * the brain over-committed its physical capacity back. Never throws; tries every step.
   */
  async standDown(): Promise<StandDownReport> {
    const errors: string[] = [];
    let resumedContainers: string[] = [];
    // The ranking is withdrawn before the lease is released: a release ends the shim's memory of
    // this brain's epoch, and a change sent after it would leave that epoch fenced for the next
    // brain, whose lock (and epoch count) may start over.
    if (this.shim && Object.keys(this.publishedScores).length > 0) {
      try {
        // An expired ranking gives the RM plugin's stock order back.
        await this.shim.publishRanking({ scores: {}, leastLoadedFirst: false, ttlMs: 1 });
        this.publishedScores = {};
      } catch (err) {
        errors.push(`withdraw the node ranking: ${(err as Error).message}`);
      }
    }
    if (this.shim?.releaseLease) {
      try {
        resumedContainers = await this.shim.releaseLease();
      } catch (err) {
        errors.push(`release the shim lease: ${(err as Error).message}`);
      }
    }
    const restoredNodes: string[] = [];
    try {
      await this.loadPhysical();
      const changed = new Set([...this.persisted, ...this.overcommitted]);
      if (changed.size > 0) {
        const current = new Map((await this.client.nodes()).map((n) => [n.id, nodeCapacity(n)]));
        for (const id of [...changed].sort()) {
          const physical = this.physical.get(id);
          const now = current.get(id);
          if (!physical) continue;
          try {
            if (now !== undefined && !equals(now, physical)) {
              await this.client.setNodeResource(id, physical, -1);
              restoredNodes.push(id);
            }
            if (this.persisted.has(id)) {
              await this.physicalStore?.del(id);
              this.persisted.delete(id);
            }
            this.overcommitted.delete(id);
          } catch (err) {
            errors.push(`restore ${id} to ${physical.memoryMB} MB / ${physical.vcores} vcores: ${(err as Error).message}`);
          }
        }
      }
    } catch (err) {
      errors.push(`restore node capacities: ${(err as Error).message}`);
    }
    return { restoredNodes, resumedContainers, errors };
  }

  private requireShim(what: string): NodeShim {
    if (!this.shim) throw new UnsupportedActionError(`cannot ${what}: no NodeManager shim configured`);
    return this.shim;
  }

  // ---- state dump ------------------------------------------------------------------------------

  async describeState(): Promise<Record<string, unknown>> {
    await this.loadPhysical().catch(() => undefined);
    const ranking = Object.entries(this.publishedScores).sort((a, b) => b[1] - a[1]);
    return {
      physicalCapacities: Object.fromEntries([...this.physical].sort(([a], [b]) => a.localeCompare(b))),
      physicalCapacitiesRecorded: [...this.persisted].sort(),
      overcommittedNodes: [...this.overcommitted].sort(),
      publishedRanking: { nodes: ranking.length, first: ranking.slice(0, 20).map(([node, score]) => ({ node, score })) },
      shim: this.shim !== undefined,
      containerReads: { ...this.readStats, nodeShimsListed: this.shimLists.size },
      reservationQueue: this.reservations?.queue ?? null,
    };
  }

  // ---- capabilities ----------------------------------------------------------------------------

  async capabilities(): Promise<Capabilities> {
    const notes: string[] = [];
    let queueWrites = false;
    if (this.reservations) notes.push(`queueWrites: ${RESERVATION_SYSTEM_NOTE}`);
    else
      try {
        // The whole configuration is read again only when its version moved (the version is a few
        // bytes; a read that fails falls back to reading the configuration, which says why).
        const version = await this.client.schedulerConfVersion().catch(() => undefined);
        if (version === undefined || this.confChecked?.version !== version) {
          // Readable means mutable: the RM only serves it from a mutable store. (Multi-node placement
          // keys are not checked here: they may live in yarn-site.xml, which this endpoint omits.)
          await this.client.schedulerConf();
          this.confChecked = version === undefined ? undefined : { version, queueWrites: true };
        }
        queueWrites = true;
      } catch (err) {
        this.confChecked = undefined;
        if (err instanceof ReadOnlySchedulerConfError) {
          notes.push(
            'queueWrites: the scheduler configuration store is read-only (set yarn.scheduler.configuration.store.class to memory, leveldb or zk); queue decisions are advisory',
          );
        } else {
          notes.push(`queueWrites: could not read the scheduler configuration: ${(err as Error).message}`);
        }
      }

    let shimReachable = false;
    if (!this.shim) {
      notes.push('containerSuspend: no NodeManager shim configured');
      notes.push('nodeRanking: no NodeManager shim configured (the RM placement plugin learns the ranking through it)');
    } else {
      try {
        if (this.perNodeShims && this.shimLists.size > 0) shimReachable = true;
        else if (this.perNodeShims) await this.shim.nodeShimContainers!(this.shim.nodeShimUrls!()[0]!);
        else await this.shim.containers();
        shimReachable = true;
      } catch (err) {
        notes.push(`containerSuspend: NodeManager shim unreachable: ${(err as Error).message}`);
        notes.push(`nodeRanking: NodeManager shim unreachable: ${(err as Error).message}`);
      }
    }
    return { queueWrites, containerSuspend: shimReachable, nodeRanking: shimReachable, ...(shimReachable ? { rankingTtlMs: this.rankingTtlMs } : {}), notes };
  }
}

// ---- mapping helpers (exported for unit tests) ---------------------------------------------------

export function toResources(r: RmResourceInfo): Resources {
  return { memoryMB: Math.max(0, r.memory), vcores: Math.max(0, r.vCores) };
}

/** What the RM advertises for the node: `totalResource` (Hadoop 3.3+), else available + used. */
export function nodeCapacity(n: RmNodeInfo): Resources {
  if (n.totalResource) return toResources(n.totalResource);
  return { memoryMB: n.availMemoryMB + n.usedMemoryMB, vcores: n.availableVirtualCores + n.usedVirtualCores };
}

/** Why an updateQueues action cannot be right for this tree (undefined when it can). */
export function queueUpdateProblem(action: ActionOf<'updateQueues'>, root: QueueView): string | undefined {
  const added = new Set<string>();
  for (const q of action.add) {
    if (findQueue(root, q.path)) return `cannot add ${q.path}: the queue already exists`;
    const parent = q.path.slice(0, Math.max(0, q.path.lastIndexOf('.')));
    if (!parent || (!findQueue(root, parent) && !added.has(parent))) return `cannot add ${q.path}: parent queue ${parent || '(none)'} does not exist`;
    added.add(q.path);
  }
  for (const u of action.update) {
    if (!findQueue(root, u.path) && !added.has(u.path)) return `cannot update ${u.path}: the queue does not exist`;
  }
  return undefined;
}

/** An absolute-resource capacity (Hadoop ≥ 3.1). The RM reads memory 0 as no guarantee at all, vcores 0 as none of them. */
function absoluteResources(r: Resources): string {
  return `[memory=${Math.round(r.memoryMB)},vcores=${Math.round(r.vcores)}]`;
}

/**
 * The default partition's resource as CapacityScheduler gives it to root: its effective minimum
 * (CapacitySchedulerQueueCapacityHandler.updateRoot). Unlike /cluster/metrics' total, which adds
 * the root queue's metrics, it does not move while a container is reserved or handed out.
 */
export function rootPartitionResource(root: RmCapacitySchedulerInfo): Resources | undefined {
  const parts = (root.capacities as { queueCapacitiesByPartition?: unknown } | undefined)?.queueCapacitiesByPartition;
  const first = [parts].flat().find((p) => p && typeof p === 'object' && !(p as { partitionName?: string }).partitionName) as
    { effectiveMinResource?: { memory?: unknown; vCores?: unknown } } | undefined;
  const r = first?.effectiveMinResource;
  if (!r || typeof r.memory !== 'number' || typeof r.vCores !== 'number' || r.memory < 0 || r.vCores < 0) return undefined;
  return { memoryMB: r.memory, vcores: r.vCores };
}

/** The configured guarantee of a queue in absolute-resource mode (`isAbsoluteResource`, the default partition's `configuredMinResource`). */
function configuredMinResource(q: RmQueueInfo): Resources | undefined {
  if (q.isAbsoluteResource !== true) return undefined;
  const parts = (q.capacities as { queueCapacitiesByPartition?: unknown } | undefined)?.queueCapacitiesByPartition;
  const first = [parts].flat().find((p) => p && typeof p === 'object' && !(p as { partitionName?: string }).partitionName) as
    { configuredMinResource?: { memory?: unknown; vCores?: unknown } } | undefined;
  const r = first?.configuredMinResource;
  if (!r || typeof r.memory !== 'number' || typeof r.vCores !== 'number') return undefined;
  return { memoryMB: r.memory, vcores: r.vCores };
}

/** CapacityScheduler capacities travel as strings; keep integers integral (`50`, not `50.0`). */
function pct(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
}

export function toQueueTree(root: RmCapacitySchedulerInfo): QueueView {
  const rootPath = root.queuePath ?? root.queueName;
  const children = (root.queues?.queue ?? []).map((q, i) => toQueueView(q, rootPath, `queues.queue.${i}`));
  return {
    path: rootPath,
    name: root.queueName,
    // CapacitySchedulerInfo carries no state for root; a stopped root would stop every queue.
    state: 'RUNNING',
    capacityPct: root.capacity,
    maxCapacityPct: root.maxCapacity,
    absoluteCapacityPct: 100,
    absoluteMaxCapacityPct: 100,
    usedCapacityPct: root.usedCapacity,
    used: sumQueueUsage(children),
    numApplications: children.reduce((n, c) => n + c.numApplications, 0),
    children,
  };
}

function toQueueView(q: RmQueueInfo, parentPath: string, field: string): QueueView {
  const path = q.queuePath ?? `${parentPath}.${q.queueName}`;
  const state = q.state ?? 'RUNNING';
  if (!QUEUE_STATES.has(state)) throw new RmProtocolError(`GET /scheduler: ${field}.state: unknown queue state ${state}`);
  const children = (q.queues?.queue ?? []).map((c, i) => toQueueView(c, path, `${field}.queues.queue.${i}`));
  const capacityResource = configuredMinResource(q);
  return {
    path,
    name: q.queueName,
    state: state as QueueState,
    capacityPct: q.capacity,
    ...(capacityResource ? { capacityResource } : {}),
    maxCapacityPct: q.maxCapacity,
    absoluteCapacityPct: q.absoluteCapacity ?? q.capacity,
    absoluteMaxCapacityPct: q.absoluteMaxCapacity ?? q.maxCapacity,
    usedCapacityPct: q.usedCapacity,
    used: q.resourcesUsed ? toResources(q.resourcesUsed) : sumQueueUsage(children),
    numApplications: q.numApplications ?? children.reduce((n, c) => n + c.numApplications, 0),
    children,
  };
}

function sumQueueUsage(queues: readonly QueueView[]): Resources {
  return queues.reduce((acc, q) => ({ memoryMB: acc.memoryMB + q.used.memoryMB, vcores: acc.vcores + q.used.vcores }), ZERO);
}

/** Leaf name → full path, for RMs that report an app's queue by leaf name only. */
export function leafPathsByName(root: QueueView): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  const walk = (q: QueueView): void => {
    if (q.children.length === 0) byName.set(q.name, [...(byName.get(q.name) ?? []), q.path]);
    q.children.forEach(walk);
  };
  walk(root);
  return byName;
}

export function resolveQueuePath(queue: string, leafPaths: ReadonlyMap<string, readonly string[]>): string {
  if (queue === 'root' || queue.startsWith('root.')) return queue;
  const candidates = leafPaths.get(queue);
  return candidates && candidates.length === 1 ? candidates[0]! : `root.${queue}`;
}

/** `applicationTags` is comma-separated; `k=v` tags become entries, bare tags map to `''`. */
export function parseTags(raw: string | undefined): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const tag of (raw ?? '').split(',')) {
    const t = tag.trim();
    if (!t) continue;
    const eq = t.indexOf('=');
    if (eq < 0) tags[t] = '';
    else tags[t.slice(0, eq)] = t.slice(eq + 1);
  }
  return tags;
}

export function toAppView(a: RmAppInfo, index: number, leafPaths: ReadonlyMap<string, readonly string[]>): AppView {
  if (!APP_STATES.has(a.state)) throw new RmProtocolError(`GET /apps: apps.app.${index}.state: unknown application state ${a.state}`);
  // Only the ANY ("*") request counts containers: node and rack requests repeat the same asks.
  const anyRequests = (a.resourceRequests ?? []).filter((r) => r.resourceName === ANY_RESOURCE_NAME && r.numContainers > 0);
  const pendingContainers = anyRequests.reduce((n, r) => n + r.numContainers, 0);
  const largest = anyRequests
    .map((r) => toResources(r.capability))
    .reduce<Resources | undefined>(
      (best, r) => (!best || r.memoryMB > best.memoryMB || (r.memoryMB === best.memoryMB && r.vcores > best.vcores) ? r : best),
      undefined,
    );
  return {
    id: a.id,
    name: a.name,
    user: a.user,
    queue: resolveQueuePath(a.queue, leafPaths),
    state: a.state as AppState,
    priority: a.priority ?? 0,
    submittedAtMs: a.startedTime,
    ...(a.launchTime && a.launchTime > 0 ? { startedAtMs: a.launchTime } : {}),
    pendingContainers,
    ...(largest ? { pendingContainerResource: largest } : {}),
    runningContainers: Math.max(0, a.runningContainers ?? 0),
    // -1 while the app holds nothing.
    allocated: { memoryMB: Math.max(0, a.allocatedMB ?? 0), vcores: Math.max(0, a.allocatedVCores ?? 0) },
    tags: parseTags(a.applicationTags),
  };
}

export function toContainerView(c: RmContainerInfo, appId: string, shim: ShimContainer | undefined, appMaster = false): ContainerView {
  const nodeId = c.assignedNodeId ?? c.nodeId;
  if (!nodeId) throw new RmProtocolError(`containers of ${appId}: container ${c.containerId} has neither assignedNodeId nor nodeId`);
  return {
    id: c.containerId,
    appId,
    nodeId,
    resource: { memoryMB: c.allocatedMB, vcores: c.allocatedVCores },
    state: shim?.state ?? 'RUNNING',
    startedAtMs: c.startedTime,
    ...(shim ? { attainedServiceMs: shim.attainedServiceMs, runningSinceMs: shim.runningSinceMs } : {}),
    ...(appMaster ? { appMaster: true } : {}),
  };
}

/**
 * A node shim's list split by node: a node's containers count as complete when every one carries
 * its allocation and they add up to what the RM shows on the node (containers, memory, vcores).
 * The RM counts a container from its allocation, the NodeManager from its launch: until then
 * the node is incomplete (and read again next refresh), its apps read from the RM.
 */
function completeShimList(nodes: readonly string[], containers: readonly ShimContainer[], rmNode: ReadonlyMap<string, RmNodeInfo>, nowMs: number): ShimList {
  // A NodeManager's shim serves its one node: its list needs no grouping.
  const only = nodes.length === 1 ? nodes[0]! : undefined;
  if (only !== undefined && containers.every((c) => c.nodeId === only)) {
    const n = rmNode.get(only);
    if (!n) return { readAtMs: nowMs, containers, nodeKeys: new Map(), complete: NO_SHIM_CONTAINER_LIST, incompleteNodes: NO_NODE_IDS };
    const nodeKeys = new Map([[only, nodeShimKey(n)]]);
    return addsUpToNode(n, containers)
      ? { readAtMs: nowMs, containers, nodeKeys, complete: containers, incompleteNodes: NO_NODE_IDS }
      : { readAtMs: nowMs, containers, nodeKeys, complete: NO_SHIM_CONTAINER_LIST, incompleteNodes: new Set([only]) };
  }
  const byNode = new Map<string, ShimContainer[]>();
  for (const c of containers) {
    const l = byNode.get(c.nodeId);
    if (l) l.push(c);
    else byNode.set(c.nodeId, [c]);
  }
  const keys = new Map<string, string>();
  const complete: ShimContainer[] = [];
  const incompleteNodes = new Set<string>();
  for (const id of new Set([...nodes, ...byNode.keys()])) {
    const n = rmNode.get(id);
    if (!n) continue;
    keys.set(id, nodeShimKey(n));
    const list = byNode.get(id) ?? [];
    if (addsUpToNode(n, list)) complete.push(...list);
    else incompleteNodes.add(id);
  }
  return { readAtMs: nowMs, containers, nodeKeys: keys, complete, incompleteNodes };
}

/** A node's listed containers all carry their allocation and add up to the RM's figures of the node (count, memory, vcores). */
function addsUpToNode(n: RmNodeInfo, list: readonly ShimContainer[]): boolean {
  let memoryMB = 0;
  let vcores = 0;
  for (const c of list) {
    if (!c.allocated || appIdOfContainer(c.containerId) === undefined) return false;
    memoryMB += c.allocated.memoryMB;
    vcores += c.allocated.vcores;
  }
  const used = n.usedResource ? toResources(n.usedResource) : { memoryMB: n.usedMemoryMB, vcores: n.usedVirtualCores };
  return list.length === n.numContainers && memoryMB === used.memoryMB && vcores === used.vcores;
}
const NO_SHIM_CONTAINER_LIST: readonly ShimContainer[] = [];
const NO_NODE_IDS: ReadonlySet<string> = new Set();

/** Drops the entries of ids `listed` (the items just listed, each under its id) no longer holds. */
function forgetUnlisted<V>(byId: Map<string, V>, listed: readonly { readonly id: string }[]): void {
  if (byId.size <= listed.length) return;
  const ids = new Set<string>();
  for (const x of listed) ids.add(x.id);
  for (const id of byId.keys()) if (!ids.has(id)) byId.delete(id);
}

/** Whether `test` holds for some entry of the map (no entry arrays made, as `for … of` may). */
function someEntry<K, V>(m: ReadonlyMap<K, V>, test: (value: V, key: K) => boolean): boolean {
  let found = false;
  m.forEach((v, k) => {
    if (!found && test(v, k)) found = true;
  });
  return found;
}

/** The app's containers on complete shim lists add up to its counters in the apps list. */
function shimCovers(listed: ShimAppContainers, a: RmAppInfo): boolean {
  return (
    listed.n === Math.max(0, a.runningContainers ?? 0) &&
    listed.memoryMB === Math.max(0, a.allocatedMB ?? 0) &&
    listed.vcores === Math.max(0, a.allocatedVCores ?? 0)
  );
}

const byContainerId = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);

/** A running app's entry from its containers on complete shim lists (views with the shims' figures). */
function shimEntry(a: RmAppInfo, key: string, listed: ShimAppContainers): AppContainers {
  const amId = amContainerIdOf(a.amContainerLogs);
  const containers: ContainerView[] = [];
  for (const c of listed.byId.values()) containers.push(shimView(a, c, amId));
  containers.sort((x, y) => byContainerId(x.id, y.id));
  return { key, fromShims: true, amKey: a.amContainerLogs, containers, memoryMB: listed.memoryMB, vcores: listed.vcores };
}

/** The view of a container on a complete shim list, for its app's entry. */
function shimView(a: RmAppInfo, c: ShimContainer, amId: string | undefined): ContainerView {
  return {
    id: c.containerId,
    appId: a.id,
    nodeId: c.nodeId,
    resource: c.allocated!,
    state: c.state,
    startedAtMs: c.createdAtMs ?? c.runningSinceMs,
    attainedServiceMs: c.attainedServiceMs,
    runningSinceMs: c.runningSinceMs,
    ...(c.appMaster === true || c.containerId === amId ? { appMaster: true } : {}),
  };
}

/**
 * The app's last shim entry with the containers the shims' lists changed (`changedIds`) taken
 * out, put in or replaced, and what moved. The entries' lists stay sorted by id, so a change is
 * found by binary search and the list is copied once. Undefined when the AM container is not the
 * one the entry was built with (every view's AM flag may move): the entry is then built again.
 */
function patchShimEntry(
  a: RmAppInfo,
  key: string,
  listed: ShimAppContainers,
  old: AppContainers,
  changedIds: ReadonlySet<string> | undefined,
): { entry: AppContainers; removed: ContainerView[]; added: ContainerView[] } | undefined {
  if (old.amKey !== a.amContainerLogs) return undefined;
  const removed: ContainerView[] = [];
  const added: ContainerView[] = [];
  const base = { ...old, key, memoryMB: listed.memoryMB, vcores: listed.vcores };
  if (!changedIds) return { entry: base, removed, added };
  const amId = amContainerIdOf(a.amContainerLogs);
  const last = old.containers;
  const indexOf = (id: string): number => {
    let lo = 0;
    let hi = last.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (last[mid]!.id < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  // Changes by position in the last list: at `at`, drop the view there (`drop`) and/or put `view`.
  const changes: Array<{ at: number; drop: boolean; view?: ContainerView }> = [];
  for (const id of [...changedIds].sort(byContainerId)) {
    const at = indexOf(id);
    const had = last[at]?.id === id ? last[at] : undefined;
    const c = listed.byId.get(id);
    const view = c ? shimView(a, c, amId) : undefined;
    if (had && view && sameView(had, view)) continue;
    if (had) removed.push(had);
    if (view) added.push(view);
    if (had || view) changes.push({ at, drop: had !== undefined, ...(view ? { view } : {}) });
  }
  if (changes.length === 0) return { entry: base, removed, added };
  const containers: ContainerView[] = [];
  let from = 0;
  for (const ch of changes) {
    for (let i = from; i < ch.at; i++) containers.push(last[i]!);
    from = ch.at;
    if (ch.drop) from++;
    if (ch.view) containers.push(ch.view);
  }
  for (let i = from; i < last.length; i++) containers.push(last[i]!);
  return { entry: { ...base, containers }, removed, added };
}

/** What an app's new entry replaced: its whole last list (the new one is the entry's), or the views a patch took out and put in. */
interface Replacement {
  readonly removed: readonly ContainerView[];
  readonly added?: readonly ContainerView[];
}

/** Per running app, the containers whose shim listing moved since the last refresh. */
type ShimChanges = Map<string, Set<string>>;

function noteShimChange(changes: ShimChanges, appId: string, containerId: string): void {
  const ids = changes.get(appId);
  if (ids) ids.add(containerId);
  else changes.set(appId, new Set([containerId]));
}

/** An RM-read entry with the shims' figures of the containers they list (the same entry when none moved). */
function withShimFigures(e: AppContainers, shimById: ReadonlyMap<string, ShimContainer>): AppContainers {
  let out: ContainerView[] | undefined;
  e.containers.forEach((c, i) => {
    const s = shimById.get(c.id);
    if (!s || (c.state === s.state && c.attainedServiceMs === s.attainedServiceMs && c.runningSinceMs === s.runningSinceMs)) return;
    out ??= [...e.containers];
    out[i] = { ...c, state: s.state, attainedServiceMs: s.attainedServiceMs, runningSinceMs: s.runningSinceMs };
  });
  return out ? { ...e, containers: out } : e;
}

function sameShimContainer(a: ShimContainer, b: ShimContainer): boolean {
  return (
    a.containerId === b.containerId &&
    a.nodeId === b.nodeId &&
    a.state === b.state &&
    a.attainedServiceMs === b.attainedServiceMs &&
    a.runningSinceMs === b.runningSinceMs &&
    a.createdAtMs === b.createdAtMs &&
    a.appMaster === b.appMaster &&
    a.allocated?.memoryMB === b.allocated?.memoryMB &&
    a.allocated?.vcores === b.allocated?.vcores
  );
}

function sameViews(a: readonly ContainerView[], b: readonly ContainerView[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameView(a[i]!, b[i]!)) return false;
  return true;
}

/** Two views of one app's container that say the same. */
function sameView(x: ContainerView, y: ContainerView): boolean {
  return (
    x.id === y.id &&
    x.nodeId === y.nodeId &&
    equals(x.resource, y.resource) &&
    x.state === y.state &&
    x.startedAtMs === y.startedAtMs &&
    x.attainedServiceMs === y.attainedServiceMs &&
    x.runningSinceMs === y.runningSinceMs &&
    x.appMaster === y.appMaster
  );
}

/**
 * A new shim entry whose containers that say what the last entry's said are the last entry's
 * objects: a node whose containers are all as before then keeps its list and view (changedContainers).
 */
function withViewsKept(entry: AppContainers, last: readonly ContainerView[]): AppContainers {
  const lastById = new Map(last.map((c) => [c.id, c]));
  const containers = entry.containers.map((c) => {
    const l = lastById.get(c.id);
    return l !== undefined && sameView(l, c) ? l : c;
  });
  return { ...entry, containers };
}

/**
 * `buildSnapshot` (core/snapshot.ts) with its maps filled in time slices: the containers' map
 * alone holds 200,000 entries at 10,000 nodes.
 */
export async function buildSnapshotSliced(
  p: Omit<SnapshotParts, 'containers'> & { containers: ContainerView[] | ReadonlyMap<string, ContainerView>; totalCapacity?: Resources },
  slicer: TimeSlicer,
): Promise<ClusterSnapshot> {
  const fill = async <T extends { id: string }>(items: readonly T[]): Promise<Map<string, T>> => {
    const m = new Map<string, T>();
    for (let i = 0; i < items.length; i++) {
      if ((i & 1023) === 0) await slicer.maybeNext();
      m.set(items[i]!.id, items[i]!);
    }
    return m;
  };
  const nodes = await fill(p.nodes);
  const apps = await fill(p.apps);
  const containers = Array.isArray(p.containers) ? await fill(p.containers) : p.containers;
  return {
    nowMs: p.nowMs,
    totalCapacity: p.totalCapacity ?? (p.nodes.length ? sum(p.nodes.filter((n) => n.state === 'RUNNING').map((n) => n.capacity)) : ZERO),
    nodes,
    apps,
    containers,
    rootQueue: p.rootQueue,
  };
}

/** Never throws: turns any error into a failed outcome with the reason an operator can act on. */
export function toFailedOutcome(err: unknown): Extract<ApplyOutcome, { status: 'failed' }> {
  if (err instanceof RmRejectedError) return { status: 'failed', error: `RM refused (${err.status}): ${err.message}`, retryable: false };
  if (err instanceof RmUnavailableError) return { status: 'failed', error: err.message, retryable: true };
  if (err instanceof SchedbrainError) {
    const retryable = (err as { retryable?: unknown }).retryable === true;
    return { status: 'failed', error: err.message, retryable };
  }
  return { status: 'failed', error: err instanceof Error ? err.message : String(err), retryable: false };
}
