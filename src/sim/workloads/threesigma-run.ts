/**
 * One run of the 3Sigma E2E workload under one of the paper's systems (Table 1) or ablations
 * (§6.2), all on the same code path: the `threesigma` policy with parameters, its predictor warmed
 * from the workload's history. Metrics as §5 defines them: SLO miss rate, goodput (machine-hours
 * of useful work), mean best-effort latency; and what each cycle cost.
 */
import type { AnyPolicy, Policy } from '../../core/policy.js';
import { threeSigmaPolicy, warmPredictor, type ThreeSigmaParams, type ThreeSigmaState } from '../../policies/threesigma/index.js';
import { createCapacityAllocator } from '../capacity-allocator.js';
import { Simulator, type JobRecord } from '../engine.js';
import type { Workload } from '../workload.js';
import { percentile } from '../metrics.js';
import { RUNTIME_TAG, type ThreeSigmaE2E } from './threesigma.js';

/** The systems compared (Table 1) and the ablations of Fig. 8, as parameters of one policy. */
export const THREESIGMA_VARIANTS = {
  /** 3Sigma: predicted distributions, adaptive over-estimate handling. */
  '3sigma': {},
  /** PointPerfEst: the true runtime (the job's runtime tag) as a point, no over-estimate handling. */
  'point-perfect': { runtimeModel: 'tagged', overestimate: { mode: 'off' } },
  /** PointRealEst: the predictor's point estimate, no over-estimate handling. */
  'point-real': { runtimeModel: 'point', overestimate: { mode: 'off' } },
  /** Prio: SLO jobs strictly first (with preemption of best-effort jobs), runtimes unused. */
  prio: { ordering: 'sloFirst' },
  /** 3SigmaNoDist: point estimates with 3Sigma's over-estimate handling. */
  'no-dist': { runtimeModel: 'point' },
  /** 3SigmaNoOE: distributions, no over-estimate handling. */
  'no-oe': { overestimate: { mode: 'off' } },
  /** 3SigmaNoAdapt: distributions, over-estimate handling for every SLO job. */
  'no-adapt': { overestimate: { mode: 'always' } },
} as const satisfies Record<string, Record<string, unknown>>;
export type ThreeSigmaVariant = keyof typeof THREESIGMA_VARIANTS;
export const VARIANT_NAMES = Object.keys(THREESIGMA_VARIANTS) as ThreeSigmaVariant[];

export function isVariant(name: string): name is ThreeSigmaVariant {
  return Object.hasOwn(THREESIGMA_VARIANTS, name);
}

export interface E2ERunOptions {
  readonly seed?: number;
  /** Parameters over the variant's (deep-merged one level: `overestimate`, `solver`, …). */
  readonly params?: Record<string, unknown>;
  /** Call the policy every `periodMs` (default: at every scheduling event). */
  readonly periodMs?: number;
  /**
   * Plan variants: jobs wait in a hold queue until the plan starts them (the policy's `live`
   * parameters, the capacity allocator), as 3σSched starts a job only at its planned start
   * (§4.3.1). Default true; false: the plan is applied as priorities only (work-conserving).
   */
  readonly holdQueue?: boolean;
}

/** Where held jobs wait and where the plan starts them (the history's queue: the predictor's `queue` feature stays the same). */
export const E2E_HOLD_QUEUE = 'root.hold';
export const E2E_RUN_QUEUE = 'root.default';

/** The workload with every job submitted to the hold queue (capacity 0, maximum capacity 0). */
export function heldWorkload(w: Workload): Workload {
  return {
    ...w,
    queues: [
      { path: E2E_RUN_QUEUE, capacityPct: 100, maxCapacityPct: 100 },
      { path: E2E_HOLD_QUEUE, capacityPct: 0, maxCapacityPct: 0 },
    ],
    jobs: w.jobs.map((j) => ({ ...j, queue: E2E_HOLD_QUEUE })),
  };
}

export interface E2EMetrics {
  readonly variant: string;
  readonly seed: number;
  readonly jobs: number;
  readonly unfinished: number;
  readonly slo: { readonly jobs: number; readonly met: number; readonly missed: number; readonly missRate: number };
  /** Node-hours of work (at nominal runtimes) finished within the arrival window: best-effort jobs, and SLO jobs that met their deadline. */
  readonly goodputMachineHours: number;
  /** Best-effort jobs' latency (arrival to finish), ms. */
  readonly bestEffort: { readonly jobs: number; readonly meanLatencyMs: number; readonly p50LatencyMs: number; readonly p99LatencyMs: number };
  /** Wall time of each policy cycle (prediction, plan and MILP solve), ms. */
  readonly cycle: { readonly count: number; readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number };
  /** Size of the MILP per solved cycle. */
  readonly milp: { readonly solves: number; readonly columnsP50: number; readonly columnsMax: number; readonly rowsMax: number; readonly nonzerosMax: number };
  readonly preemptedContainers: number;
  readonly wastedNodeHours: number;
  readonly historyLearned: number;
  /** Wall time of the run, ms. */
  readonly wallMs: number;
}

function mergeParams(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b)
        ? { ...(b as Record<string, unknown>), ...(v as Record<string, unknown>) }
        : v;
  }
  return out;
}

/** The variant's parameters with `over` on top. */
export function variantParams(variant: ThreeSigmaVariant, over: Record<string, unknown> = {}): Record<string, unknown> {
  return mergeParams(THREESIGMA_VARIANTS[variant] as Record<string, unknown>, over);
}

interface CycleLog {
  cycleMs: number[];
  columns: number[];
  rows: number[];
  nonzeros: number[];
}

