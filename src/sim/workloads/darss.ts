/**
 * The DARSS evaluation workloads (thesis §4.2): `darss-google2011` and `darss-google2019`.
 *
 * The thesis drew jobs from the Google Borg traces; the raw traces are not here, so jobs are
 * generated from the figures it reports, an approximation:
 * - cluster: Table 4.4 (300 nodes, 1,905 cores, 2,262 GB), for both traces (the 2019 cluster of
 *   "200 nodes with increased capacity" is not given in numbers);
 * - tasks per job and task duration: bounded Pareto with the means of Table 4.3 (36.56 tasks,
 *   3,000 s), their ranges limited to `maxTasksPerJob` and `maxTaskS` ("workloads have been scaled
 *   by limiting the max size and submission rates", §4.2.2); one unit per task (Table 4.3: 0.4
 *   cores and 0.45 GB on average);
 * - arrivals: Poisson, 5,400 jobs/h in 2011 and 3.7 times that in 2019, both scaled down by one
 *   factor so that the offered load is `load` of the cluster's units; the 2019 trace has 7 times
 *   the tasks for 3.7 times the jobs, so its jobs have 7/3.7 times the tasks, each 7 times shorter;
 * - production: `productionSharePct` of arrivals are workflows shaped like Fig. 3.6 (one job,
 *   a chain of two, or a chain of two beside an independent job), each task leased for 10 % more
 *   than it runs (§4.2.1), due `deadlineSlack` × the time the workflow needs on `deadlineShare` of
 *   the cluster (at least its critical path) after it arrives;
 * - users: `groups` groups; CapacityScheduler queues `root.production.<g>` and
 *   `root.besteffort.<g>` (two per group, §4.2.2), guaranteed in proportion to the work each
 *   receives (the thesis tuned them with perfect knowledge), maximum twice the guarantee.
 */
import { JOB_TAG, REQUEST_TAG } from '../../core/rsl.js';
import { Rng } from '../rng.js';
import type { JobSpec, NodeGroup, QueueSpec, Workload } from '../workload.js';

export const DARSS_TRACES = ['google2011', 'google2019'] as const;
export type DarssTrace = (typeof DARSS_TRACES)[number];

/** Table 4.4. */
export const DARSS_CLUSTER: readonly NodeGroup[] = [
  { count: 161, cores: 6, memoryMB: 8 * 1024 },
  { count: 92, cores: 6, memoryMB: 4 * 1024 },
  { count: 24, cores: 6, memoryMB: 12 * 1024 },
  { count: 19, cores: 12, memoryMB: 16 * 1024 },
  { count: 3, cores: 3, memoryMB: 4 * 1024 },
  { count: 1, cores: 6, memoryMB: 2 * 1024 },
];

export const GROUP_TAG = 'schedbrain.darss.group';

export interface DarssWorkloadOptions {
  readonly seed?: number;
  /** Arrivals (best-effort jobs and production workflows). Default 1,500. */
  readonly jobs?: number;
  /** Share of arrivals that are production workflows, percent (thesis: 20, 15, 10, 5). Default 20. */
  readonly productionSharePct?: number;
  /** Offered load as a share of the cluster's units. Default 0.9. */
  readonly load?: number;
  readonly groups?: number;
  readonly maxTasksPerJob?: number;
  readonly maxTaskS?: number;
  readonly minTaskS?: number;
  /** Deadline = arrival + slack × need, slack uniform in [min, max]. Default [1, 3]. */
  readonly deadlineSlack?: readonly [number, number];
  /** Share of the cluster's units the deadline assumes the workflow gets. Default 0.25. */
  readonly deadlineShare?: number;
  /** Leases are this much longer than tasks run (§4.2.1: 10 %). */
  readonly leasePaddingPct?: number;
}

/** Mean of a bounded Pareto(α) on [lo, hi]. */
function boundedParetoMean(a: number, lo: number, hi: number): number {
  if (Math.abs(a - 1) < 1e-9) return (Math.log(hi / lo) * lo * hi) / (hi - lo);
  const la = lo ** a;
  return (la / (1 - (lo / hi) ** a)) * (a / (a - 1)) * (1 / lo ** (a - 1) - 1 / hi ** (a - 1));
}

