/**
 * 3σSched's plan for one cycle (§3, §4.2, §4.3): placement options of pending jobs (an equivalence
 * set and a start time in the plan-ahead window), valued by expected utility, packed against the
 * capacity that running jobs are expected to leave (conditional survival, Eq. 2), with preemption
 * of running jobs at a cost. Pure: jobs in, plan out.
 *
 * Equivalence sets (§4.3.3): a job that prefers some nodes (§5: SLO jobs, 1.5× slower elsewhere)
 * has two sets per start, its preferred nodes at its runtime and "anywhere" at the slower one;
 * a job without a preference has one, the cluster. Every option counts against the cluster's
 * capacity; a preferred option also against its set's, per slice and resource.
 *
 * Demands and capacities are fractions of the cluster per resource (vcores, memory).
 */
import { conditionalOnElapsed, longest, pointMass, scaled, survival, type RuntimeDistribution } from './distribution.js';
import { loopTurn, runStepsInline, type SolveSteps } from '../../core/milp.js';
import { solveGreedy, solveInline, solvePlanSteps, type PlanOption, type PlanProblem, type PlanSolution, type SolveDeadline } from './milp.js';
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
  /** Nodes it prefers (a soft constraint); absent: every node is the same to it. */
  readonly preferred?: PreferredNodes;
}

export interface PreferredNodes {
  /** Indexes into the plan's node capacities (`PlanNodes.capacity`). */
  readonly nodes: readonly number[];
  /** Names the set: jobs with the same key prefer the same nodes. */
  readonly key: string;
  /** Runtime multiplier on any other node (≥ 1). */
  readonly slowdown: number;
}

export interface RunningJobToPlan extends JobToPlan {
  /** When it started running (again, after a preemption), epoch ms. */
  readonly runningSinceMs: number;
  /** What it holds on each node (fractions of the cluster per resource), for the capacity of preferred sets. */
  readonly holdings?: readonly { readonly node: number; readonly share: readonly number[] }[];
}

/** The cluster's nodes, when jobs prefer some of them. */
export interface PlanNodes {
  /** Capacity of each node, fractions of the cluster per resource. */
  readonly capacity: readonly (readonly number[])[];
}

/** Where a chosen option runs: on the job's preferred nodes, or anywhere (at the slower runtime). */
export type Placement = 'preferred' | 'anywhere';

export type PlanParams = Pick<
  ThreeSigmaParams,
  'sliceMs' | 'planAheadMs' | 'fineStartSlices' | 'slo' | 'bestEffort' | 'overestimate' | 'underestimateStepMs' | 'preemption' | 'solver'
>;

export interface JobPlan {
  readonly id: string;
  /** Planned start, slices from now (0: now); undefined when not placed in the window. */
  readonly startSlice?: number;
  /** For a job with preferred nodes: where the chosen option runs. */
  readonly placement?: Placement;
  /** Expected utility of the chosen option, or the best option's when none was chosen. */
  readonly expectedUtility: number;
  /** Whether any start in the window has positive expected utility. */
  readonly hasUtility: boolean;
  /** Over-estimate handling was applied to its utility (§4.2.2). */
  readonly overestimateHandled: boolean;
  /** Set when the cycle's budget left no time to solve: the plan is the warm start, and why. */
  readonly budgetSpent?: string;
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
  /** Start slice, placement (jobs with preferred nodes) and expected utility (undiscounted) of each option. */
  readonly optionStart: readonly number[];
  readonly optionPlacement: readonly (Placement | undefined)[];
  readonly optionUtility: readonly number[];
  /** Per pending job: the best expected utility of any start, and whether over-estimates are handled. */
  readonly best: readonly number[];
  readonly handled: readonly boolean[];
  readonly runningPlans: RunningPlan[];
  /** Index in `running` of each preemption column. */
  readonly preemptable: readonly number[];
  /** Preferred sets shared by two or more jobs, which have capacity rows of their own. */
  readonly setsWithRows: number;
}

