/**
 * Pigeon's evaluation, and Kairos's trace-driven study against Eagle, in the simulators, as
 * markdown tables on stdout (progress on stderr). One command for all of docs/results.md's
 * "Pigeon, with Eagle and Sparrow" figures:
 *
 * - Fig. 6 / 7 (§4.2): short and long job slowdowns at p50 / p90 / p99 against cluster size,
 *   Pigeon (W = 20, §4.1) and Eagle, on yahoo-sub-3363.tr (3,000 to 8,000 workers) and on the
 *   scaled Google trace (120 to 200 workers: the only Google trace here; see GOOGLE below).
 * - Fig. 5 (§4.1): Pigeon's short and long completion-time percentiles at group sizes 25 to 150,
 *   over those of one group of every worker (the centralised counterpart), at a high and a
 *   medium load (yahoo-sub-3363.tr on 4,500 and 6,000 workers; the paper used Cloudera, absent here).
 * - Kairos §6 (Delgado et al., SoCC'18): Kairos with its §6.2 settings (one-core workers, Q = 2,
 *   W = 100 time units on Yahoo and 10,000 on Google, starvation counter 3) in the main simulator,
 *   and Pigeon, each over Eagle, Yahoo 4,000 to 8,000 workers and the scaled Google trace; one table.
 * - Fig. 8, simulated part (§5): 120 workers, the scaled Google traces at 50 / 70 / 90 % load,
 *   cutoff 1 s, 10 % of the workers reserved; Eagle and Sparrow over Pigeon.
 * - yahoo-sub-3363.tr on 3,000 and 4,000 workers with every default (the cross-check with the
 *   authors' simulators).
 *
 *   npx tsx scripts/reproduce-pigeon.ts [--traces ../shared/traces] [--seeds 1-10] [--only fig6,fig5,kairos,fig8,defaults]
 *
 * Percentiles are taken per seed and averaged over the seeds; ratios are of those averages.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { settleJitForReplays } from '../src/sim/jit.js';
import type { Dist } from '../src/sim/metrics.js';
import { simulate } from '../src/sim/simulate.js';
import { runTaskLevel, type TaskLevelResult, type TaskLevelSchedulerName } from '../src/sim/tasklevel/index.js';
import type { Workload } from '../src/sim/workload.js';
import { loadEagleTrace } from '../src/sim/workloads/eagle.js';

// Replays without on-stack replacement, as `schedbrain simulate` runs them (src/sim/jit.ts).
settleJitForReplays();

const PARTS = ['fig6', 'fig5', 'kairos', 'fig8', 'defaults'] as const;

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    traces: { type: 'string', default: '../shared/traces' },
    seeds: { type: 'string', default: '1-10' },
    only: { type: 'string', default: PARTS.join(',') },
  },
});
const dir = values.traces;
const seeds = parseSeeds(values.seeds);
const only = new Set(values.only.split(',').map((s) => s.trim()));
for (const p of only) if (!(PARTS as readonly string[]).includes(p)) throw new Error(`--only: unknown part ${p} (${PARTS.join(', ')})`);

function parseSeeds(s: string): number[] {
  const out: number[] = [];
  for (const part of s.split(',')) {
    const m = /^(-?\d+)(?:-(-?\d+))?$/.exec(part.trim());
    if (!m) throw new Error(`--seeds: expected a list or ranges of integers (1-10,12), got ${s}`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    for (let x = a; x <= b; x++) out.push(x);
  }
  if (out.length === 0) throw new Error('--seeds: no seed');
  return out;
}

/** What a figure needs of one run: completion-time and slowdown percentiles by class, utilisation. */
interface ClassFigures {
  readonly jct: { p50: number; p90: number; p99: number };
  readonly slowdown: { p50: number; p90: number; p99: number };
}
interface RunFigures {
  readonly short: ClassFigures;
  readonly long: ClassFigures;
  readonly utilisation: number;
  readonly unfinished: number;
}

