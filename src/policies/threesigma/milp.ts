/**
 * The plan as a mixed-integer linear programme (§4.3.3, §4.3.5), solved with HiGHS compiled to
 * WebAssembly (npm `highs`), or by a greedy packing when the solver is not available or returns
 * no usable answer.
 *
 *   maximise   Σ U_jo·I_jo − Σ P_r·I_r
 *   subject to Σ_o I_jo ≤ 1                                   for every job j
 *              Σ use_jo[t,d]·I_jo − Σ credit_r[t,d]·I_r ≤ C[t,d] for every slice t, resource d
 *              Σ_{best-effort o} use_jo[t,d]·I_jo ≤ C[t,d]          (when jobs may be preempted)
 *              I binary
 *
 * `use` is a job's expected consumption (demand × survival, §3.2) and `credit` what preempting a
 * running job gives back; both and C are fractions of the cluster's capacity. What preemption
 * frees is for SLO jobs only (§4.3.5: lower-priority jobs make room for deadlines), hence the
 * third set of rows.
 */
import {
  loadHighsOrReason,
  loopTurn,
  runLoadedMilp,
  runStepsInline,
  solveStep,
  type MilpModel,
  type MilpOutcome,
  type MilpRequest,
  type SolveSteps,
} from '../../core/milp.js';

export interface PlanOption {
  /** Index of the job (0-based, < `jobs`). */
  readonly job: number;
  readonly utility: number;
  /** Expected use per slice and resource: index t·resources + d. */
  readonly use: ArrayLike<number>;
  /** A best-effort job's option: it may not use what preemption frees. */
  readonly bestEffort?: boolean;
}

export interface PlanPreemption {
  readonly cost: number;
  /** Capacity given back per slice and resource: index t·resources + d. */
  readonly credit: ArrayLike<number>;
}

export interface PlanProblem {
  readonly jobs: number;
  readonly slices: number;
  readonly resources: number;
  /** Capacity left per slice and resource once running jobs are counted: index t·resources + d. */
  readonly capacity: ArrayLike<number>;
  readonly options: readonly PlanOption[];
  readonly preemptions: readonly PlanPreemption[];
  /** A known feasible choice to start from (last cycle's plan): option index per job or −1. */
  readonly seed?: readonly number[];
}

export interface SolverLimits {
  /** Branch-and-bound nodes (deterministic; use it in replays). */
  readonly maxNodes: number;
  /** Relative gap at which a solution counts as optimal. */
  readonly relativeGap: number;
  /** Wall-clock limit, ms; undefined in replays (a time limit makes runs differ). */
  readonly timeLimitMs?: number;
  /** The cycle's budget (live only): the solve ends by then, or is not started. */
  readonly deadline?: SolveDeadline;
}

/** When the cycle's budget runs out, on a monotonic clock, and the shortest solve worth starting. */
export interface SolveDeadline {
  /** Reading of `clockMs` by which the solve must end. */
  readonly endsAtMs: number;
  /** With less than this left, no solve is started: the warm start is the plan. */
  readonly minSolveMs: number;
  /** A monotonic clock, ms (`performance.now`). */
  readonly clockMs: () => number;
}

export interface PlanSolution {
  /** Chosen option index per job, −1 for none. */
  readonly chosen: number[];
  /** Whether each running job of `preemptions` is preempted. */
  readonly preempted: boolean[];
  readonly objective: number;
  readonly solver: 'highs' | 'greedy';
  /** Solver status, or why the greedy packing was used. */
  readonly status: string;
  /** Wall-clock time in HiGHS, ms (0 when it was not called). */
  readonly solveMs: number;
  /** HiGHS's relative MIP gap when its run ended (absent when HiGHS was not called). */
  readonly mipGap?: number;
  /** Set when the cycle's budget left too little to solve: the warm start is the plan, and why. */
  readonly budgetSpent?: string;
  readonly columns: number;
  readonly rows: number;
  readonly nonzeros: number;
}

/**
 * HiGHS settings that keep a solve short on these problems: with its default cut pool the root
 * kept thousands of cuts of the fractional expected-use rows and the gap stayed open for 1,000
 * nodes; a small pool whose cuts age out fast closed it at the root. RINS/RENS spent most of the
 * remaining work. Reliability branching's strong-branching LPs were 17,730 of the 23,135 LP
 * iterations of a 200-job plan; branching by pseudo-costs from the first node kept or raised the
 * objective of fifteen plans of 10 to 200 jobs for 34–58 % less CPU from 60 jobs on (docs/benchmarks.md).
 * The node limit bounds the rest.
 */
