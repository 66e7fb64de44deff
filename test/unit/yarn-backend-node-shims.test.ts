/**
 * The YARN backend taking running containers from the NodeManager shims (one list request per
 * shim) instead of two RM requests per running application: the same snapshot as the RM's
 * per-app reads give, on the recorded fixtures and on random sequences of synthetic RM states;
 * the per-app reads back for what the shims cannot cover (a shim down, an older shim, a node
 * whose list disagrees with the RM's figures); change sets that match a full diff.
 */
import * as fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SyntheticRm } from '../../bench/synthetic-rm.js';
import { RmUnavailableError } from '../../src/core/errors.js';
import type { ClusterSnapshot } from '../../src/core/model.js';
import { amContainerIdOf, YarnBackend } from '../../src/yarn/backend.js';
import { RmClient } from '../../src/yarn/client.js';
import { HttpNodeShim } from '../../src/yarn/shim-client.js';
import type { NodeShim, NodeShimListing, ShimContainer } from '../../src/yarn/shim-contract.js';
import { viewsAtHand } from './node-views.js';
import { appFingerprints, diff, nodeFingerprints } from './snapshot-diff.js';
import { FakeRm, fixture, fixtureText } from './yarn-fake-rm.js';

const JSON_TYPE = 'application/json;charset=utf-8';
const APP = 'application_1795254945306_0001';
const ATTEMPT = 'appattempt_1795254945306_0001_000001';
const CONTAINERS = `GET /apps/${APP}/appattempts/${ATTEMPT}/containers`;
const fastRetry = { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 2 };

const client = (url: string) =>
  new RmClient({ rmUrl: url, user: 'schedbrain', requestTimeoutMs: 5_000, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });

/** The snapshot's content as the RM's reads give it: the shims' own figures (CPU accounting) left out. */
const content = (s: ClusterSnapshot) => ({
  nodes: [...s.nodes.values()].map((n) => ({ ...viewsAtHand(s, n), containerIds: [...n.containerIds].sort() })).sort((a, b) => a.id.localeCompare(b.id)),
  apps: [...s.apps.values()].sort((a, b) => a.id.localeCompare(b.id)),
  containers: [...s.containers.values()].map(({ attainedServiceMs: _a, runningSinceMs: _r, ...c }) => c).sort((a, b) => a.id.localeCompare(b.id)),
  totalCapacity: s.totalCapacity,
});

/** A backend reading the synthetic RM's node shims, each list again once older than `shimListMaxAgeMs`. */
const shimBackend = (synthetic: SyntheticRm, shimListMaxAgeMs: number) =>
  new YarnBackend({
    rmUrl: synthetic.url,
    client: client(synthetic.url),
    shim: new HttpNodeShim({ urls: synthetic.shimUrls(), retry: fastRetry }),
    shimListMaxAgeMs,
  });

/** The content of the snapshot the RM's per-app reads give of the synthetic RM now. */
const freshContent = async (synthetic: SyntheticRm) => content(await new YarnBackend({ rmUrl: synthetic.url, client: client(synthetic.url) }).snapshot());

const sorted = (s: ReadonlySet<string> | undefined) => (s === undefined ? undefined : [...s].sort());

describe('amContainerIdOf', () => {
  it("reads the AM container out of the app's amContainerLogs", () => {
    expect(amContainerIdOf('http://localhost:0/node/containerlogs/container_1795254945306_0001_01_000001/root')).toBe('container_1795254945306_0001_01_000001');
    expect(amContainerIdOf('http://h:8042/node/containerlogs/container_e17_1795254945306_0001_02_000001/u')).toBe('container_e17_1795254945306_0001_02_000001');
    expect(amContainerIdOf(undefined)).toBeUndefined();
    expect(amContainerIdOf('')).toBeUndefined();
  });
});

