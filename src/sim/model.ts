/**
 * The simulated cluster's objects: nodes, containers and applications as the policies see them
 * (the core's views) with the simulator's bookkeeping. The simulator (`engine.ts`) changes them;
 * the allocators and the node order read them.
 */
import type { AppId, AppState, AppView, ContainerId, ContainerState, ContainerView, NodeId, NodeState, NodeView } from '../core/model.js';
import type { Resources } from '../core/resources.js';
import type { SimQueue } from './queues.js';
import { taskCount, type JobSpec } from './workload.js';

/** The simulator's virtual clock, read by containers for their attained service. */
export interface Clock {
  now: number;
}

export class SimNode implements NodeView {
  state: NodeState = 'RUNNING';
  capacity: Resources;
  readonly used = { memoryMB: 0, vcores: 0 };
  readonly containerIds: ContainerId[] = [];
  /** Containers on the node (same order as containerIds). */
  readonly containers: SimContainer[] = [];
  /** Σ vcores of RUNNING containers. */
  runningVcores = 0;
  /** Progress rate of each RUNNING container (processor sharing). */
  rate = 1;
  /** Attained service of RUNNING containers is exact as of this time. */
  lastUpdateMs = 0;
  /** rankNodes score (Infinity = unscored). */
  score = Infinity;

  constructor(
    readonly id: NodeId,
    readonly idRank: number,
    readonly rack: string,
    readonly physicalCapacity: Resources,
  ) {
    this.capacity = physicalCapacity;
  }
}

export class SimContainer implements ContainerView {
  state: ContainerState = 'RUNNING';
  readonly appId: AppId;
  readonly nodeId: NodeId;
  readonly resource: Resources;
  runningSinceMs: number;
  /** Exact as of node.lastUpdateMs while RUNNING; exact while SUSPENDED. */
  attained = 0;
  /** Invalidates stale completion events. */
  gen = 0;
  /** Sequence number within its app (the last part of its id). */
  seqInApp = 0;
  /** The job's ApplicationMaster (`StageSpec.appMaster`): no work, off the cores by default. */
  readonly isAppMaster: boolean;
  /** Launch time left (`SimOptions.launchOverheadMs`): it holds its allocation, off the cores, doing no work. */
  launchLeftMs = 0;
  removed = false;
  /** The pending completion event while RUNNING (simulator bookkeeping). */
  completionEv: unknown = undefined;
  /**
   * A completion event taken out of the queue, kept for the next one: under preemption a
   * container is rescheduled many times, and each event would otherwise be a fresh object.
   */
  spareEv: unknown = undefined;

  constructor(
    readonly id: ContainerId,
    readonly app: SimApp,
    readonly node: SimNode,
    readonly stage: number,
    readonly task: number,
    readonly workMs: number,
    readonly startedAtMs: number,
    private readonly clock: Clock,
  ) {
    this.appId = app.id;
    this.nodeId = node.id;
    this.resource = app.spec.stages[stage].resource;
    this.isAppMaster = app.spec.stages[stage].appMaster === true;
    this.runningSinceMs = startedAtMs;
  }

  /** Not work to schedule: an ApplicationMaster, or a task still launching (on the prototype's fifth core). */
  get appMaster(): boolean {
    return this.isAppMaster || this.launchLeftMs > 0;
  }

  get attainedServiceMs(): number {
    if (this.state !== 'RUNNING' || this.removed || this.appMaster) return this.attained;
    return this.attained + this.node.rate * (this.clock.now - this.node.lastUpdateMs);
  }
}

/** A run of an app's pending tasks of one stage: tasks `next .. end`. */
export interface PendSeg {
  stage: number;
  next: number;
  end: number;
}

export class SimApp implements AppView {
  /** ACCEPTED until its first container is allocated, then RUNNING, then FINISHED or KILLED. */
  state: AppState = 'ACCEPTED';
  priority: number;
  queue: string;
  startedAtMs?: number;
  pendingContainers = 0;
  runningContainers = 0;
  readonly allocated = { memoryMB: 0, vcores: 0 };
  readonly name: string;
  readonly user: string;
  readonly tags: Readonly<Record<string, string>>;
  /** Position in the allocator's app heap (allocator use). */
  allocHeapIndex = -1;
  /** Free slot for allocators (e.g. per-queue bookkeeping). */
  allocData: unknown = undefined;
  queueRef: SimQueue;
  /**
   * The app's containers by sequence number (container `seq` at index seq - 1), undefined once
   * released: a container is found from its id through its app, and a launch or release writes
   * one slot (a cluster-wide map of containers, written at every launch and release of a replay,
   * cost more than the rest of the bookkeeping of both).
   */
  readonly containerBySeq: (SimContainer | undefined)[] = [];
  finishedAtMs?: number;
  /** Work lost to killed containers, ms. */
  wastedMs = 0;
  /** The simulator's policy call count when the app was last listed as changed (-1: never). */
  changedAt = -1;

  readonly pend: PendSeg[] = [];
  pendHead = 0;
  readonly stageDone: Int32Array;
  readonly parentsLeft: Int32Array;
  readonly stageChildren: number[][];
  tasksLeft: number;
  containerSeq = 0;
  /** `container_0_<app number>_01_`: container ids are this plus a 6-digit sequence. */
  readonly containerPrefix: string;

  constructor(
    readonly id: AppId,
    readonly seq: number,
    readonly spec: JobSpec,
    readonly submittedAtMs: number,
    queue: SimQueue,
  ) {
    this.name = spec.name ?? id;
    this.user = spec.user ?? 'sim';
    this.tags = spec.tags ?? {};
    this.priority = spec.priority ?? 0;
    this.queueRef = queue;
    this.queue = queue.path;
    const n = spec.stages.length;
    this.stageDone = new Int32Array(n);
    this.parentsLeft = new Int32Array(n);
    this.stageChildren = Array.from({ length: n }, () => []);
    spec.stages.forEach((st, i) => {
      for (const p of st.parents ?? []) {
        this.parentsLeft[i]++;
        this.stageChildren[p].push(i);
      }
    });
    this.tasksLeft = taskCount(spec);
    this.containerPrefix = `container_0_${id.slice(id.lastIndexOf('_') + 1)}_01_`;
  }

  /** The app's containers, in launch order. */
  liveContainers(): SimContainer[] {
    const out: SimContainer[] = [];
    for (const c of this.containerBySeq) if (c !== undefined) out.push(c);
    return out;
  }

  get isActive(): boolean {
    return this.state === 'RUNNING' || this.state === 'ACCEPTED' || this.state === 'SUBMITTED';
  }

  /** Resource of the largest outstanding request. */
  get pendingContainerResource(): Resources | undefined {
    let best: Resources | undefined;
    for (let i = this.pendHead; i < this.pend.length; i++) {
      const r = this.spec.stages[this.pend[i].stage].resource;
      if (!best || r.memoryMB > best.memoryMB || (r.memoryMB === best.memoryMB && r.vcores > best.vcores)) best = r;
    }
    return best;
  }

  /** Resource of the next container this app will be given. */
  nextPendingResource(): Resources | undefined {
    if (this.pendHead >= this.pend.length) return undefined;
    return this.spec.stages[this.pend[this.pendHead].stage].resource;
  }
}
