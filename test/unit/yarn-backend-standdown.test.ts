/**
 * YarnBackend keeps the physical capacity of the nodes it over-commits durable (a restarted brain
 * must not take the over-committed figure for the physical one), and hands the cluster back on a
 * clean shutdown: lease released, ranking withdrawn, node capacities restored.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Resources } from '../../src/core/resources.js';
import { YarnBackend, type PhysicalCapacityStore } from '../../src/yarn/backend.js';
import { RmClient } from '../../src/yarn/client.js';
import type { NodeShim, RankingPublication, ShimContainer } from '../../src/yarn/shim-contract.js';
import { FakeRm, fixture, fixtureText } from './yarn-fake-rm.js';

const JSON_TYPE = 'application/json;charset=utf-8';
const NODE = fixture('node-overcommitted.json').node.id as string;
const OVER = { memoryMB: 6144, vcores: 6 };

class MemoryPhysicalStore implements PhysicalCapacityStore {
  readonly map = new Map<string, Resources>();
  writes: string[] = [];
  async list() {
    return [...this.map].map(([key, value]) => ({ key, value }));
  }
  async put(nodeId: string, r: Resources) {
    this.writes.push(`put ${nodeId}`);
    this.map.set(nodeId, r);
  }
  async del(nodeId: string) {
    this.writes.push(`del ${nodeId}`);
    this.map.delete(nodeId);
  }
}

class LeaseShim implements NodeShim {
  released = 0;
  published: RankingPublication[] = [];
  /** The order of the changes the brain sent. */
  calls: string[] = [];
  async containers(): Promise<ShimContainer[]> {
    return [];
  }
  async suspend(): Promise<void> {}
  async resume(): Promise<void> {}
  async renewLease(): Promise<void> {}
  async publishRanking(r: RankingPublication): Promise<void> {
    this.published.push(r);
    this.calls.push('publishRanking');
  }
  async releaseLease(): Promise<string[]> {
    this.released++;
    this.calls.push('releaseLease');
    return ['container_1_0001_01_000002'];
  }
}

let rm: FakeRm;
const client = () => new RmClient({ rmUrl: rm.url, user: 'schedbrain', requestTimeoutMs: 2_000, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });

/** The RM's node list, with NODE at the recorded physical or over-committed capacity. */
function serveNodes(overcommitted: boolean): void {
  const nodes = fixture('nodes.json');
  if (overcommitted) nodes.nodes.node = nodes.nodes.node.map((n: { id: string }) => (n.id === NODE ? fixture('node-overcommitted.json').node : n));
  rm.on('GET /nodes', { body: nodes });
  rm.on('GET /scheduler', { body: fixtureText('scheduler.json'), contentType: JSON_TYPE });
  rm.on('GET /apps', { body: { apps: null } });
}

const physicalOf = () => {
  const n = (fixture('nodes.json').nodes.node as { id: string; totalResource: { memory: number; vCores: number } }[]).find((x) => x.id === NODE)!;
  return { memoryMB: n.totalResource.memory, vcores: n.totalResource.vCores };
};
const posts = () =>
  rm.requests
    .filter((r) => r.method === 'POST' && r.path.endsWith('/resource'))
    .map((r) => JSON.parse(r.body) as { resource: { memory: number; vCores: number } });

beforeEach(async () => {
  rm = await new FakeRm().start();
  rm.on(`POST /nodes/${NODE}/resource`, { body: fixtureText('post-node-resource.json'), contentType: JSON_TYPE });
});
afterEach(async () => {
  await rm.stop();
});