describe('on the recorded fixtures', () => {
  let rm: FakeRm;
  beforeEach(async () => {
    rm = await new FakeRm().start();
    rm.on('GET /nodes', { body: fixtureText('nodes.json'), contentType: JSON_TYPE });
    rm.on('GET /scheduler', { body: fixtureText('scheduler.json'), contentType: JSON_TYPE });
    rm.on('GET /apps', (req) => ({
      body: fixtureText(req.query.get('states')?.startsWith('FINISHED') ? 'apps-empty.json' : 'apps-running.json'),
      contentType: JSON_TYPE,
    }));
    rm.on(`GET /apps/${APP}/appattempts`, { body: fixtureText('appattempts.json'), contentType: JSON_TYPE });
    rm.on(CONTAINERS, { body: fixtureText('containers.json'), contentType: JSON_TYPE });
  });
  afterEach(async () => {
    await rm.stop();
  });

  /** What a contract-5 shim per node would list for the recorded containers (the AM flagged by its token). */
  const recordedShims = (opts: { withAllocation?: boolean; down?: ReadonlySet<string> } = {}) => {
    const recorded = fixture('containers.json').container as Array<Record<string, string>>;
    const nodes = (fixture('nodes.json').nodes.node as Array<{ id: string }>).map((n) => n.id);
    const reads: string[] = [];
    const suspended: string[] = [];
    const list = (nodeId: string): ShimContainer[] =>
      recorded
        .filter((c) => c.assignedNodeId === nodeId)
        .map((c) => ({
          containerId: c.containerId!,
          nodeId,
          state: suspended.includes(c.containerId!) ? 'SUSPENDED' : 'RUNNING',
          attainedServiceMs: 1234,
          runningSinceMs: Number(c.startedTime) + 50,
          ...(opts.withAllocation === false
            ? {}
            : {
                allocated: { memoryMB: Number(c.allocatedMB), vcores: Number(c.allocatedVCores) },
                createdAtMs: Number(c.startedTime),
                appMaster: c.containerId!.endsWith('_000001'),
              }),
        }));
    const shim: NodeShim = {
      containers: async () => {
        reads.push('*');
        return nodes.flatMap(list);
      },
      suspend: async (_nodeId: string, containerId: string) => {
        suspended.push(containerId);
      },
      resume: async () => {},
      renewLease: async () => {},
      publishRanking: async () => {},
      nodeShimUrls: () => nodes.map((n) => `shim://${n}`),
      nodeShimContainers: async (url: string): Promise<NodeShimListing> => {
        const nodeId = url.slice('shim://'.length);
        reads.push(nodeId);
        if (opts.down?.has(nodeId)) throw new RmUnavailableError(`shim unreachable: ${url}`);
        return { nodes: [nodeId], containers: list(nodeId) };
      },
    };
    return { shim, reads, suspended };
  };

  it('gives the snapshot the RM per-app reads give, without reading any app from the RM', async () => {
    const fromRm = await new YarnBackend({ rmUrl: rm.url, client: client(rm.url) }).snapshot();
    const rmReads = rm.callsTo(CONTAINERS);
    const { shim, reads } = recordedShims();
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(rm.url), shim });
    const fromShims = await backend.snapshot();
    expect(content(fromShims)).toEqual(content(fromRm));
    expect(rm.callsTo(CONTAINERS)).toBe(rmReads);
    expect(rm.callsTo(`GET /apps/${APP}/appattempts`)).toBe(1);
    expect(reads.sort()).toEqual(['localhost:33135', 'localhost:36195']);
    // The shims' figures are in the views, the AM is the recorded attempt's.
    const am = fromShims.containers.get('container_1795254945306_0001_01_000001')!;
    expect(am.appMaster).toBe(true);
    expect(am.attainedServiceMs).toBe(1234);
    expect(backend.readStats).toMatchObject({ shimRequests: 2, shimFailures: 0, rmAppReads: 0, fallbackNodes: 0, fallbackApps: 0 });
  });

  it("a suspend checks the container on its node's shim only, and that shim is read again at the next snapshot", async () => {
    const { shim, reads, suspended } = recordedShims();
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(rm.url), shim, shimListMaxAgeMs: 3_600_000 });
    const first = await backend.snapshot();
    reads.length = 0;
    const id = 'container_1795254945306_0001_01_000002';
    expect(await backend.apply({ kind: 'suspendContainer', containerId: id, nodeId: 'localhost:36195' })).toEqual({ status: 'applied' });
    expect(reads).toEqual(['localhost:36195']);
    expect(suspended).toEqual([id]);
    // No RM figure moved, but the suspension shows.
    const second = await backend.snapshot({ changesSince: first.changeMark });
    expect(reads).toEqual(['localhost:36195', 'localhost:36195']);
    expect(second.containers.get(id)!.state).toBe('SUSPENDED');
    expect(sorted(second.changedNodeIds)).toEqual(['localhost:36195']);
  });

  it('an unchanged cluster reads no shim again until the lists are older than their maximum age', async () => {
    const { shim, reads } = recordedShims();
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(rm.url), shim, shimListMaxAgeMs: 3_600_000 });
    const first = await backend.snapshot();
    const second = await backend.snapshot({ changesSince: first.changeMark });
    expect(reads).toHaveLength(2);
    expect(sorted(second.changedNodeIds)).toEqual([]);
    expect(sorted(second.changedAppIds)).toEqual([]);
    const aged = new YarnBackend({ rmUrl: rm.url, client: client(rm.url), shim, shimListMaxAgeMs: 0 });
    await aged.snapshot();
    await aged.snapshot();
    expect(reads).toHaveLength(6);
  });

  it('a shim that is down: its node falls back to the per-app reads, and the snapshot is the same', async () => {
    const fromRm = await new YarnBackend({ rmUrl: rm.url, client: client(rm.url) }).snapshot();
    const before = rm.callsTo(CONTAINERS);
    const { shim } = recordedShims({ down: new Set(['localhost:36195']) });
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(rm.url), shim });
    const s = await backend.snapshot();
    expect(content(s)).toEqual(content(fromRm));
    expect(rm.callsTo(CONTAINERS)).toBe(before + 1);
    expect(backend.readStats).toMatchObject({ shimRequests: 2, shimFailures: 1, rmAppReads: 1, fallbackNodes: 1, fallbackApps: 1 });
    // The containers the live shim lists still carry its figures.
    expect(s.containers.get('container_1795254945306_0001_01_000003')!.attainedServiceMs).toBe(1234);
    expect(s.containers.get('container_1795254945306_0001_01_000002')!.attainedServiceMs).toBeUndefined();
  });

  it('an older shim (no allocation in its list): the per-app reads, with its figures merged', async () => {
    const fromRm = await new YarnBackend({ rmUrl: rm.url, client: client(rm.url) }).snapshot();
    const before = rm.callsTo(CONTAINERS);
    const { shim } = recordedShims({ withAllocation: false });
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(rm.url), shim });
    const s = await backend.snapshot();
    expect(content(s)).toEqual(content(fromRm));
    expect(rm.callsTo(CONTAINERS)).toBe(before + 1);
    expect(backend.readStats.fallbackNodes).toBe(2);
    for (const c of s.containers.values()) expect(c.attainedServiceMs).toBe(1234);
  });
});

