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
  /** The rule inside the policy responsible, e.g. `las.preempt` or `admission.resource`. */
  readonly rule: string;
  /** Human-readable reason, with the numbers that drove it. */
  readonly reason: string;
}

/**
 * A decision whose reason is written only when read (journal, dry-run, API, logs). A policy that
 * makes millions of decisions in a trace replay uses it so that formatting text nobody reads
 * costs nothing. `reason` is a getter computed once, and `toJSON` gives a plain Decision; code
 * that copies decisions field by field must read `reason` explicitly (a spread would miss it).
 */
export class LazyDecision implements Decision {
  #explain: (() => string) | undefined;
  #text: string | undefined;

  constructor(
    readonly action: Action,
    readonly policy: string,
    readonly rule: string,
    explain: () => string,
  ) {
    this.#explain = explain;
  }

  get reason(): string {
    if (this.#text === undefined) {
      this.#text = (this.#explain as () => string)();
      this.#explain = undefined;
    }
    return this.#text;
  }

  toJSON(): Decision {
    return { action: this.action, policy: this.policy, rule: this.rule, reason: this.reason };
  }
}

export function decisionWithLazyReason(action: Action, policy: string, rule: string, explain: () => string): Decision {
  return new LazyDecision(action, policy, rule, explain);
}

/** Short stable key used to deduplicate actions on the same target within a plan. */
export function actionTarget(a: Action): string {
  switch (a.kind) {
    case 'updateQueues':
      return 'queues';
    case 'setAppPriority':
    case 'moveApp':
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
        ...a.update.map((q) => `${q.path}${q.capacityPct !== undefined ? ` cap=${q.capacityPct}%` : ''}${q.maxCapacityPct !== undefined ? ` max=${q.maxCapacityPct}%` : ''}`),
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
