import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildParams, parseValue, runSimulateCommand } from '../../src/sim/cli.js';
import { simulate } from '../../src/sim/simulate.js';
import { getPolicy } from '../../src/policies/index.js';
import { captureStdio } from '../support/capture-stdio.js';

const capture = captureStdio;

afterEach(() => vi.restoreAllMocks());

describe('schedbrain simulate', () => {
  it('--json prints exactly one JSON object with the summary', async () => {
    const io = capture();
    const code = await runSimulateCommand(['--workload', 'sample:tiny', '--policy', 'fifo', '--json', '--seed', '3']);
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const o = JSON.parse(io.out());
    expect(o.jobs).toBe(20);
    for (const k of ['p50Ms', 'p90Ms', 'p99Ms', 'meanMs']) {
      expect(typeof o.jct[k]).toBe('number');
      expect(o.short).toHaveProperty(k);
      expect(o.long).toHaveProperty(k);
    }
    expect(typeof o.wallMs).toBe('number');
    expect(o.records).toBeUndefined();
    // Not a TTY: no progress bar.
    expect(io.err()).toBe('');
  });

  it("--json writes every duration in milliseconds: the run's figures in seconds × 1000", async () => {
    const io = capture();
    const code = await runSimulateCommand(['--workload', 'sample:tiny', '--policy', 'fifo', '--json', '--per-job', '--seed', '3']);
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const o = JSON.parse(io.out());
    const r = simulate({ workload: 'sample:tiny', policy: 'fifo', seed: 3 });
    expect(o.jct.count).toBe(20);
    for (const k of ['p50', 'p90', 'p99', 'mean', 'max'] as const) {
      expect(o.jct[`${k}Ms`]).toBeCloseTo(r.jct[k] * 1000, 6);
      expect(o.short[`${k}Ms`]).toBeCloseTo(r.short[k] * 1000, 6);
      expect(o.jct).not.toHaveProperty(k);
    }
    expect(o.short.slowdown).toEqual(r.short.slowdown);
    expect(o.makespanMs).toBeCloseTo(r.makespanS * 1000, 6);
    expect(o.wastedWorkCoreMs).toBe(r.wastedWorkS * 1000);
    for (const k of ['makespanS', 'wastedWorkS', 'wallSeconds']) expect(o).not.toHaveProperty(k);
    const rec = r.records.find((x) => x?.appId === o.perJob[0].appId);
    expect(o.perJob[0]).toMatchObject({ arrivalMs: rec?.arrivalMs, finishMs: rec?.finishMs, jctMs: (rec?.finishMs ?? NaN) - (rec?.arrivalMs ?? NaN) });
    expect(o.perJob[0]).not.toHaveProperty('jctS');
  });

  it('is deterministic across runs', async () => {
    const run = async () => {
      const io = capture();
      await runSimulateCommand(['--workload', 'kairos-uniform', '--policy', 'fifo', '--json', '--seed', '9', '--jobs', '30']);
      vi.restoreAllMocks();
      const { wallMs: _w, eventsPerSecond: _e, ...rest } = JSON.parse(io.out());
      return rest;
    };
    expect(await run()).toEqual(await run());
  });

  it('writes a CDF plot and honours --nodes/--cores/--cutoff-ms', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simcli-'));
    const file = join(dir, 'cdf.svg');
    const io = capture();
    const code = await runSimulateCommand([
      '--workload',
      'sample:tiny',
      '--policy',
      'fifo',
      '--nodes',
      '3',
      '--cores',
      '1',
      '--cutoff-ms',
      '10000',
      '--json',
      '--plot',
      file,
      '--log-x',
    ]);
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const o = JSON.parse(io.out());
    expect(o.nodes).toBe(3);
    expect(o.coresPerNode).toBe(1);
    expect(o.cutoffMs).toBe(10000);
    expect(o.short.count + o.long.count).toBe(20);
    expect(readFileSync(file, 'utf8')).toContain('<polyline');
  });

  it('still reads the deprecated --cutoff in seconds, with a notice, as --cutoff-ms', async () => {
    const runJson = async (argv: string[]) => {
      const io = capture();
      const code = await runSimulateCommand(['--workload', 'sample:tiny', '--policy', 'fifo', '--json', ...argv]);
      vi.restoreAllMocks();
      return { code, o: JSON.parse(io.out()), err: io.err() };
    };
    const old = await runJson(['--cutoff', '2.5']);
    const ms = await runJson(['--cutoff-ms', '2500']);
    expect(old.code).toBe(0);
    expect(old.err).toMatch(/--cutoff \(seconds\) is deprecated: read as --cutoff-ms 2500/);
    expect(ms.err).toBe('');
    expect(old.o.cutoffMs).toBe(2500);
    expect([old.o.short, old.o.long]).toEqual([ms.o.short, ms.o.long]);
    expect(old.o.short.count).toBeGreaterThan(0);
    expect(old.o.long.count).toBeGreaterThan(0);
  });

  it('rejects bad input with exit code 2 and a clear message', async () => {
    for (const [argv, msg] of [
      [['--policy', 'fifo'], /--workload is required/],
      [['--workload', 'sample:tiny', '--policy', 'nope'], /unknown policy nope/],
      [['--workload', 'sample:tiny', '--policy', 'fifo', '--set', 'bogus=1'], /no parameter bogus/],
      [['--workload', 'sample:tiny', '--policy', 'fifo', '--nodes', 'x'], /--nodes/],
      [['--workload', 'sample:tiny', '--policy', 'fifo', '--frobnicate'], /unknown argument/],
      [['--workload', 'sample:tiny', '--policy', 'fifo', '--cutoff', '2', '--cutoff-ms', '2000'], /give only --cutoff-ms/],
    ] as const) {
      const io = capture();
      const code = await runSimulateCommand([...argv]);
      vi.restoreAllMocks();
      expect(code).toBe(2);
      expect(io.err()).toMatch(msg);
      expect(io.out()).toBe('');
    }
  });

  it('parses --set values and validates them with the policy schema', () => {
    expect(parseValue('3')).toBe(3);
    expect(parseValue('-2.5')).toBe(-2.5);
    expect(parseValue('true')).toBe(true);
    expect(parseValue('false')).toBe(false);
    expect(parseValue('variance')).toBe('variance');
    expect(parseValue('')).toBe('');
    const kairos = getPolicy('kairos');
    if (kairos) {
      expect(buildParams(kairos, ['quantumMs=1000'])).toEqual({ quantumMs: 1000 });
      expect(() => buildParams(kairos, ['quantumMs=abc'])).toThrow(/quantumMs/);
    }
  });
});
