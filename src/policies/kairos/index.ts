/**
 * Kairos (Delgado et al., SoCC'18): preemptive scheduling without runtime estimates.
 *
 * - Node level (`node-las.ts`): LAS with quantum W on each node's N cores, through
 *   suspend/resume, with a starvation guard.
 * - Central level (§3.3): every node accepts at most N + Q tasks (`node.cap`: the node's
 *   advertised capacity is raised to N + Q vcores, memory scaled alike, so the RM places up to
 *   N + Q containers), and a task goes to the node with the fewest tasks, ties broken by the
 *   lowest variance of the attained service of the node's tasks (`dispatch.rank`: `rankNodes`
 *   with `leastLoadedFirst`). `random` and `sum` tie-breaks reproduce the paper's Fig. 6.
 */
import type { Decision } from '../../core/actions.js';
import type { ClusterSnapshot, ContainerId, NodeId, NodeView } from '../../core/model.js';
import { definePolicy } from '../../core/policy.js';
import { equals, type Resources } from '../../core/resources.js';
import { coresOf, POLICY_NAME, scheduleNode, type NodeEntry, type TaskEntry } from './node-las.js';
import { kairosParamsSchema, type KairosParams, type TieBreak } from './params.js';

export { kairosParamsSchema, type KairosParams } from './params.js';
export type { NodeEntry, TaskEntry } from './node-las.js';

/**
 * Node entries live in a fixed number of buckets (by a hash of the node id) so that a cycle
 * copies only the buckets it touches: O(buckets + visited nodes), not O(nodes), per event.
 */
export const BUCKETS = 1024;

/** The entries of the nodes whose id hashes to the bucket (a handful: looked up by a scan). */
export type Bucket = NodeEntry[];

/** Nodes due at one instant (a node's `wake`); ids whose wake has moved since are skipped. */
export interface DueSlot {
  t: number;
  ids: NodeId[];
}

export interface KairosState {
  buckets: Bucket[];
  /**
   * Wake-up index: slots in ascending time, holding every node whose entry has a `wake` (at the
   * slot of that wake; an id may also linger in an older slot after its wake moved). A cycle
   * takes the slots that have come due and visits only their nodes whose wake has come.
   */
  due: DueSlot[];
  /** Last sweep over every node (cap check, vanished nodes); null before the first cycle. */
  lastSweepMs: number | null;
  /** PRNG state of the `random` tie-break. */
  rng: number;
}

/** FNV-1a hash of the node id, mod BUCKETS. */
export function bucketOf(id: NodeId): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % BUCKETS;
}

/** A node entry keyed for inspection: its tasks by container id. */
export interface NodeEntryView {
  tasks: Record<ContainerId, TaskEntry>;
  wake: number | null;
}

/** Every node entry of a state, by node id (for inspection and tests). */
export function stateNodes(state: KairosState): Record<NodeId, NodeEntryView> {
  const out: Record<NodeId, NodeEntryView> = {};
  for (const b of state.buckets) {
    for (const e of b) out[e.id] = { tasks: Object.fromEntries(e.tasks.map((t) => [t.id, t])), wake: e.wake };
  }
  return out;
}

const emptyBuckets = (): Bucket[] => Array.from({ length: BUCKETS }, () => []);

function findEntry(b: Bucket | undefined, id: NodeId): NodeEntry | undefined {
  if (b) for (const e of b) if (e.id === id) return e;
  return undefined;
}

/** Node entries of a state stored before the current layout (buckets of records), re-bucketed. */
function rebucket(state: { buckets: unknown[] }): Bucket[] {
  const out = emptyBuckets();
  for (const b of state.buckets) {
    if (Array.isArray(b)) {
      for (const e of b as NodeEntry[]) out[bucketOf(e.id)].push(e);
      continue;
    }
    const nodes = (b as { nodes?: Record<NodeId, { tasks: Record<ContainerId, Omit<TaskEntry, 'id'>>; wake: number | null }> }).nodes ?? {};
    for (const [id, e] of Object.entries(nodes)) {
      out[bucketOf(id)].push({ id, tasks: Object.entries(e.tasks).map(([cid, t]) => ({ ...t, id: cid })), wake: e.wake });
    }
  }
  return out;
}

