/**
 * 3σPredict (§4.1): for every feature value a streaming histogram of the runtimes of jobs that
 * had it, and four point estimators over the same runtimes — mean, median (of the recent runs,
 * the paper's proxy), exponentially weighted (α = 0.6) and mean of the recent runs. A feature
 * value with one estimator is an "expert"; each expert is scored by its normalised mean absolute
 * error, Σ|estimate − actual| / Σ actual, over the runtimes it was asked to estimate before it
 * learned them. A job gets the histogram of the feature value whose expert scores best.
 *
 * Incremental (one runtime costs O(bins) per feature value of the job), deterministic, and plain
 * JSON, so it lives in the policy's state and survives restarts.
 */
import { z } from 'zod';
import { addSample, emptyHistogram, type StreamingHistogram } from './histogram.js';
import { fromHistogram, type RuntimeDistribution } from './distribution.js';
import { ALL_JOBS, featureKeys, type JobDescription } from './features.js';

export const ESTIMATORS = ['mean', 'median', 'rolling', 'recent'] as const;
export type Estimator = (typeof ESTIMATORS)[number];

export const predictorParamsSchema = z
  .object({
    /** Bins per histogram (paper: 80). */
    maxBins: z.number().int().min(2).max(1000).default(80),
    /** Runs kept per feature value for the median and the recent mean (paper: unstated "X"). */
    recentRuns: z.number().int().min(1).max(1000).default(20),
    /** Weight of the newest runtime in the exponentially weighted estimate (paper: 0.6). */
    rollingAlpha: z.number().gt(0).max(1).default(0.6),
    /** Runtimes an expert must have estimated before its score counts. */
    minScoredRuns: z.number().int().min(1).max(1000).default(2),
    /**
     * Feature values kept; past it, those updated longest ago are forgotten (`all` never is).
     * A full one is about 2 KB of JSON, and the state is saved after every committed cycle.
     */
    maxFeatureValues: z.number().int().min(10).max(1_000_000).default(5_000),
  })
  .strict();
export type PredictorParams = z.infer<typeof predictorParamsSchema>;

export interface FeatureHistory {
  histogram: StreamingHistogram;
  /** Σ runtimes, ms (the mean estimator). */
  sumMs: number;
  /** Exponentially weighted runtime, ms. */
  rollingMs: number;
  /** The last `recentRuns` runtimes, oldest first. */
  recentMs: number[];
  /** Σ |estimate − actual| per estimator, in `ESTIMATORS` order, ms. */
  absErrorMs: number[];
  /** Σ actual runtimes of the runs the estimators were scored on, ms. */
  scoredActualMs: number;
  /** Runs the estimators were scored on. */
  scoredRuns: number;
  /** Sequence number of the last runtime learned (for forgetting the stalest values). */
  lastSeq: number;
}

export interface PredictorState {
  /** Runtimes learned so far. */
  seq: number;
  /** Histories by feature value (`user=alice`, …). */
  features: Record<string, FeatureHistory>;
  /** Number of entries in `features`. */
  size: number;
}

export function emptyPredictor(): PredictorState {
  return { seq: 0, features: {}, size: 0 };
}

/** An expert's point estimate of the next runtime, ms. */
export function estimate(h: FeatureHistory, estimator: Estimator): number {
  switch (estimator) {
    case 'mean':
      return h.sumMs / h.histogram.total;
    case 'median':
      return medianOf(h.recentMs);
    case 'rolling':
      return h.rollingMs;
    case 'recent':
      return h.recentMs.reduce((a, b) => a + b, 0) / h.recentMs.length;
  }
}

