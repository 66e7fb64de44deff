/**
 * One active brain on the shared mini YARN: two `schedbrain serve` processes with opposite
 * capacity targets elect a leader through a ZooKeeper server (ZooKeeperMain from the adapter).
 *
 * - exactly one leads; the other's /healthz says standby with the same epoch and leader, and its
 *   journal holds only dry-runs marked `standby`;
 * - the queue holds the leader's value at every sample: no flip-flop;
 * - the leader is killed (SIGKILL): the standby leads within two lease periods with a higher
 *   epoch, reconciles first (`engine.reconcile`), then writes its own value, which holds;
 * - the shim refuses a change under the dead leader's epoch (409 stale_epoch).
 *
 * Leaves the cluster as it found it: the last brain stops cleanly (its lease released), and the
 * test's queue is removed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAdminClient, ok } from '../../src/client/index.js';
import { RmClient } from '../../src/yarn/client.js';
import { toQueueTree } from '../../src/yarn/backend.js';
import { findQueue } from '../../src/core/model.js';
import { HttpNodeShim, ShimRejectedError } from '../../src/yarn/shim-client.js';
import { startZooKeeper, type ZooKeeperServer } from '../../src/yarn/zookeeper.js';
import { eventually, shimSecret, shimUrl, startServeProcess, stopServeProcess, type ServeProcess } from './helpers.js';

const rmUrl = inject('rmUrl');
const LEASE_MS = 4_000;
const PERIOD_MS = 500;
// A queue of the test's own at 0 %, whose maximum the two brains want different.
const QUEUE = `root.sbleader${Date.now() % 100_000}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Brain = ServeProcess;

interface Health {
  status: string;
  leadership: { role: 'leader' | 'standby'; epoch: number; holder: string | null } | null;
}

interface Entry {
  rule: string;
  reason: string;
  result: string;
  detail?: string;
  timeMs: number;
}

let zk: ZooKeeperServer;
let dir: string;
const brains: Brain[] = [];
const rm = new RmClient({ rmUrl, user: 'schedbrain', requestTimeoutMs: 10_000 });

async function maxCapacity(): Promise<number> {
  return findQueue(toQueueTree(await rm.scheduler()), QUEUE)!.maxCapacityPct;
}

/** `schedbrain serve` in a child process (so it can be killed), with capacity-targets at `maxPct`. */
async function startBrain(name: string, maxPct: number): Promise<Brain> {
  const brain = await startServeProcess(name, rmUrl, join(dir, name), [
    '--policy',
    'capacity-targets',
    '--policy-params',
    JSON.stringify({ targets: { [QUEUE]: { capacityPct: 0, maxCapacityPct: maxPct } } }),
    '--allow-zero-capacity',
    QUEUE,
    '--period-ms',
    String(PERIOD_MS),
    '--leader-zk',
    zk.connect,
    '--leader-zk-path',
    '/schedbrain-it/leader',
    '--leader-lease-ms',
    String(LEASE_MS),
    '--log-level',
    'warn',
  ]);
  brains.push(brain);
  return brain;
}

async function health(b: Brain): Promise<Health> {
  // An open route: no token. 200 and 503 both carry the health body.
  const r = await createAdminClient({ baseUrl: b.adminUrl }).GET('/healthz');
  return (r.data ?? r.error) as Health;
}

async function journal(b: Brain): Promise<Entry[]> {
  const client = createAdminClient({ baseUrl: b.adminUrl, token: b.token });
  const { entries } = (await ok(client.GET('/v1/decisions', { params: { query: { order: 'asc', limit: 1000 } } }))) as { entries: Entry[] };
  return entries;
}

async function stopBrain(b: Brain, signal: NodeJS.Signals): Promise<void> {
  await stopServeProcess(b, signal);
}