/** When the cycle started, on a monotonic clock, and that clock (ms): what its budget is counted on. */
export interface CycleClock {
  readonly startedAtMs: number;
  readonly nowMs: () => number;
}

/**
 * The solve's deadline from the cycle's budget (`solver.cycleBudgetMs`), less what is kept for
 * the work after the solve; none without a budget or without a time limit (replays).
 */
export function cycleDeadline(p: PlanParams, clock: CycleClock): SolveDeadline | undefined {
  const s = p.solver;
  if (s.cycleBudgetMs === null || s.timeLimitMs === null) return undefined;
  return { endsAtMs: clock.startedAtMs + s.cycleBudgetMs - s.budgetReserveMs, minSolveMs: s.minSolveMs, clockMs: clock.nowMs };
}

/** What seeds the solve (§4.3.6): last cycle's planned start of each job, epoch ms, and its placement. */
export interface PlanSeed {
  readonly startMs: Readonly<Record<string, number>>;
  readonly placement?: Readonly<Record<string, Placement>>;
}

/**
 * Builds and solves the cycle's MILP. `seed`: last cycle's plan, to start the solver from
 * (§4.3.6) where it is still an option; `nodes`: the nodes' capacities, needed when jobs prefer some;
 * `clock`: when the cycle started, for its budget (unset: now, on `performance.now`).
 */
export function planCycle(...args: Parameters<typeof planCycleSteps>): CyclePlan {
  return runStepsInline(planCycleSteps(...args), solveInline);
}

/** `planCycle` as steps: the solve is yielded to the runtime (`core/milp.ts`). */
export function* planCycleSteps(
  nowMs: number,
  pending: readonly JobToPlan[],
  running: readonly RunningJobToPlan[],
  p: PlanParams,
  seed: PlanSeed = { startMs: {} },
  nodes?: PlanNodes,
  clock?: CycleClock,
): SolveSteps<CyclePlan> {
  const deadline = cycleDeadline(p, clock ?? { startedAtMs: performance.now(), nowMs: () => performance.now() });
  const { problem, slices, optionStart, optionPlacement, optionUtility, best, handled, runningPlans, preemptable } = yield* cycleProblemSteps(
    nowMs,
    pending,
    running,
    p,
    seed,
    nodes,
  );
  const solution =
    p.solver.kind === 'greedy'
      ? solveGreedy(problem, 'greedy chosen')
      : yield* solvePlanSteps(problem, {
          maxNodes: p.solver.maxNodes,
          relativeGap: p.solver.relativeGap,
          ...(p.solver.timeLimitMs !== null ? { timeLimitMs: p.solver.timeLimitMs } : {}),
          ...(deadline ? { deadline } : {}),
        });

  const pendingPlans = pending.map((job, j): JobPlan => {
    const o = solution.chosen[j];
    const placement = o >= 0 ? optionPlacement[o] : undefined;
    return {
      id: job.id,
      ...(o >= 0 ? { startSlice: optionStart[o] } : {}),
      ...(placement !== undefined ? { placement } : {}),
      expectedUtility: o >= 0 ? optionUtility[o] : best[j],
      hasUtility: best[j] > NO_UTILITY,
      overestimateHandled: handled[j],
      ...(solution.budgetSpent !== undefined ? { budgetSpent: solution.budgetSpent } : {}),
    };
  });
  preemptable.forEach((i, k) => {
    if (solution.preempted[k]) runningPlans[i] = { ...runningPlans[i], preempt: true };
  });
  const { chosen: _c, preempted: _p, ...meta } = solution;
  return { pending: pendingPlans, running: runningPlans, solution: meta, slices };
}

/**
 * Start slices offered: every slice up to `fineStartSlices`, every second one after. A start far
 * ahead is replanned many times before it comes; the coarser grid there halves its columns.
 */
