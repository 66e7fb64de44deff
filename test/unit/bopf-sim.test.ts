import { describe, expect, it } from 'vitest';
import { createCapacityAllocator } from '../../src/sim/capacity-allocator.js';
import { Simulator } from '../../src/sim/engine.js';
import type { JobSpec, Workload } from '../../src/sim/workload.js';
import { bopfMultiLqScenario, bopfScenario, jobDemand, onPeriodMs } from '../../src/sim/workloads/bopf.js';
import { runBopfScenario } from '../../src/sim/workloads/bopf-run.js';

/** n one-vcore tasks of `ms` each in one stage, submitted at `at` to `queue`. */
const job = (queue: string, n: number, ms: number, at = 0): JobSpec => ({
  arrivalMs: at,
  queue,
  stages: [{ resource: { vcores: 1, memoryMB: 1024 }, workMs: new Array(n).fill(ms) }],
});
const usedVcores = (sim: Simulator, path: string) => sim.queues.get(path)!.used.vcores;

describe('capacity allocator', () => {
  const base = (queues: Workload['queues'], jobs: JobSpec[]): Simulator =>
    new Simulator({ workload: { name: 't', jobs, queues, cluster: { nodes: 4, cores: 10, memoryMBPerNode: 100_000 } }, allocator: createCapacityAllocator });

  it('fills free resources in proportion to the guaranteed capacities', () => {
    // Both queues backlogged; 40 vcores free at once: 30 go to a (75 %), 10 to b (25 %).
    const sim = base(
      [
        { path: 'root.a', capacityPct: 75, maxCapacityPct: 100 },
        { path: 'root.b', capacityPct: 25, maxCapacityPct: 100 },
      ],
      [job('root.a', 100, 10_000), job('root.b', 100, 10_000)],
    );
    sim.runUntil(0);
    expect(usedVcores(sim, 'root.a')).toBe(30);
    expect(usedVcores(sim, 'root.b')).toBe(10);
  });

  it('is work conserving up to max-capacity, never past it', () => {
    const sim = base(
      [
        { path: 'root.a', capacityPct: 75, maxCapacityPct: 100 },
        { path: 'root.b', capacityPct: 25, maxCapacityPct: 50 },
      ],
      [job('root.a', 100, 10_000, 1000), job('root.b', 100, 10_000)],
    );
    sim.runUntil(0);
    expect(usedVcores(sim, 'root.b')).toBe(20); // alone, but capped at 50 % of 40
    sim.runUntil(1000);
    expect(usedVcores(sim, 'root.a')).toBe(20); // a takes the idle rest
  });

  it('after an updateQueues, freed resources go by the new guarantees (no preemption)', () => {
    const sim = base(
      [
        { path: 'root.a', capacityPct: 50, maxCapacityPct: 100 },
        { path: 'root.b', capacityPct: 50, maxCapacityPct: 100 },
      ],
      [job('root.a', 400, 5_000), job('root.b', 40, 60_000, 1)],
    );
    sim.runUntil(0);
    expect(usedVcores(sim, 'root.a')).toBe(40);
    sim.runUntil(1);
    expect(usedVcores(sim, 'root.b')).toBe(0); // nothing is preempted
    sim.apply({
      kind: 'updateQueues',
      add: [],
      update: [
        { path: 'root.a', capacityPct: 10 },
        { path: 'root.b', capacityPct: 90 },
      ],
    });
    sim.runUntil(5_000); // a's tasks finish: each queue gets its guarantee (a 10 %, b 90 %)
    expect(usedVcores(sim, 'root.b')).toBe(36);
    expect(usedVcores(sim, 'root.a')).toBe(4);
  });
});