const P = ['p50', 'p90', 'p99'] as const;
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Percentiles averaged over runs (one per seed). */
function average(runs: readonly RunFigures[]): RunFigures {
  const cls = (c: 'short' | 'long'): ClassFigures => ({
    jct: { p50: mean(runs.map((r) => r[c].jct.p50)), p90: mean(runs.map((r) => r[c].jct.p90)), p99: mean(runs.map((r) => r[c].jct.p99)) },
    slowdown: {
      p50: mean(runs.map((r) => r[c].slowdown.p50)),
      p90: mean(runs.map((r) => r[c].slowdown.p90)),
      p99: mean(runs.map((r) => r[c].slowdown.p99)),
    },
  });
  return { short: cls('short'), long: cls('long'), utilisation: mean(runs.map((r) => r.utilisation)), unfinished: Math.max(...runs.map((r) => r.unfinished)) };
}

function fromTaskLevel(r: TaskLevelResult): RunFigures {
  const cls = (c: 'short' | 'long'): ClassFigures => ({ jct: { p50: r[c].p50, p90: r[c].p90, p99: r[c].p99 }, slowdown: { ...r[c].slowdown } });
  return { short: cls('short'), long: cls('long'), utilisation: r.utilisation, unfinished: r.unfinished };
}

interface Setting {
  readonly scheduler: TaskLevelSchedulerName;
  readonly params: Record<string, unknown>;
}

function taskLevel(w: Workload, s: Setting, workers: number, cutoffMs: number | undefined): RunFigures {
  return average(seeds.map((seed) => fromTaskLevel(runTaskLevel({ workload: w, scheduler: s.scheduler, params: s.params, workers, seed, cutoffMs }))));
}

/**
 * Kairos in the main simulator on one-core nodes. Its replay of a trace draws nothing at random
 * (dispatch ties are broken by variance), so one run stands for every seed. Only completion times
 * are compared (Kairos §6.3 normalises them to Eagle's); no slowdown is computed.
 */
function kairos(w: Workload, params: Record<string, unknown>, nodes: number, cutoffMs: number | undefined): RunFigures {
  const r = simulate({ workload: w, policy: 'kairos', params, nodes, cores: 1, seed: seeds[0], cutoffMs });
  const none = { p50: NaN, p90: NaN, p99: NaN };
  const cls = (d: Dist): ClassFigures => ({ jct: { p50: d.p50, p90: d.p90, p99: d.p99 }, slowdown: none });
  return { short: cls(r.short), long: cls(r.long), utilisation: r.utilisation.cpu, unfinished: r.unfinished };
}

/** Task-seconds offered over the arrival span, per worker: the load before the queues drain. */
function offeredLoad(w: Workload, workers: number): number {
  let work = 0;
  let first = Infinity;
  let last = 0;
  for (const j of w.jobs) {
    first = Math.min(first, j.arrivalMs);
    last = Math.max(last, j.arrivalMs);
    for (const st of j.stages) for (let k = 0; k < st.workMs.length; k++) work += st.workMs[k];
  }
  return work / (workers * (last - first));
}

