/**
 * Big-C (Chen, Rao, Zhou, USENIX ATC'17), the preemptive baseline of the Kairos paper (§5.1):
 * jobs fall in two classes by a runtime estimate; short jobs have priority and a guaranteed share
 * of the cluster (95 % by default), long jobs use the rest and anything idle; when short tasks
 * need room, running long tasks are suspended (Big-C pauses their Docker container) and resumed
 * once cores free up.
 *
 * Mechanism here:
 * - `class.priority`: `setAppPriority` so the RM places short jobs' containers first;
 * - `preempt.suspend`: short demand that finds no free core, while short jobs hold less than their
 *   share and long jobs more than theirs, suspends the newest long containers;
 * - `node.capacity`: a node advertises its physical capacity plus what its suspended containers
 *   hold (they keep their allocation in YARN), so the RM can place short tasks in their stead;
 * - `node.cores`: at most N cores' worth of containers run on a node; excess long ones wait;
 * - `preempt.resume`: a suspended long task resumes, oldest first, when its node has a free core
 *   that no short task is waiting for.
 */
import { z } from 'zod';
import type { Decision } from '../../core/actions.js';
import { isActiveApp, type AppView, type ContainerId, type ContainerView, type NodeView } from '../../core/model.js';
import { definePolicy } from '../../core/policy.js';
import { add, equals, type Resources } from '../../core/resources.js';

const POLICY = 'bigc';

export const bigcParamsSchema = z
  .object({
    /** Share of the cluster's cores guaranteed to short jobs (Big-C default 95 %). */
    shortSharePct: z.number().min(0).max(100).default(95),
    /**
     * A job is short when its runtime estimate (the `estimateTag` application tag, ms; the
     * workloads put the job's mean task duration there) is below this cutoff. Default: the
     * Eagle/Kairos cutoff of the Yahoo trace, 90.5811 s.
     */
    shortCutoffMs: z.number().nonnegative().default(90_581.1),
    estimateTag: z.string().min(1).default('schedbrain.estimate-ms'),
    /** Class of jobs without a usable estimate. */
    unknownClass: z.enum(['short', 'long']).default('long'),
    shortPriority: z.number().int().default(10),
    longPriority: z.number().int().default(0),
    /** Cores N per node; unset: the node's physical vcores. */
    coresPerNode: z.number().int().positive().optional(),
  })
  .strict();

export type BigcParams = z.infer<typeof bigcParamsSchema>;

export interface BigcState {
  /** When each container we suspended was suspended (resume order: oldest first). */
  suspendedAtMs: Record<ContainerId, number>;
  /** Last scan of every container for suspended ones (undefined before the first cycle). */
  lastScanMs?: number;
}

/** How often every container is scanned for suspended ones (others come from the state). */
const SCAN_INTERVAL_MS = 60_000;

export type JobClass = 'short' | 'long';

export function classify(app: AppView, params: BigcParams): { cls: JobClass; estimateMs?: number } {
  const raw = app.tags[params.estimateTag];
  const estimateMs = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  if (!Number.isFinite(estimateMs)) return { cls: params.unknownClass };
  return { cls: estimateMs < params.shortCutoffMs ? 'short' : 'long', estimateMs };
}

const sec = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
const vc = (r: Resources): number => Math.max(1, r.vcores);

