/**
 * Session and statement (after Volcano). A session is opened on one snapshot; the policy decides
 * inside it; its decisions become a statement. The statement is planned against the snapshot
 * (validation, deduplication, reconciliation, capabilities, advisory mode, clamps, the per-cycle
 * limit) and then either committed (pending actions go to the backend) or discarded (dry-run:
 * nothing is sent, every pending action is recorded as `dryRun`). Either way the outcome of
 * every decision is returned for the journal, with the rule and reason that produced it.
 */
import { actionSchema, actionTarget, LazyDecision, ListedRanking, type Action, type ActionOf, type Decision, type RankedNodeLists } from '../core/actions.js';
import type { Capabilities, ClusterBackend } from '../core/backend.js';
import { RmUnavailableError } from '../core/errors.js';
import { runStepsOffThread, type MilpSolver } from '../core/milp.js';
import { findQueue, type ClusterSnapshot, type QueueView } from '../core/model.js';
import { dominantShare, type Resources } from '../core/resources.js';
import type { AnyPolicy, PolicyOutput } from '../core/policy.js';
import { isAlreadyTrue } from '../core/reconcile.js';
import type { NewJournalEntry, SkipReason } from '../store/journal.js';
import { ChangeTracker, CycleEntries } from './change-tracking.js';
import { heldBy } from './drift.js';
import type { PublishedRanking } from '../store/store.js';

export interface SafetyLimits {
  /** Actions sent per cycle at most; the rest are journaled `skipped` (limit). */
  readonly maxActionsPerCycle: number;
  /** Largest change of a queue's capacity (or max capacity) per cycle, in percentage points; for a guarantee in absolute resources, in percent of the parent's memory and of its vcores. */
  readonly maxCapacityStepPct: number;
  /** A node may be advertised with at most this multiple of its physical memory and vcores. */
  readonly maxOvercommitFactor: number;
  /** Existing queues whose guarantee a plan may set to 0 (any other such plan is refused). */
  readonly allowZeroCapacity: readonly string[];
  /** Container suspensions sent per cycle and per minute at most (the rest: skipped, limit). */
  readonly maxSuspendsPerCycle: number;
  readonly maxSuspendsPerMinute: number;
  /** Container and application kills sent per cycle and per minute at most. */
  readonly maxKillsPerCycle: number;
  readonly maxKillsPerMinute: number;
}

export const DEFAULT_LIMITS: SafetyLimits = {
  maxActionsPerCycle: 50,
  maxCapacityStepPct: 100,
  maxOvercommitFactor: 4,
  allowZeroCapacity: [],
  maxSuspendsPerCycle: 1_000,
  maxSuspendsPerMinute: 10_000,
  maxKillsPerCycle: 20,
  maxKillsPerMinute: 100,
};

/** The largest value YARN's resource fields hold (Java int). */
export const MAX_RESOURCE_VALUE = 2 ** 31 - 1;

export type PlanStatus = 'pending' | 'noop' | 'skipped' | 'failed';

export interface PlannedDecision {
  readonly decision: Decision;
  /** What would be sent (after a clamp); undefined when the action was invalid. */
  readonly action?: Action;
  /** True when `action` differs from what the policy asked for. */
  readonly clamped: boolean;
  readonly status: PlanStatus;
  readonly skipReason?: SkipReason;
  readonly detail?: string;
  readonly error?: string;
}

export interface SessionContext {
  readonly cycleId: string;
  readonly snapshot: ClusterSnapshot;
  readonly capabilities: Capabilities;
  readonly limits: SafetyLimits;
  /** Last ranking the engine published (rankNodes reconciliation). */
  readonly lastRanking?: PublishedRanking;
  /** Suspensions and kills sent in the last minute (the per-minute limits). */
  readonly recentDisruptions?: { readonly suspends: number; readonly kills: number };
  /** Targets changed outside the brain and left alone for now, with why (./drift.ts). */
  readonly holds?: ReadonlyMap<string, string>;
  /** The engine's change tracking, kept across its cycles (none: a fresh one, rebuilt from the state). */
  readonly tracking?: ChangeTracker;
}

type Disruption = 'suspend' | 'kill';

/** Whether an action stops work: suspensions and kills are rate-limited. */
export function disruptionOf(a: Action): Disruption | undefined {
  if (a.kind === 'suspendContainer') return 'suspend';
  if (a.kind === 'killContainer' || a.kind === 'killApp') return 'kill';
  return undefined;
}

/**
 * Cluster invariants a plan must keep, checked on what would be sent: advertised node resources
 * within `maxOvercommitFactor` of physical and within Java's int; sibling guarantees summing to
 * 100; no existing guarantee dropped to 0 unless allowed. Returns the first violation.
 */
