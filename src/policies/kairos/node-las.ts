/**
 * Kairos node scheduler (paper §3.2, Algorithm 1): LAS with a quantum W on each node.
 *
 * The backend places up to N + Q containers on a node; this module decides which of them hold the
 * node's N cores. It is written as a reconciliation of one node at time `nowMs`:
 *
 * 1. more tasks RUNNING than cores (a task arrived on a busy node) → suspend the running task
 *    with the most attained service (Alg. 1 l. 10-15: the newcomer, youngest by definition, runs);
 * 2. a running task's quantum expired → swap it with the youngest suspended task if that one has
 *    attained no more service (l. 30-42), else it keeps its core for another W (l. 43-45);
 * 3. starvation guard (§3.2, not in the pseudocode): a task suspended for `starvationQuanta`
 *    consecutive quanta preempts the oldest running task and runs unpreemptible for
 *    `starvationRunQuanta` quanta;
 * 4. a core is free (a task finished) → resume the youngest suspended task (l. 19-27).
 *
 * Attained service comes from the snapshot (`attainedServiceMs`, kernel accounting or the
 * simulator); without it, from the running time this module tracks in its state.
 *
 * An application's master container (`appMaster`, live YARN) is not a task: it is never
 * suspended and takes no part in LAS or in the node's attained-service statistics.
 */
import { decisionWithLazyReason, type Decision } from '../../core/actions.js';
import { containerAt, type ClusterSnapshot, type ContainerId, type NodeId, type NodeView } from '../../core/model.js';
import type { KairosParams } from './params.js';

export const POLICY_NAME = 'kairos';

/** Per-task bookkeeping. Small and JSON-serialisable. */
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
}

export interface NodeEntry {
  id: NodeId;
  /** The node's tasks, in the order of the node's containers. */
  tasks: TaskEntry[];
  /** When this node next needs the scheduler (quantum end or starvation deadline); null: never. */
  wake: number | null;
}

/**
 * A task on the node while the node is being scheduled. Scratch space: the items of a visit are
 * taken from a pool and overwritten by the next visit, so nothing that outlives the visit (a lazy
 * reason, the node entry) may hold one.
 */
interface Work {
  id: ContainerId;
  vcores: number;
  running: boolean;
  attainedMs: number;
  e: TaskEntry;
  /** Suspended during this visit (not a resume candidate again in the same visit). */
  justSuspended: boolean;
  /** Not known at the node's previous visit. */
  fresh: boolean;
}

const sec = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** Cores (N) of a node: the parameter if set, else its physical vcores. */
export function coresOf(node: NodeView, params: KairosParams): number {
  return params.coresPerNode ?? Math.max(1, node.physicalCapacity.vcores);
}

const task = (id: ContainerId, acc: number, since: number | null, qEnd: number | null, susp: number | null, prot: number): TaskEntry => ({ id, acc, since, qEnd, susp, prot });

const NO_TASKS: readonly TaskEntry[] = [];

/** Order of LAS: less attained service first, ties by container id. */
const byAttainedAsc = (a: Work, b: Work): number => a.attainedMs - b.attainedMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const byAttainedDesc = (a: Work, b: Work): number => -byAttainedAsc(a, b);
/** Longest suspended first, then LAS order. */
const bySuspendedSince = (a: Work, b: Work): number => (a.e.susp ?? 0) - (b.e.susp ?? 0) || byAttainedAsc(a, b);

// Scratch space of the visit in progress, reused by every visit: a replay makes millions of them,
// and fresh arrays and objects at each cost more than the decisions (scheduleNode is synchronous
// and not re-entrant, so one set suffices).
/**
 * The visit's tasks are `work[0 .. count)`; the items past `count` are spares. (The other lists
 * are emptied only when not empty: setting an array's length is a runtime call even when it does
 * not change.)
 */
const work: Work[] = [];
const expired: Work[] = [];
const starving: Work[] = [];
const waiting: Work[] = [];

/** The running task with the most attained service (only preemptible ones unless `any`). */
function mostAttainedRunning(count: number, now: number, any: boolean): Work | undefined {
  let best: Work | undefined;
  for (let i = 0; i < count; i++) {
    const w = work[i];
    if (!w.running || (!any && w.e.prot > now)) continue;
    if (best === undefined || byAttainedAsc(w, best) > 0) best = w;
  }
  return best;
}

