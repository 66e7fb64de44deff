/**
 * 3σSched's plan for one cycle (§3, §4.2, §4.3): placement options of pending jobs (start times in
 * the plan-ahead window, one equivalence set: the cluster), valued by expected utility, packed
 * against the capacity that running jobs are expected to leave (conditional survival, Eq. 2),
 * with preemption of running jobs at a cost. Pure: jobs in, plan out.
 *
 * Demands and capacities are fractions of the cluster per resource (vcores, memory).
 */
import { conditionalOnElapsed, longest, pointMass, survival, type RuntimeDistribution } from './distribution.js';
import { solveGreedy, solvePlan, type PlanOption, type PlanPreemption, type PlanProblem, type PlanSolution } from './milp.js';
import type { ThreeSigmaParams } from './params.js';
import { chanceWithinWindow, expectedUtility, type UtilityCurve } from './utility.js';

export const RESOURCES = 2;

export interface JobToPlan {
  readonly id: string;
  readonly kind: 'slo' | 'bestEffort';
  readonly submittedAtMs: number;
  /** SLO jobs: the deadline, epoch ms. */
  readonly deadlineMs?: number;
  /** Fraction of the cluster per resource while it runs (vcores, memory), each in [0, 1]. */
  readonly demand: readonly number[];
  /** Predicted runtime (from its start; for a running job, from when it last started). */
  readonly distribution: RuntimeDistribution;
  /** SLO jobs: the utility of meeting the deadline, when its SLO class gives one (else params.slo.utility). */
  readonly sloUtility?: number;
}

export interface RunningJobToPlan extends JobToPlan {
  /** When it started running (again, after a preemption), epoch ms. */
  readonly runningSinceMs: number;
}

export type PlanParams = Pick<
  ThreeSigmaParams,
  'sliceMs' | 'planAheadMs' | 'slo' | 'bestEffort' | 'overestimate' | 'underestimateStepMs' | 'preemption' | 'solver'
>;

export interface JobPlan {
  readonly id: string;
  /** Planned start, slices from now (0: now); undefined when not placed in the window. */
  readonly startSlice?: number;
  /** Expected utility of the chosen option, or the best option's when none was chosen. */
  readonly expectedUtility: number;
  /** Whether any start in the window has positive expected utility. */
  readonly hasUtility: boolean;
  /** Over-estimate handling was applied to its utility (§4.2.2). */
  readonly overestimateHandled: boolean;
}

export interface RunningPlan {
  readonly id: string;
  readonly preempt: boolean;
  /** Its remaining runtime was extended by the under-estimate rule: the estimated finish, epoch ms. */
  readonly underestimateFinishMs?: number;
  readonly preemptionCost?: number;
}

export interface CyclePlan {
  readonly pending: JobPlan[];
  readonly running: RunningPlan[];
  readonly solution: Omit<PlanSolution, 'chosen' | 'preempted'>;
  readonly slices: number;
}

/**
 * §4.2.2 and §4.2.3: whether an SLO job's utility decays past its deadline instead of dropping
 * to 0. Adaptive: only when its distribution says it could hardly finish within its window even
 * if started at submission (the deadline is a proxy for an upper bound of its runtime).
 */
export function handlesOverestimate(job: JobToPlan, p: PlanParams): boolean {
  if (job.kind !== 'slo' || job.deadlineMs === undefined) return false;
  switch (p.overestimate.mode) {
    case 'off':
      return false;
    case 'always':
      return true;
    case 'adaptive':
      return chanceWithinWindow(job.distribution, job.deadlineMs - job.submittedAtMs) < p.overestimate.threshold;
  }
}

/**
 * The job's utility curve (§3.1), with the decay past the deadline when over-estimates are handled;
 * by default over its window plus its longest predicted runtime, so that every runtime of its
 * history still earns something if it starts within its window.
 */
export function utilityCurveOf(job: JobToPlan, p: PlanParams): UtilityCurve {
  if (job.kind === 'bestEffort' || job.deadlineMs === undefined) {
    return {
      kind: 'bestEffort',
      maxUtility: p.bestEffort.utility,
      submittedAtMs: job.submittedAtMs,
      decayMs: p.bestEffort.decayMs,
      floorFraction: p.bestEffort.floorFraction,
    };
  }
  const window = Math.max(1, job.deadlineMs - job.submittedAtMs);
  return {
    kind: 'slo',
    maxUtility: job.sloUtility ?? p.slo.utility,
    deadlineMs: job.deadlineMs,
    ...(handlesOverestimate(job, p)
      ? { afterDeadline: { startFraction: p.overestimate.startFraction, decayMs: p.overestimate.decayMs ?? window + longest(job.distribution) } }
      : {}),
  };
}

