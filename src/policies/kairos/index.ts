/**
 * Kairos (Delgado et al., SoCC'18): preemptive scheduling without runtime estimates.
 *
 * - Node level (`node-las.ts`): LAS with quantum W on each node's N cores, through
 *   suspend/resume, with a starvation guard.
 * - Central level (§3.3): every node accepts at most N + Q tasks (`nodeCap`: the node's
 *   advertised capacity is raised to N + Q vcores, memory scaled alike, so the RM places up to
 *   N + Q containers), and a task goes to the node with the fewest tasks, ties broken by the
 *   lowest variance of the attained service of the node's tasks (`dispatchRank`: `rankNodes`
 *   with `leastLoadedFirst`). `random` and `sum` tie-breaks reproduce the paper's Fig. 6.
 *
 * The central rules are `nodeCap` and `dispatchRank`, the node rules are in `node-las.ts`; a
 * decision's `rule` is the name of the function that made it. A cycle costs what changed, not the cluster size: it visits the
 * nodes whose containers changed (other than as this policy asked) and the nodes whose quantum or
 * starvation deadline has come. The state is updated in place (`updatesStateInPlace`).
 */
import { decisionWithReasonOf, ListedRanking, type ActionOf, type Decision } from '../../core/actions.js';
import { containerAt, type ClusterSnapshot, type ContainerId, type NodeId, type NodeView } from '../../core/model.js';
import { definePolicy } from '../../core/policy.js';
import type { Resources } from '../../core/resources.js';
import { runSpaceOf } from '../shared/run-space.js';
import { advertisesSlots, slotCapacity } from '../shared/suspend-resume.js';
import { coresOf, DecisionBuffer, nodeEntry, NodeVisit, POLICY_NAME, scheduleNode, taskEntries, taskRunning, wakeOf, type NodeEntry, type TaskEntry } from './node-las.js';
import { kairosParamsSchema, type KairosParams, type TieBreak } from './params.js';

export { kairosParamsSchema, type KairosParams } from './params.js';
export type { NodeEntry, TaskEntry } from './node-las.js';

/** Version of the state layout below; a state of an older layout is converted on first use. */
export const STATE_LAYOUT = 5;

export interface KairosState {
  layout: typeof STATE_LAYOUT;
  /** Node entries by node id (a dictionary, updated in place). */
  nodes: Record<NodeId, NodeEntry>;
  /** Number of entries in `nodes` (so that a sweep finds vanished nodes without listing them). */
  size: number;
  /**
   * Wake-up index, in two parts: a queue of items pushed in time order (`queued*`) and a binary
   * min-heap on time for the others (`wake*`); node `wakeIds[i]` is due at `wakeTimes[i]`. Every
   * node entry with a wake (`t[0]`) has an item at that time in one of them; an item whose node's
   * wake has moved since is dropped when it comes up. Most wakes are a quantum's end, set in time
   * order, so most items take the queue's one-step path (docs/benchmarks.md).
   */
  wakeTimes: number[];
  wakeIds: NodeId[];
  /**
   * The `ord` of node `wakeIds[i]`: ties of time come out of the heap in this order, usually node
   * id order (nodes are numbered as first seen), so a batch of wake-ups seldom needs a sort.
   */
  wakeOrds: number[];
  /**
   * The queue part: items `queueHead .. queueEnd`, times never decreasing; an item goes here when
   * no earlier than the last queued one, else into the heap. Items past `queueEnd` are spare room
   * (the lists are written by index, never cut).
   */
  queuedTimes: number[];
  queuedIds: NodeId[];
  queuedOrds: number[];
  queueHead: number;
  queueEnd: number;
  /**
   * The wake of node number `ord` (NaN: none, or its entry is gone): whether an item that comes up
   * still holds is read here rather than from the entry. Derived: rebuilt when a state is restored.
   */
  wakeOfOrd: number[];
  /** The `ord` of the next node seen for the first time. */
  nextOrd: number;
  /** Last sweep over every node (cap check, vanished nodes); null before the first cycle. */
  lastSweepMs: number | null;
  /** PRNG state of the `random` tie-break. */
  rng: number;
}

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
  readonly ids: NodeId[] = [];
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

