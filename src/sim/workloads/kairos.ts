/**
 * The Kairos paper's workloads (Delgado et al., SoCC'18, §5.2, Table 1), as generators.
 *
 * Five job categories (Hadoop WordCount with extra floating-point work):
 *
 *   category          #maps  #reduces  duration alone  probability
 *   1 small             15       15          85 s          0.32
 *   2 medium small      15       15         201 s          0.31
 *   3 medium            30       30         239 s          0.31
 *   4 medium long      112       60         308 s          0.04
 *   5 long          60 (224)     60        1175 s          0.02
 *
 * Category 5's 60 GB input is read with 1 GB blocks in the authors' runs (epfl-labos/kairos
 * c0fd6ca, extra-files: the `1gb-long` input), so it has 60 maps; Table 1's 224 is the count at
 * 256 MB blocks and would inflate the category from 70.5k to 101k task-seconds.
 * Each job is a map stage followed by a reduce stage (reduces start when all maps are done).
 * Containers are <5120 MB, 1 vcore> (§5.2). Task durations are set so that the job, alone on
 * the paper's 30 × 4-core cluster, has the Table 1 makespan: with `mapFraction` f of the
 * makespan D spent in the map phase, and w_m = ⌈maps / 120⌉, w_r = ⌈reduces / 120⌉ waves,
 * every map runs f·D / w_m and every reduce (1 − f)·D / w_r. (Only category 5 needs two map
 * waves.) The paper does not give the map/reduce split; f defaults to 0.5.
 *
 * Every job also has an ApplicationMaster container (`appMasters`, on by default; the size of a
 * task's): it holds a slot from the job's start to its end, so under FIFO a node runs AM + 3
 * tasks, while Kairos counts it toward the node's N + Q containers but not its N running tasks.
 * `launchOverheadMs` adds a container's launch (JVM start, localisation) to each task's work.
 *
 * - `kairos-heavy`: 100 jobs drawn from all five categories with Table 1's probabilities;
 *   inter-arrival gaps are whole seconds drawn from a Poisson distribution of mean 60 s, as the
 *   authors' job file has them (mean 59.4 s, sd 7.4 s; `arrivals: 'exponential'` for the
 *   exponential gaps of a Poisson process).
 * - `kairos-uniform`: categories 1–3 with probabilities 0.35/0.35/0.30, mean inter-arrival 30 s.
 *
 * Short/long: Big-C (§5.1) treats categories 1–3 as short in the heavy workload; in the uniform
 * one it gives categories 1 and 2 the short share and category 3 the long one. Jobs carry that
 * class (`jobClass`, tag `schedbrain.class`), their category (`schedbrain.category`) and their
 * mean task duration (`schedbrain.estimate-ms`). The workload cutoff (mean task duration) is
 * chosen to agree with the classes for the default split.
 */
import type { Resources } from '../../core/resources.js';
import { Rng } from '../rng.js';
import type { JobSpec, StageSpec, Workload } from '../workload.js';

export interface KairosCategory {
  readonly id: number;
  readonly name: string;
  readonly maps: number;
  readonly reduces: number;
  /** Makespan alone on the cluster, s. */
  readonly durationS: number;
  readonly probability: number;
}

export const KAIROS_CATEGORIES: readonly KairosCategory[] = [
  { id: 1, name: 'small', maps: 15, reduces: 15, durationS: 85, probability: 0.32 },
  { id: 2, name: 'medium small', maps: 15, reduces: 15, durationS: 201, probability: 0.31 },
  { id: 3, name: 'medium', maps: 30, reduces: 30, durationS: 239, probability: 0.31 },
  { id: 4, name: 'medium long', maps: 112, reduces: 60, durationS: 308, probability: 0.04 },
  { id: 5, name: 'long', maps: 60, reduces: 60, durationS: 1175, probability: 0.02 },
];

export const KAIROS_CONTAINER: Resources = Object.freeze({ memoryMB: 5120, vcores: 1 });
/** A job's ApplicationMaster container: the size of a task's (the prototype's AM and tasks are 4,608 MB). */
export const KAIROS_APP_MASTER: Resources = KAIROS_CONTAINER;
export const KAIROS_CLUSTER = Object.freeze({ nodes: 30, cores: 4, memoryMBPerNode: 4 * 8192 });

export interface KairosWorkloadOptions {
  readonly seed?: number;
  /** Number of jobs (default 100). */
  readonly jobs?: number;
  /** Override the mean inter-arrival time, s. */
  readonly meanInterArrivalS?: number;
  /** Share of a job's alone makespan spent in the map phase (default 0.5). */
  readonly mapFraction?: number;
  /** Slots of the cluster the Table 1 makespans refer to (default 30 × 4 = 120). */
  readonly referenceSlots?: number;
  /**
   * Spread of task durations within a stage, 0–1 (default 0: identical tasks). Each task gets
   * d·(1 − j·u), u uniform in [0, 1), except the stage's first task which keeps d, so a
   * single-wave stage still ends at d and Table 1's makespans hold (category 5's two map waves
   * end a little earlier). Mean task work, hence the offered load, drops by about j/2 (with
   * j = 0.5 the FIFO median JCT of kairos-heavy falls from ~806 s to ~239 s). Drawn from a separate
   * stream: arrivals and categories do not change.
   */
  readonly taskJitter?: number;
  /** Gaps between arrivals: whole seconds from a Poisson distribution (default), or exponential. */
  readonly arrivals?: 'poisson-seconds' | 'exponential';
  /** Give every job an ApplicationMaster container (default true). */
  readonly appMasters?: boolean;
  /** Launch time of a task's container, ms, added to its work (default 0). */
  readonly launchOverheadMs?: number;
}

