/**
 * Kairos node scheduler (paper §3.2, Algorithm 1): LAS with a quantum W on each node's N cores.
 *
 * The backend places up to N + Q containers on a node; a visit decides which of them hold the
 * cores at time `nowMs`, one function per rule of the paper:
 *
 * - `preemptOnArrival` (Alg. 1 l. 10-15): more tasks running than cores → the
 *   one with the most attained service is suspended (the newcomer, youngest by definition, runs);
 * - `swapOnQuantumEnd` (l. 30-45): a running task's quantum expired
 *   → it yields to the youngest suspended task if that one has attained at least `swapMarginMs`
 *   less service (the prototype: W/2), else it keeps its core for another W;
 * - `preemptionCountGuard` (the prototype's head, not in the paper; off by default): at its quantum
 *   end a task suspended more than `preemptionsAllowed` times keeps its core for a longer window
 *   (no decision of its own: the task simply stays);
 * - `starvationGuard` (§3.2, not in the pseudocode; off by default): a task suspended for
 *   `starvationQuanta` quanta takes the core of the running task with the most attained service and
 *   runs unpreemptible for `starvationRunQuanta` quanta;
 * - `resumeOnFreeCore` (l. 19-29): a free core goes to the youngest suspended task.
 *
 * A decision's `rule` is the name of the function that made it.
 *
 * kairos-plus (not in the paper; `lasLimitMs`, `oldTaskCores`, `jobAgeLimitMs`, `serviceAgingPct`,
 * `jobServiceRank`) changes only the LAS order the rules follow (`byAttainedAsc`): tasks of a job
 * older than `jobAgeLimitMs` and the node's first `oldTaskCores` old tasks first, then young tasks
 * by attained service (their job's with `jobServiceRank`: `job-service.ts`) less
 * `serviceAgingPct` % of their job's age (`agedService`, which names a swap plain LAS would not
 * make), then the other old tasks, old ones in their jobs' order (`guaranteeOldTasks` marks them
 * at each visit).
 *
 * Suspending and resuming on the node's cores is the shared mechanism (`shared/suspend-resume.ts`)
 * with the LAS orders. Attained service comes from the snapshot (`attainedServiceMs`); without it,
 * from the running time tracked here. An ApplicationMaster is not a task: never suspended, not
 * counted in LAS or in the node's statistics.
 */
import { decisionWithReasonOf, type Decision } from '../../core/actions.js';
import { numberList, objectList } from '../../core/lists.js';
import { containerAt, type AppId, type ClusterSnapshot, type ContainerId, type NodeId, type NodeView } from '../../core/model.js';
import { secondsText } from '../shared/durations.js';
import { resumeInOrder, sortFirst, suspendUntilWithinCores, type CoreLedger, type ResumeInto, type SuspendOnNode } from '../shared/suspend-resume.js';
import { jobServiceAt, type JobEntries } from './job-service.js';
import type { KairosParams } from './params.js';

export const POLICY_NAME = 'kairos';

/** Per-task bookkeeping, as `taskEntries` reads it out of a node entry (inspection, tests). */
export interface TaskEntry {
  /** The task's container. */
  id: ContainerId;
  /** Service accounted while running, up to `since` (fallback when the snapshot has none). */
  acc: number;
  /** When the task last started running (our view); null while suspended. */
  since: number | null;
  /** End of the running task's current quantum; null while suspended. */
  qEnd: number | null;
  /** When the task was last suspended; null while running. */
  susp: number | null;
  /** The task may not be preempted before this time (starvation guard); 0 when unprotected. */
  prot: number;
  /** Times suspended since its last guarded window (the prototype head's `timesPreempted`). */
  preempts: number;
}

/**
 * A node's entry: its tasks' containers, and their figures in one array of numbers.
 *
 * `t[0]` is when the node next needs the scheduler (quantum end or starvation deadline), and
 * task k's figures are `t[1 + 6k ..]`: acc, since, qEnd, susp, prot, preempts as in `TaskEntry`, NaN for
 * "not set" (null in JSON): one array of numbers keeps them unboxed and side by side.
 */
export interface NodeEntry {
  id: NodeId;
  /** The node's tasks (container ids), in the order of the node's containers. */
  ids: ContainerId[];
  t: number[];
  /**
   * The tasks' jobs, in the order of `ids`, when their running tasks are counted in the job
   * entries (`jobServiceRank`, `job-service.ts`); absent otherwise.
   */
  apps?: AppId[];
}

/** Figures per task in `NodeEntry.t`, and their offsets in a task's slice. */
export const TASK_FIELDS = 6;
const ACC = 0;
const SINCE = 1;
const QEND = 2;
const SUSP = 3;
const PROT = 4;
const PREEMPTS = 5;