export function startSlices(slices: number, fineStartSlices: number): number[] {
  const out: number[] = [];
  for (let s = 0; s < slices; s += s < fineStartSlices ? 1 : 2) out.push(s);
  return out;
}

/** Whether `use` fits in `capacity` at every slice and resource (index t·R + r in both). */
function fitsWithin(use: ArrayLike<number>, capacity: ArrayLike<number>): boolean {
  for (let r = 0; r < use.length; r++) if (use[r] > capacity[r] + 1e-9) return false;
  return true;
}

/**
 * Capacity of each preferred set per slice and resource: its nodes' capacity less what running
 * jobs hold there times the chance they still run (Eq. 2), as fractions of the cluster.
 */
function preferredSetCapacity(
  pending: readonly JobToPlan[],
  running: readonly RunningJobToPlan[],
  survivalOf: readonly Float64Array[],
  nodes: PlanNodes,
  slices: number,
): Map<string, Float64Array> {
  const out = new Map<string, Float64Array>();
  if (!pending.some((j) => j.preferred)) return out;
  const nodeFree = new Map<number, Float64Array>();
  const freeOf = (n: number): Float64Array => {
    let f = nodeFree.get(n);
    if (!f) {
      f = new Float64Array(slices * RESOURCES);
      const c = nodes.capacity[n] ?? [0, 0];
      for (let t = 0; t < slices; t++) for (let r = 0; r < RESOURCES; r++) f[t * RESOURCES + r] = c[r];
      nodeFree.set(n, f);
    }
    return f;
  };
  running.forEach((job, i) => {
    for (const h of job.holdings ?? []) {
      const f = freeOf(h.node);
      for (let t = 0; t < slices; t++) for (let r = 0; r < RESOURCES; r++) f[t * RESOURCES + r] -= h.share[r] * survivalOf[i][t];
    }
  });
  for (const job of pending) {
    if (!job.preferred || out.has(job.preferred.key)) continue;
    const cap = new Float64Array(slices * RESOURCES);
    for (const n of job.preferred.nodes) {
      const f = freeOf(n);
      for (let k = 0; k < cap.length; k++) cap[k] += f[k];
    }
    out.set(job.preferred.key, cap);
  }
  return out;
}

/**
 * The cycle's MILP (§4.3.3): options of pending jobs, capacity left by running ones, preemption
 * columns. Capacity rows: the cluster's, per slice and resource; then, for each preferred set
 * shared by two or more jobs or holding a job that may be preempted, the set's (preempting it
 * frees what it holds there). Any other set gets no rows: its one job's options that do not fit
 * in it are left out instead (the same constraint, fewer rows). Options left out as dominated: "anywhere" at a start where the preferred set is
 * open (no rows of its own, fits) and earns at least as much, since it also uses less.
 */
export function cycleProblem(...args: Parameters<typeof cycleProblemSteps>): CycleProblem {
  return runStepsInline(cycleProblemSteps(...args), solveInline);
}

