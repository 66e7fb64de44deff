import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { minicluster, serve } from '../../src/cli/main.js';
import { Store } from '../../src/store/store.js';

let dir: string;
const saved = { ...process.env };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-cli-'));
  for (const k of Object.keys(process.env)) if (k.startsWith('SCHEDBRAIN_')) delete process.env[k];
  process.env.SCHEDBRAIN_LOG_LEVEL = 'silent';
});
afterEach(() => {
  process.env = { ...saved };
  rmSync(dir, { recursive: true, force: true });
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) }, out, err };
}

const never = new Promise<never>(() => undefined);

describe('schedbrain serve (command line)', () => {
  it('--help prints the options and exits 0', async () => {
    const c = capture();
    expect(await serve(['--help'], c.io, never)).toBe(0);
    expect(c.out.join('\n')).toMatch(/--rm-url VALUE/);
    expect(c.out.join('\n')).toMatch(/SCHEDBRAIN_PERIOD_MS/);
  });

  it('bad configuration: exits 2 naming the key', async () => {
    const c = capture();
    process.env.SCHEDBRAIN_PERIOD_MS = 'soon';
    expect(await serve([], c.io, never)).toBe(2);
    expect(c.err.join('\n')).toMatch(/invalid configuration: periodMs \(from env SCHEDBRAIN_PERIOD_MS\)/);
  });

  it('bad policy params: exits 2 naming the field', async () => {
    const c = capture();
    const code = await serve(
      ['--rm-url', 'http://127.0.0.1:1', '--state-dir', dir, '--policy', 'capacity-targets', '--policy-params', '{"targets":{"root.a":{"capacityPct":101}}}'],
      c.io,
      never,
    );
    expect(code).toBe(2);
    expect(c.err.join('\n')).toMatch(/policyParams\.targets\.root\.a\.capacityPct/);
    // The store was closed on the way out.
    await (await Store.open(dir)).close();
  });

  it('serves with the RM down, prints the admin URL, and shuts down cleanly on the stop signal', async () => {
    const c = capture();
    let stop!: (v: string) => void;
    const stopped = new Promise<string>((r) => (stop = r));
    const running = serve(['--rm-url', 'http://127.0.0.1:1', '--port', '0', '--state-dir', dir, '--dry-run'], c.io, stopped);
    for (let i = 0; i < 200 && !c.out.some((l) => l.includes('admin API')); i++) await new Promise((r) => setTimeout(r, 50));
    const line = c.out.find((l) => l.includes('admin API')) as string;
    expect(line).toMatch(/admin API http:\/\/127\.0\.0\.1:\d+ \(policy capacity-targets, dry-run/);
    const url = /admin API (\S+)/.exec(line)?.[1];
    const health = await fetch(`${url}/healthz`);
    expect([200, 503]).toContain(health.status);
    expect((await health.json()).dryRun).toBe(true);
    stop('SIGTERM');
    expect(await running).toBe(0);
    expect(c.out.at(-1)).toBe('schedbrain: stopped');
    const s = await Store.open(dir);
    expect(await s.getEngineConfig()).toMatchObject({ policy: 'capacity-targets', dryRun: true });
    await s.close();
  });

  it('minicluster rejects bad --nodes', async () => {
    const c = capture();
    expect(await minicluster(['--nodes', 'many'], c.io, never)).toBe(2);
    expect(c.err.join()).toMatch(/--nodes must be an integer/);
    expect(await minicluster(['--help'], c.io, never)).toBe(0);
  });
});
