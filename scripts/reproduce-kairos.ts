/**
 * Reproduces the Kairos paper's evaluation (Delgado et al., SoCC'18, §5) in the simulator:
 * Kairos vs YARN FIFO vs Big-C on the heavy-tailed and uniform Table 1 workloads (Fig. 4, 5),
 * the dispatch tie-breaks (Fig. 6) and the Q / W sensitivity (Fig. 7). Every configuration runs
 * on the same seeds; percentiles are averaged over seeds, CDFs pool the jobs of all seeds.
 *
 *   npx tsx scripts/reproduce-kairos.ts [--seeds 10] [--jobs 100] [--no-write]
 *
 * Writes the `## Kairos` section of docs/results.md and docs/figures/kairos-*.svg.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { getPolicy } from '../src/policies/index.js';
import { cdfSvg, jobMetrics, kairosWorkload, resolveWorkload, Rng, Simulator, type Workload as SimWorkload } from '../src/sim/index.js';
import { settleJitForReplays } from '../src/sim/jit.js';

// Replays without on-stack replacement, as `schedbrain simulate` runs them (src/sim/jit.ts).
settleJitForReplays();
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

interface Args {
  seeds: number;
  jobs: number;
  write: boolean;
}

function readArgs(argv: string[]): Args {
  const { values } = parseArgs({
    args: argv,
    options: { seeds: { type: 'string', default: '10' }, jobs: { type: 'string', default: '100' }, 'no-write': { type: 'boolean', default: false } },
  });
  const a: Args = { seeds: Number(values.seeds), jobs: Number(values.jobs), write: !values['no-write'] };
  if (!(Number.isInteger(a.seeds) && a.seeds >= 1)) throw new Error('--seeds must be a positive integer');
  if (!(Number.isInteger(a.jobs) && a.jobs >= 1)) throw new Error('--jobs must be a positive integer');
  return a;
}

type Workload = 'kairos-heavy' | 'kairos-uniform' | 'kairos-heavy-skewed';

/** Log-normal spread (σ) of task durations inside a job in the skew experiment. */
const SKEW_SIGMA = 1;

interface Config {
  label: string;
  policy: string;
  params: Record<string, unknown>;
}

interface Agg {
  config: Config;
  workload: Workload;
  /** Per-seed percentiles (s). */
  p50: number[];
  p90: number[];
  p99: number[];
  max: number[];
  shortP50: number[];
  longP50: number[];
  slowP50: number[];
  slowP99: number[];
  slowMax: number[];
  util: number[];
  suspends: number;
  /** All seeds' jobs pooled, for the CDFs. */
  jct: number[];
  /** Pooled JCTs by Table 1 category (from the job names, `jobN-cK`). */
  byCat: Record<string, number[]>;
  /** Pooled time from submission to the job's first container, by category. */
  waitByCat: Record<string, number[]>;
  slowdown: number[];
  wallS: number;
}

/** Big-C as the paper configures it (§5.1, §5.3.1): categories 1-3 short, 95 % short share. */
const BIGC_HEAVY = { shortCutoffMs: 130_000, shortSharePct: 95 };
/** Uniform workload (§5.3.1): categories 1 and 2 short with a 70 % share, category 3 long. */
const BIGC_UNIFORM = { shortCutoffMs: 110_000, shortSharePct: 70 };
const NO_GUARD = { starvationQuanta: 0 };

/**
 * Not in the paper: the heavy workload with the same jobs, arrivals and mean task durations, but
 * each task's duration multiplied by a log-normal factor of mean 1 (σ = SKEW_SIGMA), i.e. skew
 * inside a job as in the paper's Fig. 1. The estimate tag (the job's mean) is unchanged.
 */
function skewedHeavy(seed: number, jobs: number): SimWorkload {
  const base = kairosWorkload('heavy', { seed, jobs });
  const rng = new Rng(seed * 7919 + 17);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  const factor = (): number => Math.exp(SKEW_SIGMA * normal() - (SKEW_SIGMA * SKEW_SIGMA) / 2);
  return {
    ...base,
    name: 'kairos-heavy-skewed',
    jobs: base.jobs.map((j) => ({
      ...j,
      idealMs: undefined,
      stages: j.stages.map((st) => ({ ...st, workMs: Float64Array.from(st.workMs, (x) => Math.max(1, Math.round(x * factor()))) })),
    })),
  };
}

