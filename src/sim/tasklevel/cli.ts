/**
 * `schedbrain simulate --policy pigeon|eagle|sparrow …`: the task-level schedulers replay an
 * Eagle-format trace on one-slot workers (`schedbrain simulate` hands over here when every
 * policy named is one of them).
 *
 *   schedbrain simulate --workload PATH.tr --policy pigeon[,eagle,sparrow] [--nodes N] [--cores C]
 *       [--seed S] [--jobs N] [--cutoff-ms X] [--set key=value …] [--json] [--per-job]
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { taskLevelJson } from '../json-ms.js';
import { cutoffMsFlag, parseValue, UsageError } from '../params.js';
import { resolveWorkload } from '../workloads/index.js';
import { TASK_LEVEL_SCHEDULERS, isTaskLevelScheduler, runTaskLevel, type TaskLevelResult, type TaskLevelSchedulerName } from './index.js';

function parameterNames(schema: z.ZodTypeAny): string[] {
  let s = schema;
  while (s instanceof z.ZodEffects) s = s.innerType();
  return s instanceof z.ZodObject ? Object.keys(s.shape) : [];
}

const USAGE = `usage: schedbrain simulate --workload <sample:NAME|PATH.tr> --policy pigeon|eagle|sparrow[,...]
  [--nodes N] [--cores C] [--seed S] [--jobs N] [--cutoff-ms X] [--set key=value ...] [--json] [--per-job]
Task-level schedulers on one-slot workers (N x C of them; default the trace's cluster, 4,000 for
Yahoo). Times in parameters, --cutoff-ms and the --json output are milliseconds (--cutoff, in seconds, is deprecated). With several policies, prefix --set keys with the
policy name (--set pigeon.weight=20). Parameters:
${Object.entries(TASK_LEVEL_SCHEDULERS)
  .map(([name, s]) => `  ${name}: ${parameterNames(s.paramsSchema).join(', ')}`)
  .join('\n')}`;

/** True when the command names only task-level schedulers (pigeon, eagle, sparrow). */
export function wantsTaskLevel(argv: readonly string[]): boolean {
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--policy' && i + 1 < argv.length) names.push(...argv[i + 1].split(','));
    else if (a.startsWith('--policy=')) names.push(...a.slice(9).split(','));
  }
  const trimmed = names.map((s) => s.trim()).filter(Boolean);
  return trimmed.length > 0 && trimmed.every(isTaskLevelScheduler);
}

function int(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n)) throw new UsageError(`--${flag}: expected an integer, got ${v}`);
  return n;
}

