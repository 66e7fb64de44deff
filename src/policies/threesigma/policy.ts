/**
 * 3Sigma (Park et al., EuroSys'18) as a policy: runtimes predicted as distributions from the
 * cluster's own history (3σPredict), and each cycle a plan that maximises expected utility over
 * the plan-ahead window for SLO jobs (deadline tag) and best-effort jobs (3σSched).
 *
 * Each cycle:
 * 1. applications seen finishing teach the predictor their runtime (from when they last started
 *    running to the first snapshot that shows them FINISHED); new ones are described and predicted;
 * 2. pending applications (holding no task container) get placement options, running ones are
 *    counted with their conditional distribution and may be preempted (`plan.ts`, `milp.ts`);
 * 3. the plan becomes priorities: start now, deferred, or without utility; preempted jobs lose
 *    their task containers (they run again later, from the start, as in the paper).
 *
 * YARN places containers itself, so "start now" is the highest priority rather than a placement,
 * and a deferred job still takes what nobody planned for (work-conserving).
 */
import { decisionWithLazyReason, type Decision } from '../../core/actions.js';
import { isActiveApp, type AppId, type AppView, type ClusterSnapshot, type ContainerView } from '../../core/model.js';
import { loopTurn, runStepsInline, type SolveSteps } from '../../core/milp.js';
import { definePolicy, type PolicyInput, type PolicyOutput } from '../../core/policy.js';
import { secondsText } from '../shared/durations.js';
import { pointMass, type RuntimeDistribution } from './distribution.js';
import type { JobDescription } from './features.js';
import { describedForRun, isHeld, liveDemand, releaseToRunQueue, returnToHoldQueue, runOnLeftoverCapacity, runsForPlan, suspendForPlan } from './live.js';
import { startAnywherePriority, threeSigmaParamsSchema, type ThreeSigmaParams } from './params.js';
import {
  planCycleSteps,
  type CyclePlan,
  type JobPlan,
  type JobToPlan,
  type Placement,
  type PlanNodes,
  type PreferredNodes,
  type RunningJobToPlan,
  type RunningPlan,
} from './plan.js';
import { emptyPredictor, learnRuntime, predictRuntime, type Prediction, type PredictorState } from './predictor.js';
import { solveInline } from './milp.js';
import { classDeadlineMs, sloClassOf, type SloClass } from './slo-classes.js';

export const POLICY_NAME = 'threesigma';

export interface TrackedJob {
  description: JobDescription;
  kind: 'slo' | 'bestEffort';
  deadlineMs?: number;
  /** Made when the job was first seen (or at the first cycle with any history). */
  prediction?: Prediction;
  /** When it started holding task containers (its earliest one when first seen), since its last preemption. */
  runningSinceMs?: number;
  /** When it was last preempted. */
  preemptedAtMs?: number;
  /** Start planned by the last cycle, epoch ms, and where (seed the next solve). */
  plannedStartMs?: number;
  plannedPlacement?: Placement;
  /** Live: when the plan last moved it from the hold queue to the run queue. */
  releasedAtMs?: number;
  /** The SLO class that gave it its deadline (none when a tag did, or it is best-effort). */
  sloClass?: string;
  /** Utility of meeting its deadline, when its class gives one. */
  sloUtility?: number;
}

export interface LastPlan {
  atMs: number;
  solver: string;
  status: string;
  objective: number;
  columns: number;
  rows: number;
  nonzeros: number;
  pending: number;
  startNow: number;
  deferred: number;
  withoutUtility: number;
  running: number;
  preempted: number;
  /** HiGHS's relative MIP gap at the end of the solve (none when no MILP was solved). */
  mipGap?: number;
}

/** Wall-clock figures of the last plan: kept beside the state, not in it, so the state stays a function of the cycles. */
export interface PlanTiming {
  /** Time to build and solve the plan, ms. */
  readonly planMs: number;
}

const planTimings = new WeakMap<ThreeSigmaState, PlanTiming>();

/** How long the last plan of this state took (undefined before a cycle, or after the state was replaced). */
export function lastPlanTiming(state: ThreeSigmaState): PlanTiming | undefined {
  return planTimings.get(state);
}

export interface ThreeSigmaState {
  predictor: PredictorState;
  jobs: Record<AppId, TrackedJob>;
  lastPlan?: LastPlan;
  /** The operator's SLO classes (admin API), by id. */
  sloClasses?: SloClass[];
}

