/**
 * `schedbrain simulate --workload darss-…`: the DARSS evaluation (thesis §4.2), with its options.
 *
 *   schedbrain simulate --workload darss-google2011|darss-google2019 --policy darss[,rayon,capacity]
 *       [--seed S] [--jobs N] [--production-share PCT] [--load X] [--groups G]
 *       [--compare POLICY] [--period-ms P] [--set key=value …] [--json]
 *
 * Every policy runs on the CapacityScheduler-like allocator with the workload's queues (two per
 * group); a policy whose parameters take `requests` gets the workload's workflow requests.
 * JSON: `production.{accepted,acceptanceRate,metDeadlineRate,missedDeadline,…}` and
 * `bestEffort.{completed,meanLatencyMs,p50LatencyMs,p99LatencyMs}`, `wallMs`; with `--compare P`,
 * `bestEffort.fasterThan`: the share of best-effort jobs that finished sooner than under P.
 */
import { z } from 'zod';
import type { AnyPolicy } from '../../core/policy.js';
import { createCapacityAllocator } from '../capacity-allocator.js';
import { secondsToMs } from '../json-ms.js';
import { buildParams, readFlags, UsageError, type FlagSpec } from '../params.js';
import { lookupPolicy, simulate, type SimulateResult } from '../simulate.js';
import type { Workload } from '../workload.js';
import { DARSS_TRACES, darssWorkload, type DarssTrace } from './darss.js';
import { darssMetrics, fasterShare, type DarssMetrics } from './darss-metrics.js';

export function isDarssWorkload(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--workload') return (argv[i + 1] ?? '').startsWith('darss-');
    if (argv[i].startsWith('--workload=')) return argv[i].slice(11).startsWith('darss-');
  }
  return false;
}

const USAGE = `usage: schedbrain simulate --workload darss-google2011|darss-google2019 --policy NAME[,NAME...]
  [--seed S] [--jobs N] [--production-share PCT] [--load X] [--groups G] [--compare POLICY]
  [--period-ms P] [--set key=value ...] [--json]`;

const DARSS_FLAGS = {
  workload: { type: 'string' },
  policy: { type: 'list' },
  seed: { type: 'number', integer: true, min: 0 },
  jobs: { type: 'number', integer: true, min: 1 },
  'production-share': { type: 'number', min: 0 },
  load: { type: 'number', min: Number.MIN_VALUE },
  groups: { type: 'number', integer: true, min: 1 },
  compare: { type: 'string' },
  'period-ms': { type: 'number', min: Number.MIN_VALUE },
  set: { type: 'repeat' },
  json: { type: 'bool' },
} as const satisfies Record<string, FlagSpec>;

export interface DarssOptions {
  readonly trace: DarssTrace;
  readonly seed?: number;
  readonly jobs?: number;
  readonly productionSharePct?: number;
  readonly load?: number;
  readonly groups?: number;
  readonly periodMs?: number;
}

export interface DarssRun extends DarssMetrics {
  readonly workload: string;
  readonly policy: string;
  readonly seed: number;
  readonly productionSharePct: number;
  readonly jobs: number;
  readonly unfinished: number;
  readonly wallSeconds: number;
}

function takesRequests(p: AnyPolicy): boolean {
  let s: z.ZodTypeAny = p.paramsSchema as z.ZodTypeAny;
  while (s instanceof z.ZodEffects || s instanceof z.ZodDefault || s instanceof z.ZodOptional) s = s instanceof z.ZodEffects ? s.innerType() : s._def.innerType;
  return s instanceof z.ZodObject && 'requests' in s.shape;
}

/** One run of a DARSS workload under a policy: the simulator's result and the DARSS metrics. */
export function runDarss(workload: Workload, policy: AnyPolicy, params: Record<string, unknown>, o: DarssOptions): { result: SimulateResult; run: DarssRun } {
  const result = simulate({
    workload,
    policy,
    params: takesRequests(policy) ? { requests: workload.requests ?? [], ...params } : params,
    seed: o.seed ?? 1,
    allocator: createCapacityAllocator,
    periodMs: o.periodMs,
  });
  const m = darssMetrics(result.records);
  return {
    result,
    run: {
      workload: workload.name,
      policy: policy.name,
      seed: o.seed ?? 1,
      productionSharePct: o.productionSharePct ?? 20,
      jobs: workload.jobs.length,
      unfinished: result.unfinished,
      wallSeconds: result.wallSeconds,
      ...m,
    },
  };
}