describe('on synthetic RM states', () => {
  // The second shape: two small apps and one of 40 containers, changed on a node or two at a time.
  it.each([
    { shape: 'twelve apps', rm: { nodes: 7, apps: 12, containers: 40, finishedApps: 2 }, maxStep: 0.5, runs: 15, seed: 19 },
    { shape: 'an app with many containers', rm: { nodes: 5, apps: 2, containers: 4, bigApp: 40 }, maxStep: 1, runs: 20, seed: 7 },
  ])('$shape: the same snapshot as the RM reads give, a constant number of RM requests and one request per shim', async ({ rm, maxStep, runs, seed }) => {
    const appCount = rm.apps + (rm.bigApp ? 1 : 0);
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ step: fc.oneof(fc.constant(0), fc.double({ min: 0, max: maxStep, noNaN: true })), grow: fc.nat(appCount - 1), swap: fc.boolean() }),
          { minLength: 1, maxLength: 8 },
        ),
        async (moves) => {
          const synthetic = await new SyntheticRm(rm).start();
          try {
            // Every list read at each snapshot: a same-size swap on one node moves no RM figure.
            const backend = shimBackend(synthetic, 0);
            await backend.snapshot();
            for (const m of moves) {
              if (m.step > 0) synthetic.step(m.step);
              synthetic.grow(m.grow);
              if (m.swap) synthetic.swapAcrossApps(appCount - 1, 0);
              const fresh = await freshContent(synthetic);
              synthetic.resetCounters();
              const s = await backend.snapshot();
              expect(content(s)).toEqual(fresh);
              // nodes, scheduler, live apps, ended apps: no per-app read.
              expect(synthetic.requests).toBe(4);
              expect(synthetic.shimRequests).toBe(rm.nodes);
            }
            expect(backend.readStats.rmAppReads).toBe(0);
          } finally {
            await synthetic.stop();
          }
        },
      ),
      { numRuns: runs, seed },
    );
  });

  it('reads only the shims of nodes whose RM figures moved', async () => {
    const synthetic = await new SyntheticRm({ nodes: 20, apps: 30, containers: 120 }).start();
    try {
      const backend = shimBackend(synthetic, 3_600_000);
      await backend.snapshot();
      synthetic.resetCounters();
      await backend.snapshot();
      expect(synthetic.shimRequests).toBe(0);
      synthetic.grow(3);
      synthetic.resetCounters();
      const s = await backend.snapshot();
      // grow(3) adds a container on node 3.
      expect(synthetic.shimRequests).toBe(1);
      expect(synthetic.requests).toBe(4);
      expect(s.apps.get(`application_${synthetic.clusterTs}_0004`)!.runningContainers).toBe(5);
    } finally {
      await synthetic.stop();
    }
  });

  it('a node whose containers are as they were keeps its view when an app with a container there changed on another node', async () => {
    const synthetic = await new SyntheticRm({ nodes: 20, apps: 30, containers: 120 }).start();
    try {
      const backend = shimBackend(synthetic, 3_600_000);
      const before = await backend.snapshot();
      // An app with containers on nodes other than the one grow() adds to (node index % 20).
      const index = [...Array(30).keys()].find((i) => {
        const app = before.apps.get(`application_${synthetic.clusterTs}_${String(i + 1).padStart(4, '0')}`);
        return app?.state === 'RUNNING' && [...before.containers.values()].some((c) => c.appId === app.id && c.nodeId !== synthetic.nodeId(i % 20));
      });
      expect(index).toBeDefined();
      const appId = `application_${synthetic.clusterTs}_${String(index! + 1).padStart(4, '0')}`;
      const grown = synthetic.nodeId(index! % 20);
      synthetic.grow(index!);
      const after = await backend.snapshot({ changesSince: before.changeMark });
      expect(content(after)).toEqual(await freshContent(synthetic));
      const elsewhere = new Set([...before.containers.values()].filter((c) => c.appId === appId && c.nodeId !== grown).map((c) => c.nodeId));
      expect(elsewhere.size).toBeGreaterThan(0);
      for (const nodeId of elsewhere) expect(after.nodes.get(nodeId)).toBe(before.nodes.get(nodeId));
      expect(after.changedNodeIds).toEqual(new Set([grown]));
    } finally {
      await synthetic.stop();
    }
  });

  it("a swap across apps that leaves a node's figures as they were is found through the apps' counters", async () => {
    const synthetic = await new SyntheticRm({ nodes: 20, apps: 30, containers: 120 }).start();
    try {
      const backend = shimBackend(synthetic, 3_600_000);
      await backend.snapshot();
      synthetic.swapAcrossApps(2, 7);
      synthetic.resetCounters();
      const s = await backend.snapshot();
      expect(content(s)).toEqual(await freshContent(synthetic));
      // The node's shim, read again for the two apps whose lists no longer add up; no app from the RM.
      expect(synthetic.shimRequests).toBeGreaterThanOrEqual(1);
      expect(backend.readStats.rmAppReads).toBe(0);
    } finally {
      await synthetic.stop();
    }
  });

  it('an app with many containers changed on one node: a fresh snapshot, its containers elsewhere the same objects, that node alone changed', async () => {
    // Two small apps and, as the third, one of 200 containers over 20 nodes.
    const synthetic = await new SyntheticRm({ nodes: 20, apps: 2, containers: 4, bigApp: 200 }).start();
    try {
      const backend = shimBackend(synthetic, 3_600_000);
      const before = await backend.snapshot();
      const big = `application_${synthetic.clusterTs}_0003`;
      expect(before.apps.get(big)!.runningContainers).toBe(200);
      synthetic.grow(2);
      const after = await backend.snapshot({ changesSince: before.changeMark });
      expect(content(after)).toEqual(await freshContent(synthetic));
      const grown = synthetic.nodeId(2);
      for (const c of before.containers.values()) if (c.nodeId !== grown) expect(after.containers.get(c.id)).toBe(c);
      expect(after.changedNodeIds).toEqual(new Set([grown]));
      expect(after.changedAppIds).toEqual(new Set([big]));
      expect(backend.readStats.rmAppReads).toBe(0);
    } finally {
      await synthetic.stop();
    }
  });

  it('shims down or of contract 4: the per-app reads for what they hold, the same snapshot', async () => {
    for (const shimContract of [4, 5] as const) {
      const synthetic = await new SyntheticRm({ nodes: 7, apps: 12, containers: 40, shimContract }).start();
      try {
        if (shimContract === 5) synthetic.shimsDown.add(2);
        const shim = new HttpNodeShim({ urls: synthetic.shimUrls(), retry: fastRetry });
        // Lists read at each snapshot: a same-size swap on one node moves no RM figure.
        const backend = new YarnBackend({ rmUrl: synthetic.url, client: client(synthetic.url), shim, shimListMaxAgeMs: 0 });
        const fresh = await freshContent(synthetic);
        expect(content(await backend.snapshot())).toEqual(fresh);
        expect(backend.readStats.rmAppReads).toBeGreaterThan(0);
        expect(backend.readStats.fallbackNodes).toBe(shimContract === 4 ? 7 : 1);
        if (shimContract === 5) {
          // Back up: its node is covered again and no app is read from the RM.
          synthetic.shimsDown.clear();
          const reads = backend.readStats.rmAppReads;
          synthetic.step(0.3);
          expect(content(await backend.snapshot())).toEqual(await freshContent(synthetic));
          expect(backend.readStats.rmAppReads).toBe(reads);
        }
      } finally {
        await synthetic.stop();
      }
    }
  });
});

