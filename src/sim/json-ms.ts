/**
 * What `schedbrain simulate --json` writes: the run's result with every duration in milliseconds,
 * named so (`…Ms`). The result types keep the papers' seconds for the reports and scripts that
 * print them (docs/decisions.md, "The simulate JSON is in milliseconds").
 */
import type { Dist } from './metrics.js';
import type { SimulateResult } from './simulate.js';
import type { TaskLevelResult } from './tasklevel/index.js';

/** Seconds to milliseconds, without the binary noise of the product (1459.435 s is 1459435 ms, not 1459435.0000000002). */
export function secondsToMs(s: number): number {
  return Number.isFinite(s) ? Math.round(s * 1e9) / 1e6 : s;
}

/** A distribution of durations in seconds, every value in ms. */
export interface MsDist {
  readonly count: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly maxMs: number;
}

export function msDist(d: Dist): MsDist {
  return {
    count: d.count,
    p50Ms: secondsToMs(d.p50),
    p90Ms: secondsToMs(d.p90),
    p99Ms: secondsToMs(d.p99),
    meanMs: secondsToMs(d.mean),
    maxMs: secondsToMs(d.max),
  };
}

type Classes<D> = { readonly jct: Dist; readonly short: D; readonly long: D; readonly makespanS: number; readonly wallSeconds: number };

/** Completion times overall and by class (each class with its slowdowns), makespan and wall time, in ms. */
function classesMs<D extends Dist & { readonly slowdown: unknown }>(r: Classes<D>): Record<string, unknown> {
  return {
    jct: msDist(r.jct),
    short: { ...msDist(r.short), slowdown: r.short.slowdown },
    long: { ...msDist(r.long), slowdown: r.long.slowdown },
    makespanMs: secondsToMs(r.makespanS),
    wallMs: secondsToMs(r.wallSeconds),
  };
}

/** `simulate`'s result as JSON (per-job metrics only with `perJob`). */
export function simulateJson(r: SimulateResult, perJob = false): Record<string, unknown> {
  const { records: _r, perJob: jobs, jct, short, long, makespanS, wastedWorkS, wallSeconds, policySeconds, ...rest } = r;
  return {
    ...rest,
    ...classesMs({ jct, short, long, makespanS, wallSeconds }),
    wastedWorkCoreMs: secondsToMs(wastedWorkS),
    ...(policySeconds !== undefined ? { policyMs: secondsToMs(policySeconds) } : {}),
    ...(perJob
      ? {
          perJob: jobs.map(({ arrivalS, finishS, jctS, meanTaskS, ...j }) => ({
            ...j,
            arrivalMs: secondsToMs(arrivalS),
            finishMs: secondsToMs(finishS),
            jctMs: secondsToMs(jctS),
            meanTaskMs: secondsToMs(meanTaskS),
          })),
        }
      : {}),
  };
}

/** A task-level run's result as JSON. */
export function taskLevelJson(r: TaskLevelResult): Record<string, unknown> {
  const { jct, short, long, makespanS, wallSeconds, perJob, ...rest } = r;
  return {
    ...rest,
    ...classesMs({ jct, short, long, makespanS, wallSeconds }),
    ...(perJob
      ? {
          perJob: perJob.map(({ arrivalS, jctS, longestTaskS, ...j }) => ({
            ...j,
            arrivalMs: secondsToMs(arrivalS),
            jctMs: secondsToMs(jctS),
            longestTaskMs: secondsToMs(longestTaskS),
          })),
        }
      : {}),
  };
}