describe('BoPF workloads', () => {
  it('LQ jobs are as wide as the cluster memory with an ON period near 27 s; queues sum to 100 %', () => {
    const s = bopfScenario({ benchmark: 'bb', tqs: 4, seed: 3 });
    const lqJobs = s.workload.jobs.filter((j) => j.tags?.['bopf.kind'] === 'LQ');
    expect(lqJobs).toHaveLength(10);
    expect(lqJobs[0].stages.map((st) => st.workMs.length)).toEqual([640, 640]); // 40 × 64 GB / 4 GB
    expect(s.onPeriodMs).toBeGreaterThan(27_000);
    expect(s.onPeriodMs).toBeLessThan(29_000);
    expect(lqJobs[1].arrivalMs - lqJobs[0].arrivalMs).toBe(300_000);
    expect(s.workload.jobs.filter((j) => j.tags?.['bopf.kind'] === 'TQ').every((j) => j.arrivalMs === 0)).toBe(true);
    expect(s.workload.queues!.reduce((a, q) => a + q.capacityPct, 0)).toBeCloseTo(100, 9);
    // The LQ registers its demand and the ON period as its deadline.
    const spec = s.queueSpecs.find((q) => q.kind === 'LQ')!;
    expect(s.queueSpecs.map((q) => q.name)).toEqual(['tq0', 'tq1', 'tq2', 'tq3', 'lq0']); // TQs exist first
    expect(spec).toMatchObject({ name: 'lq0', kind: 'LQ', periodMs: 300_000, burstDeadlineMs: s.onPeriodMs });
    expect(spec.demand!.memoryMBSeconds).toBeCloseTo(jobDemand(lqJobs[0]).memoryMBSeconds, -6);
    // TPC-DS-like LQ jobs have more stages; lq-scale multiplies the width.
    expect(bopfScenario({ benchmark: 'tpcds', tqs: 1 }).workload.jobs[0].stages).toHaveLength(5);
    expect(bopfScenario({ benchmark: 'bb', tqs: 1, lqScale: 2 }).workload.jobs[0].stages[0].workMs.length).toBe(1280);
    expect(onPeriodMs(bopfScenario({ benchmark: 'bb', tqs: 1, lqScale: 2 }).workload.jobs[0])).toBeGreaterThan(54_000);
  });

  it("TQ tasks follow the lognormals fitted to the authors' traces and are memory-bound; the LQ can burst until the TQs are done", () => {
    const medianTaskS = (b: 'bb' | 'tpcds' | 'tpch') => {
      const durations = bopfScenario({ benchmark: b, tqs: 8, seed: 5 })
        .workload.jobs.filter((j) => j.tags?.['bopf.kind'] === 'TQ')
        .flatMap((j) => j.stages.map((st) => st.workMs[0] / 1000))
        .sort((x, y) => x - y);
      return durations[Math.floor(durations.length / 2)];
    };
    // Medians 3.6 / 13.3 / 24.3 s (stage durations drawn once per stage, each task ±20 %).
    expect(medianTaskS('bb')).toBeGreaterThan(2.5);
    expect(medianTaskS('bb')).toBeLessThan(5);
    expect(medianTaskS('tpcds')).toBeGreaterThan(9);
    expect(medianTaskS('tpcds')).toBeLessThan(18);
    expect(medianTaskS('tpch')).toBeGreaterThan(17);
    expect(medianTaskS('tpch')).toBeLessThan(32);
    const s = bopfScenario({ benchmark: 'bb', tqs: 8, seed: 5 });
    const tq = s.workload.jobs.filter((j) => j.tags?.['bopf.kind'] === 'TQ');
    expect(new Set(tq.flatMap((j) => j.stages.map((st) => `${st.resource.vcores}/${st.resource.memoryMB}`)))).toEqual(new Set(['1/4096']));
    const mixed = bopfScenario({ benchmark: 'bb', tqs: 8, seed: 5, cpuHeavyTqFraction: 0.3 }).workload.jobs.filter((j) => j.tags?.['bopf.kind'] === 'TQ');
    expect(mixed.some((j) => j.stages[0].resource.vcores === 2)).toBe(true);
    const lqJobs = (o: { lqUntilTqsDone?: boolean }) =>
      bopfScenario({ benchmark: 'bb', tqs: 8, seed: 5, ...o }).workload.jobs.filter((j) => j.tags?.['bopf.kind'] === 'LQ');
    expect(lqJobs({})).toHaveLength(10);
    expect(lqJobs({ lqUntilTqsDone: true }).length).toBeGreaterThan(50);
  });

  it('the three-LQ scenario is admitted hard / soft / elastic', () => {
    const r = runBopfScenario(bopfMultiLqScenario({ horizonMs: 200_000, tqJobs: 5 }), 'bopf', { untilMs: 1000 });
    expect(r.admission).toEqual({ tq0: 'elastic', lq0: 'hard', lq1: 'soft', lq2: 'elastic' });
    const n = runBopfScenario(bopfMultiLqScenario({ horizonMs: 200_000, tqJobs: 5 }), 'nbopf', { untilMs: 1000 });
    expect(n.admission).toEqual({ tq0: 'elastic', lq0: 'hard', lq1: 'elastic', lq2: 'elastic' });
  });

  it('end to end: with 4 TQs BoPF finishes LQ jobs faster than DRF, close to strict priority', () => {
    const s = bopfScenario({ benchmark: 'bb', tqs: 4, lqBursts: 2, tqJobs: 24, seed: 2 });
    const b = runBopfScenario(s, 'bopf');
    const d = runBopfScenario(s, 'drf');
    const p = runBopfScenario(s, 'sp');
    expect(b.lq.jobs).toBe(2);
    expect(b.lq.meanCompletion).toBeLessThan(0.8 * d.lq.meanCompletion);
    expect(b.lq.meanCompletion).toBeLessThan(1.2 * p.lq.meanCompletion);
    expect(b.tq.unfinished).toBe(0);
  });
});

