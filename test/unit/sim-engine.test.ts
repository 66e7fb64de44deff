import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Action, Decision } from '../../src/core/actions.js';
import type { AppView, ClusterSnapshot } from '../../src/core/model.js';
import { definePolicy, type AnyPolicy } from '../../src/core/policy.js';
import { SimBackend } from '../../src/sim/backend.js';
import { Simulator, type SimOptions } from '../../src/sim/engine.js';
import { Rng } from '../../src/sim/rng.js';
import type { JobSpec, Workload } from '../../src/sim/workload.js';
import { fifoPolicy } from '../../src/policies/fifo/index.js';

const ONE = { memoryMB: 1024, vcores: 1 };

function job(arrivalS: number, durationsS: number[], extra: Partial<JobSpec> = {}): JobSpec {
  return { arrivalMs: arrivalS * 1000, stages: [{ resource: ONE, workMs: durationsS.map((d) => d * 1000) }], ...extra };
}

function wl(jobs: JobSpec[]): Workload {
  return { name: 'test', jobs };
}

function sim(jobs: JobSpec[], o: Partial<SimOptions> = {}): Simulator {
  return new Simulator({ workload: wl(jobs), nodes: 1, cores: 1, checkInvariants: true, ...o });
}

const finishS = (s: Simulator) => s.records.map((r) => (r?.finishMs ?? NaN) / 1000);

/** A policy driven by a test callback. */
function scripted(fn: (s: ClusterSnapshot, calls: number) => { actions?: Action[]; wakeAtMs?: number }): AnyPolicy {
  return definePolicy<Record<string, never>, number>({
    name: 'scripted',
    description: 'test',
    paramsSchema: z.object({}),
    initialState: () => 0,
    decide: ({ snapshot, state }) => {
      const r = fn(snapshot, state);
      return {
        decisions: (r.actions ?? []).map((action): Decision => ({ action, policy: 'scripted', rule: 't', reason: 't' })),
        state: state + 1,
        wakeAtMs: r.wakeAtMs,
      };
    },
  });
}

