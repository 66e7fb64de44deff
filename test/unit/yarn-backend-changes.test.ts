/**
 * The YARN backend's change sets (`changedNodeIds`, `changedAppIds` relative to an earlier
 * snapshot's `changeMark`) and what a snapshot asks of the RM once the cluster is known.
 */
import * as fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SyntheticRm } from '../../bench/synthetic-rm.js';
import type { ClusterSnapshot } from '../../src/core/model.js';
import { appIdOfContainer, YarnBackend } from '../../src/yarn/backend.js';
import { RmClient } from '../../src/yarn/client.js';
import type { NodeShim, ShimContainer } from '../../src/yarn/shim-contract.js';
import { viewsAtHand } from './node-views.js';
import { appFingerprints, diff, nodeFingerprints } from './snapshot-diff.js';
import { FakeRm, fixture, fixtureText } from './yarn-fake-rm.js';

const JSON_TYPE = 'application/json;charset=utf-8';
const APP = 'application_1795254945306_0001';
const ATTEMPT = 'appattempt_1795254945306_0001_000001';
const CONTAINERS = `GET /apps/${APP}/appattempts/${ATTEMPT}/containers`;

let rm: FakeRm;
const client = (url: string) =>
  new RmClient({ rmUrl: url, user: 'schedbrain', requestTimeoutMs: 5_000, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
const backendFor = (shim?: NodeShim) => new YarnBackend({ rmUrl: rm.url, client: client(rm.url), shim });

function serve(parts: { nodes?: unknown; apps?: unknown; containers?: unknown } = {}): void {
  const body = (v: unknown, name: string) => (v === undefined ? { body: fixtureText(name), contentType: JSON_TYPE } : { body: v });
  rm.on('GET /nodes', body(parts.nodes, 'nodes.json'));
  rm.on('GET /scheduler', { body: fixtureText('scheduler.json'), contentType: JSON_TYPE });
  rm.on('GET /apps', (req) =>
    req.query.get('states')?.startsWith('FINISHED') ? { body: fixtureText('apps-empty.json'), contentType: JSON_TYPE } : body(parts.apps, 'apps-running.json'),
  );
  rm.on(`GET /apps/${APP}/appattempts`, { body: fixtureText('appattempts.json'), contentType: JSON_TYPE });
  rm.on(CONTAINERS, body(parts.containers, 'containers.json'));
}

const sorted = (s: ReadonlySet<string> | undefined) => (s === undefined ? undefined : [...s].sort());

beforeEach(async () => {
  rm = await new FakeRm().start();
});
afterEach(async () => {
  await rm.stop();
});

describe('change sets', () => {
  it('without a mark there are none; with one and nothing changed they are empty', async () => {
    serve();
    const backend = backendFor();
    const first = await backend.snapshot();
    expect(first.changedNodeIds).toBeUndefined();
    expect(first.changedAppIds).toBeUndefined();
    expect(first.changeMark).toBeTypeOf('number');
    const second = await backend.snapshot({ changesSince: first.changeMark });
    expect(sorted(second.changedNodeIds)).toEqual([]);
    expect(sorted(second.changedAppIds)).toEqual([]);
    // A mark the backend never gave: everything may have changed.
    const third = await backend.snapshot({ changesSince: 10_000 });
    expect(third.changedNodeIds).toBeUndefined();
    expect(third.changedAppIds).toBeUndefined();
  });

  it('a container that ended changes its node and its app, and nothing else', async () => {
    serve();
    const backend = backendFor();
    const first = await backend.snapshot();
    const raw = fixture('containers.json');
    const gone = raw.container.find((c: { containerId: string }) => !c.containerId.endsWith('_000001'));
    raw.container = raw.container.filter((c: { containerId: string }) => c.containerId !== gone.containerId);
    const apps = fixture('apps-running.json');
    apps.apps.app[0].runningContainers -= 1;
    apps.apps.app[0].allocatedMB -= Number(gone.allocatedMB);
    apps.apps.app[0].allocatedVCores -= Number(gone.allocatedVCores);
    serve({ containers: raw, apps });
    const second = await backend.snapshot({ changesSince: first.changeMark });
    expect(second.containers.has(gone.containerId)).toBe(false);
    expect(sorted(second.changedNodeIds)).toEqual([gone.assignedNodeId]);
    expect(sorted(second.changedAppIds)).toEqual([APP]);
  });

  it("a node's capacity change is reported for that node only", async () => {
    serve();
    const backend = backendFor();
    const first = await backend.snapshot();
    const over = fixture('node-overcommitted.json').node;
    const nodes = fixture('nodes.json');
    nodes.nodes.node = nodes.nodes.node.map((n: { id: string }) => (n.id === over.id ? over : n));
    serve({ nodes });
    const second = await backend.snapshot({ changesSince: first.changeMark });
    expect(sorted(second.changedNodeIds)).toEqual([over.id]);
    expect(sorted(second.changedAppIds)).toEqual([]);
  });

  it("an app's priority change is reported for that app only", async () => {
    serve();
    const backend = backendFor();
    const first = await backend.snapshot();
    const apps = fixture('apps-running.json');
    apps.apps.app[0].priority = 7;
    serve({ apps });
    const second = await backend.snapshot({ changesSince: first.changeMark });
    expect(sorted(second.changedAppIds)).toEqual([APP]);
    expect(sorted(second.changedNodeIds)).toEqual([]);
  });

  it('changes since an older mark add up over the snapshots taken in between', async () => {
    serve();
    const backend = backendFor();
    const first = await backend.snapshot();
    const apps = fixture('apps-running.json');
    apps.apps.app[0].priority = 7;
    serve({ apps });
    const second = await backend.snapshot({ changesSince: first.changeMark });
    const third = await backend.snapshot({ changesSince: second.changeMark });
    expect(sorted(third.changedAppIds)).toEqual([]);
    const fourth = await backend.snapshot({ changesSince: first.changeMark });
    expect(sorted(fourth.changedAppIds)).toEqual([APP]);
  });

  it('a container the shim shows suspended changes its node; attained service alone does not', async () => {
    serve();
    const c = fixture('containers.json').container[1];
    const entry = (state: 'RUNNING' | 'SUSPENDED', attainedServiceMs: number): ShimContainer => ({
      containerId: c.containerId,
      nodeId: c.assignedNodeId,
      state,
      attainedServiceMs,
      runningSinceMs: 1_000,
    });
    let list = [entry('RUNNING', 100)];
    const shim: NodeShim = {
      containers: async () => list,
      suspend: async () => {},
      resume: async () => {},
      renewLease: async () => {},
      publishRanking: async () => {},
    };
    const backend = backendFor(shim);
    const first = await backend.snapshot();
    list = [entry('RUNNING', 900)];
    const second = await backend.snapshot({ changesSince: first.changeMark });
    expect(sorted(second.changedNodeIds)).toEqual([]);
    list = [entry('SUSPENDED', 900)];
    const third = await backend.snapshot({ changesSince: second.changeMark });
    expect(sorted(third.changedNodeIds)).toEqual([c.assignedNodeId]);
    expect(third.containers.get(c.containerId)!.state).toBe('SUSPENDED');
  });
});

describe('requests per snapshot', () => {
  it("an app's containers are read again when its counters move, not while they stay", async () => {
    serve();
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(rm.url), containerSweepPerSnapshot: 0 });
    await backend.snapshot();
    expect(rm.callsTo(CONTAINERS)).toBe(1);
    await backend.snapshot();
    expect(rm.callsTo(CONTAINERS)).toBe(1);
    const apps = fixture('apps-running.json');
    apps.apps.app[0].allocatedMB += 512;
    serve({ apps });
    await backend.snapshot();
    expect(rm.callsTo(CONTAINERS)).toBe(2);
    // The attempt is known while the AM container stays the same.
    expect(rm.callsTo(`GET /apps/${APP}/appattempts`)).toBe(1);
  });

  it('do not grow with the number of running applications', async () => {
    const counts: number[][] = [];
    for (const apps of [10, 200]) {
      const synthetic = await new SyntheticRm({ nodes: 20, apps, containers: apps * 5, finishedApps: 3 }).start();
      try {
        const backend = new YarnBackend({ rmUrl: synthetic.url, client: client(synthetic.url) });
        let s: ClusterSnapshot = await backend.snapshot();
        expect(s.apps.size).toBe(apps + 3);
        const perSnapshot: number[] = [];
        for (const change of [false, true]) {
          if (change) synthetic.grow(3);
          synthetic.resetCounters();
          s = await backend.snapshot({ changesSince: s.changeMark });
          perSnapshot.push(synthetic.requests);
          if (change) expect(sorted(s.changedAppIds)).toEqual([`application_${synthetic.clusterTs}_0004`]);
        }
        counts.push(perSnapshot);
      } finally {
        await synthetic.stop();
      }
    }
    expect(counts[1]).toEqual(counts[0]);
  });

  it('the scheduler configuration is read again only when its version moves', async () => {
    let version = 12;
    rm.on('GET /scheduler-conf/version', () => ({ body: { versionID: String(version) } }));
    rm.on('GET /scheduler-conf', { body: fixtureText('scheduler-conf.json'), contentType: JSON_TYPE });
    const backend = backendFor();
    for (let i = 0; i < 3; i++) expect((await backend.capabilities()).queueWrites).toBe(true);
    expect(rm.callsTo('GET /scheduler-conf')).toBe(1);
    version = 13;
    expect((await backend.capabilities()).queueWrites).toBe(true);
    expect(rm.callsTo('GET /scheduler-conf')).toBe(2);
  });
});

