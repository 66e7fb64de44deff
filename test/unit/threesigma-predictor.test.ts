import { describe, expect, it } from 'vitest';
import * as fc from 'fast-check';
import { addSample, emptyHistogram, histogramMean } from '../../src/policies/threesigma/histogram.js';
import { cdf, conditionalOnElapsed, fromHistogram, fromWeighted, longest, mean, survival } from '../../src/policies/threesigma/distribution.js';
import { featureKeys, normaliseName, powerOfTwoBucket, type JobDescription } from '../../src/policies/threesigma/features.js';
import { emptyPredictor, expertTable, learnRuntime, nmae, predictRuntime, predictorParamsSchema } from '../../src/policies/threesigma/predictor.js';

const params = predictorParamsSchema.parse({});
const job = (over: Partial<JobDescription> = {}): JobDescription => ({
  user: 'alice',
  queue: 'root.default',
  name: 'etl-1',
  tags: {},
  containers: 4,
  containerMemoryMB: 1024,
  containerVcores: 1,
  submittedAtMs: Date.UTC(2026, 10, 24, 5, 0, 0),
  priority: 0,
  ...over,
});

describe('3Sigma streaming histogram (Ben-Haim/Tom-Tov)', () => {
  it('keeps exact values while there are fewer than maxBins of them', () => {
    const h = emptyHistogram(4);
    for (const x of [5, 1, 3, 3]) addSample(h, x);
    expect(h.centroids).toEqual([1, 3, 5]);
    expect(h.counts).toEqual([1, 2, 1]);
  });

  it('merges the closest pair into its weighted mean past the limit', () => {
    const h = emptyHistogram(3);
    for (const x of [0, 10, 11, 20]) addSample(h, x);
    expect(h.centroids).toEqual([0, 10.5, 20]);
    expect(h.counts).toEqual([1, 2, 1]);
  });

  it('never holds more than maxBins bins, keeps count, mean, min and max exact', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 12 }), fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 300 }), (maxBins, xs) => {
        const h = emptyHistogram(maxBins);
        for (const x of xs) addSample(h, x);
        expect(h.centroids.length).toBeLessThanOrEqual(maxBins);
        expect(h.total).toBe(xs.length);
        expect(h.counts.reduce((a, b) => a + b, 0)).toBe(xs.length);
        for (let i = 1; i < h.centroids.length; i++) expect(h.centroids[i]).toBeGreaterThan(h.centroids[i - 1]);
        const m = xs.reduce((a, b) => a + b, 0) / xs.length;
        expect(histogramMean(h)).toBeCloseTo(m, 3);
        expect(h.min).toBe(Math.min(...xs));
        expect(h.max).toBe(Math.max(...xs));
      }),
    );
  });

  it('survives a JSON round trip and goes on the same way', () => {
    const a = emptyHistogram(5);
    const xs = [7, 3, 9, 1, 12, 15, 2, 8, 30, 4];
    for (const x of xs.slice(0, 6)) addSample(a, x);
    const b = JSON.parse(JSON.stringify(a));
    for (const x of xs.slice(6)) {
      addSample(a, x);
      addSample(b, x);
    }
    expect(b).toEqual(a);
  });
});

describe('3Sigma runtime distributions', () => {
  it('puts the exact longest and shortest runtimes in the distribution and keeps the mean', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 200 }), (xs) => {
        const h = emptyHistogram(8);
        for (const x of xs) addSample(h, x);
        const d = fromHistogram(h);
        expect(d.probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
        expect(longest(d)).toBe(Math.max(...xs));
        expect(d.valuesMs[0]).toBe(Math.min(...xs));
        expect(mean(d)).toBeCloseTo(xs.reduce((a, b) => a + b, 0) / xs.length, 3);
        for (let i = 1; i < d.valuesMs.length; i++) expect(d.valuesMs[i]).toBeGreaterThan(d.valuesMs[i - 1]);
      }),
    );
  });

  it('renormalises on the elapsed time (Eq. 2)', () => {
    const d = fromWeighted([2.5, 5, 7.5, 10], [1, 1, 1, 1]);
    expect([0, 2.5, 5, 7.5, 10].map((t) => survival(d, t))).toEqual([1, 0.75, 0.5, 0.25, 0]);
    const c = conditionalOnElapsed(d, 5)!;
    expect(c.valuesMs).toEqual([7.5, 10]);
    expect(c.probs).toEqual([0.5, 0.5]);
    expect(cdf(c, 7.5)).toBe(0.5);
    expect(conditionalOnElapsed(d, 10)).toBeUndefined();
  });
});

describe('3Sigma features', () => {
  it('normalises digits in names and buckets sizes by powers of two', () => {
    expect(normaliseName('etl-2026-11-24 run 7')).toBe('etl-#-#-# run #');
    expect([0, 1, 2, 3, 4, 5, 100].map(powerOfTwoBucket)).toEqual([1, 1, 2, 4, 4, 8, 128]);
  });

  it('lists user, queue, name, type, tags, sizes, hour and priority, and leaves the brain’s own tags out', () => {
    const keys = featureKeys(job({ applicationType: 'MAPREDUCE', tags: { team: 'risk', 'schedbrain.slo.deadline-ms': '123' }, name: 'etl-42', containers: 5 }));
    expect(keys).toEqual([
      'all',
      'user=alice',
      'queue=root.default',
      'name=etl-#',
      'user+name=alice|etl-#',
      'tasks=8',
      'container=1024MB/1vc',
      'hour=5',
      'user+hour=alice|5',
      'priority=0',
      'type=MAPREDUCE',
      'tag:team=risk',
    ]);
  });
});