/**
 * §4.2.1 (exp-inc): once a job has run as long as the longest runtime of its distribution, its
 * estimated finish moves on by 2^t steps, t = 0, 1, …, each time it is reached. Computed from the
 * start, so it needs no state: the same finish as extending it cycle by cycle.
 */
export function extendUnderestimate(runningSinceMs: number, longestMs: number, nowMs: number, stepMs: number): number {
  let finish = runningSinceMs + longestMs;
  for (let t = 0; finish <= nowMs; t++) finish += 2 ** Math.min(t, 40) * stepMs;
  return finish;
}

/**
 * What a running job still needs: its distribution given that it has run this long (Eq. 2), or,
 * past its longest runtime, a point at the under-estimate rule's finish.
 */
export function remainingRuntime(job: RunningJobToPlan, nowMs: number, p: PlanParams): { distribution: RuntimeDistribution; underestimateFinishMs?: number } {
  const elapsed = Math.max(0, nowMs - job.runningSinceMs);
  const conditional = conditionalOnElapsed(job.distribution, elapsed);
  if (conditional) return { distribution: conditional };
  const finish = extendUnderestimate(job.runningSinceMs, longest(job.distribution), nowMs, p.underestimateStepMs ?? p.sliceMs);
  return { distribution: pointMass(finish - job.runningSinceMs), underestimateFinishMs: finish };
}

/**
 * §3.2: expected use of each slice by a job started `startSlice` slices from now — its demand
 * times the chance it still runs at the slice's start. `elapsedMs`: how long it has already run
 * (its distribution is then conditional, in runtimes from its start).
 */
export function expectedUse(
  d: RuntimeDistribution,
  demand: readonly number[],
  startSlice: number,
  slices: number,
  sliceMs: number,
  elapsedMs = 0,
): Float64Array {
  const use = new Float64Array(slices * RESOURCES);
  for (let t = startSlice; t < slices; t++) {
    const s = survival(d, elapsedMs + (t - startSlice) * sliceMs);
    if (s === 0) break;
    for (let r = 0; r < RESOURCES; r++) use[t * RESOURCES + r] = demand[r] * s;
  }
  return use;
}

/** Expected utilities below this are no option at all (the paper prunes zero terms, §4.3.6). */
const NO_UTILITY = 1e-9;
/** Relative discount per slice of delay: of two starts worth the same, the plan takes the earlier. */
const EARLIER_FIRST = 1e-6;

/** The cycle's MILP and what its options stand for. */
export interface CycleProblem {
  readonly problem: PlanProblem;
  readonly slices: number;
  /** Start slice and expected utility (undiscounted) of each option. */
  readonly optionStart: readonly number[];
  readonly optionUtility: readonly number[];
  /** Per pending job: the best expected utility of any start, and whether over-estimates are handled. */
  readonly best: readonly number[];
  readonly handled: readonly boolean[];
  readonly runningPlans: RunningPlan[];
  /** Index in `running` of each preemption column. */
  readonly preemptable: readonly number[];
}

/**
 * Builds and solves the cycle's MILP. `seedStartMs`: last cycle's planned start of each job, to
 * seed the solver (§4.3.6) when it is still an option.
 */
export function planCycle(
  nowMs: number,
  pending: readonly JobToPlan[],
  running: readonly RunningJobToPlan[],
  p: PlanParams,
  seedStartMs: Readonly<Record<string, number>> = {},
): CyclePlan {
  const { problem, slices, optionStart, optionUtility, best, handled, runningPlans, preemptable } = cycleProblem(nowMs, pending, running, p, seedStartMs);
  const solution =
    p.solver.kind === 'greedy'
      ? solveGreedy(problem, 'greedy chosen')
      : solvePlan(problem, {
          maxNodes: p.solver.maxNodes,
          relativeGap: p.solver.relativeGap,
          ...(p.solver.timeLimitMs !== undefined ? { timeLimitMs: p.solver.timeLimitMs } : {}),
        });

  const pendingPlans = pending.map((job, j): JobPlan => {
    const o = solution.chosen[j];
    return {
      id: job.id,
      ...(o >= 0 ? { startSlice: optionStart[o] } : {}),
      expectedUtility: o >= 0 ? optionUtility[o] : best[j],
      hasUtility: best[j] > NO_UTILITY,
      overestimateHandled: handled[j],
    };
  });
  preemptable.forEach((i, k) => {
    if (solution.preempted[k]) runningPlans[i] = { ...runningPlans[i], preempt: true };
  });
  const { chosen: _c, preempted: _p, ...meta } = solution;
  return { pending: pendingPlans, running: runningPlans, solution: meta, slices };
}

