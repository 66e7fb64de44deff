/**
 * Big-C (Chen, Rao, Zhou, USENIX ATC'17), the preemptive baseline of the Kairos paper (§5.1):
 * jobs fall in two classes by a runtime estimate; short jobs have priority and a guaranteed share
 * of the cluster (95 % by default), long jobs use the rest and anything idle; when short tasks
 * need room, running long tasks are suspended (Big-C pauses their Docker container) and resumed
 * once cores free up.
 *
 * Mechanism here:
 * - `class.priority`: `setAppPriority` so the RM places short jobs' containers first;
 * - `preempt.suspend`: short demand that finds no free core, while short jobs hold less than their
 *   share and long jobs more than theirs, suspends the newest long containers;
 * - `node.capacity`: a node advertises its physical capacity plus what its suspended containers
 *   hold (they keep their allocation in YARN), so the RM can place short tasks in their stead;
 * - `node.cores`: at most N cores' worth of containers run on a node; excess long ones wait;
 * - `preempt.resume`: a suspended long task resumes, oldest first, when its node has a free core
 *   that no short task is waiting for.
 *
 * A cycle costs what changed, not the cluster size. What a cycle needs to know of every node (its
 * cores N, allocated vcores and known suspended containers, whether it runs more than N, could
 * resume a container or advertises the wrong capacity) is kept in the state with the cluster's
 * totals, and brought up to date for the nodes the snapshot reports as changed (and those whose
 * containers the last cycle suspended or resumed); the rules then look at the nodes the figures
 * single out. A full pass over every node is made on the periodic scan for suspended containers,
 * whenever the backend cannot say what changed (live YARN: the figures are then not kept), and
 * when the kept figures do not fit the snapshot. Only choosing victims for short demand (when it
 * has a budget) still looks at every running container. Incremental cycles update the state in
 * place (`updatesStateInPlace`).
 */
import { z } from 'zod';
import { decisionWithLazyReason, type Decision } from '../../core/actions.js';
import {
  containerAt,
  isActiveApp,
  type AppId,
  type AppView,
  type ClusterSnapshot,
  type ContainerId,
  type ContainerView,
  type NodeId,
  type NodeView,
} from '../../core/model.js';
import { definePolicy } from '../../core/policy.js';
import { add, equals, type Resources } from '../../core/resources.js';

const POLICY = 'bigc';

export const bigcParamsSchema = z
  .object({
    /** Share of the cluster's cores guaranteed to short jobs (Big-C default 95 %). */
    shortSharePct: z.number().min(0).max(100).default(95),
    /**
     * A job is short when its runtime estimate (the `estimateTag` application tag, ms; the
     * workloads put the job's mean task duration there) is below this cutoff. Default: the
     * Eagle/Kairos cutoff of the Yahoo trace, 90.5811 s.
     */
    shortCutoffMs: z.number().nonnegative().default(90_581.1),
    estimateTag: z.string().min(1).default('schedbrain.estimate-ms'),
    /** Class of jobs without a usable estimate. */
    unknownClass: z.enum(['short', 'long']).default('long'),
    shortPriority: z.number().int().default(10),
    longPriority: z.number().int().default(0),
    /** Cores N per node; unset: the node's physical vcores. */
    coresPerNode: z.number().int().positive().optional(),
  })
  .strict();

export type BigcParams = z.infer<typeof bigcParamsSchema>;

export interface BigcState {
  /** When each container we suspended was suspended (resume order: oldest first). */
  suspendedAtMs: Record<ContainerId, number>;
  /** Last scan of every container for suspended ones (undefined before the first cycle). */
  lastScanMs?: number;
  /**
   * What the last cycle knew of every node, kept while the backend reports which nodes change
   * (absent: the next cycle makes a full pass over the nodes).
   */
  nodeFigures?: NodeFigures;
  /**
   * What the last cycle knew of every application, kept while the backend reports which
   * applications change (absent: the next cycle walks every application).
   */
  appFigures?: AppFigures;
}

