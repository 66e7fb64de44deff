/**
 * HttpNodeShim against a fake shim (node:http): error mapping to the typed errors of
 * src/core/errors.ts, routing of suspend/resume to the shim that serves the node, lease renewal
 * on every node shim, ranking to the RM shim, the leadership epoch on every change (fencing).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RmProtocolError, RmRejectedError, RmUnavailableError } from '../../src/core/errors.js';
import * as fc from 'fast-check';
import { HttpNodeShim, isWireContainerList, ShimRejectedError, wireContainerList } from '../../src/yarn/shim-client.js';

interface Seen {
  method: string;
  path: string;
  body: unknown;
}

type Handler = (req: Seen) => { status: number; body: unknown } | 'garbage';

const servers: Server[] = [];

async function fakeShim(handler: Handler): Promise<{ url: string; seen: Seen[]; epochs: (string | undefined)[] }> {
  const seen: Seen[] = [];
  /** The X-Schedbrain-Epoch header of each request, in the order of `seen`. */
  const epochs: (string | undefined)[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const s: Seen = { method: req.method!, path: req.url!, body: raw ? JSON.parse(raw) : undefined };
      seen.push(s);
      epochs.push(req.headers['x-schedbrain-epoch'] as string | undefined);
      const out = handler(s);
      if (out === 'garbage') {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>proxy</html>');
        return;
      }
      res.writeHead(out.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(out.body));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, epochs };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const fastRetry = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 };

function container(nodeId: string, containerId: string, state: 'RUNNING' | 'SUSPENDED' = 'RUNNING') {
  return {
    containerId,
    nodeId,
    state,
    attainedServiceMs: 1200,
    runningSinceMs: 1000,
    suspendedAtMs: state === 'SUSPENDED' ? 2000 : null,
    pid: 42,
    processes: [{ pid: 42, state: state === 'SUSPENDED' ? 'T' : 'S' }],
  };
}

function listOf(nodes: string[], containers: unknown[]) {
  return { status: 200, body: { nowMs: 5000, nodes, lease: null, containers } };
}