function medianOf(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >>> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Normalised mean absolute error of an expert; undefined before it was scored. */
export function nmae(h: FeatureHistory, estimator: Estimator): number | undefined {
  if (h.scoredRuns === 0) return undefined;
  const err = h.absErrorMs[ESTIMATORS.indexOf(estimator)];
  return h.scoredActualMs > 0 ? err / h.scoredActualMs : err === 0 ? 0 : Infinity;
}

/** Learns one finished job's runtime (state updated in place). */
export function learnRuntime(state: PredictorState, job: JobDescription, runtimeMs: number, p: PredictorParams): void {
  if (!Number.isFinite(runtimeMs) || runtimeMs < 0) throw new RangeError(`runtime must be a finite non-negative number of ms, got ${runtimeMs}`);
  state.seq += 1;
  for (const key of featureKeys(job)) {
    let h = Object.hasOwn(state.features, key) ? state.features[key] : undefined;
    if (h === undefined) {
      h = {
        histogram: emptyHistogram(p.maxBins),
        sumMs: 0,
        rollingMs: 0,
        recentMs: [],
        absErrorMs: ESTIMATORS.map(() => 0),
        scoredActualMs: 0,
        scoredRuns: 0,
        lastSeq: 0,
      };
      state.features[key] = h;
      state.size += 1;
    } else {
      // Scored before it learns the runtime: the error it would have made predicting this job.
      for (let e = 0; e < ESTIMATORS.length; e++) h.absErrorMs[e] += Math.abs(estimate(h, ESTIMATORS[e]) - runtimeMs);
      h.scoredActualMs += runtimeMs;
      h.scoredRuns += 1;
    }
    addSample(h.histogram, runtimeMs);
    h.sumMs += runtimeMs;
    h.rollingMs = h.histogram.total === 1 ? runtimeMs : p.rollingAlpha * runtimeMs + (1 - p.rollingAlpha) * h.rollingMs;
    h.recentMs.push(runtimeMs);
    if (h.recentMs.length > p.recentRuns) h.recentMs.splice(0, h.recentMs.length - p.recentRuns);
    h.lastSeq = state.seq;
  }
  if (state.size > p.maxFeatureValues) forgetStalest(state, p.maxFeatureValues);
}

/** Drops the values updated longest ago down to 90 % of the limit, so this runs once per many runs. */
function forgetStalest(state: PredictorState, limit: number): void {
  const keep = Math.floor(limit * 0.9);
  const keys = Object.keys(state.features).filter((k) => k !== ALL_JOBS);
  keys.sort((a, b) => state.features[a].lastSeq - state.features[b].lastSeq || (a < b ? -1 : 1));
  for (const k of keys) {
    if (state.size <= keep) break;
    delete state.features[k];
    state.size -= 1;
  }
}

export interface ExpertScore {
  readonly feature: string;
  readonly estimator: Estimator;
  /** Undefined until the expert has estimated a runtime. */
  readonly nmae: number | undefined;
  readonly runs: number;
  readonly scoredRuns: number;
  readonly estimateMs: number;
}

/** Every expert that knows something of the job, in feature order then estimator order. */
export function expertTable(state: PredictorState, job: JobDescription): ExpertScore[] {
  const out: ExpertScore[] = [];
  for (const key of featureKeys(job)) {
    const h = Object.hasOwn(state.features, key) ? state.features[key] : undefined;
    if (h === undefined) continue;
    for (const e of ESTIMATORS)
      out.push({ feature: key, estimator: e, nmae: nmae(h, e), runs: h.histogram.total, scoredRuns: h.scoredRuns, estimateMs: estimate(h, e) });
  }
  return out;
}

export interface Prediction {
  /** The chosen expert. */
  readonly feature: string;
  readonly estimator: Estimator;
  readonly nmae: number | undefined;
  /** Runs behind the distribution. */
  readonly runs: number;
  /** The expert's point estimate, ms (what a point-estimate scheduler would use). */
  readonly pointEstimateMs: number;
  readonly distribution: RuntimeDistribution;
  /** No expert of the job had been scored enough: the distribution of every job (`all`). */
  readonly fallback: boolean;
}

/**
 * The job's runtime distribution from its best expert: lowest NMAE among experts scored on at
 * least `minScoredRuns` runs (ties: more runs, then feature order, then estimator order). Without
 * one, every job's history (`all`); undefined when nothing has been learned yet.
 */
export function predictRuntime(state: PredictorState, job: JobDescription, p: PredictorParams): Prediction | undefined {
  let best: ExpertScore | undefined;
  for (const x of expertTable(state, job)) {
    if (x.scoredRuns < p.minScoredRuns || x.nmae === undefined) continue;
    if (best === undefined || x.nmae < (best.nmae as number) || (x.nmae === best.nmae && x.runs > best.runs)) best = x;
  }
  if (best !== undefined) {
    const h = state.features[best.feature];
    return {
      feature: best.feature,
      estimator: best.estimator,
      nmae: best.nmae,
      runs: best.runs,
      pointEstimateMs: best.estimateMs,
      distribution: fromHistogram(h.histogram),
      fallback: false,
    };
  }
  if (!Object.hasOwn(state.features, ALL_JOBS)) return undefined;
  const all = state.features[ALL_JOBS];
  return {
    feature: ALL_JOBS,
    estimator: 'mean',
    nmae: nmae(all, 'mean'),
    runs: all.histogram.total,
    pointEstimateMs: estimate(all, 'mean'),
    distribution: fromHistogram(all.histogram),
    fallback: true,
  };
}
