/**
 * Changes made outside the brain. The engine remembers what it last wrote to each field
 * (queue capacities, node resources, application priorities, suspensions); when a later snapshot
 * shows another value, someone else changed it. By default (`respect`) that field is left alone for
 * a hold-off before the brain writes it again; `pause` holds every write for the hold-off;
 * `override` only reports it. A suspended container found running is only reported: the shims'
 * lease watchdog resumes every suspension when the brain's lease lapses, and the brain's next plan
 * decides afresh whether to suspend it again. Suspended containers on a node that is lost, shut
 * down or unhealthy, gone from the RM, or whose shim stopped listing them are reported per node
 * (`suspendedOnLostNode`): their processes may stay stopped until that node's shim starts again.
 */
import type { Action } from '../core/actions.js';
import { findQueue, type ClusterSnapshot, type SnapshotPart } from '../core/model.js';

export const DRIFT_POLICIES = ['respect', 'override', 'pause'] as const;
export type DriftPolicy = (typeof DRIFT_POLICIES)[number];

export interface DriftOptions {
  readonly policy: DriftPolicy;
  /** How long a drifted field (or, under `pause`, every write) is left alone. */
  readonly holdOffMs: number;
}

export const DEFAULT_DRIFT: DriftOptions = { policy: 'respect', holdOffMs: 10 * 60_000 };

export type DriftKind = 'queueCapacity' | 'queueMaxCapacity' | 'nodeResource' | 'appPriority' | 'suspension' | 'suspendedOnLostNode';

/** Node states in which a NodeManager no longer runs (or no longer looks after) its containers. */
const NODE_LOST_STATES: ReadonlySet<string> = new Set(['LOST', 'SHUTDOWN', 'UNHEALTHY', 'DECOMMISSIONED', 'REBOOTED']);

export interface Drift {
  readonly kind: DriftKind;
  /** What the hold applies to: `queue:<path>`, `node:<id>`, `app:<id>`, `container:<id>`. */
  readonly target: string;
  readonly written: string;
  readonly now: string;
  readonly writtenAtMs: number;
  readonly describe: string;
}

interface Written {
  readonly kind: DriftKind;
  readonly target: string;
  readonly value: string;
  readonly atMs: number;
  /** The node a suspended container is on. */
  readonly nodeId?: string;
  /** What a node was set to, compared as numbers at every snapshot (the text only on a drift). */
  readonly resource?: { readonly memoryMB: number; readonly vcores: number };
}

/** Every write is held when this target is held (`pause`). */
export const ALL_TARGETS = '*';

const pct = (x: number) => String(Math.round(x * 100) / 100);

export class DriftTracker {
  private readonly written = new Map<string, Written>();
  private readonly held = new Map<string, { untilMs: number; reason: string }>();
  /** Suspensions whose last view carried the shim's figures (so the shim listed them). */
  private readonly listedByShim = new Set<string>();
  /** Nodes of the previous snapshot: a node that leaves the RM's list after it was seen is gone. */
  private previousNodeIds: { has(id: string): boolean } = new Set();

  constructor(readonly options: DriftOptions = DEFAULT_DRIFT) {}

  /** Remembers what an applied action set. */
  recordApplied(a: Action, atMs: number): void {
    const put = (field: string, w: Written) => this.written.set(field, w);
    if (a.kind === 'updateQueues') {
      for (const q of a.add) {
        put(`queue:${q.path}:capacity`, { kind: 'queueCapacity', target: `queue:${q.path}`, value: pct(q.capacityPct), atMs });
        put(`queue:${q.path}:max`, { kind: 'queueMaxCapacity', target: `queue:${q.path}`, value: pct(q.maxCapacityPct), atMs });
      }
      for (const u of a.update) {
        if (u.capacityPct !== undefined) put(`queue:${u.path}:capacity`, { kind: 'queueCapacity', target: `queue:${u.path}`, value: pct(u.capacityPct), atMs });
        if (u.maxCapacityPct !== undefined)
          put(`queue:${u.path}:max`, { kind: 'queueMaxCapacity', target: `queue:${u.path}`, value: pct(u.maxCapacityPct), atMs });
      }
    } else if (a.kind === 'setNodeResource') {
      const resource = { memoryMB: a.resource.memoryMB, vcores: a.resource.vcores };
      put(`node:${a.nodeId}`, {
        kind: 'nodeResource',
        target: `node:${a.nodeId}`,
        value: `${a.resource.memoryMB} MB / ${a.resource.vcores} vcores`,
        atMs,
        resource,
      });
    } else if (a.kind === 'setAppPriority') {
      put(`app:${a.appId}`, { kind: 'appPriority', target: `app:${a.appId}`, value: String(a.priority), atMs });
    } else if (a.kind === 'suspendContainer') {
      put(`container:${a.containerId}`, { kind: 'suspension', target: `container:${a.containerId}`, value: 'SUSPENDED', atMs, nodeId: a.nodeId });
    } else if (a.kind === 'resumeContainer' || a.kind === 'killContainer') {
      this.written.delete(`container:${a.containerId}`);
      this.listedByShim.delete(`container:${a.containerId}`);
    }
  }

