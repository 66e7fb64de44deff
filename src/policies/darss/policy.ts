/**
 * DARSS — Deadline-Aware Reservation-based Scheduling (thesis ch. 3) — as a policy over
 * CapacityScheduler: a production queue and a best-effort one beside it.
 *
 * Each cycle:
 * 1. requests submitted by now (`params.requests`, RSL) are judged (`admission.ts`) and accepted
 *    ones booked in the ledger; the decision and its numbers go to the state and the notes;
 * 2. production applications bind to requests by tags `schedbrain.darss.request` and
 *    `schedbrain.darss.job`; a finished job gives back what it still had booked; an application
 *    of a rejected or unknown request is killed (`rejectedApps`); when the production queue has
 *    per-group children, admitted applications move to a leaf of DARSS's own under it;
 * 3. the production queue gets the units running production holds plus those of production
 *    tasks due (at their booked start), and at least what the ledger reserves now; best-effort
 *    gets the rest and may grow to 100 % while nothing is due, so the cluster stays
 *    work-conserving while production waits toward its latest start;
 * 4. tasks at their latest start, or behind their booked wave, that find no free unit take one
 *    from best-effort, then from production not due yet (`preemptAtLatestStart`);
 * 5. production applications get priorities in time-to-deadline order (`timeToDeadlineOrder`).
 *
 * State is plain JSON. `admitWorkflow` is the same pure function an admin API calls. Every
 * action is one YARN takes as it is (queue capacities through the scheduler configuration,
 * application priorities, moves, kills), so the live engine runs the policy unchanged; requests
 * reach it through `params.requests`, as BoPF's admissions reach BoPF.
 */
import { z } from 'zod';
import { decisionWithLazyReason, type Decision } from '../../core/actions.js';
import { isActiveApp, findQueue, type AppView, type ClusterSnapshot, type QueueView } from '../../core/model.js';
import { definePolicy } from '../../core/policy.js';
import { checkWorkflow, JOB_TAG, REQUEST_TAG, resourceUnitSchema, unitsIn, workflowRequestSchema, type WorkflowRequest } from '../../core/rsl.js';
import { admitWorkflow, productionCap, releaseBooking, type AdmissionDecision, type AdmissionParams, type Ledger } from './admission.js';
import { freeUnits, inQueue, preemptYoungest, unitSharePct } from '../shared/preempt.js';
import { dropBefore, maxOn, valueAt } from '../shared/step-function.js';
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
    /** Queue for production applications: a leaf, or the parent of per-group leaves. */
    productionQueue: z.string().min(1).default('root.production'),
    /**
     * When the production queue has children (per-group leaves), production applications are
     * moved into this leaf of it, created when missing.
     */
    productionLeafName: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9_-]+$/)
      .default('darss'),
    /** Its sibling for best-effort applications. */
    bestEffortQueue: z.string().min(1).default('root.besteffort'),
    /** One resource unit (thesis: 1 core and 1 GB). */
    unit: resourceUnitSchema.default({}),
    /** Best-effort quota: m of every n units in every period of periodMs (Fig. 3.8 example). */
    quota: z
      .object({ m: z.number().nonnegative().default(7), n: z.number().positive().default(70), periodMs: z.number().int().positive().default(600_000) })
      .strict()
      .default({}),
    /** Most of the units production may hold reserved at once, percent (thesis §4.2.2: 75). */
    productionCapPct: z.number().min(0).max(100).default(75),
    /** `critical-path` (ours, stricter) or `count-only` (the thesis's test). */
    admission: z.enum(['critical-path', 'count-only']).default('critical-path'),
    /** User-group shares; `*` for groups not listed (thesis §3.2.4). */
    groupShares: z.record(z.string(), groupShareSchema).default({}),
    /** Workflow requests with ids, in submission order; each is judged once now ≥ submittedAtMs. */
    requests: z.array(darssRequestSchema).default([]),
    /** A production task counts as due this long before its booked (or latest) start, ms. */
    holdLeadMs: z.number().int().nonnegative().default(0),
    /**
     * When production tasks at their latest start (or behind their booked wave) find fewer free
     * units than they need, take the difference from the best-effort containers started last,
     * then from production not due yet (the task runs again later). Beyond
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
  /**
   * Admitted requests whose booking no longer fits under the production limit since the cluster
   * lost units, with when and on how many units; reported, never dropped. Absent: none.
   */
  noLongerFit?: Record<string, { atMs: number; capacityUnits: number; limitUnits: number; bookedUnits: number }>;
}

