import { afterEach, describe, expect, it, vi } from 'vitest';
import { runSimulateCommand } from '../../src/sim/cli.js';
import { createCapacityAllocator } from '../../src/sim/capacity-allocator.js';
import { Simulator } from '../../src/sim/engine.js';
import type { JobSpec } from '../../src/sim/workload.js';
import { captureStdio } from '../support/capture-stdio.js';

const capture = captureStdio;

afterEach(() => vi.restoreAllMocks());

describe('schedbrain simulate --workload darss-…', () => {
  it('--json prints the production and best-effort metrics, with --compare the paired share', async () => {
    const io = capture();
    const code = await runSimulateCommand([
      '--workload',
      'darss-google2019',
      '--policy',
      'darss',
      '--jobs',
      '120',
      '--seed',
      '4',
      '--production-share',
      '15',
      '--compare',
      'capacity',
      '--json',
    ]);
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const o = JSON.parse(io.out());
    expect(o).toMatchObject({ workload: 'darss-google2019', policy: 'darss', seed: 4, productionSharePct: 15 });
    for (const k of ['accepted', 'acceptanceRate', 'metDeadlineRate', 'missedDeadline']) expect(typeof o.production[k]).toBe('number');
    for (const k of ['completed', 'meanLatencyMs', 'p50LatencyMs', 'p99LatencyMs']) expect(typeof o.bestEffort[k]).toBe('number');
    expect(typeof o.wallMs).toBe('number');
    expect(o.bestEffort.fasterThan.policy).toBe('capacity');
    expect(o.bestEffort.fasterThan.share).toBeGreaterThanOrEqual(0);
    expect(o.bestEffort.fasterThan.share).toBeLessThanOrEqual(1);
  });

  it('answers 2 with the usage for an unknown trace or a share over 100', async () => {
    const io = capture();
    expect(await runSimulateCommand(['--workload', 'darss-google2030', '--policy', 'darss'])).toBe(2);
    expect(await runSimulateCommand(['--workload', 'darss-google2011', '--policy', 'darss', '--production-share', '120'])).toBe(2);
    vi.restoreAllMocks();
    expect(io.err()).toMatch(/unknown workload darss-google2030/);
    expect(io.err()).toMatch(/--production-share/);
  });
});

describe('capacity allocator', () => {
  it('holds a leaf to its parent\u2019s maximum as well as its own', () => {
    const job = (queue: string, tasks: number): JobSpec => ({
      arrivalMs: 0,
      queue,
      stages: [{ resource: { vcores: 1, memoryMB: 1024 }, workMs: new Array(tasks).fill(1000) }],
    });
    const queues = [
      { path: 'root.a', capacityPct: 50, maxCapacityPct: 50 },
      { path: 'root.b', capacityPct: 50, maxCapacityPct: 100 },
      { path: 'root.a.x', capacityPct: 50, maxCapacityPct: 100 },
      { path: 'root.a.y', capacityPct: 50, maxCapacityPct: 100 },
    ];
    const sim = new Simulator({
      workload: { name: 't', jobs: [job('root.a.x', 10), job('root.a.y', 10)], queues, cluster: { nodes: 10, cores: 1, memoryMBPerNode: 4096 } },
      allocator: createCapacityAllocator,
    });
    sim.runUntil(0);
    // Each leaf may grow to its parent's maximum (5 units), but the two together stop there too.
    expect(sim.queues.get('root.a')!.used.vcores).toBe(5);
  });
});
