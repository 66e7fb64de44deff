import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/sim/engine.js';
import { cdf, cdfSvg, cutoffForTrace, dist, jobMetrics, percentile } from '../../src/sim/metrics.js';

const rec = (arrivalS: number, finishS: number | undefined, meanTaskS: number, extra: Partial<JobRecord> = {}): JobRecord => ({
  appId: `a${arrivalS}`,
  name: 'j',
  arrivalMs: arrivalS * 1000,
  finishMs: finishS === undefined ? undefined : finishS * 1000,
  killed: false,
  tasks: 1,
  meanTaskMs: meanTaskS * 1000,
  idealMs: meanTaskS * 1000,
  tags: {},
  ...extra,
});

describe('percentiles', () => {
  it('interpolates linearly between closest ranks', () => {
    // Hand-checked: x = 1..10; p50 at h = 4.5 → 5.5; p90 at h = 8.1 → 9.1; p99 at h = 8.91 → 9.91.
    const xs = [7, 1, 10, 3, 2, 9, 4, 8, 6, 5];
    const d = dist(xs);
    expect(d.p50).toBeCloseTo(5.5, 12);
    expect(d.p90).toBeCloseTo(9.1, 12);
    expect(d.p99).toBeCloseTo(9.91, 12);
    expect(d.mean).toBe(5.5);
    expect(d.max).toBe(10);
    expect(d.count).toBe(10);
    expect(percentile([4], 99)).toBe(4);
    expect(percentile([], 50)).toBeNaN();
    expect(percentile([0, 100], 25)).toBe(25);
  });
});

describe('job metrics', () => {
  it('computes completion time, slowdown and the short/long split', () => {
    const records = [
      rec(0, 10, 5), // short, JCT 10, slowdown 2
      rec(5, 25, 10), // short, JCT 20, slowdown 2
      rec(10, 110, 50), // long, JCT 100, slowdown 2
      rec(20, 30, 100, { jobClass: 'short' }), // tagged short despite its mean
      rec(30, undefined, 1), // unfinished
      rec(40, 50, 1, { killed: true }),
    ];
    const { metrics, perJob } = jobMetrics(records, 30_000);
    expect(metrics.jobs).toBe(4);
    expect(metrics.unfinished).toBe(1);
    expect(metrics.killed).toBe(1);
    expect(perJob.map((j) => j.jctS)).toEqual([10, 20, 100, 10]);
    expect(perJob.map((j) => j.slowdown)).toEqual([2, 2, 2, 0.1]);
    expect(metrics.short.count).toBe(3);
    expect(metrics.long.count).toBe(1);
    expect(metrics.long.p50).toBe(100);
    expect(metrics.jct.mean).toBe(35);
    expect(metrics.makespanS).toBe(110);
    // Forcing the cutoff ignores the per-job class.
    expect(jobMetrics(records, 30_000, true).metrics.short.count).toBe(2);
  });

  it('knows the per-trace cutoffs', () => {
    expect(cutoffForTrace('yahoo-sub-3363.tr')).toBe(90.5811);
    expect(cutoffForTrace('google-scaled-load50.tr')).toBe(1129.532);
    expect(cutoffForTrace('facebook-synthetic-2000.tr')).toBe(76.5951);
    expect(cutoffForTrace('mine.tr')).toBeUndefined();
  });
});

describe('CDF plot', () => {
  it('draws one line per series, with a log x axis on request', () => {
    expect(cdf([3, 1, 2])).toEqual({ x: [1, 2, 3], y: [1 / 3, 2 / 3, 1] });
    const svg = cdfSvg(
      [
        { label: 'fifo', values: [1, 10, 100] },
        { label: 'kairos <b>', values: [2, 20] },
      ],
      { logX: true, title: 'JCT' },
    );
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<polyline/g)).toHaveLength(2);
    expect(svg).toContain('kairos &lt;b&gt;');
    expect(svg).toContain('log scale');
    expect(svg.trim().endsWith('</svg>')).toBe(true);
  });
});