/** What is known of an application when it is first seen. */
export function describeApp(app: AppView): JobDescription {
  const r = app.pendingContainerResource;
  return {
    user: app.user,
    queue: app.queue,
    name: app.name,
    tags: app.tags,
    containers: app.pendingContainers + app.runningContainers,
    containerMemoryMB: r?.memoryMB ?? app.allocated.memoryMB,
    containerVcores: r?.vcores ?? app.allocated.vcores,
    submittedAtMs: app.submittedAtMs,
    priority: app.priority,
  };
}

/** The SLO deadline an application carries in its tag (epoch ms), if any. */
export function deadlineOf(app: AppView, p: ThreeSigmaParams): number | undefined {
  const raw = app.tags[p.deadlineTag];
  if (raw === undefined || raw.trim() === '') return undefined;
  const v = Number(raw);
  return Number.isFinite(v) ? v : undefined;
}

/** The runtime an application's tag states, ms, if it states a positive one. */
function taggedRuntimeMs(job: TrackedJob, p: ThreeSigmaParams): number | undefined {
  const raw = job.description.tags[p.runtimeTag];
  const v = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  return Number.isFinite(v) && v > 0 ? v : undefined;
}

function distributionFor(job: TrackedJob, p: ThreeSigmaParams): RuntimeDistribution {
  if (p.runtimeModel === 'tagged') {
    const known = taggedRuntimeMs(job, p);
    if (known !== undefined) return pointMass(known);
  }
  if (!job.prediction) return pointMass(p.unknownRuntimeMs);
  return p.runtimeModel === 'distribution' ? job.prediction.distribution : pointMass(job.prediction.pointEstimateMs);
}

/** Fractions of the cluster (vcores, memory) that `vcores`/`memoryMB` are, each at most 1. */
function shareOf(s: ClusterSnapshot, vcores: number, memoryMB: number): number[] {
  const t = s.totalCapacity;
  return [t.vcores > 0 ? Math.min(1, vcores / t.vcores) : 0, t.memoryMB > 0 ? Math.min(1, memoryMB / t.memoryMB) : 0];
}

/** Task containers (not ApplicationMasters) of every application that holds any. */
function* taskContainersByApp(s: ClusterSnapshot): SolveSteps<Map<AppId, ContainerView[]>> {
  const out = new Map<AppId, ContainerView[]>();
  for (const c of s.containers.values()) {
    yield* loopTurn();
    if (c.appMaster) continue;
    let list = out.get(c.appId);
    if (!list) out.set(c.appId, (list = []));
    list.push(c);
  }
  return out;
}

const utilityText = (u: number): string => u.toFixed(3);

function predictionText(job: TrackedJob): string {
  const x = job.prediction;
  if (!x) return 'no history yet';
  return `expert ${x.feature}/${x.estimator}${x.fallback ? ' (fallback)' : ''}, ${x.runs} runs, NMAE ${x.nmae === undefined ? 'n/a' : x.nmae.toFixed(2)}, point ${secondsText(x.pointEstimateMs)}`;
}

function kindText(job: TrackedJob, now: number): string {
  if (job.kind !== 'slo' || job.deadlineMs === undefined) return 'best-effort job';
  return `SLO job${job.sloClass !== undefined ? ` (class ${job.sloClass})` : ''}, deadline in ${secondsText(job.deadlineMs - now)}`;
}

/**
 * A new application's SLO (§3.1): the deadline its tag gives, else the one of the SLO class it
 * matches: a fixed time after submission, or (1 + slack) × its predicted runtime (the chosen
 * expert's point estimate, made now and kept for the plan). Neither: a best-effort job.
 */
function sloOfNewJob(app: AppView, description: JobDescription, state: ThreeSigmaState, p: ThreeSigmaParams): Partial<TrackedJob> {
  const tagged = deadlineOf(app, p);
  if (tagged !== undefined) return { deadlineMs: tagged };
  const c = sloClassOf(state.sloClasses, description);
  if (!c) return {};
  const prediction = c.slack !== undefined ? predictRuntime(state.predictor, description, p.predictor) : undefined;
  return {
    deadlineMs: classDeadlineMs(c, app.submittedAtMs, prediction?.pointEstimateMs ?? p.unknownRuntimeMs),
    sloClass: c.id,
    ...(c.utility !== undefined ? { sloUtility: c.utility } : {}),
    ...(prediction ? { prediction } : {}),
  };
}

