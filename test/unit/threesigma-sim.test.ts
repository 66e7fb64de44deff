import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/sim/index.js';
import type { JobSpec, Workload } from '../../src/sim/workload.js';

const S = 1000;
const DEADLINE_TAG = 'schedbrain.slo.deadline-ms';

/** A job of four one-core tasks of `taskS` seconds: the whole of a 4-core node. */
function job(name: string, arrivalS: number, taskS: number, deadlineS?: number): JobSpec {
  return {
    name,
    arrivalMs: arrivalS * S,
    stages: [{ resource: { memoryMB: 1024, vcores: 1 }, workMs: [taskS * S, taskS * S, taskS * S, taskS * S] }],
    ...(deadlineS !== undefined ? { deadlineMs: deadlineS * S, tags: { [DEADLINE_TAG]: String(deadlineS * S) } } : {}),
  };
}

/**
 * One 4-core node. Four rounds teach the history: `etl-N` (SLO) and `adhoc-N` (best-effort) run
 * 60 s each, one at a time. Then a best-effort job of 100 s takes the node at 1,000 s and an SLO
 * job of 60 s arrives at 1,001 s with a deadline at 1,091 s: it meets it only by starting at once.
 */
const contention: Workload = {
  name: 'threesigma-contention',
  cluster: { nodes: 1, cores: 4, memoryMBPerNode: 8192 },
  jobs: [
    ...[1, 2, 3, 4].flatMap((i) => [job(`etl-${i}`, i * 200, 60, i * 200 + 120), job(`adhoc-${i}`, i * 200 + 100, 60)]),
    job('adhoc-big', 1000, 100),
    job('etl-5', 1001, 60, 1091),
  ],
};

const finishS = (r: ReturnType<typeof simulate>, name: string) => (r.records.find((x) => x?.name === name)?.finishMs ?? NaN) / S;

describe('3Sigma in the simulator', () => {
  it('runs an existing workload end to end', () => {
    const r = simulate({ workload: 'sample:tiny', policy: 'threesigma', params: { sliceMs: 2_000, planAheadMs: 40_000 }, seed: 1 });
    expect(r.jobs).toBeGreaterThan(0);
    expect(r.unfinished).toBe(0);
    expect(r.killed).toBe(0);
    expect(r.actions.failed).toBe(0);
    expect(r.actions.byKind.setAppPriority.applied).toBeGreaterThan(0);
  });

  it('preempts a running best-effort job so that an SLO job meets a deadline FIFO misses', () => {
    const params = { sliceMs: 10_000, planAheadMs: 120_000 };
    const fifo = simulate({ workload: contention, policy: 'fifo', seed: 1 });
    const sigma = simulate({ workload: contention, policy: 'threesigma', params, seed: 1 });
    for (const r of [fifo, sigma]) {
      expect(r.unfinished).toBe(0);
      expect(r.killed).toBe(0);
    }
    // FIFO: etl-5 waits for adhoc-big (until 1,100 s) and finishes at 1,160 s, past 1,091 s.
    expect(finishS(fifo, 'etl-5')).toBe(1160);
    // 3Sigma: history says etl runs 60 s and the running best-effort job another ~59 s, so
    // waiting misses the deadline; it preempts adhoc-big, which runs again afterwards.
    expect(finishS(sigma, 'etl-5')).toBe(1061);
    expect(sigma.actions.byKind.killContainer.applied).toBe(4);
    expect(finishS(sigma, 'adhoc-big')).toBe(1161);
    // History rounds meet their deadlines under both.
    for (const r of [fifo, sigma]) for (const i of [1, 2, 3, 4]) expect(finishS(r, `etl-${i}`)).toBe(i * 200 + 60);
  });
});
