/**
 * Kairos (Delgado et al., SoCC'18): preemptive scheduling without runtime estimates.
 *
 * - Node level (`node-las.ts`): LAS with quantum W on each node's N cores, through
 *   suspend/resume; the starvation guards of the paper's simulations and of the prototype's head
 *   as options, off by default.
 * - Central level (§3.3): every node accepts at most N + Q tasks (`nodeCap`: the node's
 *   advertised capacity is raised to N + Q vcores, memory scaled alike, so the RM places up to
 *   N + Q containers), and a task goes to the node with the fewest tasks, ties broken by the
 *   lowest variance of the attained service of the node's tasks (`dispatchRank`: `rankNodes`
 *   with `leastLoadedFirst`). `random` and `sum` tie-breaks reproduce the paper's Fig. 6.
 *
 * The central rules are `nodeCap` and `dispatchRank`, the node rules are in `node-las.ts`; a
 * decision's `rule` is the name of the function that made it. A cycle costs what changed, not
 * the cluster size: it visits the nodes whose containers changed (other than as this policy
 * asked) and the nodes whose wake-up has come (the runtime's `WakeIndex`). The state is updated in
 * place (`updatesStateInPlace`).
 */
import { decisionWithReasonOf, ListedRanking, type ActionOf, type Decision } from '../../core/actions.js';
import { objectList } from '../../core/lists.js';
import { containerAt, type ClusterSnapshot, type ContainerId, type NodeId, type NodeView } from '../../core/model.js';
import { loopTurn, runTurnsInline, type SolveSteps } from '../../core/milp.js';
import { definePolicy, type PolicyInput, type PolicyOutput } from '../../core/policy.js';
import { keptKey, trackingOf, type ChangeTracking, type WakeIndex } from '../../core/tracking.js';
import type { Resources } from '../../core/resources.js';
import { runSpaceOf } from '../shared/run-space.js';
import { advertisesSlots, slotCapacity } from '../shared/suspend-resume.js';
import {
  coresOf,
  DecisionBuffer,
  forFreshTasks,
  nodeEntry,
  NodeVisit,
  POLICY_NAME,
  scheduleNode,
  taskEntries,
  taskRunning,
  wakeOf,
  type NodeEntry,
  type TaskEntry,
} from './node-las.js';
import { addRunning, addService, forgetEndedJobs, JOBS, type JobEntries } from './job-service.js';
import { kairosParamsSchema, type KairosParams, type TieBreak } from './params.js';

export { kairosParamsSchema, type KairosParams } from './params.js';
export type { NodeEntry, TaskEntry } from './node-las.js';

/** Version of the state layout below; a state of an older layout is converted on first use. */
export const STATE_LAYOUT = 8;

/**
 * What the paper's algorithm keeps: every node's tasks with their attained service and quantum
 * timers, and the node's next timer (`NodeEntry`). The wake-up index and the count of entries are
 * the runtime's (`PolicyInput.tracking`), rebuilt from this when a state is loaded.
 */
export interface KairosState {
  layout: typeof STATE_LAYOUT;
  /** Node entries by node id (a dictionary, updated in place). */
  nodes: Record<NodeId, NodeEntry>;
  /** Jobs' attained service by app id (`jobServiceRank`; a dictionary, updated in place; empty otherwise). */
  jobs: JobEntries;
  /** Last sweep over every node (cap check, vanished nodes); null before the first cycle. */
  lastSweepMs: number | null;
  /** PRNG state of the `random` tie-break. */
  rng: number;
}

/** What Kairos keeps in the runtime's change tracking besides the wake-ups. */
interface KairosKept {
  /** Number of entries in `KairosState.nodes` (so that a sweep finds vanished nodes without listing them). */
  size: number;
}

const KEPT = keptKey<KairosKept>('kairos');
/** The state's field of node entries, changed through the tracking (`stateEntries`). */
const NODES = 'nodes';

/** A node entry keyed for inspection: its tasks by container id. */
export interface NodeEntryView {
  tasks: Record<ContainerId, TaskEntry>;
  wake: number | null;
}