describe('simulator: placement and CPU model', () => {
  it('runs tasks one after another on a single core under FIFO', () => {
    const s = sim([job(0, [10, 20]), job(1, [5])], { policy: fifoPolicy });
    s.run();
    expect(s.done).toBe(true);
    // Job 1 tasks at 0-10 and 10-30; job 2 waits for the core until 30.
    expect(finishS(s)).toEqual([30, 35]);
  });

  it('shares an over-committed core equally (processor sharing)', () => {
    const s = sim([job(0, [10]), job(0, [20])]);
    expect(s.apply({ kind: 'setNodeResource', nodeId: 'node1', resource: { memoryMB: 8192, vcores: 2 } }).status).toBe('applied');
    s.run();
    // Both run at rate 1/2: the 10 s task ends at 20 s; the other then has 10 s of work left.
    expect(finishS(s)).toEqual([20, 30]);
    expect(s.serviceCoreMs).toBeCloseTo(30_000, 6);
  });

  it('gives multi-vcore containers rate min(1, cores / running vcores)', () => {
    const two = { memoryMB: 1024, vcores: 2 };
    const s = new Simulator({
      workload: wl([{ arrivalMs: 0, stages: [{ resource: two, workMs: [6000] }] }, job(0, [4])]),
      nodes: 1,
      cores: 2,
      checkInvariants: true,
    });
    s.apply({ kind: 'setNodeResource', nodeId: 'node1', resource: { memoryMB: 16384, vcores: 3 } });
    s.runUntil(1000);
    const n = s.nodes[0];
    expect(n.rate).toBeCloseTo(2 / 3, 12);
    expect(n.rate * n.runningVcores).toBeLessThanOrEqual(2 + 1e-9);
    s.run();
    // 4 s task at 2/3 → 6 s; the 6 s task has 4 s done then runs alone: 8 s.
    expect(finishS(s)).toEqual([8, 6]);
  });

  it('suspended containers keep their attained service and do not progress', async () => {
    const b = new SimBackend({ workload: wl([job(0, [10])]), nodes: 1, cores: 1, checkInvariants: true });
    b.advance(4000);
    let snap = await b.snapshot();
    const [c] = [...snap.containers.values()];
    expect(c.attainedServiceMs).toBeCloseTo(4000, 9);
    expect((await b.apply({ kind: 'suspendContainer', containerId: c.id, nodeId: c.nodeId })).status).toBe('applied');
    b.advance(50_000);
    snap = await b.snapshot();
    expect(snap.containers.get(c.id)!.state).toBe('SUSPENDED');
    expect(snap.containers.get(c.id)!.attainedServiceMs).toBeCloseTo(4000, 9);
    expect((await b.apply({ kind: 'resumeContainer', containerId: c.id, nodeId: c.nodeId })).status).toBe('applied');
    expect(snap.containers.get(c.id)!.runningSinceMs).toBe(54_000);
    b.sim.run();
    expect(finishS(b.sim)).toEqual([60]);
    expect(b.sim.serviceCoreMs).toBeCloseTo(10_000, 6);
  });

  it('suspended containers keep their allocation (the RM still sees them)', async () => {
    const b = new SimBackend({ workload: wl([job(0, [10]), job(0, [10])]), nodes: 1, cores: 1, checkInvariants: true });
    b.advance(1000);
    const snap = await b.snapshot();
    const [c] = [...snap.containers.values()];
    await b.apply({ kind: 'suspendContainer', containerId: c.id, nodeId: c.nodeId });
    b.advance(1000);
    // Nothing else placed: the node's only vcore is still allocated.
    expect(snap.containers.size).toBe(1);
    expect(snap.nodes.get('node1')!.used.vcores).toBe(1);
    expect(snap.apps.size).toBe(2);
  });

  it('places by priority, then submission order', () => {
    const s = sim([job(0, [10]), job(1, [10]), job(2, [10])]);
    s.runUntil(3000);
    const third = [...s.apps.values()][2];
    expect(s.apply({ kind: 'setAppPriority', appId: third.id, priority: 5 }).status).toBe('applied');
    s.run();
    expect(finishS(s)).toEqual([10, 30, 20]);
  });

  it('requests a stage only when its parents have finished', () => {
    const s = new Simulator({
      workload: wl([
        {
          arrivalMs: 0,
          stages: [
            { resource: ONE, workMs: [1000, 3000] },
            { resource: ONE, workMs: [2000], parents: [0] },
          ],
        },
      ]),
      nodes: 4,
      cores: 1,
      checkInvariants: true,
    });
    s.runUntil(2500);
    const app = [...s.apps.values()][0];
    expect(app.runningContainers).toBe(1);
    expect(app.pendingContainers).toBe(0);
    s.run();
    expect(finishS(s)).toEqual([5]);
  });

  it('runs a diamond DAG: a stage waits for all of its parents', () => {
    const s = new Simulator({
      workload: wl([
        {
          arrivalMs: 0,
          stages: [
            { resource: ONE, workMs: [1000] },
            { resource: ONE, workMs: [5000], parents: [0] },
            { resource: ONE, workMs: [2000, 2000], parents: [0] },
            { resource: ONE, workMs: [1000], parents: [1, 2] },
          ],
        },
      ]),
      nodes: 4,
      cores: 1,
      checkInvariants: true,
    });
    s.runUntil(3500);
    const app = [...s.apps.values()][0];
    // Stage 2 done at 3 s, stage 1 still running until 6 s: stage 3 not requested yet.
    expect(app.runningContainers).toBe(1);
    expect(app.pendingContainers).toBe(0);
    s.run();
    expect(finishS(s)).toEqual([7]);
  });

  it('places on memory as well as vcores', () => {
    const big = { memoryMB: 6144, vcores: 1 };
    const s = new Simulator({
      workload: wl([{ arrivalMs: 0, stages: [{ resource: big, workMs: [10_000, 10_000] }] }, job(0, [10])]),
      nodes: 1,
      cores: 4,
      memoryMBPerNode: 8192,
      checkInvariants: true,
    });
    s.runUntil(0);
    // One 6 GB container fits; the second waits for memory although 3 vcores are free, and the
    // later app's 1 GB container is placed meanwhile (YARN skips a request that does not fit).
    const apps = [...s.apps.values()];
    expect(apps[0].runningContainers).toBe(1);
    expect(apps[0].pendingContainers).toBe(1);
    expect(apps[1].runningContainers).toBe(1);
    expect(apps[0].pendingContainerResource).toEqual(big);
    s.run();
    expect(finishS(s)).toEqual([20, 10]);
  });

  it('uses node-id order by default and exactly the rankNodes order when one is in force', () => {
    const jobs = Array.from({ length: 6 }, (_, i) => job(i, [100]));
    const s = new Simulator({ workload: wl(jobs), nodes: 4, cores: 2, checkInvariants: true });
    s.runUntil(0);
    expect([...s.containers.values()].map((c) => c.nodeId)).toEqual(['node1']);
    s.apply({ kind: 'rankNodes', scores: { node3: 1, node2: 2 }, leastLoadedFirst: false, partial: false });
    s.runUntil(2000);
    // node1 still has a free core but is unscored: scored nodes first, ascending score.
    expect([...s.containers.values()].map((c) => c.nodeId)).toEqual(['node1', 'node3', 'node3']);
    s.apply({ kind: 'rankNodes', scores: { node4: 0 }, leastLoadedFirst: true, partial: true });
    s.runUntil(5000);
    // Least loaded first: node4 (0 containers, score 0), then node2 (0, score 2), then node4 (1), …
    expect([...s.containers.values()].map((c) => c.nodeId)).toEqual(['node1', 'node3', 'node3', 'node4', 'node2', 'node4']);
  });

  it('finds nodes by id, and by nothing else', () => {
    const s = new Simulator({ workload: wl([job(0, [1])]), nodes: 12, cores: 1 });
    const byId = s.nodeById;
    expect(byId.size).toBe(12);
    expect([...byId.keys()]).toEqual(s.nodes.map((n) => n.id));
    expect(byId.get('node01')).toBe(s.nodes[0]);
    expect(byId.get('node12')).toBe(s.nodes[11]);
    expect(byId.has('node07')).toBe(true);
    // The right number with other digits, past the end, zero, not digits, another name.
    for (const id of ['node1', 'node001', 'node13', 'node00', 'node0x', 'node', 'nodes01', 'Node01', 'xnode01', 'node01 ', '', 'node99999999999'])
      expect(byId.get(id), id).toBeUndefined();
    expect([...byId].map(([k, v]) => k === v.id)).toEqual(s.nodes.map(() => true));
    const seen: string[] = [];
    byId.forEach((n, id, m) => {
      expect(m).toBe(byId);
      seen.push(`${id}=${n.idRank}`);
    });
    expect(seen.slice(0, 2)).toEqual(['node01=0', 'node02=1']);
  });

  it('finds live containers by id and lists them in launch order, as a map would', () => {
    // Three jobs on two one-core nodes: jobs 2 and 3 wait for a core.
    const jobs = [job(0, [10, 30]), job(1, [5]), job(2, [40, 40])];
    const s = new Simulator({ workload: wl(jobs), nodes: 2, cores: 1, checkInvariants: true });
    s.runUntil(0);
    const first = [...s.containers.values()];
    expect(first.map((c) => c.id)).toEqual(['container_0_0001_01_000001', 'container_0_0001_01_000002']);
    s.runUntil(12_000);
    // At 10 s job 1's first task finished and job 2's task took node1 (until 15 s); job 1's
    // second task, launched before it, still runs on node2.
    const live = [...s.containers.keys()];
    expect(live).toEqual(['container_0_0001_01_000002', 'container_0_0002_01_000001']);
    expect(s.containers.size).toBe(2);
    for (const id of live) expect(s.containers.get(id)?.id).toBe(id);
    expect([...s.containers.entries()].map(([k, v]) => k === v.id)).toEqual([true, true]);
    expect(s.containers.has('container_0_0001_01_000002')).toBe(true);
    // Released, never launched, of an unknown app, or not a container id at all.
    for (const id of [
      'container_0_0001_01_000001',
      'container_0_0001_01_000003',
      'container_0_0009_01_000001',
      'container_0_0001_01_00000x',
      'container_0__01_000002',
      'container_0_0001_01_',
      'container_0_0001_01_000002x',
      'application_0_0001',
      'container_0_0001_02_000002',
      '',
    ])
      expect(s.containers.get(id), id).toBeUndefined();
    expect(s.containers.has('container_0_0001_01_000001')).toBe(false);
    const seen: string[] = [];
    s.containers.forEach((c, id, m) => {
      expect(m).toBe(s.containers);
      seen.push(`${id}@${c.nodeId}`);
    });
    expect(seen).toEqual(['container_0_0001_01_000002@node2', 'container_0_0002_01_000001@node1']);
    s.run();
    expect(s.containers.size).toBe(0);
    expect([...s.containers]).toEqual([]);
  });

  it('keeps launch order in its container list through thousands of launches and releases', () => {
    // One job of 4,000 tasks of 1 to 30 s on 50 one-core nodes: one app, so launch order is the
    // containers' sequence order.
    const rng = new Rng(3);
    const s = new Simulator({
      workload: wl([
        job(
          0,
          Array.from({ length: 4000 }, () => 1 + Math.floor(rng.next() * 30)),
        ),
      ]),
      nodes: 50,
      cores: 1,
      checkInvariants: true,
    });
    const seqOf = (id: string) => Number(id.slice(id.lastIndexOf('_') + 1));
    for (const t of [200_000, 600_000, 1_000_000]) {
      s.runUntil(t);
      const listed = [...s.containers.keys()];
      const onNodes = s.nodes.flatMap((n) => n.containerIds).sort((a, b) => seqOf(a) - seqOf(b));
      expect(listed).toEqual(onNodes);
      expect(listed.length).toBe(50);
      expect(s.containers.size).toBe(50);
      for (const id of listed) expect(s.containers.get(id)?.id).toBe(id);
    }
    s.run();
    expect(s.containers.size).toBe(0);
    expect([...s.containers.values()]).toEqual([]);
  });

  it('kills containers (task re-requested, progress lost) and apps', async () => {
    const b = new SimBackend({ workload: wl([job(0, [10]), job(0, [10])]), nodes: 1, cores: 1, checkInvariants: true });
    b.advance(4000);
    let snap = await b.snapshot();
    const [c] = [...snap.containers.values()];
    expect((await b.apply({ kind: 'killContainer', containerId: c.id, nodeId: c.nodeId })).status).toBe('applied');
    snap = await b.snapshot();
    // The same app gets the core back (it is first in FIFO order) and starts over.
    const [c2] = [...snap.containers.values()];
    expect(c2.appId).toBe(c.appId);
    expect(c2.attainedServiceMs).toBe(0);
    const other = [...snap.apps.values()].find((a) => a.id !== c.appId)!;
    expect((await b.apply({ kind: 'killApp', appId: other.id })).status).toBe('applied');
    expect((await b.apply({ kind: 'killApp', appId: other.id })).status).toBe('noop');
    b.sim.run();
    expect(b.sim.done).toBe(true);
    expect(b.sim.killedJobs).toBe(1);
    expect(finishS(b.sim)[0]).toBe(14);
    expect(b.sim.apps.get(c.appId)!.wastedMs).toBeCloseTo(4000, 9);
  });
});

