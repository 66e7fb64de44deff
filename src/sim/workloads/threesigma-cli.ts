/**
 * `schedbrain simulate --workload 3sigma-e2e`: the 3Sigma evaluation workload (EuroSys'18 §5)
 * under the paper's systems and ablations, each a set of `threesigma` parameters.
 *
 *   schedbrain simulate --workload 3sigma-e2e [--policy 3sigma,point-perfect,point-real,prio,no-dist,no-oe,no-adapt]
 *       [--seed S] [--load L] [--slack PCT[,PCT…]] [--samples N] [--nodes N] [--duration-ms D]
 *       [--period-ms P] [--set key=value …] [--json]
 *
 * JSON per run: `slo.{jobs,met,missed,missRate}`, `goodputMachineHours`,
 * `bestEffort.{jobs,meanLatencyMs,p50LatencyMs,p99LatencyMs}`, `cycle.{count,p50Ms,p99Ms,maxMs}`
 * (wall time of a policy cycle, solve included), `milp.{solves,columnsP50,columnsMax,rowsMax,nonzerosMax}`.
 */
import { threeSigmaPolicy } from '../../policies/threesigma/index.js';
import { buildParams, msFlag, readFlags, UsageError, type FlagSpec } from '../params.js';
import { threeSigmaE2EWorkload, type ThreeSigmaE2EOptions } from './threesigma.js';
import { isVariant, runE2E, VARIANT_NAMES, type E2EMetrics } from './threesigma-run.js';

export function isThreeSigmaWorkload(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--workload') return argv[i + 1] === '3sigma-e2e';
    if (argv[i].startsWith('--workload=')) return argv[i].slice(11) === '3sigma-e2e';
  }
  return false;
}

const USAGE = `usage: schedbrain simulate --workload 3sigma-e2e [--policy ${VARIANT_NAMES.join(',')}]
  [--seed S] [--load L] [--slack PCT[,PCT...]] [--samples N] [--nodes N] [--duration-ms D]
  [--period-ms P] [--set key=value ...] [--json]
--duration-ms: length of the arrival window (default 18000000, 5 h; --hours is deprecated).`;

const FLAGS = {
  workload: { type: 'string' },
  policy: { type: 'list' },
  seed: { type: 'number', integer: true, min: 0 },
  load: { type: 'number', min: Number.MIN_VALUE },
  slack: { type: 'list' },
  samples: { type: 'number', integer: true, min: 0 },
  nodes: { type: 'number', integer: true, min: 1 },
  'duration-ms': { type: 'number', min: Number.MIN_VALUE },
  /** Deprecated: hours (`--duration-ms`). */
  hours: { type: 'number', min: Number.MIN_VALUE },
  'period-ms': { type: 'number', min: Number.MIN_VALUE },
  set: { type: 'repeat' },
  json: { type: 'bool' },
} as const satisfies Record<string, FlagSpec>;

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '-');

function human(m: E2EMetrics): string {
  return [
    `3sigma-e2e under ${m.variant} (seed ${m.seed}, ${m.jobs} jobs, ${m.unfinished} unfinished)`,
    `  SLO jobs: ${m.slo.jobs}, ${m.slo.missed} missed their deadline (${pct(m.slo.missRate)})`,
    `  goodput: ${f1(m.goodputMachineHours)} machine-hours; best-effort latency mean ${f1(m.bestEffort.meanLatencyMs / 1000)} s, p50 ${f1(m.bestEffort.p50LatencyMs / 1000)} s`,
    `  cycles: ${m.cycle.count}, p50 ${f1(m.cycle.p50Ms)} ms, p99 ${f1(m.cycle.p99Ms)} ms; MILP columns p50 ${m.milp.columnsP50}, max ${m.milp.columnsMax} × ${m.milp.rowsMax} rows`,
    `  preempted containers: ${m.preemptedContainers} (${f1(m.wastedNodeHours)} node-hours of work lost); ${(m.wallMs / 1000).toFixed(1)} s`,
  ].join('\n');
}

export async function runThreeSigmaSimulate(argv: readonly string[]): Promise<number> {
  try {
    const { values: v, help } = readFlags(argv, FLAGS);
    const duration = msFlag('duration-ms', v['duration-ms'] as number | undefined, 'hours', v.hours as number | undefined, 'hours', 3_600_000);
    if (duration.notice) process.stderr.write(`schedbrain simulate: ${duration.notice}\n`);
    if (help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (v.workload !== '3sigma-e2e') throw new UsageError(`unknown workload ${String(v.workload)}: expected 3sigma-e2e`);
    const variants = ((v.policy as string[] | undefined) ?? ['3sigma']).map((x) => (x === 'threesigma' ? '3sigma' : x));
    for (const x of variants) if (!isVariant(x)) throw new UsageError(`--policy ${x}: expected one of ${VARIANT_NAMES.join(', ')}`);
    const slack = (v.slack as string[] | undefined)?.map((s) => {
      const n = Number(s);
      if (s.trim() === '' || !Number.isFinite(n) || n < 0) throw new UsageError(`--slack: percentages ≥ 0, got ${s}`);
      return n;
    });
    const sets = (v.set as string[] | undefined) ?? [];
    const params = buildParams(threeSigmaPolicy, sets);
    const seed = (v.seed as number | undefined) ?? 1;
    const o: ThreeSigmaE2EOptions = {
      seed,
      ...(v.load !== undefined ? { load: v.load as number } : {}),
      ...(slack ? { slackPct: slack } : {}),
      ...(v.samples !== undefined ? { samples: v.samples as number } : {}),
      ...(v.nodes !== undefined ? { nodes: v.nodes as number } : {}),
      ...(duration.ms !== undefined ? { durationMs: duration.ms } : {}),
    };
    const e2e = threeSigmaE2EWorkload(o);
    const periodMs = v['period-ms'] as number | undefined;
    const runs = variants.map((x) => runE2E(e2e, x as (typeof VARIANT_NAMES)[number], { seed, params, ...(periodMs !== undefined ? { periodMs } : {}) }));
    if (v.json === true) process.stdout.write(`${JSON.stringify(runs.length === 1 ? runs[0] : { runs })}\n`);
    else process.stdout.write(`${runs.map(human).join('\n\n')}\n`);
    return runs.some((r) => r.unfinished > 0) ? 1 : 0;
  } catch (e) {
    process.stderr.write(`schedbrain simulate: ${(e as Error).message}\n`);
    if (e instanceof UsageError) {
      process.stderr.write(`${USAGE}\n`);
      return 2;
    }
    return 1;
  }
}
