/**
 * The admin API wired to the YARN backend on the shared real ResourceManager: the snapshot as
 * JSON, policy validation against the live queue tree, a dry-run that writes nothing, metrics.
 * Read-only for the cluster (dry-run and rejected PUTs only).
 */
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApi } from '../../src/api/server.js';
import { Engine } from '../../src/engine/engine.js';
import { Store } from '../../src/store/store.js';
import { YarnBackend } from '../../src/yarn/backend.js';

const rmUrl = inject('rmUrl');

describe('admin API on a real ResourceManager', () => {
  let dir: string;
  let store: Store;
  let engine: Engine;
  let app: FastifyInstance;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-api-it-'));
    store = await Store.open(dir);
    engine = new Engine({ backend: new YarnBackend({ rmUrl }), store, periodMs: 60_000, initial: { policy: 'capacity-targets', params: { targets: {} }, dryRun: true } });
    await engine.init();
    app = await buildApi({ engine, store });
  });

  afterAll(async () => {
    await app?.close();
    await engine?.stop();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the snapshot with nodes, queues, apps and containers as arrays', async () => {
    const r = await app.inject('/v1/snapshot');
    expect(r.statusCode).toBe(200);
    const s = r.json();
    expect(s.nodes.length).toBeGreaterThanOrEqual(1);
    expect(s.nodes[0]).toMatchObject({ state: 'RUNNING', capacity: { memoryMB: expect.any(Number), vcores: expect.any(Number) } });
    expect(s.rootQueue.path).toBe('root');
    expect(s.rootQueue.children.some((q: { path: string }) => q.path === 'root.default')).toBe(true);
    expect(Array.isArray(s.apps)).toBe(true);
    expect(Array.isArray(s.containers)).toBe(true);
  });

  it('validates params against the live queue tree and names the field', async () => {
    await engine.runCycle();
    const health = (await app.inject('/healthz')).json();
    expect(health).toMatchObject({ status: 'ok', rmReachable: true, advisory: false, dryRun: true });
    const r = await app.inject({ method: 'PUT', url: '/v1/policy', payload: { name: 'capacity-targets', params: { targets: { 'root.nosuchqueue': { capacityPct: 10 } } } } });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ error: 'bad_request', field: 'params.targets.root.nosuchqueue', reason: expect.stringMatching(/does not exist/) });
  });

  it('dry-run returns the decision with its reason and changes nothing on the RM', async () => {
    const before = (await app.inject('/v1/snapshot')).json();
    const def = before.rootQueue.children.find((q: { path: string }) => q.path === 'root.default');
    const others = before.rootQueue.children.filter((q: { path: string }) => q.path !== 'root.default');
    // Propose moving 1 point from root.default to its first sibling, if it has one; else a max-capacity change.
    const targets = others.length
      ? { 'root.default': { capacityPct: def.capacityPct - 1 }, [others[0].path]: { capacityPct: others[0].capacityPct + 1 } }
      : { 'root.default': { capacityPct: 100, maxCapacityPct: def.maxCapacityPct === 100 ? 99 : 100 } };
    const r = await app.inject({ method: 'POST', url: '/v1/dry-run', payload: { name: 'capacity-targets', params: { targets } } });
    expect(r.statusCode).toBe(200);
    expect(r.json().decisions).toHaveLength(1);
    expect(r.json().decisions[0]).toMatchObject({ result: 'dryRun', rule: 'capacity-targets.hold', reason: expect.stringContaining('→') });
    const after = (await app.inject('/v1/snapshot')).json();
    expect(after.rootQueue.children.map((q: { path: string; capacityPct: number; maxCapacityPct: number }) => [q.path, q.capacityPct, q.maxCapacityPct])).toEqual(
      before.rootQueue.children.map((q: { path: string; capacityPct: number; maxCapacityPct: number }) => [q.path, q.capacityPct, q.maxCapacityPct]),
    );
    const metrics = (await app.inject('/metrics')).body;
    expect(metrics).toMatch(/schedbrain_cycles_total\{outcome="ok"\} 1/);
  });
});