  /**
   * The snapshot parts the remembered fields are read from (queues are always read): a policy that
   * reads only queues still has the nodes, apps or containers another one wrote looked at.
   */
  watchedParts(): SnapshotPart[] {
    const parts = new Set<SnapshotPart>();
    for (const w of this.written.values()) {
      if (w.kind === 'nodeResource') parts.add('nodes');
      else if (w.kind === 'appPriority') parts.add('apps');
      else if (w.kind === 'suspension') parts.add('containers');
    }
    return [...parts];
  }

  /** The value a snapshot shows for a remembered field; undefined when the object is gone. */
  private current(field: string, w: Written, s: ClusterSnapshot): string | undefined {
    const id = w.target.slice(w.target.indexOf(':') + 1);
    switch (w.kind) {
      case 'queueCapacity':
      case 'queueMaxCapacity': {
        const q = findQueue(s.rootQueue, id);
        if (!q) return undefined;
        return pct(field.endsWith(':max') ? q.maxCapacityPct : q.capacityPct);
      }
      case 'nodeResource': {
        const n = s.nodes.get(id);
        if (n === undefined) return undefined;
        if (w.resource !== undefined && n.capacity.memoryMB === w.resource.memoryMB && n.capacity.vcores === w.resource.vcores) return w.value;
        return `${n.capacity.memoryMB} MB / ${n.capacity.vcores} vcores`;
      }
      case 'appPriority': {
        const a = s.apps.get(id);
        return a && String(a.priority);
      }
      case 'suspension':
        return s.containers.get(id)?.state;
      case 'suspendedOnLostNode':
        return undefined;
    }
  }

  /**
   * Why a suspension can no longer be undone through its node, if so: the node's state, `gone`
   * (it left the RM's list), or `shim silent` (the container shows running without the shim's
   * figures, after the shim had listed it suspended: the shim no longer answers, or restarted).
   */
  private suspensionLost(field: string, w: Written, s: ClusterSnapshot): string | undefined {
    if (w.nodeId === undefined) return undefined;
    const node = s.nodes.get(w.nodeId);
    if (node && NODE_LOST_STATES.has(node.state)) return node.state;
    if (!node) return this.previousNodeIds.has(w.nodeId) ? 'gone' : undefined;
    const c = s.containers.get(field.slice('container:'.length));
    if (c?.state === 'SUSPENDED' && c.attainedServiceMs !== undefined) this.listedByShim.add(field);
    if (c?.state === 'RUNNING' && c.attainedServiceMs === undefined && this.listedByShim.has(field)) return 'shim silent';
    return undefined;
  }