/**
 * The nodes an application prefers, from its tag (node ids, comma-separated), as indexes of the
 * snapshot's nodes; undefined without the tag or when none of them is known.
 */
export function preferredNodesOf(app: AppView, nodeIndex: ReadonlyMap<string, number>, p: ThreeSigmaParams): PreferredNodes | undefined {
  const raw = app.tags[p.preferredNodesTag];
  if (raw === undefined || raw.trim() === '') return undefined;
  const nodes = [...new Set(raw.split(',').map((x) => nodeIndex.get(x.trim())))].filter((n): n is number => n !== undefined);
  if (nodes.length === 0) return undefined;
  const tagged = Number(app.tags[p.slowdownTag]);
  return { nodes, key: raw, slowdown: Number.isFinite(tagged) && tagged >= 1 ? tagged : p.offPreferredSlowdown };
}

/** When the cycle's budget left no time to solve, the decision says the plan is the warm start. */
function budgetText(plan: JobPlan): string {
  return plan.budgetSpent !== undefined ? ` [${plan.budgetSpent}]` : '';
}

function placementText(plan: JobPlan): string {
  return plan.placement === 'preferred' ? ' on its preferred nodes' : plan.placement === 'anywhere' ? ' anywhere (off its preferred nodes, slower)' : '';
}

/** Planned to start now: highest priority, so YARN gives it containers first (anywhere: after those starting on their preferred nodes). */
export function startPlannedNow(app: AppView, job: TrackedJob, plan: JobPlan, p: ThreeSigmaParams, now: number): Decision {
  return decisionWithLazyReason(
    { kind: 'setAppPriority', appId: app.id, priority: plan.placement === 'anywhere' ? startAnywherePriority(p) : p.priorities.start },
    POLICY_NAME,
    'startPlannedNow',
    () =>
      `${kindText(job, now)}: plan starts it now${placementText(plan)}, expected utility ${utilityText(plan.expectedUtility)}${plan.overestimateHandled ? ' (over-estimate handling: utility decays past the deadline)' : ''}; ${predictionText(job)}${budgetText(plan)}`,
  );
}

/** Planned later in the window, or not placed in it: waits behind jobs that start now. */
export function deferToPlannedStart(app: AppView, job: TrackedJob, plan: JobPlan | undefined, p: ThreeSigmaParams, now: number, sliceMs: number): Decision {
  return decisionWithLazyReason({ kind: 'setAppPriority', appId: app.id, priority: p.priorities.defer }, POLICY_NAME, 'deferToPlannedStart', () => {
    if (!plan) return `${kindText(job, now)}: beyond the ${p.maxPlannedJobs} jobs planned per cycle; ${predictionText(job)}`;
    const when =
      plan.startSlice === undefined
        ? 'no room for it in the plan-ahead window'
        : `plan starts it in ${secondsText(plan.startSlice * sliceMs)}${placementText(plan)}`;
    return `${kindText(job, now)}: ${when}, expected utility ${utilityText(plan.expectedUtility)}; ${predictionText(job)}${budgetText(plan)}`;
  });
}

/** No start in the window earns anything (e.g. past its deadline, no over-estimate handling): last. */
export function deprioritiseWithoutUtility(app: AppView, job: TrackedJob, p: ThreeSigmaParams, now: number): Decision {
  return decisionWithLazyReason(
    { kind: 'setAppPriority', appId: app.id, priority: p.priorities.noUtility },
    POLICY_NAME,
    'deprioritiseWithoutUtility',
    () => `${kindText(job, now)}: no start in the plan-ahead window has expected utility; it runs only on what nobody else needs; ${predictionText(job)}`,
  );
}

/** A running job the plan keeps: it keeps the highest priority for the containers it still needs. */
export function keepRunning(app: AppView, job: TrackedJob, plan: RunningPlan, p: ThreeSigmaParams, now: number): Decision {
  return decisionWithLazyReason(
    { kind: 'setAppPriority', appId: app.id, priority: p.priorities.start },
    POLICY_NAME,
    'keepRunning',
    () =>
      `${kindText(job, now)}, running for ${secondsText(now - (job.runningSinceMs ?? now))}` +
      (plan.underestimateFinishMs !== undefined
        ? `; outlived its longest predicted runtime, finish now expected in ${secondsText(plan.underestimateFinishMs - now)} (exp-inc)`
        : ''),
  );
}