export function invariantViolation(actions: readonly Action[], s: ClusterSnapshot, limits: SafetyLimits): string | undefined {
  for (const a of actions) {
    if (a.kind === 'setNodeResource') {
      const node = s.nodes.get(a.nodeId);
      const physical = node?.physicalCapacity ?? node?.capacity;
      for (const [field, value] of Object.entries(a.resource) as [keyof typeof a.resource, number][]) {
        if (!Number.isInteger(value) || value < 0 || value > MAX_RESOURCE_VALUE)
          return `${a.nodeId}: ${field} ${value} is not an integer in 0..${MAX_RESOURCE_VALUE}`;
        const bound = physical ? physical[field] * limits.maxOvercommitFactor : undefined;
        if (bound !== undefined && value > bound)
          return `${a.nodeId}: ${field} ${value} is more than ${limits.maxOvercommitFactor}x its physical ${physical![field]} (maxOvercommitFactor)`;
      }
    }
    if (a.kind === 'updateQueues') {
      const capacities = new Map<string, number>();
      const children = new Map<string, string[]>();
      // Queues whose guarantee is in absolute resources: their siblings need not sum to 100.
      const absolute = new Set<string>();
      const walk = (q: ClusterSnapshot['rootQueue']) => {
        capacities.set(q.path, q.capacityPct);
        if (q.capacityResource) absolute.add(q.path);
        children.set(
          q.path,
          q.children.map((c) => c.path),
        );
        q.children.forEach(walk);
      };
      walk(s.rootQueue);
      const touched = new Set<string>();
      for (const q of a.add) {
        capacities.set(q.path, q.capacityPct);
        children.set(parentOf(q.path), [...(children.get(parentOf(q.path)) ?? []), q.path]);
        touched.add(parentOf(q.path));
      }
      for (const u of a.update) {
        if (u.capacityPct === undefined) continue;
        const before = capacities.get(u.path);
        if (before !== undefined && before > 0 && u.capacityPct === 0 && !limits.allowZeroCapacity.includes(u.path)) {
          return `${u.path}: guarantee ${before}% would drop to 0% (allow it with limits.allowZeroCapacity)`;
        }
        capacities.set(u.path, u.capacityPct);
        if (u.capacityResource) absolute.add(u.path);
        else absolute.delete(u.path);
        touched.add(parentOf(u.path));
      }
      for (const parent of touched) {
        const kids = children.get(parent) ?? [];
        if (kids.some((k) => absolute.has(k))) {
          // CapacityScheduler refuses absolute siblings beside non-zero percentages (0 % does not count).
          const mixed = kids.find((k) => !absolute.has(k) && (capacities.get(k) ?? 0) > 0);
          if (mixed) return `children of ${parent || 'root'} would mix absolute resources and percentages (${mixed} at ${capacities.get(mixed)}%)`;
          continue;
        }
        const sum = kids.reduce((acc, k) => acc + (capacities.get(k) ?? 0), 0);
        if (kids.length > 0 && Math.abs(sum - 100) > PCT_EPS) return `children of ${parent || 'root'} would sum to ${round2(sum)}%, not 100%`;
      }
    }
  }
  return undefined;
}

const PCT_EPS = 0.01;
const round2 = (x: number) => Math.round(x * 100) / 100;
const parentOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('.')));

/**
 * Is the ranking last published due to be sent again? The cluster forgets a ranking `ttlMs` after
 * it was sent, so an unchanged one is resent once half of that has passed (a missed cycle or two
 * still leaves it in force).
 */
export function rankingRefreshDue(last: PublishedRanking | undefined, nowMs: number, ttlMs: number | undefined): boolean {
  if (!last || ttlMs === undefined || Object.keys(last.scores).length === 0) return false;
  return last.publishedAtMs === undefined || nowMs - last.publishedAtMs >= ttlMs / 2;
}

/** Is a rankNodes action already what the engine last published (and still in force, given `freshness`)? */
export function rankingAlreadyPublished(
  a: ActionOf<'rankNodes'>,
  last: PublishedRanking | undefined,
  freshness?: { readonly nowMs: number; readonly ttlMs?: number },
): boolean {
  if (!last || last.leastLoadedFirst !== a.leastLoadedFirst) return false;
  if (freshness && rankingRefreshDue(last, freshness.nowMs, freshness.ttlMs)) return false;
  const keys = Object.keys(a.scores);
  if (!a.partial && keys.length !== Object.keys(last.scores).length) return false;
  return keys.every((k) => last.scores[k] === a.scores[k]);
}

/** The ranking in force after publishing `a` on top of `last` at `publishedAtMs`. */
export function mergeRanking(a: ActionOf<'rankNodes'>, last: PublishedRanking | undefined, publishedAtMs?: number): PublishedRanking {
  return {
    scores: a.partial ? { ...(last?.scores ?? {}), ...a.scores } : { ...a.scores },
    leastLoadedFirst: a.leastLoadedFirst,
    ...(publishedAtMs !== undefined ? { publishedAtMs } : {}),
  };
}

export const RANKING_REFRESH_RULE = 'engine.ranking-refresh';

/**
 * The last published ranking sent again unchanged when it is due (rankingRefreshDue) and the
 * policy asked for no ranking this cycle; a policy's own rankNodes is sent when due anyway.
 */