/** Drops a node's entry (node gone or no longer running). */
function forget(state: KairosState, id: NodeId): void {
  const e = state.nodes[id];
  if (e !== undefined) {
    if (e.ord >= 0) state.wakeOfOrd[e.ord] = NaN;
    delete state.nodes[id];
    state.size--;
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
 * dictionary back, its "not set" figures (NaN, written as null in JSON) as NaN again, and its
 * `wakeOfOrd` made anew from the entries; so does a state of layout 3 (the same without
 * `wakeOfOrd`). A state of an older layout (task records per node, in a dictionary or in hash
 * buckets) has its entries taken over and goes through a full pass.
 */
function current(given: KairosState | Record<string, unknown>): KairosState {
  const st = given as Partial<KairosState> & { buckets?: unknown[] };
  const layout = st.layout as number;
  if ((layout === STATE_LAYOUT || layout === 4 || layout === 3) && st.nodes && Array.isArray(st.wakeTimes) && Array.isArray(st.wakeIds) && Array.isArray(st.wakeOrds)) {
    const state = st as KairosState;
    // Layouts 3 and 4 kept every item in the heap: their queue is empty.
    if (layout !== STATE_LAYOUT) emptyQueue(state);
    const restored = Object.getPrototypeOf(state.nodes) !== null;
    if (restored) {
      state.nodes = Object.assign(dictionary<NodeEntry>(), state.nodes);
      for (const id in state.nodes) {
        const e = state.nodes[id];
        // A parsed array holds null where a figure is not set.
        e.t = e.t.map((x) => (typeof x === 'number' ? x : NaN));
      }
    }
    if (restored || layout !== STATE_LAYOUT) {
      // Appended one by one: an array of unboxed numbers.
      const wakes: number[] = [];
      for (let o = 0; o < state.nextOrd; o++) wakes.push(NaN);
      state.size = 0;
      for (const id in state.nodes) {
        const e = state.nodes[id];
        if (e.ord >= 0 && e.ord < state.nextOrd) wakes[e.ord] = e.t[0];
        state.size++;
      }
      state.wakeOfOrd = wakes;
    }
    state.layout = STATE_LAYOUT;
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
  for (let i = 0; i < old.length; i++) nodes[old[i].id] = nodeEntry(old[i].id, i, old[i].tasks, old[i].wake);
  return { layout: STATE_LAYOUT, nodes, size: old.length, wakeTimes: [], wakeIds: [], wakeOrds: [], queuedTimes: [], queuedIds: [], queuedOrds: [], queueHead: 0, queueEnd: 0, wakeOfOrd: old.map((o) => o.wake ?? NaN), nextOrd: old.length, lastSweepMs: null, rng: typeof st.rng === 'number' ? st.rng : 0 };
}

/** Wake-up index order: time, then `ord`. */
const wakesBefore = (t: number, o: number, t2: number, o2: number): boolean => t < t2 || (t === t2 && o < o2);

function setWake(state: KairosState, i: number, t: number, id: NodeId, ord: number): void {
  state.wakeTimes[i] = t;
  state.wakeIds[i] = id;
  state.wakeOrds[i] = ord;
}

function heapPush(state: KairosState, t: number, id: NodeId, ord: number): void {
  const ts = state.wakeTimes;
  const os = state.wakeOrds;
  let i = ts.length;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!wakesBefore(t, ord, ts[parent], os[parent])) break;
    setWake(state, i, ts[parent], state.wakeIds[parent], os[parent]);
    i = parent;
  }
  setWake(state, i, t, id, ord);
}

function heapPop(state: KairosState): void {
  const ts = state.wakeTimes;
  const os = state.wakeOrds;
  const t = ts.pop() as number;
  const id = state.wakeIds.pop() as NodeId;
  const o = os.pop() as number;
  const n = ts.length;
  if (n === 0) return;
  let i = 0;
  for (;;) {
    let c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && wakesBefore(ts[c + 1], os[c + 1], ts[c], os[c])) c++;
    if (!wakesBefore(ts[c], os[c], t, o)) break;
    setWake(state, i, ts[c], state.wakeIds[c], os[c]);
    i = c;
  }
  setWake(state, i, t, id, o);
}

function emptyQueue(state: KairosState): void {
  state.queuedTimes = [];
  state.queuedIds = [];
  state.queuedOrds = [];
  state.queueHead = 0;
  state.queueEnd = 0;
}

