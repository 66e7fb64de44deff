import { describe, expect, it } from 'vitest';
import * as fc from 'fast-check';
import { fromWeighted, pointMass } from '../../src/policies/threesigma/distribution.js';
import { isFeasible, solveGreedy, solvePlan, solverAvailability, type PlanProblem } from '../../src/policies/threesigma/milp.js';
import { threeSigmaParamsSchema } from '../../src/policies/threesigma/params.js';
import {
  cycleDeadline,
  cycleProblem,
  expectedUse,
  extendUnderestimate,
  handlesOverestimate,
  planCycle,
  remainingRuntime,
  startSlices,
  type JobToPlan,
  type RunningJobToPlan,
} from '../../src/policies/threesigma/plan.js';
import { expectedUtility, utilityAt } from '../../src/policies/threesigma/utility.js';
import { sixteenPending, tenRunning } from './milp-fixtures.js';

const MIN = 60_000;
// The paper's §2.3 / §4.3.2 example: one node, 2.5 min slices, a window of [0, 20) min.
const params = threeSigmaParamsSchema.parse({ sliceMs: 150_000, planAheadMs: 20 * MIN });
const uniform0to10 = fromWeighted([2.5 * MIN, 5 * MIN, 7.5 * MIN, 10 * MIN], [1, 1, 1, 1]);
const uniform2_5to7_5 = fromWeighted([5 * MIN, 7.5 * MIN], [1, 1]);
const whole = [1, 1];

const slo = (over: Partial<JobToPlan> = {}): JobToPlan => ({
  id: 'slo',
  kind: 'slo',
  submittedAtMs: 0,
  deadlineMs: 15 * MIN,
  demand: whole,
  distribution: uniform0to10,
  ...over,
});
const be = (over: Partial<JobToPlan> = {}): JobToPlan => ({
  id: 'be',
  kind: 'bestEffort',
  submittedAtMs: 0,
  demand: whole,
  distribution: uniform0to10,
  ...over,
});

describe('3Sigma expected utility and consumption (§3)', () => {
  it('values an SLO job’s start by its chance to meet the deadline (Fig. 5e)', () => {
    const curve = { kind: 'slo' as const, maxUtility: 1, deadlineMs: 15 * MIN };
    expect([0, 2.5, 5, 7.5, 10, 12.5, 15].map((s) => expectedUtility(uniform0to10, s * MIN, curve))).toEqual([1, 1, 1, 0.75, 0.5, 0.25, 0]);
  });

  it('expects a job to hold its resources with the probability it still runs (§4.3.4)', () => {
    expect([...expectedUse(uniform0to10, [1, 0.5], 0, 5, 2.5 * MIN)]).toEqual([1, 0.5, 0.75, 0.375, 0.5, 0.25, 0.25, 0.125, 0, 0]);
    expect([...expectedUse(uniform2_5to7_5, [1, 1], 1, 4, 2.5 * MIN)]).toEqual([0, 0, 1, 1, 1, 1, 0.5, 0.5]);
  });

  it('decays a best-effort job’s utility linearly to its floor', () => {
    const u = { kind: 'bestEffort' as const, maxUtility: 0.2, submittedAtMs: 0, decayMs: 60 * MIN, floorFraction: 0.05 };
    expect(utilityAt(u, 0)).toBe(0.2);
    expect(utilityAt(u, 30 * MIN)).toBeCloseTo(0.1, 12);
    expect(utilityAt(u, 600 * MIN)).toBeCloseTo(0.01, 12);
  });
});

describe('3Sigma plan: the paper’s two-job example (§4.3.2)', () => {
  it('scenario 1, runtimes ~ U(0, 10) min: the SLO job goes first, the best-effort job waits for the node', () => {
    const plan = planCycle(0, [be(), slo()], [], params);
    expect(plan.solution.solver).toBe('highs');
    expect(plan.pending.find((j) => j.id === 'slo')!.startSlice).toBe(0);
    expect(plan.pending.find((j) => j.id === 'be')!.startSlice).toBe(4);
  });

  it('scenario 2, runtimes ~ U(2.5, 7.5) min: the best-effort job goes first and the SLO job still meets its deadline', () => {
    const plan = planCycle(0, [be({ distribution: uniform2_5to7_5 }), slo({ distribution: uniform2_5to7_5 })], [], params);
    const s = plan.pending.find((j) => j.id === 'slo')!;
    expect(plan.pending.find((j) => j.id === 'be')!.startSlice).toBe(0);
    expect(s.startSlice).toBe(3);
    expect(s.expectedUtility).toBe(1);
  });

  it('an SLO job with a tight deadline goes before a best-effort job submitted earlier', () => {
    const plan = planCycle(
      MIN,
      [be({ submittedAtMs: 0, distribution: pointMass(5 * MIN) }), slo({ submittedAtMs: MIN, deadlineMs: 7 * MIN, distribution: pointMass(5 * MIN) })],
      [],
      params,
    );
    expect(plan.pending.map((j) => [j.id, j.startSlice])).toEqual([
      ['be', 2],
      ['slo', 0],
    ]);
  });
});