/** Every node entry of a state, by node id (for inspection and tests). */
export function stateNodes(state: KairosState): Record<NodeId, NodeEntryView> {
  const out: Record<NodeId, NodeEntryView> = {};
  for (const id of Object.keys(state.nodes).sort()) {
    const e = state.nodes[id];
    const wake = wakeOf(e);
    out[id] = { tasks: Object.fromEntries(taskEntries(e).map((t) => [t.id, t])), wake: Number.isNaN(wake) ? null : wake };
  }
  return out;
}

/** Code-unit order, as the default sort, without its conversions. */
const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The nodes a cycle visits: a list reused by every cycle, used up to `size`. */
class VisitList {
  readonly ids: NodeId[] = objectList<NodeId>();
  size = 0;

  clear(): void {
    this.size = 0;
  }

  push(id: NodeId): void {
    this.ids[this.size++] = id;
  }

  /**
   * Puts the ids in code-unit order without repeats: usually already so (then only checked); a
   * handful of ids by insertion, more by the built-in sort.
   */
  sortUnique(): void {
    const ids = this.ids;
    const n = this.size;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) if (!(ids[i - 1] < ids[i])) sorted = false;
    if (sorted) return;
    if (n > 16) {
      const part = ids.slice(0, n).sort(byId);
      for (let i = 0; i < n; i++) ids[i] = part[i];
    } else
      for (let i = 1; i < n; i++) {
        const x = ids[i];
        let j = i - 1;
        while (j >= 0 && ids[j] > x) {
          ids[j + 1] = ids[j];
          j--;
        }
        ids[j + 1] = x;
      }
    let k = 1;
    for (let i = 1; i < n; i++) if (ids[i] !== ids[k - 1]) ids[k++] = ids[i];
    this.size = k;
  }
}

const dictionary = <V>(): Record<string, V> => Object.create(null) as Record<string, V>;

/**
 * Takes the node's running tasks out of their jobs' counts (`delta` -1: before a visit, or when
 * the node goes) or puts them in (+1: after a visit). Only an entry that lists its tasks' jobs
 * is counted (`jobServiceRank`).
 */
function countNodeTasks(state: KairosState, tracking: ChangeTracking, e: NodeEntry | undefined, delta: number, nowMs: number): void {
  const apps = e?.apps;
  if (e === undefined || apps === undefined) return;
  for (let k = 0; k < apps.length; k++) if (taskRunning(e, k)) addRunning(state.jobs, tracking, apps[k], delta, nowMs);
}

/** Drops a node's entry and its wake-up (node gone or no longer running). */
function forget(state: KairosState, kept: KairosKept, tracking: ChangeTracking, id: NodeId, nowMs: number): void {
  if (state.nodes[id] !== undefined) {
    countNodeTasks(state, tracking, state.nodes[id], -1, nowMs);
    tracking.changing(NODES, state.nodes, id);
    tracking.wakes.forget(id);
    delete state.nodes[id];
    kept.size--;
  }
}

/**
 * A run's working space, reused by its cycles (held by the state, not part of it: `run-space.ts`).
 * Lists are written by index up to a count and copied out at their size.
 */
class KairosRunSpace {
  readonly visits = new VisitList();
  readonly visit = new NodeVisit();
  readonly decisions = new DecisionBuffer();
  /** Attained service of the tasks of the node just visited. */
  readonly attained: number[] = [];
  /** The cycle's ranking: node ids and their scores. */
  readonly rankedIds: NodeId[] = [];
  readonly rankedScores: number[] = [];
}

/** A node entry of layout 2 and the bucket layouts: task records and a wake. */
interface OldNodeEntry {
  id: NodeId;
  tasks: TaskEntry[];
  wake: number | null;
}

/**
 * The state in the current layout, as a dictionary of nodes. A state restored from JSON gets its
 * dictionary back and its "not set" figures (NaN, written as null in JSON) as NaN again. Layouts
 * 3 to 5 kept the wake-up index in the state as well: only their entries are taken over. Older
 * layouts (task records per node, in a dictionary or in hash buckets) have their entries
 * converted and go through a full pass.
 */
