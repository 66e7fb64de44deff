/**
 * Pigeon's evaluation in the task-level simulator, as markdown tables on stdout:
 *
 * - Fig. 8, simulated part (§5): 120 one-slot workers, the scaled Google traces (the paper's
 *   EC2 sample) at 50 / 70 / 90 % load, short cutoff 1 s, 10 % of the workers reserved (Pigeon: 3 groups of 40
 *   with 4 reserved, W = ∞; Eagle: long partition 90 %), Sparrow with d = 2; short and long
 *   completion-time percentiles of Eagle and Sparrow over Pigeon's.
 * - With `--yahoo`: yahoo-sub-3363.tr on 3,000 and 4,000 workers with every default (§4 settings).
 *
 *   npx tsx scripts/reproduce-pigeon.ts [--traces ../shared/traces] [--seed 1] [--yahoo]
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadEagleTrace } from '../src/sim/workloads/eagle.js';
import { runTaskLevel, type TaskLevelResult, type TaskLevelSchedulerName } from '../src/sim/tasklevel/index.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { traces: { type: 'string', default: '../shared/traces' }, seed: { type: 'string', default: '1' }, yahoo: { type: 'boolean', default: false } },
});
const dir = values.traces;
const seed = Number(values.seed);
if (!Number.isInteger(seed)) throw new Error('--seed must be an integer');

const SCHEDULERS: readonly TaskLevelSchedulerName[] = ['pigeon', 'eagle', 'sparrow'];
/** §5: 3 groups of 40, 10 % of the workers reserved for short jobs in Pigeon and Eagle, W = ∞. */
const EC2_PARAMS: Record<TaskLevelSchedulerName, Record<string, unknown>> = {
  pigeon: { groupSize: 40, reservedPerGroup: 4 },
  eagle: { longPartitionPct: 90 },
  sparrow: {},
};

const f = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const pct = (r: TaskLevelResult, cls: 'short' | 'long'): string => `${f(r[cls].p50)} / ${f(r[cls].p90)} / ${f(r[cls].p99)}`;
const ratio = (r: TaskLevelResult, base: TaskLevelResult, cls: 'short' | 'long'): string =>
  `${f(r[cls].p50 / base[cls].p50)} / ${f(r[cls].p90 / base[cls].p90)} / ${f(r[cls].p99 / base[cls].p99)}`;

const out: string[] = [];
out.push(`Fig. 8, simulated part: 120 workers, cutoff 1 s, seed ${seed}. Completion time p50 / p90 / p99 (s), and over Pigeon's.`, '');
out.push('| trace | scheduler | short (s) | long (s) | short ÷ Pigeon | long ÷ Pigeon |', '|---|---|---|---|---|---|');
// The scaled Yahoo traces offer 1.4 to 2.5 times what 120 workers can run (their task-seconds over
// their span), so only the Google ones, which offer 50 / 70 / 90 %, are replayed.
for (const family of ['google']) {
  for (const load of [50, 70, 90]) {
    const path = join(dir, `${family}-scaled-load${load}.tr`);
    if (!existsSync(path)) {
      out.push(`| ${family} ${load} % | (no ${path}) | | | | |`);
      continue;
    }
    const workload = loadEagleTrace(path);
    const runs = SCHEDULERS.map((scheduler) => runTaskLevel({ workload, scheduler, params: EC2_PARAMS[scheduler], workers: 120, seed, cutoffMs: 1000 }));
    for (const r of runs)
      out.push(
        `| ${family} ${load} % | ${r.scheduler} | ${pct(r, 'short')} | ${pct(r, 'long')} | ${ratio(r, runs[0], 'short')} | ${ratio(r, runs[0], 'long')} |`,
      );
  }
}

if (values.yahoo) {
  const path = join(dir, 'yahoo-sub-3363.tr');
  const workload = loadEagleTrace(path);
  out.push('', `yahoo-sub-3363.tr, defaults (§4), seed ${seed}. Completion time (s).`, '');
  out.push(
    '| workers | scheduler | mean | zero queueing | short p50 / p90 / p99 | long mean | short slowdown p50 / p90 / p99 |',
    '|---|---|---|---|---|---|---|',
  );
  for (const workers of [3000, 4000]) {
    for (const scheduler of SCHEDULERS) {
      const r = runTaskLevel({ workload, scheduler, workers, seed });
      const s = r.short.slowdown;
      out.push(
        `| ${workers} | ${scheduler} | ${r.jct.mean.toFixed(1)} | ${(100 * r.zeroQueueingShare).toFixed(1)} % | ${pct(r, 'short')} | ${r.long.mean.toFixed(1)} | ${f(s.p50)} / ${f(s.p90)} / ${f(s.p99)} |`,
      );
    }
  }
}
process.stdout.write(`${out.join('\n')}\n`);