/** The cycle's MILP (§4.3.3): options of pending jobs, capacity left by running ones, preemption columns. */
export function cycleProblem(
  nowMs: number,
  pending: readonly JobToPlan[],
  running: readonly RunningJobToPlan[],
  p: PlanParams,
  seedStartMs: Readonly<Record<string, number>> = {},
): CycleProblem {
  const slices = Math.max(1, Math.round(p.planAheadMs / p.sliceMs));
  const capacity = new Float64Array(slices * RESOURCES).fill(1);
  const runningPlans: RunningPlan[] = [];
  const preemptions: PlanPreemption[] = [];
  const preemptable: number[] = [];
  // Running jobs that might be preempted: best-effort ones and SLO jobs with nothing left to gain,
  // those started last first (least work lost).
  const candidates = new Set(
    p.preemption.enabled
      ? running
          .map((j, i) => ({ j, i }))
          .filter(({ j }) => j.kind === 'bestEffort' || remainingUtility(j, nowMs, p) <= NO_UTILITY)
          .sort((a, b) => b.j.runningSinceMs - a.j.runningSinceMs || (a.j.id < b.j.id ? -1 : 1))
          .slice(0, p.preemption.maxCandidates)
          .map(({ i }) => i)
      : [],
  );
  running.forEach((job, i) => {
    const rest = remainingRuntime(job, nowMs, p);
    const use = expectedUse(rest.distribution, job.demand, 0, slices, p.sliceMs, Math.max(0, nowMs - job.runningSinceMs));
    for (let r = 0; r < use.length; r++) capacity[r] -= use[r];
    let cost: number | undefined;
    if (candidates.has(i)) {
      cost = remainingUtility(job, nowMs, p) + p.preemption.costUtility;
      preemptions.push({ cost, credit: use });
      preemptable.push(i);
    }
    runningPlans.push({
      id: job.id,
      preempt: false,
      ...(rest.underestimateFinishMs !== undefined ? { underestimateFinishMs: rest.underestimateFinishMs } : {}),
      ...(cost !== undefined ? { preemptionCost: cost } : {}),
    });
  });

  const options: PlanOption[] = [];
  const optionStart: number[] = [];
  const optionUtility: number[] = [];
  const best: number[] = [];
  const handled: boolean[] = [];
  const seed: number[] = [];
  pending.forEach((job, j) => {
    const curve = utilityCurveOf(job, p);
    handled.push(curve.kind === 'slo' && curve.afterDeadline !== undefined);
    let top = 0;
    seed.push(-1);
    for (let s = 0; s < slices; s++) {
      const startMs = nowMs + s * p.sliceMs;
      const u = expectedUtility(job.distribution, startMs, curve);
      top = Math.max(top, u);
      if (u <= NO_UTILITY) continue;
      if (seedStartMs[job.id] !== undefined && seed[j] < 0 && startMs >= seedStartMs[job.id]) seed[j] = options.length;
      options.push({
        job: j,
        utility: u * (1 - EARLIER_FIRST * s),
        use: expectedUse(job.distribution, job.demand, s, slices, p.sliceMs),
        ...(curve.kind === 'bestEffort' ? { bestEffort: true } : {}),
      });
      optionStart.push(s);
      optionUtility.push(u);
    }
    best.push(top);
  });

  const problem: PlanProblem = { jobs: pending.length, slices, resources: RESOURCES, capacity, options, preemptions, seed };
  return { problem, slices, optionStart, optionUtility, best, handled, runningPlans, preemptable };
}

/** Expected utility a running job still earns if left to finish. */
export function remainingUtility(job: RunningJobToPlan, nowMs: number, p: PlanParams): number {
  const elapsed = Math.max(0, nowMs - job.runningSinceMs);
  const rest = remainingRuntime(job, nowMs, p).distribution;
  // `rest` holds runtimes from the job's start; completion = start + runtime.
  return expectedUtility(rest, nowMs, utilityCurveOf(job, p), elapsed);
}
