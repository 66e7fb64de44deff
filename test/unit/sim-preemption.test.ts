/**
 * The simulator's model of CapacityScheduler's preemption monitor (ProportionalCapacityPreemptionPolicy):
 * the ideal assignment, what a round takes, and on a small cluster: containers over a guarantee
 * are killed only after max_wait_before_kill, never from a queue with disable_preemption, and
 * the queue under its guarantee gets what they free.
 */
import { describe, expect, it } from 'vitest';
import { capacityAllocatorWith, createCapacityAllocator } from '../../src/sim/capacity-allocator.js';
import { Simulator } from '../../src/sim/engine.js';
import { idealAssignment, PREEMPTION_DEFAULTS, toPreempt, type LeafDemand, type PreemptionOptions } from '../../src/sim/preemption-monitor.js';
import type { SimQueue } from '../../src/sim/queues.js';
import type { JobSpec, Workload } from '../../src/sim/workload.js';

const q = (path: string) => ({ path }) as unknown as SimQueue;

describe('preemption monitor: the round', () => {
  it('defaults are Hadoop 3.4.1 CapacitySchedulerConfiguration values', () => {
    expect(PREEMPTION_DEFAULTS).toMatchObject({
      monitoringIntervalMs: 3000,
      maxWaitBeforeKillMs: 15_000,
      totalPreemptionPerRound: 0.1,
      naturalTerminationFactor: 0.2,
      maxIgnoredOverCapacity: 0.1,
    });
  });

  it('ideal assignment: guarantees first (up to demand), the rest by guarantee to who wants more', () => {
    const a = q('a');
    const b = q('b');
    const c = q('c');
    const leaves: LeafDemand[] = [
      { q: a, guaranteed: 0.5, max: 1, used: 0.1, pending: 0.2 }, // wants 0.3 < 0.5
      { q: b, guaranteed: 0.3, max: 1, used: 0.9, pending: 0.5 }, // wants everything
      { q: c, guaranteed: 0.2, max: 0.4, used: 0, pending: 1 }, // capped at 0.4
    ];
    const ideal = idealAssignment(leaves);
    expect(ideal.get(a)).toBeCloseTo(0.3, 9);
    // 0.2 left over after 0.3 + 0.3 + 0.2: b and c want more, split 3:2 → b 0.42, c 0.28.
    expect(ideal.get(b)).toBeCloseTo(0.42, 9);
    expect(ideal.get(c)).toBeCloseTo(0.28, 9);
  });

  it('takes natural_termination_factor of an excess beyond max_ignored_over_capacity, at most total_preemption_per_round', () => {
    const lq = q('lq');
    const tq = q('tq');
    const small = q('small');
    const opts: PreemptionOptions = { ...PREEMPTION_DEFAULTS, totalPreemptionPerRound: 1 };
    const leaves: LeafDemand[] = [
      { q: lq, guaranteed: 0.8, max: 1, used: 0, pending: 0.8 },
      { q: tq, guaranteed: 0.1, max: 1, used: 0.9, pending: 1 },
      { q: small, guaranteed: 0.1, max: 1, used: 0.105, pending: 0 }, // within 10 % of its ideal: left alone
    ];
    const take = toPreempt(leaves, opts);
    // tq's ideal: 0.1 + its share of the 0 left = 0.1... after lq 0.8 and small 0.1: (0.9 - 0.1) × 0.2 = 0.16.
    expect(take.get(tq)).toBeCloseTo(0.16, 9);
    expect(take.has(small)).toBe(false);
    expect(toPreempt(leaves, PREEMPTION_DEFAULTS).get(tq)).toBeCloseTo(0.1, 9);
    expect(toPreempt(leaves, { ...opts, disabledQueues: ['tq'] }).size).toBe(0);
  });
});

describe('preemption monitor in the simulator', () => {
  /** The TQ fills a 20-vcore cluster with 100 s tasks at 0; the LQ (80 % guaranteed) asks for 16 at 5 s. */
  const workload = (): Workload => ({
    name: 't',
    cluster: { nodes: 2, cores: 10, memoryMBPerNode: 100_000 },
    queues: [
      { path: 'root.lq', capacityPct: 80, maxCapacityPct: 100 },
      { path: 'root.tq', capacityPct: 20, maxCapacityPct: 100 },
    ],
    jobs: [
      { arrivalMs: 0, queue: 'root.tq', stages: [{ resource: { vcores: 1, memoryMB: 1024 }, workMs: new Array(20).fill(100_000) }] },
      { arrivalMs: 5_000, queue: 'root.lq', stages: [{ resource: { vcores: 1, memoryMB: 1024 }, workMs: new Array(16).fill(10_000) }] },
    ] satisfies JobSpec[],
  });
  const lqFinishS = (sim: Simulator) => sim.records[1]!.finishMs! / 1000;

  it('off: the LQ waits for the TQ tasks to end', () => {
    const sim = new Simulator({ workload: workload(), allocator: createCapacityAllocator });
    sim.run();
    expect(lqFinishS(sim)).toBeGreaterThanOrEqual(110);
  });

  it('on: TQ containers are killed only after max_wait_before_kill, and the LQ runs on what they free', () => {
    const sim = new Simulator({ workload: workload(), allocator: capacityAllocatorWith({ preemption: {} }) });
    sim.runUntil(5_000 + PREEMPTION_DEFAULTS.maxWaitBeforeKillMs - 1);
    expect(sim.queues.get('root.lq')!.used.vcores).toBe(0);
    sim.run();
    const stats = (sim.allocator as { preemption?: { killed: number; lostContainerSeconds: number } }).preemption!;
    expect(stats.killed).toBeGreaterThan(0);
    expect(stats.lostContainerSeconds).toBeGreaterThan(0);
    // Rounds of at most 10 % of the cluster (2 vcores) and a fifth of the excess each: the LQ's
    // 16 tasks start over several rounds, all well before the TQ's tasks would have ended.
    expect(lqFinishS(sim)).toBeLessThan(100);
  });

  it('on, with disable_preemption on the TQ: nothing is killed', () => {
    const sim = new Simulator({ workload: workload(), allocator: capacityAllocatorWith({ preemption: { disabledQueues: ['root.tq'] } }) });
    sim.run();
    expect((sim.allocator as { preemption?: { killed: number } }).preemption!.killed).toBe(0);
    expect(lqFinishS(sim)).toBeGreaterThanOrEqual(110);
  });
});