const BOUNDED_EFFORT = {
  mip_pool_soft_limit: 30,
  mip_lp_age_limit: 2,
  mip_heuristic_run_rins: false,
  mip_heuristic_run_rens: false,
  mip_pscost_minreliable: 0,
} as const;

/** Coefficients below this are left out of the model (HiGHS drops those below 1e-9 with a warning). */
const NEGLIGIBLE_USE = 1e-9;

/** Tolerance of the capacity check on a solution (the solver's own is 1e-7 on rows). */
const FEASIBILITY_TOLERANCE = 1e-6;

// Loaded once when the module is imported, so that `decide` stays synchronous and every cycle of
// a replay solves the same way.
const loaded = await loadHighsOrReason();

/** Whether HiGHS loaded; otherwise why not. */
export function solverAvailability(): { available: boolean; error?: string } {
  return loaded.highs ? { available: true } : { available: false, error: loaded.error };
}

/** Whether the choice respects one option per job and every capacity row. */
export function isFeasible(p: PlanProblem, chosen: readonly number[], preempted: readonly boolean[]): boolean {
  const rows = p.slices * p.resources;
  const load = new Float64Array(rows);
  const seen = new Set<number>();
  for (let j = 0; j < chosen.length; j++) {
    const o = chosen[j];
    if (o < 0) continue;
    const opt = p.options[o];
    if (opt.job !== j || seen.has(j)) return false;
    seen.add(j);
    for (let r = 0; r < rows; r++) load[r] += opt.use[r];
  }
  for (let r = 0; r < rows; r++) if (bestEffortLoad(p, chosen, r) > p.capacity[r] + FEASIBILITY_TOLERANCE) return false;
  for (let i = 0; i < p.preemptions.length; i++) if (preempted[i]) for (let r = 0; r < rows; r++) load[r] -= p.preemptions[i].credit[r];
  for (let r = 0; r < rows; r++) if (load[r] > p.capacity[r] + FEASIBILITY_TOLERANCE) return false;
  return true;
}

function bestEffortLoad(p: PlanProblem, chosen: readonly number[], r: number): number {
  let load = 0;
  for (const o of chosen) if (o >= 0 && p.options[o].bestEffort) load += p.options[o].use[r];
  return load;
}

/** Whether the best-effort rows are needed: only preemption could let best-effort jobs past capacity. */
function needsBestEffortRows(p: PlanProblem): boolean {
  return p.preemptions.length > 0 && p.options.some((o) => o.bestEffort);
}

function objectiveOf(p: PlanProblem, chosen: readonly number[], preempted: readonly boolean[]): number {
  let z = 0;
  for (const o of chosen) if (o >= 0) z += p.options[o].utility;
  for (let i = 0; i < p.preemptions.length; i++) if (preempted[i]) z -= p.preemptions[i].cost;
  return z;
}

/**
 * Greedy packing: options by utility (highest first; ties to the earlier job, then the earlier
 * option), each taken when its job has none yet and it fits what is left. Never preempts.
 */
export function solveGreedy(p: PlanProblem, why: string): PlanSolution {
  const rows = p.slices * p.resources;
  const left = Float64Array.from(p.capacity as ArrayLike<number>);
  const chosen = new Array<number>(p.jobs).fill(-1);
  const order = p.options.map((_, i) => i).sort((a, b) => p.options[b].utility - p.options[a].utility || p.options[a].job - p.options[b].job || a - b);
  for (const o of order) {
    const opt = p.options[o];
    if (opt.utility <= 0 || chosen[opt.job] >= 0) continue;
    let fits = true;
    for (let r = 0; r < rows && fits; r++) if (opt.use[r] > left[r] + FEASIBILITY_TOLERANCE) fits = false;
    if (!fits) continue;
    chosen[opt.job] = o;
    for (let r = 0; r < rows; r++) left[r] -= opt.use[r];
  }
  const preempted = p.preemptions.map(() => false);
  return { chosen, preempted, objective: objectiveOf(p, chosen, preempted), solver: 'greedy', status: why, solveMs: 0, ...sizeOf(p) };
}

function everyJobHasItsBestOption(p: PlanProblem, chosen: readonly number[]): boolean {
  const best = new Array<number>(p.jobs).fill(0);
  for (const o of p.options) if (o.utility > best[o.job]) best[o.job] = o.utility;
  for (let j = 0; j < p.jobs; j++) if (best[j] > 0 && (chosen[j] < 0 || p.options[chosen[j]].utility < best[j])) return false;
  return true;
}

