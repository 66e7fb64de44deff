/**
 * The 3Sigma end-to-end workload (`3sigma-e2e`, Park et al. EuroSys'18 §5): a mix of SLO jobs
 * with deadlines and best-effort jobs on a cluster of one-slot nodes, and a separate history of
 * runs of the same jobs to warm 3σPredict with.
 *
 * The paper derives E2E from the Google 2011 trace (jobs of at most 256 nodes, k-means runtime
 * classes, per-class distributions of attributes and features). Neither the trace nor the fitted
 * classes are published or here, so the classes are ours (docs/decisions.md), shaped by what the
 * paper states:
 * - runtime classes: four, with shares and median runtimes below; each class holds recurring job
 *   templates (a name, a user, a task count); a template's runs are lognormal around its own
 *   median, and a share of runs drift far from it (new input: §2.1 finds 8 % of Google jobs
 *   mis-estimated by a factor of two or more);
 * - tasks per job: a bounded Pareto on [1, 256] per template (one task = one node);
 * - arrivals: a two-phase hyper-exponential process with c_a² = 4 (§5), jobs drawn until their
 *   work (node × time) is `load` × the cluster over `durationMs` (§5: 1.4), their arrivals spread
 *   over the window;
 * - half the jobs SLO, half best-effort (§5); an SLO job's deadline is arrival + (1 + slack) ×
 *   its runtime, slack drawn from `slackPct` (§5: 20, 40, 60, 80 %); it prefers a random 75 % of
 *   the nodes and runs 1.5× longer elsewhere (§5);
 * - history: `samples` runs of every template drawn the same way, learned before the run (§5
 *   "Estimates": pre-trained on a separate part of the generated trace).
 *
 * Every job carries its true runtime in the `schedbrain.runtime-ms` tag (PointPerfEst reads it;
 * the predictor ignores the brain's own tags) and its deadline in `schedbrain.slo.deadline-ms`;
 * an SLO job its preferred nodes in `schedbrain.preferred-nodes` and its slowdown elsewhere in
 * `schedbrain.off-preferred-slowdown` (the plan's equivalence sets, §4.3.3).
 */
import type { HistoryRecord } from '../../core/history.js';
import { HISTORY_RECORD_VERSION, normaliseName } from '../../core/history.js';
import { Rng } from '../rng.js';
import type { JobSpec, Workload } from '../workload.js';
import { paretoShapeFor } from './darss.js';

export const THREESIGMA_WORKLOADS = ['3sigma-e2e'] as const;
export const DEADLINE_TAG = 'schedbrain.slo.deadline-ms';
export const RUNTIME_TAG = 'schedbrain.runtime-ms';
export const KIND_TAG = 'schedbrain.sim.kind';
/** An SLO job's preferred nodes (node ids, comma-separated) and its slowdown elsewhere: what the policy plans sets from. */
export const PREFERRED_NODES_TAG = 'schedbrain.preferred-nodes';
export const SLOWDOWN_TAG = 'schedbrain.off-preferred-slowdown';

