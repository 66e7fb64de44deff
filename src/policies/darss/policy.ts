/**
 * DARSS — Deadline-Aware Reservation-based Scheduling (thesis ch. 3) — as a policy over
 * CapacityScheduler: a production leaf (or parent of per-group leaves) and a best-effort one.
 *
 * Each cycle:
 * 1. requests submitted by now (`params.requests`, RSL) are judged (`admission.ts`) and accepted
 *    ones booked in the ledger; the decision and its numbers go to the state and the notes;
 * 2. production applications bind to requests by tags `schedbrain.darss.request` and
 *    `schedbrain.darss.job`; a finished job gives back what it still had booked; an application
 *    of a rejected request is killed (or left without production capacity);
 * 3. the production queue gets the units running production holds plus those of pending
 *    production tasks at (or `holdLeadMs` before) their latest start, and at least what the
 *    ledger reserves now; best-effort gets the rest and every leaf may grow to 100 %, so the
 *    cluster stays work-conserving while production waits toward its latest start;
 * 4. production applications get priorities in time-to-deadline order (least first).
 *
 * State is plain JSON. `admitWorkflow` is the same pure function an admin API calls.
 */
import { z } from 'zod';
import { decisionWithLazyReason, type Decision } from '../../core/actions.js';
import { isActiveApp, findQueue, type AppView, type ClusterSnapshot, type QueueView } from '../../core/model.js';
import { definePolicy } from '../../core/policy.js';
import { checkWorkflow, JOB_TAG, REQUEST_TAG, resourceUnitSchema, unitsIn, workflowRequestSchema, type WorkflowRequest } from '../../core/rsl.js';
import { admitWorkflow, productionCap, releaseBooking, type AdmissionDecision, type AdmissionParams, type Ledger } from './admission.js';
import { dropBefore, maxOn, valueAt } from './ledger.js';
import { timeToDeadline, TtdQueue } from './ttd.js';

export { REQUEST_TAG, JOB_TAG };
export const POLICY_NAME = 'darss';

const groupShareSchema = z
  .object({
    maxPct: z.number().min(0).max(100).optional(),
    averagePct: z.number().min(0).max(100).optional(),
    averageWindowMs: z.number().int().positive().optional(),
  })
  .strict();

export const darssRequestSchema = workflowRequestSchema.and(z.object({ id: z.string().min(1) }));

export const darssParamsSchema = z
  .object({
    /** Leaf (or parent of per-group leaves named by group) for production applications. */
    productionQueue: z.string().min(1).default('root.production'),
    /** Its sibling for best-effort applications. */
    bestEffortQueue: z.string().min(1).default('root.besteffort'),
    /** One resource unit (thesis: 1 core and 1 GB). */
    unit: resourceUnitSchema.default({}),
    /** Best-effort quota: m of every n units in every period of periodMs (Fig. 3.8 example). */
    quota: z.object({ m: z.number().nonnegative().default(7), n: z.number().positive().default(70), periodMs: z.number().int().positive().default(600_000) }).strict().default({}),
    /** Most of the units production may hold reserved at once, percent (thesis §4.2.2: 75). */
    productionCapPct: z.number().min(0).max(100).default(75),
    /** `critical-path` (ours, stricter) or `count-only` (the thesis's test). */
    admission: z.enum(['critical-path', 'count-only']).default('critical-path'),
    /** User-group shares; `*` for groups not listed (thesis §3.2.4). */
    groupShares: z.record(z.string(), groupShareSchema).default({}),
    /** Workflow requests with ids, in submission order; each is judged once now ≥ submittedAtMs. */
    requests: z.array(darssRequestSchema).default([]),
    /** A production task counts as due this long before its latest (or booked) start, ms. */
    holdLeadMs: z.number().int().nonnegative().default(0),
    /**
     * When production tasks at their latest start find fewer free units than they need, take the
     * difference from the best-effort containers started last (the task runs again later). Beyond
     * the thesis, which has no preemption: without it a best-effort task of hours holds its unit
     * past a production task's latest start. CapacityScheduler does the same with preemption on.
     */
    preemptAtLatestStart: z.boolean().default(true),
    /** What happens to an application of a rejected or unknown request: killed, or run as best-effort. */
    rejectedApps: z.enum(['kill', 'best-effort']).default('kill'),
    /** Capacities are multiples of 10^-decimals percent. */
    capacityDecimals: z.number().int().min(0).max(3).default(2),
  })
  .strict();
