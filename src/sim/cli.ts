/**
 * `schedbrain simulate …`: replay a workload under a policy in the discrete-event simulator.
 *
 *   schedbrain simulate --workload <kairos-heavy|kairos-uniform|kairos-paper|sample:NAME|PATH.tr> --policy NAME[,NAME…]
 *       [--nodes N] [--cores C] [--memory-mb M] [--seed S] [--jobs N] [--set key=value …]
 *       [--delay-ms X] [--period-ms P] [--allocator fifo|capacity] [--cutoff-ms X] [--task-jitter J]
 *       [--json] [--per-job] [--plot FILE.svg] [--plot-metric jct|slowdown] [--log-x] [--html FILE.html]
 *
 * With `--json`, stdout is exactly one JSON object (one policy: the run summary; several: an
 * object with `runs`), every duration in it in milliseconds (`…Ms`, src/sim/json-ms.ts). A progress bar goes to stderr when stderr is a terminal.
 */
import { writeFileSync } from 'node:fs';
import type { AllocatorFactory } from './allocator.js';
import { cdfSvg } from './metrics.js';
import { simulateJson } from './json-ms.js';
import { lookupPolicy, simulate, type SimulateResult } from './simulate.js';
import { settleJitForReplays } from './jit.js';
import { buildParams, cutoffMsFlag, readFlags, UsageError, type FlagSpec } from './params.js';
import { resolveWorkload } from './workloads/index.js';

// Kept importable from here: tests and callers reach them through the command's module.
export { buildParams, parseValue, UsageError } from './params.js';

const USAGE = `usage: schedbrain simulate --workload <kairos-heavy|kairos-uniform|kairos-paper|sample:NAME|PATH.tr> --policy NAME[,NAME...]
  [--nodes N] [--cores C] [--memory-mb M] [--seed S] [--jobs N] [--set key=value ...]
  [--delay-ms X] [--period-ms P] [--allocator fifo|capacity] [--cutoff-ms X] [--task-jitter J]
  [--json] [--per-job] [--plot FILE.svg] [--plot-metric jct|slowdown] [--log-x] [--html FILE.html]
--cutoff-ms: short/long cutoff on mean task duration (--cutoff, in seconds, is deprecated).
--json: durations in milliseconds (jct.p50Ms, makespanMs, wallMs, perJob[].jctMs, ...); the text report is in seconds.
--workload also takes a trace recorded with 'schedbrain record' (JSON lines); --html writes one
self-contained page with the runs side by side and their CDFs.
With several policies (compared on the same workload and plotted together), prefix --set keys
with the policy name: --set kairos.quantumMs=20000.
Replays run with V8's on-stack replacement off for this process (src/sim/jit.ts);
SCHEDBRAIN_SIM_OSR=1 keeps V8's default.`;

interface Args {
  workload?: string;
  policies: string[];
  nodes?: number;
  cores?: number;
  memoryMB?: number;
  seed: number;
  jobs?: number;
  sets: string[];
  delayMs?: number;
  periodMs?: number;
  allocator?: string;
  cutoffMs?: number;
  taskJitter?: number;
  json: boolean;
  perJob: boolean;
  plot?: string;
  plotMetric: 'jct' | 'slowdown';
  logX: boolean;
  html?: string;
  help: boolean;
  /** Deprecated flags read, with what they were read as (printed to stderr). */
  notices: string[];
}

const SIMULATE_FLAGS = {
  workload: { type: 'string' },
  policy: { type: 'list' },
  nodes: { type: 'number', integer: true },
  cores: { type: 'number', integer: true },
  'memory-mb': { type: 'number', integer: true },
  seed: { type: 'number', integer: true },
  jobs: { type: 'number', integer: true },
  set: { type: 'repeat' },
  'delay-ms': { type: 'number' },
  'period-ms': { type: 'number' },
  allocator: { type: 'string' },
  'cutoff-ms': { type: 'number' },
  /** Deprecated: seconds (`--cutoff-ms`). */
  cutoff: { type: 'number' },
  'task-jitter': { type: 'number' },
  json: { type: 'bool' },
  'per-job': { type: 'bool' },
  plot: { type: 'string' },
  'plot-metric': { type: 'choice', values: ['jct', 'slowdown'] },
  'log-x': { type: 'bool' },
  html: { type: 'string' },
} as const satisfies Record<string, FlagSpec>;