/** The simulator's id of node `index` in a cluster of `nodes` (src/sim/engine.ts names them so). */
export function simNodeId(index: number, nodes: number): string {
  return `node${String(index + 1).padStart(String(nodes).length, '0')}`;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export interface RuntimeClass {
  readonly name: string;
  /** Share of jobs. */
  readonly share: number;
  readonly medianRuntimeMs: number;
}

/** Runtime classes (ours; the paper's k-means classes are not published). */
export const RUNTIME_CLASSES: readonly RuntimeClass[] = [
  { name: 'short', share: 0.55, medianRuntimeMs: 2 * MINUTE_MS },
  { name: 'medium', share: 0.3, medianRuntimeMs: 8 * MINUTE_MS },
  { name: 'long', share: 0.12, medianRuntimeMs: 20 * MINUTE_MS },
  { name: 'verylong', share: 0.03, medianRuntimeMs: 60 * MINUTE_MS },
];

export interface ThreeSigmaE2EOptions {
  readonly seed?: number;
  /** Nodes (one slot each). Default 256 (SC256). */
  readonly nodes?: number;
  /** Length of the arrival window, ms. Default 5 h (18,000,000). */
  readonly durationMs?: number;
  /** @deprecated hours: use `durationMs` (giving both is an error). */
  readonly hours?: number;
  /** Offered load: node × time submitted / (nodes × the window). Default 1.4. */
  readonly load?: number;
  /** Share of jobs that are SLO jobs. Default 0.5. */
  readonly sloShare?: number;
  /** Deadline slack choices, percent of the runtime. Default [20, 40, 60, 80]. */
  readonly slackPct?: readonly number[];
  /** History runs per job template learned before the run. Default 50. */
  readonly samples?: number;
  /** Share of nodes an SLO job prefers. Default 0.75. */
  readonly preferredShare?: number;
  /** Runtime multiplier off the preferred nodes. Default 1.5. */
  readonly offPreferredSlowdown?: number;
  /** Templates per runtime class. Default 16. */
  readonly templatesPerClass?: number;
  /** Users the templates belong to (shared across classes). Default 12. */
  readonly users?: number;
  /** Lognormal σ of a template's runs around its median. Default 0.25. */
  readonly runSigma?: number;
  /** Lognormal σ of template medians around their class median. Default 0.3. */
  readonly templateSigma?: number;
  /** Share of runs that drift (new input) and their lognormal σ. Defaults 0.15 and 1.0. */
  readonly driftShare?: number;
  readonly driftSigma?: number;
  /**
   * Mean tasks per template (bounded Pareto on [1, nodes]). Default 10 on 256 nodes, in
   * proportion on a smaller cluster (at least 2), so a job is the same share of it.
   */
  readonly meanTasks?: number;
}

export interface JobTemplate {
  readonly name: string;
  readonly user: string;
  readonly runtimeClass: number;
  readonly tasks: number;
  readonly medianRuntimeMs: number;
}

export interface ThreeSigmaE2E {
  readonly workload: Workload;
  /** Runs of the same templates, finished before the run (warms 3σPredict). */
  readonly history: readonly HistoryRecord[];
  readonly templates: readonly JobTemplate[];
  /** End of the arrival window, virtual ms (arrivals are in [0, windowMs)). */
  readonly windowMs: number;
  readonly nodes: number;
  /** Offered work of the run's jobs, node-ms (at their nominal runtimes). */
  readonly offeredNodeMs: number;
}

/** Container of one task: a whole one-slot node. */
export const NODE_SHAPE = { cores: 1, memoryMB: 4096 } as const;
const TASK_RESOURCE = { vcores: 1, memoryMB: 4096 };

function gaussian(rng: Rng): number {
  // Box–Muller; 1 − next() is in (0, 1].
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

function boundedPareto(rng: Rng, a: number, lo: number, hi: number): number {
  const u = rng.next();
  const la = lo ** a;
  const ha = hi ** a;
  return (-(u * ha - u * la - ha) / (ha * la)) ** (-1 / a);
}

/** Letters for an index (a, b, …, z, ba, …): names stay distinct after digits are normalised. */
function letters(i: number): string {
  let s = '';
  do {
    s = String.fromCharCode(97 + (i % 26)) + s;
    i = Math.floor(i / 26);
  } while (i > 0);
  return s;
}

/**
 * Inter-arrival gaps with mean `meanMs` and squared coefficient of variation `c2` (≥ 1): a
 * two-phase hyper-exponential with balanced means.
 */
export function hyperExponentialGap(rng: Rng, meanMs: number, c2: number): number {
  const p1 = (1 + Math.sqrt((c2 - 1) / (c2 + 1))) / 2;
  const phase1 = rng.next() < p1;
  const p = phase1 ? p1 : 1 - p1;
  return rng.exponential(meanMs / (2 * p));
}

interface Resolved {
  nodes: number;
  durationMs: number;
  load: number;
  sloShare: number;
  slackPct: readonly number[];
  samples: number;
  preferredShare: number;
  slowdown: number;
  templatesPerClass: number;
  users: number;
  runSigma: number;
  templateSigma: number;
  driftShare: number;
  driftSigma: number;
  meanTasks: number;
}

function resolve(o: ThreeSigmaE2EOptions): Resolved {
  if (o.hours !== undefined && o.durationMs !== undefined) throw new Error('hours is replaced by durationMs, which is given too: give only durationMs');
  const r: Resolved = {
    nodes: o.nodes ?? 256,
    durationMs: o.durationMs ?? (o.hours !== undefined ? o.hours * HOUR_MS : 5 * HOUR_MS),
    load: o.load ?? 1.4,
    sloShare: o.sloShare ?? 0.5,
    slackPct: o.slackPct ?? [20, 40, 60, 80],
    samples: o.samples ?? 50,
    preferredShare: o.preferredShare ?? 0.75,
    slowdown: o.offPreferredSlowdown ?? 1.5,
    templatesPerClass: o.templatesPerClass ?? 16,
    users: o.users ?? 12,
    runSigma: o.runSigma ?? 0.25,
    templateSigma: o.templateSigma ?? 0.3,
    driftShare: o.driftShare ?? 0.15,
    driftSigma: o.driftSigma ?? 1.0,
    meanTasks: o.meanTasks ?? 10,
  };
  if (o.meanTasks === undefined) r.meanTasks = Math.max(2, (10 * r.nodes) / 256);
  if (!(Number.isInteger(r.nodes) && r.nodes >= 1)) throw new Error(`nodes must be a positive integer, got ${r.nodes}`);
  if (!(r.durationMs > 0)) throw new Error(`durationMs must be > 0, got ${r.durationMs}`);
  if (!(r.load > 0)) throw new Error(`load must be > 0, got ${r.load}`);
  if (!(r.sloShare >= 0 && r.sloShare <= 1)) throw new Error(`sloShare must be in [0, 1], got ${r.sloShare}`);
  if (r.slackPct.length === 0 || r.slackPct.some((s) => !(s >= 0))) throw new Error(`slack choices must be ≥ 0 %, got ${r.slackPct.join(', ')}`);
  if (!(Number.isInteger(r.samples) && r.samples >= 0)) throw new Error(`samples must be an integer ≥ 0, got ${r.samples}`);
  if (!(r.preferredShare > 0 && r.preferredShare <= 1)) throw new Error(`preferredShare must be in (0, 1], got ${r.preferredShare}`);
  if (!(r.slowdown >= 1)) throw new Error(`offPreferredSlowdown must be ≥ 1, got ${r.slowdown}`);
  if (!(r.meanTasks >= 1 && r.meanTasks < r.nodes)) throw new Error(`meanTasks must be in [1, nodes), got ${r.meanTasks}`);
  return r;
}

function makeTemplates(rng: Rng, r: Resolved): JobTemplate[] {
  const a = paretoShapeFor(r.meanTasks, 1, r.nodes);
  const out: JobTemplate[] = [];
  RUNTIME_CLASSES.forEach((c, ci) => {
    for (let k = 0; k < r.templatesPerClass; k++) {
      out.push({
        name: `job-${letters(out.length)}`,
        user: `user-${letters(rng.int(r.users))}`,
        runtimeClass: ci,
        tasks: Math.min(r.nodes, Math.floor(boundedPareto(rng, a, 1, r.nodes + 1))),
        medianRuntimeMs: c.medianRuntimeMs * Math.exp(r.templateSigma * gaussian(rng)),
      });
    }
  });
  return out;
}

/** A template by class share, then uniformly within its class. */
function drawTemplate(rng: Rng, templates: readonly JobTemplate[], r: Resolved): JobTemplate {
  const c = rng.weighted(RUNTIME_CLASSES.map((x) => x.share));
  return templates[c * r.templatesPerClass + rng.int(r.templatesPerClass)];
}

/** One run's runtime: lognormal around the template's median, sometimes drifting far from it; 10 s to 10 h. */
function drawRuntimeMs(rng: Rng, t: JobTemplate, r: Resolved): number {
  let x = t.medianRuntimeMs * Math.exp(r.runSigma * gaussian(rng));
  if (rng.next() < r.driftShare) x *= Math.exp(r.driftSigma * gaussian(rng));
  return Math.round(Math.min(10 * HOUR_MS, Math.max(10_000, x)));
}

/** A random `share` of the nodes (sorted indexes). */
function preferredNodes(rng: Rng, nodes: number, share: number): number[] {
  const idx = Array.from({ length: nodes }, (_, i) => i);
  const k = Math.max(1, Math.round(nodes * share));
  for (let i = 0; i < k; i++) {
    const j = i + rng.int(nodes - i);
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx.slice(0, k).sort((x, y) => x - y);
}

export function threeSigmaE2EWorkload(o: ThreeSigmaE2EOptions = {}): ThreeSigmaE2E {
  const r = resolve(o);
  const seed = o.seed ?? 1;
  const rng = new Rng(seed);
  const templates = makeTemplates(rng, r);
  const windowMs = r.durationMs;

  // Jobs until their work is the offered load exactly (a heavy-tailed job size would otherwise
  // make a short window's load differ by seed), then their arrivals: hyper-exponential gaps
  // (c_a² = 4; scaling keeps their shape) stretched so that the last arrival ends the window.
  const target = r.load * r.nodes * windowMs;
  const drawn: { tpl: JobTemplate; runtimeMs: number; slack?: number; preferred?: number[] }[] = [];
  let offered = 0;
  while (offered < target) {
    const tpl = drawTemplate(rng, templates, r);
    const runtimeMs = drawRuntimeMs(rng, tpl, r);
    const slo = rng.next() < r.sloShare;
    drawn.push({
      tpl,
      runtimeMs,
      ...(slo ? { slack: r.slackPct[rng.int(r.slackPct.length)] / 100, preferred: preferredNodes(rng, r.nodes, r.preferredShare) } : {}),
    });
    offered += tpl.tasks * runtimeMs;
  }
  const gaps = Array.from({ length: drawn.length + 1 }, () => hyperExponentialGap(rng, 1, 4));
  const span = gaps.reduce((a, b) => a + b, 0);

  const jobs: JobSpec[] = [];
  let t = 0;
  drawn.forEach((d, i) => {
    t += gaps[i];
    const arrivalMs = Math.floor((t / span) * windowMs);
    const tags: Record<string, string> = { [RUNTIME_TAG]: String(d.runtimeMs), [KIND_TAG]: d.slack !== undefined ? 'slo' : 'bestEffort' };
    const deadlineMs = d.slack !== undefined ? Math.round(arrivalMs + (1 + d.slack) * d.runtimeMs) : undefined;
    if (deadlineMs !== undefined) tags[DEADLINE_TAG] = String(deadlineMs);
    if (d.preferred) {
      tags[PREFERRED_NODES_TAG] = d.preferred.map((n) => simNodeId(n, r.nodes)).join(',');
      tags[SLOWDOWN_TAG] = String(r.slowdown);
    }
    jobs.push({
      name: `${d.tpl.name}-${i + 1}`,
      user: d.tpl.user,
      arrivalMs,
      stages: [{ resource: TASK_RESOURCE, workMs: new Array<number>(d.tpl.tasks).fill(d.runtimeMs), name: 'map' }],
      tags,
      idealMs: d.runtimeMs,
      ...(deadlineMs !== undefined ? { deadlineMs, preferredNodes: d.preferred, offPreferredSlowdown: r.slowdown } : {}),
    });
  });

  // History: `samples` runs of every template, each run alone (nominal runtime), spread over the
  // same hours of the day as the run, learned oldest finish first.
  const hist = new Rng(seed * 104_729 + 3);
  const history: HistoryRecord[] = [];
  for (const tpl of templates) {
    for (let k = 0; k < r.samples; k++) {
      const runtimeMs = drawRuntimeMs(hist, tpl, r);
      const submittedAtMs = Math.floor(hist.next() * windowMs);
      const name = `${tpl.name}-${history.length + 1}`;
      history.push({
        v: HISTORY_RECORD_VERSION,
        appId: `application_history_${String(history.length + 1).padStart(6, '0')}`,
        user: tpl.user,
        queue: 'root.default',
        name,
        nameKey: normaliseName(name),
        tags: {},
        priority: 0,
        submittedAtMs,
        submitHourUtc: new Date(submittedAtMs).getUTCHours(),
        launchedAtMs: submittedAtMs,
        finishedAtMs: submittedAtMs + runtimeMs,
        runtimeMs,
        waitMs: 0,
        state: 'FINISHED',
        outcome: 'succeeded',
        requested: { containers: tpl.tasks, memoryMB: TASK_RESOURCE.memoryMB, vcores: TASK_RESOURCE.vcores },
        source: 'sim',
        recordedAtMs: submittedAtMs + runtimeMs,
      });
    }
  }

  return {
    workload: {
      name: `3sigma-e2e(load ${r.load}, ${r.durationMs / HOUR_MS} h, ${r.nodes} nodes)`,
      jobs,
      cluster: { nodes: r.nodes, cores: NODE_SHAPE.cores, memoryMBPerNode: NODE_SHAPE.memoryMB },
    },
    history,
    templates,
    windowMs,
    nodes: r.nodes,
    offeredNodeMs: offered,
  };
}
