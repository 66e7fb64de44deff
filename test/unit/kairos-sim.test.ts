/** Kairos and Big-C driving the simulator on tiny hand-checked workloads. */
import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/sim/index.js';
import type { JobSpec, Workload } from '../../src/sim/workload.js';

const R = { memoryMB: 1024, vcores: 1 };
const job = (name: string, arrivalMs: number, tasksMs: number[], estimateMs?: number): JobSpec => ({
  name,
  arrivalMs,
  stages: [{ resource: R, workMs: tasksMs }],
  tags: estimateMs === undefined ? {} : { 'schedbrain.estimate-ms': String(estimateMs) },
});
const wl = (jobs: JobSpec[], nodes = 1, cores = 1): Workload => ({ name: 'tiny', jobs, cluster: { nodes, cores, memoryMBPerNode: 8192 } });
const jct = (r: ReturnType<typeof simulate>, name: string): number => r.perJob.find((j) => j.name === name)?.jctS ?? NaN;

describe('kairos in the simulator', () => {
  // One core; a 1000 s task arrives first, a 10 s task 100 s later.
  const w = wl([job('long', 0, [1_000_000], 1_000_000), job('short', 100_000, [10_000], 10_000)]);

  it('FIFO: the short task waits for the long one', () => {
    const r = simulate({ workload: w, policy: 'fifo', checkInvariants: true });
    expect(jct(r, 'short')).toBeCloseTo(910, 3);
    expect(jct(r, 'long')).toBeCloseTo(1000, 3);
  });

  it('Kairos: the N+Q cap admits the short task, which preempts the long one (LAS) and runs at once', () => {
    const r = simulate({ workload: w, policy: 'kairos', params: { queueSlots: 1 }, checkInvariants: true });
    expect(jct(r, 'short')).toBeCloseTo(10, 3);
    expect(jct(r, 'long')).toBeCloseTo(1010, 3);
    expect(r.actions.byKind.suspendContainer?.applied).toBe(1);
    expect(r.actions.byKind.resumeContainer?.applied).toBe(1);
  });

  it('Kairos with Q = 0 holds at most N tasks per node and behaves like FIFO here', () => {
    const r = simulate({ workload: w, policy: 'kairos', params: { queueSlots: 0 }, checkInvariants: true });
    expect(jct(r, 'short')).toBeCloseTo(910, 3);
  });

  it('Kairos time-slices two equal tasks on one core with quantum W (Alg. 1: no swap margin)', () => {
    // Two 100 s tasks, W = 30 s: a runs 0-30, b 30-60, a 60-90, b 90-120, a 120-150, b 150-180,
    // a 180-190 (done at 190), b 190-200 (done at 200).
    const r = simulate({
      workload: wl([job('a', 0, [100_000]), job('b', 0, [100_000])]),
      policy: 'kairos',
      params: { queueSlots: 1, quantumMs: 30_000, starvationQuanta: 0, swapMarginMs: 0, monitorIntervalMs: 0 },
      checkInvariants: true,
    });
    expect(jct(r, 'a')).toBeCloseTo(190, 3);
    expect(jct(r, 'b')).toBeCloseTo(200, 3);
  });

  it('Kairos spreads tasks over the least loaded nodes', () => {
    const r = simulate({ workload: wl([job('j', 0, [50_000, 50_000, 50_000, 50_000])], 4, 1), policy: 'kairos', checkInvariants: true });
    expect(jct(r, 'j')).toBeCloseTo(50, 3);
    expect(r.actions.byKind.suspendContainer?.applied ?? 0).toBe(0);
  });
});

describe('bigc in the simulator', () => {
  it('a short job suspends a running long task and runs at once; the long task resumes after', () => {
    const w = wl([job('long', 0, [1_000_000], 1_000_000), job('short', 100_000, [10_000], 10_000)]);
    const r = simulate({ workload: w, policy: 'bigc', params: { shortSharePct: 95, shortCutoffMs: 60_000 }, checkInvariants: true });
    // One core: long's guaranteed share is 5 % of it, so the short job may reclaim the core.
    expect(jct(r, 'short')).toBeCloseTo(10, 3);
    expect(jct(r, 'long')).toBeCloseTo(1010, 3);
  });

  it('long jobs within their guaranteed share are not suspended', () => {
    const w = wl([job('long', 0, [1_000_000], 1_000_000), job('short', 100_000, [10_000], 10_000)]);
    const r = simulate({ workload: w, policy: 'bigc', params: { shortSharePct: 0, shortCutoffMs: 60_000 }, checkInvariants: true });
    expect(jct(r, 'short')).toBeCloseTo(910, 3);
  });
});
