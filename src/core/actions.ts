/**
 * The closed set of things a policy can ask for. Each backend (YARN applier, simulator) must
 * implement every kind; adding a kind is a contract change for both.
 *
 * Zod schemas here are the single source of truth: the decision journal stores actions as JSON
 * and re-validates them when read back, and the admin API exposes them in OpenAPI.
 */
import { z } from 'zod';

const resources = z.object({ memoryMB: z.number().int().nonnegative(), vcores: z.number().int().nonnegative() });

export const queueCapacityUpdate = z.object({
  path: z.string().min(1),
  capacityPct: z.number().min(0).max(100).optional(),
  maxCapacityPct: z.number().min(0).max(100).optional(),
  /**
   * The guarantee as absolute resources (CapacityScheduler `capacity=[memory=…,vcores=…]`, Hadoop
   * ≥ 3.1); `capacityPct` then carries its dominant share of the parent. Absent with a
   * `capacityPct`: percentage mode. CapacityScheduler refuses siblings that mix the two modes, so
   * a switch names every sibling in one action.
   */
  capacityResource: resources.optional(),
});

export const actionSchema = z.discriminatedUnion('kind', [
  /**
   * One atomic scheduler-configuration mutation: queues added, then capacities updated.
   * Atomic because CapacityScheduler rejects any state where siblings do not sum to 100.
   */
  z.object({
    kind: z.literal('updateQueues'),
    add: z.array(z.object({ path: z.string().min(1), capacityPct: z.number().min(0).max(100), maxCapacityPct: z.number().min(0).max(100) })).default([]),
    update: z.array(queueCapacityUpdate).default([]),
  }),
  z.object({ kind: z.literal('setAppPriority'), appId: z.string().min(1), priority: z.number().int() }),
  z.object({ kind: z.literal('moveApp'), appId: z.string().min(1), queue: z.string().min(1) }),
  z.object({ kind: z.literal('killApp'), appId: z.string().min(1) }),
  /** Change the capacity the RM advertises for a node (over-commit when above physical). */
  z.object({ kind: z.literal('setNodeResource'), nodeId: z.string().min(1), resource: resources }),
  z.object({ kind: z.literal('suspendContainer'), containerId: z.string().min(1), nodeId: z.string().min(1) }),
  z.object({ kind: z.literal('resumeContainer'), containerId: z.string().min(1), nodeId: z.string().min(1) }),
  z.object({ kind: z.literal('killContainer'), containerId: z.string().min(1), nodeId: z.string().min(1) }),
  /**
   * Where new containers go. Candidate nodes are ordered by (if `leastLoadedFirst`) their number
   * of allocated containers, then by ascending `scores[node]` (missing score sorts last, then by
   * node id). `partial` updates only the listed nodes' scores and keeps the others.
   * Mechanism only: the RM plugin and the simulator both apply exactly this order.
   */
  z.object({
    kind: z.literal('rankNodes'),
    scores: z.record(z.string(), z.number()),
    leastLoadedFirst: z.boolean(),
    partial: z.boolean().default(false),
  }),
]);

export type Action = z.infer<typeof actionSchema>;
export type ActionKind = Action['kind'];
export type ActionOf<K extends ActionKind> = Extract<Action, { kind: K }>;

/** An action with the explanation of why a policy wants it ("explain why" for free). */
export interface Decision {
  readonly action: Action;
  /** Policy that asked for it. */
  readonly policy: string;
  /** The rule inside the policy responsible, e.g. `swapOnQuantumEnd` or `admission.resource`. */
  readonly rule: string;
  /** Human-readable reason, with the numbers that drove it. */
  readonly reason: string;
}

/**
 * A decision whose reason is written only when read (journal, dry-run, API, logs). A policy that
 * makes millions of decisions in a trace replay uses it so that formatting text nobody reads
 * costs nothing. `reason` is a getter computed once, and `toJSON` gives a plain Decision; code
 * that copies decisions field by field must read `reason` explicitly (a spread would miss it).
 *
 * The reason is `format(action, a, b, c, d)`: a format shared by every decision of a rule, given
 * the decision's action (its container, node, ...) and up to four more values the decision keeps.
 * (A closure per decision would be two more objects: a replay makes millions.)
 */
export class LazyDecision implements Decision {
  /** The format until the reason is first read; the reason after. */
  #reason: ReasonFormat | string;
  #a: unknown;
  #b: unknown;
  #c: unknown;
  #d: unknown;

  constructor(
    readonly action: Action,
    readonly policy: string,
    readonly rule: string,
    format: ReasonFormat,
    a?: unknown,
    b?: unknown,
    c?: unknown,
    d?: unknown,
  ) {
    this.#reason = format;
    this.#a = a;
    this.#b = b;
    this.#c = c;
    this.#d = d;
  }

