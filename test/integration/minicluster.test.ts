/**
 * The embedded YARN cluster and the real test workload: nodes registered, a job's task containers
 * really run on the NodeManagers (visible through the RM and as OS processes), and finish.
 */
import { mkdtempSync, readFileSync, readlinkSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { MiniClusterStartError, startMiniCluster } from '../../src/yarn/minicluster.js';
import { JobSubmitError, submitJob } from '../../src/yarn/workload.js';
import { eventually } from './helpers.js';

const rmUrl = inject('rmUrl');
const confDir = inject('confDir');
const miniNodes = inject('miniNodes');
const ws = `${rmUrl}/ws/v1/cluster`;
const USER = 'schedbrain';
/** OS-level checks need the cluster on this machine (not SCHEDBRAIN_IT_RM_URL). */
const localCluster = !process.env.SCHEDBRAIN_IT_RM_URL;

async function get(path: string): Promise<any> {
  const res = await fetch(ws + path, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Jersey JSON: absent = [], one element = bare object, more = array. */
function list<T = any>(v: unknown): T[] {
  return v === undefined || v === null ? [] : ([v].flat() as T[]);
}

async function containersOf(appId: string): Promise<any[]> {
  const atts = list((await get(`/apps/${appId}/appattempts`)).appAttempts?.appAttempt);
  if (atts.length === 0) return [];
  const att = atts[atts.length - 1].appAttemptId;
  return list((await get(`/apps/${appId}/appattempts/${att}/containers`)).container);
}

const toKill: string[] = [];
async function kill(appId: string) {
  await fetch(`${ws}/apps/${appId}/state?user.name=${USER}`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ state: 'KILLED' }),
  });
}

afterAll(async () => {
  for (const id of toKill) await kill(id);
});

/** Processes whose working directory is the given container's directory (Linux /proc). */
function processesOfContainer(containerId: string): { pid: number; cmdline: string }[] {
  const out: { pid: number; cmdline: string }[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (!readlinkSync(`/proc/${e}/cwd`).endsWith(`/${containerId}`)) continue;
      out.push({ pid: Number(e), cmdline: readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0').join(' ').trim() });
    } catch {
      // gone or not ours
    }
  }
  return out;
}

/** utime + stime of a process, in clock ticks. */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime/stime are fields 14/15.
  return Number(fields[11]) + Number(fields[12]);
}

function procState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
}

