import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClusterSnapshot } from '../../src/core/model.js';
import { buildApi } from '../../src/api/server.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { Store } from '../../src/store/store.js';
import { asAdmin, testAuth } from '../support/api-auth.js';

/** An RM that accepts the connection and never answers while `hung` is set. */
class HangingBackend extends InMemoryBackend {
  hung = false;
  override async snapshot(): Promise<ClusterSnapshot> {
    if (this.hung) return new Promise<ClusterSnapshot>(() => undefined);
    return super.snapshot();
  }
}

const PERIOD = 10_000;
let dir: string;
let store: Store;
let clock: FakeClock;
let backend: HangingBackend;
let engine: Engine;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-health-'));
  store = await Store.open(dir);
  clock = new FakeClock();
  backend = new HangingBackend({ now: () => clock.now() });
  engine = new Engine({
    backend,
    store,
    clock,
    periodMs: PERIOD,
    initial: { policy: 'capacity-targets', params: { targets: {} } },
    backoff: { initialMs: PERIOD, maxMs: PERIOD },
  });
  await engine.init();
});

afterEach(async () => {
  backend.hung = false;
  await engine.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('honest health', () => {
  it('a hung RM fails the cycle at the read deadline (two periods) and /healthz answers 503', async () => {
    const app = asAdmin(await buildApi({ engine, store, auth: testAuth() }));
    await engine.runCycle();
    let h = await app.inject('/healthz');
    expect(h.statusCode).toBe(200);
    expect(h.json()).toMatchObject({ status: 'ok', capabilities: { queueWrites: true, containerSuspend: false, nodeRanking: false } });
    backend.hung = true;
    let done = false;
    const cycle = engine.runCycle().then((r) => ((done = true), r));
    await clock.advance(PERIOD);
    // Waiting on the RM, within the deadline: nothing decided yet.
    expect(done).toBe(false);
    expect(engine.status().rmReachable).toBe(true);
    await clock.advance(PERIOD);
    const r = await cycle;
    expect(r.outcome).toBe('rm_unavailable');
    expect(engine.status().rmReachable).toBe(false);
    expect(engine.status().rmError).toMatch(/did not answer the cycle's reads within 20000 ms/);
    h = await app.inject('/healthz');
    expect(h.statusCode).toBe(503);
    expect(h.json().status).toBe('down');
    await app.close();
  });

  it('with no good snapshot for three periods /healthz is stale (503) and says why', async () => {
    const app = asAdmin(await buildApi({ engine, store, auth: testAuth() }));
    engine.start();
    await engine.whenIdle();
    backend.hung = true;
    // Reads that never finish, deadline longer than the stale limit: staleness shows first.
    await engine.stop();
    const slow = new Engine({
      backend,
      store,
      clock,
      periodMs: PERIOD,
      readDeadlineMs: 10 * PERIOD,
      initial: { policy: 'capacity-targets', params: { targets: {} } },
    });
    await slow.init();
    const app2 = asAdmin(await buildApi({ engine: slow, store, auth: testAuth() }));
    slow.start();
    await clock.advance(3 * PERIOD + 1);
    const h = await app2.inject('/healthz');
    expect(h.statusCode).toBe(503);
    expect(h.json()).toMatchObject({ status: 'stale' });
    expect(h.json().staleReason).toMatch(/no snapshot since the start 30 s ago, more than 3 periods/);
    backend.hung = false;
    await clock.advance(7 * PERIOD);
    await slow.whenIdle();
    await slow.stop();
    await app.close();
    await app2.close();
  });
});
