/**
 * Reproduces 3Sigma's simulated evaluation (EuroSys'18 Fig. 7, 8, 10, 11) on the `3sigma-e2e`
 * workload: the paper's systems and ablations, each a set of `threesigma` parameters, on the same
 * generated workload per seed.
 *
 *   npx tsx scripts/reproduce-3sigma.ts [--figs 7,8,10,11] [--seeds 4-13] [--nodes 256] [--duration-ms 18000000]
 *       [--period-ms 60000] [--slacks 20,60,100,140,180] [--loads 1.0,1.2,1.4,1.6] [--samples 5,10,25,50,100]
 *       [--systems 3sigma,prio,...] [--json FILE] [--from FILE,FILE] [--no-hold]
 *
 * Fig. 7: 3Sigma, PointPerfEst, PointRealEst, Prio on the default E2E (slack 20–80 %, load 1.4).
 * Fig. 8: constant slack, with the ablations NoDist, NoOE, NoAdapt. Fig. 10: load. Fig. 11: history
 * samples per job template. Prints one markdown table per figure: per x and system, the mean over
 * the seeds of the SLO miss rate, goodput (machine-hours) and mean best-effort latency (s).
 * `--systems` runs only those of each figure's systems (variant names, as `--policy` takes them).
 * `--duration-ms` is the arrival window (`--hours` is deprecated: converted, with a notice; both
 * given is an error). `--json FILE` saves every run as it ends (a cut-short reproduction keeps what it did). The plan's
 * variants hold jobs in a hold queue until the plan starts them (`runE2E`); `--no-hold` applies
 * their plans as priorities only (the reproduction before equivalence sets).
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { secondsToMs } from '../src/sim/json-ms.js';
import { threeSigmaE2EWorkload, type ThreeSigmaE2EOptions } from '../src/sim/workloads/threesigma.js';
import { runE2E, type E2EMetrics, type ThreeSigmaVariant } from '../src/sim/workloads/threesigma-run.js';

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    figs: { type: 'string', default: '7,8,10,11' },
    seeds: { type: 'string', default: '4-13' },
    nodes: { type: 'string', default: '256' },
    'duration-ms': { type: 'string' },
    /** Deprecated: hours (`--duration-ms`). */
    hours: { type: 'string' },
    'period-ms': { type: 'string', default: '60000' },
    slacks: { type: 'string', default: '20,40,60,80,100,120,140,160,180' },
    loads: { type: 'string', default: '1.0,1.2,1.4,1.6' },
    samples: { type: 'string', default: '5,10,25,50,75,100' },
    json: { type: 'string' },
    from: { type: 'string' },
    'no-hold': { type: 'boolean', default: false },
    systems: { type: 'string' },
  },
});
const range = (s: string): number[] => {
  const [a, b] = s.split('-').map(Number);
  return b === undefined ? s.split(',').map(Number) : Array.from({ length: b - a + 1 }, (_, i) => a + i);
};
const numbers = (s: string): number[] => s.split(',').map(Number);
const log = (m: string) => process.stderr.write(`${m}\n`);

const SYSTEMS: ThreeSigmaVariant[] = ['3sigma', 'point-perfect', 'point-real', 'prio'];
const ABLATIONS: ThreeSigmaVariant[] = ['3sigma', 'point-perfect', 'point-real', 'no-dist', 'no-oe', 'no-adapt'];
const LABEL: Record<ThreeSigmaVariant, string> = {
  '3sigma': '3Sigma',
  'point-perfect': 'PointPerfEst',
  'point-real': 'PointRealEst',
  prio: 'Prio',
  'no-dist': '3SigmaNoDist',
  'no-oe': '3SigmaNoOE',
  'no-adapt': '3SigmaNoAdapt',
};

interface Row {
  fig: number;
  /** The figure's x: slack %, load or samples (Fig. 7: 0). */
  x: number;
  seed: number;
  nodes: number;
  /** The arrival window, ms. */
  durationMs: number;
  m: E2EMetrics;
}

const HOUR_MS = 3_600_000;
/** Metrics saved before they were in ms: best-effort latencies in seconds, `wallSeconds`. */
type SecondsMetrics = Omit<E2EMetrics, 'bestEffort' | 'wallMs'> & {
  bestEffort: { jobs: number; meanLatency: number; p50Latency: number; p99Latency: number };
  wallSeconds: number;
};
/** A saved row; files written before `durationMs` have the window in `hours` and metrics in seconds. */
type SavedRow = Omit<Row, 'durationMs' | 'm'> & { durationMs?: number; hours?: number; m: E2EMetrics | SecondsMetrics };
const savedMetrics = (m: E2EMetrics | SecondsMetrics): E2EMetrics => {
  if (!('wallSeconds' in m)) return m;
  const { bestEffort: b, wallSeconds, ...rest } = m;
  const ms = secondsToMs;
  return {
    ...rest,
    bestEffort: { jobs: b.jobs, meanLatencyMs: ms(b.meanLatency), p50LatencyMs: ms(b.p50Latency), p99LatencyMs: ms(b.p99Latency) },
    wallMs: ms(wallSeconds),
  };
};
const savedRow = ({ hours, m, ...r }: SavedRow): Row => ({ ...r, durationMs: r.durationMs ?? (hours as number) * HOUR_MS, m: savedMetrics(m) });

interface Experiment {
  fig: number;
  xs: number[];
  variants: ThreeSigmaVariant[];
  options: (x: number) => Partial<ThreeSigmaE2EOptions>;
}