/** NaN is "not set" in `NodeEntry.t`. */
const unset = (x: number): boolean => x !== x;
const orNull = (x: number): number | null => (x !== x ? null : x);

/** When the node next needs the scheduler; NaN: never. */
export const wakeOf = (e: NodeEntry): number => e.t[0];

/** Task k of the entry is running (our view: it has a `since`). */
export const taskRunning = (e: NodeEntry, k: number): boolean => !unset(e.t[1 + k * TASK_FIELDS + SINCE]);

/** The tasks of a node entry as records (inspection, tests, conversion). */
export function taskEntries(e: NodeEntry): TaskEntry[] {
  return e.ids.map((id, k) => {
    const b = 1 + k * TASK_FIELDS;
    return {
      id,
      acc: e.t[b + ACC],
      since: orNull(e.t[b + SINCE]),
      qEnd: orNull(e.t[b + QEND]),
      susp: orNull(e.t[b + SUSP]),
      prot: e.t[b + PROT],
      preempts: e.t[b + PREEMPTS],
    };
  });
}

/** A node entry from task records and a wake (null: none). */
export function nodeEntry(id: NodeId, tasks: readonly (Omit<TaskEntry, 'preempts'> & { preempts?: number })[], wake: number | null): NodeEntry {
  const t = [wake ?? NaN];
  for (const x of tasks) t.push(x.acc, x.since ?? NaN, x.qEnd ?? NaN, x.susp ?? NaN, x.prot, x.preempts ?? 0);
  return { id, ids: tasks.map((x) => x.id), t };
}

/** A task on the node during a visit (a working item of `NodeVisit`, overwritten by the next visit). */
interface Work {
  id: ContainerId;
  appId: AppId;
  vcores: number;
  running: boolean;
  attainedMs: number;
  /** Where the task's figures start in `NodeVisit.fig` (ACC, SINCE, ... offsets from there). */
  at: number;
  /** Suspended during this visit (not a resume candidate again in the same visit). */
  justSuspended: boolean;
  /** Not known at the node's previous visit. */
  fresh: boolean;
  /**
   * Where LAS puts the task (always YOUNG without `lasLimitMs`): an old task (past the limit) of one
   * of the node's first `oldTaskCores` old tasks in job order is GUARANTEED, before the young ones;
   * other old tasks come after them.
   */
  tier: number;
  /** Submission of the task's job (orders old tasks). */
  jobSubmittedMs: number;
  /** Service LAS compares: the task's attained service, or its job's with `jobServiceRank`. */
  serviceMs: number;
  /**
   * LAS key: `serviceMs`, less `serviceAgingPct` % of the
   * job's age (`agedService`); the attained service without either.
   */
  rankMs: number;
}

/**
 * Durations a decision keeps for its reason are in tenths of a second (small integers: no boxed
 * number per decision), named `...Tenths`, and written in seconds when the reason is read.
 */
const tenthsOf = (ms: number): number => Math.round(ms / 100);
const tenthsText = (tenths: number): string => `${tenths / 10} s`;

/** Cores (N) of a node: the parameter if set, else its physical vcores. */
export function coresOf(node: NodeView, params: KairosParams): number {
  return params.coresPerNode ?? Math.max(1, node.physicalCapacity.vcores);
}

const byId = (a: Work, b: Work): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const GUARANTEED = 0;
const YOUNG = 1;
const OLD = 2;

/** Old tasks in the order of their jobs' submission, ties by container id. */
const byJob = (a: Work, b: Work): number => a.jobSubmittedMs - b.jobSubmittedMs || byId(a, b);

/**
 * LAS order: less attained service first, ties by container id. With `lasLimitMs`, by tier first
 * (guaranteed old, young, old), and old tasks in the order of their jobs' submission.
 */
const byAttainedAsc = (a: Work, b: Work): number => {
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.tier !== YOUNG) return byJob(a, b);
  return a.rankMs - b.rankMs || byId(a, b);
};
const byAttainedDesc = (a: Work, b: Work): number => -byAttainedAsc(a, b);

const NO_IDS: readonly ContainerId[] = [];
const NO_FIGURES: readonly number[] = [NaN];

const suspendAction = (w: Work, nodeId: NodeId) => ({ kind: 'suspendContainer', containerId: w.id, nodeId }) as const;
const resumeAction = (w: Work, nodeId: NodeId) => ({ kind: 'resumeContainer', containerId: w.id, nodeId }) as const;

// Reasons, written when read, from the decision's action and the values it keeps (never a Work
// item, which the next visit overwrites).
type OnContainer = { readonly containerId: ContainerId; readonly nodeId: NodeId };
const overCommitted = (a: OnContainer, running: number, N: number, newcomers: readonly ContainerId[], attainedTenths: number): string =>
  `${running} tasks running on ${a.nodeId} > N=${N} cores${newcomers.length ? ` after ${newcomers.join(', ')} arrived` : ''}: ${a.containerId} has the most attained service (${tenthsText(attainedTenths)})`;
