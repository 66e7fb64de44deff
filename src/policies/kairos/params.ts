/**
 * Kairos parameters. Defaults follow the paper's YARN prototype as measured (§5.2: W = 50 s,
 * Q = 4; epfl-labos/kairos, ContainerManagerImpl.java at 1268a92, May 2018: no starvation guard, a
 * swap at a window end only when the running task is at least W/2 older than the youngest
 * suspended one).
 */
import { z } from 'zod';

export const TIE_BREAKS = ['variance', 'stddev', 'random', 'sum'] as const;
export type TieBreak = (typeof TIE_BREAKS)[number];

/** Bounds a cluster can use: anything beyond them is a typo, and would reach the RM (queueSlots). */
const DAY_MS = 86_400_000;

export const kairosParamsSchema = z
  .object({
    /** LAS quantum W: how long a task runs before the node scheduler reconsiders it. */
    quantumMs: z.number().int().min(1).max(DAY_MS).default(50_000),
    /** Q: tasks a node accepts beyond its N cores (the node holds at most N + Q tasks). */
    queueSlots: z.number().int().min(0).max(64).default(4),
    /**
     * Cores N per node. Unset: each node's physical vcores (what the RM reported before any
     * over-commit).
     */
    coresPerNode: z.number().int().min(1).max(4096).optional(),
    /**
     * Swap margin at a quantum end: the running task yields only to a waiting task that has
     * attained at least this much less service. Unset: W/2, the prototype's margin; 0: the
     * paper's Alg. 1 (l. 35, "no more").
     */
    swapMarginMs: z.number().int().min(0).max(DAY_MS).optional(),
    /**
     * Starvation guard of the paper's simulations (§6.2, counter 3): a task kept suspended for
     * this many consecutive quanta (of W) is resumed even if it is not the youngest. 0 (default):
     * off, as in the prototype the paper measured.
     */
    starvationQuanta: z.number().int().min(0).max(10_000).default(0),
    /** Quanta a task resumed by the starvation guard runs without being preempted. */
    starvationRunQuanta: z.number().int().min(1).max(10_000).default(1),
    /**
     * The prototype head's guard (epfl-labos/kairos 0788562, August 2018): a running task
     * suspended more than this many times gets, at its next quantum end, a window of
     * `windowsAfterPreemptions` quanta instead of being compared (its count starts over). It never
     * resumes a suspended task. Unset (default): off.
     */
    preemptionsAllowed: z.number().int().min(0).max(10_000).optional(),
    /** Quanta of the window the head's guard grants (the prototype's default: 2). */
    windowsAfterPreemptions: z.number().int().min(1).max(10_000).default(2),
    /**
     * Not in the paper (kairos-plus): LAS only up to this much attained service. A task past it
     * is old: it yields to young tasks, and old tasks run in the order of their jobs' submission
     * without time-slicing among themselves (long tasks sharing a core all finish late). Unset
     * (default): LAS all the way, as the paper.
     */
    lasLimitMs: z.number().int().min(1).max(DAY_MS).optional(),
    /**
     * Not in the paper (kairos-plus), with `lasLimitMs`: on each node the first this many old tasks
     * (in their jobs' order) go before the young ones, so long jobs keep that many cores per node
     * and are not starved at high load. 0 (default): none.
     */
    oldTaskCores: z.number().int().min(0).max(4096).default(0),
    /**
     * Not in the paper (kairos-plus): a job in the system this long has its tasks go before every
     * other task, in the order of the jobs' submission (a bound on how long LAS may hold a job
     * back). Unset (default): none.
     */
    jobAgeLimitMs: z.number().int().min(1).max(DAY_MS).optional(),
    /**
     * Not in the paper (kairos-plus): LAS with aging. Tasks are ordered by attained service less
     * this percentage of their job's age, so a job's tasks overtake a new task once the job's age
     * exceeds 100 / this times their attained service. 0 (default): plain LAS.
     */
    serviceAgingPct: z.number().min(0).max(100).default(0),
    /**
     * Not in the paper (kairos-plus): LAS by job. A young task is ranked by its job's attained
     * service (all its tasks', those that ended included) instead of its own, so a job's tasks
     * are not held back behind a newer job's many tasks of the same age, and the job with the
     * least service overall goes first. False (default): by the task's own, as the paper.
     */
    jobServiceRank: z.boolean().default(false),
    /**
     * Central dispatch tie-break among nodes holding the same number of tasks (paper Fig. 6):
     * `variance` (Kairos, §3.3.3) or its equivalent `stddev` (the prototype's heartbeat figure),
     * `random`, or `sum` (lowest total attained service).
     */
    tieBreak: z.enum(TIE_BREAKS).default('variance'),
    /**
     * Re-check every node's advertised cap (and forget vanished nodes) at least this often when
     * the backend reports what changed (the simulator). A backstop only: such a backend reports
     * a node whose cap or state changed, and without change reports (live YARN) every cycle is a
     * full pass anyway. Ten minutes by default: a sweep reads every node, thousands of them.
     * Dispatch scores need no periodic refresh: a node is rescored whenever its containers change
     * and at each of its quantum ends, and in between its score does not move (the variance of
     * the attained service of tasks that all run is constant; only waiting tasks make it drift,
     * and a node with waiting tasks is revisited every quantum).
     */
    sweepIntervalMs: z.number().positive().default(600_000),
    /**
     * The node monitor's tick (the prototype checks its containers every 500 ms): quantum ends
     * and starvation deadlines are acted on at the next tick, so that nodes whose deadlines fall
     * close together are handled in one cycle. 0: act at the exact instant.
     */
    monitorIntervalMs: z.number().nonnegative().max(3_600_000).default(500),
    /** Seed of the `random` tie-break. */
    seed: z.number().int().default(1),
  })
  .strict();

export type KairosParams = z.infer<typeof kairosParamsSchema>;
