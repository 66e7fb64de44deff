/**
 * Reproduces the Kairos paper's YARN evaluation (Delgado et al., SoCC'18, §5) in the simulator:
 * the authors' own job sequence (`kairos-paper`) and the Table 1 generator (`kairos-heavy`,
 * `kairos-uniform`), under two node models (ideal, and the prototype testbed's: container launches
 * off the cores), with FIFO, Big-C, Kairos as the prototype ran it, the guards of the paper's
 * simulations and of the prototype's head, and a variant of our own (kairos-plus).
 *
 *   npx tsx scripts/reproduce-kairos.ts [--seeds 11-20] [--no-write]
 *
 * Seeds 1-5 of the generator were used while developing kairos-plus (and choosing among its
 * variants, `PLUS_VARIANTS`) and the testbed's launch time; the tables report seeds 11-20
 * (`--seeds` changes them; the variants' table also shows their tuning seeds). Writes the `## Kairos`
 * section of docs/results.md and docs/figures/kairos-*.svg.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { getPolicy } from '../src/policies/index.js';
import { cdfSvg, jobMetrics, resolveWorkload, Simulator, type Workload } from '../src/sim/index.js';
import { settleJitForReplays } from '../src/sim/jit.js';

// Replays without on-stack replacement, as `schedbrain simulate` runs them (src/sim/jit.ts).
settleJitForReplays();
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function readArgs(argv: string[]): { seeds: number[]; write: boolean } {
  const { values } = parseArgs({ args: argv, options: { seeds: { type: 'string', default: '11-20' }, 'no-write': { type: 'boolean', default: false } } });
  const m = /^(\d+)-(\d+)$/.exec(values.seeds as string);
  if (!m || Number(m[2]) < Number(m[1])) throw new Error('--seeds expects FIRST-LAST, e.g. 11-20');
  const seeds: number[] = [];
  for (let s = Number(m[1]); s <= Number(m[2]); s++) seeds.push(s);
  return { seeds, write: !values['no-write'] };
}

/** The prototype testbed's launch time per container (calibrated on FIFO alone, see the first table). */
const TESTBED_LAUNCH_MS = 40_000;
/** Big-C as the paper configures it (§5.1, §5.3.1). */
const BIGC_HEAVY = { shortCutoffMs: 130_000, shortSharePct: 95 };
const BIGC_UNIFORM = { shortCutoffMs: 110_000, shortSharePct: 70 };
/** kairos-plus before job-level service: a bound on how long LAS holds a job back, one core per node for old tasks. */
const KAIROS_PLUS_TASK_LAS = { jobAgeLimitMs: 600_000, lasLimitMs: 100_000, oldTaskCores: 1 };
/** kairos-plus: young tasks ranked by their job's attained service, the age bound at 400 s (docs/decisions.md). */
export const KAIROS_PLUS = { ...KAIROS_PLUS_TASK_LAS, jobAgeLimitMs: 400_000, jobServiceRank: true };

interface Config {
  label: string;
  policy: string;
  params: Record<string, unknown>;
}
const FIFO: Config = { label: 'YARN FIFO', policy: 'fifo', params: {} };
const K = (label: string, params: Record<string, unknown> = {}): Config => ({ label, policy: 'kairos', params });
const KAIROS = K('Kairos (prototype: no guard, swap margin W/2)');
const KAIROS_ALG1 = K('Kairos, Alg. 1 swap (margin 0)', { swapMarginMs: 0 });
const KAIROS_SIM_GUARD = K('Kairos + §6.2 guard (3 W suspended)', { starvationQuanta: 3 });
const KAIROS_HEAD_GUARD = K("Kairos + head's guard (>3 preemptions: 2 W)", { preemptionsAllowed: 3 });
const PLUS = K('kairos-plus (ours)', KAIROS_PLUS);
/** Seeds of the generator kairos-plus and its variants were tuned on (never reported as results): 1-5, then 21-60. */
const TUNING_SEEDS = [1, 2, 3, 4, 5, ...Array.from({ length: 40 }, (_, i) => 21 + i)];
/** Variants tried for kairos-plus (docs/decisions.md): chosen on TUNING_SEEDS, then reported on the report seeds. */
const PLUS_VARIANTS: Config[] = [
  PLUS,
  K('kairos-plus by task (before)', KAIROS_PLUS_TASK_LAS),
  K('by job, age bound 600 s', { ...KAIROS_PLUS, jobAgeLimitMs: 600_000 }),
  K('LAS limit 50 s', { lasLimitMs: 50_000 }),
  K('LAS limit 50 s, 1 old-task core', { lasLimitMs: 50_000, oldTaskCores: 1 }),
  K('aging 80 %', { serviceAgingPct: 80 }),
  K('aging 80 %, swap margin 50 s', { serviceAgingPct: 80, swapMarginMs: 50_000 }),
  K('aging 50 %, LAS limit 50 s', { serviceAgingPct: 50, lasLimitMs: 50_000 }),
];

