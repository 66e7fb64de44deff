/**
 * A policy that decides in steps (`decideInSteps`, 3Sigma's MILP) has its solves run by the
 * engine off the event loop: the loop keeps answering while a cycle's solve runs, the cycle
 * decides on the solve's outcome, and a solve that runs out of time gives the policy a `deadline`
 * outcome, counted and logged.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runStepsInline, solveStep, type MilpOutcome, type SolveSteps } from '../../src/core/milp.js';
import { definePolicy, type AnyPolicy, type PolicyOutput } from '../../src/core/policy.js';
import { Engine, type PolicyLookup } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { solveInline, solverAvailability } from '../../src/policies/threesigma/milp.js';
import { useEngineFixture } from './engine-fixture.js';
import { knapsack } from './milp-fixtures.js';

type Params = { timeLimitMs: number; timeLeftMs: number };
const outcomes: MilpOutcome[] = [];
/** Per solve: whether a timer set just before it fired before its outcome came (only if the solve left the event loop free). */
const loopRanDuringSolve: boolean[] = [];

function* solvingCycle(p: Params): SolveSteps<PolicyOutput<{ cycles: number }>> {
  let loopRan = false;
  setTimeout(() => (loopRan = true), 0);
  const outcome = yield* solveStep({
    model: knapsack(100, 10, 7),
    run: { options: { mip_rel_gap: 0, random_seed: 0 }, timeLimitMs: p.timeLimitMs },
    timeLeftMs: p.timeLeftMs,
    minSolveMs: 10,
  });
  outcomes.push(outcome);
  loopRanDuringSolve.push(loopRan);
  return { decisions: [], state: { cycles: 1 }, notes: [outcome.solved ? `solved: ${outcome.status}` : `not solved (${outcome.why}): ${outcome.error}`] };
}

const solving = definePolicy<Params, { cycles: number }>({
  name: 'solving',
  description: 'test policy: one MILP per cycle',
  paramsSchema: z.object({ timeLimitMs: z.number().default(300), timeLeftMs: z.number().default(10_000) }),
  initialState: () => ({ cycles: 0 }),
  decide: ({ params }) => runStepsInline(solvingCycle(params), solveInline),
  decideInSteps: ({ params }) => solvingCycle(params),
  solves: true,
});
const still = definePolicy<Record<string, never>, Record<string, never>>({
  name: 'still',
  description: 'test policy: decides nothing, solves nothing',
  paramsSchema: z.object({}),
  initialState: () => ({}),
  decide: () => ({ decisions: [], state: {} }),
});
const table: Record<string, AnyPolicy> = { solving, still };
const policies: PolicyLookup = { get: (n) => table[n], names: () => Object.keys(table) };

describe('engine: a policy that decides in steps has its solves run off the event loop', () => {
  const f = useEngineFixture('schedbrain-engine-solver-');

  it('the event loop goes on while the cycle solves, and the cycle decides on the outcome', async (ctx) => {
    if (!solverAvailability().available) ctx.skip();
    outcomes.length = 0;
    const backend = new InMemoryBackend({ now: () => f.clock.now() });
    f.engine = new Engine({ backend, store: f.store, clock: f.clock, periodMs: 10_000, policies, initial: { policy: 'solving', params: {} } });
    await f.engine.init();
    loopRanDuringSolve.length = 0;
    const report = await f.engine.runCycle();
    expect(report.outcome).toBe('ok');
    // HiGHS ran to its 300 ms time limit on this programme, and a 0 ms timer fired meanwhile.
    expect(report.notes).toEqual(['solved: timeLimit']);
    expect(loopRanDuringSolve).toEqual([true]);
    expect(outcomes).toHaveLength(1);
  });

  it('a solve left less time than it needs is not started: the policy gets a deadline outcome, counted in the metrics', async (ctx) => {
    if (!solverAvailability().available) ctx.skip();
    outcomes.length = 0;
    const backend = new InMemoryBackend({ now: () => f.clock.now() });
    f.engine = new Engine({
      backend,
      store: f.store,
      clock: f.clock,
      periodMs: 10_000,
      policies,
      // 5 ms left, 10 ms the least a solve is worth starting with.
      initial: { policy: 'solving', params: { timeLimitMs: 60_000, timeLeftMs: 5 } },
    });
    await f.engine.init();
    const report = await f.engine.runCycle();
    expect(report.outcome).toBe('ok');
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ solved: false, why: 'deadline' });
    // The engine's worker is new: the time runs out while it loads HiGHS, or once it has.
    expect(report.notes[0]).toMatch(
      /^not solved \(deadline\): (the solver worker was still loading HiGHS when the solve's 5 ms ran out|\d+ ms left after \d+ ms waiting for the solver, a solve needs 10 ms)$/,
    );
    expect(f.engine.metrics.solverStops.get({ why: 'deadline' })).toBe(1);
  });

  it('warms the solver for a policy that solves, which then answers the first solve; a policy without solves starts none', async (ctx) => {
    if (!solverAvailability().available) ctx.skip();
    outcomes.length = 0;
    const backend = new InMemoryBackend({ now: () => f.clock.now() });
    f.engine = new Engine({ backend, store: f.store, clock: f.clock, periodMs: 10_000, policies, initial: { policy: 'still', params: {} } });
    await f.engine.init();
    expect(await f.engine.warmSolver()).toBe(false);
    await f.engine.setPolicy({ name: 'solving', params: { timeLimitMs: 20, timeLeftMs: 5_000 } });
    expect(await f.engine.warmSolver()).toBe(true);
    const report = await f.engine.runCycle();
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ solved: true });
    expect(report.notes[0]).toMatch(/^solved: /);
  });
});
