/**
 * `schedbrain simulate --workload bopf-…`: the BoPF scenarios, with their own options.
 *
 *   schedbrain simulate --workload bopf-bb|bopf-tpcds|bopf-tpch|bopf-multi-lq --policy bopf[,drf,sp,nbopf]
 *       [--tqs N] [--lq-scale X] [--scale cluster|sim] [--bursts N] [--seed S]
 *       [--period-ms P] [--set key=value …] [--json] [--timeline]
 *
 * Always on the CapacityScheduler-like allocator; the policies get the scenario's queue
 * registrations (`queues` for bopf/nbopf, `latencyQueues` for sp) merged under `--set`.
 * JSON: `lq.meanCompletionMs`, `tq.meanCompletionMs`, `longTermShares` per queue, the admission
 * classes, and with `--timeline` the share-over-time series (`timeline.tMs`); durations in ms.
 */
import { secondsToMs } from '../json-ms.js';
import { buildParams, readFlags, UsageError, type FlagSpec } from '../params.js';
import { lookupPolicy } from '../simulate.js';
import { bopfMultiLqScenario, bopfScenario, type BopfBenchmark } from './bopf.js';
import { runBopfScenario, type BopfRunResult } from './bopf-run.js';

/** A BoPF run as JSON: completion times, the timeline's instants, makespan, lost work and wall time in ms. */
export function bopfJson(r: BopfRunResult): Record<string, unknown> {
  const { lq, tq, timeline, makespanS, wallSeconds, preemption, ...rest } = r;
  const { meanCompletion, completions, byQueue, ...lqRest } = lq;
  const { meanCompletion: tqMean, ...tqRest } = tq;
  const { lostContainerSeconds, ...pre } = preemption ?? { lostContainerSeconds: 0 };
  return {
    ...rest,
    lq: {
      ...lqRest,
      meanCompletionMs: secondsToMs(meanCompletion),
      completionsMs: completions.map(secondsToMs),
      byQueue: Object.fromEntries(Object.entries(byQueue).map(([q, x]) => [q, { meanCompletionMs: secondsToMs(x.meanCompletion), jobs: x.jobs }])),
    },
    tq: { ...tqRest, meanCompletionMs: secondsToMs(tqMean) },
    ...(timeline ? { timeline: { tMs: timeline.tS.map(secondsToMs), shares: timeline.shares } } : {}),
    makespanMs: secondsToMs(makespanS),
    wallMs: secondsToMs(wallSeconds),
    ...(preemption ? { preemption: { ...pre, lostContainerMs: secondsToMs(lostContainerSeconds) } } : {}),
  };
}

export function isBopfWorkload(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--workload') return (argv[i + 1] ?? '').startsWith('bopf-');
    if (argv[i].startsWith('--workload=')) return argv[i].slice(11).startsWith('bopf-');
  }
  return false;
}

const USAGE = `usage: schedbrain simulate --workload bopf-bb|bopf-tpcds|bopf-tpch|bopf-multi-lq --policy NAME[,NAME...]
  [--tqs N] [--lq-scale X] [--scale cluster|sim] [--bursts N] [--seed S] [--period-ms P] [--set key=value ...] [--json] [--timeline]`;

const BOPF_FLAGS = {
  workload: { type: 'string' },
  policy: { type: 'list' },
  tqs: { type: 'number', integer: true, min: 0 },
  'lq-scale': { type: 'number', min: Number.MIN_VALUE },
  scale: { type: 'choice', values: ['cluster', 'sim'] },
  bursts: { type: 'number', integer: true, min: 1 },
  seed: { type: 'number', integer: true, min: 0 },
  'period-ms': { type: 'number', min: Number.MIN_VALUE },
  set: { type: 'repeat' },
  json: { type: 'bool' },
  timeline: { type: 'bool' },
} as const satisfies Record<string, FlagSpec>;