/** Every application's class and share, and the totals over the active ones. */
export interface AppFigures {
  /** The parameters they were computed with (JSON): other parameters need a full pass. */
  params: string;
  /** Every application of the snapshot (a dictionary). */
  apps: Record<AppId, AppFigure>;
  /** Number of entries in `apps`. */
  size: number;
  /** `seq` of the next application seen for the first time. */
  nextSeq: number;
  /** Σ allocated vcores of active short applications (suspended containers included). */
  shortCores: number;
  /** Σ allocated vcores of active long applications (suspended containers included). */
  longCores: number;
  /** Σ pending vcores of active short applications. */
  shortPending: number;
  /** Applications the last cycle asked a priority change for: looked at again next cycle. */
  asked: AppId[];
}

export interface AppFigure {
  /**
   * Order of first sight: decisions on applications come in this order, which is the snapshot's
   * order for applications that arrive in it.
   */
  seq: number;
  /** Its class (fixed while the parameters are: YARN does not change an application's tags). */
  long: boolean;
  /** Its allocated vcores and pending vcores as added to the totals (0 when not active). */
  cores: number;
  pending: number;
}

/** Every node's figures and the cluster's totals over them. */
export interface NodeFigures {
  /** The parameters they were computed with (JSON): other parameters need a full pass. */
  params: string;
  /** Number of nodes in the snapshot, in any state. */
  size: number;
  /** Every node of the snapshot (a dictionary). */
  nodes: Record<NodeId, NodeFigure>;
  /** Σ N over RUNNING nodes. */
  totalCores: number;
  /** Σ max(0, N − running vcores) over RUNNING nodes. */
  freeCores: number;
  /**
   * Vcores of the known suspended containers, by class (on any node). An application's class
   * stays as long as the parameters do: YARN does not change an application's tags.
   */
  suspendedLongCores: number;
  suspendedShortCores: number;
  /** RUNNING nodes with more than N running vcores (dictionaries used as sets). */
  overfull: Record<NodeId, true>;
  /** RUNNING nodes with a free core and a suspended long container. */
  resumable: Record<NodeId, true>;
  /** RUNNING nodes advertising other than physical capacity plus their suspended containers. */
  misadvertised: Record<NodeId, true>;
  /** Nodes whose suspended containers the last cycle changed: looked at again next cycle. */
  touched: NodeId[];
}

export interface NodeFigure {
  /** Position in the snapshot's node order (decisions on nodes come in that order). */
  i: number;
  /** Cores N; 0 when the node is not RUNNING. */
  cores: number;
  /** Allocated vcores (running and suspended containers). */
  used: number;
  /** The node's containers in `suspendedAtMs`. */
  suspended: ContainerId[];
  /** Their vcores, by class, and the node's free cores, as added to the totals. */
  longVc: number;
  shortVc: number;
  free: number;
}

/** How often every container is scanned for suspended ones (others come from the state). */
const SCAN_INTERVAL_MS = 60_000;

export type JobClass = 'short' | 'long';

export function classify(app: AppView, params: BigcParams): { cls: JobClass; estimateMs?: number } {
  const raw = app.tags[params.estimateTag];
  const estimateMs = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  if (!Number.isFinite(estimateMs)) return { cls: params.unknownClass };
  return { cls: estimateMs < params.shortCutoffMs ? 'short' : 'long', estimateMs };
}

const sec = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
const vc = (r: Resources): number => Math.max(1, r.vcores);

const dictionary = <V>(): Record<string, V> => Object.create(null) as Record<string, V>;
const isDictionary = (x: unknown): boolean => typeof x === 'object' && x !== null && Object.getPrototypeOf(x) === null;

/** What a node advertises: its physical capacity plus what its suspended containers hold. */
function advertised(node: NodeView, suspended: readonly ContainerView[]): Resources {
  let want: Resources = node.physicalCapacity;
  for (const c of suspended) want = add(want, c.resource);
  return want;
}

/**
 * Enters a node's figures, with its known suspended containers, and adds them to the totals;
 * `e`: the node's entry, taken out of the totals, to be updated.
 */