interface Run {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  jct: number[];
  byCat: Record<string, number[]>;
  util: number;
}

const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
const median = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  return a.length ? (a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2) : NaN;
};
const f0 = (x: number): string => (Number.isFinite(x) ? x.toFixed(0) : '–');
const pct = (a: number, b: number): string => {
  const r = Math.round((100 * (a - b)) / b);
  return r === 0 ? '±0 %' : r < 0 ? `−${Math.abs(r)} %` : `+${r} %`;
};

let runs = 0;
const t0 = Date.now();
function run(wl: Workload, config: Config, launchMs: number, seed: number): Run {
  const sim = new Simulator({
    workload: wl,
    seed,
    policy: getPolicy(config.policy),
    params: config.params,
    completedAppRetention: wl.jobs.length,
    launchOverheadMs: launchMs,
  });
  sim.run();
  runs++;
  const { metrics: r, perJob } = jobMetrics(sim.records);
  if (r.unfinished > 0 || r.killed > 0) throw new Error(`${wl.name} ${config.label} seed ${seed}: ${r.unfinished} unfinished, ${r.killed} killed jobs`);
  const byCat: Record<string, number[]> = {};
  for (const j of perJob) {
    const cat = /-c(\d+)$/.exec(j.name)?.[1];
    if (cat) (byCat[cat] ??= []).push(j.jctS);
  }
  const spanMs = sim.lastFinishMs - sim.firstArrivalMs;
  return {
    p50: r.jct.p50,
    p90: r.jct.p90,
    p99: r.jct.p99,
    max: r.jct.max,
    jct: perJob.map((j) => j.jctS),
    byCat,
    util: sim.serviceCoreMs / (sim.physicalCores * spanMs),
  };
}

/** Offered load: task work over the cores times the arrival span stretched by n/(n−1) (n jobs, n gaps). */
function realisedLoad(wl: Workload, cores = 120): number {
  let work = 0;
  for (const j of wl.jobs) for (const st of j.stages) if (!st.appMaster) for (let i = 0; i < st.workMs.length; i++) work += st.workMs[i];
  const n = wl.jobs.length;
  const spanMs = ((wl.jobs[n - 1].arrivalMs - wl.jobs[0].arrivalMs) * n) / (n - 1);
  return work / (cores * spanMs);
}

/** A job's completion time alone on the cluster in the testbed model (FIFO, launch time on), s; one run per category. */
const aloneByCategory = new Map<string, number>();
function aloneTestbed(wl: Workload, job: Workload['jobs'][number]): number {
  const cat = job.tags?.['schedbrain.category'] ?? job.name ?? '';
  let s = aloneByCategory.get(cat);
  if (s === undefined) {
    s = run({ ...wl, jobs: [{ ...job, arrivalMs: 0 }] }, FIFO, TESTBED_LAUNCH_MS, 1).p50;
    aloneByCategory.set(cat, s);
  }
  return s;
}

function plot(write: boolean, file: string, series: { label: string; values: number[] }[], title: string): string {
  const svg = cdfSvg(series, { title, xLabel: 'job completion time (s)' });
  if (write) {
    const path = join(ROOT, 'docs', 'figures', file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, svg);
  }
  return `![${title}](figures/${file})`;
}

