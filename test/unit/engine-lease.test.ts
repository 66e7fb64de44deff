/**
 * The engine keeps a lease (the NodeManager shims') alive by renewing it at the start of every
 * cycle, so the lease lapses when the loop stops, and a failed renewal does not stop the cycle.
 * When the running policy stops acting (replaced, or dry-run switched on) the engine calls
 * `afterPolicyChange` once no cycle of the previous configuration is in flight.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Engine, type EngineOptions } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { useEngineFixture } from './engine-fixture.js';

const PERIOD = 5_000;
const t = useEngineFixture('schedbrain-engine-lease-');
let backend: InMemoryBackend;

beforeEach(() => {
  backend = new InMemoryBackend({ now: () => t.clock.now() });
});

async function start(renew: () => Promise<void>, over: Partial<EngineOptions> = {}): Promise<Engine> {
  const engine = new Engine({ backend, store: t.store, clock: t.clock, periodMs: PERIOD, initial: { policy: 'fifo' }, lease: { renew }, ...over });
  t.engine = engine;
  await engine.init();
  return engine;
}

describe('engine lease', () => {
  it('renews before every cycle, and no more once stopped', async () => {
    const renewals: number[] = [];
    const snapshotsAtRenewal: number[] = [];
    const e = await start(async () => {
      renewals.push(t.clock.now());
      snapshotsAtRenewal.push(backend.snapshotCalls);
    });
    e.start();
    await e.whenIdle();
    await t.clock.advance(PERIOD);
    await e.whenIdle();
    await t.clock.advance(PERIOD);
    await e.whenIdle();
    expect(renewals).toHaveLength(3);
    // Each renewal comes before that cycle's snapshot.
    expect(snapshotsAtRenewal).toEqual([0, 1, 2]);
    await e.stop();
    await t.clock.advance(PERIOD * 3);
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

describe('afterPolicyChange', () => {
  it('runs when another policy replaces the running one or dry-run goes on, not for new params', async () => {
    const calls: unknown[] = [];
    const e = await start(async () => {}, { afterPolicyChange: async (c) => void calls.push(c) });
    await e.setPolicy({ name: 'fifo', params: {} });
    expect(calls).toEqual([]);
    await e.setPolicy({ name: 'capacity-targets', params: { targets: {} } });
    expect(calls).toEqual([{ from: 'fifo', to: 'capacity-targets', dryRun: false }]);
    await e.setPolicy({ name: 'capacity-targets', params: { targets: {} }, dryRun: true });
    expect(calls.at(-1)).toEqual({ from: 'capacity-targets', to: 'capacity-targets', dryRun: true });
    await e.setPolicy({ name: 'capacity-targets', params: { targets: {} }, dryRun: false });
    expect(calls).toHaveLength(2);
  });

  it('waits for a cycle of the previous policy to finish sending, and a failing hook does not fail the change', async () => {
    const order: string[] = [];
    let open!: () => void;
    backend.applyGate = new Promise<void>((r) => (open = r));
    const e = await start(async () => {}, {
      afterPolicyChange: async () => {
        order.push('hook');
        throw new Error('RM down');
      },
    });
    // A cycle of the first policy that sends something and is held open by the backend.
    await e.setPolicy({ name: 'capacity-targets', params: { targets: { 'root.a': { capacityPct: 60 }, 'root.b': { capacityPct: 40 } } } });
    order.length = 0;
    const cycle = e.runCycle().then(() => order.push('cycle done'));
    await new Promise((r) => setTimeout(r, 20));
    const change = e.setPolicy({ name: 'fifo', params: {} }).then(() => order.push('change done'));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    open();
    await Promise.all([cycle, change]);
    expect(order).toEqual(['cycle done', 'hook', 'change done']);
    expect(e.config().name).toBe('fifo');
  });
});
