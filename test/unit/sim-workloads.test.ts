import { describe, expect, it } from 'vitest';
import { fifoPolicy } from '../../src/policies/fifo/index.js';
import { Simulator } from '../../src/sim/engine.js';
import { simulate } from '../../src/sim/simulate.js';
import { KAIROS_CATEGORIES, KAIROS_CLUSTER, kairosJob, kairosWorkload } from '../../src/sim/workloads/kairos.js';
import { syntheticTrace } from '../../src/sim/workloads/synthetic.js';
import { Rng } from '../../src/sim/rng.js';

describe('Kairos Table 1 workloads', () => {
  for (const cat of KAIROS_CATEGORIES) {
    it(`category ${cat.id} (${cat.name}) alone on 30 x 4 cores takes ${cat.durationS} s`, () => {
      const j = kairosJob(cat, 0, 'alone', true);
      // The ApplicationMaster first, then maps, then reduces.
      expect(j.stages[0]).toMatchObject({ appMaster: true, workMs: [0] });
      expect(j.stages[1].workMs.length).toBe(cat.maps);
      expect(j.stages[1].parents).toEqual([0]);
      expect(j.stages[2].workMs.length).toBe(cat.reduces);
      expect(j.stages[2].parents).toEqual([1]);
      expect(j.stages[1].resource).toEqual({ memoryMB: 5120, vcores: 1 });
      const s = new Simulator({ workload: { name: 'alone', jobs: [j], cluster: KAIROS_CLUSTER }, policy: fifoPolicy, checkInvariants: true });
      s.run();
      expect(s.records[0]!.finishMs).toBeCloseTo(cat.durationS * 1000, 6);
    });
  }

  it('kairos-heavy: 100 jobs, seeded, Poisson arrivals, Table 1 mix', () => {
    const a = kairosWorkload('heavy', { seed: 5 });
    const b = kairosWorkload('heavy', { seed: 5 });
    const c = kairosWorkload('heavy', { seed: 6 });
    expect(a.jobs).toHaveLength(100);
    expect(a.cluster).toEqual({ nodes: 30, cores: 4, memoryMBPerNode: 32768 });
    expect(b.jobs.map((j) => [j.arrivalMs, j.name])).toEqual(a.jobs.map((j) => [j.arrivalMs, j.name]));
    expect(c.jobs.map((j) => j.name)).not.toEqual(a.jobs.map((j) => j.name));
    // Large sample: mean inter-arrival and category frequencies.
    const big = kairosWorkload('heavy', { seed: 1, jobs: 20_000 });
    const last = big.jobs[big.jobs.length - 1].arrivalMs;
    expect(last / (big.jobs.length - 1) / 1000).toBeGreaterThan(58);
    expect(last / (big.jobs.length - 1) / 1000).toBeLessThan(62);
    // Whole-second gaps, Poisson-distributed (sd √60 ≈ 7.7 s), as in the authors' job file.
    const gapsS = big.jobs.slice(1).map((j, i) => (j.arrivalMs - big.jobs[i].arrivalMs) / 1000);
    expect(gapsS.every((g) => Number.isInteger(g))).toBe(true);
    const sdS = Math.sqrt(gapsS.reduce((a, g) => a + (g - 60) ** 2, 0) / gapsS.length);
    expect(sdS).toBeGreaterThan(7);
    expect(sdS).toBeLessThan(8.5);
    const freq = [1, 2, 3, 4, 5].map((k) => big.jobs.filter((j) => j.tags?.['schedbrain.category'] === String(k)).length / big.jobs.length);
    [0.32, 0.31, 0.31, 0.04, 0.02].forEach((p, i) => expect(Math.abs(freq[i] - p)).toBeLessThan(0.015));
    // Big-C's classes: categories 1–3 short.
    for (const j of a.jobs) expect(j.jobClass).toBe(Number(j.tags!['schedbrain.category']) <= 3 ? 'short' : 'long');
  });

  it('kairos-uniform: categories 1–3 at 0.35/0.35/0.30, mean inter-arrival 30 s', () => {
    const big = kairosWorkload('uniform', { seed: 2, jobs: 20_000 });
    const last = big.jobs[big.jobs.length - 1].arrivalMs;
    expect(last / (big.jobs.length - 1) / 1000).toBeGreaterThan(29);
    expect(last / (big.jobs.length - 1) / 1000).toBeLessThan(31);
    const freq = [1, 2, 3, 4, 5].map((k) => big.jobs.filter((j) => j.tags?.['schedbrain.category'] === String(k)).length / big.jobs.length);
    [0.35, 0.35, 0.3, 0, 0].forEach((p, i) => expect(Math.abs(freq[i] - p)).toBeLessThan(0.015));
    expect(kairosWorkload('uniform').jobs).toHaveLength(100);
  });

  it('task jitter keeps arrivals and single-wave makespans', () => {
    const a = kairosWorkload('heavy', { seed: 4 });
    const b = kairosWorkload('heavy', { seed: 4, taskJitter: 0.5 });
    expect(b.jobs.map((j) => [j.arrivalMs, j.name])).toEqual(a.jobs.map((j) => [j.arrivalMs, j.name]));
    const works = Array.from(b.jobs[0].stages[1].workMs);
    expect(new Set(works).size).toBeGreaterThan(1);
    expect(Math.max(...works)).toBe(works[0]);
    expect(Math.min(...works)).toBeGreaterThanOrEqual(works[0] * 0.5);
    for (const cat of KAIROS_CATEGORIES.slice(0, 4)) {
      const s = new Simulator({
        workload: { name: 'alone', jobs: [kairosJob(cat, 0, 'alone', true, { taskJitter: 0.3 }, new Rng(1))], cluster: KAIROS_CLUSTER },
      });
      s.run();
      expect(s.records[0]!.finishMs).toBeCloseTo(cat.durationS * 1000, 6);
    }
    expect(() => kairosWorkload('heavy', { taskJitter: 2 })).toThrow(/taskJitter/);
  });

  it('the cutoff agrees with the per-job classes', () => {
    for (const v of ['heavy', 'uniform'] as const) {
      const w = kairosWorkload(v, { seed: 3 });
      const byClass = simulate({ workload: w, policy: 'fifo' });
      const byCutoff = simulate({ workload: w, policy: 'fifo', cutoffMs: w.cutoffMs });
      expect(byCutoff.short.count).toBe(byClass.short.count);
      expect(byClass.short.count).toBeGreaterThan(0);
    }
  });
});

describe('synthetic traces', () => {
  it('are deterministic per seed', () => {
    expect(syntheticTrace({ seed: 4, jobs: 10 })).toEqual(syntheticTrace({ seed: 4, jobs: 10 }));
    expect(syntheticTrace({ seed: 4, jobs: 10 })).not.toEqual(syntheticTrace({ seed: 5, jobs: 10 }));
  });
});