describe('3Sigma mis-estimate handling (§4.2)', () => {
  it('an over-estimated SLO job gets utility past its deadline and is started on a free cluster, not starved', () => {
    const job = slo({ deadlineMs: 10 * MIN, distribution: pointMass(30 * MIN) });
    expect(handlesOverestimate(job, params)).toBe(true);
    const plan = planCycle(0, [job], [], params);
    expect(plan.pending[0]).toMatchObject({ startSlice: 0, hasUtility: true, overestimateHandled: true });
    expect(plan.pending[0].expectedUtility).toBeGreaterThan(0);
    expect(plan.pending[0].expectedUtility).toBeLessThan(params.overestimate.startFraction);
  });

  it('without over-estimate handling (NoOE) the same job has no utility and is not planned', () => {
    const off = threeSigmaParamsSchema.parse({ ...params, overestimate: { mode: 'off' } });
    const plan = planCycle(0, [slo({ deadlineMs: 10 * MIN, distribution: pointMass(30 * MIN) })], [], off);
    expect(plan.pending[0]).toMatchObject({ hasUtility: false, overestimateHandled: false });
    expect(plan.pending[0].startSlice).toBeUndefined();
  });

  it('adaptive handling leaves alone a job whose history says it can meet its deadline', () => {
    expect(handlesOverestimate(slo({ distribution: pointMass(5 * MIN) }), params)).toBe(false);
  });

  it('a job past its deadline with no utility left is not planned', () => {
    const plan = planCycle(20 * MIN, [slo({ distribution: pointMass(5 * MIN) })], [], params);
    expect(plan.pending[0]).toMatchObject({ hasUtility: false, expectedUtility: 0 });
    expect(plan.pending[0].startSlice).toBeUndefined();
  });

  it('extends an outlived estimate by 1, 2, 4, 8 … steps (exp-inc)', () => {
    expect([10, 11, 12, 13, 14, 17, 25].map((now) => extendUnderestimate(0, 10, now, 1))).toEqual([11, 13, 13, 17, 17, 25, 41]);
    const running: RunningJobToPlan = { ...be(), runningSinceMs: 0, distribution: pointMass(10 * MIN) };
    expect(remainingRuntime(running, 5 * MIN, params)).toEqual({ distribution: pointMass(10 * MIN) });
    expect(remainingRuntime(running, 10 * MIN, params)).toEqual({ distribution: pointMass(12.5 * MIN), underestimateFinishMs: 12.5 * MIN });
  });
});

describe('3Sigma preemption (§4.3.5)', () => {
  const runningBe: RunningJobToPlan = { ...be({ id: 'old-be', submittedAtMs: -MIN }), runningSinceMs: -MIN, distribution: pointMass(60 * MIN) };
  const tight = slo({ id: 'tight', submittedAtMs: 0, deadlineMs: 12 * MIN, distribution: pointMass(10 * MIN) });

  it('preempts a running best-effort job when an SLO job can only meet its deadline by starting now', () => {
    const plan = planCycle(0, [tight], [runningBe], params);
    expect(plan.running).toMatchObject([{ id: 'old-be', preempt: true }]);
    expect(plan.pending[0].startSlice).toBe(0);
  });

  it('does not preempt for best-effort jobs, however much they would gain', () => {
    const free = threeSigmaParamsSchema.parse({ ...params, preemption: { costUtility: 0 } });
    const waiting = [1, 2, 3].map((i) => be({ id: `be${i}`, submittedAtMs: 0, demand: [0.3, 0.3], distribution: pointMass(5 * MIN) }));
    const plan = planCycle(0, waiting, [runningBe], free);
    expect(plan.running[0].preempt).toBe(false);
    expect(plan.pending.every((j) => j.startSlice === undefined)).toBe(true);
  });

  it('does not preempt when it is disabled, nor for a job that can wait', () => {
    const off = threeSigmaParamsSchema.parse({ ...params, preemption: { enabled: false } });
    expect(planCycle(0, [tight], [runningBe], off).running[0].preempt).toBe(false);
    const patient = slo({ id: 'patient', deadlineMs: 200 * MIN, distribution: pointMass(10 * MIN) });
    const shortBe: RunningJobToPlan = { ...runningBe, distribution: pointMass(6 * MIN) };
    const plan = planCycle(0, [patient], [shortBe], params);
    // The running job ends at 5 min (slice 2): the SLO job waits for it rather than preempting.
    expect(plan.running[0].preempt).toBe(false);
    expect(plan.pending[0].startSlice).toBe(2);
  });
});

