/**
 * The discrete-event simulator: a virtual clock, a future-event list, and a model of YARN's
 * ResourceManager + NodeManagers that runs the same policy code as the live engine.
 *
 * Model
 * - Nodes have physical cores/memory and an advertised capacity (what the RM schedules
 *   against; `setNodeResource` changes it — over-commit when above physical).
 * - Apps (jobs) are DAGs of stages; each task is one container. A stage's containers are
 *   requested when all its parent stages have finished.
 * - CPU: processor sharing per node. RUNNING containers on a node progress at
 *   rate = min(1, physicalCores / Σ vcores of RUNNING containers); SUSPENDED containers keep
 *   their allocation (memory and vcores stay counted in `used`, as the RM still sees them) and
 *   their attained service, and do not progress. Completion events are recomputed when a
 *   node's rate changes.
 * - Placement: the allocator module (stock FIFO by default) places pending containers on the
 *   node order in force (stock node-id order or the order `rankNodes` defines).
 * - A killed container's task is re-requested by its app (at the front) and starts over.
 *
 * Policy driving
 * - Event-driven (default): after each batch of events at one virtual instant (arrivals,
 *   completions, the policy's `wakeAtMs`, delayed actions that led to new placements), the
 *   simulator places containers, then calls `policy.decide` with a live snapshot whose
 *   `changedNodeIds` lists nodes whose containers changed since the previous call, other than
 *   by the policy's own suspends and resumes (applied exactly as asked), and `changedAppIds` the
 *   applications that arrived, changed in any way or left the snapshot. The latest
 *   output's `wakeAtMs` replaces earlier ones (an output without it cancels the pending wake-up).
 *   Periodic mode (`periodMs`): the policy is called on a fixed period instead.
 * - Each cycle's decisions are planned by the engine's `plan()` (src/engine/session.ts), as live:
 *   validated, deduplicated, reconciled, clamped and limited (limits: `SIM_LIMITS`, or
 *   `limits`); only what the plan leaves pending is applied.
 * - Actions are applied after `decisionDelayMs` (0 = at the same instant). When applying them
 *   at once leads to new placements, the policy is asked again at the same instant (bounded by
 *   `maxCyclesPerInstant`) so it sees the containers the RM just started.
 *
 * Everything is deterministic: ties in the event list are broken by scheduling order, and the
 * only randomness (if any) comes from the seeded RNG.
 */
import type { Action, Decision } from '../core/actions.js';
import type { ApplyOutcome, Capabilities } from '../core/backend.js';
import {
  findById,
  type AppId,
  type AppView,
  type ClusterSnapshot,
  type ContainerId,
  type ContainerView,
  type NodeId,
  type NodeView,
  type QueueView,
} from '../core/model.js';
import type { AnyPolicy, PolicyInput } from '../core/policy.js';
import { ChangeTracker } from '../engine/change-tracking.js';
import { isAlreadyTrue } from '../core/reconcile.js';
import { equals, type Resources } from '../core/resources.js';
import { DEFAULT_LIMITS, disruptionOf, plan, type PlannedDecision, type SafetyLimits, type SessionContext } from '../engine/session.js';
import { createFifoAllocator, type Allocator, type AllocatorContext, type AllocatorFactory } from './allocator.js';
import { EventQueue } from '../core/heap.js';
import { NodeOrder } from './node-order.js';
import { QueueTree } from './queues.js';
import { Rng } from './rng.js';
import { criticalPathMs, meanTaskMs, taskCount, topoOrder, type JobSpec, type Workload } from './workload.js';
import { SimApp, SimContainer, SimNode, type Clock } from './model.js';
import { objectList } from '../core/lists.js';

export interface SimOptions {
  readonly workload: Workload;
  /** Number of nodes (default: the workload's cluster, else 100). */
  readonly nodes?: number;
  /** Physical cores per node (default: the workload's, else 1). */
  readonly cores?: number;
  /** Physical memory per node, MB (default: the workload's, else cores × 8192). */
  readonly memoryMBPerNode?: number;
  /** Nodes per rack (rack names only). Default 40. */
  readonly nodesPerRack?: number;
  readonly seed?: number;
  readonly policy?: AnyPolicy;
  /** Raw policy parameters; validated with the policy's schema. */
  readonly params?: unknown;
  /** Delay between a decision and its actions taking effect, ms. Default 0. */
  readonly decisionDelayMs?: number;
  /** Call the policy every `periodMs` instead of on every scheduling event. */
  readonly periodMs?: number;
  readonly allocator?: AllocatorFactory;
  /** Check model invariants after every batch (slow; for tests). */
  readonly checkInvariants?: boolean;
  /** Finished/killed apps kept visible in the snapshot (like the RM's completed-apps list). Default 100. */
  readonly completedAppRetention?: number;
  /** Safety bound on policy calls at one virtual instant. Default 16. */
  readonly maxCyclesPerInstant?: number;
  /**
   * Called every `progressEveryBatches` batches (default 4096) and at the end with (finished
   * jobs, total jobs). Throwing from it aborts the run.
   */
  readonly onProgress?: (done: number, total: number) => void;
  readonly progressEveryBatches?: number;
  /** Measure the wall time spent inside `policy.decide` (`policyMs`). Default false. */
  readonly timePolicy?: boolean;
  /** Observes every decision cycle that produced decisions (for journals/debugging). */
  readonly onDecisions?: (nowMs: number, decisions: readonly Decision[]) => void;
  /** The safety limits each cycle is planned with, over `SIM_LIMITS`. */
  readonly limits?: Partial<SafetyLimits>;
  /**
   * Observes each cycle's plan: every decision with its status and skip reason, what the live
   * engine journals. The simulator keeps no journal; this is off unless given.
   */
  readonly onPlanned?: (nowMs: number, planned: readonly PlannedDecision[]) => void;
  /**
   * Node model: a RUNNING ApplicationMaster (`StageSpec.appMaster`) takes its vcores of the node's
   * cores, slowing the tasks beside it. Default false: AMs sit off the cores (the Kairos
   * prototype's fifth core, `cpu-vcores` = cores + 1; a MapReduce AM uses little CPU).
   */
  readonly appMastersOnCores?: boolean;
  /**
   * Node model: a task's container first launches for this long (JVM start, localisation), holding
   * its allocation but off the cores and doing no work, shown to policies as not yet work to
   * schedule; as the Kairos prototype's NodeManager keeps launching containers on its fifth core.
   * Default 0. (A launch on the cores is launch time added to the task's work, in the workload.)
   */
  readonly launchOverheadMs?: number;
}

/**
 * The limits a simulated cycle is planned with unless `limits` says otherwise: the live defaults
 * without count limits, node over-commit up to 65 × physical, and (`allowZeroCapacity`) every
 * queue of the simulated cluster. A replay asks the policy at every event rather than every 10 s
 * and sets up thousands of nodes in its first cycle; Kairos advertises N + Q slots on a node of N
 * cores (Q up to 64; the papers' nodes have one core); the queue policies (DRF, BoPF, DARSS) give
 * a queue without demand no guarantee.
 */
export const SIM_LIMITS: SafetyLimits = Object.freeze({
  ...DEFAULT_LIMITS,
  maxActionsPerCycle: Infinity,
  maxOvercommitFactor: 65,
  maxSuspendsPerCycle: Infinity,
  maxSuspendsPerMinute: Infinity,
  maxKillsPerCycle: Infinity,
  maxKillsPerMinute: Infinity,
});

/** What the simulated cluster can do: everything a policy may ask. */
export const SIM_CAPABILITIES: Capabilities = Object.freeze({ queueWrites: true, containerSuspend: true, nodeRanking: true, notes: [] });

export { SimApp, SimContainer, SimNode };

export class InvariantError extends Error {}

/** The outcome of every action carried out without remark (one object: a replay applies millions). */
const APPLIED: ApplyOutcome = Object.freeze({ status: 'applied' });

const EV_ARRIVE = 0;
const EV_COMPLETE = 1;
const EV_APPLY = 2;
const EV_WAKE = 3;
const EV_TICK = 4;
/** The allocator asked to run at this time (a preemption monitor's next round); placement runs after every batch. */
const EV_ALLOC_WAKE = 5;