function enterNode(
  f: NodeFigures,
  node: NodeView,
  i: number,
  suspended: readonly ContainerView[],
  e: NodeFigure | undefined,
  isLong: (c: ContainerView) => boolean,
  params: BigcParams,
): void {
  let longVc = 0;
  let shortVc = 0;
  for (const c of suspended) {
    if (isLong(c)) longVc += vc(c.resource);
    else shortVc += vc(c.resource);
  }
  const isRunning = node.state === 'RUNNING';
  const cores = isRunning ? (params.coresPerNode ?? Math.max(1, node.physicalCapacity.vcores)) : 0;
  const used = node.used.vcores;
  const runCores = used - longVc - shortVc;
  const free = isRunning ? Math.max(0, cores - runCores) : 0;
  const ids = suspended.map((c) => c.id);
  if (e === undefined) f.nodes[node.id] = { i, cores, used, suspended: ids, longVc, shortVc, free };
  else {
    e.i = i;
    e.cores = cores;
    e.used = used;
    e.suspended = ids;
    e.longVc = longVc;
    e.shortVc = shortVc;
    e.free = free;
  }
  f.suspendedLongCores += longVc;
  f.suspendedShortCores += shortVc;
  if (!isRunning) return;
  f.totalCores += cores;
  f.freeCores += free;
  if (runCores > cores) f.overfull[node.id] = true;
  if (longVc > 0 && cores - runCores >= 1) f.resumable[node.id] = true;
  if (!equals(node.capacity, advertised(node, suspended))) f.misadvertised[node.id] = true;
}

/** Takes a node's figures out of the totals (its entry stays, to be entered again). */
function leaveNode(f: NodeFigures, id: NodeId, e: NodeFigure): void {
  f.suspendedLongCores -= e.longVc;
  f.suspendedShortCores -= e.shortVc;
  f.totalCores -= e.cores;
  f.freeCores -= e.free;
  delete f.overfull[id];
  delete f.resumable[id];
  delete f.misadvertised[id];
}

function emptyFigures(snapshot: ClusterSnapshot, paramsKey: string): NodeFigures {
  return {
    params: paramsKey,
    size: snapshot.nodes.size,
    nodes: dictionary<NodeFigure>(),
    totalCores: 0,
    freeCores: 0,
    suspendedLongCores: 0,
    suspendedShortCores: 0,
    overfull: dictionary<true>(),
    resumable: dictionary<true>(),
    misadvertised: dictionary<true>(),
    touched: [],
  };
}

/**
 * Whether kept figures are for these parameters and as many nodes, and were kept in this
 * process (a JSON copy loses its dictionaries: the figures are then built again).
 */
function fits(f: NodeFigures | undefined, snapshot: ClusterSnapshot, paramsKey: string): f is NodeFigures {
  if (f === undefined || f.params !== paramsKey || f.size !== snapshot.nodes.size || !Array.isArray(f.touched)) return false;
  return isDictionary(f.nodes) && isDictionary(f.overfull) && isDictionary(f.resumable) && isDictionary(f.misadvertised);
}

/** Whether the figures know every node to look at (the changed ones and those touched last cycle). */
function knows(f: NodeFigures, snapshot: ClusterSnapshot, changed: ReadonlySet<NodeId>): boolean {
  for (const id of changed) if (f.nodes[id] === undefined || !snapshot.nodes.has(id)) return false;
  for (const id of f.touched) if (f.nodes[id] === undefined || !snapshot.nodes.has(id)) return false;
  return true;
}

/**
 * Enters every node of the snapshot, with the suspended containers found on it. Into kept
 * figures (`reuse`) only when they have an entry for every node (false otherwise: build anew).
 */
function enterAll(
  f: NodeFigures,
  reuse: boolean,
  snapshot: ClusterSnapshot,
  suspByNode: ReadonlyMap<NodeId, ContainerView[]>,
  isLong: (c: ContainerView) => boolean,
  params: BigcParams,
): boolean {
  let i = 0;
  for (const node of snapshot.nodes.values()) {
    const e = reuse ? f.nodes[node.id] : undefined;
    if (reuse) {
      if (e === undefined) return false;
      leaveNode(f, node.id, e);
    }
    enterNode(f, node, i++, suspByNode.get(node.id) ?? [], e, isLong, params);
  }
  return true;
}

