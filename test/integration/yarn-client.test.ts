/**
 * The YARN backend against a real ResourceManager (the shared MiniYARNCluster): every read
 * shape, and every write action applied and then read back from the RM.
 *
 * The cluster is shared with the other integration files, so whatever this file changes (queues,
 * node capacities, apps) it restores or cleans up before it ends.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findQueue, type ClusterSnapshot } from '../../src/core/model.js';
import { RmRejectedError } from '../../src/core/errors.js';
import { YarnBackend } from '../../src/yarn/backend.js';
import type { RmClient } from '../../src/yarn/client.js';
import { HttpNodeShim } from '../../src/yarn/shim-client.js';
import { submitJob } from '../../src/yarn/workload.js';
import { containerViews, eventually, shimSecret, shimUrl } from './helpers.js';

const rmUrl = inject('rmUrl');
const confDir = inject('confDir');

/** Unique per run: the queue tree outlives this file within one cluster. */
const testQueue = `sbq${Date.now() % 100_000}`;
const testQueuePath = `root.${testQueue}`;
const testQueuePct = 20;

describe('YarnBackend against a real ResourceManager', () => {
  let backend: YarnBackend;
  let client: RmClient;
  let appId: string;
  let queueAdded = false;
  let defaultPctBefore = 100;
  const restoreNodes = new Map<string, { memoryMB: number; vcores: number }>();

  beforeAll(async () => {
    backend = new YarnBackend({ rmUrl, user: 'schedbrain', requestTimeoutMs: 10_000 });
    client = backend.client;
    ({ appId } = await submitJob(confDir, {
      name: 'yarn-client-it',
      queue: 'default',
      priority: 1,
      tags: { 'schedbrain.estimate-ms': '60000', team: 'it' },
      containers: 2,
      memoryMB: 256,
      vcores: 1,
      command: { kind: 'sleep', seconds: 600 },
    }));
  });

  afterAll(async () => {
    if (!client) return;
    for (const [nodeId, r] of restoreNodes) await client.setNodeResource(nodeId, r).catch(() => undefined);
    if (appId) await client.killApp(appId).catch(() => undefined);
    if (queueAdded) {
      // A queue must be STOPPED before removal; the removal and the sibling restore go together.
      await eventually(
        'test queue drained',
        async () =>
          (await client.apps({ queue: testQueue, states: ['NEW', 'NEW_SAVING', 'SUBMITTED', 'ACCEPTED', 'RUNNING'] })).length === 0 ? true : undefined,
        60_000,
      );
      await client.updateSchedulerConf({ updateQueues: [{ queue: testQueuePath, params: { state: 'STOPPED' } }] }).catch(() => undefined);
      await client
        .updateSchedulerConf({ removeQueues: [testQueuePath], updateQueues: [{ queue: 'root.default', params: { capacity: String(defaultPctBefore) } }] })
        .catch((e: unknown) => console.warn(`could not remove ${testQueuePath}: ${(e as Error).message}`));
    }
  });

  it('reads the cluster info, metrics and scheduler conf', async () => {
    const info = await client.clusterInfo();
    expect(info.state).toBe('STARTED');
    const metrics = await client.metrics();
    expect(metrics.activeNodes).toBeGreaterThan(0);
    const conf = await client.schedulerConf();
    expect(conf.get('yarn.scheduler.capacity.root.queues')).toBeDefined();
    expect((await backend.capabilities()).queueWrites).toBe(true);
  });

  it('snapshot shows the nodes, the queue tree, the running app and its containers', async () => {
    const snap = await eventually<ClusterSnapshot>('app RUNNING with its task containers', async () => {
      const s = await backend.snapshot();
      const app = s.apps.get(appId);
      const containers = [...s.containers.values()].filter((c) => c.appId === appId);
      // AM + 2 tasks.
      return app?.state === 'RUNNING' && containers.length >= 3 ? s : undefined;
    });
    expect(snap.nodes.size).toBeGreaterThan(0);
    for (const n of snap.nodes.values()) {
      expect(n.state).toBe('RUNNING');
      expect(n.capacity.memoryMB).toBeGreaterThan(0);
      expect(n.capacity.vcores).toBeGreaterThan(0);
      expect(n.physicalCapacity).toEqual(n.capacity);
      expect(n.rack).toMatch(/^\//);
    }
    expect(snap.totalCapacity.memoryMB).toBe([...snap.nodes.values()].reduce((m, n) => m + n.capacity.memoryMB, 0));
    expect(snap.rootQueue.path).toBe('root');
    const def = findQueue(snap.rootQueue, 'root.default');
    expect(def).toBeDefined();
    expect(def!.numApplications).toBeGreaterThanOrEqual(1);

    const app = snap.apps.get(appId)!;
    expect(app.queue).toBe('root.default');
    expect(app.name).toBe('yarn-client-it');
    expect(app.tags).toMatchObject({ 'schedbrain.estimate-ms': '60000', team: 'it' });
    expect(app.priority).toBe(1);
    expect(app.runningContainers).toBeGreaterThanOrEqual(3);
    expect(app.allocated.memoryMB).toBeGreaterThan(0);
    expect(app.startedAtMs).toBeGreaterThanOrEqual(app.submittedAtMs);

    const mine = [...snap.containers.values()].filter((c) => c.appId === appId);
    for (const c of mine) {
      expect(snap.nodes.get(c.nodeId)?.containerIds).toContain(c.id);
      expect(c.state).toBe('RUNNING');
      expect(c.resource.memoryMB).toBeGreaterThan(0);
      expect(c.startedAtMs).toBeGreaterThan(0);
    }
  });

  it('updateQueues: adds a queue and resizes its sibling in one transaction', async () => {
    // Other files share the cluster: carve the new queue out of whatever root.default has now.
    const def = findQueue((await backend.snapshot()).rootQueue, 'root.default')!;
    defaultPctBefore = Math.round(def.capacityPct * 1000) / 1000;
    expect(defaultPctBefore).toBeGreaterThanOrEqual(2 * testQueuePct);
    const outcome = await backend.apply({
      kind: 'updateQueues',
      add: [{ path: testQueuePath, capacityPct: testQueuePct, maxCapacityPct: 100 }],
      update: [{ path: 'root.default', capacityPct: defaultPctBefore - testQueuePct, maxCapacityPct: 100 }],
    });
    expect(outcome).toMatchObject({ status: 'applied' });
    queueAdded = true;
    const snap = await backend.snapshot();
    const added = findQueue(snap.rootQueue, testQueuePath);
    expect(added).toMatchObject({ maxCapacityPct: 100, state: 'RUNNING', children: [] });
    expect(added!.capacityPct).toBeCloseTo(testQueuePct, 3);
    expect(findQueue(snap.rootQueue, 'root.default')!.capacityPct).toBeCloseTo(defaultPctBefore - testQueuePct, 3);
    const conf = await client.schedulerConf();
    expect(Number(conf.get(`yarn.scheduler.capacity.${testQueuePath}.capacity`))).toBe(testQueuePct);
  });

  it('a refused queue update (siblings above 100) comes back failed with the RM reason and changes nothing', async () => {
    const before = await client.schedulerConfVersion();
    const outcome = await backend.apply({ kind: 'updateQueues', add: [], update: [{ path: testQueuePath, capacityPct: 100 }] });
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect(outcome.retryable).toBe(false);
    // The RM's own words, e.g. "Illegal capacity sum of 1.3 for children of queue root ...".
    expect(outcome.error).toMatch(/RM refused \(400\): .*capacity/i);
    const snap = await backend.snapshot();
    expect(findQueue(snap.rootQueue, testQueuePath)!.capacityPct).toBeCloseTo(testQueuePct, 3);
    expect(findQueue(snap.rootQueue, 'root.default')!.capacityPct).toBeCloseTo(defaultPctBefore - testQueuePct, 3);
    expect(await client.schedulerConfVersion()).toBe(before);
  });

  it('an update of a queue that does not exist fails before reaching the RM (which would accept and ignore it)', async () => {
    const before = await client.schedulerConfVersion();
    const outcome = await backend.apply({ kind: 'updateQueues', add: [], update: [{ path: 'root.nosuchqueue', capacityPct: 10 }] });
    expect(outcome).toMatchObject({ status: 'failed', retryable: false });
    if (outcome.status === 'failed') expect(outcome.error).toMatch(/root\.nosuchqueue/);
    expect(await client.schedulerConfVersion()).toBe(before);
  });

  it('setAppPriority is read back from the RM', async () => {
    expect(await backend.apply({ kind: 'setAppPriority', appId, priority: 7 })).toMatchObject({ status: 'applied' });
    expect((await client.app(appId)).priority).toBe(7);
    expect((await backend.snapshot()).apps.get(appId)?.priority).toBe(7);
  });

  it('moveApp moves the running app to another queue', async () => {
    expect(await backend.apply({ kind: 'moveApp', appId, queue: testQueuePath })).toMatchObject({ status: 'applied' });
    const snap = await backend.snapshot();
    expect(snap.apps.get(appId)?.queue).toBe(testQueuePath);
  });

  it('moveApp to a missing queue fails with the reason', async () => {
    const outcome = await backend.apply({ kind: 'moveApp', appId, queue: 'root.nosuchqueue' });
    expect(outcome).toMatchObject({ status: 'failed', retryable: false });
    if (outcome.status === 'failed') expect(outcome.error).toMatch(/nosuchqueue/);
    // What the RM itself answers (why the backend checks first): a bare 503
    // UndeclaredThrowableException, which the client must not retry as if the RM were down.
    const raw = await client.moveApp(appId, 'root.nosuchqueue').catch((e: unknown) => e);
    expect(raw).toBeInstanceOf(RmRejectedError);
    expect((raw as RmRejectedError).status).toBe(503);
    expect((raw as RmRejectedError).message).toMatch(/UndeclaredThrowableException/);
    expect((await client.app(appId)).queue).toBe(testQueuePath);
  });

  it('setNodeResource over-commits a node and restores it', async () => {
    const snap = await backend.snapshot();
    const node = [...snap.nodes.values()][0]!;
    const physical = node.physicalCapacity;
    restoreNodes.set(node.id, physical);
    const bigger = { memoryMB: physical.memoryMB + 2048, vcores: physical.vcores + 2 };
    expect(await backend.apply({ kind: 'setNodeResource', nodeId: node.id, resource: bigger })).toMatchObject({ status: 'applied' });
    const over = await eventually(
      'node capacity raised',
      async () => {
        const n = (await backend.snapshot()).nodes.get(node.id)!;
        return n.capacity.memoryMB === bigger.memoryMB ? n : undefined;
      },
      20_000,
    );
    expect(over.capacity).toEqual(bigger);
    expect(over.physicalCapacity).toEqual(physical);

    expect(await backend.apply({ kind: 'setNodeResource', nodeId: node.id, resource: physical })).toMatchObject({ status: 'applied' });
    const back = await eventually(
      'node capacity restored',
      async () => {
        const n = (await backend.snapshot()).nodes.get(node.id)!;
        return n.capacity.memoryMB === physical.memoryMB ? n : undefined;
      },
      20_000,
    );
    expect(back.capacity).toEqual(physical);
    restoreNodes.delete(node.id);
  });

  it('setNodeResource on an unknown node fails without retry', async () => {
    const outcome = await backend.apply({ kind: 'setNodeResource', nodeId: 'nosuchhost:1', resource: { memoryMB: 1024, vcores: 1 } });
    expect(outcome).toMatchObject({ status: 'failed', retryable: false });
  });

  it('killContainer stops one task container', async () => {
    const snap = await backend.snapshot();
    const app = snap.apps.get(appId)!;
    expect(app.runningContainers).toBeGreaterThanOrEqual(3);
    // Kill a task, not the AM. The RM lists allocated containers that were never launched
    // (or are about to be released) as live too, hence the shim check below.
    const tasks = [...snap.containers.values()].filter((c) => c.appId === appId && c.state === 'RUNNING' && !c.appMaster);
    expect(tasks.length).toBeGreaterThanOrEqual(2);
    let victim = tasks[0]!;
    // The RM reports a container RUNNING before its process has started, and the NodeManager
    // drops a signal to a container without a process (no pid yet) while the RM still answers
    // 200. The victim is a task whose process the shim already lists.
    const url = shimUrl();
    if (url) {
      const shim = new HttpNodeShim({ urls: [url], holder: `yarn-client-it-${process.pid}`, requestTimeoutMs: 10_000, secret: shimSecret() });
      const ids = new Set(tasks.map((t) => t.id));
      const listed = await eventually(
        'a task process of the app listed by the shim',
        async () => (await shim.containers()).find((c) => ids.has(c.containerId)),
        120_000,
        500,
        () => containerViews(rmUrl, appId),
      );
      victim = tasks.find((t) => t.id === listed.containerId)!;
    }
    expect(await backend.apply({ kind: 'killContainer', containerId: victim.id, nodeId: victim.nodeId })).toMatchObject({ status: 'applied' });
    await eventually(
      'container gone from the RM',
      async () => ((await backend.snapshot()).containers.has(victim.id) ? undefined : true),
      60_000,
      250,
      () => containerViews(rmUrl, appId),
    );
  });

  it('killApp kills the app', async () => {
    expect(await backend.apply({ kind: 'killApp', appId })).toMatchObject({ status: 'applied' });
    const app = await eventually(
      'app KILLED',
      async () => {
        const a = await client.app(appId);
        return a.state === 'KILLED' ? a : undefined;
      },
      60_000,
    );
    expect(app.finalStatus).toBe('KILLED');
    // Ended apps stay in the snapshot for a while (as in the simulator), in their final state.
    expect((await backend.snapshot()).apps.get(appId)?.state).toBe('KILLED');
  });

  it('remove-queue: a stopped queue is removed and its sibling restored in one mutation', async () => {
    // The app that lived in the queue is gone (previous test); a queue must be STOPPED first.
    await client.updateSchedulerConf({ updateQueues: [{ queue: testQueuePath, params: { state: 'STOPPED' } }] });
    expect(findQueue((await backend.snapshot()).rootQueue, testQueuePath)?.state).toBe('STOPPED');
    await client.updateSchedulerConf({
      removeQueues: [testQueuePath],
      updateQueues: [{ queue: 'root.default', params: { capacity: String(defaultPctBefore) } }],
    });
    queueAdded = false;
    const root = (await backend.snapshot()).rootQueue;
    expect(findQueue(root, testQueuePath)).toBeUndefined();
    expect(findQueue(root, 'root.default')!.capacityPct).toBeCloseTo(defaultPctBefore, 3);
  });

  it('suspend without a shim is a failed, non-retryable outcome', async () => {
    const outcome = await backend.apply({ kind: 'suspendContainer', containerId: 'container_1_0001_01_000002', nodeId: 'x:1' });
    expect(outcome).toMatchObject({ status: 'failed', retryable: false });
    const caps = await backend.capabilities();
    expect(caps.containerSuspend).toBe(false);
    expect(caps.notes.join('\n')).toMatch(/shim/);
  });

  it('an unknown app is a 404 RmRejectedError', async () => {
    await expect(client.app('application_1_9999')).rejects.toBeInstanceOf(RmRejectedError);
  });
});