class Ev {
  constructor(
    public t: number,
    public seq: number,
    readonly kind: number,
    readonly ref: unknown,
    public gen: number,
  ) {}
  heapIndex = -1;
}

export interface JobRecord {
  readonly appId: AppId;
  readonly name: string;
  readonly arrivalMs: number;
  /** Undefined when the job never finished. */
  readonly finishMs?: number;
  readonly killed: boolean;
  readonly tasks: number;
  readonly meanTaskMs: number;
  readonly idealMs: number;
  readonly jobClass?: 'short' | 'long';
  readonly tags: Readonly<Record<string, string>>;
  /** The job's deadline (JobSpec.deadlineMs), if it has one. */
  readonly deadlineMs?: number;
  /** Killed because a job it comes after was killed; it never ran. */
  readonly neverRan?: boolean;
}

/** Outcomes of a run's actions: applied, noop or failed, or `skipped` by the plan (duplicate, limit, invariant). */
export interface ActionStats {
  applied: number;
  noop: number;
  failed: number;
  skipped: number;
  byKind: Record<string, { applied: number; noop: number; failed: number; skipped: number }>;
}

export class Simulator {
  readonly clock: Clock = { now: 0 };
  readonly rng: Rng;
  readonly nodes: SimNode[] = [];
  /** The nodes by id (see `NodesById`). */
  readonly nodeById: NodesById;
  readonly apps = new Map<AppId, SimApp>();
  /** Live containers by id (a view over the apps' containers; see `LiveContainers`). */
  readonly containers: LiveContainers;
  /** Apps that may hold containers (arrived, not finished), by `SimApp.seq`. */
  readonly activeAppBySeq: (SimApp | undefined)[] = [];
  readonly queues: QueueTree;
  readonly order: NodeOrder;
  readonly allocator: Allocator;
  readonly jobs: readonly JobSpec[];
  readonly records: (JobRecord | undefined)[];
  readonly actionStats: ActionStats = { applied: 0, noop: 0, failed: 0, skipped: 0, byKind: {} };
  /** The counters of actionStats.byKind, by kind (see `count`). */
  private readonly countsByKind = new Map<string, { applied: number; noop: number; failed: number; skipped: number }>();
  /** The same counters of the kinds a replay counts most (`kindSlot`). */
  private readonly countsBySlot: ({ applied: number; noop: number; failed: number; skipped: number } | undefined)[] = [undefined, undefined, undefined];
  readonly warnings: string[] = [];

  /** Sum of RUNNING nodes' advertised capacity. */
  readonly totalCapacity = { memoryMB: 0, vcores: 0 };
  readonly physicalCores: number;

  events = 0;
  batches = 0;
  decisionCalls = 0;
  /** Wall ms spent inside policy.decide (only with `timePolicy`). */
  policyMs = 0;
  launches = 0;
  finishedJobs = 0;
  killedJobs = 0;
  /** Core-ms of CPU service delivered (completed + killed containers). */
  serviceCoreMs = 0;
  /** Core-ms of CPU service thrown away by killed containers (included in serviceCoreMs). */
  wastedCoreMs = 0;
  /** ∫ allocated vcores dt. */
  allocatedVcoreMs = 0;
  firstArrivalMs = Infinity;
  lastFinishMs = 0;

  private readonly q = new EventQueue<Ev>();
  private seq = 0;
  private readonly arrivalOrder: number[];
  /** Per job, prerequisite jobs not finished yet; and who waits for each job. */
  private readonly waitingFor: Int32Array;
  private readonly dependants: Map<number, number[]>;
  private nextArrival = 0;
  private allocatedVcores = 0;
  private lastAllocChangeMs = 0;
  private readonly completedApps: SimApp[] = objectList<SimApp>();
  private readonly retention: number;
  /** Nodes changed since the last policy call (`changedNodeIds`), each listed once (`nodeChangedAt`). */
  private changed: NodeId[] = [];
  /** Per node, by id rank: the policy call count when it was last listed as changed (-1: never). */
  private readonly nodeChangedAt: Int32Array;
  /**
   * Applications added, changed or dropped since the last policy call (`changedAppIds`): their
   * ids in `changedApps[0 .. nChangedApps)`, each listed once (an app marked with the current
   * `decisionCalls` is listed already). A list and a mark, not a Set: every launch and release
   * marks its app, and most policies never read the set (the snapshot makes it when read).
   */
  private changedApps: AppId[] = objectList<AppId>();
  private spareChangedApps: AppId[] = objectList<AppId>();
  private nChangedApps = 0;
  private decisionWanted = false;
  private wakeToken = 0;
  /** Time of the wake-up event currently in force (NaN: none). */
  private pendingWakeMs = NaN;
  private policyState: unknown;
  private readonly params: unknown;
  private readonly policy?: AnyPolicy;
  private readonly delayMs: number;
  private readonly periodMs?: number;
  private readonly maxCycles: number;
  private readonly checkInv: boolean;
  private readonly snap: SimSnapshot;
  /** What each cycle is planned against: the live snapshot, the limits (one object per run). */
  private readonly planContext: { -readonly [K in keyof SessionContext]: SessionContext[K] };
  /**
   * Virtual times of the suspensions and kills applied, for the per-minute limits (kept only
   * when one of them is finite).
   */
  private readonly disruptionTimes?: { suspend: number[]; kill: number[] };
  /** Every queue's path, when any may be set to 0 (the default): queues added later join it. */
  private readonly zeroCapacityAllowed?: string[];
  /** The policy's input (see `policyInput`). */
  private readonly input: PolicyInput<unknown, unknown> & { state: unknown };
  private queueViewCache?: QueueView;
  private queueViewKey = '';
  private idleCycles = 0;
  /** Containers currently RUNNING, cluster-wide. */
  private runningTotal = 0;
  private readonly ctx: AllocatorContext;