function rankingRefresh(ctx: SessionContext, decisions: readonly Decision[], policy: string): Decision | undefined {
  const last = ctx.lastRanking;
  const ttlMs = ctx.capabilities.rankingTtlMs;
  if (!last || !rankingRefreshDue(last, ctx.snapshot.nowMs, ttlMs)) return undefined;
  if (decisions.some((d) => d.action.kind === 'rankNodes')) return undefined;
  const age = last.publishedAtMs === undefined ? 'at an unknown time' : `${Math.round(ctx.snapshot.nowMs - last.publishedAtMs)} ms ago`;
  return {
    action: { kind: 'rankNodes', scores: { ...last.scores }, leastLoadedFirst: last.leastLoadedFirst, partial: false },
    policy,
    rule: RANKING_REFRESH_RULE,
    reason: `the node ranking was sent ${age} and the cluster drops it ${ttlMs} ms after: sent again unchanged`,
  };
}

/**
 * Limits each queue's capacity change to `stepPct` points. Siblings are scaled by one common
 * factor so a group that summed to 100 still does; groups that add queues are not clamped
 * (the new queue has no current value to step from). Returns the action and an explanation.
 */
export function clampQueueUpdate(
  action: ActionOf<'updateQueues'>,
  s: ClusterSnapshot,
  stepPct: number,
): { action: ActionOf<'updateQueues'>; explanation?: string } {
  if (!(stepPct < 100)) return { action };
  const update = action.update.map((u) => ({ ...u }));
  const notes: string[] = [];
  const addedParents = new Set(action.add.map((a) => parentOf(a.path)));
  const groups = new Map<string, Array<{ u: (typeof update)[number]; q: QueueView; current: number; delta: number }>>();
  for (const u of update) {
    const q = findQueue(s.rootQueue, u.path);
    if (!q || (u.capacityPct === undefined && !u.capacityResource)) continue;
    const parent = parentOf(u.path);
    if (addedParents.has(parent)) continue;
    const g = groups.get(parent) ?? [];
    g.push({ u, q, current: q.capacityPct, delta: (u.capacityPct ?? q.capacityPct) - q.capacityPct });
    groups.set(parent, g);
  }
  for (const [parent, g] of groups) {
    // A group with a resource vector on either side is stepped in resources, not points.
    if (g.some((x) => x.u.capacityResource || x.q.capacityResource)) {
      const note = clampAbsoluteGroup(parent, g, s, stepPct);
      if (note) notes.push(note);
      continue;
    }
    const maxAbs = Math.max(...g.map((x) => Math.abs(x.delta)));
    if (maxAbs <= stepPct + PCT_EPS) continue;
    const factor = stepPct / maxAbs;
    const targetSum = round2(g.reduce((acc, x) => acc + x.current + x.delta * factor, 0));
    for (const x of g) x.u.capacityPct = round2(x.current + x.delta * factor);
    // Rounding residue goes to the queue that moves most, so the group sum is exact.
    const residue = round2(targetSum - g.reduce((acc, x) => acc + (x.u.capacityPct ?? 0), 0));
    if (residue !== 0) {
      const big = g.reduce((a, b) => (Math.abs(b.delta) > Math.abs(a.delta) ? b : a));
      big.u.capacityPct = round2((big.u.capacityPct ?? 0) + residue);
    }
    const parts = g.map((x) => `${x.u.path} ${x.current}→${round2(x.current + x.delta)}% limited to ${x.u.capacityPct}%`);
    notes.push(
      `capacity step under ${parent || 'root'} clamped to ${stepPct} points (maxCapacityStepPct; siblings scaled by ${round2(factor)}): ${parts.join(', ')}`,
    );
  }
  for (const u of update) {
    const q = findQueue(s.rootQueue, u.path);
    if (!q) continue;
    if (u.maxCapacityPct !== undefined && Math.abs(u.maxCapacityPct - q.maxCapacityPct) > stepPct + PCT_EPS) {
      const wanted = u.maxCapacityPct;
      u.maxCapacityPct = round2(q.maxCapacityPct + Math.sign(wanted - q.maxCapacityPct) * stepPct);
      notes.push(`${u.path} max capacity ${q.maxCapacityPct}→${wanted}% limited to ${u.maxCapacityPct}% (maxCapacityStepPct=${stepPct})`);
    }
    const cap = u.capacityPct ?? q.capacityPct;
    const max = u.maxCapacityPct ?? q.maxCapacityPct;
    if (max < cap) {
      u.maxCapacityPct = cap;
      notes.push(`${u.path} max capacity raised to ${cap}% so it is not below the clamped capacity`);
    }
  }
  if (notes.length === 0) return { action };
  return { action: { ...action, update }, explanation: notes.join('; ') };
}

/** The resources a parent's children divide: its own vector when absolute, else its share of the cluster (all of it under root). */
function parentResources(parent: string, s: ClusterSnapshot): Resources {
  const p = findQueue(s.rootQueue, parent);
  if (p?.capacityResource) return p.capacityResource;
  const share = !p || p.path === s.rootQueue.path ? 1 : p.absoluteCapacityPct / 100;
  return { memoryMB: Math.floor(s.totalCapacity.memoryMB * share), vcores: Math.floor(s.totalCapacity.vcores * share) };
}

