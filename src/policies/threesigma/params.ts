/**
 * Parameters of the 3Sigma policy. Durations are milliseconds; utilities are in units of one SLO
 * job met (1). Where the paper is silent the choice and its reason are in docs/decisions.md.
 */
import { z } from 'zod';
import { liveParamsSchema } from './live.js';
import { predictorParamsSchema } from './predictor.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const SLO_DEADLINE_TAG = 'schedbrain.slo.deadline-ms';
/** A job's known runtime, ms: what `runtimeModel: 'tagged'` schedules by. */
export const RUNTIME_TAG = 'schedbrain.runtime-ms';
/** A job's preferred nodes: node ids, comma-separated (a soft constraint; the simulator's 3sigma-e2e sets it). */
export const PREFERRED_NODES_TAG = 'schedbrain.preferred-nodes';
/** A job's runtime multiplier off its preferred nodes. */
export const SLOWDOWN_TAG = 'schedbrain.off-preferred-slowdown';

export const threeSigmaParamsSchema = z
  .object({
    /** Width of one time slice of the plan, ms (the paper's example: 2.5 min). */
    sliceMs: z.number().int().min(1_000).max(HOUR).default(150_000),
    /** How far ahead start times are considered, ms (a whole number of slices; paper example: 20 min). */
    planAheadMs: z
      .number()
      .int()
      .min(1_000)
      .max(DAY)
      .default(20 * MINUTE),
    /** Start slices offered every slice up to this many, every second slice after (a coarser grid far ahead). */
    fineStartSlices: z.number().int().min(1).max(200).default(4),
    /** Application tag with a job's preferred nodes (node ids, comma-separated): its equivalence sets are those nodes and anywhere (§4.3.3). */
    preferredNodesTag: z.string().min(1).default(PREFERRED_NODES_TAG),
    /** Application tag with a job's runtime multiplier off its preferred nodes. */
    slowdownTag: z.string().min(1).default(SLOWDOWN_TAG),
    /** Runtime multiplier off the preferred nodes when a job's tag gives none (§5: 1.5). */
    offPreferredSlowdown: z.number().min(1).max(100).default(1.5),
    /** Application tag holding an SLO job's deadline, epoch ms (absolute, like the simulator's job deadlines). */
    deadlineTag: z.string().min(1).default(SLO_DEADLINE_TAG),
    slo: z
      .object({ utility: z.number().positive().max(1_000).default(1) })
      .strict()
      .default({}),
    bestEffort: z
      .object({
        /** Utility of a best-effort job finished at once ("a significantly lower maximum", §4.3.2). */
        utility: z.number().positive().max(1_000).default(0.2),
        /** Time after submission over which it falls linearly to its floor, ms. */
        decayMs: z
          .number()
          .int()
          .min(1_000)
          .max(30 * DAY)
          .default(HOUR),
        /** Fraction of its utility kept however late, so it is never worthless. */
        floorFraction: z.number().min(0).max(1).default(0.05),
      })
      .strict()
      .default({}),
    /** Over-estimate handling (§4.2.2–4.2.3): `adaptive` (3Sigma), `always` (NoAdapt), `off` (NoOE). */
    overestimate: z
      .object({
        mode: z.enum(['adaptive', 'always', 'off']).default('adaptive'),
        /** Adaptive: handle when P(runtime ≤ deadline − submission) is below this. */
        threshold: z.number().min(0).max(1).default(0.05),
        /** Utility just past the deadline, as a fraction of the SLO utility (below any job still on time). */
        startFraction: z.number().min(0).max(1).default(0.5),
        /** Time past the deadline over which it falls to 0, ms; unset: the job's window plus its longest predicted runtime. */
        decayMs: z
          .number()
          .int()
          .min(1_000)
          .max(30 * DAY)
          .optional(),
      })
      .strict()
      .default({}),
    /**
     * Under-estimate handling (§4.2.1): once a job outlives the longest runtime of its distribution,
     * its finish is moved on by 2^t of these, t = 0, 1, …, each time it is reached, ms.
     * Unset: one slice.
     */
    underestimateStepMs: z.number().int().min(1_000).max(DAY).optional(),
    /**
     * `distribution` (3Sigma) or `point`: the chosen expert's point estimate only (NoDist,
     * PointRealEst); `tagged`: the runtime an application's `runtimeTag` states, as a point (a
     * replay's true runtime: PointPerfEst), the prediction where it has none.
     */
    runtimeModel: z.enum(['distribution', 'point', 'tagged']).default('distribution'),
    /** Application tag holding a job's runtime, ms (read by `runtimeModel: 'tagged'`). */
    runtimeTag: z.string().min(1).default(RUNTIME_TAG),
    /** `plan` (3σSched's MILP) or `sloFirst`: SLO jobs strictly before best-effort ones, no runtimes used (Prio, §5). */
    ordering: z.enum(['plan', 'sloFirst']).default('plan'),
    /** Runtime assumed for a job when nothing has been learned yet, ms. */
    unknownRuntimeMs: z
      .number()
      .int()
      .min(1_000)
      .max(30 * DAY)
      .default(10 * MINUTE),
    preemption: z
      .object({
        enabled: z.boolean().default(true),
        /** Cost of preempting a running job beyond the utility it would still earn (§4.3.5 P_r). */
        costUtility: z.number().min(0).max(1_000).default(0.05),
        /** Running jobs offered for preemption per cycle (those started last). */
        maxCandidates: z.number().int().min(0).max(1_000).default(20),
      })
      .strict()
      .default({}),
    /** Pending jobs planned per cycle (SLO jobs by deadline first, then by submission); the rest wait. */
    maxPlannedJobs: z.number().int().min(1).max(10_000).default(200),
    solver: z
      .object({
        /** `highs` (MILP) or `greedy` (the packing used when HiGHS is unavailable). */
        kind: z.enum(['highs', 'greedy']).default('highs'),
        /** Branch-and-bound node limit (deterministic). */
        maxNodes: z.number().int().min(1).max(10_000_000).default(200),
        relativeGap: z.number().min(0).max(1).default(0.001),
        /**
         * Wall-clock limit per solve, ms, at most (`cycleBudgetMs` may leave it less; docs/decisions.md);
         * null: none, for replays that must not depend on the machine's speed.
         */
        timeLimitMs: z
          .number()
          .int()
          .min(10)
          .max(10 * MINUTE)
          .nullable()
          .default(500),
        /**
         * Wall-clock budget of one cycle, ms, from the start of `decide` to its decisions: the solve
         * gets what the predictions, the model build and the warm start leave (at most
         * `timeLimitMs`), and with less than `minSolveMs` left the warm start is the plan. null: none.
         * Only with a time limit: a replay's `timeLimitMs: null` keeps wall clocks out of the plan.
         */
        cycleBudgetMs: z
          .number()
          .int()
          .min(100)
          .max(10 * MINUTE)
          .nullable()
          .default(1_000),
        /** Of the budget, kept for what follows the solve (HiGHS stopping past its limit, reading its solution, the decisions), ms. */
        budgetReserveMs: z.number().int().min(0).max(MINUTE).default(250),
        /** A solve is started only with at least this long left of the budget, ms; with less, the warm start stands. */
        minSolveMs: z.number().int().min(1).max(MINUTE).default(50),
      })
      .strict()
      .default({}),
    /** YARN application priorities (higher first): planned to start now, deferred, without utility. */
    priorities: z
      .object({
        start: z.number().int().min(0).max(1_000).default(10),
        /**
         * Planned to start now anywhere (not on its preferred nodes): after those starting on
         * theirs, so they pick nodes first. Unset: start − 1 (at least defer + 1).
         */
        startAnywhere: z.number().int().min(0).max(1_000).optional(),
        defer: z.number().int().min(0).max(1_000).default(1),
        noUtility: z.number().int().min(0).max(1_000).default(0),
      })
      .strict()
      .default({}),
    predictor: predictorParamsSchema.default({}),
    /** Live on YARN: held applications start by a move from a hold queue into a run queue (live.ts). Unset: priorities only. */
    live: liveParamsSchema.optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.planAheadMs % p.sliceMs !== 0)
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['planAheadMs'], message: `must be a whole number of slices (sliceMs ${p.sliceMs})` });
    else if (p.planAheadMs / p.sliceMs > 200)
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['planAheadMs'], message: `at most 200 slices (sliceMs ${p.sliceMs})` });
    const s = p.solver;
    if (s.cycleBudgetMs !== null && s.budgetReserveMs + s.minSolveMs >= s.cycleBudgetMs)
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['solver', 'cycleBudgetMs'], message: 'must exceed budgetReserveMs + minSolveMs' });
    const pr = p.priorities;
    if (!(pr.start > pr.defer && pr.defer >= pr.noUtility && (pr.startAnywhere === undefined || (pr.start >= pr.startAnywhere && pr.startAnywhere > pr.defer))))
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['priorities'], message: 'need start > defer ≥ noUtility and start ≥ startAnywhere > defer' });
  });

export type ThreeSigmaParams = z.infer<typeof threeSigmaParamsSchema>;

/** Priority of a job planned to start now anywhere rather than on its preferred nodes. */
export function startAnywherePriority(p: ThreeSigmaParams): number {
  return p.priorities.startAnywhere ?? Math.max(p.priorities.defer + 1, p.priorities.start - 1);
}