const quantumExpired = (a: OnContainer, wTenths: number, attainedTenths: number, next: ContainerId, nextAttainedTenths: number): string =>
  `quantum W=${tenthsText(wTenths)} of ${a.containerId} expired: ${a.containerId} attained ${tenthsText(attainedTenths)} >= ${next} waiting with ${tenthsText(nextAttainedTenths)} plus the swap margin`;
const agedOut = (a: OnContainer, attainedTenths: number, rankTenths: number, next: ContainerId, nextRankTenths: number): string =>
  `quantum of ${a.containerId} expired: attained ${tenthsText(attainedTenths)} less its job's aging is ${tenthsText(rankTenths)}, ${next} waits with ${tenthsText(nextRankTenths)} (its job held back longer for its service)`;
const jobAhead = (a: OnContainer, attainedTenths: number, jobTenths: number, next: ContainerId, nextJobTenths: number): string =>
  `quantum of ${a.containerId} expired: it attained ${tenthsText(attainedTenths)}, its job ${tenthsText(jobTenths)}; ${next} waits and its job attained ${tenthsText(nextJobTenths)} (LAS by job)`;
const takesCoreOf = (a: OnContainer, attainedTenths: number, prev: ContainerId): string =>
  `${a.containerId} (attained ${tenthsText(attainedTenths)}) is the youngest waiting task on ${a.nodeId}; takes the core of ${prev}`;
const starvedFreeCore = (a: OnContainer, waitedTenths: number, params: KairosParams): string =>
  `${a.containerId} waited ${tenthsText(waitedTenths)} >= ${params.starvationQuanta} quanta of W=${secondsText(params.quantumMs)}; a core is free, it runs unpreemptible for ${secondsText(params.starvationRunQuanta * params.quantumMs)}`;
const starvedVictim = (a: OnContainer, starved: ContainerId, waitedTenths: number, params: KairosParams, victimAttainedTenths: number): string =>
  `${starved} waited ${tenthsText(waitedTenths)} >= ${params.starvationQuanta} quanta of W=${secondsText(params.quantumMs)}: ${a.containerId} (attained ${tenthsText(victimAttainedTenths)}, the most) yields its core`;
const starvedRuns = (a: OnContainer, waitedTenths: number, params: KairosParams, attainedTenths: number): string =>
  `${a.containerId} waited ${tenthsText(waitedTenths)} >= ${params.starvationQuanta} quanta of W=${secondsText(params.quantumMs)} (attained ${tenthsText(attainedTenths)}); runs unpreemptible for ${secondsText(params.starvationRunQuanta * params.quantumMs)}`;
const freeCore = (a: OnContainer, busy: number, N: number, attainedTenths: number): string =>
  `${busy}/${N} cores busy on ${a.nodeId}: ${a.containerId} is the youngest waiting task (attained ${tenthsText(attainedTenths)})`;

/** A cycle's decisions, in a list reused by every cycle and handed on at their size (`take`). */
export class DecisionBuffer {
  private readonly items: Decision[] = objectList<Decision>();
  private size = 0;

  add(d: Decision): void {
    this.items[this.size++] = d;
  }

  /**
   * Takes back the resume of `containerId` added during the visit of `nodeId` (the decisions at
   * the end of the buffer that name the node). False when there is none.
   */
  withdrawResume(containerId: ContainerId, nodeId: NodeId): boolean {
    for (let i = this.size - 1; i >= 0; i--) {
      const a = this.items[i].action;
      if (!('nodeId' in a) || a.nodeId !== nodeId) return false;
      if (a.kind === 'resumeContainer' && a.containerId === containerId) {
        for (let k = i + 1; k < this.size; k++) this.items[k - 1] = this.items[k];
        this.items[--this.size] = undefined as unknown as Decision;
        return true;
      }
    }
    return false;
  }

  /** The decisions added since the last take, in order; the buffer is then empty. */
  take(): Decision[] {
    const out = this.items.slice(0, this.size);
    this.discard();
    return out;
  }

  /** Empties the buffer (what a cycle that threw left in it must not reach the next one). */
  discard(): void {
    // Let go of the decisions but keep the room (setting the length to 0 would drop it).
    for (let i = 0; i < this.size; i++) this.items[i] = undefined as unknown as Decision;
    this.size = 0;
  }
}

/**
 * One node visit at a time: the node's tasks (`work[0 .. count)`) and their figures (`fig`,
 * laid out as `NodeEntry.t`: the wake, then TASK_FIELDS per task), worked on here and written back to the entry.
 * Owned by a run and reused by its visits; the lists are used up to a count and never emptied
 * (emptying an array drops its room).
 */