const RESOURCE_FIELDS = ['memoryMB', 'vcores'] as const;
const fmtVector = (r: Resources) => `[memory=${r.memoryMB},vcores=${r.vcores}]`;

/** ⌊a·b / d⌋ for integers, exact where a float product would not be (d > 0). */
function floorMulDiv(a: number, b: number, d: number): number {
  const n = BigInt(a) * BigInt(b);
  const q = n / BigInt(d);
  return Number(n % BigInt(d) < 0n ? q - 1n : q);
}

/**
 * `clampQueueUpdate` for siblings in absolute-resource mode (or switching to or from it): each
 * queue moves at most `stepPct` % of the parent's memory and of its vcores (at least one MB or
 * vcore, or it could never move). As with percentages, all deltas of one resource are scaled by
 * one factor, so every queue lies between where it is and where the policy wants it, and the
 * group adds up to no more than the larger of the two sums (within the parent when both are).
 * Values are whole MB and vcores, rounded down. A percentage queue counts as its share of the
 * parent. A switch back to percentages is sent only when no queue moves more than a step; until
 * then the group stays in absolute mode and steps toward the percentages' vectors. Mutates the
 * group's updates; returns the note, or undefined when nothing was clamped.
 */
function clampAbsoluteGroup(
  parent: string,
  g: ReadonlyArray<{ u: { path: string; capacityPct?: number; capacityResource?: Resources }; q: QueueView }>,
  s: ClusterSnapshot,
  stepPct: number,
): string | undefined {
  const total = parentResources(parent, s);
  const asVector = (pct: number): Resources => ({ memoryMB: Math.floor((pct * total.memoryMB) / 100), vcores: Math.floor((pct * total.vcores) / 100) });
  const current = g.map((x) => x.q.capacityResource ?? asVector(x.q.capacityPct));
  const target = g.map((x) => x.u.capacityResource ?? asVector(x.u.capacityPct ?? x.q.capacityPct));
  const stepped = target.map((t) => ({ ...t }));
  const scaled: string[] = [];
  const steps: string[] = [];
  for (const r of RESOURCE_FIELDS) {
    const maxAbs = Math.max(...g.map((_, i) => Math.abs(target[i][r] - current[i][r])));
    const step = (stepPct * total[r]) / 100;
    const stepUnits = Math.max(1, Math.floor(step));
    steps.push(`${stepUnits} ${r === 'memoryMB' ? 'MB' : 'vcores'}`);
    if (maxAbs <= step || maxAbs <= stepUnits) continue;
    for (let i = 0; i < g.length; i++) stepped[i][r] = current[i][r] + floorMulDiv(target[i][r] - current[i][r], stepUnits, maxAbs);
    scaled.push(`${r === 'memoryMB' ? 'memory' : 'vcores'} scaled by ${round2(stepUnits / maxAbs)}`);
  }
  if (scaled.length === 0) return undefined;
  const switchBack = g.some((x) => !x.u.capacityResource);
  g.forEach((x, i) => {
    if (x.u.capacityResource && x.u.capacityResource.memoryMB === stepped[i].memoryMB && x.u.capacityResource.vcores === stepped[i].vcores) return;
    x.u.capacityResource = stepped[i];
    x.u.capacityPct = Math.round(dominantShare(stepped[i], total) * 1e6) / 1e4;
  });
  const parts = g.map((x, i) => `${x.u.path} ${fmtVector(current[i])}→${fmtVector(target[i])} limited to ${fmtVector(stepped[i])}`);
  return (
    `capacity step under ${parent || 'root'} clamped to ${stepPct}% of its resources (maxCapacityStepPct: ${steps.join(', ')}; ${scaled.join(', ')}): ${parts.join(', ')}` +
    (switchBack ? '; the switch to percentages waits until no queue moves more than that' : '')
  );
}

function unsupportedReason(a: Action, caps: Capabilities): string | undefined {
  if ((a.kind === 'suspendContainer' || a.kind === 'resumeContainer') && !caps.containerSuspend) return 'backend cannot suspend/resume containers';
  if (a.kind === 'rankNodes' && !caps.nodeRanking) return 'backend does not honour node ranking';
  return undefined;
}

export function advisoryReason(caps: Capabilities): string {
  return `advisory mode: the backend cannot write the scheduler configuration${caps.notes.length ? ` (${caps.notes.join('; ')})` : ''}; nothing is sent`;
}

const nonEmpty = (x: unknown): boolean => typeof x === 'string' && x.length > 0;

/**
 * A decision with string policy/rule/reason, whatever a buggy policy returned. A well-formed one
 * is kept as it is: a lazy reason stays unwritten until the journal or the API reads it.
 */
function normalise(d: Decision, policyName: string): Decision {
  if (d instanceof LazyDecision ? nonEmpty(d.policy) && nonEmpty(d.rule) : nonEmpty(d?.policy) && nonEmpty(d?.rule) && nonEmpty(d?.reason)) return d;
  const str = (x: unknown, dflt: string) => (nonEmpty(x) ? (x as string) : dflt);
  const policy = str(d?.policy, policyName);
  return { action: d?.action, policy, rule: str(d?.rule, `${policy}.unnamed`), reason: str(d?.reason, '(no reason given)') };
}