describe('HttpNodeShim', () => {
  it('maps a refusal to ShimRejectedError with the shim code, and it is an RmRejectedError', async () => {
    const shim = await fakeShim(() => ({ status: 423, body: { error: 'no_lease', reason: 'suspend needs a live lease' } }));
    const client = new HttpNodeShim({ urls: [shim.url], retry: fastRetry });
    const err = await client.suspend('n1:1', 'container_1_0001_01_000002').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShimRejectedError);
    expect(err).toBeInstanceOf(RmRejectedError);
    expect((err as ShimRejectedError).code).toBe('no_lease');
    expect((err as ShimRejectedError).status).toBe(423);
    expect(shim.seen).toHaveLength(1); // refusals are not retried
    expect(shim.seen[0]).toEqual({ method: 'POST', path: '/v1/containers/suspend', body: { nodeId: 'n1:1', containerId: 'container_1_0001_01_000002' } });
  });

  it('retries 5xx and then reports RmUnavailableError', async () => {
    const shim = await fakeShim(() => ({ status: 500, body: { error: 'internal', reason: 'boom' } }));
    const client = new HttpNodeShim({ urls: [shim.url], retry: fastRetry });
    await expect(client.containers()).rejects.toBeInstanceOf(RmUnavailableError);
    expect(shim.seen).toHaveLength(2);
  });

  it('reports an unreachable shim as RmUnavailableError', async () => {
    const shim = await fakeShim(() => listOf([], []));
    await new Promise((r) => servers.pop()!.close(r));
    const client = new HttpNodeShim({ urls: [shim.url], retry: fastRetry, requestTimeoutMs: 1000 });
    await expect(client.renewLease(1000)).rejects.toBeInstanceOf(RmUnavailableError);
  });

  it('reports a body outside the contract as RmProtocolError', async () => {
    const wrong = await fakeShim(() => ({ status: 200, body: { nowMs: 1, nodes: [], lease: null, containers: [{ containerId: 'c' }] } }));
    await expect(new HttpNodeShim({ urls: [wrong.url], retry: fastRetry }).containers()).rejects.toBeInstanceOf(RmProtocolError);
    const html = await fakeShim(() => 'garbage');
    await expect(new HttpNodeShim({ urls: [html.url], retry: fastRetry }).containers()).rejects.toBeInstanceOf(RmProtocolError);
  });

  it('merges containers of every node shim and routes suspend to the shim serving the node', async () => {
    const a = await fakeShim((r) =>
      r.path === '/v1/containers' ? listOf(['a:1'], [container('a:1', 'c_a')]) : { status: 200, body: container('a:1', 'c_a', 'SUSPENDED') },
    );
    const b = await fakeShim((r) =>
      r.path === '/v1/containers'
        ? listOf(['b:1'], [container('b:1', 'c_b')])
        : r.path === '/v1/health'
          ? {
              status: 200,
              body: { service: 'schedbrain-shim', contractVersion: 3, roles: ['nodemanager'], nodes: ['b:1'], nowMs: 1, epoch: null, resources: {} },
            }
          : { status: 200, body: container('b:1', 'c_b', 'SUSPENDED') },
    );
    const client = new HttpNodeShim({ urls: [a.url, b.url], retry: fastRetry });
    const all = await client.containers();
    expect(all.map((c) => `${c.nodeId}/${c.containerId}/${c.state}/${c.attainedServiceMs}`).sort()).toEqual(['a:1/c_a/RUNNING/1200', 'b:1/c_b/RUNNING/1200']);
    await client.suspend('b:1', 'c_b');
    expect(b.seen.filter((s) => s.path === '/v1/containers/suspend')).toHaveLength(1);
    expect(a.seen.filter((s) => s.path === '/v1/containers/suspend')).toHaveLength(0);
    const err = await client.suspend('z:9', 'c_z').catch((e: unknown) => e);
    expect((err as ShimRejectedError).code).toBe('unknown_node');
  });

  it('renews the lease on every node shim with a stable holder, and ranks on the RM shim', async () => {
    const leaseReply = (r: Seen) => ({ status: 200, body: { ...(r.body as object), expiresAtMs: 99 } });
    const a = await fakeShim(leaseReply);
    const b = await fakeShim(leaseReply);
    const rankingState = { ranking: null, fresh: false, policyLoaded: true, lastOrder: null, lastOrderAtMs: null, lastOrderRanked: false };
    const rm = await fakeShim((r) => ({
      status: 200,
      body: { ...rankingState, ranking: { ...(r.body as object), publishedAtMs: 7 }, fresh: true },
    }));
    const client = new HttpNodeShim({ urls: [a.url, b.url], rankingUrl: rm.url, holder: 'brain-1', retry: fastRetry });
    await client.renewLease(10_000);
    for (const s of [a, b]) expect(s.seen).toEqual([{ method: 'POST', path: '/v1/lease', body: { holder: 'brain-1', ttlMs: 10_000 } }]);
    await client.publishRanking({ scores: { 'b:1': 0, 'a:1': 1 }, leastLoadedFirst: true, ttlMs: 30_000 });
    expect(rm.seen).toEqual([{ method: 'PUT', path: '/v1/ranking', body: { scores: { 'b:1': 0, 'a:1': 1 }, leastLoadedFirst: true, ttlMs: 30_000 } }]);
  });

  it('sends the leadership epoch with every change, read at each call, and none with reads', async () => {
    const rankingState = { ranking: null, fresh: false, policyLoaded: true, lastOrder: null, lastOrderAtMs: null, lastOrderRanked: false };
    const shim = await fakeShim((r) => {
      if (r.path === '/v1/containers') return listOf(['a:1'], []);
      if (r.path === '/v1/lease') return { status: 200, body: { ...(r.body as object), expiresAtMs: 99 } };
      if (r.path === '/v1/lease/release') return { status: 200, body: { resumed: [] } };
      if (r.path === '/v1/ranking') return { status: 200, body: rankingState };
      return { status: 200, body: container('a:1', 'c_a') };
    });
    let epoch: number | undefined = 3;
    const client = new HttpNodeShim({ urls: [shim.url], retry: fastRetry, epoch: () => epoch });
    await client.containers();
    await client.renewLease(10_000);
    await client.suspend('a:1', 'c_a');
    epoch = 4;
    await client.resume('a:1', 'c_a');
    await client.publishRanking({ scores: {}, leastLoadedFirst: false, ttlMs: 1000 });
    await client.rankingState();
    await client.releaseLease();
    epoch = undefined;
    await client.renewLease(10_000);
    expect(shim.seen.map((s, i) => `${s.method} ${s.path} ${shim.epochs[i] ?? '-'}`)).toEqual([
      'GET /v1/containers -',
      'POST /v1/lease 3',
      'POST /v1/containers/suspend 3',
      'POST /v1/containers/resume 4',
      'PUT /v1/ranking 4',
      'GET /v1/ranking -',
      'POST /v1/lease/release 4',
      'POST /v1/lease -',
    ]);
  });

  it('reports a change refused for an older epoch as stale_epoch, without retrying it', async () => {
    const shim = await fakeShim(() => ({ status: 409, body: { error: 'stale_epoch', reason: 'epoch 3 is older than 4, the newest leader' } }));
    const client = new HttpNodeShim({ urls: [shim.url], retry: fastRetry, epoch: () => 3 });
    const err = await client.suspend('a:1', 'c_a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShimRejectedError);
    expect((err as ShimRejectedError).code).toBe('stale_epoch');
    expect((err as ShimRejectedError).status).toBe(409);
    expect(shim.seen).toHaveLength(1);
  });

  it("reads each node's configured resources from every shim's health", async () => {
    const health = (nodes: Record<string, { memoryMB: number; vcores: number }>) => ({
      status: 200,
      body: { service: 'schedbrain-shim', contractVersion: 3, roles: ['nodemanager'], nodes: Object.keys(nodes), nowMs: 1, epoch: 2, resources: nodes },
    });
    const a = await fakeShim(() => health({ 'a:1': { memoryMB: 4096, vcores: 4 } }));
    const b = await fakeShim(() => health({ 'b:1': { memoryMB: 8192, vcores: 8 } }));
    const client = new HttpNodeShim({ urls: [a.url, b.url], retry: fastRetry });
    expect(Object.fromEntries(await client.configuredResources())).toEqual({ 'a:1': { memoryMB: 4096, vcores: 4 }, 'b:1': { memoryMB: 8192, vcores: 8 } });
  });
});

