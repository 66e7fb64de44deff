/**
 * The shim on a real MiniYARNCluster (the shared one from the global setup): suspend/resume of a
 * real container's process tree, the lease watchdog, the RM honouring the brain's node ranking,
 * and refusals that change nothing. Talks to the shim through HttpNodeShim (the brain's client).
 *
 * The cluster is shared with the other integration files: this file releases its lease, kills its
 * apps and lets its ranking lapse before it ends.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RmClient } from '../../src/yarn/client.js';
import { HttpNodeShim, ShimRejectedError, type WireContainer } from '../../src/yarn/shim-client.js';
import { submitJob } from '../../src/yarn/workload.js';
import { eventually, shimSecret, shimUrl } from './helpers.js';

const SHIM_URL: string =
  shimUrl() ??
  (() => {
    throw new Error('the shim tests need the shim, and the global setup reported no shimUrl');
  })();

const rmUrl = inject('rmUrl');
const confDir = inject('confDir');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Fields 3.. of /proc/<pid>/stat (state, ppid, pgrp, session, ...); the mini cluster is local. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // gone
  }
}

/** State letter of a process (R, S, T, Z, ...), undefined when it is gone. */
function procState(pid: number): string | undefined {
  return procStat(pid)?.[0];
}

async function rmApp(appId: string): Promise<{ state: string; finalStatus: string }> {
  const res = await fetch(`${rmUrl}/ws/v1/cluster/apps/${appId}`);
  const { app } = (await res.json()) as { app: { state: string; finalStatus: string } };
  return { state: app.state, finalStatus: app.finalStatus };
}

async function killApp(appId: string): Promise<void> {
  await fetch(`${rmUrl}/ws/v1/cluster/apps/${appId}/state?user.name=schedbrain`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ state: 'KILLED' }),
  });
}

function containerPrefix(appId: string): string {
  return `${appId.replace(/^application_/, 'container_')}_`;
}

/** AM container = attempt's container 000001; tasks are the others. */
function isAm(c: { containerId: string }): boolean {
  return /_000001$/.test(c.containerId);
}