export class NodeVisit implements CoreLedger {
  readonly work: Work[] = objectList<Work>();
  readonly fig: number[] = numberList();
  readonly expired: Work[] = objectList<Work>();
  readonly starving: Work[] = objectList<Work>();
  readonly waiting: Work[] = objectList<Work>();
  count = 0;
  cores = 0;
  /** Vcores of the running tasks. */
  used = 0;
  now = 0;
  W = 0;
  nodeId: NodeId = '';
  params!: KairosParams;
  out!: DecisionBuffer;
  /** The job entries whose service ranks young tasks (`jobServiceRank`); undefined: the tasks' own. */
  jobs: JobEntries | undefined = undefined;
  /** The node as `preemptOnArrival` brings it within its cores, and as `resumeOnFreeCore` fills it. */
  readonly overCommit = new OverCommittedNode(this);
  readonly freeCores: ResumeInto<Work> = new FreeCores(this);

  /** Suspended since (0 when not suspended), for the starvation order. */
  private suspendedSince(w: Work): number {
    const susp = this.fig[w.at + SUSP];
    return unset(susp) ? 0 : susp;
  }

  /** Longest suspended first, then LAS order. */
  readonly bySuspendedSince = (a: Work, b: Work): number => this.suspendedSince(a) - this.suspendedSince(b) || byAttainedAsc(a, b);

  /** Protected from preemption now (starvation guard). */
  isProtected(w: Work): boolean {
    return this.fig[w.at + PROT] > this.now;
  }

  /** The running task with the most attained service (only unprotected ones unless `any`). */
  mostAttainedRunning(any: boolean): Work | undefined {
    let best: Work | undefined;
    for (let i = 0; i < this.count; i++) {
      const w = this.work[i];
      if (!w.running || (!any && this.isProtected(w))) continue;
      if (best === undefined || byAttainedAsc(w, best) > 0) best = w;
    }
    return best;
  }

  /** The youngest task waiting for a core (not suspended in this visit). */
  youngestWaiting(): Work | undefined {
    let best: Work | undefined;
    for (let i = 0; i < this.count; i++) {
      const w = this.work[i];
      if (w.running || w.justSuspended) continue;
      if (best === undefined || byAttainedAsc(w, best) < 0) best = w;
    }
    return best;
  }

  /** Takes the task off its core (figures only: the caller records the decision). */
  takeCore(w: Work, now: number): void {
    const fig = this.fig;
    w.running = false;
    w.justSuspended = true;
    const b = w.at;
    const since = fig[b + SINCE];
    if (!unset(since)) fig[b + ACC] += Math.max(0, now - since);
    fig[b + SINCE] = NaN;
    fig[b + QEND] = NaN;
    fig[b + SUSP] = now;
    fig[b + PROT] = 0;
    fig[b + PREEMPTS] += 1;
  }

  /** Gives the task a core for a quantum, or unpreemptible for `protectMs` (figures only). */
  giveCore(w: Work, now: number, W: number, protectMs = 0): void {
    const fig = this.fig;
    w.running = true;
    const prot = protectMs > 0 ? now + protectMs : 0;
    const b = w.at;
    fig[b + SINCE] = now;
    fig[b + QEND] = prot > 0 ? prot : now + W;
    fig[b + SUSP] = NaN;
    fig[b + PROT] = prot;
  }
}

/** The visited node's free cores, as `resumeOnFreeCore` fills them (a class: every run's visit calls the same functions). */
class FreeCores implements ResumeInto<Work> {
  constructor(private readonly visit: NodeVisit) {}

  ledgerOf(): CoreLedger {
    return this.visit;
  }
  vcoresOf(w: Work): number {
    return w.vcores;
  }
  resume(m: Work): void {
    const v = this.visit;
    v.giveCore(m, v.now, v.W);
    v.out.add(decisionWithReasonOf(resumeAction(m, v.nodeId), POLICY_NAME, 'resumeOnFreeCore', freeCore, v.used, v.cores, tenthsOf(m.attainedMs)));
  }
}

/** LAS's victim order for the shared mechanism: unprotected first, then the most attained service. */
class OverCommittedNode implements SuspendOnNode<Work> {
  /** Tasks that started running on the node since its last visit (shown in the reason). */
  newcomers: readonly ContainerId[] = NO_IDS;

  constructor(private readonly visit: NodeVisit) {}