export type DarssParams = z.infer<typeof darssParamsSchema>;
export type DarssRequest = z.infer<typeof darssRequestSchema>;

export interface AdmittedJob {
  readonly tasks: number;
  readonly unitsPerTask: number;
  readonly leaseMs: number;
  /** Latest start from the ttd backward pass. */
  readonly latestStartMs: number;
  /** Earliest booked instant of the job in the ledger (its planned start). */
  readonly bookedStartMs: number;
  /** The job's application finished and its booking from then on was given back. */
  done?: boolean;
}

export interface AdmittedRequest {
  readonly group: string;
  readonly deadlineMs: number;
  readonly jobs: Record<string, AdmittedJob>;
}

export interface DarssState {
  ledger: Ledger;
  /** Index of the next request in `params.requests` to look at. */
  nextRequest: number;
  /** Every decision taken, by request id. */
  judged: Record<string, AdmissionDecision>;
  admitted: Record<string, AdmittedRequest>;
}

export function admissionParams(p: DarssParams): AdmissionParams {
  return { quota: p.quota, productionCapPct: p.productionCapPct, admission: p.admission, groupShares: p.groupShares };
}

/** Units of the cluster and of its largest node, counted in whole units per node. */
export function clusterUnits(s: ClusterSnapshot, unit: DarssParams['unit']): { total: number; largest: number } {
  let total = 0;
  let largest = 0;
  for (const n of s.nodes.values()) {
    if (n.state !== 'RUNNING') continue;
    const u = unitsIn(n.capacity, unit);
    total += u;
    if (u > largest) largest = u;
  }
  return { total, largest };
}

/** Judges one request against the state's ledger; books it when accepted (state updated in place). */
export function judgeRequest(state: DarssState, req: DarssRequest, now: number, largestNodeUnits: number, p: DarssParams): AdmissionDecision {
  const w = req as WorkflowRequest;
  try {
    checkWorkflow(w, { nowMs: now, largestNodeUnits });
  } catch (e) {
    const d: AdmissionDecision = {
      requestId: req.id,
      group: w.group,
      accepted: false,
      rule: 'invalidRequest',
      test: p.admission,
      nowMs: now,
      neededUnitMs: 0,
      freeUnitMs: 0,
      windowFromMs: now,
      windowToMs: w.deadlineMs ?? now,
      criticalPathMs: 0,
      timeLeftMs: (w.deadlineMs ?? now) - now,
      reason: `rejected: invalid request: ${(e as Error).message}`,
    };
    return d;
  }
  const { decision, ledger } = admitWorkflow(state.ledger, w, req.id, now, admissionParams(p));
  if (decision.accepted && w.deadlineMs !== undefined && ledger) {
    state.ledger = ledger;
    const ttd = timeToDeadline(w);
    const jobs: Record<string, AdmittedJob> = {};
    for (const j of w.jobs) {
      const pieces = ledger.bookings[req.id]?.[j.name] ?? ledger.bookings[req.id]?.['(workflow)'] ?? [];
      let booked = Infinity;
      for (const pc of pieces) booked = Math.min(booked, pc[0]);
      jobs[j.name] = { tasks: j.tasks, unitsPerTask: j.unitsPerTask, leaseMs: j.leaseMs, latestStartMs: ttd.get(j.name)!.latestStartMs, bookedStartMs: Number.isFinite(booked) ? booked : ttd.get(j.name)!.latestStartMs };
    }
    state.admitted[req.id] = { group: w.group, deadlineMs: w.deadlineMs, jobs };
  }
  return decision;
}

