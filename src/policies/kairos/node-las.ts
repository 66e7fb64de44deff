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

/** A task on the node while the node is being scheduled. */
export interface Work {
  id: ContainerId;
  vcores: number;
  running: boolean;
  attainedMs: number;
  e: TaskEntry;
  /** Suspended during this cycle (not a resume candidate again in the same cycle). */
  justSuspended: boolean;
  /** Not known at the node's previous visit. */
  fresh: boolean;
}

export interface NodeResult {
  entry: NodeEntry;
  decisions: Decision[];
  /** Attained service of every task on the node after this cycle (for the dispatch score). */
  attainedMs: number[];
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

/** The running task with the most attained service (only preemptible ones unless `any`). */
function mostAttainedRunning(work: readonly Work[], now: number, any: boolean): Work | undefined {
  let best: Work | undefined;
  for (const w of work) {
    if (!w.running || (!any && w.e.prot > now)) continue;
    if (best === undefined || byAttainedAsc(w, best) > 0) best = w;
  }
  return best;
}

/** The youngest task waiting for a core (not suspended in this cycle). */
function youngestWaiting(work: readonly Work[]): Work | undefined {
  let best: Work | undefined;
  for (const w of work) {
    if (w.running || w.justSuspended) continue;
    if (best === undefined || byAttainedAsc(w, best) < 0) best = w;
  }
  return best;
}

/** One node's scheduling pass: its clock, quantum and cores, the cores in use, the decisions so far. */
interface Cycle {
  now: number;
  W: number;
  N: number;
  nodeId: NodeId;
  used: number;
  decisions: Decision[];
}

function suspend(c: Cycle, w: Work, rule: string, explain: () => string): void {
  w.running = false;
  w.justSuspended = true;
  c.used -= w.vcores;
  const e = w.e;
  e.acc += e.since !== null ? Math.max(0, c.now - e.since) : 0;
  e.since = null;
  e.qEnd = null;
  e.susp = c.now;
  e.prot = 0;
  c.decisions.push(decisionWithLazyReason({ kind: 'suspendContainer', containerId: w.id, nodeId: c.nodeId }, POLICY_NAME, rule, explain));
}

function resume(c: Cycle, w: Work, rule: string, explain: () => string, protectMs = 0): void {
  w.running = true;
  c.used += w.vcores;
  const prot = protectMs > 0 ? c.now + protectMs : 0;
  const e = w.e;
  e.since = c.now;
  e.qEnd = prot > 0 ? prot : c.now + c.W;
  e.susp = null;
  e.prot = prot;
  c.decisions.push(decisionWithLazyReason({ kind: 'resumeContainer', containerId: w.id, nodeId: c.nodeId }, POLICY_NAME, rule, explain));
}

/**
 * Schedules one node, updating its entry `prev` in place (the policy owns its state; see
 * `updatesStateInPlace`). Runs on every node visit of every cycle (millions of times when a trace
 * is replayed), so it allocates little: entries are updated, not rebuilt, and reasons are only
 * written when read.
 */
export function scheduleNode(
  snapshot: ClusterSnapshot,
  node: NodeView,
  prev: NodeEntry | undefined,
  params: KairosParams,
): NodeResult {
  const now = snapshot.nowMs;
  const W = params.quantumMs;
  const N = coresOf(node, params);
  const starveMs = params.starvationQuanta > 0 ? params.starvationQuanta * W : Infinity;
  const prevTasks = prev?.tasks ?? NO_TASKS;
  // Nothing was waiting on the node when it was last scheduled: every quantum timer that fired
  // since then found no one to yield to, so it simply restarted (Alg. 1 l. 43-45).
  let hadWaiting = false;
  for (const t of prevTasks) if (t.since === null) hadWaiting = true;

  const work: Work[] = [];
  let used = 0;
  const ids = node.containerIds;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const c = containerAt(snapshot, node, i);
    // An ApplicationMaster is not a task: suspending it would stop its job's heartbeats.
    if (!c || c.appMaster) continue;
    const running = c.state === 'RUNNING';
    // Tasks keep the order of the node's containers: look at the same position first.
    let p: TaskEntry | undefined = prevTasks[work.length];
    if (p !== undefined && p.id !== id) {
      p = undefined;
      for (const t of prevTasks) if (t.id === id) p = t;
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
    const attainedMs = c.attainedServiceMs ?? e.acc + (e.since !== null ? Math.max(0, now - e.since) : 0);
    const vcores = Math.max(1, c.resource.vcores);
    if (running) used += vcores;
    work.push({ id, vcores, running, attainedMs, e, justSuspended: false, fresh: p === undefined });
  }

  const decisions: Decision[] = [];
  const nodeId = node.id;
  const cyc: Cycle = { now, W, N, nodeId, used, decisions };

  // 1. More running than cores: the running task with the most attained service yields.
  if (cyc.used > N) {
    const newcomers = work.filter((w) => w.running && w.fresh).map((w) => w.id);
    while (cyc.used > N) {
      const victim = mostAttainedRunning(work, now, false) ?? mostAttainedRunning(work, now, true);
      if (!victim) break;
      const running = cyc.used;
      suspend(
        cyc,
        victim,
        'las.preempt',
        () =>
          `${running} tasks running on ${nodeId} > N=${N} cores${newcomers.length ? ` after ${newcomers.join(', ')} arrived` : ''}: ` +
          `${victim.id} has the most attained service (${sec(victim.attainedMs)})`,
      );
    }
  }

  // 2. Quantum expiry: yield to the youngest waiting task if it has attained no more service.
  let expired: Work[] | undefined;
  for (const w of work) if (w.running && w.e.qEnd !== null && w.e.qEnd <= now) (expired ??= []).push(w);
  if (expired !== undefined) {
    if (expired.length > 1) expired.sort(byAttainedDesc);
    for (const t of expired) {
      const m = youngestWaiting(work);
      if (m && m.attainedMs <= t.attainedMs && m.vcores <= t.vcores + (N - cyc.used)) {
        suspend(cyc, t, 'las.preempt', () => `quantum W=${sec(W)} of ${t.id} expired: ${t.id} attained ${sec(t.attainedMs)} >= ${m.id} waiting with ${sec(m.attainedMs)}`);
        resume(cyc, m, 'las.resume', () => `${m.id} (attained ${sec(m.attainedMs)}) is the youngest waiting task on ${nodeId}; takes the core of ${t.id}`);
      } else {
        t.e.qEnd = now + W;
        t.e.prot = 0;
      }
    }
  }

  // 3. Starvation guard.
  if (Number.isFinite(starveMs)) {
    let starving: Work[] | undefined;
    for (const w of work) if (!w.running && !w.justSuspended && w.e.susp !== null && now - w.e.susp >= starveMs) (starving ??= []).push(w);
    if (starving !== undefined) {
      if (starving.length > 1) starving.sort((a, b) => (a.e.susp ?? 0) - (b.e.susp ?? 0) || byAttainedAsc(a, b));
      const quanta = params.starvationQuanta;
      const protectMs = params.starvationRunQuanta * W;
      for (const s of starving) {
        const waitedMs = now - (s.e.susp ?? now);
        if (N - cyc.used >= s.vcores) {
          resume(cyc, s, 'las.starvation', () => `${s.id} waited ${sec(waitedMs)} >= ${quanta} quanta of W=${sec(W)}; a core is free, it runs unpreemptible for ${sec(protectMs)}`, protectMs);
          continue;
        }
        const victim = mostAttainedRunning(work, now, false);
        if (!victim || N - cyc.used + victim.vcores < s.vcores) continue;
        suspend(cyc, victim, 'las.starvation', () => `${s.id} waited ${sec(waitedMs)} >= ${quanta} quanta of W=${sec(W)}: ${victim.id} (attained ${sec(victim.attainedMs)}, the most) yields its core`);
        resume(cyc, s, 'las.starvation', () => `${s.id} waited ${sec(waitedMs)} >= ${quanta} quanta of W=${sec(W)} (attained ${sec(s.attainedMs)}); runs unpreemptible for ${sec(protectMs)}`, protectMs);
      }
    }
  }

  // 4. Free cores go to the youngest waiting tasks.
  if (cyc.used < N) {
    const waiting = work.filter((w) => !w.running && !w.justSuspended);
    if (waiting.length > 1) waiting.sort(byAttainedAsc);
    for (const m of waiting) {
      const busy = cyc.used;
      if (busy >= N) break;
      if (N - busy < m.vcores) continue;
      resume(cyc, m, 'las.resume', () => `${busy}/${N} cores busy on ${nodeId}: ${m.id} is the youngest waiting task (attained ${sec(m.attainedMs)})`);
    }
  }

  // Next time the node needs us: only while tasks wait.
  let wake: number | null = null;
  let anyWaiting = false;
  for (const w of work) if (!w.running) anyWaiting = true;
  if (anyWaiting) {
    for (const w of work) {
      let t: number | null = null;
      if (w.running && w.e.qEnd !== null) t = w.e.qEnd;
      if (t !== null && t > now && (wake === null || t < wake)) wake = t;
      if (!w.running && w.e.susp !== null && Number.isFinite(starveMs)) {
        const d = w.e.susp + starveMs;
        if (d > now && (wake === null || d < wake)) wake = d;
      }
    }
    const tick = params.monitorIntervalMs;
    if (wake !== null && tick > 0) wake = Math.ceil(wake / tick) * tick;
  }

  const attained: number[] = new Array(work.length);
  let sameTasks = prevTasks.length === work.length;
  for (let i = 0; i < work.length; i++) {
    attained[i] = work[i].attainedMs;
    if (prevTasks[i] !== work[i].e) sameTasks = false;
  }
  const tasks = sameTasks ? (prevTasks as TaskEntry[]) : work.map((w) => w.e);
  if (prev === undefined) return { entry: { id: nodeId, tasks, wake }, decisions, attainedMs: attained };
  prev.tasks = tasks;
  prev.wake = wake;
  return { entry: prev, decisions, attainedMs: attained };
}
