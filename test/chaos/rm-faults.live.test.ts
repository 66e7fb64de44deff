/**
 * Chaos on the shared mini YARN: the brain reaches the RM through a fault-injecting proxy
 * (./fault-proxy.ts), and an operator edits what the brain wrote.
 *
 * Each RM fault (refused connections, 5xx, answers after 30 s, a body that hangs halfway, truncated
 * JSON) must leave: no write while the brain is unsure; `/healthz` 503 within three periods (one
 * more for the poll); the brain back to healthy cycles once the RM answers; the outage and the
 * recovery in the journal. An operator's edit of a capacity the brain set is journaled as drift
 * and, with the default `respect`, stands through the hold-off. Kairos with extreme parameters is
 * refused at the PUT and nothing reaches the RM. The figures go to docs/reliability.md. The admin
 * API is called over HTTP through the generated client (src/client).
 */
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApi } from '../../src/api/server.js';
import { createAdminClient, type AdminClient, type Schemas } from '../../src/client/index.js';
import { Engine } from '../../src/engine/engine.js';
import { Store } from '../../src/store/store.js';
import { YarnBackend } from '../../src/yarn/backend.js';
import { TEST_ADMIN, testAuth } from '../support/api-auth.js';
import { eventually } from '../integration/helpers.js';
import { FaultProxy, type Fault } from './fault-proxy.js';

const rmUrl = inject('rmUrl');
const PERIOD_MS = 1_000;
const HOLD_OFF_MS = 60_000;
const QUEUE = `root.sbchaos${Date.now() % 100_000}`;