/**
 * The cluster's units changed (nodes lost, added or resized): future capacity follows, and the
 * admitted requests whose bookings now go over the production limit somewhere ahead are recorded
 * in `noLongerFit` (and named in the returned note); those that fit again leave it.
 */
export function capacityChanged(state: DarssState, capacityUnits: number, now: number, p: DarssParams): string | undefined {
  const l = state.ledger;
  const before = l.capacityUnits;
  l.capacityUnits = capacityUnits;
  const limit = productionCap(capacityUnits, admissionParams(p));
  const over: Record<string, { atMs: number; capacityUnits: number; limitUnits: number; bookedUnits: number }> = {};
  for (const id of Object.keys(l.bookings)) {
    let worst = 0;
    for (const ps of Object.values(l.bookings[id])) for (const [a, b] of ps) if (b > now) worst = Math.max(worst, maxOn(l.production, Math.max(a, now), b));
    if (worst > limit + 1e-9) over[id] = state.noLongerFit?.[id] ?? { atMs: now, capacityUnits, limitUnits: limit, bookedUnits: worst };
  }
  if (Object.keys(over).length) state.noLongerFit = over;
  else delete state.noLongerFit;
  if (before === 0) return undefined;
  const ids = Object.keys(over);
  return `capacityChanged: ${before} → ${capacityUnits} units${ids.length ? `; no longer fit under the production limit of ${limit.toFixed(1)} units: ${ids.join(', ')}` : ''}`;
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

/** A request that fails the checks needing the clock or the cluster is rejected, naming the field. */
export function invalidRequest(req: DarssRequest, now: number, p: DarssParams, error: Error): AdmissionDecision {
  return {
    requestId: req.id,
    group: req.group,
    accepted: false,
    rule: 'invalidRequest',
    test: p.admission,
    nowMs: now,
    neededUnitMs: 0,
    freeUnitMs: 0,
    windowFromMs: now,
    windowToMs: req.deadlineMs ?? now,
    criticalPathMs: 0,
    ...(req.deadlineMs !== undefined ? { timeLeftMs: req.deadlineMs - now } : {}),
    reason: `rejected: invalid request: ${error.message}`,
  };
}

/** Judges one request against the state's ledger; books it when accepted (state updated in place). */
export function judgeRequest(state: DarssState, req: DarssRequest, now: number, largestNodeUnits: number, p: DarssParams): AdmissionDecision {
  const w = req as WorkflowRequest;
  try {
    checkWorkflow(w, { nowMs: now, largestNodeUnits });
  } catch (e) {
    return invalidRequest(req, now, p, e as Error);
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
      jobs[j.name] = {
        tasks: j.tasks,
        unitsPerTask: j.unitsPerTask,
        leaseMs: j.leaseMs,
        latestStartMs: ttd.get(j.name)!.latestStartMs,
        bookedStartMs: Number.isFinite(booked) ? booked : ttd.get(j.name)!.latestStartMs,
      };
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

function childrenOf(root: QueueView, path: string): readonly QueueView[] {
  return findQueue(root, path)?.children ?? [];
}

/**
 * Units of a job's tasks that its booked waves say should have started by `t` but have not: the
 * waves are what admission promised, and a task that misses its wave can make the job late
 * before its ttd latest start says so.
 */
function behindWaves(l: Ledger, rid: string, job: string, t: number, startedUnits: number): number {
  let planned = 0;
  for (const [a, , u] of l.bookings[rid]?.[job] ?? []) if (a <= t) planned += u;
  return Math.max(0, planned - startedUnits);
}

/** The next start of one of a job's waves after `t` (Infinity: none). */
function nextWave(l: Ledger, rid: string, job: string, t: number): number {
  let next = Infinity;
  for (const [a] of l.bookings[rid]?.[job] ?? []) if (a > t && a < next) next = a;
  return next;
}

/**
 * Kills the best-effort containers started last, then those of production jobs not due yet
 * (running ahead of their plan, with slack to run again), until production tasks
 * at their latest start would find units (see `preemptAtLatestStart`).
 */
export function preemptAtLatestStart(s: ClusterSnapshot, p: DarssParams, latePendingUnits: number, aheadOfPlan: ReadonlyMap<string, number>): Decision[] {
  const shortfall = latePendingUnits - freeUnits(s, p.unit);
  const why = `production tasks at their latest start need ${latePendingUnits} units, ${shortfall} more than are free`;
  const fromBestEffort = preemptYoungest(s, (a) => (inQueue(a, p.bestEffortQueue) ? Infinity : 0), shortfall, p.unit, POLICY_NAME, 'preemptAtLatestStart', why);
  const rest = shortfall - fromBestEffort.length;
  return rest > 0
    ? [...fromBestEffort, ...preemptYoungest(s, (a) => aheadOfPlan.get(a.id) ?? 0, rest, p.unit, POLICY_NAME, 'preemptAtLatestStart', why)]
    : fromBestEffort;
}

/**
 * Application priorities in time-to-deadline order (the ttd list as a priority queue): tasks late
 * for their wave first, then least latest start first; the most urgent gets the highest priority.
 */
export function timeToDeadlineOrder(production: readonly ProductionApp[], lateApps: ReadonlySet<string>): Decision[] {
  const q = new TtdQueue<ProductionApp>();
  for (const p of production) q.push(lateApps.has(p.app.id) ? p.job.latestStartMs - 1e15 : p.job.latestStartMs, p);
  const out: Decision[] = [];
  let rank = production.length;
  for (let p = q.pop(); p !== undefined; p = q.pop()) {
    const prio = rank--;
    if (p.app.priority === prio) continue;
    const app = p.app;
    const latest = p.job.latestStartMs;
    const late = lateApps.has(app.id);
    out.push(
      decisionWithLazyReason(
        { kind: 'setAppPriority', appId: app.id, priority: prio },
        POLICY_NAME,
        'timeToDeadlineOrder',
        () =>
          `${app.id} latest start ${latest} ms${late ? ', tasks late for their wave' : ''}: priority ${prio} of ${production.length} production applications`,
      ),
    );
  }
  return out;
}

/** An application of a request that was rejected, deleted or never submitted is killed. */
export function rejectUnadmittedProduction(appId: string, requestId: string, why: string): Decision {
  return decisionWithLazyReason(
    { kind: 'killApp', appId },
    POLICY_NAME,
    'rejectUnadmittedProduction',
    () => `${appId} belongs to request ${requestId}, not admitted (${why})`,
  );
}

/** An admitted application goes to DARSS's production leaf, where it is ordered by urgency. */
export function productionLeaf(appId: string, requestId: string, from: string, leaf: string): Decision {
  return decisionWithLazyReason(
    { kind: 'moveApp', appId, queue: leaf },
    POLICY_NAME,
    'productionLeaf',
    () => `${appId} of admitted request ${requestId} from ${from} to ${leaf}, where production goes in time-to-deadline order`,
  );
}

export const darssPolicy = definePolicy<DarssParams, DarssState>({
  needs: ['queueWrites'],
  name: POLICY_NAME,
  description:
    'DARSS: production workflows admitted against a reservation ledger (best-effort quota, production cap, group shares), held toward their latest start while best-effort work runs, prioritised in time-to-deadline order.',
  paramsSchema: darssParamsSchema,
  updatesStateInPlace: true,
  initialState: () => ({
    ledger: { capacityUnits: 0, production: { times: [], units: [] }, byGroup: {}, bookings: {} },
    nextRequest: 0,
    judged: {},
    admitted: {},
  }),
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
      const note = capacityChanged(state, C, now, params);
      if (note) notes.push(note);
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
    /** Production applications with tasks late for their wave or their latest start. */
    const lateApps = new Set<string>();
    const aheadOfPlan = new Map<string, number>();
    const kidsNow = childrenOf(snapshot.rootQueue, params.productionQueue);
    const leaf = kidsNow.length > 0 ? `${params.productionQueue}.${params.productionLeafName}` : params.productionQueue;
    const moves: Decision[] = [];
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
          decisions.push(rejectUnadmittedProduction(app.id, rid, why));
        }
        continue;
      }
      if (!isActiveApp(app)) {
        if (app.state === 'FINISHED' && !job.done) {
          const released = releaseBooking(ownLedger(), rid, request.group, now, jobName);
          job.done = true;
          if (released > 0) notes.push(`releaseBooking: ${rid}/${jobName} done at ${now} ms, ${(released / 1000).toFixed(1)} unit·s given back`);
        }
        continue;
      }
      production.push({ app, request, job });
      if (app.queue !== leaf && leaf !== params.productionQueue) {
        moves.push(productionLeaf(app.id, rid, app.queue, leaf));
      }
      if (app.runningContainers > 0 && jobName !== undefined) {
        // Only jobs not due yet: a due job's tasks run to the end (its booking is a count of units
        // over time, not the shape its tasks take, so running above it now is no sign of slack).
        const ahead = now < holdUntil(job, params.holdLeadMs) ? app.runningContainers * job.unitsPerTask : 0;
        if (ahead > 0) aheadOfPlan.set(app.id, ahead);
      }
      running += app.runningContainers * job.unitsPerTask;
      if (now >= holdUntil(job, params.holdLeadMs)) duePending += app.pendingContainers * job.unitsPerTask;
      const pendingUnits = app.pendingContainers * job.unitsPerTask;
      const late =
        now >= job.latestStartMs
          ? pendingUnits
          : Math.min(pendingUnits, behindWaves(state.ledger, rid, jobName!, now, (job.tasks - app.pendingContainers) * job.unitsPerTask));
      latePending += late;
      if (late > 0) lateApps.add(app.id);
      if (app.pendingContainers > 0) {
        const dueAt = holdUntil(job, params.holdLeadMs);
        if (dueAt > now) wakeAtMs = Math.min(wakeAtMs, dueAt);
        else if (job.latestStartMs > now) wakeAtMs = Math.min(wakeAtMs, job.latestStartMs);
        wakeAtMs = Math.min(wakeAtMs, nextWave(state.ledger, rid, jobName!, now));
      }
    }

    // --- queue capacities -----------------------------------------------------------------------
    if (C > 0) {
      const reservedNow = valueAt(state.ledger.production, now);
      const prodUnits = productionQueueCapacity(running, duePending, reservedNow, C);
      // CapacityScheduler measures shares by the dominant resource of the whole cluster, whose
      // cores or memory may not all form whole units: one unit's share is its larger fraction.
      const unitPct = unitSharePct(snapshot.totalCapacity, params.unit);
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
      // With per-group leaves under the production queue, production runs in a leaf of DARSS's
      // own (created here), where applications go in time-to-deadline order; CapacityScheduler
      // would otherwise serve the groups' leaves by their shares, not by urgency.
      const kids = childrenOf(snapshot.rootQueue, params.productionQueue);
      const add: { path: string; capacityPct: number; maxCapacityPct: number }[] = [];
      if (kids.length > 0) {
        if (!kids.some((k) => k.path === leaf)) add.push({ path: leaf, capacityPct: 100, maxCapacityPct: 100 });
        for (const k of kids) update.push({ path: k.path, capacityPct: k.path === leaf ? 100 : 0, maxCapacityPct: 100 });
      }
      decisions.push(
        decisionWithLazyReason(
          { kind: 'updateQueues', add, update },
          POLICY_NAME,
          'productionQueueCapacity',
          () =>
            `production ${prodUnits.toFixed(1)} of ${C} units (running ${running}, due pending ${duePending}, reserved now ${reservedNow.toFixed(1)}) → ${params.productionQueue} ${prodPct}%, ${params.bestEffortQueue} ${bePct}% (max ${beMax}%${beMax < 100 ? ' while production is due' : ', work-conserving'})`,
        ),
      );
    }

    decisions.push(...moves);
    if (params.preemptAtLatestStart && latePending > 0) decisions.push(...preemptAtLatestStart(snapshot, params, latePending, aheadOfPlan));

    // --- priorities: time-to-deadline order -----------------------------------------------------
    decisions.push(...timeToDeadlineOrder(production, lateApps));

    return { decisions, state, notes, ...(Number.isFinite(wakeAtMs) ? { wakeAtMs } : {}) };
  },
});
