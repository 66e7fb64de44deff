/**
 * A snapshot reads only the parts asked for (`SnapshotOptions.parts`): a queue-level policy costs
 * the RM neither its node list nor an app's or a shim's container read, and what it reads is what
 * a full snapshot holds of those parts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SyntheticRm } from '../../bench/synthetic-rm.js';
import { covers, partsWith, unionParts } from '../../src/core/model.js';
import { YarnBackend } from '../../src/yarn/backend.js';
import { RmClient } from '../../src/yarn/client.js';
import { FakeRm, fixture, fixtureText } from './yarn-fake-rm.js';

const JSON_TYPE = 'application/json;charset=utf-8';
const APP = 'application_1795254945306_0001';
const ATTEMPT = 'appattempt_1795254945306_0001_000001';

let rm: FakeRm;
const client = (url: string) =>
  new RmClient({ rmUrl: url, user: 'schedbrain', requestTimeoutMs: 5_000, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });

function serve(): void {
  rm.on('GET /nodes', { body: fixtureText('nodes.json'), contentType: JSON_TYPE });
  rm.on('GET /scheduler', { body: fixtureText('scheduler.json'), contentType: JSON_TYPE });
  rm.on('GET /metrics', { body: fixtureText('metrics.json'), contentType: JSON_TYPE });
  rm.on('GET /apps', (req) =>
    req.query.get('states')?.startsWith('FINISHED')
      ? { body: fixtureText('apps-empty.json'), contentType: JSON_TYPE }
      : { body: fixtureText('apps-running.json'), contentType: JSON_TYPE },
  );
  rm.on(`GET /apps/${APP}/appattempts`, { body: fixtureText('appattempts.json'), contentType: JSON_TYPE });
  rm.on(`GET /apps/${APP}/appattempts/${ATTEMPT}/containers`, { body: fixtureText('containers.json'), contentType: JSON_TYPE });
}

beforeEach(async () => {
  rm = await new FakeRm().start();
  serve();
});
afterEach(async () => {
  await rm.stop();
});

describe('snapshot parts', () => {
  it('containers bring their nodes and apps; a snapshot covers what it read', () => {
    expect([...partsWith(['containers'])].sort()).toEqual(['apps', 'containers', 'nodes']);
    expect([...partsWith([])]).toEqual([]);
    expect([...partsWith(undefined)].sort()).toEqual(['apps', 'containers', 'nodes']);
    expect(unionParts(['apps'], ['nodes'])).toEqual(['apps', 'nodes']);
    expect(unionParts(['apps'], undefined)).toBeUndefined();
    const base = { nowMs: 0 } as never;
    expect(covers({ ...(base as object), parts: ['apps'] } as never, ['apps'])).toBe(true);
    expect(covers({ ...(base as object), parts: ['apps'] } as never, ['nodes'])).toBe(false);
    expect(covers({ ...(base as object), parts: ['apps'] } as never, undefined)).toBe(false);
    expect(covers(base, ['containers'])).toBe(true);
  });

  it("queues only: no node list, no app or container read; the total capacity is root's effective resource in the scheduler's answer", async () => {
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(rm.url) });
    const s = await backend.snapshot({ parts: [] });
    expect(s.parts).toEqual([]);
    expect(s.nodes.size).toBe(0);
    expect(s.apps.size).toBe(0);
    expect(s.containers.size).toBe(0);
    const root = fixture('scheduler.json').scheduler.schedulerInfo.capacities.queueCapacitiesByPartition[0].effectiveMinResource;
    expect(s.totalCapacity).toEqual({ memoryMB: root.memory, vcores: root.vCores });
    // The node list's sum, as a full snapshot has it.
    expect(s.totalCapacity).toEqual((await new YarnBackend({ rmUrl: rm.url, client: client(rm.url) }).snapshot()).totalCapacity);
    expect(rm.callsTo('GET /nodes')).toBe(1); // the full snapshot's
    expect(rm.callsTo('GET /metrics')).toBe(0);
    expect(rm.callsTo('GET /scheduler')).toBe(2);
  });

  it('queues only: no node list, no app or container read', async () => {
    const s = await new YarnBackend({ rmUrl: rm.url, client: client(rm.url) }).snapshot({ parts: [] });
    expect(s.rootQueue.children.length).toBeGreaterThan(0);
    expect(rm.callsTo('GET /nodes')).toBe(0);
    expect(rm.callsTo('GET /apps')).toBe(0);
    expect(rm.callsTo(`GET /apps/${APP}/appattempts`)).toBe(0);
    expect(rm.callsTo('GET /scheduler')).toBe(1);
  });

  it("queues only, root without effective resources in the scheduler's answer: the total capacity is the cluster metrics'", async () => {
    const body = fixture('scheduler.json');
    delete body.scheduler.schedulerInfo.capacities;
    rm.on('GET /scheduler', { body: JSON.stringify(body), contentType: JSON_TYPE });
    const s = await new YarnBackend({ rmUrl: rm.url, client: client(rm.url) }).snapshot({ parts: [] });
    const metrics = fixture('metrics.json').clusterMetrics;
    expect(s.totalCapacity).toEqual({ memoryMB: metrics.totalMB, vcores: metrics.totalVirtualCores });
    expect(rm.callsTo('GET /metrics')).toBe(1);
    expect(rm.callsTo('GET /nodes')).toBe(0);
  });

  it('apps without containers: the apps as a full snapshot has them, no container read', async () => {
    const full = await new YarnBackend({ rmUrl: rm.url, client: client(rm.url) }).snapshot();
    const before = rm.callsTo(`GET /apps/${APP}/appattempts`);
    const s = await new YarnBackend({ rmUrl: rm.url, client: client(rm.url) }).snapshot({ parts: ['apps'] });
    expect(s.parts).toEqual(['apps']);
    expect(rm.callsTo(`GET /apps/${APP}/appattempts`)).toBe(before);
    expect(s.nodes.size).toBe(0);
    expect(s.containers.size).toBe(0);
    expect([...s.apps.keys()]).toEqual([...full.apps.keys()]);
    // The RM's own counters, where a full snapshot derives them from the containers it read: the same here.
    for (const [id, a] of s.apps) expect({ ...a, runningContainers: 0 }).toEqual({ ...full.apps.get(id)!, runningContainers: 0 });
    expect(s.rootQueue).toEqual(full.rootQueue);
  });

  it('every part: as without parts (no `parts` on the snapshot)', async () => {
    const s = await new YarnBackend({ rmUrl: rm.url, client: client(rm.url) }).snapshot({ parts: ['containers'] });
    expect(s.parts).toBeUndefined();
    expect(s.containers.size).toBeGreaterThan(0);
    expect(s.nodes.size).toBeGreaterThan(0);
  });

  it('asking for more parts than the last refresh reads them as a first snapshot does', async () => {
    const synthetic = await new SyntheticRm({ nodes: 20, apps: 30, containers: 150, finishedApps: 2 }).start();
    try {
      const backend = new YarnBackend({ rmUrl: synthetic.url, client: client(synthetic.url) });
      const fresh = new YarnBackend({ rmUrl: synthetic.url, client: client(synthetic.url) });
      await backend.snapshot();
      await backend.snapshot({ parts: ['apps'] });
      synthetic.grow(2);
      const again = await backend.snapshot();
      const first = await fresh.snapshot();
      expect([...again.containers.keys()].sort()).toEqual([...first.containers.keys()].sort());
      expect([...again.nodes.values()].map((n) => [n.id, n.containerIds.length])).toEqual([...first.nodes.values()].map((n) => [n.id, n.containerIds.length]));
      expect(again.totalCapacity).toEqual(first.totalCapacity);
      // The synthetic RM's root resource totals its nodes, as the node list does.
      expect((await fresh.snapshot({ parts: [] })).totalCapacity).toEqual(first.totalCapacity);
    } finally {
      await synthetic.stop();
    }
  });
});