/** The α giving a bounded Pareto on [lo, hi] the mean `mean` (bisection; the mean falls as α grows). */
export function paretoShapeFor(mean: number, lo: number, hi: number): number {
  let a = 0.01;
  let b = 10;
  for (let k = 0; k < 200; k++) {
    const m = (a + b) / 2;
    if (boundedParetoMean(m, lo, hi) > mean) a = m;
    else b = m;
  }
  return (a + b) / 2;
}

function boundedPareto(rng: Rng, a: number, lo: number, hi: number): number {
  const u = rng.next();
  const la = lo ** a;
  const ha = hi ** a;
  return (-(u * ha - u * la - ha) / (ha * la)) ** (-1 / a);
}

/** Units of a node: whole (1 core, 1 GB) units. */
const nodeUnits = (g: NodeGroup): number => Math.min(g.cores, Math.floor(g.memoryMB / 1024));

export interface DarssRequestSpec {
  readonly id: string;
  readonly group: string;
  readonly submittedAtMs: number;
  readonly deadlineMs: number;
  readonly jobs: { name: string; tasks: number; leaseMs: number; unitsPerTask: number; prerequisites: string[] }[];
}

export function darssWorkload(trace: DarssTrace, o: DarssWorkloadOptions = {}): Workload {
  const rng = new Rng(o.seed ?? 1);
  const n = o.jobs ?? 1500;
  const prodPct = o.productionSharePct ?? 20;
  const load = o.load ?? 0.9;
  const groups = o.groups ?? 10;
  const factor2019 = trace === 'google2019';
  // 2019: 3.7× the jobs and 7× the tasks, each 7× shorter (same offered load per task).
  const taskMul = factor2019 ? 7 / 3.7 : 1;
  const durDiv = factor2019 ? 7 : 1;
  const maxTasks = o.maxTasksPerJob ?? 1000;
  const maxS = (o.maxTaskS ?? 100_000) / durDiv;
  const minS = (o.minTaskS ?? 10) / durDiv;
  const meanTasks = Math.min(36.56 * taskMul, maxTasks / 2);
  const meanS = 3000 / durDiv;
  const aTasks = paretoShapeFor(meanTasks, 1, maxTasks);
  const aDur = paretoShapeFor(meanS, minS, maxS);
  const pad = 1 + (o.leasePaddingPct ?? 10) / 100;
  const [slackLo, slackHi] = o.deadlineSlack ?? [1, 3];
  const share = o.deadlineShare ?? 0.25;

  const units = DARSS_CLUSTER.reduce((a, g) => a + g.count * nodeUnits(g), 0);
  // Workflows have 2 jobs on average (shapes of 1, 2 and 3 jobs): mean units·s per arrival.
  const perArrival = meanTasks * meanS * (1 + prodPct / 100);
  const ratePerS = (load * units) / perArrival;

  const jobs: JobSpec[] = [];
  const requests: DarssRequestSpec[] = [];
  const work = new Map<string, number>();
  const addWork = (q: string, w: number) => work.set(q, (work.get(q) ?? 0) + w);
  const drawJob = (): { tasks: number; taskMs: number } => ({
    tasks: Math.max(1, Math.min(maxTasks, Math.round(boundedPareto(rng, aTasks, 1, maxTasks)))),
    taskMs: Math.max(1, Math.round(boundedPareto(rng, aDur, minS, maxS) * 1000)),
  });
  const stage = (tasks: number, taskMs: number) => {
    const w = new Float64Array(tasks);
    // Tasks of a job run 90–100 % of the job's task length (the lease covers the longest).
    for (let k = 0; k < tasks; k++) w[k] = Math.max(1, Math.round(taskMs * (0.9 + 0.1 * rng.next())));
    return { resource: { vcores: 1, memoryMB: 1024 }, workMs: w };
  };
  let t = 0;
  let wid = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0) t += Math.round(rng.exponential(1000 / ratePerS));
    const g = `g${rng.int(groups)}`;
    if (rng.next() * 100 < prodPct) {
      const id = `w${++wid}`;
      const shape = rng.int(3); // 0: one job; 1: j1 → j2; 2: j1 → j2 and j3 (Fig. 3.6)
      const names = shape === 0 ? ['j1'] : shape === 1 ? ['j1', 'j2'] : ['j1', 'j2', 'j3'];
      const first = jobs.length;
      const drawn = names.map(() => drawJob());
      const rsl: DarssRequestSpec['jobs'] = drawn.map(({ tasks, taskMs }, k) => ({
        name: names[k],
        tasks,
        leaseMs: Math.ceil(taskMs * pad),
        unitsPerTask: 1,
        prerequisites: names[k] === 'j2' ? ['j1'] : [],
      }));
      const need = rsl.reduce((a, j) => a + j.tasks * j.leaseMs, 0);
      const cp = Math.max(...rsl.map((j) => (j.name === 'j2' ? rsl[0].leaseMs + j.leaseMs : j.leaseMs)));
      const deadlineMs = t + Math.ceil((slackLo + (slackHi - slackLo) * rng.next()) * Math.max(cp, need / (share * units)));
      const q = `root.production.${g}`;
      drawn.forEach(({ tasks, taskMs }, k) => {
        addWork(q, tasks * taskMs);
        jobs.push({
          arrivalMs: t,
          name: `${id}.${names[k]}`,
          user: g,
          queue: q,
          stages: [stage(tasks, taskMs)],
          tags: { [REQUEST_TAG]: id, [JOB_TAG]: names[k], [GROUP_TAG]: g },
          jobClass: 'long',
          deadlineMs,
          ...(names[k] === 'j2' ? { after: [first] } : {}),
        });
      });
      requests.push({ id, group: g, submittedAtMs: t, deadlineMs, jobs: rsl });
    } else {
      const { tasks, taskMs } = drawJob();
      const q = `root.besteffort.${g}`;
      addWork(q, tasks * taskMs);
      jobs.push({ arrivalMs: t, name: `be${i}`, user: g, queue: q, stages: [stage(tasks, taskMs)], tags: { [GROUP_TAG]: g }, jobClass: 'short' });
    }
  }
  return {
    name: `darss-${trace}`,
    jobs,
    cluster: { nodeGroups: DARSS_CLUSTER },
    queues: groupQueues(groups, work),
    requests,
  };
}

