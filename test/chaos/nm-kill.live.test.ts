/**
 * A NodeManager killed outright (`kill -9`) while the brain holds one of its containers suspended,
 * then started again on the same directories. On a real cluster the shim runs inside the
 * NodeManager's JVM and the container processes outlive it (each runs in its own session), so the
 * stopped ones stay stopped: no shutdown hook, no lease watchdog is left to continue them.
 *
 * The mini YARN runs the RM, its NodeManagers and the shim in one JVM, so killing one NodeManager
 * of the shared cluster would take the shared RM with it: this file starts a one-node cluster of
 * its own (fixed RM web port), kills that JVM with SIGKILL, and starts it again on the same work
 * directory (MiniClusterMain keeps the shim's secret and its suspension record there). The brain
 * runs in-process (Engine + YarnBackend) with a policy that suspends one task container; it reaches
 * the shim through a local forwarder standing for the shim's fixed address on a real node.
 *
 * Must hold: after the kill the suspended processes are still there and stopped (the fault is
 * real); once the cluster is back, no process of the job is in state T (read from /proc/<pid>/stat,
 * the same pid with the same start time), and the brain has journaled the node it lost with the
 * suspended container and counted it. The figures go to docs/reliability.md.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePolicy, type AnyPolicy } from '../../src/core/policy.js';
import { Engine } from '../../src/engine/engine.js';
import { Store } from '../../src/store/store.js';
import { YarnBackend } from '../../src/yarn/backend.js';
import { startMiniCluster, type MiniCluster } from '../../src/yarn/minicluster.js';
import { HttpNodeShim } from '../../src/yarn/shim-client.js';
import { submitJob } from '../../src/yarn/workload.js';
import { eventually } from '../integration/helpers.js';
import { procStat } from './cluster.js';

const PERIOD_MS = 1_000;
const LEASE_TTL_MS = 60_000;

/** Suspends one running task container (never the AM), once; never resumes it. */
const suspendOne = definePolicy({
  name: 'suspend-one',
  description: 'suspends one running task container once (chaos test)',
  paramsSchema: z.object({}).strict(),
  needs: ['containerSuspend'],
  initialState: () => ({ suspended: null as string | null }),
  decide: ({ snapshot, state }) => {
    if (state.suspended) return { decisions: [], state };
    const task = [...snapshot.containers.values()].find((c) => c.state === 'RUNNING' && !c.appMaster && !c.id.endsWith('_000001'));
    if (!task) return { decisions: [], state };
    return {
      decisions: [
        {
          action: { kind: 'suspendContainer', containerId: task.id, nodeId: task.nodeId },
          policy: 'suspend-one',
          rule: 'suspendOne',
          reason: 'chaos: suspend one task',
        },
      ],
      state: { suspended: task.id },
    };
  },
}) as AnyPolicy;

