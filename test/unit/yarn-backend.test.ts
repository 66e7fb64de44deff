/**
 * YarnBackend against a fake RM serving recorded answers (test/fixtures/rm): the snapshot it
 * builds, what each action sends, and how refusals come back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.js';
import { RmProtocolError, RmUnavailableError } from '../../src/core/errors.js';
import { findQueue } from '../../src/core/model.js';
import { sum } from '../../src/core/resources.js';
import { YarnBackend, parseTags, queueUpdateProblem, resolveQueuePath, toQueueTree } from '../../src/yarn/backend.js';
import { RmClient } from '../../src/yarn/client.js';
import type { NodeShim, RankingPublication, ShimContainer } from '../../src/yarn/shim-contract.js';
import { FakeRm, fixture, fixtureText } from './yarn-fake-rm.js';

const JSON_TYPE = 'application/json;charset=utf-8';
const RUNNING_APP = 'application_1795254945306_0001';
const RUNNING_ATTEMPT = 'appattempt_1795254945306_0001_000001';
const PENDING_APP = 'application_1795254678998_0006';
const ACCEPTED_APP = 'application_1795254678998_0007';

/** The recorded moment with one app running in root.default (AM + 2 tasks). */
function serveRunningCluster(rm: FakeRm): void {
  rm.on('GET /nodes', { body: fixtureText('nodes.json'), contentType: JSON_TYPE });
  rm.on('GET /scheduler', { body: fixtureText('scheduler.json'), contentType: JSON_TYPE });
  rm.on('GET /apps', { body: fixtureText('apps-running.json'), contentType: JSON_TYPE });
  rm.on(`GET /apps/${RUNNING_APP}/appattempts`, { body: fixtureText('appattempts.json'), contentType: JSON_TYPE });
  rm.on(`GET /apps/${RUNNING_APP}/appattempts/${RUNNING_ATTEMPT}/containers`, { body: fixtureText('containers.json'), contentType: JSON_TYPE });
}

/** The recorded moment with outstanding requests (pending-*.json). */
function servePendingCluster(rm: FakeRm): void {
  rm.on('GET /nodes', { body: fixtureText('pending-nodes.json'), contentType: JSON_TYPE });
  rm.on('GET /scheduler', { body: fixtureText('pending-scheduler.json'), contentType: JSON_TYPE });
  rm.on('GET /apps', { body: fixtureText('pending-apps.json'), contentType: JSON_TYPE });
  for (const app of [PENDING_APP, ACCEPTED_APP]) {
    const attempt = app.replace('application_', 'appattempt_') + '_000001';
    rm.on(`GET /apps/${app}/appattempts`, { body: fixtureText(`pending-appattempts-${app}.json`), contentType: JSON_TYPE });
    rm.on(`GET /apps/${app}/appattempts/${attempt}/containers`, { body: fixtureText(`pending-containers-${app}.json`), contentType: JSON_TYPE });
  }
}

class FakeShim implements NodeShim {
  calls: string[] = [];
  published: RankingPublication[] = [];
  failWith?: Error;
  constructor(private readonly list: ShimContainer[] = []) {}
  async containers(): Promise<ShimContainer[]> {
    if (this.failWith) throw this.failWith;
    return this.list;
  }
  async suspend(nodeId: string, containerId: string): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.calls.push(`suspend ${nodeId} ${containerId}`);
  }
  async resume(nodeId: string, containerId: string): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.calls.push(`resume ${nodeId} ${containerId}`);
  }
  async renewLease(): Promise<void> {}
  async publishRanking(r: RankingPublication): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.published.push(r);
  }
}

let rm: FakeRm;
const backendFor = (extra: { shim?: NodeShim; physicalCapacities?: Record<string, { memoryMB: number; vcores: number }> } = {}) =>
  new YarnBackend({
    rmUrl: rm.url,
    client: new RmClient({ rmUrl: rm.url, user: 'schedbrain', requestTimeoutMs: 2_000, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } }),
    ...extra,
  });

