/**
 * The BoPF paper's workloads (Le et al., §5.1), as generators.
 *
 * Jobs are DAGs of stages of equal tasks, shaped after the three benchmarks the paper replays:
 *
 *   benchmark  LQ job stages (task s, whole-cluster waves)   TQ stages  TQ task duration (lognormal)
 *   bb         2  (15, 12)                                    2–5        median 3.6 s, σ 1.0
 *   tpcds      5  (6, 5, 6, 5, 5)                             3–8        median 13.3 s, σ 1.4
 *   tpch       4  (8, 7, 6, 6)                                2–6        median 24.3 s, σ 1.1
 *
 * TQ task durations are lognormals fitted to the task durations of the authors' traces
 * (`lenhattan86/IRFsim`, its BB, TPC-DS and TPC-H job files); their tasks are memory-bound, so
 * every TQ task is <1 vcore, 4 GB> unless `cpuHeavyTqFraction` makes some <2 vcores, 2 GB>.
 *
 * - One latency-sensitive queue `root.lq0` gets one LQ job per period (300 s at cluster scale,
 *   1000 s at simulation scale), the first one at `firstLqArrivalMs`. An LQ job is memory-bound
 *   and as wide as the cluster's memory (<1 vcore, 4 GB> tasks, 16 per 64 GB node), so its
 *   shortest completion time — the ON period — is about 27 s (the paper's average), and
 *   `--lq-scale X` multiplies its task count (and so its ON period) by X.
 * - `tqs` throughput-sensitive queues `root.tq0…` share 100 (cluster) or 500 (simulation) TQ
 *   jobs, all submitted at time 0, round-robin. Their total work keeps the cluster busy for
 *   about 1.1 × the LQ horizon (bursts × period) in dominant-resource terms, so TQs stay
 *   backlogged during every burst (`lqUntilTqsDone` keeps the LQ bursting for as long as TQ work
 *   can last, as the authors' Fig. 9 runs do).
 * - The cluster is the paper's: 40 nodes × 32 cores × 64 GB.
 *
 * The paper's traces are not public in a form we ship; stage counts and task-duration medians
 * are our reading of its Figure 5 and text ("LQ jobs in BB (only 2 stages)", TPC-DS and TPC-H
 * "have more stages"). `bopfScenario` also returns the queue registrations each policy needs.
 *
 * `bopfMultiLqScenario` is the paper's §5.2.5 setup (Figures 10/11): three LQs with identical
 * jobs arriving first at 50/100/150 s with periods 150/110/60 s, and one TQ.
 */
import type { QueueSpec as BopfQueueSpec } from '../../policies/bopf/spec.js';
import { Rng } from '../rng.js';
import type { JobSpec, QueueSpec, StageSpec, Workload } from '../workload.js';

export type BopfBenchmark = 'bb' | 'tpcds' | 'tpch';

export const BOPF_CLUSTER = { nodes: 40, cores: 32, memoryMBPerNode: 65_536 } as const;
const LQ_TASK = { vcores: 1, memoryMB: 4096 };
const CPU_TASK = { vcores: 2, memoryMB: 2048 };

const SHAPES: Record<BopfBenchmark, { lqStagesS: number[]; tqStages: [number, number]; tqMedianS: number; tqSigma: number }> = {
  bb: { lqStagesS: [15, 12], tqStages: [2, 5], tqMedianS: 3.6, tqSigma: 1.0 },
  tpcds: { lqStagesS: [6, 5, 6, 5, 5], tqStages: [3, 8], tqMedianS: 13.3, tqSigma: 1.4 },
  tpch: { lqStagesS: [8, 7, 6, 6], tqStages: [2, 6], tqMedianS: 24.3, tqSigma: 1.1 },
};

