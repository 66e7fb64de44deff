/**
 * Warming 3σPredict from recorded history (`HistoryRecord`, src/core/history.ts): the runtimes of
 * applications that finished before the policy ran, learned in the order they finished, so a new
 * brain predicts from the cluster's past instead of from nothing. Pure: records in, state out.
 */
import type { HistoryOutcome, HistoryRecord } from '../../core/history.js';
import type { JobDescription } from './features.js';
import { emptyPredictor, learnRuntime, type PredictorParams, type PredictorState } from './predictor.js';

/** What the record says was known of the job at submission (the fields `featureKeys` reads). */
export function jobOfRecord(r: HistoryRecord): JobDescription {
  return {
    user: r.user,
    queue: r.queue,
    name: r.name,
    ...(r.applicationType !== undefined ? { applicationType: r.applicationType } : {}),
    tags: r.tags,
    ...(r.requested ? { containers: r.requested.containers, containerMemoryMB: r.requested.memoryMB, containerVcores: r.requested.vcores } : {}),
    submittedAtMs: r.submittedAtMs,
    priority: r.priority,
  };
}

export interface WarmOptions {
  /**
   * Outcomes whose runtimes are learned. Succeeded only by default, as the live policy learns
   * only FINISHED applications: a failed or killed run says when it stopped, not how long the
   * job takes.
   */
  readonly outcomes?: readonly HistoryOutcome[];
}

export interface WarmResult {
  readonly predictor: PredictorState;
  readonly learned: number;
  /** Records left out: another outcome, or no runtime (never launched). */
  readonly skipped: number;
}

/**
 * Learns every usable record into `start` (a copy; default an empty predictor), oldest finish
 * first (ties by application id) so the estimators' recency and the NMAE scores follow the
 * cluster's own order whatever order the records come in.
 */
export function warmPredictor(
  records: readonly HistoryRecord[],
  p: PredictorParams,
  opts: WarmOptions = {},
  start: PredictorState = emptyPredictor(),
): WarmResult {
  const outcomes = new Set<HistoryOutcome>(opts.outcomes ?? ['succeeded']);
  const predictor = structuredClone(start);
  const usable = records.filter((r) => outcomes.has(r.outcome) && r.runtimeMs !== undefined);
  usable.sort((a, b) => a.finishedAtMs - b.finishedAtMs || (a.appId < b.appId ? -1 : a.appId > b.appId ? 1 : 0));
  for (const r of usable) learnRuntime(predictor, jobOfRecord(r), r.runtimeMs as number, p);
  return { predictor, learned: usable.length, skipped: records.length - usable.length };
}