beforeEach(async () => {
  rm = await new FakeRm().start();
});
afterEach(async () => {
  await rm.stop();
});

describe('snapshot', () => {
  it('app counters agree with the containers listed, even when the RM counted between two reads', async () => {
    serveRunningCluster(rm);
    // The apps read saw one more container than the containers read a moment later (an AM
    // releasing an extra allocation does this): the snapshot must still agree with itself.
    const apps = fixture('apps-running.json');
    apps.apps.app = apps.apps.app.map((a: { id: string; runningContainers: number }) =>
      a.id === RUNNING_APP ? { ...a, runningContainers: a.runningContainers + 1 } : a,
    );
    rm.on('GET /apps', { body: apps });
    const s = await backendFor().snapshot();
    const mine = [...s.containers.values()].filter((c) => c.appId === RUNNING_APP);
    expect(mine.length).toBeGreaterThan(0);
    expect(s.apps.get(RUNNING_APP)!.runningContainers).toBe(mine.length);
    expect(s.apps.get(RUNNING_APP)!.allocated).toEqual(sum(mine.map((c) => c.resource)));
  });

  it('keeps apps that ended lately in view, asking the RM for final states since a recent time', async () => {
    serveRunningCluster(rm);
    const killedApp = fixture('app-killed.json').app;
    const live = fixture('apps-running.json');
    const live2 = { apps: { app: live.apps.app.filter((a: { id: string }) => a.id !== killedApp.id) } };
    rm.on('GET /apps', (req) => ({ body: req.query.get('states') === 'FINISHED,FAILED,KILLED' ? { apps: { app: [killedApp] } } : live2 }));
    const before = Date.now();
    const s = await backendFor().snapshot();
    expect(s.apps.get(killedApp.id)?.state).toBe('KILLED');
    const finishedRead = rm.requests.find((r) => r.path.endsWith('/apps') && r.query.get('states') === 'FINISHED,FAILED,KILLED')!;
    expect(Number(finishedRead.query.get('finishedTimeBegin'))).toBeLessThan(before);
  });

  it('builds nodes, queues, apps and containers from the recorded running cluster', async () => {
    serveRunningCluster(rm);
    const snap = await backendFor().snapshot();
    const rawNodes = fixture('nodes.json').nodes.node as {
      id: string;
      totalResource: { memory: number; vCores: number };
      usedMemoryMB: number;
      rack: string;
    }[];
    const rawContainers = fixture('containers.json').container as {
      containerId: string;
      assignedNodeId: string;
      allocatedMB: string;
      allocatedVCores: string;
      startedTime: string;
    }[];
    const rawApp = fixture('apps-running.json').apps.app[0];

    expect([...snap.nodes.keys()]).toEqual(rawNodes.map((n) => n.id));
    for (const raw of rawNodes) {
      const n = snap.nodes.get(raw.id)!;
      expect(n.state).toBe('RUNNING');
      expect(n.rack).toBe(raw.rack);
      expect(n.capacity).toEqual({ memoryMB: raw.totalResource.memory, vcores: raw.totalResource.vCores });
      expect(n.physicalCapacity).toEqual(n.capacity);
      expect(n.used.memoryMB).toBe(raw.usedMemoryMB);
      expect([...n.containerIds].sort()).toEqual(
        rawContainers
          .filter((c) => c.assignedNodeId === raw.id)
          .map((c) => c.containerId)
          .sort(),
      );
    }
    expect(snap.totalCapacity).toEqual({
      memoryMB: rawNodes.reduce((m, n) => m + n.totalResource.memory, 0),
      vcores: rawNodes.reduce((m, n) => m + n.totalResource.vCores, 0),
    });

    expect(snap.rootQueue.path).toBe('root');
    expect(snap.rootQueue.children.map((q) => q.path)).toEqual(['root.default']);
    const def = findQueue(snap.rootQueue, 'root.default')!;
    expect(def).toMatchObject({ capacityPct: 100, maxCapacityPct: 100, state: 'RUNNING', numApplications: 1, children: [] });
    expect(def.used).toEqual({ memoryMB: rawApp.allocatedMB, vcores: rawApp.allocatedVCores });

    const app = snap.apps.get(RUNNING_APP)!;
    expect(app).toMatchObject({
      name: rawApp.name,
      user: rawApp.user,
      queue: 'root.default',
      state: 'RUNNING',
      priority: 2,
      submittedAtMs: rawApp.startedTime,
      startedAtMs: rawApp.launchTime,
      pendingContainers: 0,
      runningContainers: 3,
      allocated: { memoryMB: rawApp.allocatedMB, vcores: rawApp.allocatedVCores },
      tags: { 'schedbrain.estimate-ms': '120000', 'schedbrain.class': 'long' },
    });
    expect(app.pendingContainerResource).toBeUndefined();

    expect(snap.containers.size).toBe(rawContainers.length);
    for (const raw of rawContainers) {
      expect(snap.containers.get(raw.containerId)).toEqual({
        id: raw.containerId,
        appId: RUNNING_APP,
        nodeId: raw.assignedNodeId,
        resource: { memoryMB: Number(raw.allocatedMB), vcores: Number(raw.allocatedVCores) },
        state: 'RUNNING',
        startedAtMs: Number(raw.startedTime),
        ...(raw.containerId.endsWith('_000001') ? { appMaster: true } : {}),
      });
    }
    // Only live apps are asked for.
    const appsQuery = rm.requests.find((r) => r.path === '/apps')!.query.get('states');
    expect(appsQuery?.split(',').sort()).toEqual(['ACCEPTED', 'NEW', 'NEW_SAVING', 'RUNNING', 'SUBMITTED']);
  });

  it('pending requests: counts ANY requests, largest ask; ACCEPTED apps are not asked for containers', async () => {
    servePendingCluster(rm);
    const snap = await backendFor().snapshot();
    const running = snap.apps.get(PENDING_APP)!;
    expect(running).toMatchObject({ state: 'RUNNING', pendingContainers: 2, pendingContainerResource: { memoryMB: 2048, vcores: 1 }, runningContainers: 1 });
    const accepted = snap.apps.get(ACCEPTED_APP)!;
    expect(accepted).toMatchObject({
      state: 'ACCEPTED',
      pendingContainers: 1,
      pendingContainerResource: { memoryMB: 256, vcores: 1 },
      priority: 4,
      tags: { team: 'etl' },
    });
    expect(accepted.startedAtMs).toBeUndefined();
    expect(rm.callsTo(`GET /apps/${ACCEPTED_APP}/appattempts`)).toBe(0);
    // The single AM container (a bare object in the recording).
    const mine = [...snap.containers.values()].filter((c) => c.appId === PENDING_APP);
    expect(mine).toHaveLength(1);
    expect(snap.nodes.get('localhost:43511')!.capacity).toEqual({ memoryMB: 1024, vcores: 2 });
  });

  it("marks the current attempt's AM container, and only it, as the app master", async () => {
    serveRunningCluster(rm);
    const snap = await backendFor().snapshot();
    const am = fixture('appattempts.json').appAttempts.appAttempt[0].containerId as string;
    const mine = [...snap.containers.values()].filter((c) => c.appId === RUNNING_APP);
    expect(mine.length).toBeGreaterThan(1);
    expect(mine.filter((c) => c.appMaster).map((c) => c.id)).toEqual([am]);
    expect(mine.filter((c) => c.id !== am).every((c) => c.appMaster === undefined)).toBe(true);
  });

  it('remembers the physical capacity seen before an over-commit', async () => {
    serveRunningCluster(rm);
    const backend = backendFor();
    const before = await backend.snapshot();
    const nodeId = fixture('node-overcommitted.json').node.id as string;
    const physical = before.nodes.get(nodeId)!.capacity;

    // The RM's later answer: the same node list with that node as recorded after POST resource.
    const later = fixture('nodes.json');
    later.nodes.node = later.nodes.node.map((n: { id: string }) => (n.id === nodeId ? fixture('node-overcommitted.json').node : n));
    rm.on('GET /nodes', { body: later });
    const after = await backend.snapshot();
    expect(after.nodes.get(nodeId)!.capacity).toEqual({ memoryMB: 6144, vcores: 6 });
    expect(after.nodes.get(nodeId)!.physicalCapacity).toEqual(physical);

    // A brain restarted after the over-commit learns the physical figure from its config.
    const restarted = backendFor({ physicalCapacities: { [nodeId]: physical } });
    expect((await restarted.snapshot()).nodes.get(nodeId)!.physicalCapacity).toEqual(physical);
  });

  it('merges the shim view: suspended state, attained service, running-since', async () => {
    serveRunningCluster(rm);
    const c = fixture('containers.json').container[1];
    const shim = new FakeShim([{ containerId: c.containerId, nodeId: c.assignedNodeId, state: 'SUSPENDED', attainedServiceMs: 4_200, runningSinceMs: 1_000 }]);
    const snap = await backendFor({ shim }).snapshot();
    expect(snap.containers.get(c.containerId)).toMatchObject({ state: 'SUSPENDED', attainedServiceMs: 4_200, runningSinceMs: 1_000 });
    const other = fixture('containers.json').container[0].containerId;
    expect(snap.containers.get(other)!.state).toBe('RUNNING');
    expect(snap.containers.get(other)!.attainedServiceMs).toBeUndefined();
  });

  it('an unreachable shim does not break the snapshot', async () => {
    serveRunningCluster(rm);
    const shim = new FakeShim();
    shim.failWith = new RmUnavailableError('shim down');
    const snap = await backendFor({ shim }).snapshot();
    expect(snap.containers.size).toBe(3);
  });

  it('an app that finishes between the listing and its attempts read has no containers', async () => {
    serveRunningCluster(rm);
    rm.on(`GET /apps/${RUNNING_APP}/appattempts`, { status: 404, body: fixtureText('error-404-app-not-found.json'), contentType: JSON_TYPE });
    const snap = await backendFor().snapshot();
    expect(snap.apps.has(RUNNING_APP)).toBe(true);
    expect(snap.containers.size).toBe(0);
  });

  it('a scheduler other than the CapacityScheduler is a protocol error', async () => {
    serveRunningCluster(rm);
    const sched = fixture('scheduler.json');
    sched.scheduler.schedulerInfo.type = 'fifoScheduler';
    rm.on('GET /scheduler', { body: sched });
    await expect(backendFor().snapshot()).rejects.toBeInstanceOf(RmProtocolError);
  });

  it('an RM that is down makes snapshot() throw RmUnavailableError', async () => {
    serveRunningCluster(rm);
    rm.on('GET /nodes', { status: 503, body: 'down' });
    await expect(backendFor().snapshot()).rejects.toBeInstanceOf(RmUnavailableError);
  });
});

