/**
 * The YARN backend with the NodeManager shim on the shared mini YARN: the snapshot merges the
 * shim's accounting into the RM's containers, and suspend/resume actions show up in it.
 *
 * Cleans up after itself: kills its app and releases its lease.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ClusterSnapshot, ContainerView } from '../../src/core/model.js';
import { YarnBackend } from '../../src/yarn/backend.js';
import { HttpNodeShim } from '../../src/yarn/shim-client.js';
import { submitJob } from '../../src/yarn/workload.js';
import { eventually, shimSecret, shimUrl } from './helpers.js';

const rmUrl = inject('rmUrl');
const confDir = inject('confDir');

const url = shimUrl();

describe.skipIf(!url)('YarnBackend with the NodeManager shim', () => {
  let shim: HttpNodeShim;
  let backend: YarnBackend;
  let appId: string;

  const taskOf = (s: ClusterSnapshot): ContainerView | undefined => [...s.containers.values()].find((c) => c.appId === appId && !c.id.endsWith('_000001'));

  beforeAll(async () => {
    shim = new HttpNodeShim({ urls: [url!], holder: `yarn-backend-it-${process.pid}`, requestTimeoutMs: 10_000, secret: shimSecret() });
    backend = new YarnBackend({ rmUrl, user: 'schedbrain', shim });
    ({ appId } = await submitJob(confDir, { name: 'yarn-backend-shim-it', containers: 1, command: { kind: 'cpu', seconds: 120 } }));
    await shim.renewLease(120_000);
  });

  afterAll(async () => {
    if (appId) await backend.client.killApp(appId).catch(() => undefined);
    await shim?.releaseLease().catch(() => undefined);
  });

  it('capabilities: suspend and ranking available through the shim', async () => {
    const caps = await backend.capabilities();
    expect(caps).toMatchObject({ queueWrites: true, containerSuspend: true, nodeRanking: true });
  });

  it('snapshot carries the shim accounting; suspend and resume show up in it', async () => {
    const running = await eventually('task accruing CPU in the snapshot', async () => {
      const t = taskOf(await backend.snapshot());
      return t && (t.attainedServiceMs ?? 0) > 200 ? t : undefined;
    });
    expect(running.state).toBe('RUNNING');
    expect(running.runningSinceMs).toBeGreaterThan(0);

    expect(await backend.apply({ kind: 'suspendContainer', containerId: running.id, nodeId: running.nodeId })).toEqual({ status: 'applied' });
    const suspended = await eventually('task SUSPENDED in the snapshot', async () => {
      const t = taskOf(await backend.snapshot());
      return t?.state === 'SUSPENDED' ? t : undefined;
    });
    // Still allocated as far as the RM is concerned: the container stays in the snapshot.
    expect(suspended.id).toBe(running.id);
    const frozenAt = suspended.attainedServiceMs!;
    await new Promise((r) => setTimeout(r, 1_500));
    const still = taskOf(await backend.snapshot())!;
    expect(still.state).toBe('SUSPENDED');
    // Stopped processes accrue no CPU (tolerate one scheduler tick of accounting skew).
    expect(still.attainedServiceMs! - frozenAt).toBeLessThanOrEqual(20);

    expect(await backend.apply({ kind: 'resumeContainer', containerId: running.id, nodeId: running.nodeId })).toEqual({ status: 'applied' });
    const resumed = await eventually('task RUNNING and accruing again', async () => {
      const t = taskOf(await backend.snapshot());
      return t?.state === 'RUNNING' && t.attainedServiceMs! > frozenAt + 100 ? t : undefined;
    });
    expect(resumed.runningSinceMs).toBeGreaterThanOrEqual(running.runningSinceMs!);
  });
});