/** Adds a node's wake to the index: to the queue when no earlier than its last item. */
function pushWake(state: KairosState, t: number, id: NodeId, ord: number): void {
  const end = state.queueEnd;
  if (end === state.queueHead || t >= state.queuedTimes[end - 1]) {
    state.queuedTimes[end] = t;
    state.queuedIds[end] = id;
    state.queuedOrds[end] = ord;
    state.queueEnd = end + 1;
  } else heapPush(state, t, id, ord);
}

/**
 * Takes wake-up items from both parts of the index: every item of time `upTo` or earlier, listing
 * in `visits` the node of each whose wake has come too; and, past them, the items that no longer
 * hold, up to the first that holds. The cycle's wake-ups (`upTo` = now) and the drop of dead items
 * (`upTo` = -Infinity) share these loops, so that every step of them runs at almost every cycle.
 */
function takeWakes(state: KairosState, upTo: number, visits: VisitList): void {
  takeQueued(state, upTo, visits);
  const ts = state.wakeTimes;
  while (ts.length > 0) {
    const t = ts[0];
    const wake = state.wakeOfOrd[state.wakeOrds[0]];
    if (t > upTo && wake === t) break;
    if (t <= upTo && wake <= upTo) visits.push(state.wakeIds[0]);
    heapPop(state);
  }
}

/** The queue's part of `takeWakes`. */
function takeQueued(state: KairosState, upTo: number, visits: VisitList): void {
  const qt = state.queuedTimes;
  const qo = state.queuedOrds;
  const wakes = state.wakeOfOrd;
  const end = state.queueEnd;
  let head = state.queueHead;
  for (; head < end; head++) {
    const t = qt[head];
    const wake = wakes[qo[head]];
    if (t <= upTo) {
      if (wake <= upTo) visits.push(state.queuedIds[head]);
    } else if (wake === t) break;
  }
  state.queueHead = head;
  tidyQueue(state);
}

/**
 * Lets go of the queue's taken items: both ends go back to the start when it is empty, and the
 * items left move to the front once the taken ones are most of the lists.
 */