describe('apply', () => {
  const puts = () => rm.requests.filter((r) => r.method !== 'GET');

  describe('updateQueues', () => {
    const action: Action = {
      kind: 'updateQueues',
      add: [{ path: 'root.batch', capacityPct: 40, maxCapacityPct: 100 }],
      update: [{ path: 'root.default', capacityPct: 60 }],
    };

    it('sends one scheduler-conf mutation with the adds and updates together', async () => {
      rm.on('GET /scheduler', { body: fixtureText('scheduler-idle.json'), contentType: JSON_TYPE });
      rm.on('PUT /scheduler-conf', { body: fixtureText('put-scheduler-conf-ok.txt'), contentType: JSON_TYPE });
      const outcome = await backendFor().apply(action);
      expect(outcome).toEqual({ status: 'applied', detail: fixtureText('put-scheduler-conf-ok.txt').trim() });
      expect(puts()).toHaveLength(1);
      const put = puts()[0]!;
      expect(put.query.get('user.name')).toBe('schedbrain');
      expect(JSON.parse(put.body)).toEqual({
        'add-queue': [
          {
            'queue-name': 'root.batch',
            params: {
              entry: [
                { key: 'capacity', value: '40' },
                { key: 'maximum-capacity', value: '100' },
              ],
            },
          },
        ],
        'update-queue': [{ 'queue-name': 'root.default', params: { entry: [{ key: 'capacity', value: '60' }] } }],
      });
    });

    it('a refusal comes back failed with the RM reason, not retryable', async () => {
      rm.on('GET /scheduler', { body: fixtureText('scheduler-idle.json'), contentType: JSON_TYPE });
      rm.on('PUT /scheduler-conf', { status: 400, body: fixtureText('error-400-put-scheduler-conf-bad.json'), contentType: JSON_TYPE });
      const outcome = await backendFor().apply(action);
      expect(outcome).toEqual({
        status: 'failed',
        error: `RM refused (400): ${fixtureText('error-400-put-scheduler-conf-bad.json').trim()}`,
        retryable: false,
      });
      expect(rm.callsTo('PUT /scheduler-conf')).toBe(1);
    });

    it('a read-only store fails, not retryable, saying so', async () => {
      rm.on('GET /scheduler', { body: fixtureText('scheduler-idle.json'), contentType: JSON_TYPE });
      rm.on('PUT /scheduler-conf', { status: 400, body: fixtureText('error-400-put-scheduler-conf-file-store.txt'), contentType: JSON_TYPE });
      const outcome = await backendFor().apply(action);
      expect(outcome).toMatchObject({ status: 'failed', retryable: false });
      if (outcome.status === 'failed') expect(outcome.error).toMatch(/read-only/);
    });

    it('unknown queues are refused before anything is sent (the RM would answer 200 and ignore them)', async () => {
      rm.on('GET /scheduler', { body: fixtureText('scheduler-idle.json'), contentType: JSON_TYPE });
      const backend = backendFor();
      expect(await backend.apply({ kind: 'updateQueues', add: [], update: [{ path: 'root.nosuch', capacityPct: 10 }] })).toMatchObject({
        status: 'failed',
        retryable: false,
      });
      expect(await backend.apply({ kind: 'updateQueues', add: [{ path: 'root.default', capacityPct: 10, maxCapacityPct: 100 }], update: [] })).toMatchObject({
        status: 'failed',
      });
      expect(await backend.apply({ kind: 'updateQueues', add: [{ path: 'root.x.y', capacityPct: 10, maxCapacityPct: 100 }], update: [] })).toMatchObject({
        status: 'failed',
      });
      expect(puts()).toHaveLength(0);
    });

    it('an RM that is down is a retryable failure', async () => {
      rm.on('GET /scheduler', { status: 503, body: 'down' });
      expect(await backendFor().apply(action)).toMatchObject({ status: 'failed', retryable: true });
    });

    it('nothing to change is a noop', async () => {
      expect(await backendFor().apply({ kind: 'updateQueues', add: [], update: [] })).toMatchObject({ status: 'noop' });
      expect(rm.requests).toHaveLength(0);
    });
  });

  it('setAppPriority sends {"priority":n} and reports a capped answer', async () => {
    rm.on(`PUT /apps/${RUNNING_APP}/priority`, { body: fixtureText('put-app-priority.json'), contentType: JSON_TYPE });
    const backend = backendFor();
    expect(await backend.apply({ kind: 'setAppPriority', appId: RUNNING_APP, priority: 5 })).toEqual({ status: 'applied' });
    expect(JSON.parse(puts()[0]!.body)).toEqual({ priority: 5 });
    const capped = await backend.apply({ kind: 'setAppPriority', appId: RUNNING_APP, priority: 50 });
    expect(capped.status).toBe('applied');
    if (capped.status === 'applied') expect(capped.detail).toMatch(/RM set priority 5 \(asked 50/);
  });

  it('moveApp resolves the target to a leaf path and sends {"queue":path}', async () => {
    rm.on('GET /scheduler', { body: fixtureText('scheduler-two-queues.json'), contentType: JSON_TYPE });
    rm.on(`PUT /apps/${RUNNING_APP}/queue`, { body: fixtureText('put-app-queue.json'), contentType: JSON_TYPE });
    expect(await backendFor().apply({ kind: 'moveApp', appId: RUNNING_APP, queue: 'batch' })).toEqual({ status: 'applied' });
    expect(JSON.parse(puts()[0]!.body)).toEqual({ queue: 'root.batch' });
  });

  it('moveApp to a missing or parent queue fails with the reason and sends nothing', async () => {
    rm.on('GET /scheduler', { body: fixtureText('scheduler-two-queues.json'), contentType: JSON_TYPE });
    const backend = backendFor();
    const missing = await backend.apply({ kind: 'moveApp', appId: RUNNING_APP, queue: 'root.nosuchqueue' });
    expect(missing).toEqual({ status: 'failed', error: `cannot move ${RUNNING_APP}: queue root.nosuchqueue does not exist`, retryable: false });
    expect(await backend.apply({ kind: 'moveApp', appId: RUNNING_APP, queue: 'root' })).toMatchObject({ status: 'failed', retryable: false });
    expect(puts()).toHaveLength(0);
  });

  it('killApp sends {"state":"KILLED"}; 202 means in progress', async () => {
    rm.on(`PUT /apps/${RUNNING_APP}/state`, { status: 202, body: fixtureText('put-app-state-kill-202.json'), contentType: JSON_TYPE });
    expect(await backendFor().apply({ kind: 'killApp', appId: RUNNING_APP })).toEqual({ status: 'applied', detail: 'kill in progress' });
    expect(JSON.parse(puts()[0]!.body)).toEqual({ state: 'KILLED' });
  });

  it('setNodeResource posts resource + overCommitTimeout -1 and remembers the physical capacity first', async () => {
    const nodeId = fixture('node.json').node.id as string;
    rm.on(`GET /nodes/${nodeId}`, { body: fixtureText('node.json'), contentType: JSON_TYPE });
    rm.on(`POST /nodes/${nodeId}/resource`, { body: fixtureText('post-node-resource.json'), contentType: JSON_TYPE });
    serveRunningCluster(rm);
    const backend = backendFor();
    expect(await backend.apply({ kind: 'setNodeResource', nodeId, resource: { memoryMB: 6144, vcores: 6 } })).toEqual({ status: 'applied' });
    const post = puts()[0]!;
    expect(post.query.get('user.name')).toBe('schedbrain');
    expect(JSON.parse(post.body)).toEqual({ resource: { memory: 6144, vCores: 6 }, overCommitTimeout: -1 });
    const later = fixture('nodes.json');
    later.nodes.node = later.nodes.node.map((n: { id: string }) => (n.id === nodeId ? fixture('node-overcommitted.json').node : n));
    rm.on('GET /nodes', { body: later });
    const node = (await backend.snapshot()).nodes.get(nodeId)!;
    const recorded = fixture('node.json').node.totalResource;
    expect(node.physicalCapacity).toEqual({ memoryMB: recorded.memory, vcores: recorded.vCores });
    expect(node.capacity).toEqual({ memoryMB: 6144, vcores: 6 });
  });

  it('an action already true of the cluster is a noop and sends no write', async () => {
    const recorded = fixture('node.json').node;
    rm.on(`GET /nodes/${recorded.id}`, { body: fixtureText('node.json'), contentType: JSON_TYPE });
    const same = { memoryMB: recorded.totalResource.memory, vcores: recorded.totalResource.vCores };
    expect(await backendFor().apply({ kind: 'setNodeResource', nodeId: recorded.id, resource: same })).toMatchObject({ status: 'noop' });
    expect(puts()).toHaveLength(0);
  });

  it('setNodeResource on an unknown node fails, not retryable', async () => {
    rm.on('GET /nodes/nosuchhost:1', { status: 404, body: fixtureText('error-404-post-node-resource-unknown-node.json'), contentType: JSON_TYPE });
    const outcome = await backendFor().apply({ kind: 'setNodeResource', nodeId: 'nosuchhost:1', resource: { memoryMB: 1024, vcores: 1 } });
    expect(outcome).toMatchObject({ status: 'failed', retryable: false });
    if (outcome.status === 'failed') expect(outcome.error).toMatch(/nosuchhost:1, is not found/);
  });

  it('killContainer signals FORCEFUL_SHUTDOWN; an absent container is a noop', async () => {
    const id = 'container_1795254945306_0001_01_000003';
    rm.on(`POST /containers/${id}/signal/FORCEFUL_SHUTDOWN`, { status: 200, body: '' });
    const backend = backendFor();
    expect(await backend.apply({ kind: 'killContainer', containerId: id, nodeId: 'localhost:33135' })).toEqual({ status: 'applied' });
    expect(puts()[0]!.query.get('user.name')).toBe('schedbrain');
    rm.on(`POST /containers/${id}/signal/FORCEFUL_SHUTDOWN`, {
      status: 500,
      body: fixtureText('error-500-signal-absent-container.txt'),
      contentType: JSON_TYPE,
    });
    expect(await backend.apply({ kind: 'killContainer', containerId: id, nodeId: 'localhost:33135' })).toMatchObject({ status: 'noop' });
    expect(rm.callsTo(`POST /containers/${id}/signal/FORCEFUL_SHUTDOWN`)).toBe(2);
  });

  it('suspend, resume and rankNodes without a shim fail, not retryable', async () => {
    const backend = backendFor();
    for (const action of [
      { kind: 'suspendContainer', containerId: 'c1', nodeId: 'n1' },
      { kind: 'resumeContainer', containerId: 'c1', nodeId: 'n1' },
      { kind: 'rankNodes', scores: { n1: 1 }, leastLoadedFirst: false, partial: false },
    ] as Action[]) {
      const outcome = await backend.apply(action);
      expect(outcome).toMatchObject({ status: 'failed', retryable: false });
      if (outcome.status === 'failed') expect(outcome.error).toMatch(/no NodeManager shim/);
    }
    expect(rm.requests).toHaveLength(0);
  });

  it('suspend and resume go to the shim; an unreachable shim is retryable', async () => {
    const shim = new FakeShim();
    const backend = backendFor({ shim });
    expect(await backend.apply({ kind: 'suspendContainer', containerId: 'c1', nodeId: 'n1' })).toEqual({ status: 'applied' });
    expect(await backend.apply({ kind: 'resumeContainer', containerId: 'c1', nodeId: 'n1' })).toEqual({ status: 'applied' });
    expect(shim.calls).toEqual(['suspend n1 c1', 'resume n1 c1']);
    shim.failWith = new RmUnavailableError('shim on n1 unreachable');
    expect(await backend.apply({ kind: 'suspendContainer', containerId: 'c1', nodeId: 'n1' })).toEqual({
      status: 'failed',
      error: 'shim on n1 unreachable',
      retryable: true,
    });
  });

  it('rankNodes publishes the ranking; a partial ranking is merged into the last one', async () => {
    const shim = new FakeShim();
    const backend = backendFor({ shim });
    await backend.apply({ kind: 'rankNodes', scores: { a: 1, b: 2 }, leastLoadedFirst: true, partial: false });
    await backend.apply({ kind: 'rankNodes', scores: { b: 0, c: 3 }, leastLoadedFirst: false, partial: true });
    await backend.apply({ kind: 'rankNodes', scores: { d: 1 }, leastLoadedFirst: false, partial: false });
    expect(shim.published.map((p) => p.scores)).toEqual([{ a: 1, b: 2 }, { a: 1, b: 0, c: 3 }, { d: 1 }]);
    expect(shim.published.map((p) => p.leastLoadedFirst)).toEqual([true, false, false]);
    expect(shim.published.every((p) => p.ttlMs > 0)).toBe(true);
  });
});

describe('capabilities', () => {
  it('mutable store, no shim', async () => {
    rm.on('GET /scheduler-conf', { body: fixtureText('scheduler-conf.json'), contentType: JSON_TYPE });
    const caps = await backendFor().capabilities();
    expect(caps).toMatchObject({ queueWrites: true, containerSuspend: false, nodeRanking: false });
    expect(caps.notes.some((n) => n.startsWith('containerSuspend:') && /shim/.test(n))).toBe(true);
    expect(caps.notes.some((n) => n.startsWith('nodeRanking:'))).toBe(true);
    expect(caps.notes.some((n) => n.startsWith('queueWrites:'))).toBe(false);
  });

  it('read-only store → queueWrites false with the reason', async () => {
    rm.on('GET /scheduler-conf', { status: 400, body: fixtureText('error-400-scheduler-conf-get-file-store.txt'), contentType: JSON_TYPE });
    const caps = await backendFor().capabilities();
    expect(caps.queueWrites).toBe(false);
    expect(caps.notes.find((n) => n.startsWith('queueWrites:'))).toMatch(/read-only/);
  });

  it('shim reachable → suspend and ranking; unreachable → neither, with the reason', async () => {
    rm.on('GET /scheduler-conf', { body: fixtureText('scheduler-conf.json'), contentType: JSON_TYPE });
    const shim = new FakeShim();
    const up = await backendFor({ shim }).capabilities();
    expect(up).toMatchObject({ queueWrites: true, containerSuspend: true, nodeRanking: true });
    shim.failWith = new RmUnavailableError('connect ECONNREFUSED');
    const down = await backendFor({ shim }).capabilities();
    expect(down).toMatchObject({ containerSuspend: false, nodeRanking: false });
    expect(down.notes.join('\n')).toMatch(/unreachable: connect ECONNREFUSED/);
  });
});

describe('helpers', () => {
  it('parseTags: k=v entries, bare tags, values with "="', () => {
    expect(parseTags('schedbrain.class=long,schedbrain.estimate-ms=120000')).toEqual({ 'schedbrain.class': 'long', 'schedbrain.estimate-ms': '120000' });
    expect(parseTags('adhoc, a=b=c')).toEqual({ adhoc: '', a: 'b=c' });
    expect(parseTags('')).toEqual({});
    expect(parseTags(undefined)).toEqual({});
  });

  it('resolveQueuePath: full paths kept, unique leaf names resolved', () => {
    const tree = toQueueTree(fixture('scheduler-two-queues.json').scheduler.schedulerInfo);
    const leaves = new Map([
      ['batch', ['root.batch']],
      ['default', ['root.default']],
    ]);
    expect(resolveQueuePath('root.batch', leaves)).toBe('root.batch');
    expect(resolveQueuePath('batch', leaves)).toBe('root.batch');
    expect(findQueue(tree, 'root.batch')?.capacityPct).toBe(40);
  });

  it('queueUpdateProblem: adds under new parents in the same action are allowed', () => {
    const tree = toQueueTree(fixture('scheduler-idle.json').scheduler.schedulerInfo);
    expect(
      queueUpdateProblem(
        {
          kind: 'updateQueues',
          add: [
            { path: 'root.p', capacityPct: 50, maxCapacityPct: 100 },
            { path: 'root.p.q', capacityPct: 100, maxCapacityPct: 100 },
          ],
          update: [{ path: 'root.default', capacityPct: 50 }],
        },
        tree,
      ),
    ).toBeUndefined();
  });
});
