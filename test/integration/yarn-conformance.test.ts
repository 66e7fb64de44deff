/**
 * The backend conformance suite (test/conformance) against the YARN backend on the shared mini
 * YARN, with the NodeManager shim: the same checks the simulator passes, so a policy cannot tell
 * the two apart.
 *
 * The cluster is shared with the other integration files, so this one leaves it as it found it:
 * its job is killed, the queue the suite adds is stopped and removed, `root.default` gets its
 * capacity back, node resources are restored and the shim lease is released.
 */
import { afterAll, beforeAll, inject } from 'vitest';
import type { Resources } from '../../src/core/resources.js';
import { YarnBackend } from '../../src/yarn/backend.js';
import { HttpNodeShim } from '../../src/yarn/shim-client.js';
import { submitJob } from '../../src/yarn/workload.js';
import { describeBackendConformance } from '../conformance/backend-conformance.js';

const rmUrl = inject('rmUrl');
const confDir = inject('confDir');
const shimUrl = (inject as (key: string) => unknown)('shimUrl') as string | undefined;

const shim = shimUrl
  ? new HttpNodeShim({ urls: [shimUrl], holder: `conformance-${process.pid}`, requestTimeoutMs: 10_000, secret: inject('shimSecret') || undefined })
  : undefined;
const backend = new YarnBackend({ rmUrl, user: 'schedbrain', shim });

let appId: string | undefined;
let defaultCapacityPct = 100;
const nodeCapacities = new Map<string, Resources>();

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

beforeAll(async () => {
  const s = await backend.snapshot();
  defaultCapacityPct = [...s.rootQueue.children].find((q) => q.path === 'root.default')?.capacityPct ?? 100;
  for (const n of s.nodes.values()) nodeCapacities.set(n.id, n.capacity);
  // A running application with task containers for the suite to act on.
  ({ appId } = await submitJob(confDir, { name: 'backend-conformance', containers: 2, command: { kind: 'sleep', seconds: 600 } }));
  await waitFor(`${appId} to run its task containers`, async () => {
    const snap = await backend.snapshot();
    return [...snap.containers.values()].filter((c) => c.appId === appId && !c.appMaster).length >= 2;
  });
  if (shim) await shim.renewLease(600_000);
});

afterAll(async () => {
  if (appId) await backend.client.killApp(appId).catch(() => undefined);
  if (shim) await shim.releaseLease().catch(() => undefined);
  const s = await backend.snapshot();
  for (const [id, r] of nodeCapacities) {
    const now = s.nodes.get(id)?.capacity;
    if (now && (now.vcores !== r.vcores || now.memoryMB !== r.memoryMB)) await backend.client.setNodeResource(id, r).catch(() => undefined);
  }
  const added = s.rootQueue.children.filter((q) => q.name.startsWith('conformance')).map((q) => q.path);
  if (added.length) {
    // A queue must be empty and STOPPED before the RM removes it.
    await waitFor('the conformance queues to drain', async () => {
      const apps = await backend.client.apps({ states: ['NEW', 'NEW_SAVING', 'SUBMITTED', 'ACCEPTED', 'RUNNING'] });
      return !apps.some((a) => added.some((p) => p.endsWith(`.${a.queue}`) || a.queue === p));
    });
    await backend.client.updateSchedulerConf({ updateQueues: added.map((queue) => ({ queue, params: { state: 'STOPPED' } })) });
    await backend.client.updateSchedulerConf({
      removeQueues: added,
      updateQueues: [{ queue: 'root.default', params: { capacity: String(defaultCapacityPct) } }],
    });
  }
});

// A killed container stays listed until its NodeManager's next heartbeat reports it complete
// (one second in the mini cluster): give the RM that long before a check reads it back.
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 2_500));

describeBackendConformance('yarn', () => backend, { destructive: true, timeoutMs: 120_000, settle });