describe('change sets against a full diff', () => {
  it('match the union of full diffs of the snapshots since the mark, on random sequences of RM states', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ step: fc.double({ min: 0, max: 0.5, noNaN: true }), grow: fc.nat(11), since: fc.nat(5) }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 3 }),
        async (moves, sweep) => {
          const synthetic = await new SyntheticRm({ nodes: 7, apps: 12, containers: 40, finishedApps: 2 }).start();
          try {
            const backend = new YarnBackend({ rmUrl: synthetic.url, client: client(synthetic.url), containerSweepPerSnapshot: sweep });
            const taken: ClusterSnapshot[] = [await backend.snapshot()];
            for (const m of moves) {
              if (m.step > 0) synthetic.step(m.step);
              synthetic.grow(m.grow);
              const from = Math.max(0, taken.length - 1 - m.since);
              const s = await backend.snapshot({ changesSince: taken[from]!.changeMark });
              taken.push(s);
              const nodes = new Set<string>();
              const apps = new Set<string>();
              for (let i = from; i < taken.length - 1; i++) {
                for (const id of diff(nodeFingerprints(taken[i]!), nodeFingerprints(taken[i + 1]!))) nodes.add(id);
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
      { numRuns: 25, seed: 19 },
    );
  });
});

describe('appIdOfContainer', () => {
  it('reads the app out of a container id, with or without an epoch', () => {
    expect(appIdOfContainer('container_1795254945306_0001_01_000003')).toBe(APP);
    expect(appIdOfContainer('container_e17_1795254945306_0001_01_000003')).toBe(APP);
    expect(appIdOfContainer('not-a-container')).toBeUndefined();
  });

  it('reads any string as the container id grammar does: container_[e<n>_]<n>_<n>_<n>_<n>, digits only', () => {
    const grammar = (id: string): string | undefined => {
      const m = /^container_(?:e\d+_)?(\d+)_(\d+)_\d+_\d+$/.exec(id);
      return m ? `application_${m[1]}_${m[2]}` : undefined;
    };
    const digits = fc.stringMatching(/^[0-9]{0,4}$/);
    const part = fc.oneof(digits, fc.constantFrom('', 'e', 'e1', 'x', '_', '1_', '٣', '0x1'));
    const id = fc.oneof(
      fc
        .tuple(fc.constantFrom('container_', 'container_e17_', 'container_e_', 'containe_', ''), fc.array(part, { maxLength: 6 }))
        .map(([head, parts]) => head + parts.join('_')),
      fc.string(),
    );
    fc.assert(
      fc.property(id, (s) => {
        expect(appIdOfContainer(s)).toBe(grammar(s));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('a snapshot built on the last one', () => {
  /** The snapshot's content, with each node's containers as a set (their order is the reads' history). */
  const content = (s: ClusterSnapshot) => ({
    nodes: [...s.nodes.values()].map((n) => ({ ...viewsAtHand(s, n), containerIds: [...n.containerIds].sort() })).sort((a, b) => a.id.localeCompare(b.id)),
    apps: [...s.apps.values()].sort((a, b) => a.id.localeCompare(b.id)),
    containers: [...s.containers.values()].sort((a, b) => a.id.localeCompare(b.id)),
    size: s.containers.size,
    totalCapacity: s.totalCapacity,
  });

  it('holds what a first snapshot of the same RM state holds, on random sequences of RM states', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ step: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.5, noNaN: true })), grow: fc.nat(11) }), { minLength: 1, maxLength: 8 }),
        async (moves) => {
          const synthetic = await new SyntheticRm({ nodes: 7, apps: 12, containers: 40, finishedApps: 2 }).start();
          try {
            // One backend reads every app again at each snapshot; the other only those whose
            // counters moved, which is all there is to read until a step swaps containers of the
            // same size (nothing but a read shows those).
            const sweeping = new YarnBackend({ rmUrl: synthetic.url, client: client(synthetic.url), containerSweepPerSnapshot: 100 });
            const following = new YarnBackend({ rmUrl: synthetic.url, client: client(synthetic.url), containerSweepPerSnapshot: 0 });
            await sweeping.snapshot();
            await following.snapshot();
            let swapped = false;
            for (const m of moves) {
              swapped ||= m.step > 0;
              if (m.step > 0) synthetic.step(m.step);
              synthetic.grow(m.grow);
              const fresh = content(await new YarnBackend({ rmUrl: synthetic.url, client: client(synthetic.url) }).snapshot());
              const swept = await sweeping.snapshot();
              expect({ ...content(swept), nowMs: 0 }).toEqual({ ...fresh, nowMs: 0 });
              const followed = content(await following.snapshot());
              if (!swapped) expect(followed).toEqual(fresh);
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
