/**
 * Runs the shim's Java tests (yarn-adapter/src/test/java/io/schedbrain/yarn/shim): the contract
 * file validated against the Java server's real answers, suspend/resume/watchdog/kill on real
 * process groups, the node order. The adapter build skips tests, so this is where they run.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { adapterDir } from '../../src/yarn/adapter-build.js';

const SHIM_TESTS = ['ContractTest', 'NodeOrderTest', 'ShimServerTest', 'ShimStartupTest'];

describe('shim Java tests (Maven surefire)', () => {
  it('pass', () => {
    const mvn = process.platform === 'win32' ? 'mvn.cmd' : 'mvn';
    const r = spawnSync(mvn, ['-B', '-q', 'test', `-Dtest=${SHIM_TESTS.join(',')}`], {
      cwd: adapterDir(),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 280_000,
    });
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    expect(r.error, r.error?.message).toBeUndefined();
    expect(r.status, out.slice(-6000)).toBe(0);
    const runs = [...out.matchAll(/Tests run: (\d+), Failures: (\d+), Errors: (\d+)/g)].map((m) => m.slice(1).map(Number));
    expect(runs.length, out.slice(-3000)).toBeGreaterThan(0);
    const [total, failures, errors] = runs[runs.length - 1]!;
    expect({ failures, errors }).toEqual({ failures: 0, errors: 0 });
    expect(total).toBeGreaterThanOrEqual(15);
  });
});
