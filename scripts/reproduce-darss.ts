/**
 * Reproduces the DARSS thesis's evaluation (Fig. 4.1–4.8) in the simulator: DARSS, Rayon and
 * CapacityScheduler on the same generated workloads, for each trace, production share and seed.
 *
 *   npx tsx scripts/reproduce-darss.ts [--traces google2011,google2019] [--shares 20,15,10,5]
 *       [--seeds 11-20] [--jobs 1500] [--json FILE] [--from FILE,FILE]
 *
 * Prints a markdown table per trace (means over the seeds, and the worst seed where it matters):
 * production acceptance and deadlines met, best-effort jobs completed (and by the last arrival),
 * best-effort latency, and the share of best-effort jobs faster than under CapacityScheduler and
 * under Rayon (the thesis's paired comparison).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { getPolicy } from '../src/policies/index.js';
import { darssWorkloadFor, runDarss, type DarssOptions, type DarssRun } from '../src/sim/workloads/darss-cli.js';
import { fasterShare } from '../src/sim/workloads/darss-metrics.js';
import type { DarssTrace } from '../src/sim/workloads/darss.js';

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    traces: { type: 'string', default: 'google2011,google2019' },
    shares: { type: 'string', default: '20,15,10,5' },
    seeds: { type: 'string', default: '11-20' },
    jobs: { type: 'string', default: '1500' },
    json: { type: 'string' },
    /** Print the tables from rows saved with --json (comma-separated files) instead of running. */
    from: { type: 'string' },
  },
});
const range = (s: string): number[] => {
  const [a, b] = s.split('-').map(Number);
  return b === undefined ? s.split(',').map(Number) : Array.from({ length: b - a + 1 }, (_, i) => a + i);
};
const traces = args.traces.split(',') as DarssTrace[];
const shares = args.shares.split(',').map(Number);
const seeds = range(args.seeds);
const jobs = Number(args.jobs);
const log = (m: string) => process.stderr.write(`${m}\n`);

interface Row {
  trace: DarssTrace;
  share: number;
  seed: number;
  runs: Record<string, DarssRun>;
  fasterThanCapacity: Record<string, number>;
  fasterThanRayon: number;
}

const rows: Row[] = args.from ? args.from.split(',').flatMap((f) => JSON.parse(readFileSync(f, 'utf8')) as Row[]) : [];
for (const trace of args.from ? [] : traces) {
  for (const share of shares) {
    for (const seed of seeds) {
      const o: DarssOptions = { trace, seed, jobs, productionSharePct: share };
      const workload = darssWorkloadFor(o);
      const out: Record<string, ReturnType<typeof runDarss>> = {};
      for (const name of ['darss', 'rayon', 'capacity']) out[name] = runDarss(workload, getPolicy(name)!, {}, o);
      const row: Row = {
        trace,
        share,
        seed,
        runs: Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.run])),
        fasterThanCapacity: {
          darss: fasterShare(out.darss.result.records, out.capacity.result.records).share,
          rayon: fasterShare(out.rayon.result.records, out.capacity.result.records).share,
        },
        fasterThanRayon: fasterShare(out.darss.result.records, out.rayon.result.records).share,
      };
      rows.push(row);
      const d = row.runs.darss.production;
      log(
        `${trace} ${share}% seed ${seed}: darss accepted ${d.accepted}/${d.submitted}, missed ${d.missedDeadline}; rayon accepted ${row.runs.rayon.production.accepted}, missed ${row.runs.rayon.production.missedDeadline}; capacity missed ${row.runs.capacity.production.missedDeadline}`,
      );
    }
  }
}
if (args.json) writeFileSync(args.json, JSON.stringify(rows, null, 1));

if (args.from) {
  seeds.length = 0;
  seeds.push(...[...new Set(rows.map((r) => r.seed))].sort((a, b) => a - b));
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
for (const trace of traces) {
  console.log(`\n**${trace}** (${seeds.length} seeds: ${seeds.join(', ')}; ${jobs} arrivals each)\n`);
  console.log(
    '| production share | policy | accepted | met deadline (of accepted) | worst seed met | accepted ≥ Rayon on every seed | BE completed by last arrival | BE mean latency (s) | BE p99 (s) | BE faster than CapacityScheduler | BE faster than Rayon |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const share of shares) {
    const rs = rows.filter((r) => r.trace === trace && r.share === share);
    for (const name of ['darss', 'rayon', 'capacity']) {
      const runs = rs.map((r) => r.runs[name]);
      const acc = mean(runs.map((r) => r.production.acceptanceRate));
      const met = mean(runs.map((r) => r.production.metDeadlineRate));
      const worst = Math.min(...runs.map((r) => r.production.metDeadlineRate));
      const geRayon = name === 'darss' ? (rs.every((r) => r.runs.darss.production.accepted >= r.runs.rayon.production.accepted) ? 'yes' : 'no') : '';
      const done = mean(runs.map((r) => r.bestEffort.completedByLastArrival));
      const lat = mean(runs.map((r) => r.bestEffort.meanLatency));
      const p99 = mean(runs.map((r) => r.bestEffort.p99Latency));
      const fc = name === 'capacity' ? '' : pct(mean(rs.map((r) => r.fasterThanCapacity[name])));
      const fr = name === 'darss' ? pct(mean(rs.map((r) => r.fasterThanRayon))) : '';
      console.log(
        `| ${share} % | ${name} | ${pct(acc)} | ${pct(met)} | ${pct(worst)} | ${geRayon} | ${done.toFixed(0)} | ${lat.toFixed(0)} | ${p99.toFixed(0)} | ${fc} | ${fr} |`,
      );
    }
  }
}