describe('physical capacity across a brain restart', () => {
  it('is written down before the over-commit is sent, and a restarted brain reads it back', async () => {
    serveNodes(false);
    const store = new MemoryPhysicalStore();
    const first = new YarnBackend({ rmUrl: rm.url, client: client(), physicalCapacityStore: store });
    await first.snapshot();
    expect(await first.apply({ kind: 'setNodeResource', nodeId: NODE, resource: OVER })).toEqual({ status: 'applied' });
    expect(store.map.get(NODE)).toEqual(physicalOf());

    // The brain dies; the RM keeps advertising the over-committed figure.
    serveNodes(true);
    const restarted = new YarnBackend({ rmUrl: rm.url, client: client(), physicalCapacityStore: store });
    const node = (await restarted.snapshot()).nodes.get(NODE)!;
    expect(node.capacity).toEqual(OVER);
    expect(node.physicalCapacity).toEqual(physicalOf());

    // Without the record it would be mistaken: that is what the store is for.
    const amnesiac = new YarnBackend({ rmUrl: rm.url, client: client() });
    expect((await amnesiac.snapshot()).nodes.get(NODE)!.physicalCapacity).toEqual(OVER);
  });

  it('setting a node back to its physical capacity forgets the record', async () => {
    serveNodes(false);
    const store = new MemoryPhysicalStore();
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(), physicalCapacityStore: store });
    await backend.snapshot();
    await backend.apply({ kind: 'setNodeResource', nodeId: NODE, resource: OVER });
    await backend.apply({ kind: 'setNodeResource', nodeId: NODE, resource: physicalOf() });
    expect(store.writes).toEqual([`put ${NODE}`, `del ${NODE}`]);
    expect(store.map.size).toBe(0);
  });
});

describe('standDown (clean shutdown)', () => {
  it('releases the lease, withdraws the ranking and restores over-committed nodes', async () => {
    serveNodes(false);
    const store = new MemoryPhysicalStore();
    const shim = new LeaseShim();
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(), shim, physicalCapacityStore: store });
    await backend.snapshot();
    await backend.apply({ kind: 'setNodeResource', nodeId: NODE, resource: OVER });
    await backend.apply({ kind: 'rankNodes', scores: { [NODE]: 0 }, leastLoadedFirst: true, partial: false });
    serveNodes(true);

    const report = await backend.standDown();
    expect(report).toEqual({ restoredNodes: [NODE], resumedContainers: ['container_1_0001_01_000002'], errors: [] });
    expect(shim.released).toBe(1);
    expect(shim.published.at(-1)).toEqual({ scores: {}, leastLoadedFirst: false, ttlMs: 1 });
    // The release comes last: it ends the shim's memory of this brain's epoch, so nothing after it
    // may fence the next brain out.
    expect(shim.calls.slice(-2)).toEqual(['publishRanking', 'releaseLease']);
    const p = physicalOf();
    expect(posts().at(-1)).toEqual({ resource: { memory: p.memoryMB, vCores: p.vcores }, overCommitTimeout: -1 });
    expect(store.map.size).toBe(0);
  });

  it('restores a node a previous (crashed) brain over-committed, from the durable record', async () => {
    serveNodes(true);
    const store = new MemoryPhysicalStore();
    store.map.set(NODE, physicalOf());
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(), physicalCapacityStore: store });
    expect((await backend.standDown()).restoredNodes).toEqual([NODE]);
    expect(store.map.size).toBe(0);
  });

  it('touches nothing when the brain changed nothing', async () => {
    serveNodes(false);
    const shim = new LeaseShim();
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(), shim });
    await backend.snapshot();
    expect(await backend.standDown()).toEqual({ restoredNodes: [], resumedContainers: ['container_1_0001_01_000002'], errors: [] });
    expect(shim.published).toEqual([]);
    expect(posts()).toEqual([]);
  });
});

/** A shim that knows each node's configured resources and holds suspended containers. */
class TakeOverShim implements NodeShim {
  resumed: string[] = [];
  constructor(
    private readonly configured: Map<string, Resources>,
    private readonly held: ShimContainer[],
  ) {}
  async containers(): Promise<ShimContainer[]> {
    return this.held;
  }
  async suspend(): Promise<void> {}
  async resume(_node: string, containerId: string): Promise<void> {
    this.resumed.push(containerId);
  }
  async renewLease(): Promise<void> {}
  async publishRanking(): Promise<void> {}
  async releaseLease(): Promise<string[]> {
    return [];
  }
  async configuredResources(): Promise<Map<string, Resources>> {
    return this.configured;
  }
}