describe('simulator: policy driving', () => {
  it('applies actions after the decision delay', () => {
    let suspendedAt = -1;
    const pol = scripted((s) => {
      const c = [...s.containers.values()].find((x) => x.state === 'RUNNING');
      if (c && suspendedAt < 0) {
        suspendedAt = s.nowMs;
        return { actions: [{ kind: 'suspendContainer', containerId: c.id, nodeId: c.nodeId }], wakeAtMs: s.nowMs + 10_000 };
      }
      const sus = [...s.containers.values()].find((x) => x.state === 'SUSPENDED');
      if (sus) {
        expect(sus.attainedServiceMs).toBeCloseTo(1000, 9);
        return { actions: [{ kind: 'resumeContainer', containerId: sus.id, nodeId: sus.nodeId }] };
      }
      return {};
    });
    const s = sim([job(0, [10])], { policy: pol, decisionDelayMs: 1000 });
    s.run();
    // Runs 1 s before the suspend lands, suspended until the wake at 10 s + 1 s delay, 9 s more.
    expect(finishS(s)).toEqual([20]);
    expect(s.actionStats.applied).toBe(2);
  });

  it('wakes the policy at wakeAtMs and reports changed nodes', () => {
    const calls: { t: number; changed: string[] | undefined }[] = [];
    const pol = scripted((s, n) => {
      calls.push({ t: s.nowMs, changed: s.changedNodeIds ? [...s.changedNodeIds].sort() : undefined });
      return n === 0 ? { wakeAtMs: 7000 } : {};
    });
    const s = new Simulator({ workload: wl([job(0, [10]), job(20, [1])]), nodes: 3, cores: 1, policy: pol });
    s.run();
    expect(calls.map((c) => c.t)).toEqual([0, 7000, 10_000, 20_000, 21_000]);
    expect(calls[0].changed).toEqual(['node1']);
    expect(calls[1].changed).toEqual([]);
    expect(calls[2].changed).toEqual(['node1']);
  });

  it('lists each changed node once, in the order first changed, and answers has() for that call only', () => {
    const seen: { t: number; ids: string[]; size: number; has: Record<string, boolean>; entries: [string, string][]; each: string[] }[] = [];
    const pol = scripted((s) => {
      const c = s.changedNodeIds!;
      const each: string[] = [];
      c.forEach((v, k, set) => {
        expect(set).toBe(c);
        expect(k).toBe(v);
        each.push(v);
      });
      seen.push({
        t: s.nowMs,
        ids: [...c],
        size: c.size,
        has: Object.fromEntries(['node1', 'node2', 'node3', 'nodeX'].map((id) => [id, c.has(id)])),
        entries: [...c.entries()],
        each,
      });
      return {};
    });
    // Two 2-core nodes. 0 s: job 1's two tasks go to node1, job 2's to node2; 1 s: job 3's to
    // node2; 2 s: job 4 waits; 3 s: job 1's first task ends on node1 and job 4's starts there.
    const s = new Simulator({ workload: wl([job(0, [3, 30]), job(0, [5]), job(1, [5]), job(2, [5])]), nodes: 2, cores: 2, policy: pol });
    s.runUntil(3000);
    expect(seen.map((x) => x.t)).toEqual([0, 1000, 2000, 3000]);
    expect(seen[0]).toEqual({
      t: 0,
      ids: ['node1', 'node2'],
      size: 2,
      has: { node1: true, node2: true, node3: false, nodeX: false },
      entries: [
        ['node1', 'node1'],
        ['node2', 'node2'],
      ],
      each: ['node1', 'node2'],
    });
    expect(seen[1]).toMatchObject({ ids: ['node2'], size: 1, has: { node1: false, node2: true } });
    expect(seen[2]).toMatchObject({ ids: [], size: 0, has: { node1: false, node2: false }, entries: [], each: [] });
    // A release and a launch on node1: listed once.
    expect(seen[3]).toMatchObject({ ids: ['node1'], size: 1, has: { node1: true, node2: false }, each: ['node1'] });
  });

  it("does not report the policy's own suspends and resumes as changes, but reports one from outside", () => {
    const calls: { t: number; changed: string[] }[] = [];
    const pol = scripted((s, n) => {
      calls.push({ t: s.nowMs, changed: [...(s.changedNodeIds ?? [])].sort() });
      const c = [...s.containers.values()][0];
      if (n === 0) return { actions: [{ kind: 'suspendContainer', containerId: c.id, nodeId: c.nodeId }], wakeAtMs: 2000 };
      if (n === 1) return { actions: [{ kind: 'resumeContainer', containerId: c.id, nodeId: c.nodeId }], wakeAtMs: 4000 };
      return {};
    });
    const s = new Simulator({ workload: wl([job(0, [10])]), nodes: 2, cores: 1, policy: pol });
    s.runUntil(3000);
    expect(calls.map((c) => [c.t, c.changed])).toEqual([
      [0, ['node1']],
      [2000, []],
    ]);
    const c = [...s.containers.values()][0];
    expect(s.apply({ kind: 'suspendContainer', containerId: c.id, nodeId: c.nodeId }).status).toBe('applied');
    s.runUntil(5000);
    expect(calls[2]).toEqual({ t: 4000, changed: ['node1'] });
  });

  it('calls the policy on a fixed period when asked', () => {
    const times: number[] = [];
    const pol = scripted((s) => {
      times.push(s.nowMs);
      return {};
    });
    const s = new Simulator({ workload: wl([job(0, [2.5])]), nodes: 1, cores: 1, policy: pol, periodMs: 1000 });
    s.run();
    expect(times).toEqual([0, 1000, 2000]);
    expect(finishS(s)).toEqual([2.5]);
  });

  it('stops instead of spinning when a policy starves every container forever', () => {
    const pol = scripted((s) => ({
      actions: [...s.containers.values()]
        .filter((c) => c.state === 'RUNNING')
        .map((c): Action => ({ kind: 'suspendContainer', containerId: c.id, nodeId: c.nodeId })),
      wakeAtMs: s.nowMs + 1000,
    }));
    const s = new Simulator({ workload: wl([job(0, [10])]), nodes: 1, cores: 1, policy: pol });
    s.run();
    expect(s.done).toBe(false);
    expect(s.records[0]).toBeUndefined();
    expect(s.containers.size).toBe(1);
  });

  it('reports failed outcomes for unknown targets instead of throwing', () => {
    const s = sim([job(0, [1])]);
    for (const a of [
      { kind: 'setAppPriority', appId: 'nope', priority: 1 },
      { kind: 'moveApp', appId: 'nope', queue: 'root.default' },
      { kind: 'killApp', appId: 'nope' },
      { kind: 'setNodeResource', nodeId: 'nope', resource: ONE },
      { kind: 'suspendContainer', containerId: 'nope', nodeId: 'node1' },
      { kind: 'resumeContainer', containerId: 'nope', nodeId: 'node1' },
      { kind: 'killContainer', containerId: 'nope', nodeId: 'node1' },
      { kind: 'updateQueues', add: [], update: [{ path: 'root.nope', capacityPct: 10 }] },
    ] as Action[]) {
      expect(s.apply(a).status).toBe('failed');
    }
  });
});