describe('3Sigma MILP', () => {
  it('loads HiGHS here', () => {
    expect(solverAvailability()).toEqual({ available: true });
  });

  const problems = fc
    .record({ jobs: fc.integer({ min: 1, max: 6 }), slices: fc.integer({ min: 1, max: 4 }) })
    .chain(({ jobs, slices }) =>
      fc.record({
        jobs: fc.constant(jobs),
        slices: fc.constant(slices),
        capacity: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: slices * 2, maxLength: slices * 2 }),
        options: fc.array(
          fc.record({
            job: fc.integer({ min: 0, max: jobs - 1 }),
            utility: fc.double({ min: 0.01, max: 1, noNaN: true }),
            use: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: slices * 2, maxLength: slices * 2 }),
            bestEffort: fc.boolean(),
          }),
          { maxLength: 12 },
        ),
        preemptions: fc.array(
          fc.record({
            cost: fc.double({ min: 0, max: 1, noNaN: true }),
            credit: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: slices * 2, maxLength: slices * 2 }),
          }),
          { maxLength: 3 },
        ),
      }),
    )
    .map((x): PlanProblem => ({ ...x, resources: 2 }));

  it('finds a feasible plan at least as good as the greedy packing', () => {
    fc.assert(
      fc.property(problems, (p) => {
        const exact = solvePlan(p, { maxNodes: 10_000, relativeGap: 0 });
        const greedy = solveGreedy(p, 'comparison');
        // Either HiGHS, or the greedy packing when it gave every job its best option (optimal).
        expect(exact.solver === 'highs' || exact.status.startsWith('optimal')).toBe(true);
        expect(isFeasible(p, exact.chosen, exact.preempted)).toBe(true);
        expect(isFeasible(p, greedy.chosen, greedy.preempted)).toBe(true);
        expect(exact.objective).toBeGreaterThanOrEqual(greedy.objective - 1e-6);
      }),
      { numRuns: 60 },
    );
  });

  /** Sixteen jobs on a cluster a quarter taken: more options than fit, so the plan is a real search. */
  const crowded = (): PlanProblem => {
    const pending = sixteenPending;
    const running = tenRunning;
    return cycleProblem(MIN, pending, running, params).problem;
  };

  it('seeded with the last plan, a solve stopped by its time limit keeps that plan or finds a better one (§4.3.6)', () => {
    const p = crowded();
    const full = solvePlan(p, { maxNodes: 200, relativeGap: 0.001 });
    expect(full.solver).toBe('highs');
    const greedy = solveGreedy(p, 'comparison');
    expect(full.objective).toBeGreaterThan(greedy.objective);
    // The last cycle's plan as the seed; a time limit far below what the root node needs.
    const cut = solvePlan({ ...p, seed: full.chosen }, { maxNodes: 200, relativeGap: 0.001, timeLimitMs: 0.001 });
    expect(isFeasible(p, cut.chosen, cut.preempted)).toBe(true);
    expect(cut.objective).toBeGreaterThanOrEqual(full.objective - 1e-9);
    expect(cut.status).not.toMatch(/greedy packing kept/);
  });

  it('without a last plan, a solve stopped by its time limit returns at least the greedy packing', () => {
    const p = crowded();
    const greedy = solveGreedy(p, 'comparison');
    const cut = solvePlan(p, { maxNodes: 200, relativeGap: 0.001, timeLimitMs: 0.001 });
    expect(isFeasible(p, cut.chosen, cut.preempted)).toBe(true);
    expect(cut.objective).toBeGreaterThanOrEqual(greedy.objective - 1e-9);
  });

  it('a last plan that is no longer feasible is not the start: the greedy packing is', () => {
    const p = crowded();
    // Every job at its first option: far more than the cluster holds.
    const overfull = Array.from({ length: p.jobs }, (_, j) => p.options.findIndex((o) => o.job === j));
    expect(isFeasible(p, overfull, [])).toBe(false);
    const cut = solvePlan({ ...p, seed: overfull }, { maxNodes: 200, relativeGap: 0.001, timeLimitMs: 0.001 });
    expect(isFeasible(p, cut.chosen, cut.preempted)).toBe(true);
    expect(cut.objective).toBeGreaterThanOrEqual(solveGreedy(p, 'comparison').objective - 1e-9);
    expect(cut.status).not.toMatch(/last plan kept/);
  });
});