/** When a production job counts as due: its latest or booked start, less the lead. */
export function holdUntil(job: AdmittedJob, holdLeadMs: number): number {
  return Math.min(job.latestStartMs, job.bookedStartMs) - holdLeadMs;
}

interface ProductionApp {
  readonly app: AppView;
  readonly request: AdmittedRequest;
  readonly job: AdmittedJob;
}

/** Production capacity now: running production, plus due pending tasks, at least the ledger's reservation. */
export function productionQueueCapacity(running: number, duePending: number, reservedNow: number, capacityUnits: number): number {
  return Math.min(capacityUnits, Math.max(running + duePending, reservedNow));
}

/** Percentages for `units` that sum to exactly 100 at `decimals` (largest remainder). */
function splitPct(weights: readonly number[], decimals: number): number[] {
  const scale = 10 ** decimals;
  const total = weights.reduce((a, b) => a + b, 0);
  const w = total > 0 ? weights : weights.map(() => 1);
  const t = total > 0 ? total : w.length;
  const raw = w.map((x) => (x / t) * 100 * scale);
  const floor = raw.map(Math.floor);
  let left = 100 * scale - floor.reduce((a, b) => a + b, 0);
  const order = raw.map((r, i) => [r - Math.floor(r), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    floor[i]++;
    left--;
  }
  return floor.map((x) => x / scale);
}

function childrenOf(root: QueueView, path: string): readonly QueueView[] {
  return findQueue(root, path)?.children ?? [];
}

/** Free units of the cluster, node by node (a task holds its units on one node). */
function freeUnits(s: ClusterSnapshot, unit: DarssParams['unit']): number {
  let free = 0;
  for (const n of s.nodes.values()) {
    if (n.state !== 'RUNNING') continue;
    free += unitsIn({ vcores: n.capacity.vcores - n.used.vcores, memoryMB: n.capacity.memoryMB - n.used.memoryMB }, unit);
  }
  return free;
}

/**
 * Kills the best-effort containers started last until production tasks at their latest start
 * would find units (see `preemptAtLatestStart`).
 */
export function preemptAtLatestStart(s: ClusterSnapshot, p: DarssParams, latePendingUnits: number): Decision[] {
  const shortfall = latePendingUnits - freeUnits(s, p.unit);
  if (shortfall <= 0) return [];
  const be = p.bestEffortQueue;
  const victims: { id: string; nodeId: string; startedAtMs: number; units: number }[] = [];
  for (const c of s.containers.values()) {
    if (c.appMaster) continue;
    const app = s.apps.get(c.appId);
    if (!app || !(app.queue === be || app.queue.startsWith(`${be}.`))) continue;
    victims.push({ id: c.id, nodeId: c.nodeId, startedAtMs: c.startedAtMs, units: Math.max(1, unitsIn(c.resource, p.unit)) });
  }
  victims.sort((a, b) => b.startedAtMs - a.startedAtMs || (a.id < b.id ? -1 : 1));
  const out: Decision[] = [];
  let freed = 0;
  for (const v of victims) {
    if (freed >= shortfall) break;
    freed += v.units;
    out.push(
      decisionWithLazyReason({ kind: 'killContainer', containerId: v.id, nodeId: v.nodeId }, POLICY_NAME, 'preemptAtLatestStart', () => `production tasks at their latest start need ${latePendingUnits} units, ${shortfall} more than are free: best-effort container started at ${v.startedAtMs} ms gives ${v.units}`),
    );
  }
  return out;
}

export const darssPolicy = definePolicy<DarssParams, DarssState>({
  name: POLICY_NAME,
  description:
    'DARSS: production workflows admitted against a reservation ledger (best-effort quota, production cap, group shares), held toward their latest start while best-effort work runs, prioritised in time-to-deadline order.',
  paramsSchema: darssParamsSchema,
  updatesStateInPlace: true,
  initialState: () => ({ ledger: { capacityUnits: 0, production: { times: [], units: [] }, byGroup: {}, bookings: {} }, nextRequest: 0, judged: {}, admitted: {} }),
  decide({ snapshot, params, state: prev }) {
    const now = snapshot.nowMs;
    const notes: string[] = [];
    const decisions: Decision[] = [];
    // Updated in place (`updatesStateInPlace`): the engine hands a copy, the simulator its own.
    const state = prev;
    const ownLedger = (): Ledger => state.ledger;

    // --- capacity -------------------------------------------------------------------------------
    const { total: C, largest } = clusterUnits(snapshot, params.unit);
    if (C !== state.ledger.capacityUnits) {
      const l = ownLedger();
      const before = l.capacityUnits;
      l.capacityUnits = C;
      const limit = productionCap(C, admissionParams(params));
      const over = Object.keys(l.bookings).filter((id) => {
        for (const ps of Object.values(l.bookings[id])) for (const [a, b] of ps) if (b > now && maxOn(l.production, Math.max(a, now), b) > limit + 1e-9) return true;
        return false;
      });
      notes.push(`capacity ${before} → ${C} units${over.length ? `; no longer fit under the production limit of ${limit.toFixed(1)} units: ${over.join(', ')}` : ''}`);
    }
    if (state.ledger.production.times.length > 0 && state.ledger.production.times[0] < now) dropBefore(ownLedger().production, now);

    // --- admission ------------------------------------------------------------------------------
    let next = state.nextRequest;
    const reqs = params.requests;
    while (next < reqs.length && (reqs[next].submittedAtMs ?? 0) <= now) {
      const r = reqs[next++];
      if (state.judged[r.id]) continue;
      ownLedger();
      const d = judgeRequest(state, r, now, largest, params);
      state.judged[r.id] = d;
      notes.push(`${d.rule}: ${r.id} ${d.reason}`);
    }
    state.nextRequest = next;
    // Asked again at the next submission, and when a waiting production job becomes due or late.
    let wakeAtMs = next < reqs.length ? (reqs[next].submittedAtMs ?? now) : Infinity;

    // --- applications ---------------------------------------------------------------------------
    const production: ProductionApp[] = [];
    let running = 0;
    let duePending = 0;
    let latePending = 0;
    const dueByGroup = new Map<string, number>();
    for (const app of snapshot.apps.values()) {
      const rid = app.tags[REQUEST_TAG];
      if (rid === undefined) continue;
      const request = state.admitted[rid];
      const jobName = app.tags[JOB_TAG];
      const job = request && jobName !== undefined ? request.jobs[jobName] : undefined;
      if (!request || !job) {
        // Best-effort requests are accepted without a booking: their applications run as they are.
        if (isActiveApp(app) && params.rejectedApps === 'kill' && !state.judged[rid]?.accepted) {
          const why = state.judged[rid]?.reason ?? `request ${rid} is unknown`;
          decisions.push(decisionWithLazyReason({ kind: 'killApp', appId: app.id }, POLICY_NAME, 'rejectUnadmittedProduction', () => `${app.id} belongs to request ${rid}, not admitted (${why})`));
        }
        continue;
      }
      if (!isActiveApp(app)) {
        if (app.state === 'FINISHED' && !job.done) {
          const released = releaseBooking(ownLedger(), rid, request.group, now, jobName);
          job.done = true;
          if (released > 0) notes.push(`releaseFinishedJob: ${rid}/${jobName} done at ${now} ms, ${(released / 1000).toFixed(1)} unit·s given back`);
        }
        continue;
      }
      production.push({ app, request, job });
      running += app.runningContainers * job.unitsPerTask;
      const g = request.group;
      let due = 0;
      if (now >= holdUntil(job, params.holdLeadMs)) {
        due = app.pendingContainers * job.unitsPerTask;
        duePending += due;
      }
      if (now >= job.latestStartMs) latePending += app.pendingContainers * job.unitsPerTask;
      if (app.pendingContainers > 0) {
        const dueAt = holdUntil(job, params.holdLeadMs);
        if (dueAt > now) wakeAtMs = Math.min(wakeAtMs, dueAt);
        else if (job.latestStartMs > now) wakeAtMs = Math.min(wakeAtMs, job.latestStartMs);
      }
      dueByGroup.set(g, (dueByGroup.get(g) ?? 0) + due + app.runningContainers * job.unitsPerTask);
    }

    // --- queue capacities -----------------------------------------------------------------------
    if (C > 0) {
      const reservedNow = valueAt(state.ledger.production, now);
      const prodUnits = productionQueueCapacity(running, duePending, reservedNow, C);
      // CapacityScheduler measures shares by the dominant resource of the whole cluster, whose
      // cores or memory may not all form whole units: one unit's share is its larger fraction.
      const total = snapshot.totalCapacity;
      const unitPct = 100 * Math.max(total.vcores > 0 ? params.unit.vcores / total.vcores : 0, total.memoryMB > 0 ? params.unit.memoryMB / total.memoryMB : 0);
      const scale = 10 ** params.capacityDecimals;
      let bePct = Math.max(0, Math.round((100 - Math.ceil(prodUnits * unitPct * scale) / scale) * scale) / scale);
      // Best-effort may use every idle unit, except while production tasks are due: then it is
      // held to the units production leaves (its guarantee too: max-capacity never below it).
      if (duePending > 0) bePct = Math.min(bePct, Math.floor((C - prodUnits) * unitPct * scale) / scale);
      const beMax = duePending > 0 ? bePct : 100;
      const prodPct = Math.round((100 - bePct) * scale) / scale;
      const update: { path: string; capacityPct: number; maxCapacityPct: number }[] = [
        { path: params.productionQueue, capacityPct: prodPct, maxCapacityPct: 100 },
        { path: params.bestEffortQueue, capacityPct: bePct, maxCapacityPct: beMax },
      ];
      const kids = childrenOf(snapshot.rootQueue, params.productionQueue);
      if (kids.length > 0) {
        const pct = splitPct(
          kids.map((k) => dueByGroup.get(k.name) ?? 0),
          params.capacityDecimals,
        );
        kids.forEach((k, i) => update.push({ path: k.path, capacityPct: pct[i], maxCapacityPct: 100 }));
      }
      decisions.push(
        decisionWithLazyReason({ kind: 'updateQueues', add: [], update }, POLICY_NAME, 'productionQueueCapacity', () =>
          `production ${prodUnits.toFixed(1)} of ${C} units (running ${running}, due pending ${duePending}, reserved now ${reservedNow.toFixed(1)}) → ${params.productionQueue} ${prodPct}%, ${params.bestEffortQueue} ${bePct}% (max ${beMax}%${beMax < 100 ? ' while production is due' : ', work-conserving'})`,
        ),
      );
    }

    if (params.preemptAtLatestStart && latePending > 0) decisions.push(...preemptAtLatestStart(snapshot, params, latePending));

    // --- priorities: time-to-deadline order -----------------------------------------------------
    const q = new TtdQueue<ProductionApp>();
    for (const p of production) q.push(holdUntil(p.job, 0), p);
    let rank = production.length;
    for (let p = q.pop(); p !== undefined; p = q.pop()) {
      const prio = rank--;
      if (p.app.priority === prio) continue;
      const app = p.app;
      const latest = holdUntil(p.job, 0);
      decisions.push(decisionWithLazyReason({ kind: 'setAppPriority', appId: app.id, priority: prio }, POLICY_NAME, 'timeToDeadlineOrder', () => `${app.id} latest start ${latest} ms: priority ${prio} of ${production.length} production applications`));
    }

    return { decisions, state, notes, ...(Number.isFinite(wakeAtMs) ? { wakeAtMs } : {}) };
  },
});
