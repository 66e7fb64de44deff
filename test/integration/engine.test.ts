/**
 * The engine on a real ResourceManager (the shared MiniYARNCluster): capacity-targets applies a
 * queue capacity change that reads back from the RM; dry-run writes nothing; the loop survives
 * the RM going away and coming back (a TCP proxy between the backend and the RM is cut and
 * restored): no crash, no writes while away, resumes after.
 *
 * The cluster is shared: this file adds one queue (`root.sbengNNNNN`) and removes it at the end,
 * restoring root.default's capacity.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findQueue, type QueueView } from '../../src/core/model.js';
import { Engine } from '../../src/engine/engine.js';
import { Store } from '../../src/store/store.js';
import { YarnBackend } from '../../src/yarn/backend.js';
import { eventually } from './helpers.js';

const rmUrl = inject('rmUrl');
const testQueue = `root.sbeng${Date.now() % 100_000}`;

/** A TCP proxy that can be cut (every connection reset, new ones refused) and restored. */
class CuttableProxy {
  private server!: net.Server;
  private readonly sockets = new Set<net.Socket>();
  cut = false;
  port = 0;

  constructor(
    private readonly host: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    this.server = net.createServer((client) => {
      if (this.cut) {
        client.destroy();
        return;
      }
      const upstream = net.connect(this.targetPort, this.host);
      this.sockets.add(client).add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  setCut(cut: boolean): void {
    this.cut = cut;
    if (cut) for (const s of this.sockets) s.destroy();
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function queues(root: QueueView, path: string): QueueView {
  const q = findQueue(root, path);
  if (!q) throw new Error(`queue ${path} not found`);
  return q;
}

describe('engine against a real ResourceManager', () => {
  let direct: YarnBackend;
  let dir: string;
  let store: Store;
  let originalDefault: number;

  /** Targets moving `pct` points from root.default to the test queue; other root children untouched. */
  const targetsFor = (pct: number) => ({ targets: { 'root.default': { capacityPct: originalDefault - pct }, [testQueue]: { capacityPct: pct } } });
  /** Capacities as the RM reports them, rounded to 0.01 (it stores floats: 15 reads back as 15.000001). */
  const readCaps = async () => {
    const s = await direct.snapshot();
    const r = (x: number) => Math.round(x * 100) / 100;
    return { def: r(queues(s.rootQueue, 'root.default').capacityPct), test: r(queues(s.rootQueue, testQueue).capacityPct) };
  };

  beforeAll(async () => {
    direct = new YarnBackend({ rmUrl });
    const s = await direct.snapshot();
    originalDefault = queues(s.rootQueue, 'root.default').capacityPct;
    expect(originalDefault).toBeGreaterThanOrEqual(40);
    const added = await direct.apply({ kind: 'updateQueues', add: [{ path: testQueue, capacityPct: 0, maxCapacityPct: 100 }], update: [] });
    expect(added.status).toBe('applied');
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-engine-it-'));
    store = await Store.open(dir);
  });

  afterAll(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (direct && originalDefault !== undefined) {
      // Back to 0 %, then STOPPED, then removed together with the sibling restore.
      await direct.apply({
        kind: 'updateQueues',
        add: [],
        update: [
          { path: 'root.default', capacityPct: originalDefault },
          { path: testQueue, capacityPct: 0 },
        ],
      });
      await direct.client.updateSchedulerConf({ updateQueues: [{ queue: testQueue, params: { state: 'STOPPED' } }] }).catch(() => undefined);
      await direct.client
        .updateSchedulerConf({ removeQueues: [testQueue], updateQueues: [{ queue: 'root.default', params: { capacity: String(originalDefault) } }] })
        .catch((e: unknown) => console.warn(`could not remove ${testQueue}: ${(e as Error).message}`));
    }
  });

  it('capacity-targets applies a queue capacity change that reads back from the RM, then is a noop', async () => {
    const engine = new Engine({ backend: direct, store, periodMs: 60_000, initial: { policy: 'capacity-targets', params: targetsFor(10), dryRun: false } });
    await engine.init();
    const r1 = await engine.runCycle();
    expect(r1.outcome).toBe('ok');
    expect(r1.decisions).toHaveLength(1);
    expect(r1.decisions[0]).toMatchObject({ result: 'applied', rule: 'capacity-targets.hold' });
    expect(r1.decisions[0].reason).toContain(`${testQueue} capacity 0% → 10%`);
    expect(await readCaps()).toEqual({ def: originalDefault - 10, test: 10 });
    const r2 = await engine.runCycle();
    expect(r2.decisions).toHaveLength(0);
    const journal = await store.journal.query({ policy: 'capacity-targets' });
    expect(journal[0]).toMatchObject({ result: 'applied', cycleId: r1.cycleId });
  });

  it('dry-run writes nothing to the RM but journals what it would do', async () => {
    const before = await readCaps();
    const engine = new Engine({ backend: direct, store, periodMs: 60_000, initial: { policy: 'capacity-targets', params: targetsFor(25), dryRun: true } });
    await engine.init();
    const r = await engine.runCycle();
    expect(r.decisions.map((d) => d.result)).toEqual(['dryRun']);
    expect(r.decisions[0].reason).toContain(`→ 25%`);
    const preview = await engine.dryRun({ name: 'capacity-targets', params: targetsFor(30) });
    expect(preview.decisions[0].result).toBe('dryRun');
    expect(await readCaps()).toEqual(before);
  });

  it('survives the RM going away and coming back: no writes while away, resumes after', async () => {
    const u = new URL(rmUrl);
    const proxy = new CuttableProxy(u.hostname, Number(u.port));
    await proxy.start();
    const viaProxy = new YarnBackend({ rmUrl: `http://127.0.0.1:${proxy.port}`, requestTimeoutMs: 5_000 });
    const engine = new Engine({
      backend: viaProxy,
      store,
      periodMs: 500,
      backoff: { initialMs: 200, maxMs: 1_000 },
      initial: { policy: 'capacity-targets', params: targetsFor(10), dryRun: false },
    });
    await engine.init();
    try {
      engine.start();
      await eventually('a first good cycle through the proxy', async () => (engine.status().lastCycle?.outcome === 'ok' ? true : undefined));
      const before = await readCaps();

      proxy.setCut(true);
      await eventually('the engine to see the RM gone', async () => (engine.status().rmReachable === false ? true : undefined));
      // While it is away, the operator asks for a change: it must not reach the RM.
      await engine.setPolicy({ name: 'capacity-targets', params: targetsFor(15) });
      const failuresAt = engine.status().consecutiveRmFailures;
      await eventually('two more failed cycles', async () => (engine.status().consecutiveRmFailures >= failuresAt + 2 ? true : undefined));
      expect(engine.isRunning).toBe(true);
      expect(engine.status().rmError).toBeTruthy();
      expect(await readCaps()).toEqual(before);
      expect(engine.metrics.rmErrors.get()).toBeGreaterThanOrEqual(2);

      proxy.setCut(false);
      const after = await eventually(
        'the change to be applied once the RM is back',
        async () => {
          const c = await readCaps();
          return c.test === 15 ? c : undefined;
        },
        90_000,
        250,
        async () =>
          `status: ${JSON.stringify(engine.status())}\ncluster: ${JSON.stringify(await readCaps())}\njournal: ${JSON.stringify(await store.journal.query({ limit: 3 }))}`,
      );
      expect(after).toEqual({ def: originalDefault - 15, test: 15 });
      // The RM shows the change as soon as it is applied; the journal follows at the end of that cycle.
      await engine.whenIdle();
      expect(engine.status()).toMatchObject({ rmReachable: true, consecutiveRmFailures: 0, running: true });
      await eventually('the applied change in the journal', async () =>
        (await store.journal.query({ limit: 5 })).some((e) => e.result === 'applied' && e.reason.includes('→ 15%')) ? true : undefined,
      );
    } finally {
      await engine.stop();
      await proxy.stop();
    }
  });
});