describe('the brain under RM faults and manual edits', () => {
  let proxy: FaultProxy;
  let dir: string;
  let store: Store;
  let engine: Engine;
  let api: FastifyInstance;
  let client: AdminClient;
  let direct: YarnBackend;
  const figures: string[] = [];

  const chaosQueue = async () => (await direct.snapshot()).rootQueue.children.find((q) => q.path === QUEUE);
  const health = async () => {
    // 200 and 503 both carry the health body.
    const r = await client.GET('/healthz');
    return { code: r.response.status, body: (r.data ?? r.error) as Schemas['Health'] };
  };

  beforeAll(async () => {
    direct = new YarnBackend({ rmUrl });
    // A queue of the test's own at 0 %, beside root.default (which keeps its 100 %).
    await direct.client.updateSchedulerConf({ addQueues: [{ queue: QUEUE, params: { capacity: '0', 'maximum-capacity': '100' } }] });
    proxy = await new FaultProxy(rmUrl).start();
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-chaos-'));
    store = await Store.open(dir);
    // The brain keeps the test queue's maximum at 50 % (something it writes, and an operator may edit).
    engine = new Engine({
      backend: new YarnBackend({ rmUrl: proxy.url }),
      store,
      periodMs: PERIOD_MS,
      drift: { policy: 'respect', holdOffMs: HOLD_OFF_MS },
      initial: { policy: 'capacity-targets', params: { targets: { [QUEUE]: { capacityPct: 0, maxCapacityPct: 50 } } }, dryRun: false },
      limits: { allowZeroCapacity: [QUEUE] },
    });
    await engine.init();
    api = await buildApi({ engine, store, auth: testAuth() });
    await api.listen({ host: '127.0.0.1', port: 0 });
    client = createAdminClient({ baseUrl: `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`, token: TEST_ADMIN.token });
    engine.start();
    await eventually('the brain to set the test queue to a 50 % maximum', async () => (await chaosQueue())?.maxCapacityPct === 50, 60_000, 250);
  });

  afterAll(async () => {
    await engine?.stop();
    await api?.close();
    await proxy?.stop();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (direct && (await chaosQueue())) {
      await direct.client.updateSchedulerConf({ updateQueues: [{ queue: QUEUE, params: { state: 'STOPPED' } }] });
      await direct.client.updateSchedulerConf({ removeQueues: [QUEUE] });
    }
    if (figures.length) console.log(`chaos figures:\n${figures.join('\n')}`);
  });

  const faults: Fault[] = ['refuse', '5xx', 'slow', 'hang-mid-body', 'truncated'];
  for (const fault of faults) {
    it(`RM fault "${fault}": no write while unsure, /healthz 503 within three periods, back after, outage and recovery journaled`, async () => {
      await eventually(
        'a healthy brain',
        async () => {
          const h = await health();
          return h.code === 200 && h.body.lastCycleOk === true;
        },
        60_000,
        100,
      );
      const t0 = Date.now();
      await proxy.setFault(fault);
      await eventually(`/healthz 503 under "${fault}"`, async () => (await health()).code === 503, 30_000, 50);
      const detectMs = Date.now() - t0;
      expect(detectMs).toBeLessThanOrEqual(4 * PERIOD_MS);
      // Let the fault last a few more periods, then clear it.
      await new Promise((r) => setTimeout(r, 3 * PERIOD_MS));
      const tClear = Date.now();
      await proxy.setFault('none');
      await eventually(
        'the brain healthy again',
        async () => {
          const h = await health();
          return h.code === 200 && h.body.lastCycleOk === true;
        },
        60_000,
        100,
      );
      const recoverMs = Date.now() - tClear;
      // No write left the brain while the RM was failing.
      expect(proxy.seen.filter((r) => r.atMs >= t0 && r.atMs < tClear && r.method !== 'GET')).toEqual([]);
      const entries = await store.journal.query({ sinceMs: t0, limit: 10_000, order: 'asc' });
      expect(entries.filter((e) => e.result === 'applied' && e.timeMs < tClear)).toEqual([]);
      const rules = entries.map((e) => e.rule);
      expect(rules).toContain('engine.rm-outage');
      expect(rules).toContain('engine.rm-recovered');
      expect(rules.indexOf('engine.rm-outage')).toBeLessThan(rules.lastIndexOf('engine.rm-recovered'));
      figures.push(`| ${fault} | ${(detectMs / 1000).toFixed(1)} s | ${(recoverMs / 1000).toFixed(1)} s |`);
    }, 120_000);
  }

  it("an operator's edit of what the brain wrote is journaled as drift and stands through the hold-off", async () => {
    const t0 = Date.now();
    await direct.client.updateSchedulerConf({ updateQueues: [{ queue: QUEUE, params: { 'maximum-capacity': '40' } }] });
    const drift = await eventually(
      'a drift entry',
      async () => (await store.journal.query({ sinceMs: t0, limit: 1000 })).find((e) => e.rule === 'engine.drift'),
      30_000,
      200,
    );
    expect(drift.reason).toContain(QUEUE);
    // Several periods later the edit still stands (the hold-off is a minute).
    await new Promise((r) => setTimeout(r, 5 * PERIOD_MS));
    expect((await chaosQueue())?.maxCapacityPct).toBe(40);
    figures.push(
      `| operator edit → drift journaled | ${((drift.timeMs - t0) / 1000).toFixed(1)} s | edit stood ≥ ${(5 * PERIOD_MS) / 1000} s of a ${HOLD_OFF_MS / 1000} s hold-off |`,
    );
  }, 60_000);

  it('Kairos with extreme parameters is refused at the PUT and nothing reaches the RM', async () => {
    const t0 = Date.now();
    const r = await client.PUT('/v1/policy', { body: { name: 'kairos', params: { quantumMs: 1e-7, queueSlots: 1e12 } } });
    expect(r.response.status).toBe(400);
    expect(engine.config().name).toBe('capacity-targets');
    await new Promise((res) => setTimeout(res, 2 * PERIOD_MS));
    expect(proxy.seen.filter((x) => x.atMs >= t0 && x.url.includes('/resource'))).toEqual([]);
  });
});