describe('NodeManager/ResourceManager shim on the mini YARN', () => {
  let shim: HttpNodeShim;
  let nodes: string[];
  const apps: string[] = [];

  const appContainers = async (appId: string): Promise<WireContainer[]> =>
    (await shim.listContainers()).containers.filter((c) => c.containerId.startsWith(containerPrefix(appId)));

  const runningTasks = (appId: string, n: number, minCpuMs = 0) =>
    eventually(`${n} running task container(s) of ${appId}`, async () => {
      const tasks = (await appContainers(appId)).filter((c) => !isAm(c) && c.attainedServiceMs >= minCpuMs);
      return tasks.length >= n ? tasks.slice(0, n) : undefined;
    });

  const container = async (id: string) => (await shim.listContainers()).containers.find((c) => c.containerId === id);

  const finished = (appId: string) =>
    eventually(
      `${appId} to finish`,
      async () => {
        const a = await rmApp(appId);
        return ['FINISHED', 'FAILED', 'KILLED'].includes(a.state) ? a : undefined;
      },
      180_000,
      1000,
    );

  beforeAll(async () => {
    shim = new HttpNodeShim({ urls: [SHIM_URL], holder: `shim-it-${process.pid}`, requestTimeoutMs: 10_000, secret: shimSecret() });
    const health = await shim.health();
    expect(health.roles.sort()).toEqual(['nodemanager', 'resourcemanager']);
    nodes = health.nodes;
    expect(nodes.length).toBeGreaterThanOrEqual(2);
    // Another file's brain may still hold a lease on the shared cluster: it lapses within its TTL.
    await eventually(
      'no foreign lease on the shim',
      async () => {
        const lease = (await shim.listContainers()).lease;
        return lease === null || lease.holder === shim.holder;
      },
      120_000,
      500,
    );
  });

  afterAll(async () => {
    await shim.releaseLease().catch(() => undefined);
    await shim.publishRanking({ scores: {}, leastLoadedFirst: false, ttlMs: 1 }).catch(() => undefined);
    await Promise.all(apps.map((a) => killApp(a).catch(() => undefined)));
  });

  it('suspend stops the container tree (state T, no CPU accrued); resume continues it and the job succeeds', async () => {
    const { appId } = await submitJob(confDir, { name: 'shim-suspend', containers: 1, command: { kind: 'cpu', seconds: 6 } });
    apps.push(appId);
    const [task] = await runningTasks(appId, 1, 300);
    await shim.renewLease(60_000);

    // DefaultContainerExecutor starts the launch script with `exec setsid`: the pid-file pid leads
    // its own session and process group, which is what suspend signals.
    const [, , pgrp, session] = procStat(task!.pid)!;
    expect({ pgrp: Number(pgrp), session: Number(session) }).toEqual({ pgrp: task!.pid, session: task!.pid });

    const suspended = await shim.suspendContainer(task!.nodeId, task!.containerId);
    expect(suspended.state).toBe('SUSPENDED');
    expect(suspended.processes.length).toBeGreaterThanOrEqual(2); // launch script + task
    await eventually('every process of the container stopped', async () => {
      const c = await container(task!.containerId);
      return c !== undefined && c.processes.every((p) => procState(p.pid) === 'T');
    });
    const frozen = (await container(task!.containerId))!;
    await sleep(1500);
    const still = (await container(task!.containerId))!;
    expect(still.state).toBe('SUSPENDED');
    expect(still.attainedServiceMs).toBe(frozen.attainedServiceMs);
    expect(still.processes.map((p) => procState(p.pid))).toEqual(still.processes.map(() => 'T'));
    expect((await rmApp(appId)).state).toBe('RUNNING');

    const resumed = await shim.resumeContainer(task!.nodeId, task!.containerId);
    expect(resumed.state).toBe('RUNNING');
    expect(resumed.runningSinceMs).toBeGreaterThanOrEqual(frozen.suspendedAtMs!);
    await eventually('CPU accrues again', async () => ((await container(task!.containerId))?.attainedServiceMs ?? Infinity) > frozen.attainedServiceMs);

    const done = await finished(appId);
    expect(done).toEqual({ state: 'FINISHED', finalStatus: 'SUCCEEDED' });
    await shim.releaseLease();
  });

  it('watchdog: when the lease lapses, every suspended container resumes and the job still succeeds', async () => {
    const { appId } = await submitJob(confDir, { name: 'shim-watchdog', containers: 2, command: { kind: 'cpu', seconds: 4 } });
    apps.push(appId);
    const tasks = await runningTasks(appId, 2, 100);
    const ttlMs = 4_000;
    await shim.renewLease(ttlMs);
    const lease = (await shim.listContainers()).lease!;
    for (const t of tasks) expect((await shim.suspendContainer(t.nodeId, t.containerId)).state).toBe('SUSPENDED');
    for (const t of tasks) {
      const c = (await container(t.containerId))!;
      expect(c.state).toBe('SUSPENDED');
    }
    // No renewal from here: the brain is "gone".
    const resumed = await eventually(
      'the watchdog to resume both containers',
      async () => {
        const cs = await Promise.all(tasks.map((t) => container(t.containerId)));
        return cs.every((c) => c?.state === 'RUNNING') ? (cs as WireContainer[]) : undefined;
      },
      60_000,
      100,
    );
    expect((await shim.listContainers()).lease).toBeNull();
    for (const c of resumed) {
      // Resumed after the lease expired, and within one more lease time of it.
      expect(c.runningSinceMs).toBeGreaterThanOrEqual(lease.expiresAtMs);
      expect(c.runningSinceMs - lease.expiresAtMs).toBeLessThan(ttlMs);
      expect(c.processes.every((p) => procState(p.pid) !== 'T')).toBe(true);
    }
    expect(await finished(appId)).toEqual({ state: 'FINISHED', finalStatus: 'SUCCEEDED' });
  });

  it('the RM places new containers on the node the ranking prefers, also after a scheduler-conf change', async () => {
    // Every PUT /scheduler-conf rebuilds the scheduler configuration from the mutable store alone
    // (yarn-site is not consulted again). Change the queue configuration first, so the plugin is
    // checked in the state every cluster the brain manages is in, whichever files ran before.
    const rm = new RmClient({ rmUrl, user: 'schedbrain', requestTimeoutMs: 10_000 });
    const maxCapKey = 'yarn.scheduler.capacity.root.default.maximum-capacity';
    const maxCapBefore = (await rm.schedulerConf()).get(maxCapKey);
    const versionBefore = await rm.schedulerConfVersion();
    await rm.updateSchedulerConf({ updateQueues: [{ queue: 'root.default', params: { 'maximum-capacity': '100' } }] });
    // Restore (an absent key is unset with an empty value).
    await rm.updateSchedulerConf({ updateQueues: [{ queue: 'root.default', params: { 'maximum-capacity': maxCapBefore ?? '' } }] });
    expect(await rm.schedulerConfVersion()).toBeGreaterThanOrEqual(versionBefore + 2);
    const conf = await rm.schedulerConf();
    expect(conf.get(maxCapKey)).toBe(maxCapBefore);
    expect({
      enabled: conf.get('yarn.scheduler.capacity.multi-node-placement-enabled'),
      names: conf.get('yarn.scheduler.capacity.multi-node-sorting.policy.names'),
      policy: conf.get('yarn.scheduler.capacity.multi-node-sorting.policy'),
      cls: conf.get('yarn.scheduler.capacity.multi-node-sorting.policy.schedbrain.class'),
      generalCls: conf.get('yarn.scheduler.capacity.multi-node-sorting.policy.schedbrain-general.class'),
    }).toEqual({
      enabled: 'true',
      names: 'schedbrain,schedbrain-general',
      policy: 'schedbrain',
      cls: 'io.schedbrain.yarn.shim.BrainRankedNodeLookupPolicy',
      generalCls: 'io.schedbrain.yarn.shim.GeneralNodesLookupPolicy',
    });
    expect(Number(conf.get('yarn.scheduler.capacity.multi-node-sorting.policy.schedbrain.sorting-interval.ms'))).toBeGreaterThan(0);

    for (const preferred of [nodes[1]!, nodes[0]!]) {
      const other = nodes.find((n) => n !== preferred)!;
      const state = await shim.putRanking({ scores: { [preferred]: 0, [other]: 1 }, leastLoadedFirst: false, ttlMs: 120_000 });
      expect(state.fresh).toBe(true);
      expect(state.policyLoaded).toBe(true);
      const { appId } = await submitJob(confDir, { name: `shim-rank-${preferred}`, containers: 3, command: { kind: 'sleep', seconds: 4 } });
      apps.push(appId);
      const placed = await eventually(`AM and 3 tasks of ${appId} running`, async () => {
        const cs = await appContainers(appId);
        return cs.length >= 4 ? cs : undefined;
      });
      expect(placed.map((c) => c.nodeId)).toEqual(placed.map(() => preferred));
      const after = await shim.rankingState();
      expect(after.lastOrderRanked).toBe(true);
      expect(after.lastOrder![0]).toBe(preferred);
      expect(await finished(appId)).toEqual({ state: 'FINISHED', finalStatus: 'SUCCEEDED' });
    }
    // A lapsed ranking gives the stock order back.
    await shim.putRanking({ scores: { [nodes[0]!]: 0 }, leastLoadedFirst: false, ttlMs: 1 });
    await sleep(20);
    expect((await shim.rankingState()).fresh).toBe(false);
  });

  it('bad input gets a clear error and changes nothing; a suspended container can still be killed', async () => {
    const { appId } = await submitJob(confDir, { name: 'shim-bad-input', containers: 1, command: { kind: 'cpu', seconds: 120 } });
    apps.push(appId);
    const [task] = await runningTasks(appId, 1);
    const otherNode = nodes.find((n) => n !== task!.nodeId)!;
    const snapshot = async () => {
      const l = await shim.listContainers();
      return { lease: l.lease, states: Object.fromEntries(l.containers.map((c) => [c.containerId, c.state])) };
    };
    const refused = async (status: number, code: string, call: () => Promise<unknown>) => {
      const before = await snapshot();
      const err = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, `${code} expected`).toBeInstanceOf(ShimRejectedError);
      expect((err as ShimRejectedError).status).toBe(status);
      expect((err as ShimRejectedError).code).toBe(code);
      expect((err as ShimRejectedError).message).toMatch(/: \S/); // carries the shim's reason
      expect(await snapshot()).toEqual(before);
    };
    const raw = async (body: string) => {
      const res = await fetch(`${SHIM_URL}/v1/containers/suspend`, { method: 'POST', body, headers: { Authorization: `Bearer ${shimSecret()}` } });
      return { status: res.status, body: (await res.json()) as { error: string; reason: string } };
    };

    await shim.releaseLease();
    await refused(423, 'no_lease', () => shim.suspend(task!.nodeId, task!.containerId));
    await shim.renewLease(60_000);
    await refused(404, 'unknown_container', () => shim.suspend(task!.nodeId, `${containerPrefix(appId)}01_000099`));
    await refused(409, 'wrong_node', () => shim.suspend(otherNode, task!.containerId));
    for (const body of [
      '{"nodeId":',
      '[]',
      '',
      JSON.stringify({ nodeId: task!.nodeId }),
      JSON.stringify({ nodeId: task!.nodeId, containerId: task!.containerId, force: true }),
    ]) {
      const before = await snapshot();
      const r = await raw(body);
      expect(r.status, body).toBe(400);
      expect(r.body.error).toBe('bad_request');
      expect(r.body.reason.length).toBeGreaterThan(0);
      expect(await snapshot()).toEqual(before);
    }
    expect((await container(task!.containerId))!.state).toBe('RUNNING');

    // Refusals leave a suspended container suspended, too.
    await shim.suspend(task!.nodeId, task!.containerId);
    await refused(409, 'wrong_node', () => shim.resume(otherNode, task!.containerId));
    await refused(409, 'lease_held', () =>
      new HttpNodeShim({ urls: [SHIM_URL], holder: 'someone-else', retry: { maxAttempts: 1 }, secret: shimSecret() }).renewLease(1_000),
    );
    // Whoever lacks the shared secret can neither take the lease, nor stop or resume containers,
    // nor steer placement, nor even list what runs.
    const intruder = new HttpNodeShim({ urls: [SHIM_URL], holder: 'intruder', retry: { maxAttempts: 1 } });
    await refused(401, 'unauthorized', () => intruder.renewLease(3_600_000));
    await refused(401, 'unauthorized', () => intruder.resume(task!.nodeId, task!.containerId));
    await refused(401, 'unauthorized', () => intruder.putRanking({ scores: { [otherNode]: 0 }, leastLoadedFirst: false, ttlMs: 3_600_000 }));
    await refused(401, 'unauthorized', () => intruder.listContainers());
    const wrongSecret = new HttpNodeShim({ urls: [SHIM_URL], holder: 'intruder', retry: { maxAttempts: 1 }, secret: 'a-guess-that-is-long-enough' });
    await refused(401, 'unauthorized', () => wrongSecret.renewLease(3_600_000));
    expect((await intruder.health()).service).toBe('schedbrain-shim');
    const frozen = (await container(task!.containerId))!;
    expect(frozen.state).toBe('SUSPENDED');

    // Killing the app reaches the suspended container: it must die, not sit frozen.
    await killApp(appId);
    expect((await finished(appId)).state).toBe('KILLED');
    await eventually(
      'the suspended container processes to exit',
      async () => frozen.processes.every((p) => procState(p.pid) === undefined || procState(p.pid) === 'Z'),
      60_000,
    );
    expect(await container(task!.containerId)).toBeUndefined();
  });

  it("fencing: a newer leader's epoch takes the lease over with a container suspended; the older epoch is refused everywhere; a release forgets it", async () => {
    const { appId } = await submitJob(confDir, { name: 'shim-fencing', containers: 1, command: { kind: 'cpu', seconds: 60 } });
    apps.push(appId);
    const [task] = await runningTasks(appId, 1);
    const brain = (holder: string, epoch: number) =>
      new HttpNodeShim({ urls: [SHIM_URL], holder, retry: { maxAttempts: 1 }, secret: shimSecret(), epoch: () => epoch });
    const old = brain('brain-old', 7);
    const next = brain('brain-new', 8);
    await shim.releaseLease().catch(() => undefined);
    await old.renewLease(60_000);
    await old.suspend(task!.nodeId, task!.containerId);
    expect((await shim.health()).epoch).toBe(7);
    // The newer leader takes the live lease at once; the suspension stays, for it to adopt or undo.
    await next.renewLease(60_000);
    expect((await shim.listContainers()).lease?.holder).toBe('brain-new');
    expect((await container(task!.containerId))!.state).toBe('SUSPENDED');
    for (const call of [
      () => old.resume(task!.nodeId, task!.containerId),
      () => old.renewLease(60_000),
      () => old.releaseLease(),
      () => old.publishRanking({ scores: {}, leastLoadedFirst: false, ttlMs: 1_000 }),
    ]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ShimRejectedError);
      expect((err as ShimRejectedError).code).toBe('stale_epoch');
    }
    expect((await container(task!.containerId))!.state).toBe('SUSPENDED');
    // The health lists each node's configured capacity: what the RM advertised before any brain ran.
    const health = await shim.health();
    const baseline = inject('clusterBaseline').nodes;
    for (const n of nodes) expect(`${health.resources[n]?.memoryMB}/${health.resources[n]?.vcores}`).toBe(baseline[n]);
    // Released: the container resumes and the shim forgets the epoch.
    expect(await next.releaseLease()).toContain(task!.containerId);
    expect((await container(task!.containerId))!.state).toBe('RUNNING');
    expect((await shim.health()).epoch).toBeNull();
    await killApp(appId);
    await finished(appId);
  });
});