const isId = nonEmpty;
const isCount = (x: unknown): boolean => Number.isInteger(x) && (x as number) >= 0;

/** Number of enumerable keys of an object (own and inherited), counted without a list. */
function keyCount(o: object): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

/** Where a ranking's lists are read into (they are read-only views, let go of at once). */
const NO_ENTRIES: readonly never[] = [];
const rankingLists: RankedNodeLists = { nodeIds: NO_ENTRIES, values: NO_ENTRIES };

/**
 * `raw` itself when it is certainly an action `actionSchema` accepts and would give back
 * unchanged (every field present, no other key), undefined when unsure: then the schema decides.
 * A plan checks every decision, and a replay plans millions of them.
 */
export function alreadyValidAction(raw: unknown): Action | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const a = raw as Record<string, unknown>;
  switch (a.kind) {
    case 'suspendContainer':
    case 'resumeContainer':
    case 'killContainer':
      return isId(a.containerId) && isId(a.nodeId) && keyCount(a) === 3 ? (raw as Action) : undefined;
    case 'setNodeResource': {
      const r = a.resource as Record<string, unknown> | undefined;
      if (!isId(a.nodeId) || typeof r !== 'object' || r === null || keyCount(a) !== 3) return undefined;
      return isCount(r.memoryMB) && isCount(r.vcores) && keyCount(r) === 2 ? (raw as Action) : undefined;
    }
    case 'setAppPriority':
      return isId(a.appId) && Number.isInteger(a.priority) && keyCount(a) === 3 ? (raw as Action) : undefined;
    case 'moveApp':
      return isId(a.appId) && isId(a.queue) && keyCount(a) === 3 ? (raw as Action) : undefined;
    case 'killApp':
      return isId(a.appId) && keyCount(a) === 2 ? (raw as Action) : undefined;
    case 'rankNodes': {
      // A ListedRanking keeps its two lists (the simulator ranks from them without a dictionary).
      if (!(raw instanceof ListedRanking) || typeof raw.leastLoadedFirst !== 'boolean' || typeof raw.partial !== 'boolean') return undefined;
      const { nodeIds, values } = raw.listsInto(rankingLists);
      rankingLists.nodeIds = rankingLists.values = NO_ENTRIES;
      for (let i = 0; i < nodeIds.length; i++) if (typeof nodeIds[i] !== 'string' || typeof values[i] !== 'number' || Number.isNaN(values[i])) return undefined;
      return raw;
    }
    default:
      return undefined;
  }
}

/** The action a decision carries, checked by `actionSchema`, or the first issue when refused. */
function checkedAction(raw: unknown): Action | string {
  const fast = alreadyValidAction(raw);
  if (fast !== undefined) return fast;
  const parsed = actionSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const i = parsed.error.issues[0];
  return `invalid action: ${i.path.join('.') || 'action'}: ${i.message}`;
}

/** What a decision acts on, by kind: its target is the group and an id (`actionTarget`). */
const enum TargetGroup {
  Queues,
  Ranking,
  App,
  AppPriority,
  AppQueue,
  Node,
  Container,
}

function targetGroup(a: Action): TargetGroup {
  switch (a.kind) {
    case 'updateQueues':
      return TargetGroup.Queues;
    case 'rankNodes':
      return TargetGroup.Ranking;
    case 'setAppPriority':
      return TargetGroup.AppPriority;
    case 'moveApp':
      return TargetGroup.AppQueue;
    case 'killApp':
      return TargetGroup.App;
    case 'setNodeResource':
      return TargetGroup.Node;
    case 'suspendContainer':
    case 'resumeContainer':
    case 'killContainer':
      return TargetGroup.Container;
  }
}

function targetId(a: Action): string {
  switch (a.kind) {
    case 'updateQueues':
    case 'rankNodes':
      return '';
    case 'setAppPriority':
    case 'moveApp':
    case 'killApp':
      return a.appId;
    case 'setNodeResource':
      return a.nodeId;
    case 'suspendContainer':
    case 'resumeContainer':
    case 'killContainer':
      return a.containerId;
  }
}

/** Plans of at most this many decisions find earlier targets by a scan; larger ones through sets. */
const SCANNED_TARGETS = 16;

/** The decisions of a plan so far by target, found without building the target's string. */
class TargetsSeen {
  /** The first `SCANNED_TARGETS` claims: group, id and decision, three entries each. */
  private readonly scanned: (TargetGroup | string | Decision)[] = [];
  /**
   * Once a plan has more claims: the ids claimed, by group. One lookup tells a first claim (a
   * replay plans cycles of a thousand suspensions and resumptions); a duplicate is rare, and its
   * earlier decision is found in the plan so far.
   */
  private ids?: Set<string>[];
  /** From a large plan's first duplicate on: every claim, by group, then id. */
  private maps?: Map<string, Decision>[];

