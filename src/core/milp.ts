/**
 * Mixed-integer programmes a policy hands to the runtime to solve (HiGHS, npm `highs`).
 *
 * A solve can take as long as its time limit, and HiGHS in WebAssembly cannot be interrupted from
 * the thread it runs on. A policy whose cycle solves one therefore writes the cycle as steps
 * (`Policy.decideInSteps`) that yield each `MilpRequest` and receive its `MilpOutcome`: the live
 * engine runs the solve in a worker thread, which it stops at the request's deadline, so the event
 * loop keeps answering meanwhile; `runStepsInline` runs it on the caller's thread, as the simulator
 * does (a replay is the same at every run).
 */
import highsModule, { type Highs, type InitOptions } from 'highs';

// The package's one declaration file is read as CommonJS (its default is then the module object);
// Node's ESM resolution gives the loader itself. Either way, this is the loader.
const highsLoader = ((highsModule as unknown as { default?: unknown }).default ?? highsModule) as (options?: InitOptions) => Promise<Highs>;

/** Loads HiGHS (WebAssembly) for this thread. */
export function loadHighs(): Promise<Highs> {
  return highsLoader();
}

/** HiGHS loaded for this thread, or why it could not be. */
export type LoadedHighs = { readonly highs: Highs } | { readonly highs?: undefined; readonly error: string };