/**
 * Whether every node holds exactly the suspended containers the figures know of, so that a scan
 * would find nothing new: it counts each node's suspended containers (no lookups) against the
 * figures' count. The count is enough on a node that did not change: what happens to a
 * container there without a change being reported is only this policy's own suspensions and
 * resumes, and a resume leaves the known list when asked for, so a known container is suspended
 * still and a difference in number is an unknown one (a suspension that landed late, or a
 * resume that did not land yet). On a node that changed, or whose suspended containers the last
 * cycle changed, the known ones are looked up. Containers on nodes the snapshot does not list
 * make it false.
 */
function noneUnknown(f: NodeFigures, snapshot: ClusterSnapshot, changed: ReadonlySet<NodeId>): boolean {
  const touched = f.touched.length > 0 ? new Set(f.touched) : undefined;
  let listed = 0;
  for (const node of snapshot.nodes.values()) {
    const e = f.nodes[node.id];
    if (e === undefined) return false;
    const n = node.containerIds.length;
    listed += n;
    let suspended = 0;
    for (let j = 0; j < n; j++) if (containerAt(snapshot, node, j)?.state === 'SUSPENDED') suspended++;
    let known = e.suspended.length;
    if (changed.has(node.id) || touched?.has(node.id)) {
      known = 0;
      for (const cid of e.suspended) {
        const c = snapshot.containers.get(cid);
        if (c !== undefined && c.state === 'SUSPENDED' && c.nodeId === node.id) known++;
      }
    }
    if (suspended !== known) return false;
  }
  return listed === snapshot.containers.size;
}

function emptyAppFigures(paramsKey: string): AppFigures {
  return { params: paramsKey, apps: dictionary<AppFigure>(), size: 0, nextSeq: 0, shortCores: 0, longCores: 0, shortPending: 0, asked: [] };
}

/** Enters an application (a new entry when `e` is undefined) and adds its share to the totals. */
function enterApp(f: AppFigures, app: AppView, e: AppFigure | undefined, params: BigcParams): AppFigure {
  if (e === undefined) {
    e = { seq: f.nextSeq++, long: classify(app, params).cls === 'long', cores: 0, pending: 0 };
    f.apps[app.id] = e;
    f.size++;
  }
  const active = isActiveApp(app);
  e.cores = active ? app.allocated.vcores : 0;
  e.pending = active && !e.long && app.pendingContainers > 0 ? app.pendingContainers * vc(app.pendingContainerResource ?? { memoryMB: 0, vcores: 1 }) : 0;
  if (e.long) f.longCores += e.cores;
  else f.shortCores += e.cores;
  f.shortPending += e.pending;
  return e;
}

/** Takes an application's share out of the totals (its entry stays, to be entered again). */
function leaveApp(f: AppFigures, e: AppFigure): void {
  if (e.long) f.longCores -= e.cores;
  else f.shortCores -= e.cores;
  f.shortPending -= e.pending;
}

/** The priority decision an active application needs for its class, if any. */
function priorityDecision(app: AppView, long: boolean, params: BigcParams): Decision | undefined {
  if (!isActiveApp(app)) return undefined;
  const cls: JobClass = long ? 'long' : 'short';
  const want = long ? params.longPriority : params.shortPriority;
  if (app.priority === want) return undefined;
  const { estimateMs } = classify(app, params);
  return {
    action: { kind: 'setAppPriority', appId: app.id, priority: want },
    policy: POLICY,
    rule: 'class.priority',
    reason:
      estimateMs === undefined
        ? `${app.id} has no ${params.estimateTag} tag: ${cls} job, priority ${want}`
        : `${app.id} estimate ${sec(estimateMs)} ${long ? '>=' : '<'} cutoff ${sec(params.shortCutoffMs)}: ${cls} job, priority ${want}`,
  };
}

/** Every application entered anew, with the priority decisions they need, in snapshot order. */
function allApps(snapshot: ClusterSnapshot, paramsKey: string, params: BigcParams, decisions: Decision[]): AppFigures {
  const f = emptyAppFigures(paramsKey);
  for (const app of snapshot.apps.values()) {
    const d = priorityDecision(app, enterApp(f, app, undefined, params).long, params);
    if (d !== undefined) {
      decisions.push(d);
      f.asked.push(app.id);
    }
  }
  return f;
}