const suspendedOn = (nodeId: string, containerId: string): ShimContainer => ({
  containerId,
  nodeId,
  state: 'SUSPENDED',
  attainedServiceMs: 10,
  runningSinceMs: 1,
});

describe('a new leader takes over what a previous brain left', () => {
  it('undo: the physical capacity comes from the NodeManager, not the record; over-commits and suspensions are undone', async () => {
    serveNodes(true);
    const store = new MemoryPhysicalStore();
    // A previous brain recorded a wrong figure (the flip-flop of two brains): the NodeManager's own wins.
    store.map.set(NODE, OVER);
    const p = physicalOf();
    const shim = new TakeOverShim(new Map([[NODE, p]]), [suspendedOn(NODE, 'container_1_0001_01_000009')]);
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(), shim, physicalCapacityStore: store });
    const r = await backend.takeOver('undo');
    expect(r.physicalFrom[NODE]).toBe('nodemanager');
    expect(r.overcommitted).toEqual([{ nodeId: NODE, advertised: OVER, physical: p }]);
    expect(r.restoredNodes).toEqual([NODE]);
    expect(r.suspended).toEqual(['container_1_0001_01_000009']);
    expect(r.resumedContainers).toEqual(['container_1_0001_01_000009']);
    expect(shim.resumed).toEqual(['container_1_0001_01_000009']);
    expect(r.errors).toEqual([]);
    expect(posts().at(-1)).toEqual({ resource: { memory: p.memoryMB, vCores: p.vcores }, overCommitTimeout: -1 });
    expect(store.map.size).toBe(0);
  });

  it('adopt: nothing is written to the RM; the over-commit is recorded so a stand-down later restores it', async () => {
    serveNodes(true);
    const store = new MemoryPhysicalStore();
    const p = physicalOf();
    const shim = new TakeOverShim(new Map([[NODE, p]]), [suspendedOn(NODE, 'container_1_0001_01_000009')]);
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(), shim, physicalCapacityStore: store });
    const r = await backend.takeOver('adopt');
    expect(r.restoredNodes).toEqual([]);
    expect(r.resumedContainers).toEqual([]);
    expect(r.suspended).toEqual(['container_1_0001_01_000009']);
    expect(shim.resumed).toEqual([]);
    expect(posts()).toEqual([]);
    expect(store.map.get(NODE)).toEqual(p);
    // The adopted node is this brain's now: a clean shutdown gives it back.
    expect((await backend.standDown()).restoredNodes).toEqual([NODE]);
  });

  it('leaves a node advertised below its physical capacity alone (an operator drained it), and says so', async () => {
    serveNodes(false);
    const p = physicalOf();
    const shim = new TakeOverShim(new Map([[NODE, { memoryMB: p.memoryMB * 2, vcores: p.vcores * 2 }]]), []);
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(), shim });
    const r = await backend.takeOver('undo');
    expect(r.overcommitted).toEqual([]);
    expect(r.restoredNodes).toEqual([]);
    expect(r.notes).toEqual([expect.stringMatching(new RegExp(`^${NODE} is advertised below its physical capacity`))]);
    expect(posts()).toEqual([]);
  });

  it('without a shim, the record a previous brain left is the physical figure; without either, the advertised one', async () => {
    serveNodes(true);
    const store = new MemoryPhysicalStore();
    store.map.set(NODE, physicalOf());
    const backend = new YarnBackend({ rmUrl: rm.url, client: client(), physicalCapacityStore: store });
    const r = await backend.takeOver('undo');
    expect(r.physicalFrom[NODE]).toBe('recorded');
    expect(r.restoredNodes).toEqual([NODE]);
    const others = Object.entries(r.physicalFrom).filter(([id]) => id !== NODE);
    expect(others.length).toBeGreaterThan(0);
    for (const [, from] of others) expect(from).toBe('advertised');
  });
});