  get cores(): number {
    return this.visit.cores;
  }
  get used(): number {
    return this.visit.used;
  }
  set used(v: number) {
    this.visit.used = v;
  }
  get count(): number {
    return this.visit.count;
  }
  taskAt(i: number): Work {
    return this.visit.work[i];
  }
  isVictim(w: Work): boolean {
    return w.running;
  }
  victimOrder(a: Work, b: Work): number {
    const pa = this.visit.isProtected(a);
    return pa !== this.visit.isProtected(b) ? (pa ? 1 : -1) : byAttainedDesc(a, b);
  }
  vcoresOf(w: Work): number {
    return w.vcores;
  }
  suspend(w: Work): void {
    const v = this.visit;
    v.takeCore(w, v.now);
    v.out.add(
      decisionWithReasonOf(suspendAction(w, v.nodeId), POLICY_NAME, 'preemptOnArrival', overCommitted, v.used, v.cores, this.newcomers, tenthsOf(w.attainedMs)),
    );
  }
}

/**
 * Loads the node's tasks into the visit: figures from the previous entry (matched by container
 * id), brought up to date with what happened since (resumed or suspended by someone else, a
 * quantum that restarted with no one waiting).
 */
function loadTasks(v: NodeVisit, snapshot: ClusterSnapshot, node: NodeView, prev: NodeEntry | undefined): void {
  const now = v.now;
  const W = v.W;
  const fig = v.fig;
  const work = v.work;
  const lasLimitMs = v.params.lasLimitMs;
  const jobAgeLimitMs = v.params.jobAgeLimitMs;
  const agingPct = v.params.serviceAgingPct;
  const jobs = v.jobs;
  const prevIds = prev !== undefined ? prev.ids : NO_IDS;
  const pt = prev !== undefined ? prev.t : NO_FIGURES;
  // Nothing was waiting at the last visit: every quantum timer that fired since then found no one
  // to yield to, so it simply restarted (Alg. 1 l. 43-45).
  let hadWaiting = false;
  for (let k = 0; k < prevIds.length; k++) if (unset(pt[1 + k * TASK_FIELDS + SINCE])) hadWaiting = true;

  let count = 0;
  let used = 0;
  // The figures are laid out as the entry's: the wake first (written at the end of the visit).
  fig[0] = NaN;
  const ids = node.containerIds;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const c = containerAt(snapshot, node, i);
    if (!c || c.appMaster) continue;
    const running = c.state === 'RUNNING';
    // Tasks keep the order of the node's containers: look at the same position first.
    let pk = count < prevIds.length && prevIds[count] === id ? count : -1;
    if (pk < 0) for (let k = 0; k < prevIds.length; k++) if (prevIds[k] === id) pk = k;
    const b = 1 + count * TASK_FIELDS;
    let acc: number;
    let since: number;
    let qEnd: number;
    let susp: number;
    let prot: number;
    let preempts: number;
    if (pk < 0) {
      acc = 0;
      since = running ? Math.min(now, c.runningSinceMs ?? c.startedAtMs) : NaN;
      qEnd = since + W;
      susp = running ? NaN : now;
      prot = 0;
      preempts = 0;
    } else {
      const pb = 1 + pk * TASK_FIELDS;
      acc = pt[pb + ACC];
      since = pt[pb + SINCE];
      qEnd = pt[pb + QEND];
      susp = pt[pb + SUSP];
      prot = pt[pb + PROT];
      preempts = pt[pb + PREEMPTS];
      if (running && unset(since)) {
        // Resumed (by us, or by someone else): a new quantum starts.
        since = Math.min(now, c.runningSinceMs ?? now);
        qEnd = since + W;
        susp = NaN;
      } else if (!running && !unset(since)) {
        acc += Math.max(0, now - since);
        since = NaN;
        qEnd = NaN;
        susp = now;
        prot = 0;
        preempts++;
      }
    }
    // (Comparisons with NaN are false: a suspended task has no quantum to restart.)
    if (qEnd <= now && !hadWaiting && prot <= now) qEnd += Math.floor((now - qEnd) / W + 1) * W;
    fig[b + ACC] = acc;
    fig[b + SINCE] = since;
    fig[b + QEND] = qEnd;
    fig[b + SUSP] = susp;
    fig[b + PROT] = prot;
    fig[b + PREEMPTS] = preempts;
    const vcores = Math.max(1, c.resource.vcores);
    if (running) used += vcores;
    let w = work[count];
    if (w === undefined)
      w = work[count] = {
        id,
        appId: c.appId,
        vcores,
        running,
        attainedMs: 0,
        at: b,
        justSuspended: false,
        fresh: false,
        tier: YOUNG,
        jobSubmittedMs: 0,
        serviceMs: 0,
        rankMs: 0,
      };
    w.id = id;
    w.appId = c.appId;
    w.vcores = vcores;
    w.running = running;
    w.attainedMs = c.attainedServiceMs ?? acc + (unset(since) ? 0 : Math.max(0, now - since));
    w.at = b;
    w.justSuspended = false;
    w.fresh = pk < 0;
    const needsJob = (lasLimitMs !== undefined && w.attainedMs >= lasLimitMs) || jobAgeLimitMs !== undefined || agingPct > 0;
    w.jobSubmittedMs = needsJob ? (snapshot.apps.get(c.appId)?.submittedAtMs ?? 0) : 0;
    w.serviceMs = jobs !== undefined ? rankByJobService(jobs, c.appId, now) : w.attainedMs;
    w.rankMs = agingPct > 0 ? agedService(w.serviceMs, now - w.jobSubmittedMs, agingPct) : w.serviceMs;
    w.tier = lasLimitMs !== undefined && w.attainedMs >= lasLimitMs ? OLD : YOUNG;
    if (jobAgeLimitMs !== undefined && now - w.jobSubmittedMs >= jobAgeLimitMs) w.tier = GUARANTEED;
    count++;
  }
  v.count = count;
  v.used = used;
  if (v.params.oldTaskCores > 0) guaranteeOldTasks(v);
}

