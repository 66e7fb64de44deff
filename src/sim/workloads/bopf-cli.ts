/**
 * `schedbrain simulate --workload bopf-…`: the BoPF scenarios, with their own options.
 *
 *   schedbrain simulate --workload bopf-bb|bopf-tpcds|bopf-tpch|bopf-multi-lq --policy bopf[,drf,sp,nbopf]
 *       [--tqs N] [--lq-scale X] [--scale cluster|sim] [--bursts N] [--seed S]
 *       [--period-ms P] [--set key=value …] [--json] [--timeline]
 *
 * Always on the CapacityScheduler-like allocator; the policies get the scenario's queue
 * registrations (`queues` for bopf/nbopf, `latencyQueues` for sp) merged under `--set`.
 * JSON: `lq.meanCompletion`, `tq.meanCompletion` (seconds), `longTermShares` per queue, the
 * admission classes, and with `--timeline` the share-over-time series.
 */
import { buildParams } from '../params.js';
import { lookupPolicy } from '../simulate.js';
import { bopfMultiLqScenario, bopfScenario, type BopfBenchmark } from './bopf.js';
import { runBopfScenario, type BopfRunResult } from './bopf-run.js';

export function isBopfWorkload(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--workload') return (argv[i + 1] ?? '').startsWith('bopf-');
    if (argv[i].startsWith('--workload=')) return argv[i].slice(11).startsWith('bopf-');
  }
  return false;
}

const USAGE = `usage: schedbrain simulate --workload bopf-bb|bopf-tpcds|bopf-tpch|bopf-multi-lq --policy NAME[,NAME...]
  [--tqs N] [--lq-scale X] [--scale cluster|sim] [--bursts N] [--seed S] [--period-ms P] [--set key=value ...] [--json] [--timeline]`;

class Usage extends Error {}

export async function runBopfSimulate(argv: readonly string[]): Promise<number> {
  const o: { workload?: string; policies: string[]; tqs?: number; lqScale?: number; scale?: 'cluster' | 'sim'; bursts?: number; seed: number; periodMs?: number; sets: string[]; json: boolean; timeline: boolean } = {
    policies: [],
    seed: 1,
    sets: [],
    json: false,
    timeline: false,
  };
  try {
    for (let i = 0; i < argv.length; i++) {
      const raw = argv[i];
      const eq = raw.startsWith('--') ? raw.indexOf('=') : -1;
      const flag = eq > 0 ? raw.slice(0, eq) : raw;
      const val = (): string => {
        const v = eq > 0 ? raw.slice(eq + 1) : argv[++i];
        if (v === undefined) throw new Usage(`${flag} needs a value`);
        return v;
      };
      const num = (integer: boolean, min: number): number => {
        const v = val();
        const n = Number(v);
        if (v.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min) throw new Usage(`${flag}: expected ${integer ? 'an integer' : 'a number'} ≥ ${min}, got ${v}`);
        return n;
      };
      switch (flag) {
        case '--workload': o.workload = val(); break;
        case '--policy': o.policies.push(...val().split(',').map((s) => s.trim()).filter(Boolean)); break;
        case '--tqs': o.tqs = num(true, 0); break;
        case '--lq-scale': o.lqScale = num(false, Number.MIN_VALUE); break;
        case '--bursts': o.bursts = num(true, 1); break;
        case '--seed': o.seed = num(true, 0); break;
        case '--period-ms': o.periodMs = num(false, Number.MIN_VALUE); break;
        case '--scale': {
          const v = val();
          if (v !== 'cluster' && v !== 'sim') throw new Usage(`--scale: expected cluster or sim, got ${v}`);
          o.scale = v;
          break;
        }
        case '--set': o.sets.push(val()); break;
        case '--json': o.json = true; break;
        case '--timeline': o.timeline = true; break;
        case '-h':
        case '--help':
          process.stdout.write(`${USAGE}\n`);
          return 0;
        default: throw new Usage(`unknown argument ${raw}`);
      }
    }
    if (o.policies.length === 0) throw new Usage('--policy is required');
    const m = /^bopf-(bb|tpcds|tpch|multi-lq)$/.exec(o.workload ?? '');
    if (!m) throw new Usage(`unknown workload ${o.workload}: expected bopf-bb, bopf-tpcds, bopf-tpch or bopf-multi-lq`);
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
        throw new Usage((e as Error).message);
      }
      const sets = o.policies.length > 1 ? o.sets.filter((s) => s.startsWith(`${name}.`)).map((s) => s.slice(name.length + 1)) : o.sets;
      const params = buildParams(policy, sets);
      results.push(runBopfScenario(scenario, name, { seed: o.seed, params, ...(o.periodMs !== undefined ? { policyPeriodMs: o.periodMs } : {}) }));
    }
    const view = (r: BopfRunResult) => ({ ...r, tqs: scenario.tqQueues.length, lqScale: o.lqScale ?? 1, seed: o.seed, ...(o.timeline ? {} : { timeline: undefined }) });
    if (o.json) process.stdout.write(`${JSON.stringify(results.length === 1 ? view(results[0]) : { runs: results.map(view) })}\n`);
    else {
      for (const r of results) {
        process.stdout.write(
          [
            `${r.workload} under ${r.policy} (${scenario.tqQueues.length} TQs, LQ scale ${o.lqScale ?? 1}, seed ${o.seed})`,
            `  LQ jobs ${r.lq.jobs}: mean completion ${r.lq.meanCompletion.toFixed(1)} s; TQ jobs ${r.tq.jobs}: mean completion ${r.tq.meanCompletion.toFixed(1)} s${r.tq.unfinished ? ` (${r.tq.unfinished} unfinished)` : ''}`,
            `  long-term dominant share: ${Object.entries(r.longTermShares).map(([q, s]) => `${q} ${s.toFixed(3)}`).join(', ')}`,
            ...(r.admission ? [`  admission: ${Object.entries(r.admission).map(([q, c]) => `${q} ${c}`).join(', ')}`] : []),
            '',
          ].join('\n'),
        );
      }
    }
    return results.some((r) => r.tq.unfinished > 0) ? 1 : 0;
  } catch (e) {
    process.stderr.write(`schedbrain simulate: ${(e as Error).message}${e instanceof Usage ? `\n${USAGE}` : ''}\n`);
    return e instanceof Usage || (e as Error).constructor.name === 'UsageError' ? 2 : 1;
  }
}