/** §4.3.5: the plan preempts the running job; its task containers are killed and it waits again. */
export function preemptForPlan(
  app: AppView,
  job: TrackedJob,
  plan: RunningPlan,
  tasks: readonly ContainerView[],
  p: ThreeSigmaParams,
  now: number,
): Decision[] {
  const why = `${kindText(job, now)} preempted by the plan (cost ${utilityText(plan.preemptionCost ?? 0)} below what it frees for others)`;
  const out: Decision[] = tasks.map((c) =>
    decisionWithLazyReason(
      { kind: 'killContainer', containerId: c.id, nodeId: c.nodeId },
      POLICY_NAME,
      'preemptForPlan',
      () => `${why}: container on ${c.nodeId}`,
    ),
  );
  out.push(
    decisionWithLazyReason({ kind: 'setAppPriority', appId: app.id, priority: p.priorities.defer }, POLICY_NAME, 'preemptForPlan', () => `${why}: waits again`),
  );
  return out;
}

/** Prio (§5, Table 1): SLO jobs strictly before best-effort ones, runtimes unused; running SLO jobs keep the top. */
export function sloStrictlyFirst(app: AppView, job: TrackedJob, p: ThreeSigmaParams, now: number): Decision {
  const top = job.kind === 'slo';
  return decisionWithLazyReason(
    { kind: 'setAppPriority', appId: app.id, priority: top ? p.priorities.start : p.priorities.defer },
    POLICY_NAME,
    'sloStrictlyFirst',
    () => `${kindText(job, now)}: ${top ? 'SLO jobs go first' : 'after every SLO job'} (strict priority, no runtime estimates)`,
  );
}

/** Prio: a running best-effort job makes room for waiting SLO jobs the free capacity cannot hold; it waits again. */
export function preemptForSlo(app: AppView, job: TrackedJob, tasks: readonly ContainerView[], p: ThreeSigmaParams, now: number): Decision[] {
  const why = `${kindText(job, now)} preempted: waiting SLO jobs need more than the free capacity (strict priority)`;
  const out: Decision[] = tasks.map((c) =>
    decisionWithLazyReason(
      { kind: 'killContainer', containerId: c.id, nodeId: c.nodeId },
      POLICY_NAME,
      'preemptForSlo',
      () => `${why}: container on ${c.nodeId}`,
    ),
  );
  out.push(
    decisionWithLazyReason({ kind: 'setAppPriority', appId: app.id, priority: p.priorities.defer }, POLICY_NAME, 'preemptForSlo', () => `${why}: waits again`),
  );
  return out;
}

/**
 * Prio's cycle: priorities by kind; running best-effort jobs, started last first, preempted while
 * the waiting SLO jobs' demand exceeds what is free (per resource, as fractions of the cluster).
 */
function strictPriorityCycle(
  pendingApps: readonly { app: AppView; job: TrackedJob; plan: JobToPlan }[],
  runningApps: readonly { app: AppView; job: TrackedJob; plan: RunningJobToPlan }[],
  tasks: ReadonlyMap<AppId, ContainerView[]>,
  p: ThreeSigmaParams,
  now: number,
): { decisions: Decision[]; preempted: number } {
  const decisions: Decision[] = [];
  const need = [0, 0];
  const free = [1, 1];
  for (const x of pendingApps) {
    decisions.push(sloStrictlyFirst(x.app, x.job, p, now));
    if (x.job.kind === 'slo') x.plan.demand.forEach((d, r) => (need[r] += d));
  }
  for (const x of runningApps) x.plan.demand.forEach((d, r) => (free[r] -= d));
  const victims = p.preemption.enabled
    ? runningApps
        .filter((x) => x.job.kind === 'bestEffort')
        .sort((a, b) => b.plan.runningSinceMs - a.plan.runningSinceMs || (a.app.id < b.app.id ? -1 : 1))
        .slice(0, p.preemption.maxCandidates)
    : [];
  const preempt = new Set<AppId>();
  for (const v of victims) {
    if (!need.some((n, r) => n > free[r] + 1e-9)) break;
    preempt.add(v.app.id);
    v.plan.demand.forEach((d, r) => (free[r] += d));
  }
  for (const x of runningApps) {
    if (preempt.has(x.app.id)) {
      decisions.push(...preemptForSlo(x.app, x.job, tasks.get(x.app.id) ?? [], p, now));
      x.job.preemptedAtMs = now;
      x.job.runningSinceMs = undefined;
    } else decisions.push(sloStrictlyFirst(x.app, x.job, p, now));
  }
  return { decisions, preempted: preempt.size };
}