/** Loads HiGHS, keeping a failure as its reason so that each solve can answer with it instead of throwing. */
export async function loadHighsOrReason(): Promise<LoadedHighs> {
  try {
    return { highs: await highsLoader() };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/** Runs the request on the loaded HiGHS; without one, a failed outcome saying why (`where`: whose HiGHS). */
export function runLoadedMilp(loaded: LoadedHighs, request: MilpRequest, where: string): MilpOutcome {
  if (loaded.highs) return runMilp(loaded.highs, request);
  return { solved: false, why: 'failed', error: `HiGHS unavailable${where}: ${loaded.error}`, solveMs: 0 };
}

/** A programme, column-wise (compressed sparse columns). Bounds may be ±Infinity. */
export interface MilpModel {
  readonly sense: 'maximize' | 'minimize';
  readonly numCols: number;
  readonly numRows: number;
  readonly colCost: readonly number[];
  readonly colLower: readonly number[];
  readonly colUpper: readonly number[];
  readonly rowLower: readonly number[];
  readonly rowUpper: readonly number[];
  /** Column j's entries are `indices[starts[j]..starts[j+1])` (row numbers) and the same range of `values`. */
  readonly matrix: { readonly starts: readonly number[]; readonly indices: readonly number[]; readonly values: readonly number[] };
  /** Every column integer (else every column continuous). */
  readonly integer: boolean;
}

/** How to run a solve. */
export interface MilpRun {
  /** HiGHS options by their native names (e.g. `mip_max_nodes`). */
  readonly options: Readonly<Record<string, number | boolean | string>>;
  /** A feasible point to start from (HiGHS keeps it as its incumbent). */
  readonly start?: readonly number[];
  /** HiGHS's own time limit, ms; unset: none (replays). */
  readonly timeLimitMs?: number;
}

export interface MilpRequest {
  readonly model: MilpModel;
  readonly run: MilpRun;
  /**
   * Live only: how long the solve may take from when it is asked for, ms. A solver that can stop a
   * solve (the engine's worker) stops it then; on the caller's thread HiGHS's time limit, cut to
   * what is left, ends it.
   */
  readonly timeLeftMs?: number;
  /** With less than this left when the run would start, it is not started (outcome `deadline`). */
  readonly minSolveMs?: number;
}

export type MilpOutcome =
  | {
      readonly solved: true;
      /** HiGHS's model status by name (`optimal`, `timeLimit`, …). */
      readonly status: string;
      /** Column values; empty when HiGHS holds no solution. */
      readonly colValue: ArrayLike<number>;
      /** Relative MIP gap when the run ended, when HiGHS gives a finite one. */
      readonly mipGap?: number;
      /** Time inside HiGHS's run, ms. */
      readonly solveMs: number;
    }
  | {
      readonly solved: false;
      /** `deadline`: stopped when `timeLeftMs` ran out, or not started for lack of time; `failed`: the solver failed. */
      readonly why: 'deadline' | 'failed';
      readonly error: string;
      /** Time spent before it stopped, ms. */
      readonly solveMs: number;
    };

/**
 * Yielded where a long cycle may let the event loop run: the live engine takes a turn there once
 * the cycle has held the loop for `LOOP_SLICE_MS` (an HTTP request waiting is answered), as it
 * does during a solve; on the caller's thread it is nothing. The cycle's state is its own
 * throughout: nothing else runs the policy's cycle on it meanwhile.
 */
export interface LoopTurn {
  readonly loopTurn: true;
}

/** How long a cycle run off the loop holds the event loop before it takes a turn, ms. */
export const LOOP_SLICE_MS = 5;

const LOOP_TURN: LoopTurn = { loopTurn: true };

/** The steps of a cycle: yields each solve (and each turn of the loop), receives each outcome, returns the result. */
export type SolveSteps<R> = Generator<MilpRequest | LoopTurn, R, MilpOutcome | undefined>;

/** One solve, as a step: `const outcome = yield* solveStep(request)`. */
export function* solveStep(request: MilpRequest): SolveSteps<MilpOutcome> {
  const outcome = yield request;
  if (outcome === undefined) throw new Error('a solve step was resumed without its outcome');
  return outcome;
}

/** Where a cycle may let the event loop run, as a step: `yield* loopTurn()` in its long loops. */
export function* loopTurn(): SolveSteps<void> {
  yield LOOP_TURN;
}

function isLoopTurn(step: MilpRequest | LoopTurn): step is LoopTurn {
  return (step as LoopTurn).loopTurn === true;
}

/** Solves one request where it is called (blocking). */
export type InlineMilpSolver = (request: MilpRequest) => MilpOutcome;

/** A solver the runtime runs away from the caller's thread (the engine's worker). */
export interface MilpSolver {
  solve(request: MilpRequest): Promise<MilpOutcome>;
}

/** Runs the steps to their end, each request solved by `solver` on this thread. */
export function runStepsInline<R>(steps: SolveSteps<R>, solver: InlineMilpSolver): R {
  let next = steps.next();
  while (!next.done) next = steps.next(isLoopTurn(next.value) ? undefined : solver(next.value));
  return next.value;
}

/** Runs the steps of a cycle that never solves to their end on this thread (its turns are nothing here). */
export function runTurnsInline<R>(steps: SolveSteps<R>): R {
  return runStepsInline(steps, () => {
    throw new Error('the cycle asked for a solve where none can be made');
  });
}

/**
 * Runs the steps to their end, each request solved by `solver` while this thread goes on, and the
 * event loop run at a turn once the steps have held it for `LOOP_SLICE_MS`.
 */
export async function runStepsOffThread<R>(steps: SolveSteps<R>, solver: MilpSolver): Promise<R> {
  let heldSinceMs = performance.now();
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    let outcome: MilpOutcome | undefined;
    if (!isLoopTurn(step)) outcome = await solver.solve(step);
    else if (performance.now() - heldSinceMs >= LOOP_SLICE_MS) await new Promise<void>((resolve) => setImmediate(resolve));
    else {
      next = steps.next(undefined);
      continue;
    }
    heldSinceMs = performance.now();
    next = steps.next(outcome);
  }
  return next.value;
}

/** Runs one request with a loaded HiGHS, on this thread (the mechanism behind every solver). */
export function runMilp(h: Highs, request: MilpRequest): MilpOutcome {
  const askedAtMs = performance.now();
  const { model: m, run } = request;
  const finite = (v: number): number => (v === Infinity ? h.infinity : v === -Infinity ? -h.infinity : v);
  try {
    return h.withModel(
      {
        numCols: m.numCols,
        numRows: m.numRows,
        sense: m.sense === 'maximize' ? h.constants.objectiveSense.maximize : h.constants.objectiveSense.minimize,
        colCost: [...m.colCost],
        colLower: m.colLower.map(finite),
        colUpper: m.colUpper.map(finite),
        rowLower: m.rowLower.map(finite),
        rowUpper: m.rowUpper.map(finite),
        matrix: {
          format: 'csc',
          numRows: m.numRows,
          numCols: m.numCols,
          starts: [...m.matrix.starts],
          indices: [...m.matrix.indices],
          values: [...m.matrix.values],
        },
        ...(m.integer ? { integrality: new Array<0 | 1>(m.numCols).fill(h.constants.variableType.integer) } : {}),
      },
      (model): MilpOutcome => {
        model.options.set({ output_flag: false, ...run.options });
        // Passing the model took time too: what is left before the deadline is read just before the run.
        const leftMs = request.timeLeftMs !== undefined ? askedAtMs + request.timeLeftMs - performance.now() : Infinity;
        if (leftMs < (request.minSolveMs ?? 0))
          return { solved: false, why: 'deadline', error: `${Math.max(0, leftMs).toFixed(0)} ms left, a solve needs ${request.minSolveMs} ms`, solveMs: 0 };
        const timeLimitMs = Math.min(run.timeLimitMs ?? Infinity, leftMs);
        if (timeLimitMs !== Infinity) model.options.set('time_limit', timeLimitMs / 1000);
        if (run.start) model.setSolution({ colValue: [...run.start] });
        const startedMs = performance.now();
        const result = model.run();
        const solveMs = performance.now() - startedMs;
        const mipGap = mipGapOf(model);
        return {
          solved: true,
          status: statusName(h, result.modelStatus),
          colValue: model.getSolution().colValue,
          ...(mipGap !== undefined ? { mipGap } : {}),
          solveMs,
        };
      },
    );
  } catch (e) {
    return { solved: false, why: 'failed', error: `HiGHS failed: ${e instanceof Error ? e.message : String(e)}`, solveMs: 0 };
  }
}

/** HiGHS's relative MIP gap after a run; undefined when it gives none (no MIP solve, or an infinite gap). */
function mipGapOf(model: { info: { get(name: string): number | bigint } }): number | undefined {
  try {
    const g = model.info.get('mip_gap');
    return typeof g === 'number' && Number.isFinite(g) ? g : undefined;
  } catch {
    return undefined;
  }
}

function statusName(h: Highs, code: number): string {
  for (const [name, value] of Object.entries(h.constants.modelStatus)) if (value === code) return name;
  return String(code);
}