/**
 * Not in the paper (kairos-plus, `jobServiceRank`): LAS by job. A young task is ranked by its job's
 * attained service, all its tasks' (`job-service.ts`), so the job with the least service overall
 * goes first and a job's last tasks do not wait behind a newer job's many tasks of the same age.
 */
export function rankByJobService(jobs: JobEntries, app: AppId, nowMs: number): number {
  return jobServiceAt(jobs[app], nowMs);
}

/**
 * Not in the paper (kairos-plus): LAS with aging. A task's place in the LAS order is its attained
 * service less `agingPct` % of its job's age, so a job held back long relative to the service its
 * tasks attained overtakes younger work: a task of a job of age A with attained service S goes
 * before a new task once A > S · 100 / agingPct (a bound on the job's slowdown relative to its own
 * attained service, not a fixed age).
 */
export function agedService(attainedMs: number, jobAgeMs: number, agingPct: number): number {
  return attainedMs - (agingPct / 100) * Math.max(0, jobAgeMs);
}

/** Not in the paper (kairos-plus): the node's first `oldTaskCores` old tasks, in job order, go before the young ones. */
function guaranteeOldTasks(v: NodeVisit): void {
  const old = v.waiting;
  let n = 0;
  for (let i = 0; i < v.count; i++) if (v.work[i].tier === OLD) old[n++] = v.work[i];
  if (n > 1) sortFirst(old, n, byJob);
  for (let k = 0; k < n && k < v.params.oldTaskCores; k++) old[k].tier = GUARANTEED;
}

/** Alg. 1 l. 10-15: more running than cores (a task arrived on a busy node) → the most attained yields. */
function preemptOnArrival(v: NodeVisit): void {
  if (v.used <= v.cores) return;
  const newcomers: ContainerId[] = [];
  for (let i = 0; i < v.count; i++) if (v.work[i].running && v.work[i].fresh) newcomers.push(v.work[i].id);
  v.overCommit.newcomers = newcomers;
  suspendUntilWithinCores(v.overCommit);
}

/**
 * The prototype head's guard (epfl-labos/kairos 0788562): a task suspended more than
 * `preemptionsAllowed` times is not compared at its quantum end but keeps its core for
 * `windowsAfterPreemptions` quanta, and its count starts over. True when it applied.
 */
function preemptionCountGuard(v: NodeVisit, t: Work): boolean {
  const allowed = v.params.preemptionsAllowed;
  const b = t.at;
  if (allowed === undefined || !(v.fig[b + PREEMPTS] > allowed)) return false;
  v.fig[b + PREEMPTS] = 0;
  v.fig[b + QEND] = v.now + v.params.windowsAfterPreemptions * v.W;
  v.fig[b + PROT] = 0;
  return true;
}

/** Whether waiting task `m` takes the core of `t`, whose quantum expired (the swap margin; old tasks by their jobs' order). */
function yieldsTo(v: NodeVisit, t: Work, m: Work, marginMs: number): boolean {
  // With a core free for m, m takes that core (resumeOnFreeCore) and t keeps its own.
  if (m.vcores > t.vcores + (v.cores - v.used) || m.vcores <= v.cores - v.used) return false;
  if (m.tier !== YOUNG || t.tier !== YOUNG) return byAttainedAsc(m, t) < 0;
  return m.rankMs + marginMs <= t.rankMs;
}