/** Randomly over-commits nodes, suspends, resumes, kills, re-ranks and re-prioritises. */
function chaosPolicy(seed: number): AnyPolicy {
  const rng = new Rng(seed);
  return scripted((s) => {
    const actions: Action[] = [];
    const containers = [...s.containers.values()];
    const nodes = [...s.nodes.values()];
    const apps = [...s.apps.values()].filter((a) => a.state === 'RUNNING');
    for (let k = 0; k < 3; k++) {
      const x = rng.next();
      if (x < 0.25 && containers.length) {
        const c = containers[rng.int(containers.length)];
        actions.push({ kind: c.state === 'RUNNING' ? 'suspendContainer' : 'resumeContainer', containerId: c.id, nodeId: c.nodeId });
      } else if (x < 0.3 && containers.length) {
        const c = containers[rng.int(containers.length)];
        actions.push({ kind: 'killContainer', containerId: c.id, nodeId: c.nodeId });
      } else if (x < 0.5 && nodes.length) {
        const n = nodes[rng.int(nodes.length)];
        const v = n.physicalCapacity.vcores + rng.int(3);
        actions.push({ kind: 'setNodeResource', nodeId: n.id, resource: { memoryMB: n.physicalCapacity.memoryMB * 2, vcores: v } });
      } else if (x < 0.6) {
        const scores: Record<string, number> = {};
        for (const n of nodes) if (rng.next() < 0.5) scores[n.id] = rng.int(5);
        actions.push({ kind: 'rankNodes', scores, leastLoadedFirst: rng.next() < 0.5, partial: rng.next() < 0.5 });
      } else if (x < 0.7 && apps.length) {
        actions.push({ kind: 'setAppPriority', appId: apps[rng.int(apps.length)].id, priority: rng.int(3) });
      }
    }
    // Never leave work stranded: resume everything every so often.
    if (rng.next() < 0.2)
      for (const c of containers) if (c.state === 'SUSPENDED') actions.push({ kind: 'resumeContainer', containerId: c.id, nodeId: c.nodeId });
    return { actions, wakeAtMs: s.nowMs + 500 + rng.int(5000) };
  });
}