const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
const sd = (xs: number[]): number => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / Math.max(1, xs.length - 1));
};

const cache = new Map<string, Agg>();

function run(workload: Workload, config: Config, args: Args): Agg {
  // Key on the validated parameters (defaults filled in), so equal configurations run once.
  const key = `${workload}|${config.policy}|${JSON.stringify(getPolicy(config.policy)?.paramsSchema.parse(config.params) ?? config.params)}`;
  const hit = cache.get(key);
  if (hit) return { ...hit, config };
  const agg: Agg = {
    config,
    workload,
    p50: [],
    p90: [],
    p99: [],
    max: [],
    shortP50: [],
    longP50: [],
    slowP50: [],
    slowP99: [],
    slowMax: [],
    util: [],
    suspends: 0,
    jct: [],
    byCat: {},
    waitByCat: {},
    slowdown: [],
    wallS: 0,
  };
  for (let seed = 1; seed <= args.seeds; seed++) {
    const t1 = performance.now();
    const wl = workload === 'kairos-heavy-skewed' ? skewedHeavy(seed, args.jobs) : resolveWorkload(workload, { seed, jobs: args.jobs });
    const sim = new Simulator({ workload: wl, seed, policy: getPolicy(config.policy), params: config.params, completedAppRetention: wl.jobs.length });
    sim.run();
    const { metrics: r, perJob } = jobMetrics(sim.records, wl.cutoffMs !== undefined ? wl.cutoffMs / 1000 : undefined);
    if (r.unfinished > 0 || r.killed > 0) throw new Error(`${workload} ${config.label} seed ${seed}: ${r.unfinished} unfinished, ${r.killed} killed jobs`);
    agg.p50.push(r.jct.p50);
    agg.p90.push(r.jct.p90);
    agg.p99.push(r.jct.p99);
    agg.max.push(r.jct.max);
    agg.shortP50.push(r.short.p50);
    agg.longP50.push(r.long.count ? r.long.p50 : NaN);
    agg.slowP50.push(r.slowdown.p50);
    agg.slowP99.push(r.slowdown.p99);
    agg.slowMax.push(r.slowdown.max);
    const spanMs = sim.lastFinishMs - sim.firstArrivalMs;
    agg.util.push(spanMs > 0 ? sim.serviceCoreMs / (sim.physicalCores * spanMs) : 0);
    agg.suspends += sim.actionStats.byKind.suspendContainer?.applied ?? 0;
    for (const j of perJob) {
      agg.jct.push(j.jctS);
      const cat = /-c(\d+)$/.exec(j.name)?.[1];
      if (cat) (agg.byCat[cat] ??= []).push(j.jctS);
      agg.slowdown.push(j.slowdown);
    }
    for (const a of sim.apps.values()) {
      const cat = /-c(\d+)$/.exec(a.name)?.[1];
      if (cat && a.startedAtMs !== undefined) (agg.waitByCat[cat] ??= []).push((a.startedAtMs - a.submittedAtMs) / 1000);
    }
    agg.wallS += (performance.now() - t1) / 1000;
  }
  cache.set(key, agg);
  process.stderr.write(`  ${workload} ${config.label}: p50 ${mean(agg.p50).toFixed(0)} s, p99 ${mean(agg.p99).toFixed(0)} s (${agg.wallS.toFixed(1)} s)\n`);
  return agg;
}

const f0 = (x: number): string => (Number.isFinite(x) ? x.toFixed(0) : '–');
const f2 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '–');
const pm = (xs: number[]): string => `${f0(mean(xs))} ± ${f0(sd(xs))}`;
/** Relative change of `a` against `b`, as the paper states it ("reduces by 73 %"). */
const change = (a: number, b: number): string => {
  const r = Math.round((100 * (a - b)) / b);
  return r === 0 ? '±0 %' : r < 0 ? `−${Math.abs(r)} %` : `+${r} %`;
};