function main(): void {
  const args = readArgs(process.argv.slice(2));
  const seedsTxt = `seeds ${args.seeds[0]}–${args.seeds[args.seeds.length - 1]}`;
  const paper = resolveWorkload('kairos-paper');
  const out: string[] = [];
  const w = (s = ''): number => out.push(s);

  // 1. The testbed hypothesis: which launch time, if any, gives the paper's FIFO (808 / 2061 s)?
  const launches = [0, 20_000, 30_000, 40_000, 50_000];
  const calib = launches.map((l) => ({ l, fifo: run(paper, FIFO, l, 1), kairos: run(paper, KAIROS, l, 1) }));

  // 2. The authors' sequence, both node models.
  const configs = [FIFO, { label: 'Big-C', policy: 'bigc', params: BIGC_HEAVY }, KAIROS, KAIROS_ALG1, KAIROS_SIM_GUARD, KAIROS_HEAD_GUARD, PLUS];
  const onPaper = [0, TESTBED_LAUNCH_MS].map((l) => ({ l, rows: configs.map((c) => ({ c, r: run(paper, c, l, 1) })) }));

  // 3. The generator on the reporting seeds, testbed node model.
  const heavy = args.seeds.map((s) => resolveWorkload('kairos-heavy', { seed: s }));
  const genConfigs = [FIFO, { label: 'Big-C', policy: 'bigc', params: BIGC_HEAVY }, KAIROS, KAIROS_SIM_GUARD, KAIROS_HEAD_GUARD, PLUS];
  const gen = genConfigs.map((c) => ({ c, rs: heavy.map((wl, i) => run(wl, c, TESTBED_LAUNCH_MS, args.seeds[i])) }));
  const genIdeal = [FIFO, KAIROS, PLUS].map((c) => ({ c, rs: heavy.map((wl, i) => run(wl, c, 0, args.seeds[i])) }));

  // 4. Fig. 6 and 7 on the authors' sequence (testbed node model), and the uniform workload (Fig. 5).
  const ties = (['variance', 'random', 'sum'] as const).map((t) => ({ t, r: run(paper, K(t, { tieBreak: t }), TESTBED_LAUNCH_MS, 1) }));
  const qs = [2, 4, 8].map((q) => ({ q, r: run(paper, K(`Q=${q}`, { queueSlots: q }), TESTBED_LAUNCH_MS, 1) }));
  const wsS = [10, 50, 100].map((x) => ({ x, r: run(paper, K(`W=${x}`, { quantumMs: x * 1000 }), TESTBED_LAUNCH_MS, 1) }));
  const uniform = args.seeds.map((s) => resolveWorkload('kairos-uniform', { seed: s }));
  const uConfigs = [FIFO, { label: 'Big-C', policy: 'bigc', params: BIGC_UNIFORM }, KAIROS, PLUS];
  const uni = uConfigs.map((c) => ({ c, rs: uniform.map((wl, i) => run(wl, c, TESTBED_LAUNCH_MS, args.seeds[i])) }));

  // 5. kairos-plus variants: tuning seeds, report seeds, the authors' sequence (testbed model).
  const tuningWl = TUNING_SEEDS.map((s) => resolveWorkload('kairos-heavy', { seed: s }));
  const fifoTuning = tuningWl.map((wl, i) => run(wl, FIFO, TESTBED_LAUNCH_MS, TUNING_SEEDS[i]));
  const bothTargets = (rs: Run[], fifo: Run[]): number => rs.filter((r, i) => r.p50 <= 0.6 * fifo[i].p50 && r.p99 <= fifo[i].p99).length;
  const fifoReport = gen[0].rs;
  const variants = PLUS_VARIANTS.map((c) => ({
    c,
    tuning: bothTargets(
      tuningWl.map((wl, i) => run(wl, c, TESTBED_LAUNCH_MS, TUNING_SEEDS[i])),
      fifoTuning,
    ),
    report: bothTargets(
      heavy.map((wl, i) => run(wl, c, TESTBED_LAUNCH_MS, args.seeds[i])),
      fifoReport,
    ),
    paper: run(paper, c, TESTBED_LAUNCH_MS, 1),
  }));

  const testbed = onPaper[1].rows;
  const fig = plot(
    args.write,
    'kairos-paper-jct.svg',
    testbed.filter((x) => [FIFO.label, 'Big-C', KAIROS.label, PLUS.label].includes(x.c.label)).map((x) => ({ label: x.c.label, values: x.r.jct })),
    `kairos-paper (the authors' sequence), testbed node model: job completion time`,
  );
  const figGen = plot(
    args.write,
    'kairos-heavy-jct.svg',
    gen
      .filter((g) => [FIFO.label, 'Big-C', KAIROS.label, PLUS.label].includes(g.c.label))
      .map((g) => ({ label: g.c.label, values: g.rs.flatMap((r) => r.jct) })),
    `kairos-heavy (generator, ${seedsTxt} pooled), testbed node model: job completion time`,
  );

  const cmd = `npx tsx scripts/reproduce-kairos.ts --seeds ${args.seeds[0]}-${args.seeds[args.seeds.length - 1]}`;
  w('## Kairos');
  w();
  w("Delgado et al., *Kairos: Preemptive Data Center Scheduling Without Runtime Estimates*, SoCC'18, §5 (YARN");
  w("prototype on 30 nodes × 4 cores, W = 50 s, Q = 4). Authors' code: `epfl-labos/kairos` (the node monitor is");
  w('`ProcessorSharingMonitor` in `hadoop-yarn-server-nodemanager/.../containermanager/ContainerManagerImpl.java`).');
  w();
  w(
    `Every table below comes from one command (${runs} replays, ${((Date.now() - t0) / 1000).toFixed(0)} s on a shared two-core machine, load average ${loadavg()[0].toFixed(0)}):`,
  );
  w();
  w('```sh');
  w(cmd);
  w('```');
  w();
  w('A single run is, e.g., `npx schedbrain simulate --workload kairos-paper --policy kairos` (add');
  w("`--set starvationQuanta=3` for the guard of the paper's simulations, `--set preemptionsAllowed=3` for the");
  w(
    `prototype head's; \`${Object.entries(KAIROS_PLUS)
      .map(([k, x]) => `--set ${k}=${String(x)}`)
      .join(' ')}\` for kairos-plus). The`,
  );
  w(`testbed node model is the simulator's \`launchOverheadMs: ${TESTBED_LAUNCH_MS}\` (a library option of \`Simulator\`, used by this script).`);
  w();
  w('### What the prototype does, what the paper says');
  w();
  w('| | paper | prototype the paper measured (`1268a92`, May 2018) | prototype head (`0788562`, Aug. 2018, and `c0fd6ca`) | here |');
  w('|---|---|---|---|---|');
  w(
    '| swap at a window end | if the waiting task has attained no more (Alg. 1 l. 35) | if the running one is at least W/2 older than the youngest suspended one | same (`ContainerManagerImpl.java` l. 1574 at `c0fd6ca`: `age - suspended.age >= processorSharingInterval/2`) | `swapMarginMs`, default W/2; 0 = Alg. 1 |',
  );
  w(
    '| starvation guard | "a given number of consecutive quanta", counter 3 in the simulations (§6.2) | none | a running container suspended more than 3 times gets a 2 W window at its next window end, and never resumes a suspended one (l. 1571, 1590-1593; `nr-preemptions-allowed` 3, `nr-windows-after-preemption` 2) | off by default; `starvationQuanta` (§6.2 reading), `preemptionsAllowed` / `windowsAfterPreemptions` (head) |',
  );
  w(
    '| AMs, launching and suspended containers | – | on a fifth core (`cpu-vcores` = 5, "vCores should be 1+PScores", `15cfde6`) | same | AMs off the cores; launches off the cores in the testbed model |',
  );
  w(
    "| AMs and the caps | – | counted in the 8-container cap, not in the 4 running tasks (issue #22; `processorsharing.maximum-concurrent-containers` 4 in `extra-files/config-files/yarn-site.xml` at `c0fd6ca`) | same | the same (the RM counts the AM's vcores; `node-las.ts` skips AMs) |",
  );
  w('| category 5 | 224 maps (Table 1) | 60 maps: the 60 GB input is read with 1 GB blocks (`1gb-long`, `c0fd6ca` extra-files) | same | 60 maps |');
  w(
    '| arrivals | Poisson, mean 60 s (§5.2) | one fixed draw, whole-second gaps (mean 59.4 s, sd 7.4 s), 31/31/33/2/3 jobs | same file | `kairos-paper` replays it; the generator draws whole-second Poisson(60) gaps |',
  );
  w();
  w('(The previous version of this section said the prototype has no guard and swaps at "one window more": the head has');
  w('the guard above, and the margin is W/2.)');
  w();
  w("### Is the testbed slower than its task work? (FIFO on the authors' sequence)");
  w();
  w("The paper's FIFO (p50 808 s, p99 2061 s) is far slower than an ideal FIFO on the same jobs. Hypothesis: each container");
  w('holds its slot for a launch (JVM start, localisation) before its work; the prototype keeps launching containers on its');
  w("fifth core, so under Kairos the launch of a queued container overlaps other tasks' work, while under FIFO it holds a slot.");
  w('Launch time per container, FIFO and Kairos on `kairos-paper` (p50 / p99, s):');
  w();
  w('| launch per container | FIFO | Kairos | Kairos vs FIFO, p50 / p99 |');
  w('|---|---|---|---|');
  for (const c of calib)
    w(
      `| ${c.l / 1000} s | ${f0(c.fifo.p50)} / ${f0(c.fifo.p99)} | ${f0(c.kairos.p50)} / ${f0(c.kairos.p99)} | ${pct(c.kairos.p50, c.fifo.p50)} / ${pct(c.kairos.p99, c.fifo.p99)} |`,
    );
  w('| paper | 808 / 2061 | 241 / 1452 | −70 % / −30 % |');
  w();
  w(
    `Ideal FIFO is ${f0(calib[0].fifo.p50)} / ${f0(calib[0].fifo.p99)} s; ${TESTBED_LAUNCH_MS / 1000} s per container brings it to ${f0(calib[3].fifo.p50)} / ${f0(calib[3].fifo.p99)} s,`,
  );
  w("near the paper's, while Kairos's median moves much less: the hypothesis holds for the median. The tables below use");
  w(`${TESTBED_LAUNCH_MS / 1000} s as the testbed model (chosen on FIFO alone, on this one sequence). No launch time brings Kairos's p99`);
  w("below FIFO's, as the paper's p99 (1452 vs 2061 s) has it.");
  w();
  w("### The authors' sequence (`kairos-paper`, paper Fig. 4)");
  w();
  w(`Realised load ${realisedLoad(paper).toFixed(3)} (task work over 120 cores and the arrival span). p50 / p90 / p99 / max, s:`);
  w();
  w('| system | ideal node model | testbed model (launch off the cores) | testbed, vs FIFO p50 / p99 |');
  w('|---|---|---|---|');
  for (let i = 0; i < configs.length; i++) {
    const a = onPaper[0].rows[i].r;
    const b = onPaper[1].rows[i].r;
    const f = onPaper[1].rows[0].r;
    w(
      `| ${configs[i].label} | ${f0(a.p50)} / ${f0(a.p90)} / ${f0(a.p99)} / ${f0(a.max)} | ${f0(b.p50)} / ${f0(b.p90)} / ${f0(b.p99)} / ${f0(b.max)} | ${i === 0 ? '–' : `${pct(b.p50, f.p50)} / ${pct(b.p99, f.p99)}`} |`,
    );
  }
  w('| paper: FIFO, Big-C, Kairos | | 808 / – / 2061 / –; 341 / – / 3368 / 3624; 241 / – / 1452 / – | Kairos −70 % / −30 % |');
  w();
  w('Median JCT by category on the testbed model (s; time alone: 85, 201, 239, 308, 1175):');
  w();
  w('| system | cat. 1 | cat. 2 | cat. 3 | cat. 4 | cat. 5 |');
  w('|---|---|---|---|---|---|');
  for (const { c, r } of testbed) w(`| ${c.label} | ${['1', '2', '3', '4', '5'].map((k) => f0(median(r.byCat[k] ?? []))).join(' | ')} |`);
  w();
  w(fig);
  w();
  w(`### The generator (\`kairos-heavy\`, ${seedsTxt}, testbed model)`);
  w();
  w('Each seed is one 100-job draw. Realised load by seed:');
  w();
  w(`| seed | ${args.seeds.join(' | ')} |`);
  w(`|---|${args.seeds.map(() => '---').join('|')}|`);
  w(`| load | ${heavy.map((wl) => realisedLoad(wl).toFixed(2)).join(' | ')} |`);
  // No policy's median can go below the median of the jobs' times alone: Table 1's, and with the
  // testbed's launches (each job run alone under FIFO with the launch time, one job per category).
  const aloneS = heavy.map((wl) => median(wl.jobs.map((j) => (j.idealMs ?? 0) / 1000)));
  const aloneTestbedS = heavy.map((wl) => median(wl.jobs.map((j) => aloneTestbed(wl, j))));
  w(`| median time alone (s) | ${aloneS.map(f0).join(' | ')} |`);
  w(`| median time alone, testbed model (s) | ${aloneTestbedS.map(f0).join(' | ')} |`);
  w(`| 0.6 × FIFO's p50 (s) | ${gen[0].rs.map((r) => f0(0.6 * r.p50)).join(' | ')} |`);
  w();
  w('p50 and p99 JCT (s): mean and median across seeds, and the seeds on which the system meets the targets against FIFO');
  w('(median at least 40 % lower; p99 no higher):');
  w();
  w('| system | p50 mean / median | p99 mean / median | seeds p50 ≤ 0.6 × FIFO | seeds p99 ≤ FIFO | seeds both |');
  w('|---|---|---|---|---|---|');
  const fifoGen = gen[0].rs;
  const count = (rs: Run[], ok: (r: Run, f: Run) => boolean): string => `${rs.filter((r, i) => ok(r, fifoGen[i])).length}/${rs.length}`;
  for (const { c, rs } of gen)
    w(
      `| ${c.label} | ${f0(mean(rs.map((r) => r.p50)))} / ${f0(median(rs.map((r) => r.p50)))} | ${f0(mean(rs.map((r) => r.p99)))} / ${f0(median(rs.map((r) => r.p99)))} | ${c === FIFO ? '–' : count(rs, (r, f) => r.p50 <= 0.6 * f.p50)} | ${c === FIFO ? '–' : count(rs, (r, f) => r.p99 <= f.p99)} | ${c === FIFO ? '–' : count(rs, (r, f) => r.p50 <= 0.6 * f.p50 && r.p99 <= f.p99)} |`,
    );
  w();
  w('Per seed, p50 / p99 (s):');
  w();
  w(`| system | ${args.seeds.join(' | ')} |`);
  w(`|---|${args.seeds.map(() => '---').join('|')}|`);
  for (const { c, rs } of gen) w(`| ${c.label} | ${rs.map((r) => `${f0(r.p50)} / ${f0(r.p99)}`).join(' | ')} |`);
  w();
  w('The ideal node model on the same seeds (p50 / p99 mean across seeds; seeds meeting both targets):');
  w();
  w('| system | p50 | p99 | seeds both |');
  w('|---|---|---|---|');
  for (const { c, rs } of genIdeal)
    w(
      `| ${c.label} | ${f0(mean(rs.map((r) => r.p50)))} | ${f0(mean(rs.map((r) => r.p99)))} | ${c === FIFO ? '–' : `${rs.filter((r, i) => r.p50 <= 0.6 * genIdeal[0].rs[i].p50 && r.p99 <= genIdeal[0].rs[i].p99).length}/${rs.length}`} |`,
    );
  w();
  w(figGen);
  w();
  w(`### Uniform workload (\`kairos-uniform\`, paper Fig. 5; ${seedsTxt}, testbed model)`);
  w();
  w('| system | p50 mean / median | p99 mean / median |');
  w('|---|---|---|');
  for (const { c, rs } of uni)
    w(
      `| ${c.label} | ${f0(mean(rs.map((r) => r.p50)))} / ${f0(median(rs.map((r) => r.p50)))} | ${f0(mean(rs.map((r) => r.p99)))} / ${f0(median(rs.map((r) => r.p99)))} |`,
    );
  w();
  w("### Tie-breaks, Q and W (paper Fig. 6, 7; the authors' sequence, testbed model)");
  w();
  w('| setting | p50 | p99 | max |');
  w('|---|---|---|---|');
  for (const { t, r } of ties) w(`| tie-break ${t} | ${f0(r.p50)} | ${f0(r.p99)} | ${f0(r.max)} |`);
  for (const { q, r } of qs) w(`| Q = ${q} | ${f0(r.p50)} | ${f0(r.p99)} | ${f0(r.max)} |`);
  for (const { x, r } of wsS) w(`| W = ${x} s | ${f0(r.p50)} | ${f0(r.p99)} | ${f0(r.max)} |`);
  w();
  w('Paper: Var best at every percentile (worst job 1452 s Var, 1633 s Random, 1651 s Sum); Q = 2 and 8 slightly worse than');
  w('Q = 4; W = 10 s better at low percentiles and worse in the tail, W = 100 s the reverse. One sequence, one run each: the');
  w('differences here are within what one job more or less in the tail moves.');
  w();
  const plusPaper = testbed[testbed.length - 1].r;
  const kPaper = testbed[2].r;
  const fPaper = testbed[0].r;
  const attainable = aloneTestbedS.filter((a, i) => a <= 0.6 * fifoGen[i].p50).length;
  const outOfReach = args.seeds.filter((_, i) => !(aloneTestbedS[i] <= 0.6 * fifoGen[i].p50));
  const plusBoth = gen[gen.length - 1].rs.filter((r, i) => r.p50 <= 0.6 * fifoGen[i].p50 && r.p99 <= fifoGen[i].p99).length;
  w('### kairos-plus (not in the paper)');
  w();
  w('Kairos with four rules of ours (`src/policies/kairos/node-las.ts`, `job-service.ts`; values in docs/decisions.md): LAS by');
  w("job (`jobServiceRank`): a young task is ranked by its job's attained service, all its tasks' and those that ended, instead");
  w(
    `of its own; LAS only up to \`lasLimitMs\` = ${KAIROS_PLUS.lasLimitMs / 1000} s of a task's attained service, after which the task is old and old tasks run`,
  );
  w(`in their jobs' order instead of time-slicing among themselves; on each node the first \`oldTaskCores\` = ${KAIROS_PLUS.oldTaskCores} old task goes`);
  w(`before the young ones; and a job in the system for \`jobAgeLimitMs\` = ${KAIROS_PLUS.jobAgeLimitMs / 1000} s has its tasks go first (a bound on how`);
  w('long LAS holds a job back). Tuned on generator seeds 1-5 and 21-60 with the testbed model; reported on the seeds above.');
  w();
  w(`- On the authors' sequence it keeps most of the median gain and pays nothing in the tail: p50 ${pct(plusPaper.p50, fPaper.p50)}, p99`);
  w(
    `  ${pct(plusPaper.p99, fPaper.p99)} against FIFO (Kairos: ${pct(kPaper.p50, fPaper.p50)}, ${pct(kPaper.p99, fPaper.p99)}); category 5 finishes in ${f0(median(plusPaper.byCat['5'] ?? []))} s instead of ${f0(median(kPaper.byCat['5'] ?? []))} s.`,
  );
  const plusRs = gen[gen.length - 1].rs;
  const missP50 = args.seeds.filter((_, i) => !(plusRs[i].p50 <= 0.6 * fifoGen[i].p50));
  const missP99 = args.seeds.filter((_, i) => !(plusRs[i].p99 <= fifoGen[i].p99));
  const loadOf = (seed: number): string => realisedLoad(heavy[args.seeds.indexOf(seed)]).toFixed(2);
  w(`- On the generator it meets both targets (p50 at least 40 % below FIFO, p99 no higher) on ${plusBoth} of ${args.seeds.length} seeds, not the 8 asked.`);
  w(`  It misses the median target on seeds ${missP50.join(', ') || 'none'} (loads ${missP50.map(loadOf).join(', ') || '–'}) and the p99 target on seeds`);
  w(
    `  ${missP99.join(', ') || 'none'} (loads ${missP99.map(loadOf).join(', ') || '–'}). With the testbed's launches the times alone rule the median target out on`,
  );
  w(
    `  ${args.seeds.length - attainable} of ${args.seeds.length} seeds (${outOfReach.join(', ') || 'none'}: a job alone takes its launch twice, once per stage; table above), so ${attainable} of ${args.seeds.length} is the most any system can meet.`,
  );
  w("  The age bound that protects long jobs also delays the short ones that arrive while it acts, which costs most where FIFO's");
  w('  median is already low (light draws) or where many jobs reach the bound at once (the heaviest).');
  const idealBoth = genIdeal
    .slice(1)
    .map(({ c, rs }) => `${c.label} ${rs.filter((r, i) => r.p50 <= 0.6 * genIdeal[0].rs[i].p50 && r.p99 <= genIdeal[0].rs[i].p99).length}`);
  w(`- With the ideal node model (FIFO without launch time), seeds meeting both targets: ${idealBoth.join(', ')} of ${args.seeds.length}.`);
  w();
  const tuningReach = tuningWl.filter((wl, i) => median(wl.jobs.map((j) => aloneTestbed(wl, j))) <= 0.6 * fifoTuning[i].p50).length;
  w(
    `Variants tried (testbed model; each chosen or rejected on the ${TUNING_SEEDS.length} tuning seeds 1-5 and 21-60, of which ${tuningReach} are within reach`,
  );
  w("of the median target as above, then run once on the report seeds): seeds meeting both targets, and the authors' sequence");
  w('against FIFO (p50 / p99):');
  w();
  w(`| variant | parameters | tuning seeds 1–5, 21–60 | report ${seedsTxt} | kairos-paper vs FIFO |`);
  w('|---|---|---|---|---|');
  for (const v of variants) {
    const params = Object.entries(v.c.params)
      .map(([k, x]) => `\`${k}=${String(x)}\``)
      .join(', ');
    w(
      `| ${v.c.label} | ${params} | ${v.tuning}/${TUNING_SEEDS.length} | ${v.report}/${args.seeds.length} | ${pct(v.paper.p50, fPaper.p50)} / ${pct(v.paper.p99, fPaper.p99)} |`,
    );
  }
  w();
  w("On the 45 tuning seeds, ranking by the job's service meets 11 seeds more than kairos-plus by task, about as many as the");
  w('best of the other variants (LAS limit 50 s; aging 80 % with a 50 s margin), which the first five tuning seeds had not');
  w('separated. By task, a category 2 job (15 tasks of ~100 s) and a category 3 job (30 of ~120 s) arriving together');
  w('time-slice task for task, so the median job waits for the work of bigger jobs; by job, the one with less service overall');
  w("goes first, and a job's last tasks are not held back behind a new job's many tasks of the same age. On the report seeds");
  w('every variant meets 4 or 5 of 10.');
  w('Without the age bound and the old-task core, ranking by job is job-level LAS: the best median on');
  w(
    'the tuning seeds and the worst tail (median target met on 33 of 45 tuning seeds, p99 on 10: category 5 last at every node). With the age bound at 600 s (as kairos-plus by task)',
  );
  w("it meets one tuning seed more than at 400 s, but on the authors' sequence its p99 is above FIFO's; 400 s is the default: the");
  w("variant meeting most tuning seeds among those that meet both targets on the authors' sequence, tied with aging 80 % with a");
  w('50 s margin and ahead of it on the targets met one by one on the tuning seeds (median 29, p99 42 of 45, against 29 and 38).');
  w('Aging (`serviceAgingPct`, rule');
  w("`agedService`) ranks a task by its attained service less a share of its job's age; strong aging (80 %) protects the long");
  w("jobs' tail but turns the order towards FIFO at high load. Where kairos-plus still misses, the median job (category 2 or");
  w("3) has to finish within a few per cent of its time alone (light draws: FIFO's median is already close to it), or the");
  w('category 5 jobs that set the p99 lose their cores to the short jobs at every arrival.');
  w();
  w("### Why our figures differ from the paper's");
  w();
  w(
    `- **FIFO.** On the same jobs, an ideal FIFO (${f0(calib[0].fifo.p50)} / ${f0(calib[0].fifo.p99)} s) is far faster than the paper's (808 / 2061 s). A launch`,
  );
  w('  of 30-40 s per container, holding the slot off the cores, reproduces it (first table). The prototype keeps launching');
  w('  containers on a fifth core (`epfl-labos/kairos` `c0fd6ca`, `extra-files/config-files/yarn-site.xml`: `cpu-vcores` 5,');
  w('  `processorsharing.maximum-concurrent-containers` 4; commit `15cfde6`: "Core 0 is reserved for suspended containers and');
  w('  launching when all full. vCores should be 1+PScores"). The paper does not give launch times; the 40 s is inferred from');
  w('  FIFO alone, so it is a fitted value, not a measurement.');
  w(`- **Kairos's median gain** is near the paper's once FIFO is: ${pct(kPaper.p50, fPaper.p50)} against FIFO (paper −70 %). Its absolute median`);
  w(`  (${f0(kPaper.p50)} s; ${f0(calib[0].kairos.p50)} s without launch time) is above the paper's 241 s: with the launch, each task starts 40 s after its`);
  w('  allocation here, also on an idle node; we have no source on how long the prototype takes there.');
  w(`- **Kairos's tail does not.** Its p99 is ${pct(kPaper.p99, fPaper.p99)} against FIFO at the testbed model and worse than FIFO's at every launch`);
  w('  time tried, where the paper has −30 %. The cost falls on category 5, which runs about twice its time alone under task-level');
  w("  LAS (category table): its tasks yield to every younger task. The paper's own simulations show the same trade-off at");
  w('  scale: "Kairos achieves a worse 99th percentile than Eagle (between 14% and 50% in the Yahoo trace ...), due to the');
  w('  fact that Kairos frequently preempts the longest jobs" (§6.3). We found nothing in the prototype that would protect');
  w('  long jobs in the run the paper measured (no guard at `1268a92`).');
  w("- **The guards.** With the W/2 margin, AMs and the authors' arrivals, neither guard changes much (tables); the earlier");
  w('  version of this section, on the 224-map generator with exponential arrivals and no AMs, found that the §6.2 reading of');
  w('  the guard erased the median gain. The prototype the paper measured has no guard, so the default is off.');
  w('- **Big-C** gets its short jobs through in about their time alone but its long jobs wait behind the 95 % short share');
  w("  (categories 4 and 5 in the category table); its tail is worse than FIFO's, as in the paper (+63 %), but by more: our");
  w('  suspend and resume are instantaneous and its classes come from exact estimates (`schedbrain.estimate-ms`).');
  w("- **Seeds.** The paper ran one draw (realised load 0.889). Our generator's draws range over the loads in the table; FIFO's");
  w('  median follows the load, so every comparison is given per seed and as a median across seeds beside the mean.');
  w('- **Uniform workload.** Kairos has the lower tail and Big-C the lower median; the paper has Kairos ahead everywhere.');
  w('- **Not modelled:** the cost of suspending (Docker pause, memory pressure), AM start-up, reducer slow-start other than');
  w('  "all maps first" (`slowstart.completedmaps` 1, as the authors ran it), data locality, stragglers.');
  const filled = `${out.join('\n')}\n`;

  if (args.write) {
    const path = join(ROOT, 'docs', 'results.md');
    let doc = readFileSync(path, 'utf8');
    const start = doc.indexOf('\n## Kairos\n');
    if (start >= 0) {
      const next = doc.indexOf('\n## ', start + 1);
      doc = doc.slice(0, start + 1) + filled + (next >= 0 ? `\n${doc.slice(next + 1)}` : '');
    } else doc = `${doc.trimEnd()}\n\n${filled}`;
    writeFileSync(path, doc);
    process.stderr.write(`wrote docs/results.md (## Kairos) and docs/figures/kairos-*.svg: ${runs} replays in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  } else process.stdout.write(filled);
}

main();