describe('the container list checked by hand', () => {
  const container = (i: number, allocation: boolean): Record<string, unknown> => ({
    containerId: `container_1795254945306_0001_01_00000${i}`,
    nodeId: 'a:1',
    state: i % 2 ? 'RUNNING' : 'SUSPENDED',
    attainedServiceMs: 10 * i,
    runningSinceMs: 1_000 + i,
    suspendedAtMs: i % 2 ? null : 2_000,
    pid: 100 + i,
    processes: [{ pid: 100 + i, state: 'S' }],
    ...(allocation ? { allocatedMB: 1024, allocatedVCores: 1, createdAtMs: 900, appMaster: i === 1 } : {}),
  });
  const odd = fc.constantFrom<unknown>(undefined, -1, 0, 1, 1.5, 3_600_001, '', 'x', 'RUNNING', null, true, [], {}, [{ pid: 1, state: 'SS' }]);

  it('accepts exactly what the zod schema accepts, on lists with one field changed, dropped or added', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.nat(3),
        fc.constantFrom('nowMs', 'nodes', 'lease', 'containers', 'extra', ...Object.keys(container(1, true)), 'unknown', 'ttlMs'),
        odd,
        (allocation, at, field, value) => {
          const list: Record<string, unknown> = {
            nowMs: 5,
            nodes: ['a:1'],
            lease: { holder: 'brain', ttlMs: 10_000, expiresAtMs: 20_000 },
            containers: [1, 2, 3].map((i) => container(i, allocation)),
          };
          // The field changed on the list, its lease or one of its containers.
          const target = (at === 3 ? list : at === 2 ? list.lease : (list.containers as Record<string, unknown>[])[at]) as Record<string, unknown>;
          if (value === undefined) delete target[field];
          else target[field] = value;
          expect(isWireContainerList(list)).toBe(wireContainerList.safeParse(list).success);
        },
      ),
      { numRuns: 2_000, seed: 19 },
    );
  });
});

describe('the containers a node shim lists', () => {
  it('share one frozen allocation per size, with each container its own figures', async () => {
    const listed = (id: string, mb: number, vcores: number) => ({
      ...container('a:1', id),
      allocatedMB: mb,
      allocatedVCores: vcores,
      createdAtMs: 900,
      appMaster: false,
    });
    const shim = await fakeShim(() => ({
      status: 200,
      body: { nowMs: 5, nodes: ['a:1'], lease: null, containers: [listed('c1', 1024, 1), listed('c2', 1024, 1), listed('c3', 2048, 2)] },
    }));
    const client = new HttpNodeShim({ urls: [shim.url], retry: fastRetry });
    const { containers } = await client.nodeShimContainers(shim.url);
    expect(containers.map((c) => c.allocated)).toEqual([
      { memoryMB: 1024, vcores: 1 },
      { memoryMB: 1024, vcores: 1 },
      { memoryMB: 2048, vcores: 2 },
    ]);
    expect(containers[0]!.allocated).toBe(containers[1]!.allocated);
    expect(Object.isFrozen(containers[0]!.allocated)).toBe(true);
    // A second read gives the same object for the same size.
    const again = await client.nodeShimContainers(shim.url);
    expect(again.containers[2]!.allocated).toBe(containers[2]!.allocated);
  });
});
