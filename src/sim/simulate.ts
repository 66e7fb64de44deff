/**
 * Programmatic entry point: run one workload under one policy and get the metrics.
 *
 *   const r = simulate({ workload: 'kairos-heavy', policy: 'kairos', params: { quantumMs: 50_000 }, seed: 1 });
 *   r.jct.p50, r.short.p99, r.records (per-job), r.perJob (per-job metrics)
 */
import type { AnyPolicy } from '../core/policy.js';
import { getPolicy, policyNames } from '../policies/index.js';
import type { AllocatorFactory } from './allocator.js';
import { Simulator, type ActionStats, type JobRecord, type SimOptions } from './engine.js';
import { jobMetrics, type JobMetric, type Metrics } from './metrics.js';
import type { Workload } from './workload.js';
import { resolveWorkload, type ResolveOptions } from './workloads/index.js';

export interface SimulateOptions {
  /** A Workload, or a name/path understood by `resolveWorkload`. */
  readonly workload: Workload | string;
  /** Registry name or a policy object. Default `fifo`. */
  readonly policy?: string | AnyPolicy;
  readonly params?: Record<string, unknown>;
  readonly nodes?: number;
  readonly cores?: number;
  readonly memoryMBPerNode?: number;
  /** Seeds the workload generator (named workloads) and the simulator RNG. Default 1. */
  readonly seed?: number;
  /** Number of jobs for generated workloads (kairos-*). */
  readonly jobs?: number;
  /** More options for a named workload (e.g. `taskJitter`, `meanInterArrivalS`, `mapFraction`). */
  readonly workloadOptions?: ResolveOptions;
  readonly decisionDelayMs?: number;
  readonly periodMs?: number;
  readonly allocator?: AllocatorFactory;
  /** Short/long cutoff on mean task duration, ms (overrides the workload's and per-job classes). */
  readonly cutoffMs?: number;
  /** @deprecated seconds: use `cutoffMs` (giving both is an error). */
  readonly cutoffS?: number;
  readonly checkInvariants?: boolean;
  readonly completedAppRetention?: number;
  readonly onProgress?: (done: number, total: number) => void;
  readonly progressEveryBatches?: number;
  /** Measure time spent inside policy.decide (reported as `policySeconds`). */
  readonly timePolicy?: boolean;
  readonly onDecisions?: SimOptions['onDecisions'];
  /** The safety limits each cycle is planned with, over `SIM_LIMITS` (src/sim/engine.ts). */
  readonly limits?: SimOptions['limits'];
  readonly onPlanned?: SimOptions['onPlanned'];
}

/** The run's job metrics (jobs finished, JCT and slowdown overall and short/long, makespan) and what produced them. */
export interface SimulateResult extends Metrics {
  readonly workload: string;
  readonly policy: string;
  readonly params: Record<string, unknown>;
  readonly seed: number;
  readonly nodes: number;
  readonly coresPerNode: number;
  readonly tasks: number;
  readonly utilisation: {
    /** CPU core-time delivered / (physical cores × makespan). */
    readonly cpu: number;
    /** Allocated vcore-time / (physical cores × makespan); above 1 when over-committed. */
    readonly allocated: number;
  };
  readonly events: number;
  readonly decisionCycles: number;
  readonly actions: ActionStats;
  /** CPU work thrown away by killed containers, core-seconds. */
  readonly wastedWorkS: number;
  readonly wallSeconds: number;
  /** Wall time inside policy.decide, s (only with `timePolicy`). */
  readonly policySeconds?: number;
  readonly eventsPerSecond: number;
  readonly warnings: readonly string[];
  /** Per-job raw records (not part of the CLI's JSON unless asked). */
  readonly records: readonly (JobRecord | undefined)[];
  readonly perJob: readonly JobMetric[];
}

export function lookupPolicy(p: string | AnyPolicy | undefined): AnyPolicy {
  if (p === undefined) return lookupPolicy('fifo');
  if (typeof p !== 'string') return p;
  const pol = getPolicy(p);
  if (!pol) throw new Error(`unknown policy ${p}; registered: ${policyNames().join(', ')}`);
  return pol;
}

export function simulate(o: SimulateOptions): SimulateResult {
  const seed = o.seed ?? 1;
  const workload =
    typeof o.workload === 'string' ? resolveWorkload(o.workload, { ...o.workloadOptions, seed, jobs: o.jobs ?? o.workloadOptions?.jobs }) : o.workload;
  const policy = lookupPolicy(o.policy);
  if (o.cutoffS !== undefined && o.cutoffMs !== undefined) throw new Error('cutoffS (seconds) is replaced by cutoffMs, which is given too: give only cutoffMs');
  const given = o.cutoffMs ?? (o.cutoffS === undefined ? undefined : o.cutoffS * 1000);
  const t0 = performance.now();
  const sim = new Simulator({
    workload,
    nodes: o.nodes,
    cores: o.cores,
    memoryMBPerNode: o.memoryMBPerNode,
    seed,
    policy,
    params: o.params ?? {},
    decisionDelayMs: o.decisionDelayMs,
    periodMs: o.periodMs,
    allocator: o.allocator,
    checkInvariants: o.checkInvariants,
    completedAppRetention: o.completedAppRetention,
    onProgress: o.onProgress,
    progressEveryBatches: o.progressEveryBatches,
    timePolicy: o.timePolicy,
    onDecisions: o.onDecisions,
    limits: o.limits,
    onPlanned: o.onPlanned,
  });
  sim.run();
  const wall = (performance.now() - t0) / 1000;
  const cutoffMs = given ?? workload.cutoffMs;
  const { metrics, perJob } = jobMetrics(sim.records, cutoffMs, given !== undefined);
  const span = Math.max(0, sim.lastFinishMs - (Number.isFinite(sim.firstArrivalMs) ? sim.firstArrivalMs : 0));
  const capMs = sim.physicalCores * span;
  let tasks = 0;
  for (const j of workload.jobs) for (const st of j.stages) tasks += st.workMs.length;
  return {
    workload: workload.name,
    policy: policy.name,
    params: (o.params ?? {}) as Record<string, unknown>,
    seed,
    nodes: sim.nodes.length,
    coresPerNode: sim.nodes[0].physicalCapacity.vcores,
    jobs: metrics.jobs,
    killed: metrics.killed,
    unfinished: metrics.unfinished,
    tasks,
    jct: metrics.jct,
    slowdown: metrics.slowdown,
    short: metrics.short,
    long: metrics.long,
    cutoffMs,
    makespanS: span / 1000,
    utilisation: { cpu: capMs > 0 ? sim.serviceCoreMs / capMs : 0, allocated: capMs > 0 ? sim.allocatedVcoreMs / capMs : 0 },
    events: sim.events,
    decisionCycles: sim.decisionCalls,
    actions: sim.actionStats,
    wastedWorkS: sim.wastedCoreMs / 1000,
    wallSeconds: wall,
    policySeconds: o.timePolicy ? sim.policyMs / 1000 : undefined,
    eventsPerSecond: wall > 0 ? sim.events / wall : 0,
    warnings: sim.warnings,
    records: sim.records,
    perJob,
  };
}

/** The result without the per-job arrays (what the CLI prints). */
export function summary(r: SimulateResult): Omit<SimulateResult, 'records' | 'perJob'> {
  const { records: _r, perJob: _p, ...rest } = r;
  return rest;
}