describe('change sets from the shims against a full diff', () => {
  it('match the union of full diffs of the snapshots since the mark, on random sequences of RM states', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ step: fc.double({ min: 0, max: 0.5, noNaN: true }), grow: fc.nat(11), since: fc.nat(5), down: fc.option(fc.nat(6)) }), {
          minLength: 1,
          maxLength: 6,
        }),
        async (moves) => {
          const synthetic = await new SyntheticRm({ nodes: 7, apps: 12, containers: 40, finishedApps: 2 }).start();
          try {
            const backend = shimBackend(synthetic, 0);
            const taken: ClusterSnapshot[] = [await backend.snapshot()];
            for (const m of moves) {
              synthetic.shimsDown.clear();
              if (m.down !== null) synthetic.shimsDown.add(m.down);
              if (m.step > 0) synthetic.step(m.step);
              synthetic.grow(m.grow);
              const from = Math.max(0, taken.length - 1 - m.since);
              const s = await backend.snapshot({ changesSince: taken[from]!.changeMark });
              taken.push(s);
              const nodes = new Set<string>();
              const apps = new Set<string>();
              for (let i = from; i < taken.length - 1; i++) {
                for (const id of diff(nodeFingerprints(taken[i]!, 'ignored'), nodeFingerprints(taken[i + 1]!, 'ignored'))) nodes.add(id);
                for (const id of diff(appFingerprints(taken[i]!), appFingerprints(taken[i + 1]!))) apps.add(id);
              }
              expect(sorted(s.changedNodeIds)).toEqual([...nodes].sort());
              expect(sorted(s.changedAppIds)).toEqual([...apps].sort());
            }
          } finally {
            await synthetic.stop();
          }
        },
      ),
      { numRuns: 20, seed: 19 },
    );
  });
});
