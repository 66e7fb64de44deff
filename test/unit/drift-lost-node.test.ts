/**
 * Suspended containers on a node the brain can no longer reach them through (the node is lost,
 * shut down or unhealthy, gone from the RM, or its shim stopped listing them) are reported once
 * per node, with the containers, journaled as `engine.drift` and counted; nothing is held back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ContainerState, ContainerView, NodeState, NodeView } from '../../src/core/model.js';
import { definePolicy, type AnyPolicy } from '../../src/core/policy.js';
import { res, ZERO } from '../../src/core/resources.js';
import { buildSnapshot, defaultQueueTree } from '../../src/core/snapshot.js';
import { FakeClock } from '../../src/engine/clock.js';
import { DriftTracker, heldBy } from '../../src/engine/drift.js';
import { Engine } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { Store } from '../../src/store/store.js';

const NODE = 'node1:8041';
const OTHER = 'node2:8041';
const node = (id: string, state: NodeState): NodeView => ({
  id,
  state,
  rack: '/default-rack',
  capacity: res(8192, 8),
  physicalCapacity: res(8192, 8),
  used: ZERO,
  containerIds: [],
});
const container = (id: string, state: ContainerState, nodeId = NODE, shimFigures = false): ContainerView => ({
  id,
  appId: 'application_1_0001',
  nodeId,
  resource: res(1024, 1),
  state,
  startedAtMs: 0,
  ...(shimFigures ? { attainedServiceMs: 500, runningSinceMs: 0 } : {}),
});
const snapshot = (nodes: NodeView[], containers: ContainerView[]) =>
  buildSnapshot({ nowMs: 10_000, nodes, apps: [], containers, rootQueue: defaultQueueTree() });
const suspend = (containerId: string, nodeId = NODE) => ({ kind: 'suspendContainer', containerId, nodeId }) as const;

describe('drift: suspended containers out of the brain’s reach', () => {
  for (const state of ['LOST', 'SHUTDOWN', 'UNHEALTHY'] as const) {
    it(`a node turning ${state} is reported once, with every container the brain suspended there, and holds nothing`, () => {
      const t = new DriftTracker({ policy: 'respect', holdOffMs: 60_000 });
      t.recordApplied(suspend('c1'), 1_000);
      t.recordApplied(suspend('c2'), 2_000);
      t.recordApplied(suspend('c3', OTHER), 2_000);
      const both = [container('c1', 'SUSPENDED'), container('c2', 'SUSPENDED'), container('c3', 'SUSPENDED', OTHER)];
      expect(t.detect(snapshot([node(NODE, 'RUNNING'), node(OTHER, 'RUNNING')], both), 5_000)).toEqual([]);
      const [d, ...more] = t.detect(snapshot([node(NODE, state), node(OTHER, 'RUNNING')], both), 6_000);
      expect(more).toEqual([]);
      expect(d).toMatchObject({ kind: 'suspendedOnLostNode', target: `node:${NODE}`, written: 'SUSPENDED: c1, c2', now: state, writtenAtMs: 1_000 });
      expect(d.describe).toMatch(
        new RegExp(`2 container\\(s\\) the brain suspended on node ${NODE} \\(c1, c2\\).*it is ${state}.*stay stopped until its shim starts again`),
      );
      expect(t.holds(6_000).size).toBe(0);
      expect(heldBy(suspend('c4'), t.holds(6_000))).toBeUndefined();
      // Reported once; the other node's suspension is still watched.
      const c3 = [container('c3', 'SUSPENDED', OTHER)];
      expect(t.detect(snapshot([node(NODE, state), node(OTHER, 'RUNNING')], c3), 7_000)).toEqual([]);
      expect(t.detect(snapshot([node(NODE, state), node(OTHER, 'LOST')], c3), 8_000)).toMatchObject([{ target: `node:${OTHER}`, written: 'SUSPENDED: c3' }]);
    });
  }

  it('a node that leaves the RM’s list after it was seen is reported as gone; one never seen is not', () => {
    const t = new DriftTracker();
    t.recordApplied(suspend('c1'), 1_000);
    expect(t.detect(snapshot([node(NODE, 'RUNNING')], [container('c1', 'SUSPENDED')]), 2_000)).toEqual([]);
    expect(t.detect(snapshot([], []), 3_000)).toMatchObject([{ kind: 'suspendedOnLostNode', target: `node:${NODE}`, now: 'gone' }]);
    const unseen = new DriftTracker();
    unseen.recordApplied(suspend('c1'), 1_000);
    expect(unseen.detect(snapshot([], []), 2_000)).toEqual([]);
  });

  it('a container the shim listed suspended that shows running without the shim’s figures is reported as the shim falling silent', () => {
    const t = new DriftTracker();
    t.recordApplied(suspend('c1'), 1_000);
    const nodes = [node(NODE, 'RUNNING')];
    expect(t.detect(snapshot(nodes, [container('c1', 'SUSPENDED', NODE, true)]), 2_000)).toEqual([]);
    expect(t.detect(snapshot(nodes, [container('c1', 'RUNNING')]), 3_000)).toMatchObject([{ kind: 'suspendedOnLostNode', now: 'shim silent' }]);
    // Resumed by the shim itself (its figures present): the ordinary suspension drift.
    const w = new DriftTracker();
    w.recordApplied(suspend('c1'), 1_000);
    w.detect(snapshot(nodes, [container('c1', 'SUSPENDED', NODE, true)]), 2_000);
    expect(w.detect(snapshot(nodes, [container('c1', 'RUNNING', NODE, true)]), 3_000)).toMatchObject([{ kind: 'suspension', now: 'RUNNING' }]);
  });
});

describe('the engine with a node lost under suspended containers (in-memory backend)', () => {
  let dir: string | undefined;
  let store: Store | undefined;
  let engine: Engine | undefined;
  afterEach(async () => {
    await engine?.stop();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('journals the node and its containers as engine.drift and counts it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-lost-node-'));
    store = await Store.open(dir);
    const clock = new FakeClock();
    const backend = new InMemoryBackend({ now: () => clock.now(), capabilities: { containerSuspend: true } });
    backend.containers = [container('c1', 'RUNNING', 'node1:8041'), container('c2', 'RUNNING', 'node1:8041')];
    // Suspends every running container it sees, once.
    const suspendAll = definePolicy({
      name: 'suspend-all',
      description: 'suspends every running container (test)',
      paramsSchema: z.object({}).strict(),
      initialState: () => ({}),
      decide: ({ snapshot: s, state }) => ({
        decisions: [...s.containers.values()]
          .filter((c) => c.state === 'RUNNING')
          .map((c) => ({
            action: { kind: 'suspendContainer' as const, containerId: c.id, nodeId: c.nodeId },
            policy: 'suspend-all',
            rule: 'suspendAll',
            reason: 'test',
          })),
        state,
      }),
    }) as AnyPolicy;
    engine = new Engine({
      backend,
      store,
      clock,
      periodMs: 10_000,
      policies: { get: (n) => (n === 'suspend-all' ? suspendAll : undefined), names: () => ['suspend-all'] },
      initial: { policy: 'suspend-all', params: {}, dryRun: false },
    });
    await engine.init();
    await engine.runCycle();
    expect(backend.applied.map((a) => a.kind)).toEqual(['suspendContainer', 'suspendContainer']);
    // The in-memory backend does not act on containers: show what the shim would.
    backend.containers = backend.containers.map((c) => ({ ...c, state: 'SUSPENDED' as const }));
    await engine.runCycle();
    backend.nodes[0] = { ...backend.nodes[0]!, state: 'LOST' };
    backend.containers = [];
    await engine.runCycle();
    const drift = (await store.journal.query({ order: 'asc' })).filter((e) => e.rule === 'engine.drift');
    expect(drift.map((e) => JSON.parse(e.detail!))).toEqual([
      expect.objectContaining({ kind: 'suspendedOnLostNode', target: 'node:node1:8041', written: 'SUSPENDED: c1, c2', now: 'LOST' }),
    ]);
    expect(drift[0]!.reason).toMatch(/2 container\(s\) the brain suspended on node node1:8041 \(c1, c2\)/);
    expect(engine.metrics.drift.get({ kind: 'suspendedOnLostNode' })).toBe(1);
    await engine.runCycle();
    expect((await store.journal.query({})).filter((e) => e.rule === 'engine.drift')).toHaveLength(1);
  });
});