  /** The earlier decision on `a`'s target, or undefined after recording `d` as its first (`planned`: the plan so far). */
  claim(a: Action, d: Decision, planned: readonly PlannedDecision[]): Decision | undefined {
    const group = targetGroup(a);
    const id = targetId(a);
    if (this.maps !== undefined) return firstClaim(this.maps, group, id, d);
    const ids = this.ids;
    if (ids !== undefined) {
      const byGroup = (ids[group] ??= new Set());
      const before = byGroup.size;
      if (byGroup.add(id).size !== before) return undefined;
      // A duplicate: every claim so far goes into maps (each planned decision with an action was
      // claimed, in order), which answer from now on.
      const maps: Map<string, Decision>[] = (this.maps = []);
      this.ids = undefined;
      for (const p of planned) if (p.action !== undefined) firstClaim(maps, targetGroup(p.action), targetId(p.action), p.decision);
      return firstClaim(maps, group, id, d);
    }
    const scanned = this.scanned;
    // Ids of one kind share long prefixes (`container_0_…`): the length and the last character
    // rule most of them out before a comparison of the whole string.
    const last = id.length - 1;
    const lastChar = last < 0 ? -1 : id.charCodeAt(last);
    for (let i = 0; i < scanned.length; i += 3) {
      if (scanned[i] !== group) continue;
      const other = scanned[i + 1] as string;
      if (other.length === id.length && (last < 0 || other.charCodeAt(last) === lastChar) && other === id) return scanned[i + 2] as Decision;
    }
    if (scanned.length < 3 * SCANNED_TARGETS) {
      scanned.push(group, id, d);
      return undefined;
    }
    // The scanned claims move into the sets: a large plan would otherwise scan them at every claim.
    const sets: Set<string>[] = (this.ids = []);
    for (let i = 0; i < scanned.length; i += 3) (sets[scanned[i] as TargetGroup] ??= new Set()).add(scanned[i + 1] as string);
    scanned.length = 0;
    (sets[group] ??= new Set()).add(id);
    return undefined;
  }
}

/** The decision already in `maps` for the target, or undefined after recording `d` there. */
function firstClaim(maps: Map<string, Decision>[], group: TargetGroup, id: string, d: Decision): Decision | undefined {
  const byId = (maps[group] ??= new Map());
  const earlier = byId.get(id);
  if (earlier === undefined) byId.set(id, d);
  return earlier;
}

/** Plans a policy's decisions against the session's snapshot. Pure. */
export function plan(ctx: SessionContext, decisions: readonly Decision[], policyName = 'unknown'): PlannedDecision[] {
  const out: PlannedDecision[] = [];
  if (decisions.length === 0) return out;
  // A plan of one decision has no earlier target (most of a replay's cycles plan one ranking).
  const seen = decisions.length > 1 ? new TargetsSeen() : undefined;
  const advisory = !ctx.capabilities.queueWrites;
  let sendable = 0;
  const l = ctx.limits;
  // Suspensions and kills are counted only under a limit (a replay usually has none).
  const disrupted: Record<Disruption, number> | undefined =
    Number.isFinite(l.maxSuspendsPerCycle) ||
    Number.isFinite(l.maxSuspendsPerMinute) ||
    Number.isFinite(l.maxKillsPerCycle) ||
    Number.isFinite(l.maxKillsPerMinute)
      ? { suspend: 0, kill: 0 }
      : undefined;
  // Only node resources and queue updates have invariants (see invariantViolation).
  let checkInvariants = false;
  for (const raw of decisions) {
    const decision = normalise(raw, policyName);
    const action = checkedAction(decision.action);
    if (typeof action === 'string') {
      out.push({ decision, clamped: false, status: 'failed', error: action });
      continue;
    }
    const earlier = seen?.claim(action, decision, out);
    if (earlier) {
      out.push({
        decision,
        action,
        clamped: false,
        status: 'skipped',
        skipReason: 'duplicate',
        detail: `an earlier decision this cycle already targets ${actionTarget(action)} (rule ${earlier.rule})`,
      });
      continue;
    }
    // Nothing published yet (always so in the simulator): no ranking to compare with.
    if (
      action.kind === 'rankNodes'
        ? ctx.lastRanking !== undefined && rankingAlreadyPublished(action, ctx.lastRanking, { nowMs: ctx.snapshot.nowMs, ttlMs: ctx.capabilities.rankingTtlMs })
        : isAlreadyTrue(action, ctx.snapshot)
    ) {
      out.push({
        decision,
        action,
        clamped: false,
        status: 'noop',
        detail: action.kind === 'rankNodes' ? 'ranking already published' : 'already true of the cluster',
      });
      continue;
    }
    if (advisory) {
      out.push({ decision, action, clamped: false, status: 'skipped', skipReason: 'advisory', detail: advisoryReason(ctx.capabilities) });
      continue;
    }
    const unsupported = unsupportedReason(action, ctx.capabilities);
    if (unsupported) {
      out.push({ decision, action, clamped: false, status: 'skipped', skipReason: 'unsupported', detail: unsupported });
      continue;
    }
    const hold = ctx.holds ? heldBy(action, ctx.holds) : undefined;
    if (hold) {
      out.push({ decision, action, clamped: false, status: 'skipped', skipReason: 'drift', detail: hold });
      continue;
    }
    let toSend: Action = action;
    let detail: string | undefined;
    if (action.kind === 'updateQueues') {
      const c = clampQueueUpdate(action, ctx.snapshot, ctx.limits.maxCapacityStepPct);
      toSend = c.action;
      detail = c.explanation;
    }
    if (sendable >= ctx.limits.maxActionsPerCycle) {
      out.push({
        decision,
        action: toSend,
        clamped: toSend !== action,
        status: 'skipped',
        skipReason: 'limit',
        detail: `maxActionsPerCycle=${ctx.limits.maxActionsPerCycle} reached`,
      });
      continue;
    }
    const disruption = disrupted !== undefined ? disruptionOf(toSend) : undefined;
    if (disruption !== undefined && disrupted !== undefined) {
      const limit = rateLimitReached(disruption, disrupted, ctx);
      if (limit) {
        out.push({ decision, action: toSend, clamped: toSend !== action, status: 'skipped', skipReason: 'limit', detail: limit });
        continue;
      }
      disrupted[disruption]++;
    }
    sendable++;
    if (toSend.kind === 'setNodeResource' || toSend.kind === 'updateQueues') checkInvariants = true;
    out.push({ decision, action: toSend, clamped: toSend !== action, status: 'pending', detail });
  }
  if (!checkInvariants) return out;
  // A plan that would break a cluster invariant is refused whole: none of it is sent.
  const violation = invariantViolation(
    out.filter((p) => p.status === 'pending').map((p) => p.action as Action),
    ctx.snapshot,
    ctx.limits,
  );
  if (violation) {
    return out.map((p) => (p.status === 'pending' ? { ...p, status: 'skipped', skipReason: 'invariant', detail: `plan refused: ${violation}` } : p));
  }
  return out;
}

