/**
 * Pigeon (Wang et al., SoCC 2019) on one ResourceManager: the group master's rules with the RM
 * as the only master (the paper's groups collapse to one; docs/decisions.md says what that costs).
 *
 * - Two FIFO task queues become two sibling leaves: short jobs (HPQ) and long jobs (LPQ).
 * - "Short tasks first" is CapacityScheduler's own order: the short leaf holds almost all of the
 *   two leaves' guarantee, so it is the one further below its guarantee whenever it asks.
 * - Weighted fair queuing: when long work has waited through W − 1 short dispatches in a row, the
 *   two guarantees are swapped until a long task starts (§3: ≥ 1 of every W dispatches is long).
 * - Reserved workers: a ranking scores them at or above RESERVED_SCORE_MIN. The RM plugin's
 *   `schedbrain-general` sorting policy, which the long leaf names, never offers them; every other
 *   queue sees them last, so short tasks take an idle general worker first (§3).
 *
 * Each rule is a function of the same name; a decision's `rule` carries it.
 */
import { decisionWithLazyReason, type Decision } from '../../core/actions.js';
import { findQueue, isActiveApp, type AppView, type ClusterSnapshot, type NodeId } from '../../core/model.js';
import { definePolicy } from '../../core/policy.js';
import { pigeonParamsSchema, RESERVED_SCORE_MIN, type PigeonParams } from './params.js';

export const POLICY_NAME = 'pigeon';

export type JobClass = 'short' | 'long';

export interface PigeonState {
  /** Task containers of Pigeon's applications at the previous cycle (to see which ones started since). */
  seenTaskIds: string[];
  /** Short task dispatches since the last long one, counted while long work waited (§3 WFQ). */
  shortSinceLong: number;
  /** The guarantees are swapped: long is served first until one of its tasks starts. */
  longTurn: boolean;
  /** The reserved nodes of the last ranking sent. */
  reserved: NodeId[];
}

const parentOf = (path: string): string => path.slice(0, path.lastIndexOf('.'));