/**
 * Brings kept figures up to date for the applications that changed and those the last cycle
 * asked a priority change for, adding the priority decisions they need (in `seq` order). False
 * when the figures then do not count the snapshot's applications (they are built anew).
 */
function changedApps(f: AppFigures, snapshot: ClusterSnapshot, changed: ReadonlySet<AppId>, params: BigcParams, decisions: Decision[]): boolean {
  const asked = f.asked;
  f.asked = [];
  const wanted: { seq: number; d: Decision }[] = [];
  const visit = (id: AppId): void => {
    let e: AppFigure | undefined = f.apps[id];
    if (e !== undefined) leaveApp(f, e);
    const app = snapshot.apps.get(id);
    if (app === undefined) {
      if (e !== undefined) {
        delete f.apps[id];
        f.size--;
      }
      return;
    }
    e = enterApp(f, app, e, params);
    const d = priorityDecision(app, e.long, params);
    if (d !== undefined) {
      wanted.push({ seq: e.seq, d });
      f.asked.push(id);
    }
  };
  for (const id of changed) visit(id);
  for (const id of asked) if (!changed.has(id)) visit(id);
  if (f.size !== snapshot.apps.size) return false;
  if (wanted.length > 1) wanted.sort((a, b) => a.seq - b.seq);
  for (const w of wanted) decisions.push(w.d);
  return true;
}

/** The parameters as JSON, for the last parameters given (the same object at every cycle of a replay). */
let keyedParams: BigcParams | undefined;
let paramsKeyOf = '';
function paramsKey(params: BigcParams): string {
  if (params !== keyedParams) {
    paramsKeyOf = JSON.stringify(params);
    keyedParams = params;
  }
  return paramsKeyOf;
}