export async function runBopfSimulate(argv: readonly string[]): Promise<number> {
  const o: {
    workload?: string;
    policies: string[];
    tqs?: number;
    lqScale?: number;
    scale?: 'cluster' | 'sim';
    bursts?: number;
    seed: number;
    periodMs?: number;
    sets: string[];
    json: boolean;
    timeline: boolean;
  } = {
    policies: [],
    seed: 1,
    sets: [],
    json: false,
    timeline: false,
  };
  try {
    const { values: v, help } = readFlags(argv, BOPF_FLAGS);
    if (help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    o.workload = v.workload as string | undefined;
    o.policies = (v.policy as string[] | undefined) ?? [];
    o.tqs = v.tqs as number | undefined;
    o.lqScale = v['lq-scale'] as number | undefined;
    o.scale = v.scale as 'cluster' | 'sim' | undefined;
    o.bursts = v.bursts as number | undefined;
    o.seed = (v.seed as number | undefined) ?? 1;
    o.periodMs = v['period-ms'] as number | undefined;
    o.sets = (v.set as string[] | undefined) ?? [];
    o.json = v.json === true;
    o.timeline = v.timeline === true;
    if (o.policies.length === 0) throw new UsageError('--policy is required');
    const m = /^bopf-(bb|tpcds|tpch|multi-lq)$/.exec(o.workload ?? '');
    if (!m) throw new UsageError(`unknown workload ${o.workload}: expected bopf-bb, bopf-tpcds, bopf-tpch or bopf-multi-lq`);
    const scenario =
      m[1] === 'multi-lq'
        ? bopfMultiLqScenario({ seed: o.seed })
        : bopfScenario({ benchmark: m[1] as BopfBenchmark, tqs: o.tqs, lqScale: o.lqScale, scale: o.scale, lqBursts: o.bursts, seed: o.seed });
    const results: BopfRunResult[] = [];
    for (const name of o.policies) {
      let policy;
      try {
        policy = lookupPolicy(name);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      const sets = o.policies.length > 1 ? o.sets.filter((s) => s.startsWith(`${name}.`)).map((s) => s.slice(name.length + 1)) : o.sets;
      const params = buildParams(policy, sets);
      results.push(runBopfScenario(scenario, name, { seed: o.seed, params, ...(o.periodMs !== undefined ? { policyPeriodMs: o.periodMs } : {}) }));
    }
    const view = (r: BopfRunResult) => ({
      ...bopfJson(r),
      tqs: scenario.tqQueues.length,
      lqScale: o.lqScale ?? 1,
      seed: o.seed,
      ...(o.timeline ? {} : { timeline: undefined }),
    });
    if (o.json) process.stdout.write(`${JSON.stringify(results.length === 1 ? view(results[0]) : { runs: results.map(view) })}\n`);
    else {
      for (const r of results) {
        process.stdout.write(
          [
            `${r.workload} under ${r.policy} (${scenario.tqQueues.length} TQs, LQ scale ${o.lqScale ?? 1}, seed ${o.seed})`,
            `  LQ jobs ${r.lq.jobs}: mean completion ${r.lq.meanCompletion.toFixed(1)} s; TQ jobs ${r.tq.jobs}: mean completion ${r.tq.meanCompletion.toFixed(1)} s${r.tq.unfinished ? ` (${r.tq.unfinished} unfinished)` : ''}`,
            `  long-term dominant share: ${Object.entries(r.longTermShares)
              .map(([q, s]) => `${q} ${s.toFixed(3)}`)
              .join(', ')}`,
            ...(r.admission
              ? [
                  `  admission: ${Object.entries(r.admission)
                    .map(([q, c]) => `${q} ${c}`)
                    .join(', ')}`,
                ]
              : []),
            '',
          ].join('\n'),
        );
      }
    }
    return results.some((r) => r.tq.unfinished > 0) ? 1 : 0;
  } catch (e) {
    process.stderr.write(`schedbrain simulate: ${(e as Error).message}${e instanceof UsageError ? `\n${USAGE}` : ''}\n`);
    return e instanceof UsageError ? 2 : 1;
  }
}