/** The youngest task waiting for a core (not suspended in this visit). */
function youngestWaiting(count: number): Work | undefined {
  let best: Work | undefined;
  for (let i = 0; i < count; i++) {
    const w = work[i];
    if (w.running || w.justSuspended) continue;
    if (best === undefined || byAttainedAsc(w, best) < 0) best = w;
  }
  return best;
}

function suspend(w: Work, now: number, nodeId: NodeId, out: Decision[], rule: string, explain: () => string): void {
  w.running = false;
  w.justSuspended = true;
  const e = w.e;
  e.acc += e.since !== null ? Math.max(0, now - e.since) : 0;
  e.since = null;
  e.qEnd = null;
  e.susp = now;
  e.prot = 0;
  out.push(decisionWithLazyReason({ kind: 'suspendContainer', containerId: w.id, nodeId }, POLICY_NAME, rule, explain));
}

function resume(w: Work, now: number, W: number, nodeId: NodeId, out: Decision[], rule: string, explain: () => string, protectMs = 0): void {
  w.running = true;
  const prot = protectMs > 0 ? now + protectMs : 0;
  const e = w.e;
  e.since = now;
  e.qEnd = prot > 0 ? prot : now + W;
  e.susp = null;
  e.prot = prot;
  out.push(decisionWithLazyReason({ kind: 'resumeContainer', containerId: w.id, nodeId }, POLICY_NAME, rule, explain));
}

// Reasons, written only when read. Each takes the values it shows (never a Work item, which the
// next visit overwrites), and lives outside scheduleNode so that a visit deciding nothing
// allocates no closure context.
const overCommitted = (running: number, nodeId: NodeId, N: number, newcomers: readonly ContainerId[], id: ContainerId, attainedMs: number) => (): string =>
  `${running} tasks running on ${nodeId} > N=${N} cores${newcomers.length ? ` after ${newcomers.join(', ')} arrived` : ''}: ${id} has the most attained service (${sec(attainedMs)})`;
const quantumExpired = (W: number, id: ContainerId, attainedMs: number, next: ContainerId, nextMs: number) => (): string =>
  `quantum W=${sec(W)} of ${id} expired: ${id} attained ${sec(attainedMs)} >= ${next} waiting with ${sec(nextMs)}`;
const takesCoreOf = (id: ContainerId, attainedMs: number, nodeId: NodeId, prev: ContainerId) => (): string =>
  `${id} (attained ${sec(attainedMs)}) is the youngest waiting task on ${nodeId}; takes the core of ${prev}`;
const starvedFreeCore = (id: ContainerId, waitedMs: number, quanta: number, W: number, protectMs: number) => (): string =>
  `${id} waited ${sec(waitedMs)} >= ${quanta} quanta of W=${sec(W)}; a core is free, it runs unpreemptible for ${sec(protectMs)}`;
const starvedVictim = (id: ContainerId, waitedMs: number, quanta: number, W: number, victim: ContainerId, victimMs: number) => (): string =>
  `${id} waited ${sec(waitedMs)} >= ${quanta} quanta of W=${sec(W)}: ${victim} (attained ${sec(victimMs)}, the most) yields its core`;
const starvedRuns = (id: ContainerId, waitedMs: number, quanta: number, W: number, attainedMs: number, protectMs: number) => (): string =>
  `${id} waited ${sec(waitedMs)} >= ${quanta} quanta of W=${sec(W)} (attained ${sec(attainedMs)}); runs unpreemptible for ${sec(protectMs)}`;
const freeCore = (busy: number, N: number, nodeId: NodeId, id: ContainerId, attainedMs: number) => (): string =>
  `${busy}/${N} cores busy on ${nodeId}: ${id} is the youngest waiting task (attained ${sec(attainedMs)})`;