describe('3Sigma predictor (3σPredict)', () => {
  it('knows nothing before it has learned a runtime', () => {
    expect(predictRuntime(emptyPredictor(), job(), params)).toBeUndefined();
  });

  it('falls back to every job’s history for a job whose features were never seen', () => {
    const s = emptyPredictor();
    for (let i = 0; i < 5; i++) learnRuntime(s, job({ user: 'bob', name: `sort-${i}` }), 60_000, params);
    const p = predictRuntime(
      s,
      job({ user: 'carol', name: 'new-job', queue: 'root.other', priority: 3, containers: 100, submittedAtMs: Date.UTC(2026, 10, 24, 13) }),
      params,
    )!;
    // `all` is also an expert of the new job (every job has it), and it predicted bob's runs exactly.
    expect(p.feature).toBe('all');
    expect(longest(p.distribution)).toBe(60_000);
  });

  it('chooses the expert with the lowest normalised mean absolute error', () => {
    const s = emptyPredictor();
    // Alice's ETL runs 100 s, her reports 10 s; her name-level experts predict each exactly,
    // her user-level ones mix the two.
    for (let i = 0; i < 6; i++) {
      learnRuntime(s, job({ name: `etl-${i}` }), 100_000, params);
      learnRuntime(s, job({ name: `report-${i}` }), 10_000, params);
    }
    const p = predictRuntime(s, job({ name: 'etl-99' }), params)!;
    expect(p.fallback).toBe(false);
    expect(p.nmae).toBe(0);
    expect(p.feature).toBe('name=etl-#');
    expect(p.distribution).toEqual({ valuesMs: [100_000], probs: [1] });
    const user = expertTable(s, job()).find((x) => x.feature === 'user=alice' && x.estimator === 'mean')!;
    expect(user.nmae).toBeGreaterThan(0.5);
  });

  it('scores each estimator on the runtime before learning it', () => {
    const s = emptyPredictor();
    const p = { ...params, rollingAlpha: 0.5, recentRuns: 2 };
    for (const r of [10, 20, 60]) learnRuntime(s, job(), r, p);
    const h = s.features['user=alice'];
    // Estimates before 20: all 10. Before 60: mean 15, median 15, rolling 15, recent 15.
    expect(h.absErrorMs).toEqual([10 + 45, 10 + 45, 10 + 45, 10 + 45]);
    expect(h.scoredActualMs).toBe(80);
    expect(nmae(h, 'mean')).toBeCloseTo(55 / 80, 12);
    // After 60: mean 30, median of the last two 40, rolling 37.5, recent 40.
    expect(
      expertTable(s, job())
        .filter((x) => x.feature === 'user=alice')
        .map((x) => x.estimateMs),
    ).toEqual([30, 40, 37.5, 40]);
  });

  it('is deterministic and serialisable: a restored predictor predicts as the original', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ user: fc.constantFrom('a', 'b', 'c'), name: fc.constantFrom('x1', 'x2', 'y'), runtime: fc.integer({ min: 1, max: 10_000 }) }), {
          minLength: 1,
          maxLength: 60,
        }),
        (runs) => {
          const s = emptyPredictor();
          for (const r of runs) learnRuntime(s, job({ user: r.user, name: r.name }), r.runtime, params);
          const restored = JSON.parse(JSON.stringify(s));
          for (const u of ['a', 'b', 'z']) {
            const q = job({ user: u, name: 'x9' });
            expect(predictRuntime(restored, q, params)).toEqual(predictRuntime(s, q, params));
          }
        },
      ),
    );
  });

  it('forgets the feature values updated longest ago past its limit, never `all`', () => {
    const s = emptyPredictor();
    const p = { ...params, maxFeatureValues: 20 };
    for (let i = 0; i < 30; i++) learnRuntime(s, job({ user: `u${i}`, name: `n${String.fromCharCode(97 + (i % 26))}` }), 1000, p);
    expect(s.size).toBeLessThanOrEqual(20);
    expect(Object.keys(s.features).length).toBe(s.size);
    expect(s.features.all.histogram.total).toBe(30);
    expect(s.features['user=u29']).toBeDefined();
    expect(s.features['user=u0']).toBeUndefined();
  });
});

describe('3Sigma predictor fallback', () => {
  it('uses every job’s history, marked as a fallback, while no expert has been scored', () => {
    const s = emptyPredictor();
    learnRuntime(s, job({ user: 'bob' }), 42_000, params);
    const p = predictRuntime(s, job({ user: 'carol' }), params)!;
    expect(p.fallback).toBe(true);
    expect(p.feature).toBe('all');
    expect(p.distribution).toEqual({ valuesMs: [42_000], probs: [1] });
  });
});