function current(given: KairosState | Record<string, unknown>): KairosState {
  const st = given as Partial<KairosState> & { buckets?: unknown[] };
  const layout = st.layout as number;
  if ((layout === STATE_LAYOUT || layout === 7 || layout === 6 || layout === 5 || layout === 4 || layout === 3) && st.nodes) {
    const state = st as KairosState;
    // Layouts before 8 counted no job service.
    state.jobs ??= dictionary<JobEntries[string]>();
    const restored = Object.getPrototypeOf(state.nodes) !== null;
    if (Object.getPrototypeOf(state.jobs) !== null) state.jobs = Object.assign(dictionary<JobEntries[string]>(), state.jobs);
    if (restored) {
      state.nodes = Object.assign(dictionary<NodeEntry>(), state.nodes);
      for (const id in state.nodes) {
        const e = state.nodes[id];
        // A parsed array holds null where a figure is not set.
        e.t = e.t.map((x) => (typeof x === 'number' ? x : NaN));
      }
    }
    if (layout === 7) state.layout = STATE_LAYOUT;
    if (state.layout !== STATE_LAYOUT) {
      // Layouts 3 to 6 kept five figures per task: the count of suspensions (0) is added.
      for (const id in state.nodes) {
        const e = state.nodes[id];
        const t = [e.t[0]];
        for (let k = 0; k < e.ids.length; k++) t.push(...e.t.slice(1 + 5 * k, 6 + 5 * k), 0);
        e.t = t;
      }
      for (const id in state.nodes) delete (state.nodes[id] as { ord?: number }).ord;
      const old = state as unknown as Record<string, unknown>;
      for (const k of Object.keys(old)) if (k !== 'nodes' && k !== 'jobs' && k !== 'lastSweepMs' && k !== 'rng') delete old[k];
      state.layout = STATE_LAYOUT;
    }
    return state;
  }
  const nodes = dictionary<NodeEntry>();
  const old: OldNodeEntry[] = [];
  if ((st.layout as number) === 2 && st.nodes) old.push(...(Object.values(st.nodes) as unknown as OldNodeEntry[]));
  for (const b of st.buckets ?? []) {
    if (Array.isArray(b)) {
      old.push(...(b as OldNodeEntry[]));
      continue;
    }
    const keyed = (b as { nodes?: Record<NodeId, { tasks: Record<ContainerId, Omit<TaskEntry, 'id'>>; wake: number | null }> }).nodes ?? {};
    for (const [id, e] of Object.entries(keyed)) old.push({ id, tasks: Object.entries(e.tasks).map(([cid, t]) => ({ ...t, id: cid })), wake: e.wake });
  }
  old.sort((a, b) => byId(a.id, b.id));
  for (const o of old) nodes[o.id] = nodeEntry(o.id, o.tasks, o.wake);
  return { layout: STATE_LAYOUT, nodes, jobs: dictionary<JobEntries[string]>(), lastSweepMs: null, rng: typeof st.rng === 'number' ? st.rng : 0 };
}

/** Rebuilds what Kairos keeps in the runtime from a state: the count of entries and every node's wake-up. */
function rebuild(state: KairosState, wakes: WakeIndex): KairosKept {
  let size = 0;
  for (const id in state.nodes) {
    const wake = state.nodes[id].t[0];
    if (wake === wake) wakes.schedule(id, wake);
    size++;
  }
  return { size };
}

/**
 * True when the node is in the state this policy left it in: capped at N + Q, holding exactly the
 * tasks of its entry, each running or suspended as the entry says.
 */
function asPlanned(snapshot: ClusterSnapshot, id: NodeId, e: NodeEntry | undefined, params: KairosParams): boolean {
  const node = snapshot.nodes.get(id);
  if (!e || !node || node.state !== 'RUNNING' || !isCapped(node, params)) return false;
  let k = 0;
  const ids = node.containerIds;
  for (let i = 0; i < ids.length; i++) {
    const cid = ids[i];
    const c = containerAt(snapshot, node, i);
    if (!c || c.appMaster) continue;
    if (k >= e.ids.length || e.ids[k] !== cid || taskRunning(e, k) !== (c.state === 'RUNNING')) return false;
    k++;
  }
  return k === e.ids.length;
}