export interface BopfWorkloadOptions {
  readonly benchmark?: BopfBenchmark;
  /** Number of TQs (default 8, the paper's default setup). */
  readonly tqs?: number;
  /** Multiplies the LQ jobs' task counts (paper Fig. 9: 1, 2, 4, 8). */
  readonly lqScale?: number;
  /** `cluster`: period 300 s, 100 TQ jobs; `sim`: period 1000 s, 500 TQ jobs. */
  readonly scale?: 'cluster' | 'sim';
  /** Number of LQ bursts (default 10 at cluster scale, 5 at simulation scale). */
  readonly lqBursts?: number;
  readonly periodMs?: number;
  readonly firstLqArrivalMs?: number;
  /** TQ jobs (default 100 / 500). */
  readonly tqJobs?: number;
  readonly seed?: number;
  /**
   * Bursts of uncertain size (paper §5.3.2): each LQ job's task count is multiplied by a factor
   * drawn from N(1, lqSizeStd) (at least 0.1). Default 0: every burst is the same.
   */
  readonly lqSizeStd?: number;
  /** Burst deadline to register (default: the ON period, the job's shortest completion time). */
  readonly deadlineMs?: number;
  /**
   * Register the LQ with its demand distribution (normal, mean and std of the burst demand) and
   * this alpha instead of a fixed demand (the alpha-strategy). Without it the LQ declares the
   * mean demand (vanilla BoPF).
   */
  readonly alpha?: number;
  /** How the alpha-strategy treats the two resources (default `independent`, as the paper's K-resource rule). */
  readonly correlation?: 'independent' | 'perfect';
  /** Share of TQ jobs whose tasks are CPU-heavy <2 vcores, 2 GB> (default 0: memory-bound, as the authors' traces). */
  readonly cpuHeavyTqFraction?: number;
  /**
   * Keep the LQ bursting (one job per period) for as long as the TQ work could last, instead of
   * `lqBursts` bursts: the TQs then compete with LQ bursts until they finish (the authors' Fig. 9).
   */
  readonly lqUntilTqsDone?: boolean;
}

export interface BopfScenario {
  readonly workload: Workload;
  /** Registrations for `bopf` / `nbopf` (`queues` parameter), in registration order (TQs first). */
  readonly queueSpecs: BopfQueueSpec[];
  /** Leaf names of the LQs (the `sp` policy's `latencyQueues`). */
  readonly latencyQueues: string[];
  readonly lqQueues: string[];
  readonly tqQueues: string[];
  /** Shortest completion time of the LQ job alone on the cluster (≈ ON period), ms. */
  readonly onPeriodMs: number;
}

/** Policy parameters that make `policy` run this scenario. */
export function bopfPolicyParams(policy: string, s: BopfScenario, extra: Record<string, unknown> = {}): Record<string, unknown> {
  if (policy === 'bopf' || policy === 'nbopf') return { queues: s.queueSpecs, ...extra };
  if (policy === 'sp') return { latencyQueues: s.latencyQueues, ...extra };
  return { ...extra };
}

const capacity = () => ({ vcores: BOPF_CLUSTER.nodes * BOPF_CLUSTER.cores, memoryMB: BOPF_CLUSTER.nodes * BOPF_CLUSTER.memoryMBPerNode });

/** Tasks of `r` that fit on the whole cluster at once. */
function clusterWidth(r: { vcores: number; memoryMB: number }): number {
  const perNode = Math.min(Math.floor(BOPF_CLUSTER.cores / r.vcores), Math.floor(BOPF_CLUSTER.memoryMBPerNode / r.memoryMB));
  return perNode * BOPF_CLUSTER.nodes;
}

function lognormal(rng: Rng, median: number, sigma: number): number {
  // Box–Muller.
  const u = 1 - rng.next();
  const v = rng.next();
  return median * Math.exp(sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v));
}

function jitter(rng: Rng, x: number, f: number): number {
  return x * (1 - f + 2 * f * rng.next());
}

/** One LQ job: stages as wide as the cluster's memory × scale, each task ±5 % of the stage time. */
function lqJob(rng: Rng, stagesS: readonly number[], scale: number, arrivalMs: number, queue: string, name: string): JobSpec {
  const width = Math.max(1, Math.round(clusterWidth(LQ_TASK) * scale));
  const stages: StageSpec[] = stagesS.map((s, i) => ({
    name: `s${i}`,
    resource: LQ_TASK,
    parents: i === 0 ? [] : [i - 1],
    workMs: Float64Array.from({ length: width }, () => Math.round(jitter(rng, s * 1000, 0.05))),
  }));
  return { arrivalMs, stages, name, queue, jobClass: 'short', tags: { 'bopf.kind': 'LQ', 'bopf.queue': queue } };
}

/** Shortest completion time of a job given the whole cluster (waves × longest task, per stage). */
export function onPeriodMs(job: JobSpec): number {
  let t = 0;
  for (const st of job.stages) {
    const waves = Math.ceil(st.workMs.length / clusterWidth(st.resource));
    let longest = 0;
    for (let i = 0; i < st.workMs.length; i++) longest = Math.max(longest, st.workMs[i]);
    t += waves * longest;
  }
  return t;
}

/** Demand of a job: vcore·s and MB·s. */
export function jobDemand(job: JobSpec): { vcoreSeconds: number; memoryMBSeconds: number } {
  let v = 0;
  let m = 0;
  for (const st of job.stages) {
    let w = 0;
    for (let i = 0; i < st.workMs.length; i++) w += st.workMs[i];
    v += (st.resource.vcores * w) / 1000;
    m += (st.resource.memoryMB * w) / 1000;
  }
  return { vcoreSeconds: v, memoryMBSeconds: m };
}