export const bigcPolicy = definePolicy<BigcParams, BigcState>({
  name: POLICY,
  description:
    'Big-C: short/long job classes by runtime estimate, short jobs first with a 95 % guaranteed share, ' +
    'long containers suspended when short tasks need room and resumed when cores free up.',
  paramsSchema: bigcParamsSchema,
  initialState: () => ({ suspendedAtMs: {} }),
  decide({ snapshot, params, state }) {
    const now = snapshot.nowMs;
    const decisions: Decision[] = [];
    const clsOf = new Map<string, JobClass>();

    // Classes and priorities.
    for (const app of snapshot.apps.values()) {
      const { cls, estimateMs } = classify(app, params);
      clsOf.set(app.id, cls);
      if (!isActiveApp(app)) continue;
      const want = cls === 'short' ? params.shortPriority : params.longPriority;
      if (app.priority !== want) {
        decisions.push({
          action: { kind: 'setAppPriority', appId: app.id, priority: want },
          policy: POLICY,
          rule: 'class.priority',
          reason:
            estimateMs === undefined
              ? `${app.id} has no ${params.estimateTag} tag: ${cls} job, priority ${want}`
              : `${app.id} estimate ${sec(estimateMs)} ${cls === 'short' ? '<' : '>='} cutoff ${sec(params.shortCutoffMs)}: ${cls} job, priority ${want}`,
        });
      }
    }
    const isLong = (c: ContainerView): boolean => (clsOf.get(c.appId) ?? params.unknownClass) === 'long';
    // An ApplicationMaster (live YARN) is never suspended: its job would stop heartbeating.
    const suspendable = (c: ContainerView): boolean => isLong(c) && !c.appMaster;

    // Cores held by each class: allocations of the apps (suspended containers stay allocated).
    let shortPending = 0;
    let shortCores = 0;
    let longCores = 0;
    for (const app of snapshot.apps.values()) {
      if (!isActiveApp(app)) continue;
      if (clsOf.get(app.id) === 'short') {
        shortCores += app.allocated.vcores;
        if (app.pendingContainers > 0) shortPending += app.pendingContainers * vc(app.pendingContainerResource ?? { memoryMB: 0, vcores: 1 });
      } else longCores += app.allocated.vcores;
    }

    // Suspended containers: the ones we suspended (cheap), or every container on a periodic scan
    // (also picks up containers suspended by someone else).
    const scan = snapshot.changedNodeIds === undefined || state.lastScanMs === undefined || now - state.lastScanMs >= SCAN_INTERVAL_MS;
    const suspendedAtMs: Record<ContainerId, number> = {};
    const suspByNode = new Map<string, ContainerView[]>();
    const noteSuspended = (c: ContainerView): void => {
      suspendedAtMs[c.id] = state.suspendedAtMs[c.id] ?? now;
      const l = suspByNode.get(c.nodeId);
      if (l) l.push(c);
      else suspByNode.set(c.nodeId, [c]);
      if (isLong(c)) longCores -= vc(c.resource);
      else shortCores -= vc(c.resource);
    };
    if (scan) {
      for (const c of snapshot.containers.values()) if (c.state === 'SUSPENDED') noteSuspended(c);
    } else {
      for (const id of Object.keys(state.suspendedAtMs)) {
        const c = snapshot.containers.get(id);
        if (c && c.state === 'SUSPENDED') noteSuspended(c);
      }
    }

    // Per-node view: running cores from the node's allocation minus its suspended containers;
    // the containers themselves are looked up only for the nodes a rule needs.
    interface NodeWork {
      node: NodeView;
      cores: number;
      runCores: number;
      suspended: ContainerView[];
      running?: ContainerView[];
    }
    const nodes: NodeWork[] = [];
    let totalCores = 0;
    for (const node of snapshot.nodes.values()) {
      if (node.state !== 'RUNNING') continue;
      const cores = params.coresPerNode ?? Math.max(1, node.physicalCapacity.vcores);
      const suspended = suspByNode.get(node.id) ?? [];
      let runCores = node.used.vcores;
      for (const c of suspended) runCores -= vc(c.resource);
      totalCores += cores;
      nodes.push({ node, cores, runCores, suspended });
    }
    const running = (w: NodeWork): ContainerView[] => {
      if (!w.running) {
        w.running = [];
        for (const id of w.node.containerIds) {
          const c = snapshot.containers.get(id);
          if (c && c.state === 'RUNNING') w.running.push(c);
        }
      }
      return w.running;
    };

    const suspend = (w: NodeWork, c: ContainerView, rule: string, reason: string): void => {
      if (w.running) w.running = w.running.filter((x) => x.id !== c.id);
      w.runCores -= vc(c.resource);
      w.suspended.push(c);
      suspendedAtMs[c.id] = now;
      longCores -= vc(c.resource);
      decisions.push({ action: { kind: 'suspendContainer', containerId: c.id, nodeId: w.node.id }, policy: POLICY, rule, reason });
    };
    const newestFirst = (a: ContainerView, b: ContainerView): number => b.startedAtMs - a.startedAtMs || (a.id < b.id ? 1 : -1);

    // A node never runs more than its cores: excess long containers wait (newest first).
    for (const w of nodes) {
      if (w.runCores <= w.cores) continue;
      const excessLong = running(w).filter(suspendable).sort(newestFirst);
      while (w.runCores > w.cores && excessLong.length > 0) {
        const c = excessLong.shift() as ContainerView;
        const before = w.runCores;
        suspend(w, c, 'node.cores', `${before} cores' worth of containers running on ${w.node.id} > N=${w.cores}: long ${c.id} waits`);
      }
    }

    // Short demand that finds no free core suspends long containers, within the shares.
    const freeCores = nodes.reduce((s, w) => s + Math.max(0, w.cores - w.runCores), 0);
    const shortGuarantee = (params.shortSharePct / 100) * totalCores;
    const longGuarantee = totalCores - shortGuarantee;
    const need = shortPending - freeCores;
    // Fractional shares round in favour of the short class (a victim may take long below its share by < 1 container).
    let budget = Math.min(need, shortGuarantee - shortCores, longCores - longGuarantee);
    if (budget > 0) {
      // The newest long containers, enough to cover the budget (top-k, not a full sort).
      const k = Math.ceil(budget);
      const victims: { w: NodeWork; c: ContainerView }[] = [];
      for (const w of nodes) {
        if (w.runCores <= 0) continue;
        for (const c of running(w)) {
          if (!suspendable(c)) continue;
          if (victims.length === k && newestFirst(c, victims[k - 1].c) >= 0) continue;
          let i = victims.length < k ? victims.length : k - 1;
          if (victims.length < k) victims.push({ w, c });
          while (i > 0 && newestFirst(c, victims[i - 1].c) < 0) {
            victims[i] = victims[i - 1];
            i--;
          }
          victims[i] = { w, c };
        }
      }
      const why =
        `short jobs wait for ${shortPending} cores (${freeCores} free); short hold ${shortCores}/${Math.floor(shortGuarantee)} guaranteed cores ` +
        `(${params.shortSharePct} %), long hold ${longCores} > ${Math.ceil(longGuarantee)}`;
      for (const { w, c } of victims) {
        if (budget <= 0) break;
        budget -= vc(c.resource);
        suspend(w, c, 'preempt.suspend', `${why}: suspend long ${c.id} (newest)`);
      }
    }

    // Resume suspended long containers, oldest first, into free cores that short tasks will not
    // take: a free core is also free advertised capacity (a node advertises its suspended
    // containers' share), so the RM hands it to a waiting short task first.
    const freeAfter = nodes.reduce((s, w) => s + Math.max(0, w.cores - w.runCores), 0);
    let surplus = freeAfter - shortPending;
    const justSuspended = new Set(decisions.flatMap((d) => (d.action.kind === 'suspendContainer' ? [d.action.containerId] : [])));
    const candidates: { w: NodeWork; c: ContainerView }[] = [];
    if (surplus > 0) for (const w of nodes) for (const c of w.suspended) if (!justSuspended.has(c.id) && isLong(c)) candidates.push({ w, c });
    candidates.sort((a, b) => suspendedAtMs[a.c.id] - suspendedAtMs[b.c.id] || (a.c.id < b.c.id ? -1 : 1));
    for (const { w, c } of candidates) {
      if (surplus <= 0) break;
      const need = vc(c.resource);
      if (w.cores - w.runCores < need || surplus < need) continue;
      const free = w.cores - w.runCores;
      w.runCores += need;
      surplus -= need;
      if (w.running) w.running.push(c);
      w.suspended = w.suspended.filter((x) => x.id !== c.id);
      const waited = now - suspendedAtMs[c.id];
      delete suspendedAtMs[c.id];
      decisions.push({
        action: { kind: 'resumeContainer', containerId: c.id, nodeId: w.node.id },
        policy: POLICY,
        rule: 'preempt.resume',
        reason: `${free} core(s) free on ${w.node.id}, ${freeAfter} in the cluster for ${shortPending} waiting short task core(s): resume long ${c.id} (suspended ${sec(waited)})`,
      });
    }

    // Advertise physical capacity plus what suspended containers hold.
    for (const w of nodes) {
      let want: Resources = w.node.physicalCapacity;
      for (const c of w.suspended) want = add(want, c.resource);
      if (!equals(w.node.capacity, want)) {
        decisions.push({
          action: { kind: 'setNodeResource', nodeId: w.node.id, resource: want },
          policy: POLICY,
          rule: 'node.capacity',
          reason: `${w.node.id}: physical ${w.node.physicalCapacity.vcores} vcores + ${w.suspended.length} suspended container(s) = advertise ${want.vcores} vcores / ${want.memoryMB} MB`,
        });
      }
    }

    return { decisions, state: { suspendedAtMs, lastScanMs: scan ? now : state.lastScanMs } };
  },
});

export default bigcPolicy;