/** Alg. 1 l. 30-45: at its quantum's end a task yields to the youngest waiting task if that one has attained `swapMarginMs` less. */
function swapOnQuantumEnd(v: NodeVisit): void {
  const { now, W, fig, work, expired } = v;
  const marginMs = v.params.swapMarginMs ?? W / 2;
  let nExpired = 0;
  for (let i = 0; i < v.count; i++) {
    const w = work[i];
    if (w.running && fig[w.at + QEND] <= now) expired[nExpired++] = w;
  }
  if (nExpired > 1) sortFirst(expired, nExpired, byAttainedDesc);
  for (let k = 0; k < nExpired; k++) {
    const t = expired[k];
    if (preemptionCountGuard(v, t)) continue;
    const m = v.youngestWaiting();
    if (m && yieldsTo(v, t, m, marginMs)) {
      v.takeCore(t, now);
      // A swap plain LAS would not make is the job rank's (by the jobs' service) or aging's.
      const young = m.tier === YOUNG && t.tier === YOUNG;
      const byJob = young && m.attainedMs + marginMs > t.attainedMs && m.serviceMs + marginMs <= t.serviceMs && v.jobs !== undefined;
      const aged = young && !byJob && m.attainedMs + marginMs > t.attainedMs;
      v.out.add(
        byJob
          ? decisionWithReasonOf(
              suspendAction(t, v.nodeId),
              POLICY_NAME,
              'rankByJobService',
              jobAhead,
              tenthsOf(t.attainedMs),
              tenthsOf(t.serviceMs),
              m.id,
              tenthsOf(m.serviceMs),
            )
          : aged
            ? decisionWithReasonOf(
                suspendAction(t, v.nodeId),
                POLICY_NAME,
                'agedService',
                agedOut,
                tenthsOf(t.attainedMs),
                tenthsOf(t.rankMs),
                m.id,
                tenthsOf(m.rankMs),
              )
            : decisionWithReasonOf(
                suspendAction(t, v.nodeId),
                POLICY_NAME,
                'swapOnQuantumEnd',
                quantumExpired,
                tenthsOf(W),
                tenthsOf(t.attainedMs),
                m.id,
                tenthsOf(m.attainedMs),
              ),
      );
      v.used -= t.vcores;
      v.giveCore(m, now, W);
      v.out.add(
        decisionWithReasonOf(
          resumeAction(m, v.nodeId),
          POLICY_NAME,
          byJob ? 'rankByJobService' : aged ? 'agedService' : 'swapOnQuantumEnd',
          takesCoreOf,
          tenthsOf(m.attainedMs),
          t.id,
        ),
      );
      v.used += m.vcores;
    } else {
      // l. 43-45: no one younger waits; the task keeps its core for another quantum.
      fig[t.at + QEND] = now + W;
      fig[t.at + PROT] = 0;
    }
  }
}

/** §3.2: a task suspended for `starvationQuanta` quanta runs, unpreemptible for `starvationRunQuanta`. */
function starvationGuard(v: NodeVisit, starveMs: number): void {
  if (!Number.isFinite(starveMs)) return;
  const { now, W, fig, work, starving, params } = v;
  let nStarving = 0;
  for (let i = 0; i < v.count; i++) {
    const w = work[i];
    if (!w.running && !w.justSuspended && now - fig[w.at + SUSP] >= starveMs) starving[nStarving++] = w;
  }
  if (nStarving > 1) sortFirst(starving, nStarving, v.bySuspendedSince);
  const protectMs = params.starvationRunQuanta * W;
  for (let k = 0; k < nStarving; k++) {
    const s = starving[k];
    const waitedMs = now - fig[s.at + SUSP];
    if (v.cores - v.used >= s.vcores) {
      v.giveCore(s, now, W, protectMs);
      v.out.add(decisionWithReasonOf(resumeAction(s, v.nodeId), POLICY_NAME, 'starvationGuard', starvedFreeCore, tenthsOf(waitedMs), params));
      v.used += s.vcores;
      continue;
    }
    const victim = v.mostAttainedRunning(false);
    if (!victim || v.cores - v.used + victim.vcores < s.vcores) continue;
    v.takeCore(victim, now);
    // A victim resumed earlier in this visit simply stays suspended: one end state per container.
    if (!v.out.withdrawResume(victim.id, v.nodeId)) {
      v.out.add(
        decisionWithReasonOf(
          suspendAction(victim, v.nodeId),
          POLICY_NAME,
          'starvationGuard',
          starvedVictim,
          s.id,
          tenthsOf(waitedMs),
          params,
          tenthsOf(victim.attainedMs),
        ),
      );
    }
    v.used -= victim.vcores;
    v.giveCore(s, now, W, protectMs);
    v.out.add(decisionWithReasonOf(resumeAction(s, v.nodeId), POLICY_NAME, 'starvationGuard', starvedRuns, tenthsOf(waitedMs), params, tenthsOf(s.attainedMs)));
    v.used += s.vcores;
  }
}