function randomWorkload(seed: number, n: number): Workload {
  const rng = new Rng(seed);
  const jobs: JobSpec[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += rng.exponential(3000);
    const stages = [
      { resource: { memoryMB: 1024 * (1 + rng.int(2)), vcores: 1 + rng.int(2) }, workMs: Array.from({ length: 1 + rng.int(6) }, () => 100 + rng.int(20_000)) },
    ];
    if (rng.next() < 0.4) stages.push({ resource: ONE, workMs: Array.from({ length: 1 + rng.int(3) }, () => rng.int(5000)), parents: [0] } as never);
    jobs.push({ arrivalMs: Math.round(t), stages });
  }
  return wl(jobs);
}

describe('simulator: changed applications', () => {
  /** What a policy can see of an application: every field of its view. */
  const fingerprint = (a: AppView): string =>
    JSON.stringify([a.state, a.priority, a.queue, a.startedAtMs, a.pendingContainers, a.pendingContainerResource, a.runningContainers, a.allocated, a.tags]);

  it('reports every application that arrived, changed in any field or left the snapshot, and no other', () => {
    // The chaotic policy suspends, resumes, kills containers and re-prioritises; on top of it,
    // applications are moved between two queues and killed. Three completed applications stay
    // visible, so finished ones leave the snapshot too.
    const base = chaosPolicy(4);
    const rng = new Rng(44);
    let prev = new Map<string, string>();
    let calls = 0;
    let reported = 0;
    const seen = { arrived: 0, changed: 0, left: 0 };
    const checking = definePolicy<Record<string, never>, unknown>({
      ...base,
      decide: (input) => {
        const s = input.snapshot;
        const changed = s.changedAppIds!;
        const now = new Map<string, string>();
        for (const a of s.apps.values()) now.set(a.id, fingerprint(a));
        // A first call may list fewer than every app only if none existed before it.
        for (const [id, f] of now) {
          const before = prev.get(id);
          if (before === f) continue;
          expect(changed.has(id), `${id} at ${s.nowMs}`).toBe(true);
          if (before === undefined) seen.arrived++;
          else seen.changed++;
        }
        for (const id of prev.keys()) {
          if (now.has(id)) continue;
          expect(changed.has(id), `${id} left at ${s.nowMs}`).toBe(true);
          seen.left++;
        }
        reported += changed.size;
        calls++;
        prev = now;
        const out = base.decide(input);
        const extra: Decision[] = [];
        const running = [...s.apps.values()].filter((a) => a.state === 'RUNNING');
        if (running.length > 0 && rng.next() < 0.15) {
          const a = running[rng.int(running.length)];
          extra.push({ action: { kind: 'moveApp', appId: a.id, queue: a.queue === 'root.a' ? 'root.b' : 'root.a' }, policy: 't', rule: 't', reason: 't' });
        }
        if (running.length > 0 && rng.next() < 0.03)
          extra.push({ action: { kind: 'killApp', appId: running[rng.int(running.length)].id }, policy: 't', rule: 't', reason: 't' });
        return { ...out, decisions: [...out.decisions, ...extra] };
      },
    });
    const w: Workload = {
      ...randomWorkload(4, 60),
      queues: [
        { path: 'root.a', capacityPct: 50, maxCapacityPct: 100 },
        { path: 'root.b', capacityPct: 50, maxCapacityPct: 100 },
      ],
    };
    const jobs = w.jobs.map((j) => ({ ...j, queue: 'root.a' }));
    const s = new Simulator({ workload: { ...w, jobs }, nodes: 4, cores: 2, policy: checking, completedAppRetention: 3, checkInvariants: true });
    s.run();
    expect(s.done).toBe(true);
    expect(s.actionStats.byKind.moveApp?.applied).toBeGreaterThan(0);
    expect(s.actionStats.byKind.killApp?.applied).toBeGreaterThan(0);
    expect(s.actionStats.byKind.setAppPriority?.applied).toBeGreaterThan(0);
    expect(seen.arrived).toBe(60);
    expect(seen.changed).toBeGreaterThan(100);
    expect(seen.left).toBeGreaterThan(40);
    // Not everything at every call: a call lists the applications of its own events.
    expect(reported).toBeLessThan(calls * 3);
  });

  it('hands each call its own set of changed applications, which later calls leave as it was', () => {
    const seen: { t: number; set: ReadonlySet<string>; ids: string[] }[] = [];
    const pol = scripted((s) => {
      const c = s.changedAppIds!;
      expect(s.changedAppIds).toBe(c);
      seen.push({ t: s.nowMs, set: c, ids: [...c] });
      return {};
    });
    // 0 s: job 1 arrives and starts; 1 s: job 2 arrives (waits: one core); 2 s: job 1 ends, job 2 starts.
    const s = new Simulator({ workload: wl([job(0, [2]), job(1, [3])]), nodes: 1, cores: 1, policy: pol });
    s.runUntil(2000);
    expect(seen.map((x) => [x.t, x.ids])).toEqual([
      [0, ['application_0_0001']],
      [1000, ['application_0_0002']],
      [2000, ['application_0_0001', 'application_0_0002']],
    ]);
    // Every call's set still lists what it listed then.
    for (const x of seen) expect([...x.set]).toEqual(x.ids);
  });

  it('a snapshot taken outside a policy call says nothing of what changed', () => {
    const s = sim([job(0, [1])]);
    s.runUntil(500);
    expect(s.snapshot().changedAppIds).toBeUndefined();
    expect(s.snapshot().changedNodeIds).toBeUndefined();
  });
});