export function parseArgs(argv: readonly string[]): Args {
  const { values: v, help } = readFlags(argv, SIMULATE_FLAGS);
  const n = (k: string) => v[k] as number | undefined;
  const cutoff = cutoffMsFlag(n('cutoff-ms'), n('cutoff'));
  return {
    workload: v.workload as string | undefined,
    policies: (v.policy as string[] | undefined) ?? [],
    nodes: n('nodes'),
    cores: n('cores'),
    memoryMB: n('memory-mb'),
    seed: n('seed') ?? 1,
    jobs: n('jobs'),
    sets: (v.set as string[] | undefined) ?? [],
    delayMs: n('delay-ms'),
    periodMs: n('period-ms'),
    allocator: v.allocator as string | undefined,
    cutoffMs: cutoff.cutoffMs,
    taskJitter: n('task-jitter'),
    json: v.json === true,
    perJob: v['per-job'] === true,
    plot: v.plot as string | undefined,
    plotMetric: (v['plot-metric'] as Args['plotMetric'] | undefined) ?? 'jct',
    logX: v['log-x'] === true,
    html: v.html as string | undefined,
    help,
    notices: cutoff.notice ? [cutoff.notice] : [],
  };
}

async function loadAllocator(name: string | undefined): Promise<AllocatorFactory | undefined> {
  if (name === undefined || name === 'fifo') return undefined;
  if (name === 'capacity') {
    const mod = (await import('./capacity-allocator.js' as string)) as Record<string, unknown>;
    const f = mod.createCapacityAllocator;
    if (typeof f !== 'function') throw new Error('capacity-allocator.ts does not export createCapacityAllocator');
    return f as AllocatorFactory;
  }
  throw new UsageError(`unknown allocator ${name}: expected fifo or capacity`);
}

function progressBar(label: string): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = -1;
  return (done, total) => {
    const pct = total ? Math.floor((100 * done) / total) : 100;
    if (pct === last) return;
    last = pct;
    const w = 30;
    const fill = Math.round((w * pct) / 100);
    process.stderr.write(`\r${label} [${'#'.repeat(fill)}${'.'.repeat(w - fill)}] ${pct}% ${done}/${total} jobs`);
    if (done >= total) process.stderr.write('\n');
  };
}

const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '-');

function humanReport(r: SimulateResult): string {
  const row = (name: string, d: { count: number; p50: number; p90: number; p99: number; mean: number }): string =>
    `  ${name.padEnd(6)} ${String(d.count).padStart(6)}  ${f1(d.p50).padStart(9)} ${f1(d.p90).padStart(9)} ${f1(d.p99).padStart(9)} ${f1(d.mean).padStart(9)}`;
  return [
    `${r.workload} under ${r.policy} on ${r.nodes} nodes x ${r.coresPerNode} cores (seed ${r.seed})`,
    `  jobs finished ${r.jobs}, killed ${r.killed}, unfinished ${r.unfinished}; makespan ${f1(r.makespanS)} s; CPU utilisation ${(100 * r.utilisation.cpu).toFixed(1)} %`,
    `  job completion time (s)${r.cutoffMs !== undefined ? `, short/long cutoff ${r.cutoffMs} ms` : ''}:`,
    `  ${'class'.padEnd(6)} ${'jobs'.padStart(6)}  ${'p50'.padStart(9)} ${'p90'.padStart(9)} ${'p99'.padStart(9)} ${'mean'.padStart(9)}`,
    row('all', r.jct),
    row('short', r.short),
    row('long', r.long),
    `  slowdown p50 ${r.slowdown.p50.toFixed(2)}, p99 ${r.slowdown.p99.toFixed(2)}; actions applied ${r.actions.applied}, noop ${r.actions.noop}, failed ${r.actions.failed}`,
    `  ${r.events} events in ${r.wallSeconds.toFixed(3)} s (${Math.round(r.eventsPerSecond)} events/s)`,
    ...r.warnings.map((w) => `  warning: ${w}`),
  ].join('\n');
}