function sizeOf(p: PlanProblem): { columns: number; rows: number; nonzeros: number } {
  let nonzeros = p.options.length;
  for (const o of p.options) for (let r = 0; r < o.use.length; r++) if (o.use[r] !== 0) nonzeros++;
  for (const x of p.preemptions) for (let r = 0; r < x.credit.length; r++) if (x.credit[r] !== 0) nonzeros++;
  return { columns: p.options.length + p.preemptions.length, rows: p.jobs + p.slices * p.resources * (needsBestEffortRows(p) ? 2 : 1), nonzeros };
}

/** Solves the plan with HiGHS on this thread; falls back to the greedy packing when that gives no usable answer. */
export function solvePlan(p: PlanProblem, limits: SolverLimits): PlanSolution {
  return runStepsInline(solvePlanSteps(p, limits), solveInline);
}

/** HiGHS loaded with this module, run on the caller's thread (replays, tests, a runtime without a worker). */
export function solveInline(request: MilpRequest): MilpOutcome {
  return runLoadedMilp(loaded, request, '');
}

/**
 * The solve as steps: what needs no solver is answered here; otherwise the MILP is yielded to the
 * runtime (`core/milp.ts`), and its outcome read back against the warm start.
 */
export function* solvePlanSteps(p: PlanProblem, limits: SolverLimits): SolveSteps<PlanSolution> {
  // Without options preempting only costs; when every job gets its best option packed greedily,
  // no plan earns more (preempting could only add cost): both need no solver.
  if (p.options.length === 0)
    return {
      chosen: new Array<number>(p.jobs).fill(-1),
      preempted: p.preemptions.map(() => false),
      objective: 0,
      solver: 'greedy',
      status: 'optimal: no options',
      solveMs: 0,
      ...sizeOf(p),
    };
  const greedy = solveGreedy(p, 'optimal: every job has its best option');
  if (everyJobHasItsBestOption(p, greedy.chosen)) return greedy;
  // Live, the event loop runs between the steps of a large plan (each tens of ms at 200 jobs).
  yield* loopTurn();
  const start = startingPlan(p, greedy.chosen);
  if (limits.deadline && msLeft(limits.deadline) < limits.deadline.minSolveMs) return keepWarmStartWhenBudgetSpent(p, start, limits.deadline);
  yield* loopTurn();
  const model = planModel(p);
  const startValues = new Array<number>(model.numCols).fill(0);
  for (const o of start.chosen) if (o >= 0) startValues[o] = 1;
  const outcome = yield* solveStep({
    model,
    run: {
      options: { random_seed: 0, mip_max_nodes: limits.maxNodes, mip_rel_gap: limits.relativeGap, ...BOUNDED_EFFORT },
      start: startValues,
      ...(limits.timeLimitMs !== undefined ? { timeLimitMs: limits.timeLimitMs } : {}),
    },
    ...(limits.deadline ? { timeLeftMs: msLeft(limits.deadline), minSolveMs: limits.deadline.minSolveMs } : {}),
  });
  return planFromOutcome(p, outcome, start, { columns: model.numCols, rows: model.numRows, nonzeros: model.matrix.values.length });
}

function msLeft(d: SolveDeadline): number {
  return d.endsAtMs - d.clockMs();
}

/**
 * The cycle's budget is spent (the predictions, the model or the warm start took it): no solve,
 * the warm start is the plan — feasible, and never less than the last plan or the greedy packing.
 */
export function keepWarmStartWhenBudgetSpent(p: PlanProblem, start: StartingPlan, d: SolveDeadline): PlanSolution {
  return warmStartKept(p, start, `${Math.max(0, msLeft(d)).toFixed(0)} ms left, a solve needs ${d.minSolveMs} ms`, 0);
}

/** The warm start as the plan, the budget having run out before (or during) the solve; `why` says how. */
function warmStartKept(p: PlanProblem, start: StartingPlan, why: string, solveMs: number): PlanSolution {
  const status = `cycle budget spent (${why}): ${start.from} kept, not solved`;
  return {
    chosen: [...start.chosen],
    preempted: p.preemptions.map(() => false),
    objective: start.objective,
    solver: 'greedy',
    status,
    solveMs,
    budgetSpent: status,
    ...sizeOf(p),
  };
}

export interface StartingPlan {
  readonly chosen: readonly number[];
  readonly objective: number;
  readonly from: 'last plan' | 'greedy packing';
}

/**
 * §4.3.6: the solve starts from the last cycle's plan when it is still feasible — leaving the
 * cluster as it is — or from the greedy packing when that earns more (or there is no last plan).
 * HiGHS then holds an incumbent from its first node, prunes against it, and a solve stopped by
 * its node or time limit never returns less than this start.
 */
