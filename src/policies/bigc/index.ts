/**
 * Big-C (Chen, Rao, Zhou, USENIX ATC'17), the preemptive baseline of the Kairos paper (§5.1):
 * jobs fall in two classes by a runtime estimate; short jobs have priority and a guaranteed share
 * of the cluster (95 % by default), long jobs use the rest and anything idle; when short tasks
 * need room, running long tasks are suspended (Big-C pauses their Docker container) and resumed
 * once cores free up.
 *
 * One function per rule, named as the decisions' `rule` (`RULE`): `classPriority`,
 * `nodeCores`, `preemptSuspend`, `preemptResume`, `nodeCapacity`. Suspending and resuming on a
 * node's cores is the shared mechanism (`shared/suspend-resume.ts`) with Big-C's orders: newest
 * container first as a victim, oldest suspension first to resume.
 *
 * A cycle costs what changed, not the cluster size: per-node figures, per-application classes
 * and the cluster's totals are kept in the runtime's change tracking (`NODE_TOTALS`,
 * `APP_TOTALS`) and updated for what the snapshot reports as changed (`appTotals`,
 * `nodeTotals`); a full pass is made on the periodic scan for suspended
 * containers, when the backend cannot say what changed (live YARN), and when the kept figures do
 * not fit the snapshot. Only choosing victims for short demand looks at every running container.
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
import { keptKey, trackingOf } from '../../core/tracking.js';
import { equals, type Resources } from '../../core/resources.js';
import { secondsText } from '../shared/durations.js';
import { holdRunSpace, runSpaceOf } from '../shared/run-space.js';
import { capacityWithSuspended, FirstK, resumeInOrder, suspendUntilWithinCores, type SuspendOnNode } from '../shared/suspend-resume.js';

const POLICY = 'bigc';

/**
 * The rules of Big-C as decisions name them (`rule`); each is carried out by the function of the
 * same name below.
 */
const RULE = {
  classPriority: 'class.priority',
  nodeCores: 'node.cores',
  preemptSuspend: 'preempt.suspend',
  preemptResume: 'preempt.resume',
  nodeCapacity: 'node.capacity',
} as const;

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
}

/**
 * Running totals kept in the runtime's change tracking (`PolicyInput.tracking`), never in the
 * state: what the last cycle knew of every node and of every application, kept while the backend
 * reports what changes. Absent (the first cycle, a state loaded or copied, a backend that cannot
 * say): the next cycle makes a full pass and builds them again.
 */
export const NODE_TOTALS = keptKey<NodeFigures>('bigc.nodes');
export const APP_TOTALS = keptKey<AppFigures>('bigc.apps');

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

const vc = (r: Resources): number => Math.max(1, r.vcores);

const dictionary = <V>(): Record<string, V> => Object.create(null) as Record<string, V>;

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
  if (!equals(node.capacity, capacityWithSuspended(node.physicalCapacity, suspended))) f.misadvertised[node.id] = true;
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

