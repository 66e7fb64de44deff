import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatEagleTrace, loadEagleTrace, parseEagleTrace, TraceFormatError } from '../../src/sim/workloads/eagle.js';
import { resolveWorkload, sampleNames } from '../../src/sim/workloads/index.js';
import { meanTaskMs } from '../../src/sim/workload.js';

describe('Eagle trace loader', () => {
  it('parses jobs, task durations and the estimate tag', () => {
    const w = parseEagleTrace('0.5 2 1.5  1.0 2.0\n\n10 1 3 3\n', { name: 'yahoo-test.tr' });
    expect(w.jobs).toHaveLength(2);
    expect(w.jobs[0].arrivalMs).toBe(500);
    expect(Array.from(w.jobs[0].stages[0].workMs)).toEqual([1000, 2000]);
    expect(w.jobs[0].stages[0].resource.vcores).toBe(1);
    expect(w.jobs[0].tags?.['schedbrain.estimate-ms']).toBe('1500');
    expect(meanTaskMs(w.jobs[1])).toBe(3000);
    // Yahoo family → the Eagle short/long cutoff.
    expect(w.cutoffMs).toBeCloseTo(90581.1, 6);
    expect(w.cluster).toEqual({ nodes: 4000, cores: 1 });
  });

  it('reads the cluster hint our generators write', () => {
    const text = formatEagleTrace([{ arrivalS: 0, durationsS: [1, 2] }], { nodes: 3, cores: 2 });
    const w = parseEagleTrace(text);
    expect(w.cluster).toEqual({ nodes: 3, cores: 2 });
    expect(Array.from(w.jobs[0].stages[0].workMs)).toEqual([1000, 2000]);
  });

  it('rejects malformed lines with the line number', () => {
    expect(() => parseEagleTrace('0 3 1 1 1\n')).toThrow(TraceFormatError);
    expect(() => parseEagleTrace('0 1 1 1\nx 1 1 1\n')).toThrow(/line 2/);
    expect(() => parseEagleTrace('0 0 1\n')).toThrow(/task count/);
    expect(() => parseEagleTrace('0 1 1 -4\n')).toThrow(/duration/);
  });

  it('rejects values that overflow once in milliseconds, and a trace with no job', () => {
    expect(() => parseEagleTrace('10 1 1e306 1e306\n')).toThrow(/line 1: bad mean task duration 1e306 \(seconds, 0\.\.1000000000\)/);
    expect(() => parseEagleTrace('10 1 1 1e306\n')).toThrow(/bad duration 1e306 for task 1/);
    expect(() => parseEagleTrace('1e306 1 1 1\n')).toThrow(/bad arrival time/);
    expect(() => parseEagleTrace('', { name: 'empty.tr' })).toThrow(/empty\.tr: the trace holds no job/);
    expect(() => parseEagleTrace('# only a comment\n\n')).toThrow(/holds no job/);
  });

  it('ships sample traces that load without ../shared', () => {
    expect(sampleNames()).toEqual(expect.arrayContaining(['tiny', 'heavy-tail-yahoo-like']));
    const w = resolveWorkload('sample:tiny');
    expect(w.jobs).toHaveLength(20);
    expect(w.cluster).toEqual({ nodes: 2, cores: 2 });
    expect(() => resolveWorkload('sample:nope')).toThrow(/unknown sample/);
    expect(() => resolveWorkload('no-such-workload')).toThrow(/unknown workload/);
  });

  const shared = '/work/shared/traces/yahoo-sub-3363.tr';
  it.skipIf(!existsSync(shared))('loads the Yahoo excerpt: 3,363 jobs, 137,029 tasks', () => {
    const w = loadEagleTrace(shared);
    expect(w.jobs).toHaveLength(3363);
    let tasks = 0;
    for (const j of w.jobs) tasks += j.stages[0].workMs.length;
    expect(tasks).toBe(137_029);
  });
});