const nodes = Number(args.nodes);
const durationMs = ((): number => {
  if (args.hours === undefined) return Number(args['duration-ms'] ?? 5 * HOUR_MS);
  if (args['duration-ms'] !== undefined) {
    log('--hours is replaced by --duration-ms, which is given too: give only --duration-ms');
    process.exit(2);
  }
  log(`--hours is deprecated: read as --duration-ms ${Number(args.hours) * HOUR_MS}; use --duration-ms`);
  return Number(args.hours) * HOUR_MS;
})();
const periodMs = Number(args['period-ms']);
const onlySystems = args.systems?.split(',');
const unknownSystem = onlySystems?.find((v) => !(v in LABEL));
if (unknownSystem !== undefined) {
  log(`--systems: unknown system '${unknownSystem}'; known: ${Object.keys(LABEL).join(', ')}`);
  process.exit(2);
}
const chosen = (variants: ThreeSigmaVariant[]): ThreeSigmaVariant[] => (onlySystems ? variants.filter((v) => onlySystems.includes(v)) : variants);
const experiments: Experiment[] = [
  { fig: 7, xs: [0], variants: SYSTEMS, options: () => ({}) },
  { fig: 8, xs: numbers(args.slacks), variants: ABLATIONS, options: (x) => ({ slackPct: [x] }) },
  { fig: 10, xs: numbers(args.loads), variants: SYSTEMS, options: (x) => ({ load: x }) },
  { fig: 11, xs: numbers(args.samples), variants: ['3sigma', 'point-perfect', 'point-real'], options: (x) => ({ samples: x }) },
];

const rows: Row[] = args.from ? args.from.split(',').flatMap((f) => (JSON.parse(readFileSync(f, 'utf8')) as SavedRow[]).map(savedRow)) : [];
if (!args.from) {
  if (args.json) writeFileSync(args.json, '[\n');
  let first = true;
  const figs = new Set(numbers(args.figs));
  for (const seed of range(args.seeds)) {
    for (const e of experiments.filter((x) => figs.has(x.fig))) {
      for (const x of e.xs) {
        const e2e = threeSigmaE2EWorkload({ seed, nodes, durationMs, ...e.options(x) });
        for (const v of chosen(e.variants)) {
          const m = runE2E(e2e, v, { seed, periodMs, holdQueue: !args['no-hold'] });
          const row: Row = { fig: e.fig, x, seed, nodes, durationMs, m };
          rows.push(row);
          if (args.json) {
            appendFileSync(args.json, `${first ? '' : ',\n'}${JSON.stringify(row)}`);
            first = false;
          }
          log(
            `fig ${e.fig} x=${x} seed ${seed} ${v}: miss ${(100 * m.slo.missRate).toFixed(1)} %, goodput ${m.goodputMachineHours.toFixed(1)} M-h, BE ${(m.bestEffort.meanLatencyMs / 1000).toFixed(0)} s, ${(m.wallMs / 1000).toFixed(0)} s`,
          );
        }
      }
    }
  }
  if (args.json) appendFileSync(args.json, '\n]\n');
}

const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const XNAME: Record<number, string> = { 7: '', 8: 'slack (%)', 10: 'load', 11: 'samples' };

for (const e of experiments) {
  const mine = rows.filter((r) => r.fig === e.fig);
  if (mine.length === 0) continue;
  const variants = e.variants.filter((v) => mine.some((r) => r.m.variant === v));
  const seeds = [...new Set(mine.map((r) => r.seed))].sort((a, b) => a - b);
  process.stdout.write(
    `\n### Fig. ${e.fig} (${mine[0].nodes} nodes, ${mine[0].durationMs / HOUR_MS} h, seeds ${seeds.join(', ')}): SLO miss % / goodput M-h / BE latency s\n\n`,
  );
  const head = e.fig === 7 ? ['metric', ...variants.map((v) => LABEL[v])] : [XNAME[e.fig], ...variants.map((v) => LABEL[v])];
  process.stdout.write(`| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|\n`);
  const xs = [...new Set(mine.map((r) => r.x))].sort((a, b) => a - b);
  for (const x of xs) {
    const cell = (v: ThreeSigmaVariant) => {
      const rs = mine.filter((r) => r.x === x && r.m.variant === v).map((r) => r.m);
      if (rs.length === 0) return '–';
      return `${(100 * mean(rs.map((m) => m.slo.missRate))).toFixed(1)} / ${mean(rs.map((m) => m.goodputMachineHours)).toFixed(1)} / ${(mean(rs.map((m) => m.bestEffort.meanLatencyMs)) / 1000).toFixed(0)}`;
    };
    process.stdout.write(`| ${e.fig === 7 ? 'miss / goodput / BE' : x} | ${variants.map(cell).join(' | ')} |\n`);
  }
  const cyc = mine.filter((r) => r.m.variant === '3sigma').map((r) => r.m);
  if (cyc.length)
    process.stdout.write(
      `\n3Sigma cycles: p50 ${mean(cyc.map((m) => m.cycle.p50Ms)).toFixed(0)} ms, p99 ${mean(cyc.map((m) => m.cycle.p99Ms)).toFixed(0)} ms (means over runs); MILP columns p50 ${mean(cyc.map((m) => m.milp.columnsP50)).toFixed(0)}, max ${Math.max(...cyc.map((m) => m.milp.columnsMax))}\n`,
    );
}
