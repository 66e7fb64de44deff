/**
 * Replays a trace under one of the task-level schedulers (Pigeon, Eagle, Sparrow) and summarises
 * job completion times by class, as the Pigeon paper reports them (§4.2).
 */
import type { z } from 'zod';
import { dist, type Dist } from '../metrics.js';
import type { Workload } from '../workload.js';
import { TaskLevelEngine, type DecisionRecord, type Scheduler, type TaskJob } from './engine.js';
import { createEagle, eagleParamsSchema } from './eagle.js';
import { createPigeon, pigeonParamsSchema } from './pigeon.js';
import { createSparrow, sparrowParamsSchema } from './sparrow.js';

export { TaskLevelEngine, JobRun, sampleWorkers, type DecisionRecord, type Scheduler, type TaskJob } from './engine.js';
export {
  createPigeon,
  distributeTasks,
  placeArrivingTask,
  serveFreedWorker,
  pigeonGroups,
  pigeonParamsSchema,
  type PigeonMaster,
  type PigeonParams,
} from './pigeon.js';
export { createSparrow, probeCount, sparrowParamsSchema, type SparrowParams } from './sparrow.js';
export { createEagle, eagleParamsSchema, placeLongJob, srptPick, type EagleParams } from './eagle.js';
export { repeatWorkload, type RepeatOptions } from './repeat.js';

interface SchedulerEntry {
  readonly description: string;
  readonly paramsSchema: z.ZodTypeAny;
  readonly create: (engine: TaskLevelEngine, params: never) => Scheduler;
}

export const TASK_LEVEL_SCHEDULERS = {
  pigeon: {
    description: 'Pigeon: distributors, group masters with two WFQ queues and reserved workers',
    paramsSchema: pigeonParamsSchema,
    create: createPigeon,
  },
  eagle: {
    description: 'Eagle: partitions, central least-waiting placement of long jobs, probing with state sharing, SRPT and sticky probes',
    paramsSchema: eagleParamsSchema,
    create: createEagle,
  },
  sparrow: {
    description: 'Sparrow: batch sampling with probe ratio d, late binding, FIFO worker queues',
    paramsSchema: sparrowParamsSchema,
    create: createSparrow,
  },
} as const satisfies Record<string, SchedulerEntry>;

export type TaskLevelSchedulerName = keyof typeof TASK_LEVEL_SCHEDULERS;

export function isTaskLevelScheduler(name: string): name is TaskLevelSchedulerName {
  return Object.prototype.hasOwnProperty.call(TASK_LEVEL_SCHEDULERS, name);
}

/**
 * The trace's jobs as one-slot tasks in arrival order. A job is short when its mean task duration
 * (the trace's own, carried as the `schedbrain.estimate-ms` tag) is below `cutoffMs`; with no
 * cutoff every job is short.
 */
export function taskJobs(w: Workload, cutoffMs: number | undefined = w.cutoffMs): TaskJob[] {
  const jobs = w.jobs.map((j, index): TaskJob => {
    const durations = Float64Array.from(j.stages.flatMap((s) => Array.from(s.workMs)));
    let longest = 0;
    let sum = 0;
    for (const d of durations) {
      sum += d;
      if (d > longest) longest = d;
    }
    const tagged = Number(j.tags?.['schedbrain.estimate-ms']);
    const meanMs = Number.isFinite(tagged) ? tagged : durations.length ? sum / durations.length : 0;
    return {
      index,
      name: j.name ?? `job${index + 1}`,
      arrivalMs: j.arrivalMs,
      durationsMs: durations,
      meanMs,
      longestMs: longest,
      short: cutoffMs === undefined ? true : meanMs < cutoffMs,
    };
  });
  return jobs.filter((j) => j.durationsMs.length > 0).sort((a, b) => a.arrivalMs - b.arrivalMs || a.index - b.index);
}

export interface ClassSummary extends Dist {
  /** Pigeon §4.2: the p-th percentile completion time over the p-th percentile run time (longest task). */
  readonly slowdown: { readonly p50: number; readonly p90: number; readonly p99: number };
}

