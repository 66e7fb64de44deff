/**
 * DARSS scheduling overhead on the thesis's cluster (Table 4.4: 300 nodes, 1,905 units):
 * - one admission against a ledger holding 10,000 pending workflows over 30 days (what one API
 *   request costs then; each is judged by `judgeRequest`, which the admin API and every cycle call);
 * - filling that ledger: the 10,000 admissions one after another;
 * - one policy cycle over 1,000 admitted production applications with 100,000 ready tasks.
 *
 *   npx tsx bench/darss.ts [--runs 5] [--write]     # or: npm run bench -- --darss [--runs 5] [--write]
 *   --write replaces `## DARSS` in docs/benchmarks.md
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { AppView, NodeView, QueueView } from '../src/core/model.js';
import { JOB_TAG, REQUEST_TAG } from '../src/core/rsl.js';
import { buildSnapshot } from '../src/core/snapshot.js';
import { cpuMs, median, writeBenchSection } from './measure.js';
import { darssPolicy, judgeRequest, type DarssParams, type DarssRequest, type DarssState } from '../src/policies/darss/index.js';

export async function runDarssBench(argv: string[]): Promise<void> {
  const { values: args } = parseArgs({ args: argv, options: { runs: { type: 'string' }, write: { type: 'boolean', default: false } } });
  const runs = Number(args.runs || 5) || 5;
  const N = 10_000;
  const DAY_MS = 86_400_000;
  const NOW = 1_000_000;
  const UNITS = 1905;
  const NODES = 300;

  const params: DarssParams = darssPolicy.paramsSchema.parse({ productionQueue: 'root.production', bestEffortQueue: 'root.besteffort' });

  /** Deterministic mix: deadlines spread over 30 days, 1–3 jobs in a chain, 1–40 tasks of 5–60 min. */
  const requests: DarssRequest[] = [];
  for (let i = 0; i < N; i++) {
    const jobs = 1 + (i % 3);
    const deadlineMs = NOW + 3_600_000 + ((i * 7919) % (30 * 24 - 1)) * 3_600_000;
    requests.push({
      id: `wf${i}`,
      group: `g${i % 7}`,
      deadlineMs,
      jobs: Array.from({ length: jobs }, (_, k) => ({
        name: `j${k}`,
        tasks: 1 + ((i * 31 + k) % 40),
        leaseMs: (5 + ((i * 13 + k * 7) % 56)) * 60_000,
        unitsPerTask: 1,
        prerequisites: k > 0 ? [`j${k - 1}`] : [],
      })),
    });
  }
  const fresh = (): DarssState => {
    const s = darssPolicy.initialState(params);
    s.ledger.capacityUnits = UNITS;
    return s;
  };
  const largestNodeUnits = 8;

  // --- admission of 10,000 -------------------------------------------------------------------------
  let state = fresh();
  const admitAllMs: number[] = [];
  for (let r = 0; r <= runs; r++) {
    const ms = cpuMs(() => {
      state = fresh();
      for (const q of requests) judgeRequest(state, q, NOW, largestNodeUnits, params);
    });
    if (r > 0) admitAllMs.push(ms);
  }
  const accepted = Object.keys(state.admitted).length;
  const horizonDays = ((state.ledger.production.times.at(-1) ?? NOW) - NOW) / DAY_MS;
  const segments = state.ledger.production.times.length;

  // --- one more admission against the full ledger (on a copy each time) ---------------------------
  const extra: DarssRequest = { ...requests[17], id: 'one-more' };
  const oneMs: number[] = [];
  for (let r = 0; r <= runs * 20; r++) {
    const s: DarssState = structuredClone(state);
    const ms = cpuMs(() => judgeRequest(s, extra, NOW, largestNodeUnits, params));
    if (r > 0) oneMs.push(ms);
  }

  // --- one cycle with 100,000 ready tasks ---------------------------------------------------------
  const APPS = 1000;
  const cycleState = fresh();
  const apps: AppView[] = [];
  for (let i = 0; i < APPS; i++) {
    const q: DarssRequest = {
      id: `p${i}`,
      group: 'g',
      deadlineMs: NOW + 6 * 3_600_000 + i * 60_000,
      jobs: [{ name: 'j0', tasks: 100, leaseMs: 60_000, unitsPerTask: 1, prerequisites: [] }],
    };
    judgeRequest(cycleState, q, NOW, largestNodeUnits, params);
    apps.push({
      id: `application_1_${i}`,
      name: `p${i}`,
      user: 'u',
      queue: 'root.production',
      state: 'RUNNING',
      priority: 0,
      submittedAtMs: NOW - 1000,
      pendingContainers: 100,
      pendingContainerResource: { vcores: 1, memoryMB: 1024 },
      runningContainers: 1,
      allocated: { vcores: 1, memoryMB: 1024 },
      tags: { [REQUEST_TAG]: `p${i}`, [JOB_TAG]: 'j0' },
    });
  }
  const admittedApps = Object.keys(cycleState.admitted).length;
  const leaf = (name: string, pct: number): QueueView => ({
    path: `root.${name}`,
    name,
    state: 'RUNNING',
    capacityPct: pct,
    maxCapacityPct: 100,
    absoluteCapacityPct: pct,
    absoluteMaxCapacityPct: 100,
    usedCapacityPct: 0,
    used: { memoryMB: 0, vcores: 0 },
    numApplications: 0,
    children: [],
  });
  const rootQueue: QueueView = { ...leaf('root', 100), path: 'root', children: [leaf('production', 50), leaf('besteffort', 50)] };
  const nodes: NodeView[] = Array.from({ length: NODES }, (_, i) => {
    const units = i < 105 ? 8 : 6 + (i % 2);
    const r = { vcores: units, memoryMB: units * 1024 };
    return { id: `n${i}`, state: 'RUNNING' as const, rack: '/r', capacity: r, physicalCapacity: r, used: { memoryMB: 0, vcores: 0 }, containerIds: [] };
  });
  const snapshot = buildSnapshot({ nowMs: NOW + 60_000, nodes, apps, containers: [], rootQueue });
  const readyTasks = apps.reduce((a, x) => a + x.pendingContainers, 0);
  const cycleMs: number[] = [];
  let decisions = 0;
  for (let r = 0; r <= runs; r++) {
    const s: DarssState = structuredClone(cycleState);
    const ms = cpuMs(() => {
      decisions = darssPolicy.decide({ snapshot, params, state: s }).decisions.length;
    });
    if (r > 0) cycleMs.push(ms);
  }

  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '## DARSS',
    '',
    `Command: \`npm run bench -- --darss --runs ${runs}\` (\`bench/darss.ts\`) — CPU time (process user+system, median of ${runs} runs after one warm-up; the single admission: median of ${runs * 20}) on ${cpu}, Node ${process.version}, load average ${os.loadavg()[0].toFixed(1)} when run. Cluster: the thesis's Table 4.4, ${NODES} nodes, ${UNITS} units.`,
    '',
    '| what | ours | target (issue) |',
    '|---|---:|---:|',
    `| one admission with ${accepted.toLocaleString('en-US')} workflows pending in a ${horizonDays.toFixed(0)}-day ledger (${segments.toLocaleString('en-US')} steps) | ${median(oneMs).toFixed(2)} ms | < 50 ms |`,
    `| filling that ledger: ${N.toLocaleString('en-US')} admissions one after another | ${median(admitAllMs).toFixed(0)} ms (${((median(admitAllMs) * 1000) / N).toFixed(0)} µs each on average) | — |`,
    `| one policy cycle: ${admittedApps.toLocaleString('en-US')} admitted applications, ${readyTasks.toLocaleString('en-US')} ready tasks | ${median(cycleMs).toFixed(1)} ms | < 50 ms |`,
    '',
    `Admission outcome: ${accepted.toLocaleString('en-US')} of ${N.toLocaleString('en-US')} accepted; the cycle produced ${decisions.toLocaleString('en-US')} decision(s).`,
    '',
  ];
  const text = lines.join('\n');
  console.log(text);
  if (args.write) writeBenchSection('## DARSS', text);
}

if (import.meta.url === `file://${process.argv[1]}`) await runDarssBench(process.argv.slice(2));