/** The class a tag or estimate gives, else the one of the leaf; undefined for applications outside Pigeon's leaves. */
export function classOf(app: AppView, params: PigeonParams): JobClass | undefined {
  const byQueue: JobClass | undefined = app.queue === params.shortQueue ? 'short' : app.queue === params.longQueue ? 'long' : undefined;
  if (byQueue === undefined) return undefined;
  if (params.classifier === 'tag') {
    const t = app.tags['schedbrain.class'];
    if (t === 'short' || t === 'long') return t;
  } else if (params.classifier === 'estimate') {
    const ms = Number(app.tags['schedbrain.estimate-ms']);
    if (app.tags['schedbrain.estimate-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms < params.cutoffMs ? 'short' : 'long';
  }
  return byQueue;
}

/** An application in the other class's leaf moves to its own (the scheduler's job classification, §3). */
export function classifyApp(app: AppView, cls: JobClass, params: PigeonParams): Decision | undefined {
  const leaf = cls === 'short' ? params.shortQueue : params.longQueue;
  if (app.queue === leaf) return undefined;
  const by =
    params.classifier === 'tag'
      ? `tag schedbrain.class=${app.tags['schedbrain.class']}`
      : `estimate ${app.tags['schedbrain.estimate-ms']} ms ${cls === 'short' ? '<' : '≥'} cutoff ${params.cutoffMs} ms`;
  return decisionWithLazyReason({ kind: 'moveApp', appId: app.id, queue: leaf }, POLICY_NAME, 'classifyApp', () => `${app.id} is ${cls} (${by}): to ${leaf}`);
}

/**
 * The reserved ("high priority") workers: `reservedNodes` when given, else `reservedPct` of the
 * running nodes, at least one and never all, the last ones in node-id order (stable as load moves).
 */
export function reservedWorkers(snapshot: ClusterSnapshot, params: PigeonParams): NodeId[] {
  const running = [...snapshot.nodes.values()].filter((n) => n.state === 'RUNNING').map((n) => n.id);
  running.sort();
  if (params.reservedNodes !== undefined) {
    const wanted = new Set(params.reservedNodes);
    return running.filter((id) => wanted.has(id));
  }
  if (params.reservedPct <= 0 || running.length < 2) return [];
  const count = Math.min(running.length - 1, Math.max(1, Math.round((running.length * params.reservedPct) / 100)));
  return running.slice(running.length - count);
}

/**
 * The ranking that reserves workers: general nodes first (score 0, then node id), reserved ones
 * last at RESERVED_SCORE_MIN. Asked for when the reserved set changes; the engine keeps the
 * ranking in force at the RM in between (it sends it again before the plugin's TTL lapses).
 */
export function reserveWorkers(snapshot: ClusterSnapshot, reserved: readonly NodeId[], state: PigeonState): Decision | undefined {
  const changed = reserved.length !== state.reserved.length || reserved.some((id, i) => state.reserved[i] !== id);
  if (!changed) return undefined;
  const scores: Record<string, number> = Object.create(null) as Record<string, number>;
  const isReserved = new Set(reserved);
  for (const n of snapshot.nodes.values()) if (n.state === 'RUNNING') scores[n.id] = isReserved.has(n.id) ? RESERVED_SCORE_MIN : 0;
  const general = Object.keys(scores).length - reserved.length;
  return decisionWithLazyReason({ kind: 'rankNodes', scores, leastLoadedFirst: false, partial: false }, POLICY_NAME, 'reserveWorkers', () =>
    reserved.length === 0
      ? `no reserved worker (${general} general nodes): long jobs may use every node`
      : `${reserved.length} reserved worker(s) for short jobs (${reserved.join(', ')}), ${general} general`,
  );
}

/**
 * §3's weighted fair queuing, counted over the task containers that started on general workers
 * since the previous cycle (in start order): a long start ends long's turn and restarts the count;
 * a short start counts while long work waits. After W − 1 of them long gets its turn, so that one of
 * every W dispatches is long (§3). W = ∞ never gives one.
 */
export function weightedFairQueuing(
  started: readonly { cls: JobClass; startedAtMs: number }[],
  longWaiting: boolean,
  state: Pick<PigeonState, 'shortSinceLong' | 'longTurn'>,
  weight: number,
): { shortSinceLong: number; longTurn: boolean } {
  let shortSinceLong = state.shortSinceLong;
  let longTurn = state.longTurn;
  for (const s of [...started].sort((a, b) => a.startedAtMs - b.startedAtMs)) {
    if (s.cls === 'long') {
      shortSinceLong = 0;
      longTurn = false;
    } else if (longWaiting) shortSinceLong++;
  }
  if (!longWaiting) return { shortSinceLong: 0, longTurn: false };
  if (Number.isFinite(weight) && shortSinceLong >= weight - 1) longTurn = true;
  return { shortSinceLong, longTurn };
}

/**
 * The two leaves' guarantees: the class served first holds `firstCapacityPct` of their combined
 * guarantee (short, or long on its WFQ turn), both may grow to the whole parent.
 */
export function serveShortFirst(snapshot: ClusterSnapshot, params: PigeonParams, longTurn: boolean, why: string): { decision?: Decision; note?: string } {
  const short = findQueue(snapshot.rootQueue, params.shortQueue);
  const long = findQueue(snapshot.rootQueue, params.longQueue);
  if (!short || !long) {
    return { note: `${!short ? params.shortQueue : params.longQueue} does not exist: create both leaves (docs/operator-guide.md, Pigeon); nothing sent` };
  }
  const total = short.capacityPct + long.capacityPct;
  if (total <= 0) return { note: `${params.shortQueue} and ${params.longQueue} have no guarantee between them: nothing to split; nothing sent` };
  const first = Math.round(total * params.firstCapacityPct * 10) / 1000;
  const other = Math.round((total - first) * 1000) / 1000;
  const [shortPct, longPct] = longTurn ? [other, first] : [first, other];
  const same = (a: number, b: number) => Math.abs(a - b) < 0.01;
  if (same(short.capacityPct, shortPct) && same(long.capacityPct, longPct) && short.maxCapacityPct === 100 && long.maxCapacityPct === 100) return {};
  const rule = longTurn ? 'weightedFairQueuing' : 'serveShortFirst';
  const decision = decisionWithLazyReason(
    {
      kind: 'updateQueues',
      add: [],
      update: [
        { path: params.shortQueue, capacityPct: shortPct, maxCapacityPct: 100 },
        { path: params.longQueue, capacityPct: longPct, maxCapacityPct: 100 },
      ],
    },
    POLICY_NAME,
    rule,
    () =>
      `${longTurn ? 'long' : 'short'} served first: ${params.shortQueue}=${shortPct}%, ${params.longQueue}=${longPct}% of ${parentOf(params.shortQueue)} (${why})`,
  );
  return { decision };
}

export const pigeonPolicy = definePolicy<PigeonParams, PigeonState>({
  name: POLICY_NAME,
  description:
    'Pigeon on one RM: short jobs served first from their own leaf, long jobs given one of every W dispatches (WFQ), and reserved nodes on which long jobs get no container.',
  paramsSchema: pigeonParamsSchema,
  needs: ['queueWrites', 'nodeRanking'],
  initialState: () => ({ seenTaskIds: [], shortSinceLong: 0, longTurn: false, reserved: [] }),
  decide({ snapshot, params, state }) {
    const decisions: Decision[] = [];
    const notes: string[] = [];

    // Classes, and moves of applications classed into the other leaf.
    const classes = new Map<string, JobClass>();
    let longWaiting = false;
    let shortWaiting = false;
    for (const app of snapshot.apps.values()) {
      const cls = classOf(app, params);
      if (cls === undefined) continue;
      classes.set(app.id, cls);
      if (!isActiveApp(app)) continue;
      if (params.classifier !== 'queue') {
        const move = classifyApp(app, cls, params);
        if (move) decisions.push(move);
      }
      if (app.pendingContainers > 0) {
        if (cls === 'long') longWaiting = true;
        else shortWaiting = true;
      }
    }

    // Task dispatches to general workers since the previous cycle: WFQ picks the task a freed
    // general worker takes (§3); a reserved one only ever takes short work.
    const reserved = reservedWorkers(snapshot, params);
    const onReserved = new Set(reserved);
    const seen = new Set(state.seenTaskIds);
    const seenTaskIds: string[] = [];
    const started: { cls: JobClass; startedAtMs: number }[] = [];
    for (const c of snapshot.containers.values()) {
      const cls = classes.get(c.appId);
      if (cls === undefined || c.appMaster === true) continue;
      seenTaskIds.push(c.id);
      if (!seen.has(c.id) && !onReserved.has(c.nodeId)) started.push({ cls, startedAtMs: c.startedAtMs });
    }
    const wfq = weightedFairQueuing(started, longWaiting, state, params.weight);
    if (wfq.longTurn && !state.longTurn) notes.push(`WFQ: ${wfq.shortSinceLong} short dispatches while long work waited (W=${params.weight}): long's turn`);
    const why = wfq.longTurn
      ? `${wfq.shortSinceLong} short dispatches while long work waited, W=${params.weight}`
      : `${shortWaiting ? 'short work waits' : 'no short work waits'}, ${longWaiting ? `long waits (${wfq.shortSinceLong} short dispatches since its last)` : 'no long work waits'}`;
    const guarantees = serveShortFirst(snapshot, params, wfq.longTurn, why);
    if (guarantees.note) notes.push(guarantees.note);
    if (guarantees.decision) decisions.push(guarantees.decision);

    // Reserved workers.
    const ranking = reserveWorkers(snapshot, reserved, state);
    if (ranking) decisions.push(ranking);

    const nextState: PigeonState = {
      seenTaskIds,
      shortSinceLong: wfq.shortSinceLong,
      longTurn: wfq.longTurn,
      reserved,
    };
    return { decisions, state: nextState, notes };
  },
});