export const threeSigmaPolicy = definePolicy<ThreeSigmaParams, ThreeSigmaState>({
  name: POLICY_NAME,
  description:
    '3Sigma: runtimes predicted as distributions from the cluster’s history; each cycle a plan maximising expected utility of SLO (deadline) and best-effort jobs over a plan-ahead window (MILP, HiGHS), with preemption and over-/under-estimate handling, applied as priorities.',
  paramsSchema: threeSigmaParamsSchema,
  updatesStateInPlace: true,
  initialState: () => ({ predictor: emptyPredictor(), jobs: {} }),
  decide(input) {
    return runStepsInline(threeSigmaCycle(input), solveInline);
  },
  decideInSteps: threeSigmaCycle,
  solves: true,
});

/** One cycle, its MILP yielded to the runtime (the live engine solves it off the event loop). */
function* threeSigmaCycle({ snapshot, params: p, state }: PolicyInput<ThreeSigmaParams, ThreeSigmaState>): SolveSteps<PolicyOutput<ThreeSigmaState>> {
  // The cycle's budget counts from here, on a monotonic clock (the snapshot's time is the cluster's, not this process's).
  const cycleStartedMs = performance.now();
  const now = snapshot.nowMs;
  const notes: string[] = [];
  const decisions: Decision[] = [];
  // Live, the event loop runs during the cycle's long loops (`loopTurn`): at 10,000 applications each phase takes tens of ms.
  const tasks = yield* taskContainersByApp(snapshot);

  // 1. Learn from finished applications; describe and predict new ones.
  let learned = 0;
  for (const app of snapshot.apps.values()) {
    yield* loopTurn();
    const job = Object.hasOwn(state.jobs, app.id) ? state.jobs[app.id] : undefined;
    if (!isActiveApp(app)) {
      if (job && app.state === 'FINISHED') {
        const since = job.runningSinceMs ?? app.startedAtMs;
        if (since !== undefined && now >= since) {
          learnRuntime(state.predictor, job.description, now - since, p.predictor);
          learned++;
        }
      }
      if (job) delete state.jobs[app.id];
      continue;
    }
    if (!job) {
      const description = p.live ? describedForRun(describeApp(app), app, p.live) : describeApp(app);
      const slo = sloOfNewJob(app, description, state, p);
      state.jobs[app.id] = { description, kind: slo.deadlineMs !== undefined ? 'slo' : 'bestEffort', ...slo };
    }
  }
  for (const id of Object.keys(state.jobs)) if (!snapshot.apps.has(id)) delete state.jobs[id];

  // 2. Jobs to plan: pending (no task container) and running. Nodes are told apart only when
  // some application prefers some of them (its tag); otherwise the plan has one set, the cluster.
  let nodeIndex: Map<string, number> | undefined;
  let planNodes: PlanNodes | undefined;
  for (const app of snapshot.apps.values()) {
    if (!isActiveApp(app) || app.tags[p.preferredNodesTag] === undefined) continue;
    nodeIndex = new Map();
    const capacity: number[][] = [];
    for (const n of snapshot.nodes.values()) {
      nodeIndex.set(n.id, capacity.length);
      capacity.push(n.state === 'RUNNING' ? shareOf(snapshot, n.capacity.vcores, n.capacity.memoryMB) : [0, 0]);
    }
    planNodes = { capacity };
    break;
  }
  const pendingApps: { app: AppView; job: TrackedJob; plan: JobToPlan }[] = [];
  const runningApps: { app: AppView; job: TrackedJob; plan: RunningJobToPlan }[] = [];
  for (const app of snapshot.apps.values()) {
    yield* loopTurn();
    if (!isActiveApp(app)) continue;
    const job = state.jobs[app.id];
    if (!job.prediction) {
      const x = predictRuntime(state.predictor, job.description, p.predictor);
      if (x) job.prediction = x;
    }
    const held = tasks.get(app.id);
    const base = {
      id: app.id,
      kind: job.kind,
      submittedAtMs: app.submittedAtMs,
      ...(job.deadlineMs !== undefined ? { deadlineMs: job.deadlineMs } : {}),
      ...(job.sloUtility !== undefined ? { sloUtility: job.sloUtility } : {}),
      distribution: distributionFor(job, p),
    };
    const live = p.live ? liveDemand(app, p.live) : undefined;
    if (p.live ? runsForPlan(app, job, held?.length ?? 0, p.live) : held && held.length > 0) {
      // From its earliest task container: the RM's start time of an application is its acceptance.
      if (job.runningSinceMs === undefined && held && held.length > 0) job.runningSinceMs = held.reduce((m, c) => Math.min(m, c.startedAtMs), now);
      const demand = live ? shareOf(snapshot, live.vcores, live.memoryMB) : shareOf(snapshot, app.allocated.vcores, app.allocated.memoryMB);
      const holdings =
        nodeIndex && held
          ? held.flatMap((c) => {
              const n = nodeIndex.get(c.nodeId);
              return n === undefined ? [] : [{ node: n, share: shareOf(snapshot, c.resource.vcores, c.resource.memoryMB) }];
            })
          : undefined;
      // Live, a job released whose tasks have not started yet has its whole runtime ahead.
      runningApps.push({ app, job, plan: { ...base, demand, runningSinceMs: job.runningSinceMs ?? now, ...(holdings ? { holdings } : {}) } });
    } else {
      job.runningSinceMs = undefined;
      const r = app.pendingContainerResource;
      const demand = live
        ? shareOf(snapshot, live.vcores, live.memoryMB)
        : shareOf(
            snapshot,
            app.allocated.vcores + (r ? r.vcores * app.pendingContainers : 0),
            app.allocated.memoryMB + (r ? r.memoryMB * app.pendingContainers : 0),
          );
      const preferred = nodeIndex ? preferredNodesOf(app, nodeIndex, p) : undefined;
      pendingApps.push({ app, job, plan: { ...base, demand, ...(preferred ? { preferred } : {}) } });
    }
  }
  if (p.ordering === 'sloFirst') {
    const prio = strictPriorityCycle(pendingApps, runningApps, tasks, p, now);
    const slo = pendingApps.filter((x) => x.job.kind === 'slo').length;
    state.lastPlan = {
      atMs: now,
      solver: 'none',
      status: 'strict priority',
      objective: 0,
      columns: 0,
      rows: 0,
      nonzeros: 0,
      pending: pendingApps.length,
      startNow: slo,
      deferred: pendingApps.length - slo,
      withoutUtility: 0,
      running: runningApps.length,
      preempted: prio.preempted,
    };
    if (learned > 0) notes.push(`learned ${learned} runtime(s)`);
    notes.push(`strict priority: ${slo} SLO and ${pendingApps.length - slo} best-effort jobs waiting; ${prio.preempted} best-effort jobs preempted`);
    return { decisions: prio.decisions, state, notes };
  }
  // SLO jobs by deadline, then best-effort jobs by submission; beyond the limit they wait.
  pendingApps.sort((a, b) => {
    const da = a.job.deadlineMs ?? Infinity;
    const db = b.job.deadlineMs ?? Infinity;
    return da - db || a.app.submittedAtMs - b.app.submittedAtMs || (a.app.id < b.app.id ? -1 : 1);
  });
  const planned = pendingApps.slice(0, p.maxPlannedJobs);
  const beyond = pendingApps.slice(p.maxPlannedJobs);

  // 3. The plan.
  const seeds: Record<string, number> = {};
  const seedPlacement: Record<string, Placement> = {};
  for (const x of planned) {
    if (x.job.plannedStartMs !== undefined) seeds[x.app.id] = x.job.plannedStartMs;
    if (x.job.plannedPlacement !== undefined) seedPlacement[x.app.id] = x.job.plannedPlacement;
  }
  const planStartedMs = performance.now();
  const plan: CyclePlan = yield* planCycleSteps(
    now,
    planned.map((x) => x.plan),
    runningApps.map((x) => x.plan),
    p,
    { startMs: seeds, placement: seedPlacement },
    planNodes,
    { startedAtMs: cycleStartedMs, nowMs: () => performance.now() },
  );
  const planMs = performance.now() - planStartedMs;

  // 4. Decisions.
  let startNow = 0;
  let deferred = 0;
  let withoutUtility = 0;
  let preempted = 0;
  const leftoverCandidates: typeof planned = [];
  planned.forEach((x, i) => {
    const jp = plan.pending[i];
    x.job.plannedStartMs = jp.startSlice === undefined ? undefined : now + jp.startSlice * p.sliceMs;
    x.job.plannedPlacement = jp.placement;
    if (jp.startSlice === 0) {
      startNow++;
      decisions.push(startPlannedNow(x.app, x.job, jp, p, now));
      if (p.live && isHeld(x.app, p.live)) decisions.push(...releaseToRunQueue(x.app, x.job, tasks.get(x.app.id) ?? [], p.live, now));
    } else if (jp.hasUtility) {
      deferred++;
      decisions.push(deferToPlannedStart(x.app, x.job, jp, p, now, p.sliceMs));
    } else {
      withoutUtility++;
      decisions.push(deprioritiseWithoutUtility(x.app, x.job, p, now));
      if (p.live && p.live.withoutUtility === 'leftover' && isHeld(x.app, p.live)) leftoverCandidates.push(x);
    }
  });
  if (leftoverCandidates.length > 0 && p.live) {
    // What the plan leaves free now: the cluster less running jobs it keeps and jobs it starts now.
    const free = [1, 1];
    runningApps.forEach((x, i) => {
      if (!plan.running[i].preempt) x.plan.demand.forEach((d, r) => (free[r] -= d));
    });
    planned.forEach((x, i) => {
      if (plan.pending[i].startSlice === 0) x.plan.demand.forEach((d, r) => (free[r] -= d));
    });
    for (const x of leftoverCandidates) {
      if (x.plan.demand.some((d, r) => d > free[r] + 1e-9)) continue;
      x.plan.demand.forEach((d, r) => (free[r] -= d));
      decisions.push(runOnLeftoverCapacity(x.app, x.job, p.live, now));
    }
  }
  for (const x of beyond) {
    deferred++;
    x.job.plannedStartMs = undefined;
    decisions.push(deferToPlannedStart(x.app, x.job, undefined, p, now, p.sliceMs));
  }
  for (const [i, x] of runningApps.entries()) {
    yield* loopTurn();
    const rp = plan.running[i];
    if (rp.preempt) {
      preempted++;
      const victimTasks = tasks.get(x.app.id) ?? [];
      decisions.push(
        ...(p.live?.preemption === 'suspend'
          ? suspendForPlan(x.app, x.job, rp, victimTasks, p.priorities.defer)
          : preemptForPlan(x.app, x.job, rp, victimTasks, p, now)),
      );
      if (p.live) decisions.push(returnToHoldQueue(x.app, x.job, p.live));
      x.job.preemptedAtMs = now;
      x.job.runningSinceMs = undefined;
    } else decisions.push(keepRunning(x.app, x.job, rp, p, now));
  }

  const s = plan.solution;
  state.lastPlan = {
    atMs: now,
    solver: s.solver,
    status: s.status,
    objective: s.objective,
    columns: s.columns,
    rows: s.rows,
    nonzeros: s.nonzeros,
    pending: pendingApps.length,
    startNow,
    deferred,
    withoutUtility,
    running: runningApps.length,
    preempted,
    ...(s.mipGap !== undefined ? { mipGap: s.mipGap } : {}),
  };
  planTimings.set(state, { planMs });
  if (learned > 0) notes.push(`learned ${learned} runtime(s); history holds ${state.predictor.seq} runs over ${state.predictor.size} feature values`);
  notes.push(
    `plan (${s.solver}, ${s.status}): ${pendingApps.length} pending — ${startNow} start now, ${deferred} deferred, ${withoutUtility} without utility; ${runningApps.length} running, ${preempted} preempted; ` +
      `${s.columns} columns × ${s.rows} rows, ${s.nonzeros} nonzeros, objective ${s.objective.toFixed(3)}`,
  );
  // Re-plan at the next slice while anything waits: deadlines move closer even if nothing else changes.
  return { decisions, state, notes, ...(pendingApps.length > 0 ? { wakeAtMs: now + p.sliceMs } : {}) };
}