/** Advertised capacity that lets the RM place N + Q one-core tasks on the node (§3.3: at most N + Q tasks). */
export function cappedCapacity(node: NodeView, params: KairosParams): Resources {
  const n = coresOf(node, params);
  return slotCapacity(node.physicalCapacity, n, n + params.queueSlots);
}

/** The node advertises `cappedCapacity`. */
function isCapped(node: NodeView, params: KairosParams): boolean {
  const n = coresOf(node, params);
  return advertisesSlots(node.capacity, node.physicalCapacity, n, n + params.queueSlots);
}

const capReason = (a: ActionOf<'setNodeResource'>, n: number, queueSlots: number, physical: Resources): string =>
  `${a.nodeId} holds at most N+Q = ${n}+${queueSlots} tasks: advertise ${a.resource.vcores} vcores / ${a.resource.memoryMB} MB (physical ${physical.vcores} vcores / ${physical.memoryMB} MB)`;

/** §3.3: every node accepts at most N + Q tasks; the decision for a node not capped so. */
function nodeCap(node: NodeView, params: KairosParams): Decision {
  const action: ActionOf<'setNodeResource'> = { kind: 'setNodeResource', nodeId: node.id, resource: cappedCapacity(node, params) };
  return decisionWithReasonOf(action, POLICY_NAME, 'nodeCap', capReason, coresOf(node, params), params.queueSlots, node.physicalCapacity);
}

const rankReason = (a: ListedRanking, tieBreak: TieBreak, lowest: NodeId, lowestScore: number): string => {
  const what =
    tieBreak === 'random'
      ? 'a random score'
      : tieBreak === 'sum'
        ? 'total attained service (s)'
        : tieBreak === 'stddev'
          ? 'std dev of attained service (s)'
          : 'variance of attained service (s²)';
  return `${a.partial ? 'changed' : 'all'} ${a.size} node(s) rescored: fewest tasks first, ties by lowest ${what}; lowest ${lowest} = ${lowestScore}`;
};

/** mulberry32: small, seedable, state fits in one integer. */
function nextRandom(state: number): [number, number] {
  const s = (state + 0x6d2b79f5) | 0;
  let t = s;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return [((t ^ (t >>> 14)) >>> 0) / 4294967296, s];
}