/**
 * Schedules one node: appends its decisions to `out`, writes the attained service of each of its
 * tasks after this visit to `attainedOut` (for the dispatch score), and returns its entry —
 * `prev` updated in place (the policy owns its state; see `updatesStateInPlace`), or a new one.
 * Runs on every node visit of every cycle (millions of times when a trace is replayed), so it
 * allocates little: entries are updated, not rebuilt, its working items are reused, and reasons
 * are only written when read.
 */
export function scheduleNode(
  snapshot: ClusterSnapshot,
  node: NodeView,
  prev: NodeEntry | undefined,
  params: KairosParams,
  out: Decision[],
  attainedOut: number[],
): NodeEntry {
  const now = snapshot.nowMs;
  const W = params.quantumMs;
  const N = coresOf(node, params);
  const nodeId = node.id;
  const starveMs = params.starvationQuanta > 0 ? params.starvationQuanta * W : Infinity;
  const prevTasks = prev?.tasks ?? NO_TASKS;
  // Nothing was waiting on the node when it was last scheduled: every quantum timer that fired
  // since then found no one to yield to, so it simply restarted (Alg. 1 l. 43-45).
  let hadWaiting = false;
  for (let i = 0; i < prevTasks.length; i++) if (prevTasks[i].since === null) hadWaiting = true;

  let count = 0;
  let used = 0;
  const ids = node.containerIds;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const c = containerAt(snapshot, node, i);
    // An ApplicationMaster is not a task: suspending it would stop its job's heartbeats.
    if (!c || c.appMaster) continue;
    const running = c.state === 'RUNNING';
    // Tasks keep the order of the node's containers: look at the same position first.
    let p: TaskEntry | undefined = prevTasks[count];
    if (p !== undefined && p.id !== id) {
      p = undefined;
      for (let k = 0; k < prevTasks.length; k++) if (prevTasks[k].id === id) p = prevTasks[k];
    }
    let e: TaskEntry;
    if (!p) {
      const since = running ? Math.min(now, c.runningSinceMs ?? c.startedAtMs) : null;
      e = task(id, 0, since, since === null ? null : since + W, running ? null : now, 0);
    } else {
      e = p;
      if (running && p.since === null) {
        // Resumed (by us, or by someone else): a new quantum starts.
        const since = Math.min(now, c.runningSinceMs ?? now);
        e.since = since;
        e.qEnd = since + W;
        e.susp = null;
      } else if (!running && p.since !== null) {
        e.acc += Math.max(0, now - p.since);
        e.since = null;
        e.qEnd = null;
        e.susp = now;
        e.prot = 0;
      }
    }
    if (e.since !== null && e.qEnd !== null && e.qEnd <= now && !hadWaiting && e.prot <= now) {
      e.qEnd += Math.floor((now - e.qEnd) / W + 1) * W;
    }
    const vcores = Math.max(1, c.resource.vcores);
    if (running) used += vcores;
    let w = work[count];
    if (w === undefined) w = work[count] = { id, vcores, running, attainedMs: 0, e, justSuspended: false, fresh: false };
    w.id = id;
    w.vcores = vcores;
    w.running = running;
    w.attainedMs = c.attainedServiceMs ?? e.acc + (e.since !== null ? Math.max(0, now - e.since) : 0);
    w.e = e;
    w.justSuspended = false;
    w.fresh = p === undefined;
    count++;
  }

  // 1. More running than cores: the running task with the most attained service yields.
  if (used > N) {
    const newcomers: ContainerId[] = [];
    for (let i = 0; i < count; i++) if (work[i].running && work[i].fresh) newcomers.push(work[i].id);
    while (used > N) {
      const victim = mostAttainedRunning(count, now, false) ?? mostAttainedRunning(count, now, true);
      if (!victim) break;
      suspend(victim, now, nodeId, out, 'las.preempt', overCommitted(used, nodeId, N, newcomers, victim.id, victim.attainedMs));
      used -= victim.vcores;
    }
  }

  // 2. Quantum expiry: yield to the youngest waiting task if it has attained no more service.
  if (expired.length !== 0) expired.length = 0;
  for (let i = 0; i < count; i++) {
    const w = work[i];
    if (w.running && w.e.qEnd !== null && w.e.qEnd <= now) expired.push(w);
  }
  if (expired.length > 1) expired.sort(byAttainedDesc);
  for (let k = 0; k < expired.length; k++) {
    const t = expired[k];
    const m = youngestWaiting(count);
    if (m && m.attainedMs <= t.attainedMs && m.vcores <= t.vcores + (N - used)) {
      suspend(t, now, nodeId, out, 'las.preempt', quantumExpired(W, t.id, t.attainedMs, m.id, m.attainedMs));
      used -= t.vcores;
      resume(m, now, W, nodeId, out, 'las.resume', takesCoreOf(m.id, m.attainedMs, nodeId, t.id));
      used += m.vcores;
    } else {
      t.e.qEnd = now + W;
      t.e.prot = 0;
    }
  }

  // 3. Starvation guard.
  if (Number.isFinite(starveMs)) {
    if (starving.length !== 0) starving.length = 0;
    for (let i = 0; i < count; i++) {
      const w = work[i];
      if (!w.running && !w.justSuspended && w.e.susp !== null && now - w.e.susp >= starveMs) starving.push(w);
    }
    if (starving.length > 1) starving.sort(bySuspendedSince);
    const quanta = params.starvationQuanta;
    const protectMs = params.starvationRunQuanta * W;
    for (let k = 0; k < starving.length; k++) {
      const s = starving[k];
      const waitedMs = now - (s.e.susp ?? now);
      if (N - used >= s.vcores) {
        resume(s, now, W, nodeId, out, 'las.starvation', starvedFreeCore(s.id, waitedMs, quanta, W, protectMs), protectMs);
        used += s.vcores;
        continue;
      }
      const victim = mostAttainedRunning(count, now, false);
      if (!victim || N - used + victim.vcores < s.vcores) continue;
      suspend(victim, now, nodeId, out, 'las.starvation', starvedVictim(s.id, waitedMs, quanta, W, victim.id, victim.attainedMs));
      used -= victim.vcores;
      resume(s, now, W, nodeId, out, 'las.starvation', starvedRuns(s.id, waitedMs, quanta, W, s.attainedMs, protectMs), protectMs);
      used += s.vcores;
    }
  }

  // 4. Free cores go to the youngest waiting tasks.
  if (used < N) {
    if (waiting.length !== 0) waiting.length = 0;
    for (let i = 0; i < count; i++) if (!work[i].running && !work[i].justSuspended) waiting.push(work[i]);
    if (waiting.length > 1) waiting.sort(byAttainedAsc);
    for (let k = 0; k < waiting.length; k++) {
      const m = waiting[k];
      const busy = used;
      if (busy >= N) break;
      if (N - busy < m.vcores) continue;
      resume(m, now, W, nodeId, out, 'las.resume', freeCore(busy, N, nodeId, m.id, m.attainedMs));
      used += m.vcores;
    }
  }

  // Next time the node needs us: only while tasks wait.
  let wake: number | null = null;
  let anyWaiting = false;
  for (let i = 0; i < count; i++) if (!work[i].running) anyWaiting = true;
  if (anyWaiting) {
    for (let i = 0; i < count; i++) {
      const w = work[i];
      const e = w.e;
      if (w.running && e.qEnd !== null && e.qEnd > now && (wake === null || e.qEnd < wake)) wake = e.qEnd;
      if (!w.running && e.susp !== null && Number.isFinite(starveMs)) {
        const d = e.susp + starveMs;
        if (d > now && (wake === null || d < wake)) wake = d;
      }
    }
    const tick = params.monitorIntervalMs;
    if (wake !== null && tick > 0) wake = Math.ceil(wake / tick) * tick;
  }

  if (attainedOut.length !== count) attainedOut.length = count;
  let sameTasks = prevTasks.length === count;
  for (let i = 0; i < count; i++) {
    attainedOut[i] = work[i].attainedMs;
    if (prevTasks[i] !== work[i].e) sameTasks = false;
  }
  let tasks = prevTasks as TaskEntry[];
  if (!sameTasks) {
    tasks = new Array<TaskEntry>(count);
    for (let i = 0; i < count; i++) tasks[i] = work[i].e;
  }
  if (prev === undefined) return { id: nodeId, tasks, wake };
  prev.tasks = tasks;
  prev.wake = wake;
  return prev;
}