const f = (x: number): string => (!Number.isFinite(x) ? '-' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const triple = (t: { p50: number; p90: number; p99: number }): string => P.map((p) => f(t[p])).join(' / ');
const over = (a: { p50: number; p90: number; p99: number }, b: { p50: number; p90: number; p99: number }): string => P.map((p) => f(a[p] / b[p])).join(' / ');
const pctS = (x: number): string => `${(100 * x).toFixed(0)} %`;
const log = (s: string): void => {
  process.stderr.write(`${s}\n`);
};

function load(name: string): Workload | undefined {
  const path = join(dir, name);
  if (!existsSync(path)) {
    out.push(`(no ${path}: skipped)`, '');
    return undefined;
  }
  return loadEagleTrace(path);
}

/** The Pigeon paper's §4.1 settings: groups of 100, 2 % reserved (Yahoo), W = 20. Eagle: the README's Yahoo settings. */
const YAHOO = {
  trace: 'yahoo-sub-3363.tr',
  sizes: [3000, 4000, 5000, 6000, 8000],
  cutoffMs: undefined,
  pigeon: { scheduler: 'pigeon', params: { weight: 20 } } as Setting,
  eagle: { scheduler: 'eagle', params: {} } as Setting,
};
/**
 * The only Google trace here is the Pigeon prototype's 5,001 jobs scaled to 10 ms–100 s tasks for
 * 120 workers (90 % load in `load90`), not the Google trace at 15,000 workers and more. Its
 * settings follow §5, which ran it: cutoff 1 s, groups of 40 with 4 reserved (10 %; §4.1's Google
 * ratio is 9 %), W = 20 as in §4; Eagle with its Google partitions (long jobs on 83 % of workers).
 */
const GOOGLE = {
  trace: 'google-scaled-load90.tr',
  sizes: [120, 160, 200],
  cutoffMs: 1000,
  pigeon: { scheduler: 'pigeon', params: { weight: 20, groupSize: 40, reservedPerGroup: 4 } } as Setting,
  eagle: { scheduler: 'eagle', params: { longPartitionPct: 83 } } as Setting,
};

/** Fig. 5: cluster sizes every group size (25 to 150) divides, and a reserved share whole at every size. */
const FIG5_WORKERS = [4500, 6000];
const FIG5_RESERVED_PCT = 4;

const out: string[] = [];
const started = performance.now();
out.push(`Seeds ${values.seeds} (${seeds.length}); percentiles averaged over the seeds.`, '');

if (only.has('fig6')) {
  out.push('### Fig. 6 and 7: slowdowns against cluster size', '');
  out.push(
    "Slowdown: p-th percentile completion time over the p-th percentile of the jobs' longest task (§4.2). Pigeon W = 20.",
    '',
    '| trace | workers | offered load | scheduler | short p50 / p90 / p99 | long p50 / p90 / p99 | utilisation |',
    '|---|---|---|---|---|---|---|',
  );
  for (const t of [YAHOO, GOOGLE]) {
    const w = load(t.trace);
    if (!w) continue;
    for (const workers of t.sizes) {
      for (const s of [t.pigeon, t.eagle]) {
        log(`fig6 ${t.trace} ${workers} ${s.scheduler}`);
        const r = taskLevel(w, s, workers, t.cutoffMs);
        out.push(
          `| ${t.trace} | ${workers.toLocaleString('en-US')} | ${pctS(offeredLoad(w, workers))} | ${s.scheduler} | ${triple(r.short.slowdown)} | ${triple(r.long.slowdown)} | ${pctS(r.utilisation)} |`,
        );
      }
    }
  }
  out.push('');
}

if (only.has('fig5')) {
  const w = load(YAHOO.trace);
  if (w) {
    out.push('### Fig. 5: group sizes, over one group of every worker', '');
    out.push(
      'Pigeon, W = 20, 4 % of each group reserved (the least share that is a whole number of workers at every size: 1 of 25 to 6 of 150; 180 in the one group). Completion-time percentiles over those of the one-group run.',
      '',
      '| workers | offered load | group size | groups | short p50 / p90 / p99 | long p50 / p90 / p99 | one group: short p50 / p90 / p99 (s) | long (s) |',
      '|---|---|---|---|---|---|---|---|',
    );
    // Cluster sizes every group size divides (a smaller last group gets as many of each job's
    // tasks as the others and holds the job back); 4,500 and 6,000 offer 83 % and 62 %.
    for (const workers of FIG5_WORKERS) {
      const pigeonAt = (groupSize: number): RunFigures => {
        log(`fig5 ${workers} group ${groupSize}`);
        return taskLevel(
          w,
          { scheduler: 'pigeon', params: { weight: 20, groupSize, reservedPerGroup: (FIG5_RESERVED_PCT * groupSize) / 100 } },
          workers,
          undefined,
        );
      };
      const central = pigeonAt(workers);
      for (const g of [25, 50, 75, 100, 125, 150]) {
        const r = pigeonAt(g);
        out.push(
          `| ${workers.toLocaleString('en-US')} | ${pctS(offeredLoad(w, workers))} | ${g} | ${Math.ceil(workers / g)} | ${over(r.short.jct, central.short.jct)} | ${over(r.long.jct, central.long.jct)} | ${triple(central.short.jct)} | ${triple(central.long.jct)} |`,
        );
      }
    }
    out.push('');
  }
}

if (only.has('kairos')) {
  out.push('### Kairos §6 against Eagle, with Pigeon on the same footing', '');
  out.push(
    "Completion-time percentiles over Eagle's (below 1: faster than Eagle). Kairos: §6.2 (one-core workers, Q = 2, starvation counter 3, W = 100 s on Yahoo and 10,000 s on Google), and our defaults (Q = 4, W = 50 s) at the highest load; one run (its replay draws nothing at random). Pigeon: W = 20.",
    '',
    '| trace | workers | offered load | scheduler | short p50 / p90 / p99 ÷ Eagle | long p50 / p90 / p99 ÷ Eagle | utilisation | Eagle short p50 / p90 / p99 (s) | Eagle long (s) | Eagle utilisation |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  const studies = [
    { t: YAHOO, sizes: [4000, 5000, 6000, 8000], quantumMs: 100_000 },
    { t: GOOGLE, sizes: GOOGLE.sizes, quantumMs: 10_000_000 },
  ];
  for (const { t, sizes, quantumMs } of studies) {
    const w = load(t.trace);
    if (!w) continue;
    for (const workers of sizes) {
      log(`kairos ${t.trace} ${workers}`);
      const eagle = taskLevel(w, t.eagle, workers, t.cutoffMs);
      const rows: [string, RunFigures][] = [
        [`kairos (W = ${quantumMs / 1000} s)`, kairos(w, { queueSlots: 2, quantumMs }, workers, t.cutoffMs)],
        ['pigeon', taskLevel(w, t.pigeon, workers, t.cutoffMs)],
      ];
      if (workers === sizes[0]) rows.splice(1, 0, ['kairos, defaults (Q = 4, W = 50 s)', kairos(w, {}, workers, t.cutoffMs)]);
      for (const [label, r] of rows)
        out.push(
          `| ${t.trace} | ${workers.toLocaleString('en-US')} | ${pctS(offeredLoad(w, workers))} | ${label} | ${over(r.short.jct, eagle.short.jct)} | ${over(r.long.jct, eagle.long.jct)} | ${pctS(r.utilisation)} | ${triple(eagle.short.jct)} | ${triple(eagle.long.jct)} | ${pctS(eagle.utilisation)} |`,
        );
    }
  }
  out.push('');
}

if (only.has('fig8')) {
  /** §5: 3 groups of 40, 10 % of the workers reserved for short jobs in Pigeon and Eagle, W = ∞. */
  const EC2: Record<TaskLevelSchedulerName, Record<string, unknown>> = {
    pigeon: { groupSize: 40, reservedPerGroup: 4 },
    eagle: { longPartitionPct: 90 },
    sparrow: {},
  };
  out.push('### Fig. 8, simulated part', '');
  out.push("120 workers, cutoff 1 s. Completion time p50 / p90 / p99 (s), and over Pigeon's.", '');
  out.push('| load | scheduler | short (s) | long (s) | short ÷ Pigeon | long ÷ Pigeon |', '|---|---|---|---|---|---|');
  // The scaled Yahoo traces offer 1.4 to 2.5 times what 120 workers can run (their task-seconds over
  // their span), so only the Google ones, which offer 50 / 70 / 90 %, are replayed.
  for (const l of [50, 70, 90]) {
    const w = load(`google-scaled-load${l}.tr`);
    if (!w) continue;
    log(`fig8 ${l}`);
    const runs = (['pigeon', 'eagle', 'sparrow'] as const).map((scheduler) => ({
      scheduler,
      r: taskLevel(w, { scheduler, params: EC2[scheduler] }, 120, 1000),
    }));
    for (const { scheduler, r } of runs)
      out.push(
        `| ${l} % | ${scheduler} | ${triple(r.short.jct)} | ${triple(r.long.jct)} | ${over(r.short.jct, runs[0].r.short.jct)} | ${over(r.long.jct, runs[0].r.long.jct)} |`,
      );
  }
  out.push('');
}

if (only.has('defaults')) {
  const w = load(YAHOO.trace);
  if (w) {
    out.push('### yahoo-sub-3363.tr, every default (§4 settings, W = ∞)', '');
    out.push("Seed by seed figures are in the section's cross-check; here averaged over the seeds.", '');
    out.push('| workers | scheduler | short p50 / p90 / p99 (s) | long p50 / p90 / p99 (s) | short slowdown p50 / p90 / p99 |', '|---|---|---|---|---|');
    for (const workers of [3000, 4000]) {
      for (const scheduler of ['pigeon', 'eagle', 'sparrow'] as const) {
        log(`defaults ${workers} ${scheduler}`);
        const r = taskLevel(w, { scheduler, params: {} }, workers, undefined);
        out.push(`| ${workers.toLocaleString('en-US')} | ${scheduler} | ${triple(r.short.jct)} | ${triple(r.long.jct)} | ${triple(r.short.slowdown)} |`);
      }
    }
    out.push('');
  }
}

out.push(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);
process.stdout.write(`${out.join('\n')}\n`);