export interface TaskLevelResult {
  readonly scheduler: TaskLevelSchedulerName;
  readonly workload: string;
  readonly workers: number;
  readonly seed: number;
  readonly params: Record<string, unknown>;
  /** Short/long cutoff on mean task duration, ms. */
  readonly cutoffMs?: number;
  readonly jobs: number;
  readonly unfinished: number;
  /** Job completion time (arrival to the last result at the scheduler), seconds. */
  readonly jct: Dist;
  readonly short: ClassSummary;
  readonly long: ClassSummary;
  /** Jobs that finished within their longest task plus the message delays of one task (no queueing). */
  readonly zeroQueueingShare: number;
  /** Worker-time running tasks over workers × makespan. */
  readonly utilisation: number;
  readonly makespanS: number;
  readonly decisions: Record<string, number>;
  readonly events: number;
  readonly wallSeconds: number;
  readonly perJob?: readonly { name: string; short: boolean; tasks: number; arrivalS: number; jctS: number; longestTaskS: number }[];
}

export interface TaskLevelOptions {
  readonly workload: Workload;
  readonly scheduler: TaskLevelSchedulerName;
  /** Scheduler parameters, validated (and defaulted) by its zod schema. */
  readonly params?: unknown;
  /** One-slot workers (default: the workload's nodes × cores). */
  readonly workers?: number;
  readonly seed?: number;
  /** Short/long cutoff on mean task duration, ms (default: the scheduler's `cutoffMs`, else the trace's). */
  readonly cutoffMs?: number;
  readonly onDecision?: (d: DecisionRecord) => void;
  readonly perJob?: boolean;
}

export function runTaskLevel(o: TaskLevelOptions): TaskLevelResult {
  const entry = TASK_LEVEL_SCHEDULERS[o.scheduler] as SchedulerEntry;
  const params = entry.paramsSchema.parse(o.params ?? {}) as Record<string, unknown> & { networkDelayMs: number; cutoffMs?: number };
  const workers = o.workers ?? (o.workload.cluster?.nodes ?? 4000) * (o.workload.cluster?.cores ?? 1);
  const seed = o.seed ?? 1;
  const cutoffMs = o.cutoffMs ?? params.cutoffMs ?? o.workload.cutoffMs;
  const jobs = taskJobs(o.workload, cutoffMs);
  const engine = new TaskLevelEngine({ workers, networkDelayMs: params.networkDelayMs, seed, onDecision: o.onDecision });
  const scheduler = entry.create(engine, params as never);
  const started = performance.now();
  engine.run(jobs, scheduler);
  const wallSeconds = (performance.now() - started) / 1000;

  const done = engine.runs.filter((r) => r.finishMs >= 0);
  const jctS = (r: (typeof done)[number]): number => (r.finishMs - r.job.arrivalMs) / 1000;
  const classSummary = (short: boolean): ClassSummary => {
    const rs = done.filter((r) => r.job.short === short);
    const d = dist(rs.map(jctS));
    const run = dist(rs.map((r) => r.job.longestMs / 1000));
    return { ...d, slowdown: { p50: d.p50 / run.p50, p90: d.p90 / run.p90, p99: d.p99 / run.p99 } };
  };
  // A millionth of a millisecond absorbs floating-point rounding in the sums of times.
  const zero = done.filter((r) => r.finishMs - r.job.arrivalMs - r.job.longestMs <= scheduler.pathDelayMs + 1e-6).length;
  let first = Infinity;
  let last = 0;
  for (const r of done) {
    first = Math.min(first, r.job.arrivalMs);
    last = Math.max(last, r.finishMs);
  }
  const makespanMs = done.length ? last - first : 0;
  return {
    scheduler: o.scheduler,
    workload: o.workload.name,
    workers,
    seed,
    params,
    cutoffMs,
    jobs: done.length,
    unfinished: engine.runs.length - done.length,
    jct: dist(done.map(jctS)),
    short: classSummary(true),
    long: classSummary(false),
    zeroQueueingShare: done.length ? zero / done.length : NaN,
    utilisation: makespanMs > 0 ? engine.busyWorkerMs / (workers * makespanMs) : 0,
    makespanS: makespanMs / 1000,
    decisions: Object.fromEntries([...engine.decisions.entries()].sort(([a], [b]) => a.localeCompare(b))),
    events: engine.events,
    wallSeconds,
    perJob: o.perJob
      ? done.map((r) => ({
          name: r.job.name,
          short: r.job.short,
          tasks: r.tasks,
          arrivalS: r.job.arrivalMs / 1000,
          jctS: jctS(r),
          longestTaskS: r.job.longestMs / 1000,
        }))
      : undefined,
  };
}