/** Dispatch score of a node from its tasks' attained service (seconds); lower is preferred. */
export function dispatchScore(tieBreak: Exclude<TieBreak, 'random'>, attainedMs: readonly number[], n = attainedMs.length): number {
  if (n === 0) return 0;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += attainedMs[i] / 1000;
  if (tieBreak === 'sum') return sum;
  const mean = sum / n;
  let sq = 0;
  for (let i = 0; i < n; i++) sq += (attainedMs[i] / 1000 - mean) ** 2;
  const variance = sq / n;
  return tieBreak === 'stddev' ? Math.sqrt(variance) : variance;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Alg. 2: the RM places each task on the node with the fewest tasks, ties
 * by the lowest score (§3.3.3: the variance of its tasks' attained service). `partial`: only the
 * nodes visited this cycle are rescored.
 */
function dispatchRank(ids: NodeId[], scores: number[], partial: boolean, params: KairosParams, best: NodeId, bestScore: number): Decision {
  return decisionWithReasonOf(new ListedRanking(ids, scores, true, partial), POLICY_NAME, 'dispatchRank', rankReason, params.tieBreak, best, bestScore);
}

const newRunSpace = (): KairosRunSpace => new KairosRunSpace();

/**
 * One cycle of the policy: the nodes to visit, found as it starts; each node's visit (Alg. 1 on
 * its tasks, its cap, its score); the ranking and the state handed over at the end. `decide` runs
 * it in one go; `decideInSteps` lets the event loop run between visits (the live engine).
 */
class KairosCycle {
  readonly snapshot: ClusterSnapshot;
  readonly params: KairosParams;
  readonly now: number;
  readonly state: KairosState;
  readonly tracking: ChangeTracking;
  readonly kept: KairosKept;
  readonly full: boolean;
  readonly sweep: boolean;
  readonly space: KairosRunSpace;
  capped = 0;
  ranked = 0;
  best: NodeId | undefined;
  bestScore = Infinity;
  rng: number;
  /** With LAS by job, a task seen for the first time brings the service it had attained to its job. */
  readonly addFresh: ((app: string, ms: number) => void) | undefined;

  constructor(input: PolicyInput<KairosParams, KairosState>) {
    const { snapshot, params } = input;
    const now = snapshot.nowMs;
    const state = current(input.state);
    this.snapshot = snapshot;
    this.params = params;
    this.now = now;
    this.state = state;
    const nodes = state.nodes;
    const tracking = (this.tracking = trackingOf(input, POLICY_NAME));
    const wakes = tracking.wakes;
    let kept = tracking.kept(KEPT);
    if (!tracking.follows(state) || kept === undefined) {
      kept = rebuild(state, wakes);
      tracking.keep(KEPT, kept);
    }
    this.kept = kept;
    // A full pass (every node scheduled and scored) when the backend cannot say what changed and
    // on the first cycle; otherwise only the nodes whose containers changed and those whose
    // quantum or starvation deadline has come. Every `sweepIntervalMs` a sweep also re-checks
    // every node's advertised cap and forgets vanished nodes.
    const full = (this.full = snapshot.changedNodeIds === undefined || state.lastSweepMs === null);
    const sweep = (this.sweep = full || now - (state.lastSweepMs ?? now) >= params.sweepIntervalMs);
    // Nodes to visit: pushed as found, then put in id order without repeats.
    const space = (this.space = runSpaceOf(state, newRunSpace));
    const visits = space.visits;
    visits.clear();
    if (full) {
      for (const id of snapshot.nodes.keys()) visits.push(id);
      for (const id in nodes) if (!snapshot.nodes.has(id)) forget(state, kept, tracking, id, now);
    } else {
      // A node whose only change is what this policy asked for at its last visit (its tasks
      // suspended and resumed as planned, none added or gone) needs no visit: its schedule and
      // its score stand until its wake-up or a change made by someone else. (The simulator does
      // not report such nodes at all; a backend that does gets them filtered here.)
      const changed = snapshot.changedNodeIds;
      if (changed !== undefined) for (const id of changed) if (!asPlanned(snapshot, id, nodes[id], params)) visits.push(id);
      // Wake-ups that have come.
      wakes.takeDue(now, visits);
    }

    const decisions = space.decisions;
    decisions.discard();
    if (sweep && !full) {
      // Every node's advertised cap is checked (a visited node is checked at its visit), and the
      // entry of a node no longer RUNNING is forgotten by a visit. Entries are listed, to find
      // vanished nodes, only when they outnumber the running nodes (a backstop).
      let visiting: Set<NodeId> | undefined;
      let running = 0;
      for (const node of snapshot.nodes.values()) {
        const id = node.id;
        if (node.state !== 'RUNNING') {
          if (nodes[id] !== undefined) visits.push(id);
          continue;
        }
        running++;
        if (isCapped(node, params)) continue;
        visiting ??= new Set(visits.ids.slice(0, visits.size));
        if (visiting.has(id)) continue;
        this.capped++;
        decisions.add(nodeCap(node, params));
      }
      if (kept.size > running) for (const id in nodes) if (snapshot.nodes.get(id)?.state !== 'RUNNING') visits.push(id);
    }
    // Nodes in id order, so that decisions (and the random tie-break's draws) do not depend on
    // the order in which changes were reported.
    visits.sortUnique();

    this.rng = state.rng;
    this.addFresh = params.jobServiceRank ? (app: string, ms: number) => addService(state.jobs, tracking, app, ms, now) : undefined;
  }

  /** Visits the `i`-th node to visit. */
  visit(i: number): void {
    const { snapshot, params, state, tracking, kept, space, now } = this;
    const nodes = state.nodes;
    const wakes = tracking.wakes;
    const decisions = space.decisions;
    const attained = space.attained;
    const id = space.visits.ids[i];
    const node = snapshot.nodes.get(id);
    if (!node || node.state !== 'RUNNING') {
      forget(state, kept, tracking, id, now);
      return;
    }
    const prev = tracking.changing(NODES, nodes, id);
    const prevWake = prev !== undefined ? prev.t[0] : NaN;
    countNodeTasks(state, tracking, prev, -1, now);
    const entry = scheduleNode(space.visit, snapshot, node, prev, params, decisions, attained, params.jobServiceRank ? state.jobs : undefined);
    countNodeTasks(state, tracking, entry, +1, now);
    if (this.addFresh !== undefined) forFreshTasks(space.visit, this.addFresh);
    const wake = entry.t[0];
    const hasWake = wake === wake;
    // A known node's entry was updated in place; a new one is stored when the node holds
    // something, and stays while the node runs, also when it empties (nodes refill all the time).
    if (prev === undefined && (hasWake || entry.ids.length > 0)) {
      kept.size++;
      nodes[id] = entry;
    }
    // A wake that moved goes to the index (one that did not is there already).
    if (hasWake) {
      if (wake !== prevWake) wakes.schedule(id, wake);
    } else if (prevWake === prevWake) wakes.forget(id);

    if (!isCapped(node, params)) {
      this.capped++;
      decisions.add(nodeCap(node, params));
    }

    let score: number;
    if (params.tieBreak === 'random') {
      const [x, s] = nextRandom(this.rng);
      this.rng = s;
      score = round3(x * 1000);
    } else {
      score = round3(dispatchScore(params.tieBreak, attained, space.visit.count));
    }
    space.rankedIds[this.ranked] = id;
    space.rankedScores[this.ranked] = score;
    this.ranked++;
    if (this.best === undefined || score < this.bestScore) {
      this.best = id;
      this.bestScore = score;
    }
  }

  /** The ranking of the nodes visited, the jobs that ended forgotten, the state handed over. */
  finish(): PolicyOutput<KairosState> {
    const { snapshot, params, state, tracking, space, now, full, sweep, ranked } = this;
    const decisions = space.decisions;
    if (ranked > 0)
      decisions.add(dispatchRank(space.rankedIds.slice(0, ranked), space.rankedScores.slice(0, ranked), !full, params, this.best as NodeId, this.bestScore));

    // Jobs that left with no task running are forgotten at a sweep (a job's last task ends at a
    // visit, but the job may leave the snapshot later).
    if (sweep) forgetEndedJobs(state.jobs, tracking, (app) => snapshot.apps.has(app));
    const wakeAtMs = tracking.wakes.earliest();
    if (sweep) state.lastSweepMs = now;
    state.rng = this.rng;
    tracking.handOver(state);

    return { decisions: decisions.take(), state, wakeAtMs, notes: this.capped > 0 ? [`capped ${this.capped} node(s) at N+Q`] : undefined };
  }
}

/** The cycle as steps: the runtime may let the event loop run after any visit (it does so by elapsed time). */
function* kairosCycle(input: PolicyInput<KairosParams, KairosState>): SolveSteps<PolicyOutput<KairosState>> {
  const cycle = new KairosCycle(input);
  const n = cycle.space.visits.size;
  for (let i = 0; i < n; i++) {
    cycle.visit(i);
    yield* loopTurn();
  }
  return cycle.finish();
}

export const kairosPolicy = definePolicy<KairosParams, KairosState>({
  needs: ['containerSuspend'],
  name: POLICY_NAME,
  description:
    'Kairos: node-level Least Attained Service with quantum W through suspend/resume, at most N+Q tasks per node, ' +
    'central dispatch to the node with the fewest tasks then the lowest variance of attained service.',
  paramsSchema: kairosParamsSchema,
  updatesStateInPlace: true,
  stateEntries: [NODES, JOBS],
  initialState: (params) => ({
    layout: STATE_LAYOUT,
    nodes: dictionary<NodeEntry>(),
    jobs: dictionary<JobEntries[string]>(),
    lastSweepMs: null,
    rng: params.seed >>> 0,
  }),
  decide: (input) => runTurnsInline(kairosCycle(input)),
  decideInSteps: kairosCycle,
});

export default kairosPolicy;