/** Whether kept figures are for these parameters and as many nodes. */
function fits(f: NodeFigures | undefined, snapshot: ClusterSnapshot, paramsKey: string): f is NodeFigures {
  return f !== undefined && f.params === paramsKey && f.size === snapshot.nodes.size;
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

/**
 * `class.priority`: the RM places the containers of the higher-priority class first (Big-C gives
 * each class a priority; short jobs the higher). The decision an active application needs, if any.
 */
function classPriority(app: AppView, long: boolean, params: BigcParams): Decision | undefined {
  if (!isActiveApp(app)) return undefined;
  const cls: JobClass = long ? 'long' : 'short';
  const want = long ? params.longPriority : params.shortPriority;
  if (app.priority === want) return undefined;
  const { estimateMs } = classify(app, params);
  return {
    action: { kind: 'setAppPriority', appId: app.id, priority: want },
    policy: POLICY,
    rule: RULE.classPriority,
    reason:
      estimateMs === undefined
        ? `${app.id} has no ${params.estimateTag} tag: ${cls} job, priority ${want}`
        : `${app.id} estimate ${secondsText(estimateMs)} ${long ? '>=' : '<'} cutoff ${secondsText(params.shortCutoffMs)}: ${cls} job, priority ${want}`,
  };
}

/** Every application entered anew, with the priority decisions they need, in snapshot order. */
function allApps(snapshot: ClusterSnapshot, paramsKey: string, params: BigcParams, decisions: Decision[]): AppFigures {
  const f = emptyAppFigures(paramsKey);
  for (const app of snapshot.apps.values()) {
    const d = classPriority(app, enterApp(f, app, undefined, params).long, params);
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
    const d = classPriority(app, e.long, params);
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

/** What a run keeps between cycles besides its state: the parameters' JSON key, made once per parameters object. */
class BigcRunSpace {
  private keyed: BigcParams | undefined;
  private key = '';

  paramsKey(params: BigcParams): string {
    if (params !== this.keyed) {
      this.key = JSON.stringify(params);
      this.keyed = params;
    }
    return this.key;
  }
}

/**
 * A node a rule looks at in this cycle. `used` counts its running cores (allocation minus its
 * suspended containers); its containers are looked up only when a rule needs them.
 */
class NodeWork implements SuspendOnNode<ContainerView> {
  running?: ContainerView[];
  /** Its suspended containers changed this cycle. */
  touched = false;

  constructor(
    readonly cycle: Cycle,
    readonly node: NodeView,
    /** Position in the snapshot's node order. */
    readonly i: number,
    readonly cores: number,
    public used: number,
    /** The node's free cores as counted in `figures.freeCores`. */
    readonly free: number,
    public suspended: ContainerView[],
  ) {}

  /** The node's running containers (listed on first use, kept up to date by suspend and resume). */
  runningContainers(): ContainerView[] {
    if (!this.running) {
      const node = this.node;
      const snapshot = this.cycle.snapshot;
      this.running = [];
      for (let j = 0; j < node.containerIds.length; j++) {
        const c = containerAt(snapshot, node, j);
        if (c && c.state === 'RUNNING') this.running.push(c);
      }
    }
    return this.running;
  }

  // As a node that `nodeCores` brings within its cores: its long containers are the victims.
  get count(): number {
    return this.runningContainers().length;
  }
  taskAt(i: number): ContainerView {
    return this.runningContainers()[i];
  }
  isVictim(c: ContainerView): boolean {
    return this.cycle.suspendable(c);
  }
  victimOrder(a: ContainerView, b: ContainerView): number {
    return newestFirst(a, b);
  }
  vcoresOf(c: ContainerView): number {
    return vc(c.resource);
  }
  suspend(c: ContainerView): void {
    const before = this.used;
    const id = this.node.id;
    const cores = this.cores;
    this.cycle.suspend(this, c, RULE.nodeCores, () => `${before} cores' worth of containers running on ${id} > N=${cores}: long ${c.id} waits`);
  }
}

/** Big-C's victim order: the newest container first (the least work paused). */
const newestFirst = (a: ContainerView, b: ContainerView): number => b.startedAtMs - a.startedAtMs || (a.id < b.id ? 1 : -1);
const byNodeOrder = (a: { i: number }, b: { i: number }): number => a.i - b.i;

/** One cycle: the snapshot, the kept figures brought up to date, and what the rules decided so far. */
class Cycle {
  readonly now: number;
  readonly decisions: Decision[] = [];
  /** The nodes looked at this cycle. */
  readonly work = new Map<NodeId, NodeWork>();
  /** Containers suspended this cycle (not resumed in the same one). */
  readonly justSuspended = new Set<ContainerId>();
  appFigures!: AppFigures;
  figures!: NodeFigures;
  suspendedAtMs!: Record<ContainerId, number>;
  /** Cores the running containers of each class hold (allocation minus suspended). */
  shortCores = 0;
  longCores = 0;

  constructor(
    readonly snapshot: ClusterSnapshot,
    readonly params: BigcParams,
  ) {
    this.now = snapshot.nowMs;
  }

  isLong(c: ContainerView): boolean {
    const e = this.appFigures.apps[c.appId];
    return e !== undefined ? e.long : this.params.unknownClass === 'long';
  }

  /** Long, and not an ApplicationMaster (suspending one would stop its job's heartbeats). */
  suspendable(c: ContainerView): boolean {
    return this.isLong(c) && !c.appMaster;
  }

  workOf(id: NodeId): NodeWork {
    let w = this.work.get(id);
    if (w !== undefined) return w;
    const e = this.figures.nodes[id];
    const suspended: ContainerView[] = [];
    for (const cid of e.suspended) suspended.push(this.snapshot.containers.get(cid) as ContainerView);
    w = new NodeWork(this, this.snapshot.nodes.get(id) as NodeView, e.i, e.cores, e.used - e.longVc - e.shortVc, e.free, suspended);
    this.work.set(id, w);
    return w;
  }

  /** Free cores in the cluster: the figures' total, corrected on the nodes looked at. */
  freeCores(): number {
    let free = this.figures.freeCores;
    for (const w of this.work.values()) free += Math.max(0, w.cores - w.used) - w.free;
    return free;
  }

  /** Suspends `c` on `w` (the caller takes it off `w.used`). */
  suspend(w: NodeWork, c: ContainerView, rule: string, reason: () => string): void {
    if (w.running) w.running = w.running.filter((x) => x.id !== c.id);
    w.suspended.push(c);
    w.touched = true;
    this.suspendedAtMs[c.id] = this.now;
    this.justSuspended.add(c.id);
    this.longCores -= vc(c.resource);
    this.decisions.push(decisionWithLazyReason({ kind: 'suspendContainer', containerId: c.id, nodeId: w.node.id }, POLICY, rule, reason));
  }
}

/**
 * Classes and priorities, and the cores each class holds (allocations: suspended containers stay
 * allocated). Kept from the last cycle and updated for the applications that changed when the
 * backend says which (a replay's backlog holds thousands of queued applications); otherwise every
 * application is walked. Adds the `class.priority` decisions.
 */
function appTotals(cycle: Cycle, kept: AppFigures | undefined, key: string): void {
  const { snapshot, params } = cycle;
  const changed = snapshot.changedAppIds;
  const fresh = changed === undefined || kept === undefined || kept.params !== key || !changedApps(kept, snapshot, changed, params, cycle.decisions);
  cycle.appFigures = fresh ? allApps(snapshot, key, params, cycle.decisions) : kept;
  cycle.shortCores = cycle.appFigures.shortCores;
  cycle.longCores = cycle.appFigures.longCores;
}

/**
 * The suspended containers and the node figures. With kept figures, only the nodes that changed
 * (or whose suspended containers the last cycle changed) are looked at. A full pass otherwise: on
 * the periodic scan (which also finds containers suspended by someone else, made only when a count
 * shows a node holding suspended containers the figures do not know of), when the backend cannot
 * say what changed, and when the figures do not fit the snapshot. Returns whether it was a full
 * pass, and whether the figures can be kept.
 */
function nodeTotals(
  cycle: Cycle,
  state: BigcState,
  keptFigures: NodeFigures | undefined,
  key: string,
  scanDue: boolean,
): { full: boolean; keepFigures: boolean } {
  const { snapshot, params, now } = cycle;
  const changed = snapshot.changedNodeIds;
  const isLong = (c: ContainerView): boolean => cycle.isLong(c);
  const kept = changed !== undefined && fits(keptFigures, snapshot, key) ? keptFigures : undefined;
  const knowsAll = kept !== undefined && knows(kept, snapshot, changed as ReadonlySet<NodeId>);
  const scan = scanDue && !(knowsAll && noneUnknown(kept, snapshot, changed as ReadonlySet<NodeId>));
  if (scan || !knowsAll) {
    let keepFigures = changed !== undefined;
    const suspendedAtMs: Record<ContainerId, number> = {};
    const suspByNode = new Map<string, ContainerView[]>();
    const noteSuspended = (c: ContainerView): void => {
      suspendedAtMs[c.id] = state.suspendedAtMs[c.id] ?? now;
      const l = suspByNode.get(c.nodeId);
      if (l) l.push(c);
      else suspByNode.set(c.nodeId, [c]);
      if (isLong(c)) cycle.longCores -= vc(c.resource);
      else cycle.shortCores -= vc(c.resource);
    };
    if (scan) {
      for (const c of snapshot.containers.values()) if (c.state === 'SUSPENDED') noteSuspended(c);
    } else {
      for (const id of Object.keys(state.suspendedAtMs)) {
        const c = snapshot.containers.get(id);
        if (c && c.state === 'SUSPENDED') noteSuspended(c);
      }
    }
    let figures: NodeFigures;
    if (kept === undefined || !enterAll(kept, true, snapshot, suspByNode, isLong, params)) {
      figures = emptyFigures(snapshot, key);
      enterAll(figures, false, snapshot, suspByNode, isLong, params);
    } else figures = kept;
    figures.touched = [];
    // Suspended containers on nodes the snapshot does not list cannot be kept track of by node.
    for (const id of suspByNode.keys()) if (figures.nodes[id] === undefined) keepFigures = false;
    cycle.figures = figures;
    cycle.suspendedAtMs = suspendedAtMs;
    return { full: true, keepFigures };
  }
  const figures = kept as NodeFigures;
  const suspendedAtMs = state.suspendedAtMs;
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
  cycle.longCores -= figures.suspendedLongCores;
  cycle.shortCores -= figures.suspendedShortCores;
  cycle.figures = figures;
  cycle.suspendedAtMs = suspendedAtMs;
  return { full: false, keepFigures: true };
}

/**
 * `node.cores`: a node never runs more than its N cores. Its advertised capacity counts its
 * suspended containers, so the RM may place more; the excess long containers wait, newest first.
 */
function nodeCores(cycle: Cycle): void {
  const overfull: NodeWork[] = [];
  for (const id in cycle.figures.overfull) overfull.push(cycle.workOf(id));
  overfull.sort(byNodeOrder);
  for (const w of overfull) suspendUntilWithinCores(w);
}

/**
 * `preempt.suspend`: short tasks that find no free core suspend running long containers, newest
 * first, as long as short jobs hold less than their guaranteed share and long jobs more than the
 * rest (Big-C's class shares; long jobs may use idle cores beyond theirs).
 */
function preemptSuspend(cycle: Cycle, shortPending: number): void {
  const { snapshot, params, figures } = cycle;
  const totalCores = figures.totalCores;
  const freeCores = cycle.freeCores();
  const shortGuarantee = (params.shortSharePct / 100) * totalCores;
  const longGuarantee = totalCores - shortGuarantee;
  const shortCores = cycle.shortCores;
  const longCores = cycle.longCores;
  // Fractional shares round in favour of the short class (a victim may take long below its share by < 1 container).
  let budget = Math.min(shortPending - freeCores, shortGuarantee - shortCores, longCores - longGuarantee);
  if (!(budget > 0)) return;
  // Enough victims to cover the budget, from every running node.
  const victims = new FirstK<ContainerView>(Math.ceil(budget), newestFirst);
  for (const node of snapshot.nodes.values()) {
    const w = cycle.work.get(node.id);
    if (w !== undefined) {
      if (w.used <= 0) continue;
      for (const c of w.runningContainers()) if (cycle.suspendable(c)) victims.offer(c);
      continue;
    }
    const e = figures.nodes[node.id];
    if (node.state !== 'RUNNING' || (e !== undefined ? e.used - e.longVc - e.shortVc : node.used.vcores) <= 0) continue;
    for (let j = 0; j < node.containerIds.length; j++) {
      const c = containerAt(snapshot, node, j);
      if (c && c.state === 'RUNNING' && cycle.suspendable(c)) victims.offer(c);
    }
  }
  const why =
    `short jobs wait for ${shortPending} cores (${freeCores} free); short hold ${shortCores}/${Math.floor(shortGuarantee)} guaranteed cores ` +
    `(${params.shortSharePct} %), long hold ${longCores} > ${Math.ceil(longGuarantee)}`;
  for (const c of victims.items) {
    if (budget <= 0) break;
    budget -= vc(c.resource);
    const w = cycle.workOf(c.nodeId);
    cycle.suspend(w, c, RULE.preemptSuspend, () => `${why}: suspend long ${c.id} (newest)`);
    w.used -= vc(c.resource);
  }
}

/**
 * `preempt.resume`: suspended long containers resume, oldest suspension first, into free cores
 * that waiting short tasks will not take (a free core is also free advertised capacity, which the
 * RM gives to a waiting short task first). Only a node with a free core can take one: the nodes
 * looked at so far and those the figures list.
 */
function preemptResume(cycle: Cycle, shortPending: number): void {
  const { figures, suspendedAtMs, now } = cycle;
  const freeAfter = cycle.freeCores();
  const surplus = freeAfter - shortPending;
  const candidates: { w: NodeWork; c: ContainerView }[] = [];
  if (surplus > 0) {
    const ids = new Set<NodeId>(cycle.work.keys());
    for (const id in figures.resumable) ids.add(id);
    for (const id of ids) {
      const w = cycle.workOf(id);
      for (const c of w.suspended) if (!cycle.justSuspended.has(c.id) && cycle.isLong(c)) candidates.push({ w, c });
    }
  }
  candidates.sort((a, b) => suspendedAtMs[a.c.id] - suspendedAtMs[b.c.id] || (a.c.id < b.c.id ? -1 : 1));
  resumeInOrder(
    candidates,
    candidates.length,
    {
      ledgerOf: (x) => x.w,
      vcoresOf: (x) => vc(x.c.resource),
      resume: ({ w, c }) => {
        const free = w.cores - w.used;
        if (w.running) w.running.push(c);
        w.suspended = w.suspended.filter((x) => x.id !== c.id);
        w.touched = true;
        const waited = now - suspendedAtMs[c.id];
        delete suspendedAtMs[c.id];
        const id = w.node.id;
        cycle.decisions.push(
          decisionWithLazyReason(
            { kind: 'resumeContainer', containerId: c.id, nodeId: id },
            POLICY,
            RULE.preemptResume,
            () =>
              `${free} core(s) free on ${id}, ${freeAfter} in the cluster for ${shortPending} waiting short task core(s): resume long ${c.id} (suspended ${secondsText(waited)})`,
          ),
        );
      },
    },
    surplus,
  );
}

/**
 * `node.capacity`: a node advertises its physical capacity plus what its suspended containers
 * hold (they keep their allocation in YARN), so the RM can place short tasks in their stead.
 * Checked on the nodes looked at and those the figures list as advertising something else.
 */
function nodeCapacity(cycle: Cycle): void {
  const capIds = new Set<NodeId>(cycle.work.keys());
  for (const id in cycle.figures.misadvertised) capIds.add(id);
  const capacity: { i: number; d: Decision }[] = [];
  for (const id of capIds) {
    const w = cycle.workOf(id);
    const want = capacityWithSuspended(w.node.physicalCapacity, w.suspended);
    if (equals(w.node.capacity, want)) continue;
    const physical = w.node.physicalCapacity.vcores;
    const n = w.suspended.length;
    capacity.push({
      i: w.i,
      d: decisionWithLazyReason(
        { kind: 'setNodeResource', nodeId: id, resource: want },
        POLICY,
        RULE.nodeCapacity,
        () => `${id}: physical ${physical} vcores + ${n} suspended container(s) = advertise ${want.vcores} vcores / ${want.memoryMB} MB`,
      ),
    });
  }
  capacity.sort(byNodeOrder);
  for (const { d } of capacity) cycle.decisions.push(d);
}

const newRunSpace = (): BigcRunSpace => new BigcRunSpace();

export const bigcPolicy = definePolicy<BigcParams, BigcState>({
  needs: ['containerSuspend'],
  name: POLICY,
  description:
    'Big-C: short/long job classes by runtime estimate, short jobs first with a 95 % guaranteed share, ' +
    'long containers suspended when short tasks need room and resumed when cores free up.',
  paramsSchema: bigcParamsSchema,
  updatesStateInPlace: true,
  initialState: () => ({ suspendedAtMs: {} }),
  decide(input) {
    const { snapshot, params, state } = input;
    const tracking = trackingOf(input, POLICY);
    const follows = tracking.follows(state);
    const space = runSpaceOf(state, newRunSpace);
    const key = space.paramsKey(params);
    const cycle = new Cycle(snapshot, params);
    const now = cycle.now;
    const scanDue = snapshot.changedNodeIds === undefined || state.lastScanMs === undefined || now - state.lastScanMs >= SCAN_INTERVAL_MS;

    appTotals(cycle, follows ? tracking.kept(APP_TOTALS) : undefined, key);
    const shortPending = cycle.appFigures.shortPending;
    const { full, keepFigures } = nodeTotals(cycle, state, follows ? tracking.kept(NODE_TOTALS) : undefined, key, scanDue);

    nodeCores(cycle);
    preemptSuspend(cycle, shortPending);
    preemptResume(cycle, shortPending);
    nodeCapacity(cycle);

    // The nodes whose suspended containers changed are looked at again next cycle (the
    // suspensions and resumes asked for may or may not have happened by then).
    const figures = cycle.figures;
    for (const [id, w] of cycle.work) {
      if (!w.touched) continue;
      figures.nodes[id].suspended = w.suspended.map((c) => c.id);
      figures.touched.push(id);
    }

    const keepAppFigures = snapshot.changedAppIds !== undefined;
    const lastScanMs = scanDue ? now : state.lastScanMs;
    tracking.keep(APP_TOTALS, keepAppFigures ? cycle.appFigures : undefined);
    if (full) {
      const next: BigcState = { suspendedAtMs: cycle.suspendedAtMs, lastScanMs };
      tracking.keep(NODE_TOTALS, keepFigures ? figures : undefined);
      holdRunSpace(next, space);
      tracking.handOver(next);
      return { decisions: cycle.decisions, state: next };
    }
    state.lastScanMs = lastScanMs;
    tracking.handOver(state);
    return { decisions: cycle.decisions, state };
  },
});

export default bigcPolicy;