describe('schedbrain simulate --workload bopf-…', () => {
  const capture = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const o = process.stdout.write.bind(process.stdout);
    const e = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((s: string) => (out.push(String(s)), true)) as typeof process.stdout.write;
    process.stderr.write = ((s: string) => (err.push(String(s)), true)) as typeof process.stderr.write;
    try {
      const { runSimulateCommand } = await import('../../src/sim/cli.js');
      const code = await runSimulateCommand(argv);
      return { code, out: out.join(''), err: err.join('') };
    } finally {
      process.stdout.write = o;
      process.stderr.write = e;
    }
  };

  it('runs a BoPF scenario with --tqs and --lq-scale and reports LQ/TQ completion and long-term shares as JSON', async () => {
    const r = await capture(['--workload', 'bopf-bb', '--policy', 'bopf', '--tqs', '2', '--lq-scale', '0.5', '--bursts', '1', '--seed', '4', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({
      policy: 'bopf',
      workload: 'bopf-bb',
      tqs: 2,
      lqScale: 0.5,
      seed: 4,
      lq: { jobs: 1 },
      admission: { lq0: 'hard', tq0: 'elastic', tq1: 'elastic' },
    });
    expect(j.lq.meanCompletionMs).toBeGreaterThan(0);
    expect(j.tq.meanCompletionMs).toBeGreaterThan(0);
    expect(Object.keys(j.longTermShares)).toEqual(['root.lq0', 'root.tq0', 'root.tq1']);
    expect(j.timeline).toBeUndefined();
  });

  it('rejects bad options with exit code 2 and the usage', async () => {
    let r = await capture(['--workload', 'bopf-bb', '--policy', 'bopf', '--tqs', '-1']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--tqs: expected an integer ≥ 0, got -1');
    r = await capture(['--workload', 'bopf-xx', '--policy', 'bopf']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown workload bopf-xx');
    r = await capture(['--workload=bopf-bb', '--policy', 'nope']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown policy nope');
  });
});