/** Index of the first slot at time >= t (binary search). */
function slotIndex(due: readonly DueSlot[], t: number): number {
  let lo = 0;
  let hi = due.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (due[mid].t < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Advertised capacity that lets the RM place N + Q one-core tasks on the node: N + Q vcores, and
 * memory scaled by (N + Q) / N so that memory does not cap the node first.
 */
export function cappedCapacity(node: NodeView, params: KairosParams): Resources {
  const n = coresOf(node, params);
  const vcores = n + params.queueSlots;
  return { memoryMB: Math.round((node.physicalCapacity.memoryMB * vcores) / n), vcores };
}

function capDecision(node: NodeView, want: Resources, params: KairosParams): Decision {
  return {
    action: { kind: 'setNodeResource', nodeId: node.id, resource: want },
    policy: POLICY_NAME,
    rule: 'node.cap',
    reason: `${node.id} holds at most N+Q = ${coresOf(node, params)}+${params.queueSlots} tasks: advertise ${want.vcores} vcores / ${want.memoryMB} MB (physical ${node.physicalCapacity.vcores} vcores / ${node.physicalCapacity.memoryMB} MB)`,
  };
}

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
  if (attainedMs.length === 0) return 0;
  const xs = attainedMs.map((ms) => ms / 1000);
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  if (tieBreak === 'sum') return xs.reduce((s, x) => s + x, 0);
  const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length;
  return tieBreak === 'stddev' ? Math.sqrt(variance) : variance;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

export const kairosPolicy = definePolicy<KairosParams, KairosState>({
  name: POLICY_NAME,
  description:
    'Kairos: node-level Least Attained Service with quantum W through suspend/resume, at most N+Q tasks per node, ' +
    'central dispatch to the node with the fewest tasks then the lowest variance of attained service.',
  paramsSchema: kairosParamsSchema,
  initialState: (params) => ({ buckets: emptyBuckets(), due: [], lastSweepMs: null, rng: params.seed >>> 0 }),
  decide({ snapshot, params, state: given }) {
    const now = snapshot.nowMs;
    // A state from before the wake-up index (or with another bucket count) is re-bucketed and
    // taken through a full pass.
    const stale = given.buckets.length !== BUCKETS || !Array.isArray(given.buckets[0]) || !Array.isArray(given.due);
    const state: KairosState = stale ? { ...given, buckets: rebucket(given), due: [], lastSweepMs: null } : given;
    // A full pass (every node scheduled and scored) when the backend cannot say what changed and
    // on the first cycle; otherwise only the nodes whose containers changed and those whose
    // quantum or starvation deadline has come. Every `sweepIntervalMs` a sweep also re-checks
    // every node's advertised cap and forgets vanished nodes.
    const full = snapshot.changedNodeIds === undefined || state.lastSweepMs === null;
    const sweep = full || now - (state.lastSweepMs ?? now) >= params.sweepIntervalMs;
    const toVisit = new Set<NodeId>();
    const prevEntry = (id: NodeId): NodeEntry | undefined => findEntry(state.buckets[bucketOf(id)], id);
    // Slots that have come due leave the index; the live ids among them are visited.
    let due: DueSlot[];
    if (full) {
      for (const id of snapshot.nodes.keys()) toVisit.add(id);
      due = [];
    } else {
      for (const id of snapshot.changedNodeIds ?? []) toVisit.add(id);
      const prevDue = state.due ?? [];
      let k = 0;
      while (k < prevDue.length && prevDue[k].t <= now) {
        for (const id of prevDue[k].ids) {
          const e = prevEntry(id);
          if (e && e.wake !== null && e.wake <= now) toVisit.add(id);
        }
        k++;
      }
      due = k > 0 ? prevDue.slice(k) : prevDue.slice();
      if (sweep) {
        for (const b of state.buckets) {
          for (const e of b) if (snapshot.nodes.get(e.id)?.state !== 'RUNNING') toVisit.add(e.id);
        }
      }
    }
    const copiedSlots = new Set<DueSlot>();
    const addDue = (id: NodeId, t: number): void => {
      const i = slotIndex(due, t);
      if (i < due.length && due[i].t === t) {
        let slot = due[i];
        if (!copiedSlots.has(slot)) {
          slot = { t, ids: slot.ids.slice() };
          due[i] = slot;
          copiedSlots.add(slot);
        }
        slot.ids.push(id);
      } else {
        const slot = { t, ids: [id] };
        copiedSlots.add(slot);
        due.splice(i, 0, slot);
      }
    };

    // Copy-on-write buckets.
    const buckets: Bucket[] = full ? emptyBuckets() : state.buckets.slice();
    const copied = new Set<number>();
    /** Sets (or, with undefined, removes) a node's entry in the copied bucket. */
    const setEntry = (id: NodeId, e: NodeEntry | undefined): void => {
      const i = bucketOf(id);
      if (!full && !copied.has(i)) {
        buckets[i] = buckets[i].slice();
        copied.add(i);
      }
      const b = buckets[i];
      const k = b.findIndex((x) => x.id === id);
      if (e === undefined) {
        if (k >= 0) b.splice(k, 1);
      } else if (k >= 0) b[k] = e;
      else b.push(e);
    };
    const entryOf = (id: NodeId): NodeEntry | undefined => findEntry(buckets[bucketOf(id)], id);

    const decisions: Decision[] = [];
    const scores: Record<NodeId, number> = {};
    let rng = state.rng;
    const capped: string[] = [];

    for (const id of [...toVisit].sort()) {
      const node = snapshot.nodes.get(id);
      if (!node || node.state !== 'RUNNING') {
        if (prevEntry(id)) setEntry(id, undefined);
        continue;
      }
      const prev = prevEntry(id);
      const r = scheduleNode(snapshot, node, prev, params);
      if (r.entry.wake !== null || r.entry.tasks.length > 0) setEntry(id, r.entry);
      else if (prev) setEntry(id, undefined);
      // A new wake goes into the index (a wake that did not move is already there).
      if (r.entry.wake !== null && (full || r.entry.wake !== prev?.wake)) addDue(id, r.entry.wake);
      decisions.push(...r.decisions);

      const want = cappedCapacity(node, params);
      if (!equals(node.capacity, want)) {
        capped.push(id);
        decisions.push(capDecision(node, want, params));
      }

      if (params.tieBreak === 'random') {
        const [x, s] = nextRandom(rng);
        rng = s;
        scores[id] = round3(x * 1000);
      } else {
        scores[id] = round3(dispatchScore(params.tieBreak, r.attainedMs));
      }
    }

    if (sweep && !full) {
      for (const node of snapshot.nodes.values()) {
        if (toVisit.has(node.id) || node.state !== 'RUNNING') continue;
        const want = cappedCapacity(node, params);
        if (!equals(node.capacity, want)) {
          capped.push(node.id);
          decisions.push(capDecision(node, want, params));
        }
      }
    }

    const scored = Object.keys(scores);
    if (scored.length > 0) {
      let best: NodeId | undefined;
      for (const id of scored) if (best === undefined || scores[id] < scores[best]) best = id;
      const what = params.tieBreak === 'random' ? 'a random score' : params.tieBreak === 'sum' ? 'total attained service (s)' : params.tieBreak === 'stddev' ? 'std dev of attained service (s)' : 'variance of attained service (s²)';
      decisions.push({
        action: { kind: 'rankNodes', scores, leastLoadedFirst: true, partial: !full },
        policy: POLICY_NAME,
        rule: 'dispatch.rank',
        reason:
          `${full ? 'all' : 'changed'} ${scored.length} node(s) rescored: fewest tasks first, ties by lowest ${what}` +
          (best !== undefined ? `; lowest ${best} = ${scores[best]}` : ''),
      });
    }

    // Drop leading slots that no longer hold a live wake, so that the wake-up asked for is the
    // earliest wake of any node.
    while (due.length > 0 && !due[0].ids.some((id) => entryOf(id)?.wake === due[0].t)) due.shift();
    const wakeAtMs = due.length > 0 ? due[0].t : undefined;

    return {
      decisions,
      state: { buckets, due, lastSweepMs: sweep ? now : state.lastSweepMs, rng },
      wakeAtMs,
      notes: capped.length ? [`capped ${capped.length} node(s) at N+Q`] : undefined,
    };
  },
});

export default kairosPolicy;
