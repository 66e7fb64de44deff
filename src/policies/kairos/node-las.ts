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
import { decisionWithReasonOf, type Decision } from '../../core/actions.js';
import { containerAt, type ClusterSnapshot, type ContainerId, type NodeId, type NodeView } from '../../core/model.js';
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
}

/**
 * A node's entry: its tasks' containers, and their figures in one array of numbers.
 *
 * `t[0]` is when the node next needs the scheduler (quantum end or starvation deadline), and
 * task k's figures are `t[1 + 5k ..]`: acc, since, qEnd, susp, prot as in `TaskEntry`, NaN for
 * "not set" (null in JSON). One array of numbers keeps them unboxed and side by side: a replay
 * visits nodes millions of times, and as objects each task was five scattered heap objects (its
 * record and a box per time), most of a visit's cache misses.
 */
export interface NodeEntry {
  id: NodeId;
  /**
   * Order of first sight (-1 until the policy numbers it): breaks ties between wake-ups of the
   * same time, so that a batch of them comes out of the wake-up index in node id order as a rule
   * (see `KairosState.wakeOrds`).
   */
  ord: number;
  /** The node's tasks (container ids), in the order of the node's containers. */
  ids: ContainerId[];
  t: number[];
}

/** Figures per task in `NodeEntry.t`, and their offsets in a task's slice. */
export const TASK_FIELDS = 5;
const ACC = 0;
const SINCE = 1;
const QEND = 2;
const SUSP = 3;
const PROT = 4;

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
    return { id, acc: e.t[b + ACC], since: orNull(e.t[b + SINCE]), qEnd: orNull(e.t[b + QEND]), susp: orNull(e.t[b + SUSP]), prot: e.t[b + PROT] };
  });
}

/** A node entry from task records and a wake (null: none). */
export function nodeEntry(id: NodeId, ord: number, tasks: readonly TaskEntry[], wake: number | null): NodeEntry {
  const t = [wake ?? NaN];
  for (const x of tasks) t.push(x.acc, x.since ?? NaN, x.qEnd ?? NaN, x.susp ?? NaN, x.prot);
  return { id, ord, ids: tasks.map((x) => x.id), t };
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
  /** Where the task's figures start in `fig` (ACC, SINCE, ... offsets from there). */
  at: number;
  /** Suspended during this visit (not a resume candidate again in the same visit). */
  justSuspended: boolean;
  /** Not known at the node's previous visit. */
  fresh: boolean;
}

/**
 * A duration as reasons show it: tenths of a second. Decisions keep durations in this form, small
 * integers that stay unboxed (a fractional number kept in a decision is one more object each, and
 * a replay makes millions of decisions); `sec` writes them out.
 */
const tenths = (ms: number): number => Math.round(ms / 100);
const sec = (t: number): string => `${t / 10} s`;

/** Cores (N) of a node: the parameter if set, else its physical vcores. */
export function coresOf(node: NodeView, params: KairosParams): number {
  return params.coresPerNode ?? Math.max(1, node.physicalCapacity.vcores);
}

/** Order of LAS: less attained service first, ties by container id. */
const byAttainedAsc = (a: Work, b: Work): number => a.attainedMs - b.attainedMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const byAttainedDesc = (a: Work, b: Work): number => -byAttainedAsc(a, b);
const suspOf = (w: Work): number => (unset(fig[w.at + SUSP]) ? 0 : fig[w.at + SUSP]);
/** Longest suspended first, then LAS order. */
const bySuspendedSince = (a: Work, b: Work): number => suspOf(a) - suspOf(b) || byAttainedAsc(a, b);

// Scratch space of the visit in progress, reused by every visit: a replay makes millions of them,
// and fresh arrays and objects at each cost more than the decisions (scheduleNode is synchronous
// and not re-entrant, so one set suffices).
/**
 * The visit's tasks are `work[0 .. count)`; the items past `count` are spares. The other lists
 * too are used up to a count and never emptied: setting an array's length to 0 drops its room, and
 * the next append would allocate it again, at every visit.
 */
const work: Work[] = [];
const NO_IDS: readonly ContainerId[] = [];
const NO_FIGURES: readonly number[] = [NaN];
/** The figures of the visit's tasks, TASK_FIELDS per task in `work` order (as in `NodeEntry.t`). */
const fig: number[] = [];
const expired: Work[] = [];
const starving: Work[] = [];
const waiting: Work[] = [];

/** Sorts `list[0 .. n)` in place (insertion sort, stable: n is a node's few tasks). */
function sortFirst(list: Work[], n: number, order: (a: Work, b: Work) => number): void {
  for (let i = 1; i < n; i++) {
    const x = list[i];
    let j = i - 1;
    while (j >= 0 && order(list[j], x) > 0) {
      list[j + 1] = list[j];
      j--;
    }
    list[j + 1] = x;
  }
}