function tqJobs(rng: Rng, benchmark: BopfBenchmark, n: number, queues: readonly string[], targetWorkS: number, cpuHeavyFraction = 0): JobSpec[] {
  const shape = SHAPES[benchmark];
  const drafts = Array.from({ length: n }, (_, j) => {
    const [lo, hi] = shape.tqStages;
    const nStages = lo + rng.int(hi - lo + 1);
    const resource = rng.next() < cpuHeavyFraction ? CPU_TASK : LQ_TASK;
    const stages = Array.from({ length: nStages }, (_, i) => {
      const parents = i === 0 ? [] : i >= 2 && rng.next() < 0.3 ? [i - 1, i - 2] : [i - 1];
      const durS = Math.min(300, Math.max(1, lognormal(rng, shape.tqMedianS, shape.tqSigma)));
      const tasks = Math.round(Math.exp(Math.log(10) + rng.next() * (Math.log(400) - Math.log(10))));
      return { parents, durS, tasks };
    });
    return { j, resource, stages };
  });
  // Scale task counts so the total dominant work hits the target.
  const c = capacity();
  let work = 0;
  for (const d of drafts) {
    const share = Math.max(d.resource.vcores / c.vcores, d.resource.memoryMB / c.memoryMB);
    for (const st of d.stages) work += share * st.tasks * st.durS;
  }
  const k = targetWorkS / work;
  return drafts.map((d) => {
    const stages: StageSpec[] = d.stages.map((st, i) => ({
      name: `s${i}`,
      resource: d.resource,
      parents: st.parents,
      workMs: Float64Array.from({ length: Math.max(1, Math.round(st.tasks * k)) }, () => Math.round(jitter(rng, st.durS * 1000, 0.2))),
    }));
    const queue = queues[d.j % queues.length];
    return { arrivalMs: 0, stages, name: `tq-job-${d.j}`, queue, jobClass: 'long' as const, tags: { 'bopf.kind': 'TQ', 'bopf.queue': queue } };
  });
}

function equalQueues(paths: readonly string[]): QueueSpec[] {
  // Capacities on a 0.1 % grid summing to exactly 100.
  const units = 1000;
  const base = Math.floor(units / paths.length);
  let extra = units - base * paths.length;
  return paths.map((path) => {
    const u = base + (extra-- > 0 ? 1 : 0);
    return { path, capacityPct: u / 10, maxCapacityPct: 100 };
  });
}

export function bopfScenario(o: BopfWorkloadOptions = {}): BopfScenario {
  const benchmark = o.benchmark ?? 'bb';
  const scale = o.scale ?? 'cluster';
  const tqs = o.tqs ?? 8;
  const lqScale = o.lqScale ?? 1;
  if (!(Number.isInteger(tqs) && tqs >= 0)) throw new Error(`tqs must be a non-negative integer, got ${tqs}`);
  if (!(lqScale > 0)) throw new Error(`lq-scale must be > 0, got ${lqScale}`);
  const periodMs = o.periodMs ?? (scale === 'sim' ? 1_000_000 : 300_000);
  const nominalBursts = o.lqBursts ?? (scale === 'sim' ? 5 : 10);
  const first = o.firstLqArrivalMs ?? 60_000;
  // TQ work is sized on the nominal bursts; bursting until the TQs are done covers five times
  // that work's length (even strict priority for an LQ 8× as wide leaves the TQs over a quarter).
  const bursts = o.lqUntilTqsDone ? Math.ceil((5 * 1.1 * (first + nominalBursts * periodMs) - first) / periodMs) : nominalBursts;
  const nTq = o.tqJobs ?? (scale === 'sim' ? 500 : 100);
  const rng = new Rng(o.seed ?? 1);
  const shape = SHAPES[benchmark];
  const lq = 'root.lq0';
  const tqPaths = Array.from({ length: tqs }, (_, i) => `root.tq${i}`);
  const sizeStd = o.lqSizeStd ?? 0;
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  const lqJobs = Array.from({ length: bursts }, (_, k) => {
    const f = sizeStd > 0 ? Math.max(0.1, 1 + sizeStd * normal()) : 1;
    return lqJob(rng, shape.lqStagesS, lqScale * f, first + k * periodMs, lq, `lq-job-${k}`);
  });
  const horizonS = (first + nominalBursts * periodMs) / 1000;
  const tq = tqs > 0 ? tqJobs(rng, benchmark, nTq, tqPaths, 1.1 * horizonS, o.cpuHeavyTqFraction ?? 0) : [];
  // The ON period and demand of the nominal (unscaled-by-noise) job.
  const nominal = lqJob(new Rng(0), shape.lqStagesS, lqScale, 0, lq, 'nominal');
  const on = onPeriodMs(nominal);
  const d = jobDemand(nominal);
  const base = { name: 'lq0', kind: 'LQ' as const, periodMs, burstDeadlineMs: o.deadlineMs ?? on };
  const lqSpec: BopfQueueSpec =
    o.alpha === undefined
      ? { ...base, demand: { vcoreSeconds: Math.ceil(d.vcoreSeconds), memoryMBSeconds: Math.ceil(d.memoryMBSeconds) } }
      : {
          ...base,
          alpha: o.alpha,
          distribution: {
            vcoreSeconds: { kind: 'normal', mean: d.vcoreSeconds, std: d.vcoreSeconds * sizeStd },
            memoryMBSeconds: { kind: 'normal', mean: d.memoryMBSeconds, std: d.memoryMBSeconds * sizeStd },
            correlation: o.correlation ?? 'independent',
          },
        };
  const workload: Workload = {
    name: `bopf-${benchmark}`,
    jobs: [...lqJobs, ...tq],
    cluster: BOPF_CLUSTER,
    queues: equalQueues([lq, ...tqPaths]),
  };
  return {
    workload,
    // TQs are registered first (the paper: "we assume that TQs are already available"), so the
    // LQ is judged with every queue counted (N' = TQs + 1).
    queueSpecs: [...tqPaths.map((p) => ({ name: p.slice(5), kind: 'TQ' as const })), lqSpec],
    latencyQueues: ['lq0'],
    lqQueues: [lq],
    tqQueues: tqPaths,
    onPeriodMs: on,
  };
}