/** Alg. 1 l. 19-29: free cores go to the youngest waiting tasks. */
function resumeOnFreeCore(v: NodeVisit): void {
  if (v.used >= v.cores) return;
  const { work, waiting } = v;
  let nWaiting = 0;
  for (let i = 0; i < v.count; i++) if (!work[i].running && !work[i].justSuspended) waiting[nWaiting++] = work[i];
  if (nWaiting > 1) sortFirst(waiting, nWaiting, byAttainedAsc);
  resumeInOrder(waiting, nWaiting, v.freeCores);
}

/**
 * When the node next needs the scheduler: the next quantum end or starvation deadline, on the
 * monitor's tick, and only while tasks wait (NaN: never).
 */
function nextWake(v: NodeVisit, starveMs: number): number {
  const { now, fig, work } = v;
  let wake = NaN;
  let anyWaiting = false;
  for (let i = 0; i < v.count; i++) if (!work[i].running) anyWaiting = true;
  if (!anyWaiting) return wake;
  for (let i = 0; i < v.count; i++) {
    const w = work[i];
    const qEnd = fig[w.at + QEND];
    if (w.running && qEnd > now && !(qEnd >= wake)) wake = qEnd;
    if (!w.running && Number.isFinite(starveMs)) {
      const d = fig[w.at + SUSP] + starveMs;
      if (d > now && !(d >= wake)) wake = d;
    }
  }
  const tick = v.params.monitorIntervalMs;
  if (!unset(wake) && tick > 0) wake = Math.ceil(wake / tick) * tick;
  return wake;
}

/**
 * Schedules one node: adds its decisions to `out`, writes the attained service of each of its
 * `v.count` tasks after this visit to the start of `attainedOut` (for the dispatch score), and
 * returns its entry: `prev` updated in place (see `updatesStateInPlace`), or a new one. `v` is the
 * run's working space.
 */
export function scheduleNode(
  v: NodeVisit,
  snapshot: ClusterSnapshot,
  node: NodeView,
  prev: NodeEntry | undefined,
  params: KairosParams,
  out: DecisionBuffer,
  attainedOut: number[],
  jobs?: JobEntries,
): NodeEntry {
  v.now = snapshot.nowMs;
  v.jobs = jobs;
  v.W = params.quantumMs;
  v.cores = coresOf(node, params);
  v.nodeId = node.id;
  v.params = params;
  v.out = out;
  const starveMs = params.starvationQuanta > 0 ? params.starvationQuanta * params.quantumMs : Infinity;
  loadTasks(v, snapshot, node, prev);

  preemptOnArrival(v);
  swapOnQuantumEnd(v);
  starvationGuard(v, starveMs);
  resumeOnFreeCore(v);
  const wake = nextWake(v, starveMs);

  // Written back over the entry's arrays; new arrays for a new node and for one whose task count
  // changed (an array shortened in place goes through V8's runtime).
  const { work, fig, count } = v;
  for (let i = 0; i < count; i++) attainedOut[i] = work[i].attainedMs;
  const n = 1 + count * TASK_FIELDS;
  fig[0] = wake;
  if (prev === undefined || prev.ids.length !== count) {
    const taskIds = new Array<ContainerId>(count);
    for (let i = 0; i < count; i++) taskIds[i] = work[i].id;
    // A copy of the visit's figures, laid out as the entry's: unboxed numbers, no room to spare.
    const t = fig.slice(0, n);
    const entry = prev ?? { id: node.id, ids: taskIds, t };
    entry.ids = taskIds;
    entry.t = t;
    return withApps(entry, v, jobs !== undefined);
  }
  const taskIds = prev.ids;
  for (let i = 0; i < count; i++) if (taskIds[i] !== work[i].id) taskIds[i] = work[i].id;
  const t = prev.t;
  for (let j = 0; j < n; j++) t[j] = fig[j];
  return withApps(prev, v, jobs !== undefined);
}

/** Calls `add` with the job and attained service of each task the visit saw for the first time. */
export function forFreshTasks(v: NodeVisit, add: (app: AppId, attainedMs: number) => void): void {
  for (let i = 0; i < v.count; i++) if (v.work[i].fresh) add(v.work[i].appId, v.work[i].attainedMs);
}

/** The entry with its tasks' jobs written (`counted`: job service is counted) or without them. */
function withApps(e: NodeEntry, v: NodeVisit, counted: boolean): NodeEntry {
  if (!counted) {
    if (e.apps !== undefined) delete e.apps;
    return e;
  }
  const { work, count } = v;
  let apps = e.apps;
  if (apps === undefined || apps.length !== count) apps = e.apps = new Array<AppId>(count);
  for (let i = 0; i < count; i++) if (apps[i] !== work[i].appId) apps[i] = work[i].appId;
  return e;
}