function rateLimitReached(kind: Disruption, thisCycle: Record<Disruption, number>, ctx: SessionContext): string | undefined {
  const l = ctx.limits;
  const suspend = kind === 'suspend';
  const perCycle = suspend ? l.maxSuspendsPerCycle : l.maxKillsPerCycle;
  const perMinute = suspend ? l.maxSuspendsPerMinute : l.maxKillsPerMinute;
  const n = thisCycle[kind];
  if (n >= perCycle) return `max${suspend ? 'Suspends' : 'Kills'}PerCycle=${perCycle} reached`;
  const recent = (suspend ? ctx.recentDisruptions?.suspends : ctx.recentDisruptions?.kills) ?? 0;
  if (recent + n >= perMinute) return `max${suspend ? 'Suspends' : 'Kills'}PerMinute=${perMinute} reached (${recent} in the last minute)`;
  return undefined;
}

function toEntry(cycleId: string, p: PlannedDecision, result: NewJournalEntry['result'], extra: { detail?: string; error?: string } = {}): NewJournalEntry {
  const detail = [p.detail, extra.detail].filter((x): x is string => !!x).join('; ') || undefined;
  return {
    cycleId,
    policy: p.decision.policy,
    rule: p.decision.rule,
    action: p.action,
    requestedAction: p.clamped ? (p.decision.action as Action) : undefined,
    reason: p.decision.reason,
    result,
    skipReason: p.skipReason,
    detail,
    error: extra.error ?? p.error,
  };
}

export interface CommitResult {
  readonly entries: NewJournalEntry[];
  /** The RM went away while applying; the rest of the statement was not sent. */
  readonly rmUnavailable?: string;
  /** Ranking in force after the commit, when a rankNodes was applied. */
  readonly ranking?: PublishedRanking;
}

/** A planned set of decisions, to be committed or discarded exactly once. */
export class Statement {
  private done = false;

  constructor(
    readonly ctx: SessionContext,
    readonly policy: string,
    readonly planned: readonly PlannedDecision[],
    readonly output: PolicyOutput<unknown>,
    /** Seconds spent in the policy's decide and in planning (the cycle's phase metrics). */
    readonly timings: { readonly decideS: number; readonly planS: number } = { decideS: 0, planS: 0 },
    /** The state's entries (`stateEntries`) the policy changed: `adoptState` writes them. */
    private readonly entries: CycleEntries = new CycleEntries(new Map(), []),
  ) {}

  /** The keys of the state's entries (`stateEntries`) the policy changed, by field. */
  get changedEntries(): ReadonlyMap<string, ReadonlySet<string>> {
    return this.entries.changed;
  }

  /** The state the policy returned, made whole: the state the engine kept for this cycle is gone after. */
  adoptState(): unknown {
    this.entries.adopt();
    return this.output.state;
  }

  get pending(): PlannedDecision[] {
    return this.planned.filter((p) => p.status === 'pending');
  }

  private once(): void {
    if (this.done) throw new Error(`statement of cycle ${this.ctx.cycleId} already committed or discarded`);
    this.done = true;
  }

