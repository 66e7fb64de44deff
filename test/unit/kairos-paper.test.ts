/** The authors' job sequence (kairos-paper) and the node model it needs: ApplicationMasters and container launches. */
import { describe, expect, it } from 'vitest';
import { fifoPolicy } from '../../src/policies/fifo/index.js';
import { kairosPolicy } from '../../src/policies/kairos/index.js';
import { Simulator } from '../../src/sim/engine.js';
import { resolveWorkload } from '../../src/sim/workloads/index.js';
import { parseKairosPaperJobs } from '../../src/sim/workloads/kairos-paper.js';
import type { JobSpec, Workload } from '../../src/sim/workload.js';

const R = { memoryMB: 1024, vcores: 1 };
const withAm = (name: string, arrivalMs: number, tasksMs: number[]): JobSpec => ({
  name,
  arrivalMs,
  stages: [
    { name: 'am', resource: R, workMs: [0], appMaster: true },
    { resource: R, workMs: tasksMs, parents: [0] },
  ],
});
const one = (jobs: JobSpec[], cores = 4): Workload => ({ name: 'tiny', jobs, cluster: { nodes: 1, cores, memoryMBPerNode: cores * 1024 } });
const finishS = (s: Simulator, i = 0): number => (s.records[i]?.finishMs ?? NaN) / 1000;

describe('kairos-paper workload', () => {
  it('replays the authors’ 100 jobs: 31/31/33/2/3 by category, whole-second gaps, category 5 with 60 maps', () => {
    const w = resolveWorkload('kairos-paper');
    expect(w.jobs).toHaveLength(100);
    const byCat = [1, 2, 3, 4, 5].map((k) => w.jobs.filter((j) => j.tags?.['schedbrain.category'] === String(k)).length);
    expect(byCat).toEqual([31, 31, 33, 2, 3]);
    expect(w.jobs[0].arrivalMs).toBe(61_000);
    expect(w.jobs.every((j) => j.arrivalMs % 1000 === 0)).toBe(true);
    const long = w.jobs.find((j) => j.tags?.['schedbrain.category'] === '5')!;
    expect(long.stages.map((s) => s.workMs.length)).toEqual([1, 60, 60]);
    // Seeds do not apply: the sequence is fixed.
    expect(resolveWorkload('kairos-paper', { seed: 7 }).jobs.map((j) => j.arrivalMs)).toEqual(w.jobs.map((j) => j.arrivalMs));
    expect(resolveWorkload('kairos-paper', { jobs: 10 }).jobs).toHaveLength(10);
  });

  it('rejects a line it cannot read, naming it', () => {
    expect(() => parseKairosPaperJobs('61 15 default /random100char-256mb-huge out 0 0\n')).toThrow(/line 1: unknown input/);
    expect(() => parseKairosPaperJobs('61 16 default /random100char-256mb-small out 0 0\n')).toThrow(/line 1: 16 reduces/);
    expect(() => parseKairosPaperJobs('6.5 15 default /random100char-256mb-small out 0 0\n')).toThrow(/line 1: bad sleep/);
  });
});

describe('node model: ApplicationMasters and launches', () => {
  it('an AM holds a slot for its job’s lifetime: under FIFO 3 of 4 tasks run beside it', () => {
    const s = new Simulator({ workload: one([withAm('j', 0, [10_000, 10_000, 10_000, 10_000])]), policy: fifoPolicy, checkInvariants: true });
    s.run();
    expect(finishS(s)).toBeCloseTo(20, 6);
    expect(s.records[0]?.tasks).toBe(4);
    // The AM left with its job.
    expect(s.nodes[0].used).toEqual({ memoryMB: 0, vcores: 0 });
  });

  it('an AM takes no CPU unless appMastersOnCores', () => {
    // Kairos caps the node at N + Q = 8: AM + 4 tasks fit; the AM is not one of the N running tasks.
    const w = one([withAm('j', 0, [10_000, 10_000, 10_000, 10_000])]);
    const off = new Simulator({ workload: w, policy: kairosPolicy, params: { monitorIntervalMs: 0 }, checkInvariants: true });
    off.run();
    const on = new Simulator({ workload: w, policy: kairosPolicy, params: { monitorIntervalMs: 0 }, checkInvariants: true, appMastersOnCores: true });
    on.run();
    expect(finishS(off)).toBeCloseTo(10, 6);
    // Five on four cores: every task runs at 4/5 speed.
    expect(finishS(on)).toBeCloseTo(12.5, 6);
  });

  it('a launch holds the slot off the cores, doing no work, and is no task to the policy until it ends', () => {
    const w = one([{ name: 'j', arrivalMs: 0, stages: [{ resource: R, workMs: [10_000] }] }], 1);
    const s = new Simulator({ workload: w, policy: fifoPolicy, launchOverheadMs: 5_000, checkInvariants: true });
    s.run();
    expect(finishS(s)).toBeCloseTo(15, 6);
    // Kairos on one core: a second task launching beside a running one does not preempt it
    // before its launch ends (at 6 s), and then takes the core as the youngest task.
    const seen: boolean[] = [];
    const k = new Simulator({
      workload: one(
        [
          { name: 'a', arrivalMs: 0, stages: [{ resource: R, workMs: [100_000] }] },
          { name: 'b', arrivalMs: 1_000, stages: [{ resource: R, workMs: [10_000] }] },
        ],
        1,
      ),
      policy: kairosPolicy,
      params: { monitorIntervalMs: 0 },
      launchOverheadMs: 5_000,
      checkInvariants: true,
      onDecisions: (nowMs, ds) => {
        for (const d of ds) if (d.action.kind === 'suspendContainer') seen.push(nowMs === 6_000);
      },
    });
    k.run();
    expect(seen[0]).toBe(true);
    expect(finishS(k, 1)).toBeCloseTo(16, 6);
    expect(finishS(k, 0)).toBeCloseTo(115, 6);
  });
});
