/**
 * A brain killed with SIGKILL between two actions of one plan, on the shared mini YARN with the
 * shim. The brain reaches the RM through a fault proxy that forwards its first write and holds the
 * next (never forwarded): Kairos over-commits every node in one plan, so the kill lands after one
 * node's write and before the other's. Must hold: the restarted brain journals each decision of the
 * interrupted plan once, as the RM shows it (applied for the write that got through, failed for
 * the one that did not), every write the RM received is in the journal, nothing stays
 * over-committed or suspended after a clean stop, and the job the cluster ran succeeds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAdminClient, ok } from '../../src/client/index.js';
import { HttpNodeShim } from '../../src/yarn/shim-client.js';
import { submitJob } from '../../src/yarn/workload.js';
import { eventually, shimSecret, shimUrl, startServeProcess, stopServeProcess, type ServeProcess } from '../integration/helpers.js';
import { appEnded, killApp, nodeCapacities, type Capacity } from './cluster.js';
import { FaultProxy } from './fault-proxy.js';

const rmUrl = inject('rmUrl');
const confDir = inject('confDir');
const url = shimUrl();
const KAIROS = { quantumMs: 3_000, queueSlots: 2 };

interface Entry {
  timeMs: number;
  rule: string;
  result: string;
  reason: string;
  detail?: string;
  error?: string;
  action?: { kind: string; nodeId?: string; resource?: Capacity };
}

/** The node a `POST /ws/v1/cluster/nodes/{id}/resource` write was for. */
const nodeOfWrite = (u: string) => {
  const m = /\/nodes\/([^/]+)\/resource/.exec(u);
  return m ? decodeURIComponent(m[1]) : undefined;
};

describe.skipIf(!url)('a brain killed between two actions of one plan', () => {
  let dir: string;
  let proxy: FaultProxy;
  let baseline: Record<string, Capacity>;
  const running: ServeProcess[] = [];
  let appId: string | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-plan-kill-'));
    baseline = await nodeCapacities(rmUrl);
    proxy = await new FaultProxy(rmUrl).start();
  });

  afterAll(async () => {
    for (const p of running) await stopServeProcess(p, 'SIGTERM');
    await proxy?.stop();
    if (appId) await killApp(rmUrl, appId);
    rmSync(dir, { recursive: true, force: true });
  });

  const brain = (name: string) =>
    startServeProcess(name, proxy.url, join(dir, 'state'), [
      '--policy',
      'kairos',
      '--policy-params',
      JSON.stringify(KAIROS),
      '--period-ms',
      '1000',
      '--leader-lease-ms',
      '3000',
      '--log-level',
      'warn',
    ]).then((p) => {
      running.push(p);
      return p;
    });
  const overCommittedNodes = async () => {
    const now = await nodeCapacities(rmUrl);
    return Object.keys(baseline).filter((id) => now[id]?.vcores === baseline[id].vcores + KAIROS.queueSlots);
  };

  it('is accounted for by the next brain: the journal and the RM agree, and nothing is left over-committed', async (ctx) => {
    if (Object.keys(baseline).length < 2) ctx.skip();
    const job = await submitJob(confDir, { name: 'plan-kill-job', containers: 6, memoryMB: 256, command: { kind: 'cpu', seconds: 12 } });
    appId = job.appId;
    proxy.holdWritesAfter = 1;
    const first = await brain('first');
    await eventually('the first brain to send one write and be held on the next', async () => proxy.heldWrites.length > 0, 60_000, 100);
    await stopServeProcess(first, 'SIGKILL');

    const sentNode = nodeOfWrite(proxy.forwardedWrites[0].url);
    const heldNode = nodeOfWrite(proxy.heldWrites[0].url);
    expect(sentNode, 'the write that got through').toBeDefined();
    expect(heldNode, 'the write that was held').toBeDefined();
    expect(heldNode).not.toBe(sentNode);
    // The cluster is half-way through the dead brain's plan.
    expect(await overCommittedNodes()).toEqual([sentNode]);

    proxy.holdWritesAfter = undefined;
    const firstWrites = proxy.forwardedWrites.length;
    const secondAt = Date.now();
    const second = await brain('second');
    const client = createAdminClient({ baseUrl: second.adminUrl, token: second.token });
    const journal = async () =>
      ((await ok(client.GET('/v1/decisions', { params: { query: { order: 'asc', limit: 1000, since: String(secondAt) } } }))) as { entries: Entry[] }).entries;

    const accounted = await eventually(
      'the second brain to journal the interrupted plan',
      async () => {
        const e = (await journal()).filter((x) => x.rule === 'engine.plan-in-flight');
        return e.length > 0 ? e : undefined;
      },
      60_000,
      250,
    );
    // Both writes were of one plan, and each is journaled once, as the RM shows it (the plan's other
    // decisions, such as the node ranking sent to the shim, are journaled too).
    const nodeEntries = accounted.filter((e) => e.action?.kind === 'setNodeResource');
    expect(nodeEntries.map((e) => [e.action?.nodeId, e.result]).sort()).toEqual(
      [
        [sentNode, 'applied'],
        [heldNode, 'failed'],
      ].sort(),
    );
    expect(nodeEntries.find((e) => e.result === 'failed')?.error).toContain('not in effect');

    await eventually(
      'the second brain to over-commit every node',
      async () => (await overCommittedNodes()).length === Object.keys(baseline).length,
      60_000,
      250,
    );
    // Every write the RM received from the second brain is in its journal: a node restored by the
    // reconciliation, or an applied node-resource decision.
    const agree = await eventually(
      'the journal to account for every write the RM received',
      async () => {
        const entries = await journal();
        const restored = entries
          .filter((e) => e.rule === 'engine.reconcile' && e.result === 'applied' && e.detail)
          .flatMap((e) => (JSON.parse(e.detail!) as { restoredNodes?: string[] }).restoredNodes ?? []);
        const applied = entries.filter((e) => e.result === 'applied' && e.action?.kind === 'setNodeResource' && e.rule !== 'engine.plan-in-flight');
        const received = proxy.forwardedWrites.slice(firstWrites).map((w) => nodeOfWrite(w.url));
        const journaled = [...restored, ...applied.map((e) => e.action!.nodeId)];
        return received.length === journaled.length && [...received].sort().join() === [...journaled].sort().join() ? { received, journaled } : undefined;
      },
      30_000,
      500,
    );
    expect(agree.received.length).toBeGreaterThan(0);

    expect(await stopServeProcess(second, 'SIGTERM')).toBe(0);
    expect(await nodeCapacities(rmUrl)).toEqual(baseline);
    const shim = new HttpNodeShim({ urls: [url!], secret: shimSecret(), holder: 'plan-kill-test-reader', retry: { maxAttempts: 1 } });
    const listed = await shim.listContainers();
    expect(listed.containers.filter((c) => c.state === 'SUSPENDED')).toEqual([]);
    const done = await eventually('the job to finish', () => appEnded(rmUrl, appId!), 120_000, 500);
    expect(done.finalStatus).toBe('SUCCEEDED');
  }, 300_000);
});