  /** Nothing is sent; pending actions are recorded as `dryRun`. */
  discard(): NewJournalEntry[] {
    this.once();
    return this.planned.map((p) => (p.status === 'pending' ? toEntry(this.ctx.cycleId, p, 'dryRun') : toEntry(this.ctx.cycleId, p, p.status)));
  }

  /** Sends pending actions in order. Stops sending if the RM becomes unavailable. */
  async commit(backend: ClusterBackend): Promise<CommitResult> {
    this.once();
    const entries: NewJournalEntry[] = [];
    let rmUnavailable: string | undefined;
    let ranking = this.ctx.lastRanking;
    let rankingChanged = false;
    for (const p of this.planned) {
      if (p.status !== 'pending') {
        entries.push(toEntry(this.ctx.cycleId, p, p.status));
        continue;
      }
      const action = p.action as Action;
      if (rmUnavailable) {
        entries.push(toEntry(this.ctx.cycleId, p, 'failed', { error: `not sent: ResourceManager unavailable (${rmUnavailable})` }));
        continue;
      }
      try {
        const o = await backend.apply(action);
        if (o.status === 'failed') {
          entries.push(toEntry(this.ctx.cycleId, p, 'failed', { error: o.error }));
          continue;
        }
        entries.push(toEntry(this.ctx.cycleId, p, o.status, { detail: o.detail }));
        if (action.kind === 'rankNodes') {
          ranking = mergeRanking(action, ranking, this.ctx.snapshot.nowMs);
          rankingChanged = true;
        }
      } catch (e) {
        const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        if (e instanceof RmUnavailableError) rmUnavailable = e.message;
        entries.push(toEntry(this.ctx.cycleId, p, 'failed', { error: msg }));
      }
    }
    return { entries, rmUnavailable, ranking: rankingChanged ? ranking : undefined };
  }
}

export class PolicyError extends Error {
  constructor(
    readonly policy: string,
    readonly cause: unknown,
  ) {
    super(`policy ${policy} threw: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'PolicyError';
  }
}

/** A session: one snapshot, one policy invocation, one statement. */
export class Session {
  constructor(readonly ctx: SessionContext) {}

  /** Runs the policy (catching what it throws as PolicyError) and plans its decisions. */
  decide(policy: AnyPolicy, params: unknown, state: unknown): Statement {
    let output: PolicyOutput<unknown>;
    let entries: CycleEntries;
    const t0 = performance.now();
    const tracking = this.ctx.tracking ?? new ChangeTracker();
    try {
      // The engine keeps the state it passed until the statement is committed.
      const given = tracking.beginCycle(policy, state);
      try {
        output = policy.decide({ snapshot: this.ctx.snapshot, params, state: given, tracking });
      } finally {
        entries = tracking.endCycle();
      }
      checkOutput(output);
    } catch (e) {
      throw new PolicyError(policy.name, e);
    }
    return this.statement(policy, output, entries, t0);
  }

  /**
   * `decide`, with a policy's steps (`decideInSteps`): its solves run by `solver` off the event
   * loop, and the loop run at its turns. A policy without steps decides as `decide` does. The
   * caller runs one cycle at a time (the change tracking is the engine's, across the turns).
   */
  async decideOffLoop(policy: AnyPolicy, params: unknown, state: unknown, solver: MilpSolver | undefined): Promise<Statement> {
    const steps = policy.decideInSteps;
    if (!steps) return this.decide(policy, params, state);
    let output: PolicyOutput<unknown>;
    let entries: CycleEntries;
    const t0 = performance.now();
    const tracking = this.ctx.tracking ?? new ChangeTracker();
    try {
      const given = tracking.beginCycle(policy, state);
      try {
        output = await runStepsOffThread(steps({ snapshot: this.ctx.snapshot, params, state: given, tracking }), solver ?? NO_SOLVER);
      } finally {
        entries = tracking.endCycle();
      }
      checkOutput(output);
    } catch (e) {
      throw e instanceof PolicyError ? e : new PolicyError(policy.name, e);
    }
    return this.statement(policy, output, entries, t0);
  }

  private statement(policy: AnyPolicy, output: PolicyOutput<unknown>, entries: CycleEntries, t0: number): Statement {
    const t1 = performance.now();
    const refresh = rankingRefresh(this.ctx, output.decisions, policy.name);
    const planned = plan(this.ctx, refresh ? [...output.decisions, refresh] : output.decisions, policy.name);
    const timings = { decideS: (t1 - t0) / 1000, planS: (performance.now() - t1) / 1000 };
    return new Statement(this.ctx, policy.name, planned, output, timings, entries);
  }
}

/** For steps that only take turns: a solve asked of it is the policy's error (it declares no `solves`). */
const NO_SOLVER: MilpSolver = {
  solve: () => Promise.reject(new Error('the policy asked for a solve but does not declare `solves`')),
};

function checkOutput(output: PolicyOutput<unknown>): void {
  if (!output || !Array.isArray(output.decisions)) throw new Error('decide() did not return { decisions, state }');
}