  get reason(): string {
    const r = this.#reason;
    if (typeof r === 'string') return r;
    const text = r(this.action, this.#a, this.#b, this.#c, this.#d);
    this.#reason = text;
    this.#a = this.#b = this.#c = this.#d = undefined;
    return text;
  }

  toJSON(): Decision {
    return { action: this.action, policy: this.policy, rule: this.rule, reason: this.reason };
  }
}

/** Writes a reason from a decision's action and the values it keeps (see `LazyDecision`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ReasonFormat = (action: any, ...values: any[]) => string;

/** The values a reason format takes besides the action: at most four. */
type ReasonValues = readonly [unknown?, unknown?, unknown?, unknown?];

export function decisionWithLazyReason(action: Action, policy: string, rule: string, explain: () => string): Decision {
  return new LazyDecision(action, policy, rule, explain);
}

/**
 * A decision whose reason is `format(action, ...values)`, written when first read. `format`
 * should be a function made once (module level), not per decision: that is the point over
 * `decisionWithLazyReason`.
 */
export function decisionWithReasonOf<A extends Action, V extends ReasonValues>(
  action: A,
  policy: string,
  rule: string,
  format: (action: A, ...values: V) => string,
  ...values: V
): Decision;
export function decisionWithReasonOf(
  action: Action,
  policy: string,
  rule: string,
  format: ReasonFormat,
  a?: unknown,
  b?: unknown,
  c?: unknown,
  d?: unknown,
): Decision {
  return new LazyDecision(action, policy, rule, format, a, b, c, d);
}

/**
 * A `rankNodes` action made from two lists (node ids, their scores), for a policy that ranks a
 * few nodes at almost every cycle (Kairos in a trace replay: one per event). `scores` is the
 * action's dictionary as everywhere else, written on first read (API, journal, the YARN path);
 * the simulator takes the lists (`rankedNodeLists`) and never builds it. A dictionary per cycle,
 * and listing its keys back, cost more than the ranking itself.
 */
export class ListedRanking implements ActionOf<'rankNodes'> {
  readonly kind = 'rankNodes';
  readonly #nodeIds: readonly string[];
  readonly #values: readonly number[];
  #scores: Record<string, number> | undefined;

  /** `values[i]` is the score of `nodeIds[i]`; a node listed twice keeps its last score. */
  constructor(
    nodeIds: readonly string[],
    values: readonly number[],
    readonly leastLoadedFirst: boolean,
    readonly partial: boolean,
  ) {
    this.#nodeIds = nodeIds;
    this.#values = values;
  }

  get scores(): Record<string, number> {
    if (this.#scores === undefined) {
      // No prototype: a node id is any string.
      const scores = Object.create(null) as Record<string, number>;
      for (let i = 0; i < this.#nodeIds.length; i++) scores[this.#nodeIds[i]] = this.#values[i];
      this.#scores = scores;
    }
    return this.#scores;
  }

  /** Number of nodes listed (a node listed twice counts twice). */
  get size(): number {
    return this.#nodeIds.length;
  }

  /** The lists the action was made from (see `rankedNodeLists`), written into `into`. */
  listsInto(into: RankedNodeLists): RankedNodeLists {
    into.nodeIds = this.#nodeIds;
    into.values = this.#values;
    return into;
  }

  toJSON(): ActionOf<'rankNodes'> {
    return { kind: this.kind, scores: this.scores, leastLoadedFirst: this.leastLoadedFirst, partial: this.partial };
  }
}

/** The nodes a ranking lists and their scores (`values[i]` is the score of `nodeIds[i]`). */
export interface RankedNodeLists {
  nodeIds: readonly string[];
  values: readonly number[];
}

/**
 * The nodes a `rankNodes` action lists and their scores, as two lists in the order given: without
 * a dictionary walk when the action is a `ListedRanking`. The lists are read-only views; they are
 * written into `into` when given (a caller ranking at every event reuses one).
 */
export function rankedNodeLists(a: ActionOf<'rankNodes'>, into: RankedNodeLists = { nodeIds: [], values: [] }): RankedNodeLists {
  if (a instanceof ListedRanking) return a.listsInto(into);
  const nodeIds = Object.keys(a.scores);
  into.nodeIds = nodeIds;
  into.values = nodeIds.map((id) => a.scores[id]);
  return into;
}

/**
 * Short stable key used to deduplicate actions on the same target within a plan. An
 * application's priority and its queue are targets of their own: a policy may set both in a cycle.
 */
export function actionTarget(a: Action): string {
  switch (a.kind) {
    case 'updateQueues':
      return 'queues';
    case 'setAppPriority':
      return `app:${a.appId}:priority`;
    case 'moveApp':
      return `app:${a.appId}:queue`;
    case 'killApp':
      return `app:${a.appId}`;
    case 'setNodeResource':
      return `node:${a.nodeId}`;
    case 'suspendContainer':
    case 'resumeContainer':
    case 'killContainer':
      return `container:${a.containerId}`;
    case 'rankNodes':
      return 'ranking';
  }
}

export function describeAction(a: Action): string {
  switch (a.kind) {
    case 'updateQueues': {
      const parts = [
        ...a.add.map((q) => `add ${q.path} cap=${q.capacityPct}% max=${q.maxCapacityPct}%`),
        ...a.update.map(
          (q) => `${q.path}${q.capacityPct !== undefined ? ` cap=${q.capacityPct}%` : ''}${q.maxCapacityPct !== undefined ? ` max=${q.maxCapacityPct}%` : ''}`,
        ),
      ];
      return `updateQueues(${parts.join('; ')})`;
    }
    case 'setAppPriority':
      return `setAppPriority(${a.appId} -> ${a.priority})`;
    case 'moveApp':
      return `moveApp(${a.appId} -> ${a.queue})`;
    case 'killApp':
      return `killApp(${a.appId})`;
    case 'setNodeResource':
      return `setNodeResource(${a.nodeId} -> ${a.resource.memoryMB}MB/${a.resource.vcores}vc)`;
    case 'suspendContainer':
    case 'resumeContainer':
    case 'killContainer':
      return `${a.kind}(${a.containerId}@${a.nodeId})`;
    case 'rankNodes':
      return `rankNodes(${Object.keys(a.scores).length} nodes${a.partial ? ', partial' : ''}${a.leastLoadedFirst ? ', least-loaded first' : ''})`;
  }
}
