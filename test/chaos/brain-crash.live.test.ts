/**
 * A brain killed with SIGKILL while it holds the cluster changed, on the shared mini YARN with the
 * shim: `schedbrain serve --policy kairos` over-commits every node by its queue slots (and may
 * suspend containers of the job it runs); it is killed at once, restarted on the same state
 * directory, and stopped cleanly. Must hold: the restarted brain reconciles what the dead one left
 * (journaled, before its own first write), nothing stays over-committed or suspended once it has
 * stopped, and the job the cluster ran succeeds.
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

const rmUrl = inject('rmUrl');
const confDir = inject('confDir');
const url = shimUrl();
const KAIROS = { quantumMs: 3_000, queueSlots: 2 };

interface Entry {
  timeMs: number;
  rule: string;
  result: string;
  reason: string;
}

describe.skipIf(!url)('a brain killed while it holds the cluster changed', () => {
  let dir: string;
  let baseline: Record<string, Capacity>;
  const running: ServeProcess[] = [];
  let appId: string | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-crash-'));
    baseline = await nodeCapacities(rmUrl);
  });

  afterAll(async () => {
    for (const p of running) await stopServeProcess(p, 'SIGTERM');
    if (appId) await killApp(rmUrl, appId);
    rmSync(dir, { recursive: true, force: true });
  });

  const brain = (name: string) =>
    startServeProcess(name, rmUrl, join(dir, 'state'), [
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
  const overCommitted = async () => {
    const now = await nodeCapacities(rmUrl);
    return Object.entries(baseline).every(([id, r]) => now[id]?.vcores === r.vcores + KAIROS.queueSlots);
  };

  it('is reconciled by the next brain, and nothing stays over-committed or suspended after a clean stop', async () => {
    const job = await submitJob(confDir, { name: 'crash-job', containers: 6, memoryMB: 256, command: { kind: 'cpu', seconds: 12 } });
    appId = job.appId;
    const first = await brain('first');
    await eventually('the first brain to over-commit every node', overCommitted, 60_000, 250);
    await stopServeProcess(first, 'SIGKILL');
    // Left as the dead brain had it.
    expect(await overCommitted()).toBe(true);

    const secondAt = Date.now();
    const second = await brain('second');
    const client = createAdminClient({ baseUrl: second.adminUrl, token: second.token });
    // The store is shared with the first brain: only the second's entries count here.
    const journal = async () =>
      ((await ok(client.GET('/v1/decisions', { params: { query: { order: 'asc', limit: 1000, since: String(secondAt) } } }))) as { entries: Entry[] }).entries;
    const reconciled = await eventually('the second brain to reconcile', async () => (await journal()).find((e) => e.rule === 'engine.reconcile'), 60_000, 250);
    expect(reconciled.result, reconciled.reason).toBe('applied');
    // Its own write, journaled, and the nodes over-committed again: the reconciliation is journaled
    // at once, the cycle's writes only after they are sent, so the nodes can show them first. A plan
    // the first brain was sending when it was killed is journaled by the second at its first
    // snapshot (`engine.plan-in-flight`, before it leads): the dead brain's writes, not its own.
    const writtenAgain = (entries: Entry[]) =>
      entries.findIndex((e) => e.result === 'applied' && e.rule !== 'engine.reconcile' && e.rule !== 'engine.plan-in-flight');
    await eventually('the second brain to over-commit again', async () => writtenAgain(await journal()) >= 0 && (await overCommitted()), 60_000, 250);
    const entries = await journal();
    const firstWrite = writtenAgain(entries);
    expect(firstWrite).toBeGreaterThan(entries.findIndex((e) => e.rule === 'engine.reconcile'));

    expect(await stopServeProcess(second, 'SIGTERM')).toBe(0);
    expect(await nodeCapacities(rmUrl)).toEqual(baseline);
    const shim = new HttpNodeShim({ urls: [url!], secret: shimSecret(), holder: 'crash-test-reader', retry: { maxAttempts: 1 } });
    const listed = await shim.listContainers();
    expect(listed.containers.filter((c) => c.state === 'SUSPENDED')).toEqual([]);
    const done = await eventually('the job to finish', () => appEnded(rmUrl, appId!), 120_000, 500);
    expect(done.finalStatus).toBe('SUCCEEDED');
  }, 300_000);
});