function table(rows: Agg[], paper?: Record<string, { p50?: number; p99?: number; max?: number }>): string {
  const head = ['system', 'p50 JCT (s)', 'p90', 'p99', 'max', 'short-job p50', 'slowdown p50 / p99 / max', 'CPU util.'];
  if (paper) head.push('paper p50 / p99 / max (s)');
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const a of rows) {
    const cells = [
      a.config.label,
      pm(a.p50),
      f0(mean(a.p90)),
      pm(a.p99),
      f0(mean(a.max)),
      f0(mean(a.shortP50)),
      `${f2(mean(a.slowP50))} / ${f2(mean(a.slowP99))} / ${f2(mean(a.slowMax))}`,
      `${(100 * mean(a.util)).toFixed(0)} %`,
    ];
    if (paper) {
      const p = paper[a.config.label];
      cells.push(p ? `${p.p50 ?? '–'} / ${p.p99 ?? '–'} / ${p.max ?? '–'}` : '–');
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

function plot(write: boolean, file: string, rows: Agg[], title: string, metric: 'jct' | 'slowdown' = 'jct'): string {
  const svg = cdfSvg(
    rows.map((a) => ({ label: a.config.label, values: metric === 'jct' ? a.jct : a.slowdown })),
    { title, xLabel: metric === 'jct' ? 'job completion time (s)' : 'slowdown (JCT / time alone)', logX: metric === 'slowdown' },
  );
  // --no-write leaves docs/ alone, figures included.
  if (write) {
    const path = join(ROOT, 'docs', 'figures', file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, svg);
  }
  return `![${title}](figures/${file})`;
}

const median = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  return a.length ? (a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2) : NaN;
};

/** Median JCT per Table 1 category, jobs of all seeds pooled, with the time alone. */
function categoryTable(rows: Agg[]): string {
  const alone: Record<string, number> = { 1: 85, 2: 201, 3: 239, 4: 308, 5: 1175 };
  const cats = [...new Set(rows.flatMap((a) => Object.keys(a.byCat)))].sort();
  const lines = [`| system | ${cats.map((c) => `cat. ${c} (alone ${alone[c] ?? '?'} s)`).join(' | ')} |`, `|---|${cats.map(() => '---').join('|')}|`];
  for (const a of rows)
    lines.push(`| ${a.config.label} | ${cats.map((c) => `${f0(median(a.byCat[c] ?? []))} / ${f0(median(a.waitByCat[c] ?? []))}`).join(' | ')} |`);
  return lines.join('\n');
}
const catMed = (a: Agg, c: string): number => median(a.byCat[c] ?? []);
const catWait = (a: Agg, c: string): number => median(a.waitByCat[c] ?? []);

const best = (rows: Agg[], k: 'p50' | 'p99' | 'max'): string => {
  let b = rows[0];
  for (const r of rows) if (mean(r[k]) < mean(b[k])) b = r;
  return b.config.label;
};

/** The paper's claims for a sweep, checked against our numbers. */
function verdict(rows: Agg[], bigc: Agg, expectBest: string): string {
  const name = (a: Agg): string => a.config.label;
  const beatsBigc = (k: 'p50' | 'p99'): string => {
    const n = rows.filter((r) => mean(r[k]) < mean(bigc[k])).length;
    return n === rows.length
      ? 'all'
      : n === 0
        ? 'none'
        : rows
            .filter((r) => mean(r[k]) < mean(bigc[k]))
            .map(name)
            .join(', ');
  };
  return (
    `lowest p50: ${best(rows, 'p50')}; lowest p99: ${best(rows, 'p99')}; lowest worst job: ${best(rows, 'max')} ` +
    `(paper: ${expectBest} best). Better than Big-C at p50: ${beatsBigc('p50')}; at p99: ${beatsBigc('p99')}`
  );
}

/** How often (over seeds) `a`'s percentile beats `b`'s. */
function wins(a: number[], b: number[]): string {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i] < b[i]) n++;
  return `${n}/${a.length}`;
}