describe('3Sigma equivalence sets: preferred nodes and anywhere (§4.3.3, §5)', () => {
  // Four nodes of a quarter each; the SLO job prefers nodes 0 and 1 and runs 1.5× longer elsewhere.
  const nodes = { capacity: [0, 1, 2, 3].map(() => [0.25, 0.25]) };
  const preferred = { nodes: [0, 1], key: 'n0,n1', slowdown: 1.5 };
  const half = [0.5, 0.5];
  // A best-effort job holds both preferred nodes until 5 min (slice 2).
  const onPreferred: RunningJobToPlan = {
    ...be({ id: 'busy', demand: half }),
    runningSinceMs: 0,
    distribution: pointMass(5 * MIN),
    holdings: [
      { node: 0, share: [0.25, 0.25] },
      { node: 1, share: [0.25, 0.25] },
    ],
  };
  const noPreemption = threeSigmaParamsSchema.parse({ ...params, preemption: { enabled: false } });

  it('waits for the preferred nodes when the deadline does not allow the slower runtime elsewhere', () => {
    // 10 min on its nodes, 15 elsewhere, deadline at 14 min; its nodes free at 2.5 min (slice 1):
    // anywhere now misses, its own nodes from 2.5 min make it. The other two nodes are free.
    const shortBusy: RunningJobToPlan = { ...onPreferred, distribution: pointMass(2.5 * MIN) };
    const tight = slo({ id: 'slo', deadlineMs: 14 * MIN, demand: half, distribution: pointMass(10 * MIN), preferred });
    const plan = planCycle(0, [tight], [shortBusy], noPreemption, { startMs: {} }, nodes);
    expect(plan.pending[0]).toMatchObject({ startSlice: 1, placement: 'preferred', expectedUtility: 1 });
  });

  it('starts anywhere now when the slower runtime still meets the deadline and the preferred nodes stay busy', () => {
    const longBusy: RunningJobToPlan = { ...onPreferred, distribution: pointMass(60 * MIN) };
    const job = slo({ id: 'slo', deadlineMs: 16 * MIN, demand: half, distribution: pointMass(10 * MIN), preferred });
    const plan = planCycle(0, [job], [longBusy], noPreemption, { startMs: {} }, nodes);
    expect(plan.pending[0]).toMatchObject({ startSlice: 0, placement: 'anywhere' });
  });

  it('starts on the preferred nodes when they are free, and offers no dominated anywhere option then', () => {
    const job = slo({ id: 'slo', deadlineMs: 16 * MIN, demand: half, distribution: pointMass(10 * MIN), preferred });
    const cp = cycleProblem(0, [job], [], noPreemption, { startMs: {} }, nodes);
    expect(cp.optionPlacement.every((x) => x === 'preferred')).toBe(true);
    expect(planCycle(0, [job], [], noPreemption, { startMs: {} }, nodes).pending[0]).toMatchObject({ startSlice: 0, placement: 'preferred' });
  });

  it('preempts a best-effort job on the preferred nodes when only they meet the deadline (§4.3.5)', () => {
    const longBusy: RunningJobToPlan = { ...onPreferred, distribution: pointMass(60 * MIN) };
    const tight = slo({ id: 'slo', deadlineMs: 12 * MIN, demand: half, distribution: pointMass(10 * MIN), preferred });
    const plan = planCycle(0, [tight], [longBusy], params, { startMs: {} }, nodes);
    expect(plan.pending[0]).toMatchObject({ startSlice: 0, placement: 'preferred' });
    expect(plan.running[0]).toMatchObject({ id: 'busy', preempt: true });
    // Without preemption it has no way to meet the deadline: it is not planned.
    expect(planCycle(0, [tight], [longBusy], noPreemption, { startMs: {} }, nodes).pending[0].startSlice).toBeUndefined();
  });

  it('gives a set two jobs prefer capacity rows of its own: they do not both start there at once', () => {
    const a = slo({ id: 'a', deadlineMs: 13 * MIN, demand: half, distribution: pointMass(10 * MIN), preferred });
    const b = slo({ id: 'b', deadlineMs: 13 * MIN, demand: half, distribution: pointMass(10 * MIN), preferred });
    const cp = cycleProblem(0, [a, b], [], noPreemption, { startMs: {} }, nodes);
    expect(cp.setsWithRows).toBe(1);
    const plan = planCycle(0, [a, b], [], noPreemption, { startMs: {} }, nodes);
    const onSetNow = plan.pending.filter((j) => j.startSlice === 0 && j.placement === 'preferred');
    expect(onSetNow).toHaveLength(1);
    // The other cannot meet 13 min at 15 min anywhere, nor by waiting 10 min: it earns nothing, whatever it is given.
    const greedy = solveGreedy(cp.problem, 'check');
    expect(isFeasible(cp.problem, greedy.chosen, greedy.preempted)).toBe(true);
  });

  it('keeps the greedy warm start and every solve feasible with set rows (random jobs and sets)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ set: fc.integer({ min: 0, max: 2 }), size: fc.integer({ min: 1, max: 4 }), runMin: fc.integer({ min: 2, max: 15 }), slo: fc.boolean() }),
          {
            minLength: 1,
            maxLength: 8,
          },
        ),
        (specs) => {
          const sets = [
            { nodes: [0, 1], key: 'a', slowdown: 1.5 },
            { nodes: [1, 2], key: 'b', slowdown: 1.5 },
            { nodes: [0, 3], key: 'c', slowdown: 2 },
          ];
          const jobs = specs.map((x, i) =>
            (x.slo ? slo : be)({
              id: `j${i}`,
              deadlineMs: (x.runMin + 5) * MIN,
              demand: [x.size / 8, x.size / 8],
              distribution: pointMass(x.runMin * MIN),
              ...(x.slo ? { preferred: sets[x.set] } : {}),
            }),
          );
          const cp = cycleProblem(0, jobs, [onPreferred], params, { startMs: {} }, nodes);
          const greedy = solveGreedy(cp.problem, 'check');
          expect(isFeasible(cp.problem, greedy.chosen, greedy.preempted)).toBe(true);
          const solved = solvePlan(cp.problem, { maxNodes: 50, relativeGap: 0.001 });
          expect(isFeasible(cp.problem, solved.chosen, solved.preempted)).toBe(true);
          expect(solved.objective).toBeGreaterThanOrEqual(greedy.objective - 1e-9);
        },
      ),
      { numRuns: 25, seed: 20 },
    );
  });

  it('offers every start up to fineStartSlices, every second one after', () => {
    expect(startSlices(8, 4)).toEqual([0, 1, 2, 3, 4, 6]);
    expect(startSlices(8, 8)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('3Sigma cycle budget (solver.cycleBudgetMs)', () => {
  const pending = sixteenPending;
  const running = tenRunning;
  const withSolver = (solver: Record<string, unknown>) => threeSigmaParamsSchema.parse({ sliceMs: 150_000, planAheadMs: 20 * MIN, solver });
  const budgeted = withSolver({ timeLimitMs: 500, cycleBudgetMs: 1_000 });
  // Clocks of a cycle that started at 0: one read 5 s later (a 1 s budget long spent), one still at its start.
  const spent = { startedAtMs: 0, nowMs: () => 5_000 };
  const fresh = { startedAtMs: 0, nowMs: () => 0 };
  const limits = { maxNodes: 200, relativeGap: 0.001, timeLimitMs: 500 };

  it('with the budget spent before the solve, the warm start (greedy packing) is the plan: feasible, not solved, and it says so', () => {
    const cp = cycleProblem(MIN, pending, running, budgeted);
    const greedy = solveGreedy(cp.problem, 'comparison');
    const cut = solvePlan(cp.problem, { ...limits, deadline: cycleDeadline(budgeted, spent) });
    expect(cut.budgetSpent).toMatch(/^cycle budget spent \(0 ms left, a solve needs 50 ms\): greedy packing kept, not solved$/);
    expect(cut.status).toBe(cut.budgetSpent);
    expect(cut.solveMs).toBe(0);
    expect(isFeasible(cp.problem, cut.chosen, cut.preempted)).toBe(true);
    expect(cut.chosen).toEqual(greedy.chosen);
    expect(cut.objective).toBeCloseTo(greedy.objective, 9);

    // Through planCycle: every pending job's plan carries the reason, and the starts are the greedy packing's.
    const plan = planCycle(MIN, pending, running, budgeted, { startMs: {} }, undefined, spent);
    expect(plan.solution.status).toBe(cut.status);
    expect(plan.pending.every((j) => j.budgetSpent === cut.budgetSpent)).toBe(true);
    const greedyPlan = planCycle(MIN, pending, running, withSolver({ kind: 'greedy' }));
    expect(plan.pending.map((j) => j.startSlice)).toEqual(greedyPlan.pending.map((j) => j.startSlice));
  });

  it('with the budget spent, the last plan stands when it earns more than the greedy packing (§4.3.6)', () => {
    const cp = cycleProblem(MIN, pending, running, budgeted);
    const full = solvePlan(cp.problem, { maxNodes: 200, relativeGap: 0.001 });
    expect(full.objective).toBeGreaterThan(solveGreedy(cp.problem, 'comparison').objective);
    const cut = solvePlan({ ...cp.problem, seed: full.chosen }, { ...limits, deadline: cycleDeadline(budgeted, spent) });
    expect(cut.budgetSpent).toMatch(/last plan kept, not solved/);
    expect(cut.chosen).toEqual(full.chosen);
    expect(isFeasible(cp.problem, cut.chosen, cut.preempted)).toBe(true);
  });

  it('with time left, HiGHS solves, under the smaller of its time limit and what is left', () => {
    const d = cycleDeadline(budgeted, fresh)!;
    // The reserve for the work after the solve comes off the budget.
    expect(d.endsAtMs).toBe(1_000 - budgeted.solver.budgetReserveMs);
    const plan = planCycle(MIN, pending, running, budgeted, { startMs: {} }, undefined, fresh);
    expect(plan.solution.solver).toBe('highs');
    expect(plan.solution.budgetSpent).toBeUndefined();
    expect(plan.pending.some((j) => j.budgetSpent !== undefined)).toBe(false);
  });

  it('a null budget, or no time limit (replays), changes nothing however late the cycle: the same plan as before', () => {
    // A time limit HiGHS never reaches here: the plans compared must not depend on how busy the machine is.
    const none = withSolver({ timeLimitMs: 60_000, cycleBudgetMs: null });
    const replay = withSolver({ timeLimitMs: null });
    expect(cycleDeadline(none, spent)).toBeUndefined();
    expect(cycleDeadline(replay, spent)).toBeUndefined();
    for (const p of [none, replay]) {
      const late = planCycle(MIN, pending, running, p, { startMs: {} }, undefined, spent);
      const untimed = planCycle(MIN, pending, running, p);
      // What the solver alone gives on the cycle's problem, with the limits it had before budgets.
      const direct = solvePlan(cycleProblem(MIN, pending, running, p).problem, {
        maxNodes: p.solver.maxNodes,
        relativeGap: p.solver.relativeGap,
        ...(p.solver.timeLimitMs !== null ? { timeLimitMs: p.solver.timeLimitMs } : {}),
      });
      const { solveMs: _a, ...lateMeta } = late.solution;
      const { solveMs: _b, ...untimedMeta } = untimed.solution;
      expect(late.pending).toEqual(untimed.pending);
      expect(late.running).toEqual(untimed.running);
      expect(lateMeta).toEqual(untimedMeta);
      expect(late.solution.solver).toBe('highs');
      expect(late.solution.budgetSpent).toBeUndefined();
      expect(late.solution.objective).toBe(direct.objective);
    }
  });

  it('refuses a budget that the reserve and the shortest solve already fill', () => {
    expect(() => withSolver({ cycleBudgetMs: 140, budgetReserveMs: 90, minSolveMs: 50 })).toThrow(/must exceed budgetReserveMs \+ minSolveMs/);
    expect(withSolver({}).solver).toMatchObject({ timeLimitMs: 500, cycleBudgetMs: 1_000, budgetReserveMs: 250, minSolveMs: 50 });
  });
});
