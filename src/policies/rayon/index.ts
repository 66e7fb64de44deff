/**
 * Rayon (Curino et al., YARN's ReservationSystem) as a baseline for DARSS: each job of a workflow
 * gets a reservation placed by a greedy agent that works backward from the deadline, like YARN's
 * GreedyReservationAgent with `favor-early-allocation=false`: in windows of one lease, from the
 * job's deadline back, as many of its tasks as fit under the plan's limit
 * (CapacityOverTimePolicy's instantaneous maximum; the thesis gives both systems 75 %); jobs
 * needed by others are placed before those others' reservations start (R_ORDER). A workflow is
 * accepted iff every task finds a window after now.
 *
 * Enforced as a rigid skyline, as the PlanFollower does: the production queue's capacity and
 * maximum are exactly the units reserved now, so production work runs only inside its
 * reservations; best-effort work gets the rest and may use what production leaves idle, given
 * back (its youngest containers ended) when a reservation needs it. Within the production queue,
 * applications go in order of their reservation's start. One production queue stands for
 * YARN's one queue per reservation.
 */
import { z } from 'zod';
import { decisionWithLazyReason, type Decision } from '../../core/actions.js';
import { findQueue, isActiveApp, type AppView } from '../../core/model.js';
import { definePolicy } from '../../core/policy.js';
import { checkWorkflow, JOB_TAG, jobsInOrder, REQUEST_TAG, resourceUnitSchema, unitsIn, workflowRequestSchema, type WorkflowRequest } from '../../core/rsl.js';
import { freeUnits, inQueue, preemptYoungest, unitSharePct } from '../shared/preempt.js';
import { addSteps, dropBefore, emptySteps, maxOn, valueAt, type StepFunction } from '../shared/step-function.js';

const NAME = 'rayon';

export const rayonParamsSchema = z
  .object({
    productionQueue: z.string().min(1).default('root.production'),
    /** Leaf of the production queue for reserved jobs, when that queue has children. */
    productionLeafName: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9_-]+$/)
      .default('rayon'),
    bestEffortQueue: z.string().min(1).default('root.besteffort'),
    unit: resourceUnitSchema.default({}),
    /** CapacityOverTimePolicy's instantaneous maximum for all reservations together, percent. */
    maxReservedPct: z.number().min(0).max(100).default(75),
    /** Workflow requests (RSL) with ids, in submission order. */
    requests: z.array(workflowRequestSchema.and(z.object({ id: z.string().min(1) }))).default([]),
    /** Reservations taken back from best-effort containers when it holds their units. */
    preemptForReservations: z.boolean().default(true),
    rejectedApps: z.enum(['kill', 'best-effort']).default('kill'),
    capacityDecimals: z.number().int().min(0).max(3).default(2),
  })
  .strict();
export type RayonParams = z.infer<typeof rayonParamsSchema>;

export interface JobReservation {
  /** [from, to, units] blocks of the skyline. */
  readonly blocks: [number, number, number][];
  readonly startMs: number;
  done?: boolean;
}

export interface RayonState {
  capacityUnits: number;
  plan: StepFunction;
  nextRequest: number;
  /** Request id → accepted (with reason) or not. */
  judged: Record<string, { accepted: boolean; reason: string }>;
  reservations: Record<string, { group: string; jobs: Record<string, JobReservation> }>;
}

/**
 * The greedy agent: places every job of `w` backward from its deadline into `plan` (updated in
 * place only when all fit). Returns the reservations, or why the workflow does not fit.
 */
export function greedyReservation(
  plan: StepFunction,
  limitUnits: number,
  w: WorkflowRequest,
  now: number,
): { jobs: Record<string, JobReservation> } | { failed: string } {
  const order = jobsInOrder(w);
  const dependants = new Map<string, string[]>(order.map((j) => [j.name, []]));
  for (const j of order) for (const p of j.prerequisites) dependants.get(p)!.push(j.name);
  const trial: StepFunction = { times: plan.times.slice(), units: plan.units.slice() };
  const jobs: Record<string, JobReservation> = {};
  for (let k = order.length - 1; k >= 0; k--) {
    const j = order[k];
    let t = j.deadlineMs ?? w.deadlineMs!;
    for (const d of dependants.get(j.name)!) t = Math.min(t, jobs[d].startMs);
    let left = j.tasks;
    const blocks: [number, number, number][] = [];
    while (left > 0) {
      const from = t - j.leaseMs;
      if (from < now)
        return {
          failed: `job ${j.name}: ${left} of ${j.tasks} tasks find no window of ${j.leaseMs} ms between now and its deadline under ${limitUnits.toFixed(1)} units`,
        };
      const fit = Math.min(left, Math.floor((limitUnits - maxOn(trial, from, t) + 1e-9) / j.unitsPerTask));
      if (fit > 0) {
        addSteps(trial, from, t, fit * j.unitsPerTask);
        blocks.push([from, t, fit * j.unitsPerTask]);
        left -= fit;
      }
      t = from;
    }
    jobs[j.name] = { blocks, startMs: t };
  }
  plan.times = trial.times;
  plan.units = trial.units;
  return { jobs };
}