function main(): void {
  const args = readArgs(process.argv.slice(2));
  const t0 = Date.now();
  const K = (label: string, params: Record<string, unknown> = {}): Config => ({ label, policy: 'kairos', params });
  const seedsTxt = `seeds 1–${args.seeds}`;

  // Fig. 4: heavy-tailed workload.
  const fifo = run('kairos-heavy', { label: 'YARN FIFO', policy: 'fifo', params: {} }, args);
  const kairos = run('kairos-heavy', K('Kairos'), args);
  const kairosNG = run('kairos-heavy', K('Kairos, no starvation guard', NO_GUARD), args);
  const bigc = run('kairos-heavy', { label: 'Big-C', policy: 'bigc', params: BIGC_HEAVY }, args);
  // Fig. 5: uniform workload.
  const uFifo = run('kairos-uniform', { label: 'YARN FIFO', policy: 'fifo', params: {} }, args);
  const uKairos = run('kairos-uniform', K('Kairos'), args);
  const uKairosNG = run('kairos-uniform', K('Kairos, no starvation guard', NO_GUARD), args);
  const uBigc = run('kairos-uniform', { label: 'Big-C', policy: 'bigc', params: BIGC_UNIFORM }, args);
  // Fig. 6: dispatch tie-breaks.
  const tie = (['variance', 'random', 'sum'] as const).map((t) =>
    run('kairos-heavy', K(`Kairos ${t === 'variance' ? 'Var' : t === 'random' ? 'Random' : 'Sum'}`, { tieBreak: t }), args),
  );
  const tieNG = (['variance', 'random', 'sum'] as const).map((t) =>
    run('kairos-heavy', K(`Kairos ${t === 'variance' ? 'Var' : t === 'random' ? 'Random' : 'Sum'}, no guard`, { tieBreak: t, ...NO_GUARD }), args),
  );
  // Fig. 7: Q and W.
  const qs = [2, 4, 8].map((q) => run('kairos-heavy', K(`Kairos Q=${q}`, { queueSlots: q }), args));
  const qsNG = [2, 4, 8].map((q) => run('kairos-heavy', K(`Kairos Q=${q}, no guard`, { queueSlots: q, ...NO_GUARD }), args));
  const ws = [10, 50, 100].map((w) => run('kairos-heavy', K(`Kairos W=${w} s`, { quantumMs: w * 1000 }), args));
  const wsNG = [10, 50, 100].map((w) => run('kairos-heavy', K(`Kairos W=${w} s, no guard`, { quantumMs: w * 1000, ...NO_GUARD }), args));
  const bigcRow = { ...bigc, config: { ...bigc.config, label: 'Big-C' } };
  // Not in the paper: skew inside jobs.
  const sFifo = run('kairos-heavy-skewed', { label: 'YARN FIFO', policy: 'fifo', params: {} }, args);
  const sKairos = run('kairos-heavy-skewed', K('Kairos'), args);
  const sKairosNG = run('kairos-heavy-skewed', K('Kairos, no starvation guard', NO_GUARD), args);
  const sBigc = run('kairos-heavy-skewed', { label: 'Big-C', policy: 'bigc', params: BIGC_HEAVY }, args);

  const figHeavy = plot(args.write, 'kairos-heavy-jct.svg', [kairos, kairosNG, bigc, fifo], `kairos-heavy: job completion time (${seedsTxt} pooled)`);
  const figHeavySlow = plot(args.write, 'kairos-heavy-slowdown.svg', [kairos, kairosNG, bigc, fifo], `kairos-heavy: slowdown (${seedsTxt} pooled)`, 'slowdown');
  const figUniform = plot(args.write, 'kairos-uniform-jct.svg', [uKairos, uKairosNG, uBigc, uFifo], `kairos-uniform: job completion time (${seedsTxt} pooled)`);
  const figTie = plot(args.write, 'kairos-tiebreak.svg', [...tie, ...tieNG], `Dispatch tie-breaks, kairos-heavy (${seedsTxt} pooled)`);
  const figQ = plot(args.write, 'kairos-q.svg', [...qs, ...qsNG, bigcRow], `Sensitivity to Q, kairos-heavy (${seedsTxt} pooled)`);
  const figSkew = plot(
    args.write,
    'kairos-heavy-skewed-jct.svg',
    [sKairos, sKairosNG, sBigc, sFifo],
    `kairos-heavy with task skew σ=${SKEW_SIGMA} (${seedsTxt} pooled)`,
  );
  const figW = plot(args.write, 'kairos-w.svg', [...ws, ...wsNG, bigcRow], `Sensitivity to W, kairos-heavy (${seedsTxt} pooled)`);

  const m = (a: Agg, k: 'p50' | 'p99'): number => mean(a[k]);
  const cmd = `npx tsx scripts/reproduce-kairos.ts --seeds ${args.seeds} --jobs ${args.jobs}`;
  const one = (wl: string, pol: string, sets: Record<string, unknown> = {}): string =>
    `npx schedbrain simulate --workload ${wl} --policy ${pol} --seed 1${Object.entries(sets)
      .map(([k, v]) => ` --set ${k}=${v}`)
      .join('')}`;

  const section = `## Kairos

Delgado et al., *Kairos: Preemptive Data Center Scheduling Without Runtime Estimates*, SoCC'18,
§5 (YARN prototype, 30 nodes × 4 cores). Policies: \`kairos\` (node-level LAS with quantum W
through suspend/resume, at most N + Q tasks per node, central dispatch to the node with the fewest
tasks then the lowest variance of attained service, starvation guard), \`bigc\` (the paper's
baseline) and \`fifo\` (YARN FIFO). Workloads: \`kairos-heavy\` and \`kairos-uniform\`, the paper's
Table 1 generators (100 jobs, Poisson arrivals, 60 s resp. 30 s mean inter-arrival).

Everything below comes from one command (${args.seeds} seeds × ${args.jobs} jobs per configuration,
${((Date.now() - t0) / 1000).toFixed(0)} s on one core):

\`\`\`sh
${cmd}
\`\`\`

Each configuration runs seeds 1–${args.seeds} (a seed fixes the job sequence and arrival times; every
policy sees the same ${args.seeds} workloads). Tables give the mean over seeds of each percentile
(± standard deviation across seeds); CDFs pool the jobs of all seeds. A single run is, e.g.:

\`\`\`sh
${one('kairos-heavy', 'fifo')}
${one('kairos-heavy', 'kairos')}
${one('kairos-heavy', 'kairos', NO_GUARD)}
${one('kairos-heavy', 'bigc', BIGC_HEAVY)}
${one('kairos-uniform', 'bigc', BIGC_UNIFORM)}
${one('kairos-heavy', 'kairos', { tieBreak: 'random', queueSlots: 8, quantumMs: 10000 })}
\`\`\`

Kairos parameters are the paper's: W = 50 s, Q = 4 (§5.2), N = 4 cores per node, and the starvation
guard with the counter the paper gives for its simulations (§6.2: 3 quanta; the guaranteed run is
one quantum — the paper says "a multiple of W" without the multiple); quantum ends are acted on at
the node monitor's next 500 ms tick, as in the prototype. Because the guard turns out
to decide the outcome, every experiment is also run with the guard off (\`--set starvationQuanta=0\`).
Big-C is configured as in §5.1/§5.3.1: categories 1–3 short with a 95 % share on the heavy
workload (\`shortCutoffMs=130000\` on the mean task duration the generator tags), categories 1–2
short with a 70 % share on the uniform one (\`shortCutoffMs=110000\`, \`shortSharePct=70\`).

### Heavy-tailed workload (paper Fig. 4)

${table([fifo, kairos, kairosNG, bigc], {
  'YARN FIFO': { p50: 808, p99: 2061 },
  Kairos: { p50: 241, p99: 1452 },
  'Big-C': { p50: 341, p99: 3368, max: 3624 },
})}

| comparison | ours, p50 | ours, p99 | paper, p50 | paper, p99 |
|---|---|---|---|---|
| Kairos vs FIFO | ${change(m(kairos, 'p50'), m(fifo, 'p50'))} | ${change(m(kairos, 'p99'), m(fifo, 'p99'))} | −73 % | −30 % |
| Kairos (no guard) vs FIFO | ${change(m(kairosNG, 'p50'), m(fifo, 'p50'))} | ${change(m(kairosNG, 'p99'), m(fifo, 'p99'))} | −73 % | −30 % |
| Kairos vs Big-C | ${change(m(kairos, 'p50'), m(bigc, 'p50'))} | ${change(m(kairos, 'p99'), m(bigc, 'p99'))} | −37 % | −57 % |
| Kairos (no guard) vs Big-C | ${change(m(kairosNG, 'p50'), m(bigc, 'p50'))} | ${change(m(kairosNG, 'p99'), m(bigc, 'p99'))} | −37 % | −57 % |
| Big-C vs FIFO | ${change(m(bigc, 'p50'), m(fifo, 'p50'))} | ${change(m(bigc, 'p99'), m(fifo, 'p99'))} | −58 % | +63 % |

Seeds on which Kairos has the lower median than FIFO: ${wins(kairos.p50, fifo.p50)} (no guard:
${wins(kairosNG.p50, fifo.p50)}); lower p99: ${wins(kairos.p99, fifo.p99)} (no guard: ${wins(kairosNG.p99, fifo.p99)}).
(The paper's text gives Kairos's median as 241 s against FIFO and 217 s against Big-C; the
percentages are computed from those pairs.)

Median job completion time / median wait until the job's first container starts (s), by Table 1
category, jobs of all seeds pooled:

${categoryTable([fifo, kairos, kairosNG, bigc])}

Slowdown (paper Fig. 4b): the paper's largest slowdowns are 5.14× under FIFO and 18.23× under
Big-C, both for the shortest jobs, while Kairos slows all jobs by comparable amounts. Ours (mean
over seeds of the worst job's slowdown): FIFO ${f2(mean(fifo.slowMax))}×, Kairos ${f2(mean(kairos.slowMax))}× (no guard
${f2(mean(kairosNG.slowMax))}×), Big-C ${f2(mean(bigc.slowMax))}×; the median slowdown is ${f2(mean(fifo.slowP50))}, ${f2(mean(kairos.slowP50))} (${f2(mean(kairosNG.slowP50))}) and
${f2(mean(bigc.slowP50))}. Here Big-C's worst slowdowns fall on long jobs, which it suspends, not on short ones.

${figHeavy}

${figHeavySlow}

### Uniform workload (paper Fig. 5)

The paper gives only the CDFs: Kairos is worse than on the heavy workload but still better than
Big-C at all percentiles.

${table([uFifo, uKairos, uKairosNG, uBigc])}

Kairos vs Big-C: p50 ${change(m(uKairos, 'p50'), m(uBigc, 'p50'))}, p99 ${change(m(uKairos, 'p99'), m(uBigc, 'p99'))}
(no guard: ${change(m(uKairosNG, 'p50'), m(uBigc, 'p50'))}, ${change(m(uKairosNG, 'p99'), m(uBigc, 'p99'))}).

${figUniform}

### Dispatch tie-breaks (paper Fig. 6)

Paper: Var is best at all percentiles, clearest around the 30th percentile and in the tail; worst
job 1452 s (Var), 1633 s (Random), 1651 s (Sum).

${table([...tie, ...tieNG])}

Ours, guard on: ${verdict(tie, bigc, 'Var')}.
Guard off: ${verdict(tieNG, bigc, 'Var')}.

${figTie}

### Sensitivity to Q and W (paper Fig. 7)

Paper: Q = 2 and Q = 8 slightly worse than Q = 4 (Q = 2 hurts the ~20th percentile, Q = 8 the tail);
W = 10 s better at low percentiles and worse in the tail, W = 100 s the reverse; every setting
better than Big-C at every percentile.

${table([...qs, ...qsNG, bigcRow])}

Ours, guard on: ${verdict(qs, bigc, 'Q=4')}.
Guard off: ${verdict(qsNG, bigc, 'Q=4')}.

${figQ}

${table([...ws, ...wsNG, bigcRow])}

Ours, guard on: ${verdict(ws, bigc, 'W=50 s')}; W=10 s vs W=100 s: p50 ${change(mean(ws[0].p50), mean(ws[2].p50))}, p99 ${change(mean(ws[0].p99), mean(ws[2].p99))} (paper: lower p50, higher tail).
Guard off: ${verdict(wsNG, bigc, 'W=50 s')}; W=10 s vs W=100 s: p50 ${change(mean(wsNG[0].p50), mean(wsNG[2].p50))}, p99 ${change(mean(wsNG[0].p99), mean(wsNG[2].p99))}.

${figW}

### Not in the paper: skew inside jobs

The same heavy workload (same jobs, arrivals and mean task durations; the estimate tag unchanged),
with every task's duration multiplied by a log-normal factor of mean 1 and σ = ${SKEW_SIGMA}, i.e. the
kind of within-job skew the paper's Fig. 1 measures in production traces. Same command; the
workload is built in \`scripts/reproduce-kairos.ts\` (\`skewedHeavy\`).

${table([sFifo, sKairos, sKairosNG, sBigc])}

Kairos vs FIFO: p50 ${change(m(sKairos, 'p50'), m(sFifo, 'p50'))}, p99 ${change(m(sKairos, 'p99'), m(sFifo, 'p99'))}
(no guard: ${change(m(sKairosNG, 'p50'), m(sFifo, 'p50'))}, ${change(m(sKairosNG, 'p99'), m(sFifo, 'p99'))}); Kairos vs Big-C: p50 ${change(m(sKairos, 'p50'), m(sBigc, 'p50'))},
p99 ${change(m(sKairos, 'p99'), m(sBigc, 'p99'))} (no guard: ${change(m(sKairosNG, 'p50'), m(sBigc, 'p50'))}, ${change(m(sKairosNG, 'p99'), m(sBigc, 'p99'))}).

${figSkew}

### Why our figures differ from the paper's

- **Which way each result goes (these runs).** Kairos vs FIFO: median ${change(m(kairos, 'p50'), m(fifo, 'p50'))},
  p99 ${change(m(kairos, 'p99'), m(fifo, 'p99'))} with the guard; ${change(m(kairosNG, 'p50'), m(fifo, 'p50'))} and
  ${change(m(kairosNG, 'p99'), m(fifo, 'p99'))} without. Big-C's median is ${change(m(bigc, 'p50'), m(fifo, 'p50'))} against FIFO
  and its p99 ${change(m(bigc, 'p99'), m(fifo, 'p99'))}: like the paper, Big-C trades the tail for the short jobs,
  but here its short jobs finish in about their time alone.
- **Uniform workload.** Every task lasts 42–120 s, so with W = 50 s node-level LAS mostly
  time-slices tasks of similar length: Kairos's median is ${change(m(uKairos, 'p50'), m(uFifo, 'p50'))} against FIFO
  (${change(m(uKairosNG, 'p50'), m(uFifo, 'p50'))} without the guard) and ${change(m(uKairos, 'p50'), m(uBigc, 'p50'))} against Big-C, whose
  short classes (categories 1–2) run as if alone while category 3 waits (Big-C p99
  ${f0(m(uBigc, 'p99'))} s vs Kairos ${f0(m(uKairos, 'p99'))} s). The paper has Kairos ahead of Big-C everywhere.
- **Where the time goes.** By category (table above): without the guard, Kairos starts a new
  job's first task almost at once (median wait ${f0(catWait(kairosNG, '1'))} s for category 1 vs ${f0(catWait(fifo, '1'))} s under FIFO)
  and brings category 1 from ${f0(catMed(fifo, '1'))} s to ${f0(catMed(kairosNG, '1'))} s (alone: 85 s), i.e. the N + Q cap plus
  node-level LAS do let short jobs bypass the queue, as the paper argues. The price is paid by the
  largest jobs (category 5: ${f0(catMed(fifo, '5'))} s under FIFO, ${f0(catMed(kairosNG, '5'))} s under Kairos without the guard), and the
  seed-averaged median is pulled up by the heavily loaded seeds (± column). With the guard the
  short jobs' advantage mostly disappears (category 1: ${f0(catMed(kairos, '1'))} s).
- **Skew inside jobs does not change the picture.** With log-normal task skew (σ = ${SKEW_SIGMA}, previous
  section) every system gets slower, since a job ends with its slowest task, and Kairos's median
  against FIFO goes from ${change(m(kairos, 'p50'), m(fifo, 'p50'))} to ${change(m(sKairos, 'p50'), m(sFifo, 'p50'))} (no guard: ${change(m(kairosNG, 'p50'), m(fifo, 'p50'))} to
  ${change(m(sKairosNG, 'p50'), m(sFifo, 'p50'))}), its p99 from ${change(m(kairos, 'p99'), m(fifo, 'p99'))} to ${change(m(sKairos, 'p99'), m(sFifo, 'p99'))}. So equal task durations are not,
  by themselves, why our Kairos falls short of the paper's.
- **The starvation guard decides the median.** Under the heavy workload's ≈ 92 % load many long
  tasks wait more than 3 quanta; the guard then takes cores from young (short) tasks. With it on,
  Kairos's median barely moves from FIFO's; with it off, short jobs gain and the longest jobs pay.
  The paper gives the counter only for its simulations (§6.2), not for the prototype; in the
  public prototype's node monitor (\`ProcessorSharingMonitor\`) we found no separate guard: at the
  end of a window it swaps a running container for a suspended one when the running one has
  attained at least one window more (the paper's rule, which we implement, swaps on "no less").
- **Big-C is ideal here.** Its classes come from exact estimates, suspend/resume costs nothing
  (no Docker pause, no memory pressure), and the short load (≈ 60 of 120 cores) never fills the
  short share, so a short job almost always finds a core after suspending long tasks and runs as
  if alone (short-job median ≈ the Table 1 durations). The paper measured Big-C's median at
  341 s, well above its short jobs' 85–239 s, i.e. with real overheads and queueing we do not model.
- **No MapReduce overheads.** No ApplicationMaster containers, no slow-start of reducers, no
  container launch latency, and suspension is instantaneous; FIFO's absolute times are therefore
  lower than the paper's, and FIFO's median varies a lot with the seed (one or two long jobs early
  in a run block the cluster).
- **Seeds.** The paper reports one run of one 100-job draw; the spread across our seeds (± column)
  is of the same order as the differences the paper reports between configurations, so single
  runs would not separate Q = 2/4/8 or the tie-breaks reliably.
- **Node scheduler checked against Alg. 1 (no discrepancy found).** Arrival (l. 2-18): the new
  task runs at once; with no idle core the running task with the most attained service is
  suspended (\`preemptOnArrival\` in \`node-las.ts\`). Finish (l. 19-29): the freed core goes
  to the suspended task with the least attained service (\`resumeOnFreeCore\`). Timer (l. 30-45): at the end of a
  running task's quantum W it yields to the least-attained suspended task if that one has attained
  no more (\`<=\`, l. 35), else its timer restarts (\`swapOnQuantumEnd\`). Heartbeat (l. 46-50): the dispatch
  score is the variance over running and suspended tasks alike; Alg. 2: fewest tasks first, at most
  N + Q per node, ties by lowest variance. Parameters: N = 4, Q = 4, W = 50 s (§5.2); the simulation
  settings of §6.2 (one-core nodes, Q = 2, W = 100 time units on the Yahoo trace) are for the
  trace-driven study, not for Fig. 4-7. The only rule the paper leaves open is the starvation
  guard: "a given number of consecutive quanta" is read here as 3 × W of continuous suspension;
  counting the node's timer expiries instead would, on a 4-core node, fire about four times as
  early. Without the pseudocode for it, we keep the time-based reading and report every result
  with the guard off as well.
`;

  if (args.write) {
    const path = join(ROOT, 'docs', 'results.md');
    let doc = existsSync(path) ? readFileSync(path, 'utf8') : '# Reproduced results\n\n';
    if (!doc.startsWith('# Reproduced results')) doc = `# Reproduced results\n\n${doc}`;
    const start = doc.indexOf('\n## Kairos\n');
    if (start >= 0) {
      const next = doc.indexOf('\n## ', start + 1);
      doc = doc.slice(0, start + 1) + section + (next >= 0 ? doc.slice(next) : '');
    } else {
      doc = `${doc.trimEnd()}\n\n${section}`;
    }
    writeFileSync(path, doc.endsWith('\n') ? doc : `${doc}\n`);
    process.stderr.write(`wrote docs/results.md (## Kairos) and docs/figures/kairos-*.svg in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  } else {
    process.stdout.write(section);
  }
}

main();