export const bigcPolicy = definePolicy<BigcParams, BigcState>({
  name: POLICY,
  description:
    'Big-C: short/long job classes by runtime estimate, short jobs first with a 95 % guaranteed share, ' +
    'long containers suspended when short tasks need room and resumed when cores free up.',
  paramsSchema: bigcParamsSchema,
  updatesStateInPlace: true,
  initialState: () => ({ suspendedAtMs: {} }),
  decide({ snapshot, params, state }) {
    const now = snapshot.nowMs;
    const decisions: Decision[] = [];
    const key = paramsKey(params);

    // Classes and priorities; cores held by each class: allocations of the apps (suspended
    // containers stay allocated). Kept from the last cycle and brought up to date for the
    // applications that changed, when the backend says which (a replay's backlog holds
    // thousands of queued applications, and walking them at every event cost more than
    // everything else); otherwise every application is walked.
    const changedAppIds = snapshot.changedAppIds;
    const keptAppFigures = state.appFigures;
    let appFigures: AppFigures;
    if (
      changedAppIds !== undefined &&
      keptAppFigures !== undefined &&
      keptAppFigures.params === key &&
      isDictionary(keptAppFigures.apps) &&
      Array.isArray(keptAppFigures.asked) &&
      changedApps(keptAppFigures, snapshot, changedAppIds, params, decisions)
    )
      appFigures = keptAppFigures;
    else appFigures = allApps(snapshot, key, params, decisions);
    const keepAppFigures = changedAppIds !== undefined;
    const shortPending = appFigures.shortPending;
    let shortCores = appFigures.shortCores;
    let longCores = appFigures.longCores;
    const unknownIsLong = params.unknownClass === 'long';
    const isLong = (c: ContainerView): boolean => {
      const e = appFigures.apps[c.appId];
      return e !== undefined ? e.long : unknownIsLong;
    };
    // An ApplicationMaster (live YARN) is never suspended: its job would stop heartbeating.
    const suspendable = (c: ContainerView): boolean => isLong(c) && !c.appMaster;

    // Suspended containers: the ones we suspended (cheap), or every container on a periodic scan
    // (also picks up containers suspended by someone else; with kept figures, only when a count
    // shows a node holding suspended containers they do not know of). With the kept node figures, only the
    // nodes that changed (or whose suspended containers the last cycle changed) are looked at;
    // otherwise every node (a full pass: on a scan, when the backend cannot say what changed,
    // and when the figures do not fit the snapshot).
    const changed = snapshot.changedNodeIds;
    const scanDue = changed === undefined || state.lastScanMs === undefined || now - state.lastScanMs >= SCAN_INTERVAL_MS;
    const kept = changed !== undefined && fits(state.nodeFigures, snapshot, key) ? state.nodeFigures : undefined;
    const knowsAll = kept !== undefined && knows(kept, snapshot, changed as ReadonlySet<NodeId>);
    // A scan that is due is made only when some node holds other suspended containers than the
    // kept figures know of (`noneUnknown`); otherwise the cycle goes on from the figures.
    const scan = scanDue && !(knowsAll && noneUnknown(kept, snapshot, changed as ReadonlySet<NodeId>));
    const full = scan || !knowsAll;
    let suspendedAtMs: Record<ContainerId, number>;
    let figures: NodeFigures;
    let keepFigures = changed !== undefined;
    if (full) {
      suspendedAtMs = {};
      const suspByNode = new Map<string, ContainerView[]>();
      const noteSuspended = (c: ContainerView): void => {
        suspendedAtMs[c.id] = state.suspendedAtMs[c.id] ?? now;
        const l = suspByNode.get(c.nodeId);
        if (l) l.push(c);
        else suspByNode.set(c.nodeId, [c]);
        if (isLong(c)) longCores -= vc(c.resource);
        else shortCores -= vc(c.resource);
      };
      if (scan) {
        for (const c of snapshot.containers.values()) if (c.state === 'SUSPENDED') noteSuspended(c);
      } else {
        for (const id of Object.keys(state.suspendedAtMs)) {
          const c = snapshot.containers.get(id);
          if (c && c.state === 'SUSPENDED') noteSuspended(c);
        }
      }
      if (kept === undefined || !enterAll(kept, true, snapshot, suspByNode, isLong, params)) {
        figures = emptyFigures(snapshot, key);
        enterAll(figures, false, snapshot, suspByNode, isLong, params);
      } else figures = kept;
      figures.touched = [];
      // Suspended containers on nodes the snapshot does not list cannot be kept track of by node.
      for (const id of suspByNode.keys()) if (figures.nodes[id] === undefined) keepFigures = false;
    } else {
      figures = kept as NodeFigures;
      suspendedAtMs = state.suspendedAtMs;
      const visit = new Set<NodeId>(changed);
      for (const id of figures.touched) visit.add(id);
      figures.touched = [];
      for (const id of visit) {
        const e = figures.nodes[id];
        leaveNode(figures, id, e);
        // The node's known suspended containers that are still there and suspended.
        const still: ContainerView[] = [];
        for (const cid of e.suspended) {
          const c = snapshot.containers.get(cid);
          if (c && c.state === 'SUSPENDED') still.push(c);
          else delete suspendedAtMs[cid];
        }
        enterNode(figures, snapshot.nodes.get(id) as NodeView, e.i, still, e, isLong, params);
      }
      longCores -= figures.suspendedLongCores;
      shortCores -= figures.suspendedShortCores;
    }

    // Nodes a rule looks at: running cores from the node's allocation minus its suspended
    // containers; the containers themselves are looked up only for the nodes a rule needs.
    interface NodeWork {
      node: NodeView;
      /** Position in the snapshot's node order. */
      i: number;
      cores: number;
      runCores: number;
      /** The node's free cores as counted in `figures.freeCores`. */
      free: number;
      suspended: ContainerView[];
      running?: ContainerView[];
      /** Its suspended containers changed this cycle. */
      touched: boolean;
    }
    const work = new Map<NodeId, NodeWork>();
    const workOf = (id: NodeId): NodeWork => {
      let w = work.get(id);
      if (w !== undefined) return w;
      const e = figures.nodes[id];
      const suspended: ContainerView[] = [];
      for (const cid of e.suspended) suspended.push(snapshot.containers.get(cid) as ContainerView);
      w = { node: snapshot.nodes.get(id) as NodeView, i: e.i, cores: e.cores, runCores: e.used - e.longVc - e.shortVc, free: e.free, suspended, touched: false };
      work.set(id, w);
      return w;
    };
    const byNodeOrder = (a: { i: number }, b: { i: number }): number => a.i - b.i;
    /** Free cores in the cluster: the figures' total, corrected on the nodes looked at. */
    const freeCoresNow = (): number => {
      let free = figures.freeCores;
      for (const w of work.values()) free += Math.max(0, w.cores - w.runCores) - w.free;
      return free;
    };

    const running = (w: NodeWork): ContainerView[] => {
      if (!w.running) {
        w.running = [];
        for (let j = 0; j < w.node.containerIds.length; j++) {
          const c = containerAt(snapshot, w.node, j);
          if (c && c.state === 'RUNNING') w.running.push(c);
        }
      }
      return w.running;
    };

    const justSuspended = new Set<ContainerId>();
    const suspend = (w: NodeWork, c: ContainerView, rule: string, reason: () => string): void => {
      if (w.running) w.running = w.running.filter((x) => x.id !== c.id);
      w.runCores -= vc(c.resource);
      w.suspended.push(c);
      w.touched = true;
      suspendedAtMs[c.id] = now;
      justSuspended.add(c.id);
      longCores -= vc(c.resource);
      decisions.push(decisionWithLazyReason({ kind: 'suspendContainer', containerId: c.id, nodeId: w.node.id }, POLICY, rule, reason));
    };
    const newestFirst = (a: ContainerView, b: ContainerView): number => b.startedAtMs - a.startedAtMs || (a.id < b.id ? 1 : -1);

    // A node never runs more than its cores: excess long containers wait (newest first).
    const overfull: NodeWork[] = [];
    for (const id in figures.overfull) overfull.push(workOf(id));
    overfull.sort(byNodeOrder);
    for (const w of overfull) {
      const excessLong = running(w).filter(suspendable).sort(newestFirst);
      while (w.runCores > w.cores && excessLong.length > 0) {
        const c = excessLong.shift() as ContainerView;
        const before = w.runCores;
        const id = w.node.id;
        const cores = w.cores;
        suspend(w, c, 'node.cores', () => `${before} cores' worth of containers running on ${id} > N=${cores}: long ${c.id} waits`);
      }
    }

    // Short demand that finds no free core suspends long containers, within the shares.
    const totalCores = figures.totalCores;
    const freeCores = freeCoresNow();
    const shortGuarantee = (params.shortSharePct / 100) * totalCores;
    const longGuarantee = totalCores - shortGuarantee;
    const need = shortPending - freeCores;
    // Fractional shares round in favour of the short class (a victim may take long below its share by < 1 container).
    let budget = Math.min(need, shortGuarantee - shortCores, longCores - longGuarantee);
    if (budget > 0) {
      // The newest long containers, enough to cover the budget (top-k, not a full sort), from
      // every running node.
      const k = Math.ceil(budget);
      const victims: { id: NodeId; c: ContainerView }[] = [];
      const consider = (id: NodeId, c: ContainerView): void => {
        if (victims.length === k && newestFirst(c, victims[k - 1].c) >= 0) return;
        let i = victims.length < k ? victims.length : k - 1;
        if (victims.length < k) victims.push({ id, c });
        while (i > 0 && newestFirst(c, victims[i - 1].c) < 0) {
          victims[i] = victims[i - 1];
          i--;
        }
        victims[i] = { id, c };
      };
      for (const node of snapshot.nodes.values()) {
        const w = work.get(node.id);
        if (w !== undefined) {
          if (w.runCores <= 0) continue;
          for (const c of running(w)) if (suspendable(c)) consider(node.id, c);
          continue;
        }
        const e = figures.nodes[node.id];
        if (node.state !== 'RUNNING' || (e !== undefined ? e.used - e.longVc - e.shortVc : node.used.vcores) <= 0) continue;
        for (let j = 0; j < node.containerIds.length; j++) {
          const c = containerAt(snapshot, node, j);
          if (c && c.state === 'RUNNING' && suspendable(c)) consider(node.id, c);
        }
      }
      const why =
        `short jobs wait for ${shortPending} cores (${freeCores} free); short hold ${shortCores}/${Math.floor(shortGuarantee)} guaranteed cores ` +
        `(${params.shortSharePct} %), long hold ${longCores} > ${Math.ceil(longGuarantee)}`;
      for (const { id, c } of victims) {
        if (budget <= 0) break;
        budget -= vc(c.resource);
        suspend(workOf(id), c, 'preempt.suspend', () => `${why}: suspend long ${c.id} (newest)`);
      }
    }

    // Resume suspended long containers, oldest first, into free cores that short tasks will not
    // take: a free core is also free advertised capacity (a node advertises its suspended
    // containers' share), so the RM hands it to a waiting short task first. Only a node with a
    // free core can take one: the nodes looked at so far and those the figures list.
    const freeAfter = freeCoresNow();
    let surplus = freeAfter - shortPending;
    const candidates: { w: NodeWork; c: ContainerView }[] = [];
    if (surplus > 0) {
      const ids = new Set<NodeId>(work.keys());
      for (const id in figures.resumable) ids.add(id);
      for (const id of ids) {
        const w = workOf(id);
        for (const c of w.suspended) if (!justSuspended.has(c.id) && isLong(c)) candidates.push({ w, c });
      }
    }
    candidates.sort((a, b) => suspendedAtMs[a.c.id] - suspendedAtMs[b.c.id] || (a.c.id < b.c.id ? -1 : 1));
    for (const { w, c } of candidates) {
      if (surplus <= 0) break;
      const need = vc(c.resource);
      if (w.cores - w.runCores < need || surplus < need) continue;
      const free = w.cores - w.runCores;
      w.runCores += need;
      surplus -= need;
      if (w.running) w.running.push(c);
      w.suspended = w.suspended.filter((x) => x.id !== c.id);
      w.touched = true;
      const waited = now - suspendedAtMs[c.id];
      delete suspendedAtMs[c.id];
      const id = w.node.id;
      decisions.push(
        decisionWithLazyReason(
          { kind: 'resumeContainer', containerId: c.id, nodeId: id },
          POLICY,
          'preempt.resume',
          () => `${free} core(s) free on ${id}, ${freeAfter} in the cluster for ${shortPending} waiting short task core(s): resume long ${c.id} (suspended ${sec(waited)})`,
        ),
      );
    }

    // Advertise physical capacity plus what suspended containers hold: on the nodes looked at
    // and those the figures list as advertising something else.
    const capIds = new Set<NodeId>(work.keys());
    for (const id in figures.misadvertised) capIds.add(id);
    const capacity: { i: number; d: Decision }[] = [];
    for (const id of capIds) {
      const w = workOf(id);
      const want = advertised(w.node, w.suspended);
      if (!equals(w.node.capacity, want)) {
        const physical = w.node.physicalCapacity.vcores;
        const n = w.suspended.length;
        capacity.push({
          i: w.i,
          d: decisionWithLazyReason(
            { kind: 'setNodeResource', nodeId: id, resource: want },
            POLICY,
            'node.capacity',
            () => `${id}: physical ${physical} vcores + ${n} suspended container(s) = advertise ${want.vcores} vcores / ${want.memoryMB} MB`,
          ),
        });
      }
    }
    capacity.sort(byNodeOrder);
    for (const { d } of capacity) decisions.push(d);

    // The nodes whose suspended containers changed are looked at again next cycle (the
    // suspensions and resumes asked for may or may not have happened by then).
    for (const [id, w] of work) {
      if (!w.touched) continue;
      figures.nodes[id].suspended = w.suspended.map((c) => c.id);
      figures.touched.push(id);
    }

    const lastScanMs = scanDue ? now : state.lastScanMs;
    if (full) {
      const next: BigcState = { suspendedAtMs, lastScanMs };
      if (keepFigures) next.nodeFigures = figures;
      if (keepAppFigures) next.appFigures = appFigures;
      return { decisions, state: next };
    }
    state.lastScanMs = lastScanMs;
    state.appFigures = keepAppFigures ? appFigures : undefined;
    return { decisions, state };
  },
});

export default bigcPolicy;
