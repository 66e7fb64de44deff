import { afterEach, describe, expect, it, vi } from 'vitest';
import { runSimulateCommand } from '../../src/sim/cli.js';
import { captureStdio } from '../support/capture-stdio.js';

const capture = captureStdio;

afterEach(() => vi.restoreAllMocks());

describe('schedbrain simulate --policy pigeon|eagle|sparrow', () => {
  it('--json gives completion times by class (mean, p50, p90, p99) for each task-level scheduler', async () => {
    const io = capture();
    const code = await runSimulateCommand([
      '--workload',
      'sample:heavy-tail-yahoo-like',
      '--policy',
      'pigeon,eagle,sparrow',
      '--nodes',
      '200',
      '--cores',
      '1',
      '--cutoff-ms',
      '3000',
      '--seed',
      '4',
      '--json',
    ]);
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const o = JSON.parse(io.out());
    expect(o.runs.map((r: { scheduler: string }) => r.scheduler)).toEqual(['pigeon', 'eagle', 'sparrow']);
    for (const r of o.runs) {
      expect(r.workers).toBe(200);
      expect(r.unfinished).toBe(0);
      for (const k of ['meanMs', 'p50Ms', 'p90Ms', 'p99Ms']) {
        expect(typeof r.short[k]).toBe('number');
        expect(typeof r.long[k]).toBe('number');
      }
      // Durations in milliseconds, named so.
      expect(r.makespanMs).toBeGreaterThanOrEqual(r.jct.maxMs);
      expect(typeof r.wallMs).toBe('number');
      for (const k of ['makespanS', 'wallSeconds']) expect(r).not.toHaveProperty(k);
    }
    // JSON has no Infinity: strict priority is written "inf".
    expect(o.runs[0].params.weight).toBe('inf');
  });

  it('--cutoff-ms sets the short/long cutoff; --cutoff in seconds is still read, with a notice; both is a usage error', async () => {
    const runJson = async (argv: string[]) => {
      const io = capture();
      const code = await runSimulateCommand(['--workload', 'sample:heavy-tail-yahoo-like', '--policy', 'eagle', '--nodes', '150', '--json', ...argv]);
      vi.restoreAllMocks();
      return { code, out: io.out(), err: io.err() };
    };
    const ms = await runJson(['--cutoff-ms', '3000']);
    const old = await runJson(['--cutoff', '3']);
    expect([ms.code, old.code]).toEqual([0, 0]);
    expect(JSON.parse(ms.out).cutoffMs).toBe(3000);
    expect(old.err).toContain('--cutoff (seconds) is deprecated: read as --cutoff-ms 3000');
    const { wallMs: _a, ...fromMs } = JSON.parse(ms.out);
    const { wallMs: _b, ...fromS } = JSON.parse(old.out);
    expect(fromS).toEqual(fromMs);
    const both = await runJson(['--cutoff', '3', '--cutoff-ms', '3000']);
    expect(both.code).toBe(2);
    expect(both.err).toContain('give only --cutoff-ms');
  });

  it('the same seed prints the same figures', async () => {
    const run = async (): Promise<unknown> => {
      const io = capture();
      await runSimulateCommand(['--workload', 'sample:heavy-tail-yahoo-like', '--policy', 'eagle', '--nodes', '150', '--seed', '8', '--json']);
      vi.restoreAllMocks();
      const { wallMs: _w, ...rest } = JSON.parse(io.out());
      return rest;
    };
    expect(await run()).toEqual(await run());
  });

  it('--set reaches the scheduler and a wrong parameter is a usage error', async () => {
    let io = capture();
    expect(await runSimulateCommand(['--workload', 'sample:tiny', '--policy', 'pigeon', '--set', 'groupSize=10', '--set', 'weight=20', '--json'])).toBe(0);
    vi.restoreAllMocks();
    expect(JSON.parse(io.out()).params).toMatchObject({ groupSize: 10, weight: 20 });
    io = capture();
    expect(await runSimulateCommand(['--workload', 'sample:tiny', '--policy', 'pigeon', '--set', 'reservedPerGroup=100'])).toBe(2);
    vi.restoreAllMocks();
    expect(io.err()).toContain('reservedPerGroup');
  });
});