describe('simulator: invariants under a chaotic policy', () => {
  const run = (seed: number) => {
    const w = randomWorkload(seed, 80);
    const s = new Simulator({ workload: w, nodes: 5, cores: 2, policy: chaosPolicy(seed), decisionDelayMs: seed % 2 ? 0 : 200, checkInvariants: true });
    s.run();
    return { s, w };
  };

  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: every job finishes, no core over-used, work conserved`, () => {
      const { s, w } = run(seed);
      expect(s.done).toBe(true);
      expect(s.finishedJobs).toBe(w.jobs.length);
      expect(s.actionStats.applied).toBeGreaterThan(50);
      expect(s.actionStats.byKind.suspendContainer?.applied).toBeGreaterThan(0);
      // Delivered CPU = the tasks' work + the work lost by killed containers.
      let work = 0;
      for (const j of w.jobs) for (const st of j.stages) for (let i = 0; i < st.workMs.length; i++) work += st.workMs[i] * st.resource.vcores;
      for (const r of s.records) expect(r?.finishMs).toBeGreaterThanOrEqual(r!.arrivalMs);
      expect(s.actionStats.byKind.killContainer?.applied ?? 0).toBeGreaterThan(0);
      expect(s.wastedCoreMs).toBeGreaterThan(0);
      expect(s.serviceCoreMs).toBeCloseTo(work + s.wastedCoreMs, 3);
      expect(s.containers.size).toBe(0);
    });
  }

  it('conserves work exactly without kills', () => {
    const w = randomWorkload(9, 60);
    const base = chaosPolicy(9);
    const noKill = definePolicy<Record<string, never>, unknown>({
      ...base,
      decide: (input) => {
        const out = base.decide(input);
        return { ...out, decisions: out.decisions.filter((d: Decision) => d.action.kind !== 'killContainer') };
      },
    });
    const s = new Simulator({ workload: w, nodes: 4, cores: 2, policy: noKill, checkInvariants: true });
    s.run();
    expect(s.done).toBe(true);
    let work = 0;
    for (const j of w.jobs) for (const st of j.stages) for (let i = 0; i < st.workMs.length; i++) work += st.workMs[i] * st.resource.vcores;
    expect(s.serviceCoreMs).toBeCloseTo(work, 3);
  });

  it('is deterministic: same workload, seed and params give identical output', () => {
    const a = run(2).s;
    const b = run(2).s;
    expect(b.records).toEqual(a.records);
    expect(b.actionStats).toEqual(a.actionStats);
    expect(b.events).toBe(a.events);
  });
});
