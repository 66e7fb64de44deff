import { afterAll, describe, expect, it } from 'vitest';
import { LOOP_SLICE_MS, loadHighs, loopTurn, runMilp, runStepsInline, runStepsOffThread, type MilpRequest, type SolveSteps } from '../../src/core/milp.js';
import { WorkerMilpSolver } from '../../src/engine/milp-solver.js';
import { solverAvailability } from '../../src/policies/threesigma/milp.js';
import { threeSigmaParamsSchema } from '../../src/policies/threesigma/params.js';
import { planCycle, planCycleSteps } from '../../src/policies/threesigma/plan.js';
import { knapsack, sixteenPending, tenRunning } from './milp-fixtures.js';

const MIN = 60_000;

const small: MilpRequest = { model: knapsack(12, 3, 7), run: { options: { mip_rel_gap: 0, random_seed: 0 } } };
// 100 items in 10 rows: HiGHS does not close the gap within seconds.
const hard = (timeLimitMs: number, timeLeftMs: number): MilpRequest => ({
  model: knapsack(100, 10, 7),
  run: { options: { mip_rel_gap: 0, random_seed: 0 }, timeLimitMs },
  timeLeftMs,
});

describe('the engine solver: HiGHS in a worker thread', () => {
  const solvers: WorkerMilpSolver[] = [];
  const solver = (opts: ConstructorParameters<typeof WorkerMilpSolver>[0] = {}) => {
    const s = new WorkerMilpSolver(opts);
    solvers.push(s);
    return s;
  };
  afterAll(async () => {
    await Promise.all(solvers.map((s) => s.close()));
  });

  it('answers as HiGHS on this thread does', async (ctx) => {
    if (!solverAvailability().available) ctx.skip();
    const inline = runMilp(await loadHighs(), small);
    const s = solver();
    const off = await s.solve(small);
    expect(off.solved && inline.solved).toBe(true);
    if (!off.solved || !inline.solved) return;
    expect(off.status).toBe('optimal');
    expect(Array.from(off.colValue)).toEqual(Array.from(inline.colValue));
    expect(s.stats).toMatchObject({ solves: 1, leftBehind: 0, workerFailures: 0, workersStarted: 1 });
  });

  it('leaves the event loop free while it solves', async (ctx) => {
    if (!solverAvailability().available) ctx.skip();
    const s = solver();
    await s.warm();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const outcome = await s.solve(hard(300, 10_000));
    clearInterval(ticker);
    expect(outcome).toMatchObject({ solved: true, status: 'timeLimit' });
    // Run on this thread, the solve would have held every tick back until it ended.
    expect(ticks).toBeGreaterThan(1);
  });

  it('goes on without a solve still running when its time is up; the next solve waits for the worker to finish it', async (ctx) => {
    if (!solverAvailability().available) ctx.skip();
    const stops: string[] = [];
    // A grace below zero stands for a HiGHS that runs past its own time limit (here 600 ms): the answer is due at 200 ms.
    const s = solver({ graceMs: -400, onStop: (why) => stops.push(why) });
    await s.warm();
    const cut = await s.solve(hard(600, 600));
    expect(cut).toMatchObject({ solved: false, why: 'deadline' });
    if (!cut.solved) expect(cut.error).toMatch(/^solve left behind after \d+ ms, at the end of the \d+ ms it had$/);
    expect(stops).toEqual(['deadline']);
    // No time limit: it waits for HiGHS to end the solve left behind, then runs in the same worker.
    expect(await s.solve(small)).toMatchObject({ solved: true, status: 'optimal' });
    expect(s.stats).toMatchObject({ solves: 2, leftBehind: 1, notStarted: 0, terminated: 0, workersStarted: 1 });
  });

  it('does not start a solve whose time runs out while a solve left behind keeps the worker', async (ctx) => {
    if (!solverAvailability().available) ctx.skip();
    const s = solver({ graceMs: -9_800 });
    await s.warm();
    expect(await s.solve(hard(10_000, 10_000))).toMatchObject({ solved: false, why: 'deadline' });
    const late = await s.solve({ ...small, timeLeftMs: 100 });
    expect(late).toMatchObject({ solved: false, why: 'deadline' });
    if (!late.solved) expect(late.error).toBe("the solver worker was still busy with a solve left behind when this one's 100 ms ran out");
    expect(s.stats).toMatchObject({ leftBehind: 1, notStarted: 1 });
  });

  it('terminates a worker a solve left behind keeps past hungAfterMs; the next solve gets a fresh worker', async (ctx) => {
    if (!solverAvailability().available) ctx.skip();
    const s = solver({ graceMs: -9_800, hungAfterMs: 300 });
    await s.warm();
    expect(await s.solve(hard(10_000, 10_000))).toMatchObject({ solved: false, why: 'deadline' });
    expect(await s.solve(small)).toMatchObject({ solved: true, status: 'optimal' });
    expect(s.stats).toMatchObject({ solves: 2, leftBehind: 1, terminated: 1, workersStarted: 2 });
  });

  it('does not start a solve whose time went on waiting for another', async (ctx) => {
    if (!solverAvailability().available) ctx.skip();
    const s = solver();
    await s.warm();
    const first = s.solve(hard(300, 10_000));
    const second = s.solve({ ...small, timeLeftMs: 100, minSolveMs: 50 });
    expect(await first).toMatchObject({ solved: true });
    const late = await second;
    expect(late).toMatchObject({ solved: false, why: 'deadline' });
    if (!late.solved) expect(late.error).toMatch(/ms waiting for the solver, a solve needs 50 ms$/);
    expect(s.stats.notStarted).toBe(1);
  });

  it("does not wait past a solve's time for a worker still loading HiGHS", async () => {
    const s = solver();
    // Loading HiGHS (compiling its WebAssembly) takes far longer than 1 ms.
    const late = await s.solve({ ...small, timeLeftMs: 1 });
    expect(late).toMatchObject({ solved: false, why: 'deadline' });
    if (!late.solved) expect(late.error).toBe("the solver worker was still loading HiGHS when the solve's 1 ms ran out");
    // The worker goes on loading: the next solve with time to spare uses it.
    expect(await s.solve(small)).toMatchObject({ solved: true, status: 'optimal' });
    expect(s.stats).toMatchObject({ notStarted: 1, workersStarted: 1 });
  });

  it('a closed solver answers failed', async () => {
    const s = solver();
    await s.close();
    expect(await s.solve(small)).toMatchObject({ solved: false, why: 'failed', error: 'solver closed' });
  });
});

