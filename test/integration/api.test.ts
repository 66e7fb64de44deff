/**
 * The admin API wired to the YARN backend on the shared real ResourceManager, listening on a
 * loopback port and called through the generated client (src/client): the snapshot as JSON,
 * policy validation against the live queue tree, a dry-run that writes nothing, metrics.
 * Adds one empty queue (`root.sbapiNNNNN`, 0 %) for the dry-run to propose a change to, and
 * removes it at the end.
 */
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApi } from '../../src/api/server.js';
import { createAdminClient, ok, type AdminClient } from '../../src/client/index.js';
import { Engine } from '../../src/engine/engine.js';
import { Store } from '../../src/store/store.js';
import { YarnBackend } from '../../src/yarn/backend.js';
import { TEST_ADMIN, testAuth } from '../support/api-auth.js';

const rmUrl = inject('rmUrl');
const testQueue = `root.sbapi${Date.now() % 100_000}`;

describe('admin API on a real ResourceManager', () => {
  let dir: string;
  let store: Store;
  let engine: Engine;
  let app: FastifyInstance;
  let client: AdminClient;
  let direct: YarnBackend;
  let defaultPct: number | undefined;

  beforeAll(async () => {
    direct = new YarnBackend({ rmUrl });
    const snap = await direct.snapshot();
    defaultPct = snap.rootQueue.children.find((q) => q.path === 'root.default')?.capacityPct;
    const added = await direct.apply({ kind: 'updateQueues', add: [{ path: testQueue, capacityPct: 0, maxCapacityPct: 100 }], update: [] });
    expect(added.status).toBe('applied');
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-api-it-'));
    store = await Store.open(dir);
    engine = new Engine({
      backend: new YarnBackend({ rmUrl }),
      store,
      periodMs: 60_000,
      initial: { policy: 'capacity-targets', params: { targets: {} }, dryRun: true },
    });
    await engine.init();
    app = await buildApi({ engine, store, auth: testAuth() });
    await app.listen({ host: '127.0.0.1', port: 0 });
    client = createAdminClient({ baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, token: TEST_ADMIN.token });
  });

  afterAll(async () => {
    await app?.close();
    await engine?.stop();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (direct && defaultPct !== undefined) {
      await direct.client.updateSchedulerConf({ updateQueues: [{ queue: testQueue, params: { state: 'STOPPED' } }] }).catch(() => undefined);
      await direct.client
        .updateSchedulerConf({ removeQueues: [testQueue], updateQueues: [{ queue: 'root.default', params: { capacity: String(defaultPct) } }] })
        .catch((e: unknown) => console.warn(`could not remove ${testQueue}: ${(e as Error).message}`));
    }
  });

  it('serves the snapshot as arrays: the queues and the total capacity, and the parts the running policy reads', async () => {
    // capacity-targets reads the queue tree alone: no node list, no app or container read.
    const s = await ok(client.GET('/v1/snapshot'));
    expect(s.parts).toEqual([]);
    expect(s.nodes).toEqual([]);
    expect(s.apps).toEqual([]);
    expect(s.containers).toEqual([]);
    expect(s.rootQueue.path).toBe('root');
    expect(s.rootQueue.children.some((q) => q.path === 'root.default')).toBe(true);
    // Asked for everything, it is read now; the total capacity is the scheduler's, the RUNNING nodes'
    // capacities the node list sums.
    const full = await ok(client.GET('/v1/snapshot', { params: { query: { parts: 'all' } } }));
    expect(full.parts).toBeUndefined();
    expect(full.nodes.length).toBeGreaterThanOrEqual(1);
    expect(full.nodes[0]).toMatchObject({ state: 'RUNNING', capacity: { memoryMB: expect.any(Number), vcores: expect.any(Number) } });
    expect(Array.isArray(full.apps)).toBe(true);
    expect(Array.isArray(full.containers)).toBe(true);
    expect(s.totalCapacity).toEqual(full.totalCapacity);
  });

  it('validates params against the live queue tree and names the field', async () => {
    await engine.runCycle();
    const health = await ok(client.GET('/healthz'));
    expect(health).toMatchObject({ status: 'ok', rmReachable: true, advisory: false, dryRun: true });
    const r = await client.PUT('/v1/policy', { body: { name: 'capacity-targets', params: { targets: { 'root.nosuchqueue': { capacityPct: 10 } } } } });
    expect(r.response.status).toBe(400);
    expect(r.error).toMatchObject({ error: 'bad_request', field: 'params.targets.root.nosuchqueue', reason: expect.stringMatching(/does not exist/) });
  });

  it('dry-run returns the decision with its reason and changes nothing on the RM', async () => {
    const before = await ok(client.GET('/v1/snapshot'));
    const def = before.rootQueue.children.find((q) => q.path === 'root.default')!;
    // Propose moving 1 point from root.default to the empty test queue.
    const targets = { 'root.default': { capacityPct: def.capacityPct - 1 }, [testQueue]: { capacityPct: 1 } };
    const r = await ok(client.POST('/v1/dry-run', { body: { name: 'capacity-targets', params: { targets } } }));
    expect(r.decisions).toHaveLength(1);
    expect(r.decisions[0]).toMatchObject({ result: 'dryRun', rule: 'capacity-targets.hold', reason: expect.stringContaining('→') });
    const after = await ok(client.GET('/v1/snapshot'));
    expect(after.rootQueue.children.map((q) => [q.path, q.capacityPct, q.maxCapacityPct])).toEqual(
      before.rootQueue.children.map((q) => [q.path, q.capacityPct, q.maxCapacityPct]),
    );
    const metrics = await ok(client.GET('/metrics', { parseAs: 'text' }));
    expect(metrics).toMatch(/schedbrain_cycles_total\{outcome="ok"\} 1/);
  });
});