describe('embedded YARN cluster', () => {
  it('has every NodeManager registered and RUNNING', async () => {
    expect(miniNodes.length).toBeGreaterThanOrEqual(1);
    const nodes = list((await get('/nodes')).nodes?.node);
    const running = nodes
      .filter((n) => n.state === 'RUNNING')
      .map((n) => n.id)
      .sort();
    expect(running).toEqual(miniNodes.map((n) => n.nodeId).sort());
    for (const n of nodes) expect(n.totalResource.memory).toBeGreaterThan(0);
    const info = (await get('/info')).clusterInfo;
    expect(info.state).toBe('STARTED');
  });

  it('runs a real 2-container sleep job to FINISHED, its containers visible while running', async () => {
    const { appId } = await submitJob(confDir, {
      name: 'it-sleep',
      priority: 3,
      tags: { 'schedbrain.estimate-ms': '8000', Team: 'IT' },
      containers: 2,
      memoryMB: 256,
      vcores: 1,
      command: { kind: 'sleep', seconds: 8 },
    });
    toKill.push(appId);
    expect(appId).toMatch(/^application_\d+_\d+$/);

    // AM + 2 task containers RUNNING at the same time, on the cluster's nodes.
    const running = await eventually('3 running containers', async () => {
      const cs = (await containersOf(appId)).filter((c) => c.containerState === 'RUNNING');
      return cs.length >= 3 ? cs : undefined;
    });
    const nodeIds = new Set(miniNodes.map((n) => n.nodeId));
    for (const c of running) {
      expect(nodeIds.has(c.nodeId)).toBe(true);
      expect(c.containerId).toMatch(/^container_\d+_\d+_\d+_\d+$/);
    }
    const tasks = running.filter((c) => !c.containerId.endsWith('_000001'));
    expect(tasks).toHaveLength(2);
    for (const t of tasks) expect(Number(t.allocatedMB)).toBe(256);

    const app = (await get(`/apps/${appId}`)).app;
    expect(app.name).toBe('it-sleep');
    expect(app.priority).toBe(3);
    expect(app.queue).toBe('root.default');
    // YARN lower-cases application tags.
    expect(String(app.applicationTags).split(',').sort()).toEqual(['schedbrain.estimate-ms=8000', 'team=it']);

    const done = await eventually('app to finish', async () => {
      const a = (await get(`/apps/${appId}`)).app;
      return ['FINISHED', 'FAILED', 'KILLED'].includes(a.state) ? a : undefined;
    });
    expect(done.state).toBe('FINISHED');
    expect(done.finalStatus).toBe('SUCCEEDED');
  });

  it('submitJob with wait reports the final state', async () => {
    const r = await submitJob(confDir, { name: 'it-wait', containers: 1, command: { kind: 'sleep', seconds: 1 }, wait: true });
    toKill.push(r.appId);
    expect(r.finalState).toBe('FINISHED');
    expect(r.finalStatus).toBe('SUCCEEDED');
  });

  it.skipIf(!localCluster)('a cpu task is a real process burning CPU that SIGSTOP freezes', async () => {
    const { appId } = await submitJob(confDir, {
      name: 'it-cpu',
      containers: 1,
      memoryMB: 256,
      vcores: 1,
      command: { kind: 'cpu', seconds: 600 },
    });
    toKill.push(appId);
    const task = await eventually('the task container', async () => {
      const cs = (await containersOf(appId)).filter((c) => c.containerState === 'RUNNING' && !c.containerId.endsWith('_000001'));
      return cs[0];
    });
    const proc = await eventually('the task process', async () =>
      // Not the NM's `bash -c "... task.sh ... 1>stdout"` wrapper (it only waits): the task itself.
      processesOfContainer(task.containerId).find((p) => p.cmdline.startsWith('/bin/bash task.sh cpu 600')),
    );

    // It consumes CPU time.
    const t0 = cpuTicks(proc.pid);
    await eventually('CPU time to grow', async () => (cpuTicks(proc.pid) > t0 ? true : undefined), 30_000);

    // Stopped, it consumes none (this is what suspend relies on), and resumes afterwards.
    process.kill(proc.pid, 'SIGSTOP');
    try {
      await eventually('stopped state', async () => (procState(proc.pid) === 'T' ? true : undefined), 10_000);
      const frozen = cpuTicks(proc.pid);
      await new Promise((r) => setTimeout(r, 1000));
      expect(cpuTicks(proc.pid)).toBe(frozen);
    } finally {
      process.kill(proc.pid, 'SIGCONT');
    }
    const resumed = cpuTicks(proc.pid);
    await eventually('CPU time to grow again', async () => (cpuTicks(proc.pid) > resumed ? true : undefined), 30_000);
    const still = (await containersOf(appId)).find((c) => c.containerId === task.containerId);
    expect(still?.containerState).toBe('RUNNING');

    await kill(appId);
    await eventually('task process gone after kill', async () => (processesOfContainer(task.containerId).length === 0 ? true : undefined));
  });

  it('a start that cannot become ready fails with a typed error and leaves no JVM behind', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'schedbrain-mini-timeout-'));
    try {
      const err = await startMiniCluster({ workDir, startTimeoutMs: 200 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MiniClusterStartError);
      expect((err as Error).message).toMatch(/not ready within 200 ms/);
      const leftovers = readdirSync('/proc').filter((e) => {
        if (!/^\d+$/.test(e)) return false;
        try {
          return readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(workDir);
        } catch {
          return false;
        }
      });
      expect(leftovers).toEqual([]);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  it('rejects an invalid job spec with a typed error', async () => {
    await expect(submitJob(confDir, { name: 'it-bad', containers: 0, command: { kind: 'sleep', seconds: 1 } })).rejects.toBeInstanceOf(JobSubmitError);
  });
});