describe('3Sigma plan steps solved off the thread', () => {
  const pending = sixteenPending;
  const running = tenRunning;

  it('give the plan the same steps give on this thread (no time limit: a replay)', async (ctx) => {
    if (!solverAvailability().available) ctx.skip();
    const p = threeSigmaParamsSchema.parse({ sliceMs: 150_000, planAheadMs: 20 * MIN, solver: { timeLimitMs: null } });
    const s = new WorkerMilpSolver();
    try {
      const off = await runStepsOffThread(planCycleSteps(MIN, pending, running, p), s);
      const inline = planCycle(MIN, pending, running, p);
      expect(off.solution.solver).toBe('highs');
      const { solveMs: _a, ...offMeta } = off.solution;
      const { solveMs: _b, ...inlineMeta } = inline.solution;
      expect(offMeta).toEqual(inlineMeta);
      expect(off.pending).toEqual(inline.pending);
      expect(off.running).toEqual(inline.running);
    } finally {
      await s.close();
    }
  });
});

describe('turns of the event loop in a long cycle', () => {
  /** A cycle that holds the loop for twice the slice, then offers a turn: whether a callback queued at its start ran by then. */
  function* longPhase(): SolveSteps<boolean> {
    let timerRan = false;
    setImmediate(() => (timerRan = true));
    const from = performance.now();
    while (performance.now() - from < 2 * LOOP_SLICE_MS);
    yield* loopTurn();
    return timerRan;
  }
  const noSolver = { solve: () => Promise.reject(new Error('no solve in this cycle')) };

  it('run off the loop, a cycle that held the loop for a slice lets it run at its next turn', async () => {
    expect(await runStepsOffThread(longPhase(), noSolver)).toBe(true);
  });

  it("run on the caller's thread (replays), a turn is nothing", () => {
    expect(runStepsInline(longPhase(), () => ({ solved: false, why: 'failed', error: 'no solve in this cycle', solveMs: 0 }))).toBe(false);
  });
});