/** The running task with the most attained service (only preemptible ones unless `any`). */
function mostAttainedRunning(count: number, now: number, any: boolean): Work | undefined {
  let best: Work | undefined;
  for (let i = 0; i < count; i++) {
    const w = work[i];
    if (!w.running || (!any && fig[w.at + PROT] > now)) continue;
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

/** Takes the task off its core (figures only: the caller records the decision). */
function suspend(w: Work, now: number): void {
  w.running = false;
  w.justSuspended = true;
  const b = w.at;
  const since = fig[b + SINCE];
  if (!unset(since)) fig[b + ACC] += Math.max(0, now - since);
  fig[b + SINCE] = NaN;
  fig[b + QEND] = NaN;
  fig[b + SUSP] = now;
  fig[b + PROT] = 0;
}

/** Gives the task a core for a quantum, or unpreemptible for `protectMs` (figures only). */
function resume(w: Work, now: number, W: number, protectMs = 0): void {
  w.running = true;
  const prot = protectMs > 0 ? now + protectMs : 0;
  const b = w.at;
  fig[b + SINCE] = now;
  fig[b + QEND] = prot > 0 ? prot : now + W;
  fig[b + SUSP] = NaN;
  fig[b + PROT] = prot;
}

const suspendAction = (w: Work, nodeId: NodeId) => ({ kind: 'suspendContainer', containerId: w.id, nodeId }) as const;
const resumeAction = (w: Work, nodeId: NodeId) => ({ kind: 'resumeContainer', containerId: w.id, nodeId }) as const;

// Reasons, written only when read: each format takes the decision's action (its container and
// node) and the values it shows (never a Work item, which the next visit overwrites; durations in
// tenths of a second), which the decision keeps (`decisionWithReasonOf`).
type OnContainer = { readonly containerId: ContainerId; readonly nodeId: NodeId };
const overCommitted = (a: OnContainer, running: number, N: number, newcomers: readonly ContainerId[], attained: number): string =>
  `${running} tasks running on ${a.nodeId} > N=${N} cores${newcomers.length ? ` after ${newcomers.join(', ')} arrived` : ''}: ${a.containerId} has the most attained service (${sec(attained)})`;
const quantumExpired = (a: OnContainer, W: number, attained: number, next: ContainerId, nextAttained: number): string =>
  `quantum W=${sec(W)} of ${a.containerId} expired: ${a.containerId} attained ${sec(attained)} >= ${next} waiting with ${sec(nextAttained)}`;
const takesCoreOf = (a: OnContainer, attained: number, prev: ContainerId): string =>
  `${a.containerId} (attained ${sec(attained)}) is the youngest waiting task on ${a.nodeId}; takes the core of ${prev}`;
const starvedFreeCore = (a: OnContainer, waited: number, params: KairosParams): string =>
  `${a.containerId} waited ${sec(waited)} >= ${params.starvationQuanta} quanta of W=${sec(tenths(params.quantumMs))}; a core is free, it runs unpreemptible for ${sec(tenths(params.starvationRunQuanta * params.quantumMs))}`;
const starvedVictim = (a: OnContainer, starved: ContainerId, waited: number, params: KairosParams, victimAttained: number): string =>
  `${starved} waited ${sec(waited)} >= ${params.starvationQuanta} quanta of W=${sec(tenths(params.quantumMs))}: ${a.containerId} (attained ${sec(victimAttained)}, the most) yields its core`;
const starvedRuns = (a: OnContainer, waited: number, params: KairosParams, attained: number): string =>
  `${a.containerId} waited ${sec(waited)} >= ${params.starvationQuanta} quanta of W=${sec(tenths(params.quantumMs))} (attained ${sec(attained)}); runs unpreemptible for ${sec(tenths(params.starvationRunQuanta * params.quantumMs))}`;
const freeCore = (a: OnContainer, busy: number, N: number, attained: number): string =>
  `${busy}/${N} cores busy on ${a.nodeId}: ${a.containerId} is the youngest waiting task (attained ${sec(attained)})`;

/**
 * The decisions of a cycle, gathered in a list reused by every cycle and handed on at their size
 * (`take`): a list grown by appending holds room for 17 items at least, and most cycles decide
 * two or three things, one cycle per event of a replay.
 */
export class DecisionBuffer {
  private readonly items: Decision[] = [];
  private size = 0;

  add(d: Decision): void {
    this.items[this.size++] = d;
  }

  /** The decisions added since the last take, in order; the buffer is then empty. */
  take(): Decision[] {
    const out = this.items.slice(0, this.size);
    this.discard();
    return out;
  }

  /** Empties the buffer (what a cycle that threw left in it must not reach the next one). */
  discard(): void {
    // Let go of the decisions; the room stays (setting the length to 0 would drop it).
    for (let i = 0; i < this.size; i++) this.items[i] = undefined as unknown as Decision;
    this.size = 0;
  }
}

/**
 * Schedules one node: adds its decisions to `out`, writes the attained service of each of its
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
  out: DecisionBuffer,
  attainedOut: number[],
): NodeEntry {
  const now = snapshot.nowMs;
  const W = params.quantumMs;
  const N = coresOf(node, params);
  const nodeId = node.id;
  const starveMs = params.starvationQuanta > 0 ? params.starvationQuanta * W : Infinity;
  const prevIds = prev !== undefined ? prev.ids : NO_IDS;
  const pt = prev !== undefined ? prev.t : NO_FIGURES;
  // Nothing was waiting on the node when it was last scheduled: every quantum timer that fired
  // since then found no one to yield to, so it simply restarted (Alg. 1 l. 43-45).
  let hadWaiting = false;
  for (let k = 0; k < prevIds.length; k++) if (unset(pt[1 + k * TASK_FIELDS + SINCE])) hadWaiting = true;

  // The figures of the node's tasks are copied into `fig` (in the order of the node's
  // containers), worked on there, and written back into the entry at the end.
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
    let pk = count < prevIds.length && prevIds[count] === id ? count : -1;
    if (pk < 0) for (let k = 0; k < prevIds.length; k++) if (prevIds[k] === id) pk = k;
    const b = count * TASK_FIELDS;
    let acc: number;
    let since: number;
    let qEnd: number;
    let susp: number;
    let prot: number;
    if (pk < 0) {
      acc = 0;
      since = running ? Math.min(now, c.runningSinceMs ?? c.startedAtMs) : NaN;
      qEnd = since + W;
      susp = running ? NaN : now;
      prot = 0;
    } else {
      const pb = 1 + pk * TASK_FIELDS;
      acc = pt[pb + ACC];
      since = pt[pb + SINCE];
      qEnd = pt[pb + QEND];
      susp = pt[pb + SUSP];
      prot = pt[pb + PROT];
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
      }
    }
    // (Comparisons with NaN are false: a suspended task has no quantum to restart.)
    if (qEnd <= now && !hadWaiting && prot <= now) qEnd += Math.floor((now - qEnd) / W + 1) * W;
    fig[b + ACC] = acc;
    fig[b + SINCE] = since;
    fig[b + QEND] = qEnd;
    fig[b + SUSP] = susp;
    fig[b + PROT] = prot;
    const vcores = Math.max(1, c.resource.vcores);
    if (running) used += vcores;
    let w = work[count];
    if (w === undefined) w = work[count] = { id, vcores, running, attainedMs: 0, at: b, justSuspended: false, fresh: false };
    w.id = id;
    w.vcores = vcores;
    w.running = running;
    w.attainedMs = c.attainedServiceMs ?? acc + (unset(since) ? 0 : Math.max(0, now - since));
    w.at = b;
    w.justSuspended = false;
    w.fresh = pk < 0;
    count++;
  }

  // 1. More running than cores: the running task with the most attained service yields.
  if (used > N) {
    const newcomers: ContainerId[] = [];
    for (let i = 0; i < count; i++) if (work[i].running && work[i].fresh) newcomers.push(work[i].id);
    while (used > N) {
      const victim = mostAttainedRunning(count, now, false) ?? mostAttainedRunning(count, now, true);
      if (!victim) break;
      suspend(victim, now);
      out.add(decisionWithReasonOf(suspendAction(victim, nodeId), POLICY_NAME, 'las.preempt', overCommitted, used, N, newcomers, tenths(victim.attainedMs)));
      used -= victim.vcores;
    }
  }

  // 2. Quantum expiry: yield to the youngest waiting task if it has attained no more service.
  let nExpired = 0;
  for (let i = 0; i < count; i++) {
    const w = work[i];
    if (w.running && fig[w.at + QEND] <= now) expired[nExpired++] = w;
  }
  if (nExpired > 1) sortFirst(expired, nExpired, byAttainedDesc);
  for (let k = 0; k < nExpired; k++) {
    const t = expired[k];
    const m = youngestWaiting(count);
    if (m && m.attainedMs <= t.attainedMs && m.vcores <= t.vcores + (N - used)) {
      suspend(t, now);
      out.add(decisionWithReasonOf(suspendAction(t, nodeId), POLICY_NAME, 'las.preempt', quantumExpired, tenths(W), tenths(t.attainedMs), m.id, tenths(m.attainedMs)));
      used -= t.vcores;
      resume(m, now, W);
      out.add(decisionWithReasonOf(resumeAction(m, nodeId), POLICY_NAME, 'las.resume', takesCoreOf, tenths(m.attainedMs), t.id));
      used += m.vcores;
    } else {
      fig[t.at + QEND] = now + W;
      fig[t.at + PROT] = 0;
    }
  }

  // 3. Starvation guard.
  if (Number.isFinite(starveMs)) {
    let nStarving = 0;
    for (let i = 0; i < count; i++) {
      const w = work[i];
      if (!w.running && !w.justSuspended && now - fig[w.at + SUSP] >= starveMs) starving[nStarving++] = w;
    }
    if (nStarving > 1) sortFirst(starving, nStarving, bySuspendedSince);
    const protectMs = params.starvationRunQuanta * W;
    for (let k = 0; k < nStarving; k++) {
      const s = starving[k];
      const waitedMs = now - fig[s.at + SUSP];
      if (N - used >= s.vcores) {
        resume(s, now, W, protectMs);
        out.add(decisionWithReasonOf(resumeAction(s, nodeId), POLICY_NAME, 'las.starvation', starvedFreeCore, tenths(waitedMs), params));
        used += s.vcores;
        continue;
      }
      const victim = mostAttainedRunning(count, now, false);
      if (!victim || N - used + victim.vcores < s.vcores) continue;
      suspend(victim, now);
      out.add(decisionWithReasonOf(suspendAction(victim, nodeId), POLICY_NAME, 'las.starvation', starvedVictim, s.id, tenths(waitedMs), params, tenths(victim.attainedMs)));
      used -= victim.vcores;
      resume(s, now, W, protectMs);
      out.add(decisionWithReasonOf(resumeAction(s, nodeId), POLICY_NAME, 'las.starvation', starvedRuns, tenths(waitedMs), params, tenths(s.attainedMs)));
      used += s.vcores;
    }
  }

  // 4. Free cores go to the youngest waiting tasks.
  if (used < N) {
    let nWaiting = 0;
    for (let i = 0; i < count; i++) if (!work[i].running && !work[i].justSuspended) waiting[nWaiting++] = work[i];
    if (nWaiting > 1) sortFirst(waiting, nWaiting, byAttainedAsc);
    for (let k = 0; k < nWaiting; k++) {
      const m = waiting[k];
      const busy = used;
      if (busy >= N) break;
      if (N - busy < m.vcores) continue;
      resume(m, now, W);
      out.add(decisionWithReasonOf(resumeAction(m, nodeId), POLICY_NAME, 'las.resume', freeCore, busy, N, tenths(m.attainedMs)));
      used += m.vcores;
    }
  }

  // Next time the node needs us: only while tasks wait.
  let wake = NaN;
  let anyWaiting = false;
  for (let i = 0; i < count; i++) if (!work[i].running) anyWaiting = true;
  if (anyWaiting) {
    for (let i = 0; i < count; i++) {
      const w = work[i];
      const qEnd = fig[w.at + QEND];
      if (w.running && qEnd > now && !(qEnd >= wake)) wake = qEnd;
      if (!w.running && Number.isFinite(starveMs)) {
        const d = fig[w.at + SUSP] + starveMs;
        if (d > now && !(d >= wake)) wake = d;
      }
    }
    const tick = params.monitorIntervalMs;
    if (!unset(wake) && tick > 0) wake = Math.ceil(wake / tick) * tick;
  }

  // The entry: its arrays are written over (tasks come and go at every completion and arrival;
  // new arrays at each would be garbage by the million). Written in order, so an array that grows
  // only appends, and trimmed when the node holds fewer tasks.
  if (attainedOut.length !== count) attainedOut.length = count;
  for (let i = 0; i < count; i++) attainedOut[i] = work[i].attainedMs;
  const n = count * TASK_FIELDS;
  if (prev === undefined) {
    const taskIds = new Array<ContainerId>(count);
    for (let i = 0; i < count; i++) taskIds[i] = work[i].id;
    // Built by appending, starting with a number that is not a small integer, so that the array
    // holds unboxed numbers from the start.
    const t = [wake];
    for (let j = 0; j < n; j++) t.push(fig[j]);
    return { id: nodeId, ord: -1, ids: taskIds, t };
  }
  const taskIds = prev.ids;
  for (let i = 0; i < count; i++) if (taskIds[i] !== work[i].id) taskIds[i] = work[i].id;
  if (taskIds.length !== count) taskIds.length = count;
  const t = prev.t;
  t[0] = wake;
  for (let j = 0; j < n; j++) t[1 + j] = fig[j];
  if (t.length !== 1 + n) t.length = 1 + n;
  return prev;
}