describe('two brains on one RM, elected through ZooKeeper', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-it-leader-'));
    zk = await startZooKeeper();
    await rm.updateSchedulerConf({ addQueues: [{ queue: QUEUE, params: { capacity: '0', 'maximum-capacity': '100' } }] });
  }, 120_000);

  afterAll(async () => {
    for (const b of brains) await stopBrain(b, 'SIGTERM');
    await rm.updateSchedulerConf({ updateQueues: [{ queue: QUEUE, params: { state: 'STOPPED' } }] }).catch(() => undefined);
    await rm.updateSchedulerConf({ removeQueues: [QUEUE] }).catch((e: unknown) => console.warn(`could not remove ${QUEUE}: ${(e as Error).message}`));
    await zk?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('exactly one writes at a time; the standby takes over within two lease periods; no flip-flop', async () => {
    const a = await startBrain('a', 90);
    await eventually('a leads', async () => (await health(a)).leadership?.role === 'leader', 30_000);
    const b = await startBrain('b', 80);
    const first = await eventually(
      'b standby behind a',
      async () => {
        const [ha, hb] = await Promise.all([health(a), health(b)]);
        return ha.leadership?.role === 'leader' &&
          hb.leadership?.role === 'standby' &&
          hb.leadership.epoch === ha.leadership.epoch &&
          hb.leadership.holder === ha.leadership.holder
          ? ha.leadership
          : undefined;
      },
      30_000,
    );
    await eventually("the leader's value", async () => (await maxCapacity()) === 90, 30_000);

    // Both brains cycle every 500 ms with opposite targets: the queue keeps the leader's value.
    const samples: number[] = [];
    for (let i = 0; i < 20; i++) {
      samples.push(await maxCapacity());
      await sleep(250);
    }
    expect(new Set(samples)).toEqual(new Set([90]));
    const jb = await journal(b);
    expect(jb.filter((e) => e.result === 'applied')).toEqual([]);
    const planned = jb.filter((e) => e.rule === 'capacity-targets.hold');
    expect(planned.length).toBeGreaterThan(0);
    for (const e of planned) expect(e).toMatchObject({ result: 'dryRun', detail: expect.stringMatching(/^standby: /) });
    expect(jb.some((e) => e.rule === 'engine.leadership' && e.reason.startsWith('standby: '))).toBe(true);

    // The leader dies without a word: its ZooKeeper session lapses after the lease.
    const killedAt = Date.now();
    await stopBrain(a, 'SIGKILL');
    const second = await eventually(
      'b leads',
      async () => {
        const l = (await health(b)).leadership;
        return l?.role === 'leader' ? l : undefined;
      },
      4 * LEASE_MS,
      100,
    );
    const failoverMs = Date.now() - killedAt;
    expect(failoverMs).toBeLessThanOrEqual(2 * LEASE_MS);
    expect(second.epoch).toBeGreaterThan(first.epoch);
    await eventually("the new leader's value", async () => (await maxCapacity()) === 80, 30_000);
    const after: number[] = [];
    for (let i = 0; i < 12; i++) {
      after.push(await maxCapacity());
      await sleep(250);
    }
    expect(new Set(after)).toEqual(new Set([80]));

    // The new leader reconciled before its first write, and journaled both.
    const jb2 = await journal(b);
    const led = jb2.findIndex((e) => e.rule === 'engine.leadership' && e.reason.includes(`leads with epoch ${second.epoch}`));
    const reconciled = jb2.findIndex((e) => e.rule === 'engine.reconcile');
    const firstWrite = jb2.findIndex((e) => e.result === 'applied' && e.rule === 'capacity-targets.hold');
    expect(led).toBeGreaterThanOrEqual(0);
    expect(reconciled).toBeGreaterThan(led);
    // a left nothing behind (capacity-targets neither over-commits nor suspends).
    expect(jb2[reconciled]!.result).toBe('noop');
    expect(jb2[reconciled]!.reason).toMatch(/^epoch \d+: nothing left by a previous brain \(physical capacities: /);
    expect(firstWrite).toBeGreaterThan(reconciled);

    // Fencing: the shim now refuses the dead leader's epoch.
    const url = shimUrl();
    if (url) {
      const stale = new HttpNodeShim({ urls: [url], secret: shimSecret(), holder: 'stale-brain', epoch: () => first.epoch, retry: { maxAttempts: 1 } });
      const err = await stale.renewLease(10_000).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ShimRejectedError);
      expect((err as ShimRejectedError).code).toBe('stale_epoch');
      expect((await stale.health()).epoch).toBe(second.epoch);
    }
    console.log(`leadership: failover ${failoverMs} ms after SIGKILL (lease ${LEASE_MS} ms), epochs ${first.epoch} → ${second.epoch}`);

    // A clean stop hands over nothing more and releases the shims' lease.
    await stopBrain(b, 'SIGTERM');
    expect(await b.exited).toBe(0);
  }, 240_000);
});
