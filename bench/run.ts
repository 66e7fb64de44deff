/**
 * Simulator benchmark: replays the Yahoo excerpt used by Eagle/Kairos/Pigeon
 * (../shared/traces/yahoo-sub-3363.tr: 3,363 jobs, 137,029 one-core tasks) on 4,000 one-core
 * nodes with each registered baseline policy (fifo, kairos), and writes docs/benchmarks.md.
 *
 *   npm run bench                      # 3 timed runs per policy after a warm-up
 *   npm run bench -- --runs 5 --no-write --policies fifo
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { getPolicy } from '../src/policies/index.js';
import { loadEagleTrace } from '../src/sim/workloads/eagle.js';
import { simulate, type SimulateResult } from '../src/sim/simulate.js';

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const runs = Number(opt('--runs') ?? 3);
const write = !argv.includes('--no-write');
const trace = opt('--trace') ?? fileURLToPath(new URL('../../shared/traces/yahoo-sub-3363.tr', import.meta.url));
const nodes = Number(opt('--nodes') ?? 4000);
const wanted = (opt('--policies') ?? 'fifo,kairos').split(',');
const policies = wanted.filter((p) => getPolicy(p));

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

interface Row {
  policy: string;
  wall: number[];
  cpu: number[];
  result: SimulateResult;
}

const load0 = os.loadavg()[0];
const t0 = performance.now();
const workload = loadEagleTrace(trace);
const loadS = (performance.now() - t0) / 1000;
let tasks = 0;
for (const j of workload.jobs) tasks += j.stages[0].workMs.length;
console.error(`${workload.name}: ${workload.jobs.length} jobs, ${tasks} tasks, parsed in ${loadS.toFixed(3)} s; ${nodes} one-core nodes`);

const rows: Row[] = [];
for (const policy of policies) {
  simulate({ workload, policy, nodes, cores: 1 }); // warm-up (JIT)
  const row: Row = { policy, wall: [], cpu: [], result: undefined as unknown as SimulateResult };
  for (let i = 0; i < runs; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    const c0 = process.cpuUsage();
    const r = simulate({ workload, policy, nodes, cores: 1 });
    const c = process.cpuUsage(c0);
    row.wall.push(r.wallSeconds);
    row.cpu.push((c.user + c.system) / 1e6);
    row.result = r;
  }
  rows.push(row);
  const r = row.result;
  console.error(
    `${policy}: wall median ${median(row.wall).toFixed(3)} s (runs ${row.wall.map((w) => w.toFixed(3)).join(', ')}), CPU ${median(row.cpu).toFixed(3)} s, ` +
      `${r.events} events, ${Math.round(r.events / median(row.wall))} events/s; ${r.jobs} jobs finished, mean JCT ${r.jct.mean.toFixed(1)} s`,
  );
}
const load1 = os.loadavg()[0];

const cpus = os.cpus();
const machine = `${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
const f3 = (x: number): string => x.toFixed(3);
const f1 = (x: number): string => x.toFixed(1);
const table = rows
  .map((row) => {
    const r = row.result;
    const wall = median(row.wall);
    return `| ${row.policy} | ${f3(wall)} | ${f3(Math.min(...row.wall))}–${f3(Math.max(...row.wall))} | ${f3(median(row.cpu))} | ${r.events.toLocaleString('en-US')} | ${Math.round(r.events / wall).toLocaleString('en-US')} | ${r.decisionCycles.toLocaleString('en-US')} | ${r.jobs} | ${f1(r.jct.mean)} | ${f1(r.jct.p50)} | ${f1(r.jct.p99)} | ${f1(r.short.mean)} | ${f1(r.long.mean)} |`;
  })
  .join('\n');

const md = `# Simulator benchmark

Replay of \`yahoo-sub-3363.tr\` (${workload.jobs.length.toLocaleString('en-US')} jobs, ${tasks.toLocaleString('en-US')} one-core tasks, the Yahoo
excerpt used by Eagle/Kairos/Pigeon) on ${nodes.toLocaleString('en-US')} one-core nodes, event-driven policy calls, no decision delay.

Command: \`npm run bench\` (\`tsx bench/run.ts\`; options \`--runs N\`, \`--policies fifo,kairos\`, \`--no-write\`).

Machine: ${machine}. The 2 cores are shared with other work: the load average was ${load0.toFixed(1)} at the
start of the run and ${load1.toFixed(1)} at the end, so wall times are inflated by CPU contention; the CPU
column (user + system time of this process, including garbage collection threads) is the steadier
figure. Trace parsing (${f3(loadS)} s) is not included.

Median of ${runs} timed runs after one warm-up run per policy:

| policy | wall (s) | wall range (s) | CPU (s) | events | events/s | policy calls | jobs finished | mean JCT (s) | p50 JCT (s) | p99 JCT (s) | short mean (s) | long mean (s) |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
${table}

Short/long split: mean task duration against the Yahoo cutoff of 90.5811 s.

For scale: the Pigeon authors' C++ simulator needs about 7 s for this trace.

Generated ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`bench/run.ts\`.
`;
if (write) {
  writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), md);
  console.error('wrote docs/benchmarks.md');
} else process.stdout.write(md);
