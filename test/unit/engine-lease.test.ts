/**
 * The engine keeps a lease (the NodeManager shims') alive by renewing it at the start of every
 * cycle, so the lease lapses when the loop stops, and a failed renewal does not stop the cycle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { Store } from '../../src/store/store.js';

const PERIOD = 5_000;
let dir: string;
let store: Store;
let clock: FakeClock;
let backend: InMemoryBackend;
let engine: Engine | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-engine-lease-'));
  store = await Store.open(dir);
  clock = new FakeClock();
  backend = new InMemoryBackend({ now: () => clock.now() });
});
afterEach(async () => {
  await engine?.stop();
  engine = undefined;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(renew: () => Promise<void>): Promise<Engine> {
  engine = new Engine({ backend, store, clock, periodMs: PERIOD, initial: { policy: 'fifo' }, lease: { renew } });
  await engine.init();
  return engine;
}

describe('engine lease', () => {
  it('renews before every cycle, and no more once stopped', async () => {
    const renewals: number[] = [];
    const snapshotsAtRenewal: number[] = [];
    const e = await start(async () => {
      renewals.push(clock.now());
      snapshotsAtRenewal.push(backend.snapshotCalls);
    });
    e.start();
    await e.whenIdle();
    await clock.advance(PERIOD);
    await e.whenIdle();
    await clock.advance(PERIOD);
    await e.whenIdle();
    expect(renewals).toHaveLength(3);
    // Each renewal comes before that cycle's snapshot.
    expect(snapshotsAtRenewal).toEqual([0, 1, 2]);
    await e.stop();
    await clock.advance(PERIOD * 3);
    expect(renewals).toHaveLength(3);
  });

  it('a failed renewal is logged and the cycle still runs', async () => {
    const e = await start(async () => {
      throw new Error('shim unreachable');
    });
    const r = await e.runCycle();
    expect(r.outcome).toBe('ok');
    expect(backend.snapshotCalls).toBe(1);
  });

  it('renews while the RM is down, before each backed-off attempt', async () => {
    backend.down = 'connection refused';
    let n = 0;
    const e = await start(async () => {
      n++;
    });
    expect((await e.runCycle()).outcome).toBe('rm_unavailable');
    expect(n).toBe(1);
  });
});