export async function runSimulateCommand(argv: string[]): Promise<number> {
  settleJitForReplays();
  // BoPF scenarios have their own options (--tqs, --lq-scale, …) and report: see workloads/bopf-cli.ts.
  if (argv.some((a, i) => (a === '--workload' && argv[i + 1]?.startsWith('bopf-')) || a.startsWith('--workload=bopf-')))
    return (await import('./workloads/bopf-cli.js')).runBopfSimulate(argv);
  // DARSS evaluation workloads: production workflows, deadlines, --compare (workloads/darss-cli.ts).
  if (argv.some((a, i) => (a === '--workload' && argv[i + 1]?.startsWith('darss-')) || a.startsWith('--workload=darss-')))
    return (await import('./workloads/darss-cli.js')).runDarssSimulate(argv);
  // 3Sigma's E2E workload: SLO and best-effort jobs, the paper's systems as parameters (workloads/threesigma-cli.ts).
  if (argv.some((a, i) => (a === '--workload' && argv[i + 1] === '3sigma-e2e') || a === '--workload=3sigma-e2e'))
    return (await import('./workloads/threesigma-cli.js')).runThreeSigmaSimulate(argv);
  // Pigeon, Eagle and Sparrow place each task with messages: the task-level simulator (tasklevel/cli.ts).
  const taskLevel = await import('./tasklevel/cli.js');
  if (taskLevel.wantsTaskLevel(argv)) return taskLevel.runTaskLevelSimulate(argv);
  let args: Args;
  try {
    args = parseArgs(argv);
    for (const notice of args.notices) process.stderr.write(`schedbrain simulate: ${notice}\n`);
    if (args.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (!args.workload) throw new UsageError('--workload is required');
    if (args.policies.length === 0) throw new UsageError('--policy is required');
  } catch (e) {
    process.stderr.write(`schedbrain simulate: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  try {
    const policies = args.policies.map((p) => {
      try {
        return lookupPolicy(p);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
    });
    const paramsList = policies.map((p) =>
      buildParams(
        p,
        args.sets.length && policies.length > 1 ? args.sets.filter((s) => s.startsWith(`${p.name}.`)).map((s) => s.slice(p.name.length + 1)) : args.sets,
      ),
    );
    const allocator = await loadAllocator(args.allocator);
    const workload = resolveWorkload(args.workload, { seed: args.seed, jobs: args.jobs, taskJitter: args.taskJitter });
    const results: SimulateResult[] = [];
    for (const [i, policy] of policies.entries()) {
      results.push(
        simulate({
          workload,
          policy,
          params: paramsList[i],
          nodes: args.nodes,
          cores: args.cores,
          memoryMBPerNode: args.memoryMB,
          seed: args.seed,
          decisionDelayMs: args.delayMs,
          periodMs: args.periodMs,
          allocator,
          cutoffMs: args.cutoffMs,
          onProgress: progressBar(policy.name),
        }),
      );
    }
    if (args.plot) {
      const metric = args.plotMetric;
      const svg = cdfSvg(
        results.map((r) => ({ label: r.policy, values: r.perJob.map((j) => (metric === 'jct' ? j.jctS : j.slowdown)) })),
        {
          title: `${workload.name}: ${metric === 'jct' ? 'job completion time' : 'slowdown'}`,
          xLabel: metric === 'jct' ? 'job completion time (s)' : 'slowdown',
          logX: args.logX,
        },
      );
      writeFileSync(args.plot, svg);
    }
    if (args.html) {
      // A recorded trace adds the cluster's own completion times and where its tasks came from.
      const { recorded, provenance } = workload as { recorded?: readonly { recordedJctS: number }[]; provenance?: readonly string[] };
      const { simulationReportHtml } = await import('./report-html.js');
      writeFileSync(args.html, simulationReportHtml(results, { logX: args.logX, recordedJctS: recorded?.map((j) => j.recordedJctS), notes: provenance }));
    }
    const out = (r: SimulateResult): object => simulateJson(r, args.perJob);
    if (args.json) {
      process.stdout.write(`${JSON.stringify(results.length === 1 ? out(results[0]) : { runs: results.map(out) })}\n`);
    } else {
      process.stdout.write(`${results.map(humanReport).join('\n\n')}\n`);
      if (args.plot) process.stdout.write(`CDF written to ${args.plot}\n`);
      if (args.html) process.stdout.write(`report written to ${args.html}\n`);
    }
    return results.some((r) => r.unfinished > 0) ? 1 : 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`schedbrain simulate: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`schedbrain simulate: ${(e as Error).message}\n`);
    return 1;
  }
}

// Direct use: `tsx src/sim/cli.ts --workload … --policy …`.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  runSimulateCommand(process.argv.slice(2)).then((code) => process.exit(code));
}