export function darssWorkloadFor(o: DarssOptions): Workload {
  return darssWorkload(o.trace, { seed: o.seed, jobs: o.jobs, productionSharePct: o.productionSharePct, load: o.load, groups: o.groups });
}

/** A DARSS run as JSON: best-effort latencies and wall time in ms. */
export function darssJson<R extends DarssRun>(r: R): Record<string, unknown> {
  const { bestEffort: b, wallSeconds, ...rest } = r;
  const { meanLatency, p50Latency, p99Latency, ...be } = b;
  return {
    ...rest,
    bestEffort: { ...be, meanLatencyMs: secondsToMs(meanLatency), p50LatencyMs: secondsToMs(p50Latency), p99LatencyMs: secondsToMs(p99Latency) },
    wallMs: secondsToMs(wallSeconds),
  };
}

const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '-');
const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

function human(r: DarssRun & { bestEffort: DarssMetrics['bestEffort'] & { fasterThan?: { policy: string; share: number } } }): string {
  const p = r.production;
  const b = r.bestEffort;
  return [
    `${r.workload} under ${r.policy} (seed ${r.seed}, production ${r.productionSharePct} % of ${r.jobs} jobs)`,
    `  production workflows: ${p.submitted} submitted, ${p.accepted} accepted (${pct(p.acceptanceRate)}), ${p.metDeadline} met their deadline (${pct(p.metDeadlineRate)} of accepted), ${p.missedDeadline} missed`,
    `  best-effort jobs: ${b.completed} completed (${b.completedByLastArrival} by the last arrival); latency mean ${f1(b.meanLatency)} s, p50 ${f1(b.p50Latency)} s, p99 ${f1(b.p99Latency)} s`,
    ...(b.fasterThan ? [`  best-effort jobs faster than under ${b.fasterThan.policy}: ${pct(b.fasterThan.share)}`] : []),
  ].join('\n');
}

export async function runDarssSimulate(argv: readonly string[]): Promise<number> {
  const o: {
    workload?: string;
    policies: string[];
    seed: number;
    jobs?: number;
    share?: number;
    load?: number;
    groups?: number;
    compare?: string;
    periodMs?: number;
    sets: string[];
    json: boolean;
  } = { policies: [], seed: 1, sets: [], json: false };
  try {
    const { values: v, help } = readFlags(argv, DARSS_FLAGS);
    if (help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    o.workload = v.workload as string | undefined;
    o.policies = (v.policy as string[] | undefined) ?? [];
    o.seed = (v.seed as number | undefined) ?? 1;
    o.jobs = v.jobs as number | undefined;
    o.share = v['production-share'] as number | undefined;
    o.load = v.load as number | undefined;
    o.groups = v.groups as number | undefined;
    o.compare = v.compare as string | undefined;
    o.periodMs = v['period-ms'] as number | undefined;
    o.sets = (v.set as string[] | undefined) ?? [];
    o.json = v.json === true;
    const trace = o.workload?.slice('darss-'.length) as DarssTrace;
    if (!DARSS_TRACES.includes(trace)) throw new UsageError(`unknown workload ${o.workload}: expected ${DARSS_TRACES.map((t) => `darss-${t}`).join(' or ')}`);
    if (o.share !== undefined && o.share > 100) throw new UsageError('--production-share: a percentage, 0–100');
    if (o.policies.length === 0) throw new UsageError('--policy is required');
    const policies = o.policies.map((name) => {
      try {
        return lookupPolicy(name);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
    });
    const compare = o.compare !== undefined ? lookupPolicy(o.compare) : undefined;
    const params = policies.map((p) =>
      buildParams(p, policies.length > 1 ? o.sets.filter((s) => s.startsWith(`${p.name}.`)).map((s) => s.slice(p.name.length + 1)) : o.sets),
    );
    const opts: DarssOptions = { trace, seed: o.seed, jobs: o.jobs, productionSharePct: o.share, load: o.load, groups: o.groups, periodMs: o.periodMs };
    const workload = darssWorkloadFor(opts);
    const results = policies.map((p, i) => runDarss(workload, p, params[i], opts));
    const baseline = compare ? (results.find((r) => r.run.policy === compare.name) ?? runDarss(workload, compare, {}, opts)) : undefined;
    const runs = results.map(({ result, run }) =>
      baseline
        ? { ...run, bestEffort: { ...run.bestEffort, fasterThan: { policy: baseline.run.policy, ...fasterShare(result.records, baseline.result.records) } } }
        : run,
    );
    if (o.json) process.stdout.write(`${JSON.stringify(runs.length === 1 ? darssJson(runs[0]) : { runs: runs.map(darssJson) })}\n`);
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