/** A TCP forwarder whose target can change: the shim's fixed address across the restart. */
async function forwarder(): Promise<{ url: string; target: { host: string; port: number }; server: Server }> {
  const target = { host: '127.0.0.1', port: 0 };
  const server = createServer((down) => {
    const up = connect(target.port, target.host);
    down.pipe(up).pipe(down);
    up.on('error', () => down.destroy());
    down.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, target, server };
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

interface JobProcess {
  pid: number;
  startTicks: number;
  containerId: string;
}

describe('a NodeManager killed with containers suspended, then restarted', () => {
  let workDir: string | undefined;
  let cluster: MiniCluster | undefined;
  let fwd: Awaited<ReturnType<typeof forwarder>> | undefined;
  let store: Store | undefined;
  let engine: Engine | undefined;
  let jobProcesses: JobProcess[] = [];
  const figures: string[] = [];

  afterAll(async () => {
    await engine?.stop();
    await store?.close();
    // The job's processes outlived the first cluster; the second does not know them.
    for (const p of jobProcesses) {
      if (procStat(p.pid)?.startTicks === p.startTicks) {
        try {
          process.kill(p.pid, 'SIGCONT');
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // exited meanwhile
        }
      }
    }
    await cluster?.stop();
    fwd?.server.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
    if (figures.length) console.log(`nm-kill figures:\n${figures.join('\n')}`);
  });

  it('the brain reports the lost node with the suspended container, and on restart no process of the job stays stopped', async (ctx) => {
    if (!existsSync('/proc/self/stat')) ctx.skip(true, 'needs Linux /proc to read process states');
    workDir = mkdtempSync(join(tmpdir(), 'schedbrain-nm-kill-'));
    const rmWebPort = await freePort();
    const start = () => startMiniCluster({ nodes: 1, nmMemoryMB: 4096, nmVcores: 4, workDir, rmWebPort, startTimeoutMs: 240_000 });
    cluster = await start();
    if (!cluster.shimUrl || !cluster.shimSecret) ctx.skip(true, 'the mini cluster started without its shim');
    fwd = await forwarder();
    fwd.target.port = Number(new URL(cluster.shimUrl!).port);
    const shim = new HttpNodeShim({ urls: [fwd.url], secret: cluster.shimSecret, holder: `nm-kill-${process.pid}`, retry: { maxAttempts: 1 } });
    const lostNodeId = cluster.nodes[0]!.nodeId;

    const job = await submitJob(cluster.confDir, { name: 'nm-kill', containers: 2, memoryMB: 256, command: { kind: 'sleep', seconds: 600 } });
    const listed = async () => (await shim.listContainers()).containers.filter((c) => c.containerId.includes(job.appId.slice('application_'.length)));
    await eventually('the AM and two task containers running', async () => (await listed()).length >= 3, 120_000, 500);

    const dir = mkdtempSync(join(workDir, 'brain-'));
    store = await Store.open(dir);
    engine = new Engine({
      backend: new YarnBackend({ rmUrl: cluster.rmUrl, shim, requestTimeoutMs: 5_000 }),
      store,
      periodMs: PERIOD_MS,
      lease: { renew: () => shim.renewLease(LEASE_TTL_MS) },
      policies: { get: (n) => (n === 'suspend-one' ? suspendOne : undefined), names: () => ['suspend-one'] },
      initial: { policy: 'suspend-one', params: {}, dryRun: false },
    });
    await engine.init();
    engine.start();
    const suspendedId = await eventually(
      'the brain to suspend a task container',
      async () => (await listed()).find((c) => c.state === 'SUSPENDED' && c.processes.length > 0 && c.processes.every((p) => p.state === 'T'))?.containerId,
      60_000,
      250,
    );
    jobProcesses = (await listed()).flatMap((c) =>
      c.processes.map((p) => ({ pid: p.pid, startTicks: procStat(p.pid)?.startTicks ?? -1, containerId: c.containerId })),
    );
    const suspended = jobProcesses.filter((p) => p.containerId === suspendedId);
    expect(suspended.length).toBeGreaterThan(0);

    // kill -9 of the JVM that holds the NodeManager and its shim: no hook runs.
    const killedAt = Date.now();
    process.kill(cluster.pid, 'SIGKILL');
    await cluster.stop();
    cluster = undefined;
    // The fault is real: the suspended processes live on, stopped.
    await new Promise((r) => setTimeout(r, 3 * PERIOD_MS));
    for (const p of suspended) expect(procStat(p.pid), `pid ${p.pid} of ${p.containerId}`).toMatchObject({ state: 'T', startTicks: p.startTicks });

    const restartAt = Date.now();
    cluster = await start();
    const readyAt = Date.now();
    fwd.target.port = Number(new URL(cluster.shimUrl!).port);
    const stoppedNow = () => jobProcesses.filter((p) => procStat(p.pid)?.startTicks === p.startTicks && procStat(p.pid)?.state === 'T');
    await eventually(
      'no process of the job stopped',
      async () => stoppedNow().length === 0,
      30_000,
      100,
      () => JSON.stringify(stoppedNow()),
    );
    const continuedAt = Date.now();
    // They run on (nothing stops them again): still none stopped a little later.
    await new Promise((r) => setTimeout(r, 2 * PERIOD_MS));
    expect(stoppedNow()).toEqual([]);
    expect(
      suspended.some((p) => procStat(p.pid)?.startTicks === p.startTicks),
      'the continued processes are alive',
    ).toBe(true);

    // The brain: the node it suspended a container on is gone from the restarted RM's list.
    const entry = await eventually(
      'the brain to journal the lost node',
      async () =>
        (await store!.journal.query({ order: 'asc' })).find((e) => e.rule === 'engine.drift' && JSON.parse(e.detail ?? '{}').kind === 'suspendedOnLostNode'),
      60_000,
      250,
    );
    const reportedAt = Date.now();
    expect(JSON.parse(entry.detail!)).toMatchObject({ target: `node:${lostNodeId}`, written: `SUSPENDED: ${suspendedId}` });
    expect(entry.reason).toContain(suspendedId);
    expect(engine.metrics.drift.get({ kind: 'suspendedOnLostNode' })).toBe(1);

    figures.push(
      `suspended container ${suspendedId} (${suspended.length} processes); job processes ${jobProcesses.length}`,
      `stopped while no NodeManager ran: ${restartAt - killedAt} ms; cluster restart to ready: ${readyAt - restartAt} ms`,
      `ready to every job process running: ${continuedAt - readyAt} ms (checked every 100 ms)`,
      `brain report after the restart was ready: ${reportedAt - readyAt} ms (period ${PERIOD_MS} ms)`,
    );
  }, 600_000);
});