/** `cycleProblem` as steps: the live engine lets the event loop run while it counts thousands of running jobs. */
function* cycleProblemSteps(
  nowMs: number,
  pending: readonly JobToPlan[],
  running: readonly RunningJobToPlan[],
  p: PlanParams,
  seed: PlanSeed = { startMs: {} },
  nodes?: PlanNodes,
): SolveSteps<CycleProblem> {
  const slices = Math.max(1, Math.round(p.planAheadMs / p.sliceMs));
  const runningPlans: RunningPlan[] = [];
  const preemptions: { cost: number; credit: Float64Array }[] = [];
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
  const runningUse: Float64Array[] = [];
  const survivalOf: Float64Array[] = [];
  for (const [i, job] of running.entries()) {
    yield* loopTurn();
    const rest = remainingRuntime(job, nowMs, p);
    const elapsed = Math.max(0, nowMs - job.runningSinceMs);
    const use = expectedUse(rest.distribution, job.demand, 0, slices, p.sliceMs, elapsed);
    runningUse.push(use);
    if (job.holdings) {
      const alive = expectedUse(rest.distribution, [1, 1], 0, slices, p.sliceMs, elapsed);
      survivalOf.push(Float64Array.from({ length: slices }, (_, t) => alive[t * RESOURCES]));
    } else survivalOf.push(new Float64Array(slices));
    let cost: number | undefined;
    if (candidates.has(i)) {
      cost = remainingUtility(job, nowMs, p) + p.preemption.costUtility;
      preemptable.push(i);
      preemptions.push({ cost, credit: use });
    }
    runningPlans.push({
      id: job.id,
      preempt: false,
      ...(rest.underestimateFinishMs !== undefined ? { underestimateFinishMs: rest.underestimateFinishMs } : {}),
      ...(cost !== undefined ? { preemptionCost: cost } : {}),
    });
  }

  // Preferred sets: their capacity, and rows for those two or more jobs share.
  const setCapacity = nodes ? preferredSetCapacity(pending, running, survivalOf, nodes, slices) : new Map<string, Float64Array>();
  const jobsPerSet = new Map<string, number>();
  for (const job of pending)
    if (job.preferred && setCapacity.has(job.preferred.key)) jobsPerSet.set(job.preferred.key, (jobsPerSet.get(job.preferred.key) ?? 0) + 1);
  // Nodes of each preferred set, and the preemption candidates holding any of them.
  const setNodes = new Map<string, Set<number>>();
  for (const job of pending) if (job.preferred && jobsPerSet.has(job.preferred.key)) setNodes.set(job.preferred.key, new Set(job.preferred.nodes));
  const preemptableIn = (key: string): boolean =>
    preemptable.some((i) => (running[i].holdings ?? []).some((h) => (setNodes.get(key) as Set<number>).has(h.node)));
  // Rows for a set two jobs share, or where preempting a running job would free some of it.
  const setRow = new Map<string, number>();
  for (const [key, n] of jobsPerSet) if (n >= 2 || preemptableIn(key)) setRow.set(key, setRow.size + 1);
  // Per slice: the cluster's resources, then each shared set's.
  const width = RESOURCES * (1 + setRow.size);
  const capacity = new Float64Array(slices * width);
  for (let t = 0; t < slices; t++) {
    for (let r = 0; r < RESOURCES; r++) {
      let left = 1;
      for (const use of runningUse) left -= use[t * RESOURCES + r];
      capacity[t * width + r] = left;
    }
    for (const [key, k] of setRow)
      for (let r = 0; r < RESOURCES; r++) capacity[t * width + k * RESOURCES + r] = (setCapacity.get(key) as Float64Array)[t * RESOURCES + r];
  }
  /** A use of the cluster's rows (and of set row block `k` when k > 0) laid out in the problem's width. */
  const widen = (use: Float64Array, k: number): Float64Array => {
    if (width === RESOURCES && k === 0) return use;
    const out = new Float64Array(slices * width);
    for (let t = 0; t < slices; t++)
      for (let r = 0; r < RESOURCES; r++) {
        out[t * width + r] = use[t * RESOURCES + r];
        if (k > 0) out[t * width + k * RESOURCES + r] = use[t * RESOURCES + r];
      }
    return out;
  };

  /** What preempting running job `i` frees: on the cluster's rows, and on each set's rows what it holds on the set's nodes. */
  const preemptionCredit = (clusterCredit: Float64Array, i: number): Float64Array => {
    const out = widen(clusterCredit, 0);
    if (out === clusterCredit && setRow.size === 0) return out;
    for (const [key, k] of setRow) {
      const inSet = setNodes.get(key) as Set<number>;
      for (const h of running[i].holdings ?? []) {
        if (!inSet.has(h.node)) continue;
        for (let t = 0; t < slices; t++) for (let r = 0; r < RESOURCES; r++) out[t * width + k * RESOURCES + r] += h.share[r] * survivalOf[i][t];
      }
    }
    return out;
  };

  const options: PlanOption[] = [];
  const optionStart: number[] = [];
  const optionPlacement: (Placement | undefined)[] = [];
  const optionUtility: number[] = [];
  const best: number[] = [];
  const handled: boolean[] = [];
  const seedChoice: number[] = [];
  const starts = startSlices(slices, p.fineStartSlices);
  for (const [j, job] of pending.entries()) {
    yield* loopTurn();
    const curve = utilityCurveOf(job, p);
    handled.push(curve.kind === 'slo' && curve.afterDeadline !== undefined);
    const bestEffort = curve.kind === 'bestEffort' ? { bestEffort: true } : {};
    const pref = job.preferred && setCapacity.has(job.preferred.key) ? job.preferred : undefined;
    const slower = pref ? scaled(job.distribution, Math.max(1, pref.slowdown)) : undefined;
    const k = pref ? (setRow.get(pref.key) ?? 0) : 0;
    const seedStart = seed.startMs[job.id];
    const seedPlacement = seed.placement?.[job.id];
    let top = 0;
    seedChoice.push(-1);
    const add = (s: number, u: number, use: Float64Array, placement: Placement | undefined, rowBlock: number): void => {
      if (seedStart !== undefined && seedChoice[j] < 0 && nowMs + s * p.sliceMs >= seedStart && placement === (pref ? (seedPlacement ?? placement) : undefined))
        seedChoice[j] = options.length;
      options.push({ job: j, utility: u * (1 - EARLIER_FIRST * s), use: widen(use, rowBlock), ...bestEffort });
      optionStart.push(s);
      optionPlacement.push(placement);
      optionUtility.push(u);
    };
    for (const s of starts) {
      const startMs = nowMs + s * p.sliceMs;
      const u = expectedUtility(job.distribution, startMs, curve);
      const use = u > NO_UTILITY ? expectedUse(job.distribution, job.demand, s, slices, p.sliceMs) : undefined;
      if (!pref || !slower) {
        top = Math.max(top, u);
        if (use) add(s, u, use, undefined, 0);
        continue;
      }
      // The preferred set: with rows of its own when shared, else only if it fits.
      const preferredOpen = use !== undefined && (k > 0 || fitsWithin(use, setCapacity.get(pref.key) as Float64Array));
      if (preferredOpen) {
        top = Math.max(top, u);
        add(s, u, use, 'preferred', k);
      }
      const ua = expectedUtility(slower, startMs, curve);
      if (ua <= NO_UTILITY || (preferredOpen && k === 0 && u >= ua)) continue;
      top = Math.max(top, ua);
      add(s, ua, expectedUse(slower, job.demand, s, slices, p.sliceMs), 'anywhere', 0);
    }
    best.push(top);
  }

  yield* loopTurn();
  const problem: PlanProblem = {
    jobs: pending.length,
    slices,
    resources: width,
    capacity,
    options,
    preemptions: preemptions.map((x, q) => ({ cost: x.cost, credit: preemptionCredit(x.credit, preemptable[q]) })),
    seed: seedChoice,
  };
  return { problem, slices, optionStart, optionPlacement, optionUtility, best, handled, runningPlans, preemptable, setsWithRows: setRow.size };
}

/** Expected utility a running job still earns if left to finish. */
export function remainingUtility(job: RunningJobToPlan, nowMs: number, p: PlanParams): number {
  const elapsed = Math.max(0, nowMs - job.runningSinceMs);
  const rest = remainingRuntime(job, nowMs, p).distribution;
  // `rest` holds runtimes from the job's start; completion = start + runtime.
  return expectedUtility(rest, nowMs, utilityCurveOf(job, p), elapsed);
}