/** Capacities in tenths of a percent summing to 100 (largest remainder), each at least `floor`. */
function pcts(weights: readonly number[], floor = 0.5): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const w = weights.map((x) => (total > 0 ? x / total : 1 / weights.length) * (100 - floor * weights.length) + floor);
  const tenths = w.map((x) => Math.floor(x * 10));
  let left = 1000 - tenths.reduce((a, b) => a + b, 0);
  const order = w.map((x, i) => [x * 10 - Math.floor(x * 10), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left-- <= 0) break;
    tenths[i]++;
  }
  return tenths.map((x) => x / 10);
}

/** Two queues per group (production, best-effort), guaranteed in proportion to their work; max twice that. */
function groupQueues(groups: number, work: ReadonlyMap<string, number>): QueueSpec[] {
  const names = Array.from({ length: groups }, (_, k) => `g${k}`);
  const sum = (parent: string) => names.reduce((a, g) => a + (work.get(`root.${parent}.${g}`) ?? 0), 0);
  const [prod, be] = pcts([sum('production'), sum('besteffort')], 5);
  const out: QueueSpec[] = [
    { path: 'root.production', capacityPct: prod, maxCapacityPct: Math.min(100, 2 * prod) },
    { path: 'root.besteffort', capacityPct: be, maxCapacityPct: Math.min(100, 2 * be) },
  ];
  for (const parent of ['production', 'besteffort']) {
    const caps = pcts(names.map((g) => work.get(`root.${parent}.${g}`) ?? 0));
    names.forEach((g, k) => out.push({ path: `root.${parent}.${g}`, capacityPct: caps[k], maxCapacityPct: Math.min(100, 2 * caps[k]) }));
  }
  return out;
}