/** `--set` pairs of one scheduler (bare keys, or `name.key` when several run). */
function paramsFor(name: TaskLevelSchedulerName, sets: readonly string[], several: boolean): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const s of sets) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set expects key=value, got ${s}`);
    let key = s.slice(0, eq).trim();
    if (several) {
      if (!key.startsWith(`${name}.`)) continue;
      key = key.slice(name.length + 1);
    }
    params[key] = parseValue(s.slice(eq + 1));
  }
  const r = (TASK_LEVEL_SCHEDULERS[name].paramsSchema as z.ZodTypeAny).safeParse(params);
  if (!r.success)
    throw new UsageError(`invalid parameters for ${name}: ${r.error.issues.map((i) => `--set ${i.path.join('.') || '(params)'}: ${i.message}`).join('; ')}`);
  return params;
}

const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '-');

function report(r: TaskLevelResult): string {
  const row = (name: string, d: { count: number; mean: number; p50: number; p90: number; p99: number }): string =>
    `  ${name.padEnd(6)} ${String(d.count).padStart(6)}  ${f1(d.mean).padStart(9)} ${f1(d.p50).padStart(9)} ${f1(d.p90).padStart(9)} ${f1(d.p99).padStart(9)}`;
  const sd = (s: TaskLevelResult['short']): string => `${s.slowdown.p50.toFixed(2)} / ${s.slowdown.p90.toFixed(2)} / ${s.slowdown.p99.toFixed(2)}`;
  return [
    `${r.workload} under ${r.scheduler} on ${r.workers} one-slot workers (seed ${r.seed})`,
    `  jobs finished ${r.jobs}, unfinished ${r.unfinished}; makespan ${f1(r.makespanS)} s; utilisation ${(100 * r.utilisation).toFixed(1)} %; zero queueing ${(100 * r.zeroQueueingShare).toFixed(1)} % of jobs`,
    `  job completion time (s)${r.cutoffMs !== undefined ? `, short/long cutoff ${r.cutoffMs} ms` : ''}:`,
    `  ${'class'.padEnd(6)} ${'jobs'.padStart(6)}  ${'mean'.padStart(9)} ${'p50'.padStart(9)} ${'p90'.padStart(9)} ${'p99'.padStart(9)}`,
    row('all', r.jct),
    row('short', r.short),
    row('long', r.long),
    `  slowdown p50 / p90 / p99 (percentile JCT over percentile longest task): short ${sd(r.short)}, long ${sd(r.long)}`,
    `  ${r.events} events in ${r.wallSeconds.toFixed(3)} s`,
  ].join('\n');
}

/** JSON has no Infinity: an infinite parameter (Pigeon's W) is written "inf". */
const jsonReplacer = (_k: string, v: unknown): unknown => (v === Infinity ? 'inf' : v);

export async function runTaskLevelSimulate(argv: readonly string[]): Promise<number> {
  let values: ReturnType<typeof parse>;
  function parse(a: readonly string[]) {
    return parseArgs({
      args: [...a],
      strict: true,
      options: {
        workload: { type: 'string' },
        policy: { type: 'string', multiple: true },
        nodes: { type: 'string' },
        cores: { type: 'string' },
        seed: { type: 'string' },
        jobs: { type: 'string' },
        'cutoff-ms': { type: 'string' },
        cutoff: { type: 'string' },
        set: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        'per-job': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  }
  try {
    values = parse(argv);
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (!values.workload) throw new UsageError('--workload is required');
  } catch (e) {
    process.stderr.write(`schedbrain simulate: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  try {
    const names = (values.policy ?? [])
      .flatMap((p) => p.split(','))
      .map((s) => s.trim())
      .filter(Boolean);
    for (const n of names) if (!isTaskLevelScheduler(n)) throw new UsageError(`${n} is not a task-level scheduler (pigeon, eagle, sparrow); run it on its own`);
    const schedulers = names as TaskLevelSchedulerName[];
    const seed = int('seed', values.seed) ?? 1;
    const positive = (flag: string, v: string | undefined): number | undefined => {
      if (v === undefined) return undefined;
      if (!(Number(v) > 0)) throw new UsageError(`--${flag}: expected a number > 0, got ${v}`);
      return Number(v);
    };
    const { cutoffMs, notice } = cutoffMsFlag(positive('cutoff-ms', values['cutoff-ms']), positive('cutoff', values.cutoff));
    if (notice) process.stderr.write(`schedbrain simulate: ${notice}\n`);
    const paramsList = schedulers.map((s) => paramsFor(s, values.set ?? [], schedulers.length > 1));
    const workload = resolveWorkload(values.workload, { seed, maxJobs: int('jobs', values.jobs) });
    const nodes = int('nodes', values.nodes) ?? workload.cluster?.nodes ?? 4000;
    const cores = int('cores', values.cores) ?? workload.cluster?.cores ?? 1;
    const results = schedulers.map((scheduler, i) =>
      runTaskLevel({
        workload,
        scheduler,
        params: paramsList[i],
        workers: nodes * cores,
        seed,
        cutoffMs,
        perJob: values['per-job'],
      }),
    );
    if (values.json) {
      const out = results.length === 1 ? taskLevelJson(results[0]) : { runs: results.map(taskLevelJson) };
      process.stdout.write(`${JSON.stringify(out, jsonReplacer)}\n`);
    } else process.stdout.write(`${results.map(report).join('\n\n')}\n`);
    return results.some((r) => r.unfinished > 0) ? 1 : 0;
  } catch (e) {
    process.stderr.write(`schedbrain simulate: ${(e as Error).message}\n`);
    return e instanceof UsageError ? 2 : 1;
  }
}