  /**
   * Compares a snapshot with what the brain wrote. Each difference is a drift: reported once,
   * the new value taken as the field's, and a hold set as the policy says.
   */
  detect(s: ClusterSnapshot, nowMs: number): Drift[] {
    const out: Drift[] = [];
    const lostByNode = new Map<string, { states: Set<string>; containerIds: string[]; writtenAtMs: number }>();
    for (const [field, w] of this.written) {
      const lostAs = w.kind === 'suspension' ? this.suspensionLost(field, w, s) : undefined;
      if (lostAs !== undefined) {
        this.written.delete(field);
        this.listedByShim.delete(field);
        const at = lostByNode.get(w.nodeId!) ?? { states: new Set<string>(), containerIds: [], writtenAtMs: w.atMs };
        at.states.add(lostAs);
        at.containerIds.push(w.target.slice('container:'.length));
        at.writtenAtMs = Math.min(at.writtenAtMs, w.atMs);
        lostByNode.set(w.nodeId!, at);
        continue;
      }
      const now = this.current(field, w, s);
      if (now === undefined) {
        this.written.delete(field);
        this.listedByShim.delete(field);
        continue;
      }
      if (now === w.value) continue;
      this.written.delete(field);
      this.listedByShim.delete(field);
      if (w.kind === 'suspension') {
        const describe =
          `container ${w.target.slice(10)} was resumed outside the brain: it suspended it, the cluster now says ${now} ` +
          `(the shims' lease watchdog resumes every suspension when the brain's lease lapses; an operator may have too); the next plan decides afresh`;
        out.push({ kind: w.kind, target: w.target, written: w.value, now, writtenAtMs: w.atMs, describe });
        continue;
      }
      const what =
        w.kind === 'nodeResource'
          ? `node ${w.target.slice(5)} resources`
          : w.kind === 'appPriority'
            ? `${w.target.slice(4)} priority`
            : `${w.target.slice(6)} ${w.kind === 'queueCapacity' ? 'capacity' : 'max capacity'}`;
      const unit = w.kind === 'queueCapacity' || w.kind === 'queueMaxCapacity' ? '%' : '';
      const describe = `${what} changed outside the brain: it wrote ${w.value}${unit}, the cluster now says ${now}${unit}`;
      out.push({ kind: w.kind, target: w.target, written: w.value, now, writtenAtMs: w.atMs, describe });
      const untilMs = nowMs + this.options.holdOffMs;
      if (this.options.policy === 'respect') this.held.set(w.target, { untilMs, reason: describe });
      if (this.options.policy === 'pause') this.held.set(ALL_TARGETS, { untilMs, reason: describe });
    }
    // A snapshot's maps are never changed once served: the map itself stands for its ids.
    this.previousNodeIds = s.nodes;
    for (const [nodeId, lost] of lostByNode) out.push(lostNodeDrift(nodeId, [...lost.states].join(', '), lost.containerIds, lost.writtenAtMs));
    return out;
  }

  /** Targets left alone now, with why; `*` holds every write. */
  holds(nowMs: number): ReadonlyMap<string, string> {
    const out = new Map<string, string>();
    for (const [target, h] of this.held) {
      if (h.untilMs <= nowMs) this.held.delete(target);
      else out.set(target, `${h.reason}; left alone until ${new Date(h.untilMs).toISOString()} (driftPolicy ${this.options.policy})`);
    }
    return out;
  }

  /**
   * An operator's decision (a new policy) ends every hold, and what the brain wrote before is no
   * longer its to defend (the hand-over back to the stock scheduler rewrites some of it).
   */
  reset(): void {
    this.held.clear();
    this.written.clear();
    this.listedByShim.clear();
  }
}

/** One node's suspended containers the brain can no longer resume through it; reported, never held. */
function lostNodeDrift(nodeId: string, now: string, containerIds: readonly string[], writtenAtMs: number): Drift {
  const what =
    now === 'shim silent'
      ? "its shim no longer lists them (a shim that still runs resumes them when the brain's lease lapses there)"
      : now === 'gone'
        ? 'it is gone from the ResourceManager'
        : `it is ${now}`;
  const describe =
    `${containerIds.length} container(s) the brain suspended on node ${nodeId} (${containerIds.join(', ')}) are out of its reach: ${what}; ` +
    `if that NodeManager died, their processes stay stopped until its shim starts again and continues them (docs/operator-guide.md)`;
  return { kind: 'suspendedOnLostNode', target: `node:${nodeId}`, written: `SUSPENDED: ${containerIds.join(', ')}`, now, writtenAtMs, describe };
}

/** The hold that keeps an action from being sent, if any. */
export function heldBy(a: Action, holds: ReadonlyMap<string, string>): string | undefined {
  if (holds.size === 0) return undefined;
  // Resuming a container is always let through: holding it would leave work stopped.
  const all = holds.get(ALL_TARGETS);
  if (all && a.kind !== 'resumeContainer') return all;
  if (a.kind === 'updateQueues') {
    for (const q of [...a.add, ...a.update]) {
      const h = holds.get(`queue:${q.path}`);
      if (h) return h;
    }
    return undefined;
  }
  if (a.kind === 'setNodeResource') return holds.get(`node:${a.nodeId}`);
  if (a.kind === 'setAppPriority') return holds.get(`app:${a.appId}`);
  return undefined;
}
