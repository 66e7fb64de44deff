import { describe, expect, it } from 'vitest';
import { Simulator } from '../../src/sim/engine.js';
import type { JobSpec, Workload } from '../../src/sim/workload.js';

const one = (arrivalMs: number, workMs: number, extra: Partial<JobSpec> = {}): JobSpec => ({
  arrivalMs,
  stages: [{ resource: { vcores: 1, memoryMB: 1024 }, workMs: [workMs] }],
  ...extra,
});

describe('simulator: heterogeneous nodes, job dependencies, deadlines', () => {
  it('builds nodes from node groups', () => {
    const w: Workload = {
      name: 't',
      jobs: [one(0, 10)],
      cluster: {
        nodeGroups: [
          { count: 2, cores: 6, memoryMB: 8192 },
          { count: 1, cores: 12, memoryMB: 16384 },
        ],
      },
    };
    const sim = new Simulator({ workload: w });
    expect(sim.nodes.map((n) => n.physicalCapacity)).toEqual([
      { vcores: 6, memoryMB: 8192 },
      { vcores: 6, memoryMB: 8192 },
      { vcores: 12, memoryMB: 16384 },
    ]);
    expect(sim.totalCapacity).toEqual({ vcores: 24, memoryMB: 32768 });
    expect(sim.physicalCores).toBe(24);
  });

  it('submits a job when the jobs it comes after have finished, and records its deadline', () => {
    const w: Workload = { name: 't', jobs: [one(0, 1000), one(0, 3000), one(500, 100, { after: [0, 1], deadlineMs: 5000 })], cluster: { nodes: 4, cores: 1 } };
    const sim = new Simulator({ workload: w });
    sim.run();
    expect(sim.records[2]).toMatchObject({ arrivalMs: 3000, finishMs: 3100, deadlineMs: 5000, killed: false });
  });

  it('kills the jobs that come after a killed job without running them', () => {
    const w: Workload = { name: 't', jobs: [one(0, 1000), one(0, 10, { after: [0] }), one(0, 10, { after: [1] })], cluster: { nodes: 1, cores: 1 } };
    const sim = new Simulator({ workload: w });
    sim.runUntil(10);
    sim.apply({ kind: 'killApp', appId: 'application_0_0001' });
    sim.run();
    expect(sim.done).toBe(true);
    expect(sim.records.map((r) => [r?.killed, r?.neverRan ?? false])).toEqual([
      [true, false],
      [true, true],
      [true, true],
    ]);
  });

  it('refuses jobs that wait for each other', () => {
    const w: Workload = { name: 't', jobs: [one(0, 1, { after: [1] }), one(0, 1, { after: [0] })] };
    expect(() => new Simulator({ workload: w })).toThrow(/cycle/);
  });
});