function tidyQueue(state: KairosState): void {
  const head = state.queueHead;
  const end = state.queueEnd;
  if (head === end) {
    state.queueHead = 0;
    state.queueEnd = 0;
  } else if (head >= 1024 && head * 2 >= end) {
    const qt = state.queuedTimes;
    const qi = state.queuedIds;
    const qo = state.queuedOrds;
    for (let i = head; i < end; i++) {
      qt[i - head] = qt[i];
      qi[i - head] = qi[i];
      qo[i - head] = qo[i];
    }
    state.queueHead = 0;
    state.queueEnd = end - head;
  }
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
  const what = tieBreak === 'random' ? 'a random score' : tieBreak === 'sum' ? 'total attained service (s)' : tieBreak === 'stddev' ? 'std dev of attained service (s)' : 'variance of attained service (s²)';
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
export function dispatchScore(tieBreak: Exclude<TieBreak, 'random'>, attainedMs: readonly number[]): number {
  const n = attainedMs.length;
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

export const kairosPolicy = definePolicy<KairosParams, KairosState>({
  name: POLICY_NAME,
  description:
    'Kairos: node-level Least Attained Service with quantum W through suspend/resume, at most N+Q tasks per node, ' +
    'central dispatch to the node with the fewest tasks then the lowest variance of attained service.',
  paramsSchema: kairosParamsSchema,
  updatesStateInPlace: true,
  initialState: (params) => ({ layout: STATE_LAYOUT, nodes: dictionary<NodeEntry>(), size: 0, wakeTimes: [], wakeIds: [], wakeOrds: [], queuedTimes: [], queuedIds: [], queuedOrds: [], queueHead: 0, queueEnd: 0, wakeOfOrd: [], nextOrd: 0, lastSweepMs: null, rng: params.seed >>> 0 }),
  decide({ snapshot, params, state: given }) {
    const now = snapshot.nowMs;
    const state = current(given);
    const nodes = state.nodes;
    // A full pass (every node scheduled and scored) when the backend cannot say what changed and
    // on the first cycle; otherwise only the nodes whose containers changed and those whose
    // quantum or starvation deadline has come. Every `sweepIntervalMs` a sweep also re-checks
    // every node's advertised cap and forgets vanished nodes.
    const full = snapshot.changedNodeIds === undefined || state.lastSweepMs === null;
    const sweep = full || now - (state.lastSweepMs ?? now) >= params.sweepIntervalMs;
    // Nodes to visit: pushed as found, then put in id order without repeats.
    const space = runSpaceOf(state, newRunSpace);
    const visits = space.visits;
    visits.clear();
    if (full) {
      for (const id of snapshot.nodes.keys()) visits.push(id);
      for (const id in nodes) if (!snapshot.nodes.has(id)) forget(state, id);
      state.wakeTimes.length = 0;
      state.wakeIds.length = 0;
      state.wakeOrds.length = 0;
      emptyQueue(state);
    } else {
      // A node whose only change is what this policy asked for at its last visit (its tasks
      // suspended and resumed as planned, none added or gone) needs no visit: its schedule and
      // its score stand until its wake-up or a change made by someone else. (The simulator does
      // not report such nodes at all; a backend that does gets them filtered here.)
      const changed = snapshot.changedNodeIds;
      if (changed !== undefined) for (const id of changed) if (!asPlanned(snapshot, id, nodes[id], params)) visits.push(id);
      // Wake-ups that have come: the nodes whose wake is still that time are visited.
      takeWakes(state, now, visits);
    }

    const decisions = space.decisions;
    decisions.discard();
    let capped = 0;
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
        capped++;
        decisions.add(nodeCap(node, params));
      }
      if (state.size > running) for (const id in nodes) if (snapshot.nodes.get(id)?.state !== 'RUNNING') visits.push(id);
    }
    // Nodes in id order, so that decisions (and the random tie-break's draws) do not depend on
    // the order in which changes were reported.
    visits.sortUnique();

    // The ranking as two lists (node, score), in visit order.
    const rankedIds = space.rankedIds;
    const rankedScores = space.rankedScores;
    let ranked = 0;
    let best: NodeId | undefined;
    let bestScore = Infinity;
    let rng = state.rng;
    const attained = space.attained;

    for (let i = 0; i < visits.size; i++) {
      const id = visits.ids[i];
      const node = snapshot.nodes.get(id);
      if (!node || node.state !== 'RUNNING') {
        forget(state, id);
        continue;
      }
      const prev = nodes[id];
      const prevWake = prev !== undefined ? prev.t[0] : NaN;
      const entry = scheduleNode(space.visit, snapshot, node, prev, params, decisions, attained);
      const wake = entry.t[0];
      const hasWake = wake === wake;
      // A known node's entry was updated in place; a new one is stored when the node holds
      // something, and stays while the node runs, also when it empties (nodes refill all the time).
      if (prev === undefined && (hasWake || entry.ids.length > 0)) {
        state.size++;
        nodes[id] = entry;
        entry.ord = state.nextOrd++;
      }
      if (entry.ord >= 0) state.wakeOfOrd[entry.ord] = wake;
      // A new wake goes into the index (a wake that did not move is already there).
      if (hasWake && (full || wake !== prevWake)) pushWake(state, wake, id, entry.ord);

      if (!isCapped(node, params)) {
        capped++;
        decisions.add(nodeCap(node, params));
      }

      let score: number;
      if (params.tieBreak === 'random') {
        const [x, s] = nextRandom(rng);
        rng = s;
        score = round3(x * 1000);
      } else {
        score = round3(dispatchScore(params.tieBreak, attained));
      }
      rankedIds[ranked] = id;
      rankedScores[ranked] = score;
      ranked++;
      if (best === undefined || score < bestScore) {
        best = id;
        bestScore = score;
      }
    }

    if (ranked > 0) decisions.add(dispatchRank(rankedIds.slice(0, ranked), rankedScores.slice(0, ranked), !full, params, best as NodeId, bestScore));

    // Drop wake-ups that no longer hold, so that the wake-up asked for is the earliest wake of
    // any node.
    takeWakes(state, -Infinity, visits);
    const earliest = Math.min(state.wakeTimes.length > 0 ? state.wakeTimes[0] : Infinity, state.queueHead < state.queueEnd ? state.queuedTimes[state.queueHead] : Infinity);
    const wakeAtMs = earliest < Infinity ? earliest : undefined;
    if (sweep) state.lastSweepMs = now;
    state.rng = rng;

    return { decisions: decisions.take(), state, wakeAtMs, notes: capped > 0 ? [`capped ${capped} node(s) at N+Q`] : undefined };
  },
});

export default kairosPolicy;