export interface MultiLqOptions {
  readonly seed?: number;
  /** End of the experiment (LQ arrivals stop), ms. Default 1200 s. */
  readonly horizonMs?: number;
  /** TQ jobs (BigBench-like) in the single TQ. Default 40. */
  readonly tqJobs?: number;
}

/**
 * §5.2.5: LQ-0/1/2 with identical jobs (2 stages × 10 s as wide as the cluster's memory:
 * d = 20 cluster-seconds, ON = 20 s), first arrivals 50/100/150 s, periods 150/110/60 s, and
 * one TQ. On the 40-node cluster BoPF admits LQ-0 hard, LQ-1 soft (its bursts collide with
 * LQ-0's), LQ-2 elastic (20 > 60/4 cluster-seconds fails fairness).
 */
export function bopfMultiLqScenario(o: MultiLqOptions = {}): BopfScenario {
  const rng = new Rng(o.seed ?? 1);
  const horizon = o.horizonMs ?? 1_200_000;
  const lqs = [
    { name: 'lq0', first: 50_000, period: 150_000 },
    { name: 'lq1', first: 100_000, period: 110_000 },
    { name: 'lq2', first: 150_000, period: 60_000 },
  ];
  const jobs: JobSpec[] = [];
  const specs: BopfQueueSpec[] = [{ name: 'tq0', kind: 'TQ' }];
  let on = 0;
  for (const l of lqs) {
    let first: JobSpec | undefined;
    for (let t = l.first, k = 0; t < horizon; t += l.period, k++) {
      const j = lqJob(rng, [10, 10], 1, t, `root.${l.name}`, `${l.name}-job-${k}`);
      first ??= j;
      jobs.push(j);
    }
    on = Math.max(on, onPeriodMs(first!));
    specs.push({
      name: l.name,
      kind: 'LQ',
      periodMs: l.period,
      burstDeadlineMs: 20_000,
      demand: { vcoreSeconds: 20 * 1280, memoryMBSeconds: 20 * 40 * 65_536 },
      firstArrivalMs: l.first,
    });
  }
  jobs.push(...tqJobs(rng, 'bb', o.tqJobs ?? 40, ['root.tq0'], (1.1 * horizon) / 1000));
  const paths = ['root.tq0', ...lqs.map((l) => `root.${l.name}`)];
  return {
    workload: { name: 'bopf-multi-lq', jobs, cluster: BOPF_CLUSTER, queues: equalQueues(paths) },
    queueSpecs: specs,
    latencyQueues: lqs.map((l) => l.name),
    lqQueues: lqs.map((l) => `root.${l.name}`),
    tqQueues: ['root.tq0'],
    onPeriodMs: on,
  };
}

/** Named workloads for the simulator's registry: `bopf-bb`, `bopf-tpcds`, `bopf-tpch`, `bopf-multi-lq`. */
export function bopfWorkload(name: string, o: BopfWorkloadOptions = {}): Workload | undefined {
  if (name === 'bopf-multi-lq') return bopfMultiLqScenario({ seed: o.seed }).workload;
  const m = /^bopf-(bb|tpcds|tpch)$/.exec(name);
  return m ? bopfScenario({ ...o, benchmark: m[1] as BopfBenchmark }).workload : undefined;
}