export type KairosVariant = 'heavy' | 'uniform';

interface VariantDef {
  readonly categories: readonly number[];
  readonly probabilities: readonly number[];
  readonly meanInterArrivalS: number;
  readonly shortCategories: readonly number[];
  readonly cutoffS: number;
}

const VARIANTS: Record<KairosVariant, VariantDef> = {
  heavy: { categories: [1, 2, 3, 4, 5], probabilities: [0.32, 0.31, 0.31, 0.04, 0.02], meanInterArrivalS: 60, shortCategories: [1, 2, 3], cutoffS: 130 },
  uniform: { categories: [1, 2, 3], probabilities: [0.35, 0.35, 0.3], meanInterArrivalS: 30, shortCategories: [1, 2], cutoffS: 110 },
};

/** Per-task durations (ms) of a category: [map, reduce]. */
export function categoryTaskMs(cat: KairosCategory, mapFraction = 0.5, referenceSlots = 120): { mapMs: number; reduceMs: number } {
  const wm = Math.ceil(cat.maps / referenceSlots);
  const wr = Math.ceil(cat.reduces / referenceSlots);
  const d = cat.durationS * 1000;
  return { mapMs: (mapFraction * d) / wm, reduceMs: ((1 - mapFraction) * d) / wr };
}

function stageWork(n: number, d: number, jitter: number, rng: Rng | undefined): Float64Array {
  const w = new Float64Array(n).fill(d);
  if (jitter > 0 && rng) for (let i = 1; i < n; i++) w[i] = d * (1 - jitter * rng.next());
  return w;
}

/** One job of the given category (`jitterRng` is needed only with `taskJitter`). */
export function kairosJob(cat: KairosCategory, arrivalMs: number, name: string, shortClass: boolean, o: KairosWorkloadOptions = {}, jitterRng?: Rng): JobSpec {
  const { mapMs, reduceMs } = categoryTaskMs(cat, o.mapFraction ?? 0.5, o.referenceSlots ?? 120);
  const j = o.taskJitter ?? 0;
  if (!(j >= 0 && j <= 1)) throw new Error(`taskJitter must be within 0–1, got ${j}`);
  const launchMs = o.launchOverheadMs ?? 0;
  if (!(launchMs >= 0)) throw new Error(`launchOverheadMs must be at least 0, got ${launchMs}`);
  const maps = stageWork(cat.maps, mapMs, j, jitterRng);
  const reduces = stageWork(cat.reduces, reduceMs, j, jitterRng);
  let total = 0;
  for (const x of maps) total += x;
  for (const x of reduces) total += x;
  const meanMs = total / (cat.maps + cat.reduces);
  if (launchMs > 0) for (const w of [maps, reduces]) for (let i = 0; i < w.length; i++) w[i] += launchMs;
  // The AM goes first: the maps are requested when it runs, the reduces when every map is done.
  const stages: StageSpec[] =
    (o.appMasters ?? true)
      ? [
          { name: 'am', resource: KAIROS_APP_MASTER, workMs: [0], appMaster: true },
          { name: 'map', resource: KAIROS_CONTAINER, workMs: maps, parents: [0] },
          { name: 'reduce', resource: KAIROS_CONTAINER, workMs: reduces, parents: [1] },
        ]
      : [
          { name: 'map', resource: KAIROS_CONTAINER, workMs: maps },
          { name: 'reduce', resource: KAIROS_CONTAINER, workMs: reduces, parents: [0] },
        ];
  return {
    arrivalMs,
    name,
    stages,
    tags: {
      'schedbrain.category': String(cat.id),
      'schedbrain.class': shortClass ? 'short' : 'long',
      'schedbrain.estimate-ms': String(Math.round(meanMs)),
    },
    jobClass: shortClass ? 'short' : 'long',
    idealMs: cat.durationS * 1000,
  };
}

/** A Poisson-distributed count of mean `mean` (Knuth's product of uniforms; fine for means up to a few hundred). */
export function poisson(rng: Rng, mean: number): number {
  const limit = Math.exp(-mean);
  let k = 0;
  let p = rng.next();
  while (p > limit) {
    k++;
    p *= rng.next();
  }
  return k;
}

export function kairosWorkload(variant: KairosVariant, o: KairosWorkloadOptions = {}): Workload {
  const def = VARIANTS[variant];
  const rng = new Rng(o.seed ?? 1);
  const jitterRng = new Rng((o.seed ?? 1) + 0x5bd1e995);
  const n = o.jobs ?? 100;
  const mean = (o.meanInterArrivalS ?? def.meanInterArrivalS) * 1000;
  const jobs: JobSpec[] = [];
  let t = 0;
  const exponential = o.arrivals === 'exponential';
  for (let i = 0; i < n; i++) {
    if (i > 0) t += exponential ? rng.exponential(mean) : 1000 * poisson(rng, mean / 1000);
    const cat = KAIROS_CATEGORIES[def.categories[rng.weighted(def.probabilities)] - 1];
    jobs.push(kairosJob(cat, Math.round(t), `job${i + 1}-c${cat.id}`, def.shortCategories.includes(cat.id), o, jitterRng));
  }
  return { name: `kairos-${variant}`, jobs, cluster: KAIROS_CLUSTER, cutoffMs: def.cutoffS * 1000 };
}