function startingPlan(p: PlanProblem, greedyChosen: readonly number[]): StartingPlan {
  const noPreemption = p.preemptions.map(() => false);
  const greedyObjective = objectiveOf(p, greedyChosen, noPreemption);
  if (p.seed && p.seed.length === p.jobs && isFeasible(p, p.seed, noPreemption)) {
    const seedObjective = objectiveOf(p, p.seed, noPreemption);
    if (seedObjective >= greedyObjective) return { chosen: p.seed, objective: seedObjective, from: 'last plan' };
  }
  return { chosen: greedyChosen, objective: greedyObjective, from: 'greedy packing' };
}

/** The plan's MILP (see the head of this file), column-wise: each option has its job's row and its capacity rows; each preemption its credits. */
function planModel(p: PlanProblem): MilpModel {
  const rowsCap = p.slices * p.resources;
  const bestEffortRows = needsBestEffortRows(p);
  const numRows = p.jobs + rowsCap * (bestEffortRows ? 2 : 1);
  const numCols = p.options.length + p.preemptions.length;
  const starts: number[] = [0];
  const indices: number[] = [];
  const values: number[] = [];
  const colCost: number[] = [];
  for (const o of p.options) {
    indices.push(o.job);
    values.push(1);
    for (let r = 0; r < rowsCap; r++) {
      if (o.use[r] < NEGLIGIBLE_USE) continue;
      indices.push(p.jobs + r);
      values.push(o.use[r]);
    }
    if (bestEffortRows && o.bestEffort) {
      for (let r = 0; r < rowsCap; r++) {
        if (o.use[r] < NEGLIGIBLE_USE) continue;
        indices.push(p.jobs + rowsCap + r);
        values.push(o.use[r]);
      }
    }
    starts.push(indices.length);
    colCost.push(o.utility);
  }
  for (const x of p.preemptions) {
    for (let r = 0; r < rowsCap; r++) {
      if (x.credit[r] < NEGLIGIBLE_USE) continue;
      indices.push(p.jobs + r);
      values.push(-x.credit[r]);
    }
    starts.push(indices.length);
    colCost.push(-x.cost);
  }
  const rowUpper = new Array<number>(numRows);
  for (let j = 0; j < p.jobs; j++) rowUpper[j] = 1;
  for (let r = 0; r < rowsCap; r++) rowUpper[p.jobs + r] = Math.max(0, p.capacity[r]);
  if (bestEffortRows) for (let r = 0; r < rowsCap; r++) rowUpper[p.jobs + rowsCap + r] = Math.max(0, p.capacity[r]);
  return {
    sense: 'maximize',
    numCols,
    numRows,
    colCost,
    colLower: new Array<number>(numCols).fill(0),
    colUpper: new Array<number>(numCols).fill(1),
    rowLower: new Array<number>(numRows).fill(-Infinity),
    rowUpper,
    matrix: { starts, indices, values },
    integer: true,
  };
}

/** The plan from the solver's outcome; the warm start stands when the solve gave nothing better (or nothing). */
function planFromOutcome(p: PlanProblem, outcome: MilpOutcome, start: StartingPlan, size: { columns: number; rows: number; nonzeros: number }): PlanSolution {
  if (!outcome.solved) {
    return outcome.why === 'failed' ? solveGreedy(p, outcome.error) : warmStartKept(p, start, outcome.error, outcome.solveMs);
  }
  const { status, solveMs, mipGap, colValue: x } = outcome;
  const numCols = p.options.length + p.preemptions.length;
  const chosen = new Array<number>(p.jobs).fill(-1);
  const preempted = p.preemptions.map(() => false);
  if (x.length === numCols) {
    for (let o = 0; o < p.options.length; o++) if (x[o] > 0.5) chosen[p.options[o].job] = o;
    for (let i = 0; i < p.preemptions.length; i++) preempted[i] = x[p.options.length + i] > 0.5;
  }
  const usable = x.length === numCols && isFeasible(p, chosen, preempted);
  const objective = usable ? objectiveOf(p, chosen, preempted) : -Infinity;
  // A solve cut short may hold nothing better than its start (or nothing at all): the start stands.
  if (objective < start.objective - FEASIBILITY_TOLERANCE)
    return {
      chosen: [...start.chosen],
      preempted: p.preemptions.map(() => false),
      objective: start.objective,
      solver: 'highs',
      status: `${status}: ${start.from} kept`,
      solveMs,
      ...(mipGap !== undefined ? { mipGap } : {}),
      ...size,
    };
  return { chosen, preempted, objective, solver: 'highs', status, solveMs, ...(mipGap !== undefined ? { mipGap } : {}), ...size };
}