  constructor(readonly opts: SimOptions) {
    const w = opts.workload;
    // A heterogeneous cluster from the workload, unless the caller sizes the nodes.
    const groups = opts.nodes === undefined && opts.cores === undefined && opts.memoryMBPerNode === undefined ? w.cluster?.nodeGroups : undefined;
    const nNodes = groups ? groups.reduce((a, g) => a + g.count, 0) : (opts.nodes ?? w.cluster?.nodes ?? 100);
    const cores = opts.cores ?? w.cluster?.cores ?? 1;
    const mem = opts.memoryMBPerNode ?? w.cluster?.memoryMBPerNode ?? cores * 8192;
    if (!(nNodes >= 1 && Number.isInteger(nNodes))) throw new Error(`nodes must be a positive integer, got ${nNodes}`);
    if (!(cores >= 1 && Number.isInteger(cores))) throw new Error(`cores must be a positive integer, got ${cores}`);
    for (const g of groups ?? []) {
      if (!(Number.isInteger(g.count) && g.count >= 0 && Number.isInteger(g.cores) && g.cores >= 1 && g.memoryMB >= 1))
        throw new Error(`bad node group ${JSON.stringify(g)}`);
    }
    this.rng = new Rng(opts.seed ?? 1);
    this.delayMs = opts.decisionDelayMs ?? 0;
    if (!(this.delayMs >= 0)) throw new Error(`decision delay must be >= 0, got ${this.delayMs}`);
    this.periodMs = opts.periodMs;
    if (this.periodMs !== undefined && !(this.periodMs > 0)) throw new Error(`period must be > 0, got ${this.periodMs}`);
    this.maxCycles = opts.maxCyclesPerInstant ?? 16;
    this.checkInv = opts.checkInvariants ?? false;
    this.retention = opts.completedAppRetention ?? 100;
    const width = String(nNodes).length;
    const byId = new Map<NodeId, SimNode>();
    const perRack = opts.nodesPerRack ?? 40;
    const shapes: Resources[] = [];
    if (groups) for (const g of groups) for (let k = 0; k < g.count; k++) shapes.push(Object.freeze({ memoryMB: g.memoryMB, vcores: g.cores }));
    const phys: Resources = Object.freeze({ memoryMB: mem, vcores: cores });
    let physicalCores = 0;
    for (let i = 0; i < nNodes; i++) {
      const shape = groups ? shapes[i] : phys;
      const n = new SimNode(`node${String(i + 1).padStart(width, '0')}`, i, `/rack${Math.floor(i / perRack) + 1}`, shape);
      this.nodes.push(n);
      byId.set(n.id, n);
      this.totalCapacity.memoryMB += shape.memoryMB;
      this.totalCapacity.vcores += shape.vcores;
      physicalCores += shape.vcores;
    }
    this.physicalCores = physicalCores;
    this.nodeById = new NodesById(this.nodes, byId);
    this.nodeChangedAt = new Int32Array(this.nodes.length).fill(-1);
    this.order = new NodeOrder(this.nodes);
    this.containers = new LiveContainers(this.activeAppBySeq);
    this.queues = new QueueTree(w.queues);

    this.jobs = w.jobs;
    for (const [i, j] of w.jobs.entries()) validateJob(j, i);
    this.records = new Array(w.jobs.length);
    // Jobs that come after others arrive when those finish (`jobDone`), not in arrival order.
    this.waitingFor = new Int32Array(w.jobs.length);
    this.dependants = new Map();
    for (const [i, j] of w.jobs.entries()) {
      for (const p of j.after ?? []) {
        if (!Number.isInteger(p) || p < 0 || p >= w.jobs.length || p === i) throw new Error(`job ${j.name ?? i}: bad prerequisite job ${p}`);
        this.waitingFor[i]++;
        let d = this.dependants.get(p);
        if (!d) this.dependants.set(p, (d = []));
        d.push(i);
      }
    }
    this.arrivalOrder = w.jobs
      .map((_, i) => i)
      .filter((i) => this.waitingFor[i] === 0)
      .sort((a, b) => w.jobs[a].arrivalMs - w.jobs[b].arrivalMs || a - b);
    if (this.dependants.size > 0) {
      // Every job must be reachable from the jobs that wait for nothing (no cycle through `after`).
      const left = Int32Array.from(this.waitingFor);
      const ready = this.arrivalOrder.slice();
      let seen = 0;
      while (ready.length) {
        const i = ready.pop() as number;
        seen++;
        for (const d of this.dependants.get(i) ?? []) if (--left[d] === 0) ready.push(d);
      }
      if (seen !== w.jobs.length) throw new Error('jobs wait for each other in a cycle (JobSpec.after)');
    }

    const self = this;
    this.ctx = {
      get nowMs() {
        return self.clock.now;
      },
      queues: this.queues,
      rng: this.rng,
      clusterCapacity: () => this.totalCapacity,
      findNode: (r, app) => (app?.spec.preferredNodes ? this.findPreferredNode(r, app) : undefined) ?? this.order.find(r),
      hasFreeCapacity: () => this.order.hasFree(),
      launch: (app, node) => this.launch(app, node),
      liveContainers: () => this.containers.values(),
      activeApps: function* () {
        for (const a of self.activeAppBySeq) if (a) yield a;
      },
      preempt: (c) => this.loseContainer(c),
      wakeAt: (t) => this.push(Math.max(t, this.clock.now), EV_ALLOC_WAKE, undefined, 0),
    };
    this.allocator = (opts.allocator ?? createFifoAllocator)(this.ctx);

    this.policy = opts.policy;
    if (this.policy) {
      const parsed = this.policy.paramsSchema.safeParse(opts.params ?? {});
      if (!parsed.success)
        throw new Error(
          `invalid parameters for policy ${this.policy.name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
        );
      this.params = parsed.data;
      this.policyState = this.policy.initialState(this.params);
    }
    this.snap = new SimSnapshot(this);
    this.input = { snapshot: this.snap, params: this.params, state: this.policyState, tracking: new ChangeTracker() };
    if (opts.limits?.allowZeroCapacity === undefined) this.zeroCapacityAllowed = this.queues.paths();
    const limits: SafetyLimits = { ...SIM_LIMITS, ...opts.limits, allowZeroCapacity: opts.limits?.allowZeroCapacity ?? this.zeroCapacityAllowed ?? [] };
    // No last ranking: applying the ranking in force again leaves the node order as it is.
    this.planContext = { cycleId: 'sim-0', snapshot: this.snap, capabilities: SIM_CAPABILITIES, limits };
    if (Number.isFinite(limits.maxSuspendsPerMinute) || Number.isFinite(limits.maxKillsPerMinute)) this.disruptionTimes = { suspend: [], kill: [] };

    this.scheduleNextArrival();
    if (this.policy && this.periodMs !== undefined) this.push(this.firstEventTime(), EV_TICK, undefined, 0);
  }

  get nowMs(): number {
    return this.clock.now;
  }

  get totalJobs(): number {
    return this.jobs.length;
  }

  get done(): boolean {
    return this.finishedJobs + this.killedJobs === this.jobs.length;
  }

  /** Live snapshot view (changedNodeIds undefined = everything may have changed). */
  snapshot(): ClusterSnapshot {
    return new SimSnapshot(this);
  }

  queueView(): QueueView {
    const key = `${this.totalCapacity.memoryMB}/${this.totalCapacity.vcores}/${this.queueVersion}/${this.usageVersion}`;
    if (!this.queueViewCache || key !== this.queueViewKey) {
      this.queueViewCache = this.queues.view(this.totalCapacity);
      this.queueViewKey = key;
    }
    return this.queueViewCache;
  }
  private queueVersion = 0;
  private usageVersion = 0;

  /** Runs until every job has finished (or nothing can happen any more). */
  run(): void {
    let progressTick = 0;
    const every = this.opts.progressEveryBatches ?? 4096;
    while (!this.done) {
      if (!this.step()) break;
      if (this.opts.onProgress && ++progressTick >= every) {
        progressTick = 0;
        this.opts.onProgress(this.finishedJobs + this.killedJobs, this.jobs.length);
      }
    }
    this.flushAllocIntegral();
    this.opts.onProgress?.(this.finishedJobs + this.killedJobs, this.jobs.length);
  }

  /** Processes events up to and including `tMs`, then moves the clock to `tMs`. */
  runUntil(tMs: number): void {
    for (;;) {
      const e = this.q.peek();
      if (!e || e.t > tMs) break;
      this.step();
    }
    if (tMs > this.clock.now) this.clock.now = tMs;
  }

  /** Processes one batch (all events at the next instant). Returns false when none is left. */
  step(): boolean {
    const first = this.q.peek();
    if (!first) return false;
    const t = first.t;
    this.clock.now = t;
    this.batches++;
    let onlyTimers = true;
    for (;;) {
      const e = this.q.peek();
      if (!e || e.t !== t) break;
      this.q.pop();
      this.events++;
      if (e.kind !== EV_WAKE && e.kind !== EV_TICK && e.kind !== EV_ALLOC_WAKE) onlyTimers = false;
      this.handle(e);
    }
    this.settle();
    if (this.checkInv) this.checkInvariants();
    // Guard against a policy that keeps waking up while nothing can ever progress.
    if (onlyTimers && this.runningTotal === 0 && this.nextArrival >= this.arrivalOrder.length && this.q.size > 0) {
      if (++this.idleCycles > 10_000) return false;
    } else this.idleCycles = 0;
    return true;
  }

  /** Applies an action now (backend path); placement runs right after. */
  apply(action: Action): ApplyOutcome {
    const out = this.applyAction(action);
    this.countOutcome(action.kind, out.status);
    // A suspend or resume from outside is a change the policy did not ask for.
    if (out.status === 'applied' && (action.kind === 'suspendContainer' || action.kind === 'resumeContainer')) {
      const node = this.nodeById.get(action.nodeId);
      if (node !== undefined) this.reportNodeChanged(node);
    }
    this.allocator.schedule();
    return out;
  }

  // ---------------------------------------------------------------- events

  private push(t: number, kind: number, ref: unknown, gen: number): void {
    this.q.push(new Ev(t, this.seq++, kind, ref, gen));
  }

  private firstEventTime(): number {
    return this.arrivalOrder.length ? this.jobs[this.arrivalOrder[0]].arrivalMs : 0;
  }

  private scheduleNextArrival(): void {
    if (this.nextArrival < this.arrivalOrder.length) {
      const i = this.arrivalOrder[this.nextArrival++];
      this.push(Math.max(this.jobs[i].arrivalMs, this.clock.now), EV_ARRIVE, i, 0);
    }
  }

  private handle(e: Ev): void {
    switch (e.kind) {
      case EV_ARRIVE:
        this.arrive(e.ref as number);
        // A job released by its prerequisites (gen 1) is not part of the arrival chain.
        if (e.gen === 0) this.scheduleNextArrival();
        if (this.periodMs === undefined) this.decisionWanted = true;
        break;
      case EV_COMPLETE: {
        const c = e.ref as SimContainer;
        if (c.completionEv === e) c.completionEv = undefined;
        if (c.removed || c.gen !== e.gen || c.state !== 'RUNNING') return;
        this.complete(c);
        if (this.periodMs === undefined) this.decisionWanted = true;
        break;
      }
      case EV_APPLY: {
        const before = this.launches;
        this.applyPlanned(e.ref as readonly PlannedDecision[]);
        this.allocator.schedule();
        if (this.launches !== before && this.periodMs === undefined) this.decisionWanted = true;
        break;
      }
      case EV_WAKE:
        if (e.gen === this.wakeToken) {
          this.pendingWakeMs = NaN;
          this.decisionWanted = true;
        }
        break;
      case EV_TICK:
        this.decisionWanted = true;
        if (!this.done) this.push(e.t + (this.periodMs as number), EV_TICK, undefined, 0);
        break;
    }
  }

  /** Placement, then as many decision cycles as the instant needs. */
  private settle(): void {
    this.allocator.schedule();
    if (!this.policy) {
      this.decisionWanted = false;
      return;
    }
    let cycles = 0;
    while (this.decisionWanted && cycles < this.maxCycles) {
      this.decisionWanted = false;
      cycles++;
      const before = this.launches;
      this.decide();
      if (this.launches !== before && this.periodMs === undefined) this.decisionWanted = true;
    }
    this.decisionWanted = false;
  }

  /** Lists the node among those changed since the last policy call (once). */
  private reportNodeChanged(node: SimNode): void {
    if (this.nodeChangedAt[node.idRank] === this.decisionCalls) return;
    this.nodeChangedAt[node.idRank] = this.decisionCalls;
    this.changed.push(node.id);
  }

  /** Lists the app among those changed since the last policy call (once). */
  private reportAppChanged(app: SimApp): void {
    if (app.changedAt === this.decisionCalls) return;
    app.changedAt = this.decisionCalls;
    this.changedApps[this.nChangedApps++] = app.id;
  }

  private decide(): void {
    const policy = this.policy as AnyPolicy;
    this.snap.changedNodeIds = new ListedIds(this.changed);
    this.changed = [];
    const changedApps = this.changedApps;
    this.snap.setChangedApps(changedApps, this.nChangedApps);
    this.changedApps = this.spareChangedApps;
    this.spareChangedApps = changedApps;
    this.nChangedApps = 0;
    this.decisionCalls++;
    let out;
    if (this.opts.timePolicy) {
      const t0 = performance.now();
      out = policy.decide(this.policyInput());
      this.policyMs += performance.now() - t0;
    } else out = policy.decide(this.policyInput());
    this.policyState = out.state;
    // The latest output's wakeAtMs replaces any earlier request (none = no wake-up wanted).
    if (out.wakeAtMs !== undefined && Number.isFinite(out.wakeAtMs)) {
      const t = Math.max(out.wakeAtMs, this.clock.now + 1);
      if (t !== this.pendingWakeMs) {
        this.wakeToken++;
        this.pendingWakeMs = t;
        this.push(t, EV_WAKE, undefined, this.wakeToken);
      }
    } else if (!Number.isNaN(this.pendingWakeMs)) {
      this.wakeToken++;
      this.pendingWakeMs = NaN;
    }
    const ds = out.decisions;
    if (ds.length === 0) return;
    this.opts.onDecisions?.(this.clock.now, ds);
    const planned = this.plan(ds, policy.name);
    if (this.delayMs === 0) {
      this.applyPlanned(planned);
      this.allocator.schedule();
    } else {
      this.push(this.clock.now + this.delayMs, EV_APPLY, planned, 0);
    }
  }

  /** Plans a cycle's decisions as the live engine does (`plan`, src/engine/session.ts). */
  private plan(decisions: readonly Decision[], policyName: string): PlannedDecision[] {
    const ctx = this.planContext;
    const times = this.disruptionTimes;
    if (times !== undefined) {
      const since = this.clock.now - 60_000;
      while (times.suspend.length > 0 && times.suspend[0] <= since) times.suspend.shift();
      while (times.kill.length > 0 && times.kill[0] <= since) times.kill.shift();
      ctx.recentDisruptions = { suspends: times.suspend.length, kills: times.kill.length };
    }
    if (this.opts.onPlanned) ctx.cycleId = `sim-${this.decisionCalls}`;
    const planned = plan(ctx, decisions, policyName);
    this.opts.onPlanned?.(this.clock.now, planned);
    return planned;
  }

  /** Applies what a plan left pending, in order, and counts every decision's outcome. */
  private applyPlanned(planned: readonly PlannedDecision[]): void {
    for (const p of planned) {
      const action = p.action;
      if (p.status !== 'pending' || action === undefined) {
        this.countOutcome(action?.kind ?? 'invalid', p.status);
        continue;
      }
      const out = this.applyAction(action);
      this.countOutcome(action.kind, out.status);
      if (this.disruptionTimes !== undefined && out.status === 'applied') {
        const kind = disruptionOf(action);
        if (kind !== undefined) this.disruptionTimes[kind].push(this.clock.now);
      }
    }
  }

  /**
   * The policy's input: one object, its state brought up to date at each call (a replay calls the
   * policy at every event; the live snapshot behind it is one object too).
   */
  private policyInput(): PolicyInput<unknown, unknown> {
    this.input.state = this.policyState;
    return this.input;
  }

  private countOutcome(kind: string, status: ApplyOutcome['status'] | PlannedDecision['status']): void {
    // The counters of a kind are found by the kind's number, else through a Map (the same objects
    // as in byKind): a replay counts millions of actions, and a lookup by a varying key in a plain
    // object is slow.
    const slot = kindSlot(kind);
    let k = slot >= 0 ? this.countsBySlot[slot] : this.countsByKind.get(kind);
    if (k === undefined) {
      k = this.actionStats.byKind[kind] = { applied: 0, noop: 0, failed: 0, skipped: 0 };
      this.countsByKind.set(kind, k);
      if (slot >= 0) this.countsBySlot[slot] = k;
    }
    const stats = this.actionStats;
    switch (status) {
      case 'applied':
        k.applied++;
        stats.applied++;
        break;
      case 'noop':
        k.noop++;
        stats.noop++;
        break;
      case 'failed':
        k.failed++;
        stats.failed++;
        break;
      case 'skipped':
        k.skipped++;
        stats.skipped++;
        break;
    }
  }

  // ---------------------------------------------------------------- apps

  private arrive(i: number): void {
    const spec = this.jobs[i];
    const now = this.clock.now;
    if (now < this.firstArrivalMs) this.firstArrivalMs = now;
    let queue = spec.queue ? this.queues.resolveLeaf(spec.queue) : this.queues.resolveLeaf('root.default');
    if (!queue) {
      queue = this.queues.resolveLeaf('root.default') ?? this.queues.leaves()[0];
      const msg = `job ${spec.name ?? i}: queue ${spec.queue ?? 'root.default'} is not a leaf queue; submitted to ${queue.path}`;
      if (this.warnings.length < 20) this.warnings.push(msg);
    }
    const app = new SimApp(`application_0_${String(i + 1).padStart(4, '0')}`, i, spec, now, queue);
    this.apps.set(app.id, app);
    this.reportAppChanged(app);
    this.activeAppBySeq[i] = app;
    this.queues.addApp(queue, 1);
    this.usageVersion++;
    for (let s = 0; s < spec.stages.length; s++) if (app.parentsLeft[s] === 0) this.stageReady(app, s);
    if (app.tasksLeft === 0) this.finishApp(app, 'FINISHED');
    else this.allocator.appChanged(app);
  }

  private stageReady(app: SimApp, s: number): void {
    const n = app.spec.stages[s].workMs.length;
    if (n === 0) {
      this.stageFinished(app, s);
      return;
    }
    app.pend.push({ stage: s, next: 0, end: n });
    app.pendingContainers += n;
    this.reportAppChanged(app);
  }

  private stageFinished(app: SimApp, s: number): void {
    for (const c of app.stageChildren[s]) if (--app.parentsLeft[c] === 0) this.stageReady(app, c);
  }

  private launch(app: SimApp, node: SimNode): SimContainer {
    const seg = app.pend[app.pendHead];
    const task = seg.next++;
    if (seg.next >= seg.end) {
      app.pendHead++;
      if (app.pendHead > 64 && app.pendHead * 2 > app.pend.length) {
        app.pend.splice(0, app.pendHead);
        app.pendHead = 0;
      }
    }
    app.pendingContainers--;
    const now = this.clock.now;
    const st = app.spec.stages[seg.stage];
    const seq = ++app.containerSeq;
    const id = app.containerPrefix + (seq < 10 ? '00000' : seq < 100 ? '0000' : seq < 1000 ? '000' : seq < 10000 ? '00' : seq < 100000 ? '0' : '') + seq;
    const slowdown = app.spec.offPreferredSlowdown !== undefined && !this.prefersNode(app, node) ? app.spec.offPreferredSlowdown : 1;
    const c = new SimContainer(id, app, node, seg.stage, task, st.workMs[task] * slowdown, now, this.clock);
    const r = c.resource;
    // Bring the node's running containers up to date before this one joins them.
    this.advance(node);
    c.seqInApp = seq;
    app.containerBySeq.push(c);
    this.containers.launched(c);
    node.containers.push(c);
    node.containerIds.push(id);
    node.used.memoryMB += r.memoryMB;
    node.used.vcores += r.vcores;
    app.runningContainers++;
    app.allocated.memoryMB += r.memoryMB;
    app.allocated.vcores += r.vcores;
    this.reportAppChanged(app);
    if (app.startedAtMs === undefined) {
      app.startedAtMs = now;
      app.state = 'RUNNING';
    }
    this.queues.addUsage(app.queueRef, r, 1);
    this.usageVersion++;
    this.allocChange(r.vcores);
    this.launches++;
    this.reportNodeChanged(node);
    this.order.nodeChanged(node);
    if (c.isAppMaster) this.startAppMaster(c);
    else {
      c.launchLeftMs = this.opts.launchOverheadMs ?? 0;
      this.startRunning(c);
    }
    return c;
  }

  /** Preferred-node flags of apps with a soft placement constraint (JobSpec.preferredNodes), by node index. */
  private readonly preferredFlags = new WeakMap<SimApp, Uint8Array>();

  private preferenceOf(app: SimApp): Uint8Array | undefined {
    const list = app.spec.preferredNodes;
    if (!list) return undefined;
    let flags = this.preferredFlags.get(app);
    if (!flags) {
      flags = new Uint8Array(this.nodes.length);
      for (const i of list) if (i >= 0 && i < flags.length) flags[i] = 1;
      this.preferredFlags.set(app, flags);
    }
    return flags;
  }

  /** Whether the node is one the app prefers (true when it prefers none). */
  private prefersNode(app: SimApp, node: SimNode): boolean {
    const flags = this.preferenceOf(app);
    return !flags || flags[node.idRank] === 1;
  }

  /** A free preferred node of the app that fits `r`, in node-id order among them (a soft constraint). */
  private findPreferredNode(r: Resources, app: SimApp): SimNode | undefined {
    for (const i of app.spec.preferredNodes ?? []) {
      const n = this.nodes[i];
      if (n && n.state === 'RUNNING' && r.vcores <= n.capacity.vcores - n.used.vcores && r.memoryMB <= n.capacity.memoryMB - n.used.memoryMB) return n;
    }
    return undefined;
  }

  // ApplicationMasters (`StageSpec.appMaster`): an AM holds its allocation from its launch to its
  // job's end, does no work, and counts on the node's cores only with `appMastersOnCores`.

  /** The AM started: the stages after it are requested (once, also if it is ever restarted). */
  private startAppMaster(c: SimContainer): void {
    this.advance(c.node);
    this.appMasterRuns(c, true);
    const app = c.app;
    if (app.stageDone[c.stage]++ === 0) this.stageFinished(app, c.stage);
  }

  /** Started, suspended or resumed: its state only (and its cores, with `appMastersOnCores`). */
  private appMasterRuns(c: SimContainer, running: boolean): void {
    c.state = running ? 'RUNNING' : 'SUSPENDED';
    if (running) c.runningSinceMs = this.clock.now;
    if (this.opts.appMastersOnCores === true) {
      c.node.runningVcores += running ? c.resource.vcores : -c.resource.vcores;
      this.updateRate(c.node);
    }
  }

  /** The job's last task finished: its AMs leave with it. */
  private releaseAppMasters(app: SimApp): void {
    for (const c of app.liveContainers()) if (c.isAppMaster) this.release(c);
  }

  // Launching tasks (`launchOverheadMs`): RUNNING off the cores until their launch ends.

  /** Starts or stops (kill, suspension) the launch: its end is the container's next completion event. */
  private launchRuns(c: SimContainer, running: boolean): void {
    const now = this.clock.now;
    this.cancelCompletion(c);
    c.gen++;
    if (running) {
      c.state = 'RUNNING';
      c.runningSinceMs = now;
      this.runningTotal++;
      const e = new Ev(now + c.launchLeftMs, this.seq++, EV_COMPLETE, c, c.gen);
      this.q.push(e);
      c.completionEv = e;
    } else {
      c.launchLeftMs = Math.max(1e-9, c.launchLeftMs - (now - c.runningSinceMs));
      c.state = 'SUSPENDED';
      this.runningTotal--;
    }
  }

  /** The launch ended: the task joins the node's cores (a change the policy sees). */
  private launched(c: SimContainer): void {
    // The node's running tasks are brought up to date while c still counts as launching.
    this.advance(c.node);
    this.cancelCompletion(c);
    c.gen++;
    c.launchLeftMs = 0;
    this.runningTotal--;
    this.reportNodeChanged(c.node);
    this.startRunning(c);
  }

  /** Removes a container from its node and app (completion or kill). */
  private release(c: SimContainer): void {
    const node = c.node;
    const app = c.app;
    if (c.state === 'RUNNING') this.stopRunning(c);
    else this.advance(node);
    c.removed = true;
    this.cancelCompletion(c);
    c.gen++;
    app.containerBySeq[c.seqInApp - 1] = undefined;
    this.containers.released();
    // Both lists are in the same order.
    const k = node.containers.indexOf(c);
    removeAt(node.containers, k);
    removeAt(node.containerIds, k);
    const r = c.resource;
    node.used.memoryMB -= r.memoryMB;
    node.used.vcores -= r.vcores;
    app.runningContainers--;
    app.allocated.memoryMB -= r.memoryMB;
    app.allocated.vcores -= r.vcores;
    this.reportAppChanged(app);
    this.queues.addUsage(app.queueRef, r, -1);
    this.usageVersion++;
    this.allocChange(-r.vcores);
    this.serviceCoreMs += c.attained * r.vcores;
    this.reportNodeChanged(node);
    this.order.nodeChanged(node);
  }

  private complete(c: SimContainer): void {
    if (c.launchLeftMs > 0) {
      this.launched(c);
      return;
    }
    this.advance(c.node);
    if (this.checkInv && Math.abs(c.attained - c.workMs) > 1e-6 * Math.max(1, c.workMs)) {
      throw new InvariantError(`t=${this.clock.now}: container ${c.id} completed with ${c.attained} ms of ${c.workMs} ms`);
    }
    c.attained = c.workMs; // remove floating-point drift (bounded by the check above)
    this.release(c);
    const app = c.app;
    const s = c.stage;
    app.tasksLeft--;
    if (++app.stageDone[s] === app.spec.stages[s].workMs.length) {
      const before = app.pendingContainers;
      this.stageFinished(app, s);
      if (app.pendingContainers !== before) this.allocator.appChanged(app);
    }
    if (app.tasksLeft === 0) {
      this.releaseAppMasters(app);
      this.finishApp(app, 'FINISHED');
    }
  }

  private finishApp(app: SimApp, state: 'FINISHED' | 'KILLED'): void {
    const now = this.clock.now;
    app.state = state;
    app.finishedAtMs = now;
    this.reportAppChanged(app);
    this.activeAppBySeq[app.seq] = undefined;
    this.allocator.appChanged(app);
    this.queues.addApp(app.queueRef, -1);
    this.usageVersion++;
    if (state === 'FINISHED') this.finishedJobs++;
    else this.killedJobs++;
    if (now > this.lastFinishMs) this.lastFinishMs = now;
    const spec = app.spec;
    this.records[app.seq] = {
      appId: app.id,
      name: app.name,
      arrivalMs: app.submittedAtMs,
      finishMs: now,
      killed: state === 'KILLED',
      tasks: taskCount(spec),
      meanTaskMs: meanTaskMs(spec),
      idealMs: spec.idealMs ?? criticalPathMs(spec),
      jobClass: spec.jobClass,
      tags: app.tags,
      ...(spec.deadlineMs !== undefined ? { deadlineMs: spec.deadlineMs } : {}),
    };
    this.jobDone(app.seq, state === 'FINISHED');
    this.completedApps.push(app);
    while (this.completedApps.length > this.retention) {
      const old = this.completedApps.shift() as SimApp;
      this.apps.delete(old.id);
      this.reportAppChanged(old);
    }
    if (this.retention === 0) this.apps.delete(app.id);
  }

  /** Releases the jobs waiting for job `i`; a killed job takes those waiting for it along. */
  private jobDone(i: number, finished: boolean): void {
    const waiting = this.dependants.get(i);
    if (!waiting) return;
    for (const d of waiting) {
      if (this.records[d] !== undefined) continue;
      if (!finished) {
        this.neverRun(d);
        continue;
      }
      if (--this.waitingFor[d] === 0) this.push(Math.max(this.jobs[d].arrivalMs, this.clock.now), EV_ARRIVE, d, 1);
    }
  }

  /** Records job `i` as killed before it ran (a prerequisite was killed), and its dependants. */
  private neverRun(i: number): void {
    const spec = this.jobs[i];
    const now = this.clock.now;
    this.killedJobs++;
    this.records[i] = {
      appId: `application_0_${String(i + 1).padStart(4, '0')}`,
      name: spec.name ?? `job${i}`,
      arrivalMs: spec.arrivalMs,
      finishMs: now,
      killed: true,
      neverRan: true,
      tasks: taskCount(spec),
      meanTaskMs: meanTaskMs(spec),
      idealMs: spec.idealMs ?? criticalPathMs(spec),
      jobClass: spec.jobClass,
      tags: spec.tags ?? {},
      ...(spec.deadlineMs !== undefined ? { deadlineMs: spec.deadlineMs } : {}),
    };
    if (now > this.lastFinishMs) this.lastFinishMs = now;
    this.jobDone(i, false);
  }

  // ---------------------------------------------------------------- CPU model

  private advance(node: SimNode): void {
    const now = this.clock.now;
    const dt = now - node.lastUpdateMs;
    if (dt > 0) {
      if (node.runningVcores > 0) {
        const r = node.rate;
        for (const c of node.containers) if (c.state === 'RUNNING' && !c.appMaster) c.attained += r * dt;
      }
      node.lastUpdateMs = now;
    }
  }

  private startRunning(c: SimContainer): void {
    const node = c.node;
    this.advance(node);
    if (c.isAppMaster) {
      this.appMasterRuns(c, true);
      return;
    }
    if (c.launchLeftMs > 0) {
      this.launchRuns(c, true);
      return;
    }
    c.state = 'RUNNING';
    c.runningSinceMs = this.clock.now;
    node.runningVcores += c.resource.vcores;
    this.runningTotal++;
    if (!this.updateRate(node)) this.scheduleCompletion(c);
  }

  private stopRunning(c: SimContainer): void {
    const node = c.node;
    this.advance(node);
    if (c.isAppMaster) {
      this.appMasterRuns(c, false);
      return;
    }
    if (c.launchLeftMs > 0) {
      this.launchRuns(c, false);
      return;
    }
    this.cancelCompletion(c);
    c.gen++;
    node.runningVcores -= c.resource.vcores;
    c.state = 'SUSPENDED';
    this.runningTotal--;
    this.updateRate(node);
  }

  /** Recomputes the node's rate; when it changed, reschedules every running container. */
  private updateRate(node: SimNode): boolean {
    const cores = node.physicalCapacity.vcores;
    const rate = node.runningVcores <= cores ? 1 : cores / node.runningVcores;
    if (rate === node.rate) return false;
    node.rate = rate;
    for (const c of node.containers) if (c.state === 'RUNNING' && !c.appMaster) this.scheduleCompletion(c);
    return true;
  }

  private scheduleCompletion(c: SimContainer): void {
    this.cancelCompletion(c);
    c.gen++;
    const rem = c.workMs - c.attained;
    const t = this.clock.now + (rem > 0 ? rem / c.node.rate : 0);
    let e = c.spareEv as Ev | undefined;
    if (e === undefined) e = new Ev(t, this.seq++, EV_COMPLETE, c, c.gen);
    else {
      c.spareEv = undefined;
      e.t = t;
      e.seq = this.seq++;
      e.gen = c.gen;
    }
    this.q.push(e);
    c.completionEv = e;
  }

  /**
   * Takes a container's pending completion out of the event queue once it no longer applies
   * (suspended, rescheduled at a new rate, removed), instead of leaving it to be skipped when
   * its time comes: under preemption most completions are superseded, and the queue would
   * otherwise fill with them.
   */
  private cancelCompletion(c: SimContainer): void {
    if (c.completionEv) {
      this.q.remove(c.completionEv as Ev);
      c.spareEv = c.completionEv;
      c.completionEv = undefined;
    }
  }

  private allocChange(dv: number): void {
    const now = this.clock.now;
    this.allocatedVcoreMs += this.allocatedVcores * (now - this.lastAllocChangeMs);
    this.lastAllocChangeMs = now;
    this.allocatedVcores += dv;
  }

  private flushAllocIntegral(): void {
    this.allocChange(0);
  }

  // ---------------------------------------------------------------- actions

  private applyAction(a: Action): ApplyOutcome {
    switch (a.kind) {
      case 'updateQueues': {
        if (isAlreadyTrue(a, this.snap)) return { status: 'noop', detail: 'queues already as asked' };
        const err = this.queues.apply(a);
        if (err) return { status: 'failed', error: err, retryable: false };
        if (this.zeroCapacityAllowed !== undefined) for (const q of a.add) this.zeroCapacityAllowed.push(q.path);
        this.queueVersion++;
        this.allocator.queuesChanged();
        return APPLIED;
      }
      case 'setAppPriority': {
        const app = this.apps.get(a.appId);
        if (!app) return { status: 'failed', error: `unknown application ${a.appId}`, retryable: false };
        if (!app.isActive) return { status: 'failed', error: `application ${a.appId} is ${app.state}`, retryable: false };
        if (app.priority === a.priority) return { status: 'noop', detail: `priority already ${a.priority}` };
        app.priority = a.priority;
        this.reportAppChanged(app);
        this.allocator.appChanged(app);
        return APPLIED;
      }
      case 'moveApp': {
        const app = this.apps.get(a.appId);
        if (!app) return { status: 'failed', error: `unknown application ${a.appId}`, retryable: false };
        if (!app.isActive) return { status: 'failed', error: `application ${a.appId} is ${app.state}`, retryable: false };
        const q = this.queues.resolveLeaf(a.queue);
        if (!q) return { status: 'failed', error: `no leaf queue ${a.queue}`, retryable: false };
        if (q === app.queueRef) return { status: 'noop', detail: `already in ${q.path}` };
        this.queues.addUsage(app.queueRef, app.allocated, -1);
        this.queues.addApp(app.queueRef, -1);
        app.queueRef = q;
        app.queue = q.path;
        this.reportAppChanged(app);
        this.queues.addUsage(q, app.allocated, 1);
        this.queues.addApp(q, 1);
        this.usageVersion++;
        this.allocator.appChanged(app);
        return APPLIED;
      }
      case 'killApp': {
        const app = this.apps.get(a.appId);
        if (!app) return { status: 'failed', error: `unknown application ${a.appId}`, retryable: false };
        if (!app.isActive) return { status: 'noop', detail: `application already ${app.state}` };
        for (const c of app.liveContainers()) {
          this.release(c);
          app.wastedMs += c.attained;
          this.wastedCoreMs += c.attained * c.resource.vcores;
        }
        app.pend.length = 0;
        app.pendHead = 0;
        app.pendingContainers = 0;
        this.finishApp(app, 'KILLED');
        return APPLIED;
      }
      case 'setNodeResource': {
        const n = this.nodeById.get(a.nodeId);
        if (!n) return { status: 'failed', error: `unknown node ${a.nodeId}`, retryable: false };
        if (equals(n.capacity, a.resource)) return { status: 'noop', detail: 'capacity already as asked' };
        if (n.state === 'RUNNING') {
          this.totalCapacity.memoryMB += a.resource.memoryMB - n.capacity.memoryMB;
          this.totalCapacity.vcores += a.resource.vcores - n.capacity.vcores;
        }
        n.capacity = { memoryMB: a.resource.memoryMB, vcores: a.resource.vcores };
        this.reportNodeChanged(n);
        this.order.nodeChanged(n);
        return APPLIED;
      }
      case 'suspendContainer': {
        const c = this.findContainer(a.containerId, a.nodeId);
        if (typeof c === 'string') return { status: 'failed', error: c, retryable: false };
        if (c.state === 'SUSPENDED') return { status: 'noop', detail: 'already suspended' };
        // Not reported to the policy as a change: it asked for exactly this (`apply` reports an
        // outside one).
        this.stopRunning(c);
        return APPLIED;
      }
      case 'resumeContainer': {
        const c = this.findContainer(a.containerId, a.nodeId);
        if (typeof c === 'string') return { status: 'failed', error: c, retryable: false };
        if (c.state === 'RUNNING') return { status: 'noop', detail: 'already running' };
        this.startRunning(c);
        return APPLIED;
      }
      case 'killContainer': {
        const c = this.findContainer(a.containerId, a.nodeId);
        if (typeof c === 'string') return { status: 'failed', error: c, retryable: false };
        this.loseContainer(c);
        return APPLIED;
      }
      case 'rankNodes': {
        const unknown = this.order.rank(a, this.nodeById);
        return unknown.length
          ? { status: 'applied', detail: `ignored unknown nodes: ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ', …' : ''}` }
          : APPLIED;
      }
    }
  }

  /** Kills a container (killContainer, or the allocator's preemption model): its work is lost. */
  private loseContainer(c: SimContainer): void {
    const app = c.app;
    this.release(c);
    app.wastedMs += c.attained;
    this.wastedCoreMs += c.attained * c.resource.vcores;
    // The application master asks again for the lost task; it starts over.
    app.pend.splice(app.pendHead, 0, { stage: c.stage, next: c.task, end: c.task + 1 });
    app.pendingContainers++;
    this.allocator.appChanged(app);
  }

  private findContainer(id: string, nodeId: string): SimContainer | string {
    // Looked for on its node first: a node holds a few containers, already in the cache after the
    // policy's visit, while the cluster-wide map is large and cold (this runs for every suspend
    // and resume of a replay).
    const n = this.nodeById.get(nodeId);
    const onNode = n !== undefined ? findById(n.containers, id) : undefined;
    if (onNode !== undefined) return onNode;
    const c = this.containers.get(id);
    if (!c) return `unknown container ${id}`;
    return `container ${id} is on ${c.nodeId}, not ${nodeId}`;
  }

  // ---------------------------------------------------------------- invariants

  /** Throws InvariantError when the model is inconsistent. O(nodes + containers). */
  checkInvariants(): void {
    const eps = 1e-6;
    const fail = (m: string): never => {
      throw new InvariantError(`t=${this.clock.now}: ${m}`);
    };
    for (const n of this.nodes) {
      let mem = 0;
      let vc = 0;
      let runVc = 0;
      for (const c of n.containers) {
        if (c.node !== n || c.removed) fail(`container ${c.id} misplaced on ${n.id}`);
        if (this.containers.get(c.id) !== c) fail(`container ${c.id} on ${n.id} missing from the container map`);
        mem += c.resource.memoryMB;
        vc += c.resource.vcores;
        if (c.state === 'RUNNING' && c.launchLeftMs === 0 && (!c.isAppMaster || this.opts.appMastersOnCores === true)) runVc += c.resource.vcores;
        if (c.attainedServiceMs > c.workMs * (1 + eps) + eps) fail(`container ${c.id} attained ${c.attainedServiceMs} > work ${c.workMs}`);
      }
      if (mem !== n.used.memoryMB || vc !== n.used.vcores) fail(`node ${n.id} used ${n.used.memoryMB}/${n.used.vcores} != containers ${mem}/${vc}`);
      if (runVc !== n.runningVcores) fail(`node ${n.id} running vcores ${n.runningVcores} != ${runVc}`);
      // Processor sharing: delivered CPU never exceeds the physical cores.
      if (n.rate * runVc > n.physicalCapacity.vcores + eps) fail(`node ${n.id} over-used: ${n.rate * runVc} cores > ${n.physicalCapacity.vcores}`);
      if (n.rate > 1 + eps) fail(`node ${n.id} rate ${n.rate} > 1`);
    }
    let running = 0;
    let live = 0;
    for (const c of this.containers.values()) {
      live++;
      if (c.state === 'RUNNING' && !c.isAppMaster) running++;
      if (!this.nodeById.has(c.nodeId)) fail(`container ${c.id} on unknown node ${c.nodeId}`);
    }
    if (running !== this.runningTotal) fail(`running containers ${this.runningTotal} != ${running}`);
    if (live !== this.containers.size) fail(`live containers ${this.containers.size} != ${live}`);
    let onNodes = 0;
    for (const n of this.nodes) onNodes += n.containers.length;
    if (onNodes !== live) fail(`containers on nodes ${onNodes} != live ${live}`);
    let inApps = 0;
    for (const app of this.apps.values()) {
      let mem = 0;
      let vc = 0;
      const cs = app.liveContainers();
      inApps += cs.length;
      for (const c of cs) {
        if (c.app !== app || c.removed || c.node.containers.indexOf(c) < 0) fail(`container ${c.id} of ${app.id} not on its node`);
        mem += c.resource.memoryMB;
        vc += c.resource.vcores;
      }
      if (cs.length > 0 && this.activeAppBySeq[app.seq] !== app) fail(`app ${app.id} holds containers but is not active`);
      if (mem !== app.allocated.memoryMB || vc !== app.allocated.vcores || cs.length !== app.runningContainers) fail(`app ${app.id} allocation inconsistent`);
      let pend = 0;
      for (let i = app.pendHead; i < app.pend.length; i++) pend += app.pend[i].end - app.pend[i].next;
      if (pend !== app.pendingContainers) fail(`app ${app.id} pending ${app.pendingContainers} != ${pend}`);
    }
    if (inApps !== live) fail(`containers held by apps ${inApps} != live ${live}`);
  }
}

/** The slot of an action kind among `countsBySlot` (-1: counted through the Map). */
function kindSlot(kind: string): number {
  switch (kind) {
    case 'suspendContainer':
      return 0;
    case 'resumeContainer':
      return 1;
    case 'rankNodes':
      return 2;
    default:
      return -1;
  }
}

/** Where the run of decimal digits of `s` that ends at `end` starts (`end` when there is none). */
function digitsStart(s: string, end: number): number {
  let i = end;
  while (i > 0) {
    const d = s.charCodeAt(i - 1) - 48;
    if (d < 0 || d > 9) break;
    i--;
  }
  return i;
}

/** The number written in decimal digits in `s[from .. to)`. */
function decimalValue(s: string, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) v = v * 10 + (s.charCodeAt(i) - 48);
  return v;
}

/** Most digits a simulated node or container number is read from (below 2^31). */
const MAX_DIGITS = 9;

/**
 * The nodes by id, as the snapshot's `nodes` map. The simulator names its nodes `node` and a
 * number (node i + 1 is `nodes[i]`), so a lookup reads the number off the id and checks the node
 * found has that very id; any other string goes to the map. A replay looks nodes up by id at every
 * visit, ranking, suspend and resume (millions of times), and reading a few digits costs less
 * than hashing into a map of thousands.
 */
export class NodesById implements ReadonlyMap<NodeId, SimNode> {
  constructor(
    private readonly list: readonly SimNode[],
    private readonly map: ReadonlyMap<NodeId, SimNode>,
  ) {}

  get size(): number {
    return this.map.size;
  }

  get(id: NodeId): SimNode | undefined {
    // `node`, then the number: read from the end; the node found must have this very id.
    if (typeof id === 'string') {
      const start = digitsStart(id, id.length);
      if (start < id.length && id.length - start <= MAX_DIGITS) {
        const n = this.list[decimalValue(id, start, id.length) - 1];
        if (n !== undefined && n.id === id) return n;
      }
    }
    return this.map.get(id);
  }

  has(id: NodeId): boolean {
    return this.get(id) !== undefined;
  }

  keys(): MapIterator<NodeId> {
    return this.map.keys();
  }

  values(): MapIterator<SimNode> {
    return this.map.values();
  }

  entries(): MapIterator<[NodeId, SimNode]> {
    return this.map.entries();
  }

  [Symbol.iterator](): MapIterator<[NodeId, SimNode]> {
    return this.map.entries();
  }

  forEach(fn: (value: SimNode, key: NodeId, map: ReadonlyMap<NodeId, SimNode>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.map) fn.call(thisArg, v, k, this);
  }
}

/**
 * The live containers by id, as the snapshot's `containers` map: a view, not a map of its own.
 * A container id is its app's prefix and a sequence number (`container_0_<app number>_01_<seq>`),
 * so a lookup reads the two numbers off the id and goes to the app (by number) and its container
 * (by sequence number). Listing gives the containers in launch order, as a Map would: they are
 * kept in that order in a list from which released ones are dropped in one pass, when they are
 * half of it or when the list is read (a full pass of a policy, inspection).
 */
export class LiveContainers implements ReadonlyMap<ContainerId, SimContainer> {
  private readonly order: SimContainer[] = objectList<SimContainer>();
  private live = 0;
  private dropped = 0;

  constructor(private readonly activeAppBySeq: readonly (SimApp | undefined)[]) {}

  get size(): number {
    return this.live;
  }

  /** A container was launched (after every container launched before it). */
  launched(c: SimContainer): void {
    this.order.push(c);
    this.live++;
  }

  /** A container was released (marked `removed`). */
  released(): void {
    this.live--;
    if (++this.dropped >= 1024 && this.dropped * 2 >= this.order.length) this.compact();
  }

  private compact(): void {
    const o = this.order;
    let k = 0;
    for (let i = 0; i < o.length; i++) if (!o[i].removed) o[k++] = o[i];
    o.length = k;
    this.dropped = 0;
  }

  get(id: ContainerId): SimContainer | undefined {
    // `container_0_<app number>_01_<seq>`: the two numbers read from the end, without making a
    // string (every planned suspend and resume is reconciled by id); the container found must have
    // this very id, so any other string finds none.
    if (typeof id !== 'string') return undefined;
    const seqStart = digitsStart(id, id.length);
    if (seqStart === id.length || id.length - seqStart > MAX_DIGITS || seqStart < 5) return undefined;
    const appEnd = seqStart - 4;
    const appStart = digitsStart(id, appEnd);
    if (appStart === appEnd || appEnd - appStart > MAX_DIGITS) return undefined;
    const c = this.activeAppBySeq[decimalValue(id, appStart, appEnd) - 1]?.containerBySeq[decimalValue(id, seqStart, id.length) - 1];
    return c !== undefined && c.id === id ? c : undefined;
  }

  has(id: ContainerId): boolean {
    return this.get(id) !== undefined;
  }

  /** The live containers in launch order (a new list). */
  private listed(): SimContainer[] {
    if (this.dropped > 0) this.compact();
    return this.order.slice();
  }

  values(): MapIterator<SimContainer> {
    return this.listed().values();
  }

  keys(): MapIterator<ContainerId> {
    return this.listed()
      .map((c) => c.id)
      .values();
  }

  entries(): MapIterator<[ContainerId, SimContainer]> {
    return this.listed()
      .map((c): [ContainerId, SimContainer] => [c.id, c])
      .values();
  }

  [Symbol.iterator](): MapIterator<[ContainerId, SimContainer]> {
    return this.entries();
  }

  forEach(fn: (value: SimContainer, key: ContainerId, map: ReadonlyMap<ContainerId, SimContainer>) => void, thisArg?: unknown): void {
    for (const c of this.listed()) fn.call(thisArg, c, c.id, this);
  }
}

/**
 * Ids listed once each, read as a set: the nodes changed between two policy calls (a replay lists
 * one at every launch, release and swap; a `Set` filled and cleared for each call costs more).
 */
class ListedIds implements ReadonlySet<string> {
  private set?: Set<string>;
  constructor(private readonly ids: readonly string[]) {}

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return (this.set ??= new Set(this.ids)).has(id);
  }

  forEach(f: (value: string, key: string, set: ReadonlySet<string>) => void, thisArg?: unknown): void {
    for (const id of this.ids) f.call(thisArg, id, id, this);
  }

  keys(): SetIterator<string> {
    return this.ids.values();
  }

  values(): SetIterator<string> {
    return this.ids.values();
  }

  entries(): SetIterator<[string, string]> {
    return this.ids.map((id): [string, string] => [id, id]).values();
  }

  [Symbol.iterator](): SetIterator<string> {
    return this.ids.values();
  }
}

/** The live ClusterSnapshot the policy sees: getters over simulator state, nothing copied. */
class SimSnapshot implements ClusterSnapshot {
  changedNodeIds?: ReadonlySet<NodeId>;
  private changedAppList?: readonly AppId[];
  private nChangedApps = 0;
  private changedAppSet?: ReadonlySet<AppId>;
  constructor(private readonly sim: Simulator) {}

  /** The apps changed since the previous policy call: `list[0 .. n)` (made a set when read). */
  setChangedApps(list: readonly AppId[], n: number): void {
    this.changedAppList = list;
    this.nChangedApps = n;
    this.changedAppSet = undefined;
  }

  get changedAppIds(): ReadonlySet<AppId> | undefined {
    if (this.changedAppSet === undefined && this.changedAppList !== undefined) {
      const set = new Set<AppId>();
      for (let i = 0; i < this.nChangedApps; i++) set.add(this.changedAppList[i]);
      this.changedAppSet = set;
    }
    return this.changedAppSet;
  }
  get nowMs(): number {
    return this.sim.clock.now;
  }
  get totalCapacity(): Resources {
    return this.sim.totalCapacity;
  }
  get nodes(): ReadonlyMap<NodeId, NodeView> {
    return this.sim.nodeById;
  }
  get apps(): ReadonlyMap<AppId, AppView> {
    return this.sim.apps;
  }
  get containers(): ReadonlyMap<ContainerId, ContainerView> {
    return this.sim.containers;
  }
  get rootQueue(): QueueView {
    return this.sim.queueView();
  }
}

/**
 * Removes item k of a list, keeping the order of the others: `splice` without the array of
 * removed items it returns (a release per task of a replay).
 */
function removeAt<T>(list: T[], k: number): void {
  for (let i = k + 1; i < list.length; i++) list[i - 1] = list[i];
  list.pop();
}

function validateJob(j: JobSpec, i: number): void {
  const name = j.name ?? `#${i}`;
  if (!Number.isFinite(j.arrivalMs) || j.arrivalMs < 0) throw new Error(`job ${name}: bad arrival ${j.arrivalMs}`);
  if (!j.stages.length) throw new Error(`job ${name}: no stages`);
  topoOrder(j);
  for (const st of j.stages) {
    if (!(st.resource.vcores >= 1) || !(st.resource.memoryMB >= 1)) throw new Error(`job ${name}: containers need at least 1 MB and 1 vcore`);
    if (st.appMaster && (st.workMs.length !== 1 || st.parents?.length))
      throw new Error(`job ${name}: an ApplicationMaster stage has one container and no parents`);
    for (let k = 0; k < st.workMs.length; k++) if (!(st.workMs[k] >= 0)) throw new Error(`job ${name}: bad task work ${st.workMs[k]}`);
  }
}