/**
 * The policy as the run uses it: its initial predictor warmed from the history (what a brain
 * started on a recorded cluster does, src/history/warm-policy.ts), each cycle timed and the
 * MILP's size read from the state it leaves.
 */
function instrumented(history: ThreeSigmaE2E['history'], log: CycleLog, learned: { n: number }): AnyPolicy {
  const inner = threeSigmaPolicy as Policy<ThreeSigmaParams, ThreeSigmaState>;
  const policy: Policy<ThreeSigmaParams, ThreeSigmaState> = {
    ...inner,
    initialState(p) {
      const s = inner.initialState(p);
      const w = warmPredictor(history, p.predictor, {}, s.predictor);
      learned.n = w.learned;
      return { ...s, predictor: w.predictor };
    },
    decide(input) {
      const t0 = performance.now();
      const before = input.state.lastPlan;
      const out = inner.decide(input);
      log.cycleMs.push(performance.now() - t0);
      const lp = out.state.lastPlan;
      if (lp && lp !== before && lp.solver !== 'none' && lp.columns > 0) {
        log.columns.push(lp.columns);
        log.rows.push(lp.rows);
        log.nonzeros.push(lp.nonzeros);
      }
      return out;
    },
  };
  return policy as AnyPolicy;
}

const HOUR_MS = 3_600_000;

/** Metrics of a run's job records (`records[i]` for `e2e.workload.jobs[i]`, undefined if unfinished). */
export function e2eMetrics(
  e2e: ThreeSigmaE2E,
  records: readonly (JobRecord | undefined)[],
): Pick<E2EMetrics, 'jobs' | 'unfinished' | 'slo' | 'goodputMachineHours' | 'bestEffort'> {
  let sloJobs = 0;
  let met = 0;
  let goodNodeMs = 0;
  let unfinished = 0;
  const beLatencyMs: number[] = [];
  e2e.workload.jobs.forEach((spec, i) => {
    const r = records[i];
    const finish = r && !r.killed ? r.finishMs : undefined;
    if (finish === undefined) unfinished++;
    const work = Number(spec.tags?.[RUNTIME_TAG] ?? 0) * (spec.stages[0]?.workMs.length ?? 0);
    if (spec.deadlineMs !== undefined) {
      sloJobs++;
      const onTime = finish !== undefined && finish <= spec.deadlineMs;
      if (onTime) met++;
      if (onTime && finish <= e2e.windowMs) goodNodeMs += work;
    } else {
      if (finish !== undefined) beLatencyMs.push(finish - spec.arrivalMs);
      if (finish !== undefined && finish <= e2e.windowMs) goodNodeMs += work;
    }
  });
  beLatencyMs.sort((a, b) => a - b);
  const mean = beLatencyMs.length ? beLatencyMs.reduce((a, b) => a + b, 0) / beLatencyMs.length : NaN;
  return {
    jobs: e2e.workload.jobs.length,
    unfinished,
    slo: { jobs: sloJobs, met, missed: sloJobs - met, missRate: sloJobs ? (sloJobs - met) / sloJobs : 0 },
    goodputMachineHours: goodNodeMs / HOUR_MS,
    bestEffort: { jobs: beLatencyMs.length, meanLatencyMs: mean, p50LatencyMs: percentile(beLatencyMs, 50), p99LatencyMs: percentile(beLatencyMs, 99) },
  };
}

function sortedPercentile(xs: readonly number[], p: number): number {
  return xs.length
    ? percentile(
        [...xs].sort((a, b) => a - b),
        p,
      )
    : 0;
}

/** Runs the workload under a variant until every job has finished; the metrics. */
export function runE2E(e2e: ThreeSigmaE2E, variant: ThreeSigmaVariant, o: E2ERunOptions = {}): E2EMetrics {
  const log: CycleLog = { cycleMs: [], columns: [], rows: [], nonzeros: [] };
  const learned = { n: 0 };
  const seed = o.seed ?? 1;
  const t0 = performance.now();
  const held = (o.holdQueue ?? true) && variant !== 'prio';
  // Replays solve without a wall-clock limit (the node limit bounds them): a run must not depend on the machine's load.
  const base = mergeParams({ solver: { timeLimitMs: null } }, variantParams(variant, o.params));
  const sim = new Simulator({
    workload: held ? heldWorkload(e2e.workload) : e2e.workload,
    seed,
    policy: instrumented(e2e.history, log, learned),
    params: held ? { ...base, live: { holdQueue: E2E_HOLD_QUEUE, runQueue: E2E_RUN_QUEUE } } : base,
    ...(held ? { allocator: createCapacityAllocator } : {}),
    ...(o.periodMs !== undefined ? { periodMs: o.periodMs } : {}),
  });
  sim.run();
  const wallMs = performance.now() - t0;
  const m = e2eMetrics(e2e, sim.records);
  return {
    variant,
    seed,
    ...m,
    cycle: {
      count: log.cycleMs.length,
      p50Ms: sortedPercentile(log.cycleMs, 50),
      p99Ms: sortedPercentile(log.cycleMs, 99),
      maxMs: log.cycleMs.reduce((a, b) => Math.max(a, b), 0),
    },
    milp: {
      solves: log.columns.length,
      columnsP50: sortedPercentile(log.columns, 50),
      columnsMax: log.columns.reduce((a, b) => Math.max(a, b), 0),
      rowsMax: log.rows.reduce((a, b) => Math.max(a, b), 0),
      nonzerosMax: log.nonzeros.reduce((a, b) => Math.max(a, b), 0),
    },
    preemptedContainers: sim.actionStats.byKind.killContainer?.applied ?? 0,
    wastedNodeHours: sim.wastedCoreMs / HOUR_MS,
    historyLearned: learned.n,
    wallMs,
  };
}