export const rayonPolicy = definePolicy<RayonParams, RayonState>({
  needs: ['queueWrites'],
  name: NAME,
  description:
    'Rayon (YARN ReservationSystem) baseline: job-level reservations placed greedily backward from the deadline, enforced as a rigid skyline on the production queue.',
  paramsSchema: rayonParamsSchema,
  updatesStateInPlace: true,
  initialState: () => ({ capacityUnits: 0, plan: emptySteps(), nextRequest: 0, judged: {}, reservations: {} }),
  decide({ snapshot, params, state }) {
    const now = snapshot.nowMs;
    const notes: string[] = [];
    const decisions: Decision[] = [];
    let C = 0;
    let largest = 0;
    for (const n of snapshot.nodes.values()) {
      if (n.state !== 'RUNNING') continue;
      const u = unitsIn(n.capacity, params.unit);
      C += u;
      largest = Math.max(largest, u);
    }
    state.capacityUnits = C;
    const limit = (C * params.maxReservedPct) / 100;
    if (state.plan.times.length > 0 && state.plan.times[0] < now) dropBefore(state.plan, now);

    // --- reservations ---------------------------------------------------------------------------
    const reqs = params.requests;
    while (state.nextRequest < reqs.length && (reqs[state.nextRequest].submittedAtMs ?? 0) <= now) {
      const r = reqs[state.nextRequest++];
      if (state.judged[r.id]) continue;
      let verdict: { accepted: boolean; reason: string };
      if (r.deadlineMs === undefined) verdict = { accepted: true, reason: 'best-effort request: nothing reserved' };
      else {
        try {
          checkWorkflow(r, { nowMs: now, largestNodeUnits: largest });
          const g = greedyReservation(state.plan, limit, r, now);
          if ('failed' in g) verdict = { accepted: false, reason: `rejected: ${g.failed}` };
          else {
            state.reservations[r.id] = { group: r.group, jobs: g.jobs };
            verdict = {
              accepted: true,
              reason: `accepted: reserved from ${Math.min(...Object.values(g.jobs).map((j) => j.startMs))} ms to ${r.deadlineMs} ms`,
            };
          }
        } catch (e) {
          verdict = { accepted: false, reason: `rejected: invalid request: ${(e as Error).message}` };
        }
      }
      state.judged[r.id] = verdict;
      notes.push(`greedyReservation: ${r.id} ${verdict.reason}`);
    }
    let wakeAtMs = state.nextRequest < reqs.length ? (reqs[state.nextRequest].submittedAtMs ?? now) : Infinity;

    // --- applications ---------------------------------------------------------------------------
    // YARN gives every reservation a queue under the plan queue: a job submitted early waits
    // there (no capacity until its reservation starts) and one still running when it ends goes on
    // in the plan's default queue on idle units. Leaves of the production queue (created when it
    // has per-group children) stand for them: `<leaf>` for jobs inside their reservation, in
    // reservation order, `<leaf>-waiting` (capacity and maximum 0) and `<leaf>-default`.
    const kids = findQueue(snapshot.rootQueue, params.productionQueue)?.children ?? [];
    const own = kids.length > 0;
    const leaf = own ? `${params.productionQueue}.${params.productionLeafName}` : params.productionQueue;
    const waiting = own ? `${leaf}-waiting` : leaf;
    const after = own ? `${leaf}-default` : leaf;
    const production: { appId: string; priority: number; startMs: number }[] = [];
    const moves: Decision[] = [];
    let running = 0;
    let pending = 0;
    let overrun = 0;
    for (const app of snapshot.apps.values()) {
      const rid = app.tags[REQUEST_TAG];
      if (rid === undefined) continue;
      const res = state.reservations[rid];
      const jobName = app.tags[JOB_TAG];
      const job = res && jobName !== undefined ? res.jobs[jobName] : undefined;
      if (!res || !job) {
        if (isActiveApp(app) && params.rejectedApps === 'kill' && !state.judged[rid]?.accepted) {
          const why = state.judged[rid]?.reason ?? `request ${rid} is unknown`;
          decisions.push(
            decisionWithLazyReason(
              { kind: 'killApp', appId: app.id },
              NAME,
              'rejectUnreserved',
              () => `${app.id} belongs to request ${rid}, not reserved (${why})`,
            ),
          );
        }
        continue;
      }
      if (!isActiveApp(app)) {
        if (app.state === 'FINISHED' && !job.done) {
          // Finished early: the rest of its skyline goes back to the plan.
          for (const [a, b, u] of job.blocks) if (b > now) addSteps(state.plan, Math.max(a, now), b, -u);
          job.done = true;
        }
        continue;
      }
      const active = job.blocks.some(([a, b]) => a <= now && now < b);
      // Asked again when one of its blocks starts or ends (the plan's total may not change then).
      for (const [a, b] of job.blocks) wakeAtMs = Math.min(wakeAtMs, a > now ? a : b > now ? b : Infinity);
      const target = active ? leaf : now < job.startMs ? waiting : after;
      if (app.queue !== target)
        moves.push(
          decisionWithLazyReason(
            { kind: 'moveApp', appId: app.id, queue: target },
            NAME,
            'reservationQueue',
            () =>
              `${app.id} of request ${rid}: ${target === leaf ? 'inside its reservation' : target === waiting ? 'its reservation has not started' : 'its reservation has ended'} → ${target}`,
          ),
        );
      const held = unitsIn(app.allocated, params.unit);
      if (active) {
        running += held;
        pending += app.pendingContainers * (unitsIn(app.pendingContainerResource ?? params.unit, params.unit) || 1);
        production.push({ appId: app.id, priority: app.priority, startMs: job.startMs });
      } else overrun += held;
    }

    // --- the skyline as queue capacities --------------------------------------------------------
    if (C > 0) {
      const reserved = valueAt(state.plan, now);
      const scale = 10 ** params.capacityDecimals;
      const unitPct = unitSharePct(snapshot.totalCapacity, params.unit);
      const prodPct = Math.min(100, Math.ceil(reserved * unitPct * scale) / scale);
      const busy = pending > 0 && reserved > running;
      // Best-effort keeps to what reservations and late jobs leave while reservations wait for units.
      let bePct = Math.round((100 - prodPct) * scale) / scale;
      if (busy) bePct = Math.min(bePct, Math.max(0, Math.floor((C - reserved - overrun) * unitPct * scale) / scale));
      const update: { path: string; capacityPct: number; maxCapacityPct: number }[] = [
        { path: params.productionQueue, capacityPct: Math.round((100 - bePct) * scale) / scale, maxCapacityPct: 100 },
        { path: params.bestEffortQueue, capacityPct: bePct, maxCapacityPct: busy ? bePct : 100 },
      ];
      const add: { path: string; capacityPct: number; maxCapacityPct: number }[] = [];
      if (own) {
        const shape: Record<string, [number, number]> = { [leaf]: [100, 100], [waiting]: [0, 0], [after]: [0, 100] };
        for (const [path, [cap, max]] of Object.entries(shape))
          if (!kids.some((k) => k.path === path)) add.push({ path, capacityPct: cap, maxCapacityPct: max });
        // Other leaves (where jobs are submitted) start nothing: jobs are moved out when seen.
        for (const k of kids) update.push({ path: k.path, capacityPct: shape[k.path]?.[0] ?? 0, maxCapacityPct: shape[k.path]?.[1] ?? 0 });
      }
      decisions.push(
        decisionWithLazyReason(
          { kind: 'updateQueues', add, update },
          NAME,
          'planFollower',
          () =>
            `reserved now ${reserved.toFixed(1)} of ${C} units, jobs inside their reservations hold ${running} and wait for ${pending}, ${overrun} held past them → ${params.productionQueue} ${update[0].capacityPct}%, ${params.bestEffortQueue} ${bePct}%`,
        ),
      );
      decisions.push(...moves);
      if (params.preemptForReservations && busy) {
        // Best-effort first, then jobs past their reservation (the plan's default queue has no guarantee).
        const want = Math.min(reserved, running + pending) - running;
        const why = `reservations hold ${reserved.toFixed(1)} units now, jobs inside them run on ${running}`;
        let short = want - freeUnits(snapshot, params.unit);
        const tiers: ((a: AppView) => number)[] = [
          (a) => (inQueue(a, params.bestEffortQueue) ? Infinity : 0),
          (a) => (own && a.queue === after ? Infinity : 0),
        ];
        for (const victim of tiers) {
          if (short <= 0) break;
          const got = preemptYoungest(snapshot, victim, short, params.unit, NAME, 'preemptForReservation', why);
          decisions.push(...got);
          short -= got.length;
        }
      }
    }

    // --- priorities: reservation start order ----------------------------------------------------
    production.sort((a, b) => a.startMs - b.startMs || (a.appId < b.appId ? -1 : 1));
    production.forEach((p, i) => {
      const prio = production.length - i;
      if (p.priority !== prio)
        decisions.push(
          decisionWithLazyReason(
            { kind: 'setAppPriority', appId: p.appId, priority: prio },
            NAME,
            'reservationOrder',
            () => `${p.appId} reservation starts at ${p.startMs} ms: priority ${prio}`,
          ),
        );
    });

    return { decisions, state, notes, ...(Number.isFinite(wakeAtMs) ? { wakeAtMs } : {}) };
  },
});
