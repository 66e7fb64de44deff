/**
 * A policy state kept entry by entry (`stateEntries`): the engine's cycle copies only the entries
 * the policy changes (the state it keeps until it commits stays as it was), and the store writes
 * only those entries, yet reads back the whole state.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Action } from '../../src/core/actions.js';
import type { ApplyOutcome, Capabilities, ClusterBackend } from '../../src/core/backend.js';
import type { ClusterSnapshot, ContainerView, NodeView } from '../../src/core/model.js';
import { res } from '../../src/core/resources.js';
import { buildSnapshot, defaultQueueTree } from '../../src/core/snapshot.js';
import { ChangeTracker } from '../../src/engine/change-tracking.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine, type PolicyLookup } from '../../src/engine/engine.js';
import { kairosParamsSchema, kairosPolicy, type KairosState } from '../../src/policies/kairos/index.js';
import { Store } from '../../src/store/store.js';

const S = 1000;
const json = (x: unknown): unknown => JSON.parse(JSON.stringify(x));

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-entries-'));
  store = await Store.open(dir);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('store: a state saved entry by entry', () => {
  const rec = (state: unknown) => ({ state, savedAtMs: 1, cycleId: 'c' });

  it('reads back the whole state; a save of changed entries writes, replaces and deletes only those', async () => {
    await store.putPolicyState('p', rec({ n: 1, nodes: { a: { x: 1 }, b: { x: 2 } } }), { entryFields: ['nodes'] });
    expect((await store.getPolicyState('p'))?.state).toEqual({ n: 1, nodes: { a: { x: 1 }, b: { x: 2 } } });
    const next = { n: 2, nodes: { a: { x: 1 }, c: { x: 3 } } };
    await store.putPolicyState('p', rec(next), { entryFields: ['nodes'], changed: new Map([['nodes', new Set(['b', 'c'])]]) });
    expect((await store.getPolicyState('p'))?.state).toEqual(next);
  });

  it('a whole state replaces every entry saved before; deleting the state deletes its entries', async () => {
    await store.putPolicyState('p', rec({ nodes: { a: 1, b: 2 } }), { entryFields: ['nodes'] });
    await store.putPolicyState('p-2', rec({ nodes: { a: 9 } }), { entryFields: ['nodes'] });
    await store.putPolicyState('p', rec({ nodes: { c: 3 } }), { entryFields: ['nodes'] });
    expect((await store.getPolicyState('p'))?.state).toEqual({ nodes: { c: 3 } });
    await store.putPolicyState('p', rec({ other: true }));
    expect((await store.getPolicyState('p'))?.state).toEqual({ other: true });
    await store.putEngineConfigAndState({ policy: 'p', params: {}, dryRun: false, updatedAtMs: 1 }, 'p', rec({ nodes: { d: 4 } }), { entryFields: ['nodes'] });
    expect((await store.getPolicyState('p'))?.state).toEqual({ nodes: { d: 4 } });
    await store.delPolicyState('p');
    expect(await store.getPolicyState('p')).toBeUndefined();
    expect((await store.getPolicyState('p-2'))?.state).toEqual({ nodes: { a: 9 } });
  });

  it('refuses a state JSON cannot hold, and writes nothing of it', async () => {
    await store.putPolicyState('p', rec({ nodes: { a: 1 } }), { entryFields: ['nodes'] });
    await expect(store.putPolicyState('p', rec({ nodes: { a: 10n } }), { entryFields: ['nodes'] })).rejects.toThrow();
    expect((await store.getPolicyState('p'))?.state).toEqual({ nodes: { a: 1 } });
  });
});

// ---- Kairos on a few one-core nodes, tasks arriving, ending and moving between them ----------------

const params = kairosParamsSchema.parse({});
const NODES = ['n0', 'n1', 'n2', 'n3'];

interface Task {
  id: string;
  node: number;
  attainedMs: number;
  suspended: boolean;
}

function snapshotOf(nowMs: number, tasks: readonly Task[], changed?: readonly string[]): ClusterSnapshot {
  const containers: ContainerView[] = tasks.map((t) => ({
    id: t.id,
    appId: 'app1',
    nodeId: NODES[t.node],
    resource: res(1024, 1),
    state: t.suspended ? 'SUSPENDED' : 'RUNNING',
    startedAtMs: 0,
    attainedServiceMs: t.attainedMs,
    runningSinceMs: t.suspended ? undefined : 0,
  }));
  const nodes: NodeView[] = NODES.map((id) => ({
    id,
    state: 'RUNNING',
    rack: '/r',
    capacity: res(5120, 5),
    physicalCapacity: res(1024, 1),
    used: res(0, 0),
    containerIds: containers.filter((c) => c.nodeId === id).map((c) => c.id),
  }));
  const s = buildSnapshot({ nowMs, nodes, apps: [], containers, rootQueue: defaultQueueTree() });
  return changed ? { ...s, changedNodeIds: new Set(changed) } : s;
}

/** One step of the cluster: a task arrives, one ends, or time passes (tasks gain attained service). */
const stepArb = fc.oneof(
  fc.record({ kind: fc.constant('arrive' as const), node: fc.nat({ max: NODES.length - 1 }) }),
  fc.record({ kind: fc.constant('end' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 120 * S }) }),
);

describe('kairos through the engine-side tracking: entries copied on write', () => {
  it('leaves the state it was given as it was, decides as on a deep copy, names every entry it changed, and the store reads back the new state', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 1, maxLength: 25 }),
        fc.array(fc.boolean(), { minLength: 25, maxLength: 25 }),
        async (steps, discards) => {
          let now = 0;
          let seq = 0;
          let tasks: Task[] = [];
          const tracking = new ChangeTracker();
          const reference = new ChangeTracker();
          let state: KairosState = kairosPolicy.initialState(params);
          let referenceState: KairosState = kairosPolicy.initialState(params);
          await store.putPolicyState('kairos', { state, savedAtMs: 0, cycleId: 'c0' }, { entryFields: kairosPolicy.stateEntries });
          for (const [i, step] of steps.entries()) {
            let changed: string[] = [];
            if (step.kind === 'arrive') {
              tasks = [...tasks, { id: `c${String(seq++).padStart(3, '0')}`, node: step.node, attainedMs: 0, suspended: false }];
              changed = [NODES[step.node]];
            } else if (step.kind === 'end' && tasks.length > 0) {
              const gone = tasks[step.pick % tasks.length];
              tasks = tasks.filter((t) => t !== gone);
              changed = [NODES[gone.node]];
            } else if (step.kind === 'wait') {
              now += step.ms;
              tasks = tasks.map((t) => (t.suspended ? t : { ...t, attainedMs: t.attainedMs + step.ms }));
            }
            const snapshot = snapshotOf(now, tasks, i === 0 ? undefined : changed);
            const before = JSON.stringify(state);
            const given = tracking.beginCycle(kairosPolicy, state);
            const out = kairosPolicy.decide({ snapshot, params, state: given, tracking });
            const cycle = tracking.endCycle();
            const changedEntries = cycle.changed;
            expect(JSON.stringify(state)).toBe(before);
            const prevNodes = json(state.nodes) as Record<string, unknown>;

            // A discarded cycle keeps the state it began with (the engine's dry-run, standby).
            if (discards[i]) continue;
            cycle.adopt();
            const ref = kairosPolicy.decide({ snapshot, params, state: structuredClone(referenceState), tracking: reference });
            expect(out.decisions.map((d) => [d.action, d.rule])).toEqual(ref.decisions.map((d) => [d.action, d.rule]));
            expect(json(out.state)).toEqual(json(ref.state));

            const nextNodes = json(out.state.nodes) as Record<string, unknown>;
            const keys = changedEntries.get('nodes') ?? new Set<string>();
            for (const id of new Set([...Object.keys(prevNodes), ...Object.keys(nextNodes)]))
              if (JSON.stringify(prevNodes[id]) !== JSON.stringify(nextNodes[id])) expect(keys.has(id)).toBe(true);

            await store.putPolicyState(
              'kairos',
              { state: out.state, savedAtMs: now, cycleId: `c${i}` },
              { entryFields: kairosPolicy.stateEntries, changed: changedEntries },
            );
            expect(json((await store.getPolicyState('kairos'))?.state)).toEqual(json(out.state));
            state = out.state;
            referenceState = ref.state;
            // Apply what Kairos asked: suspended tasks stop gaining service.
            for (const d of out.decisions) {
              const a = d.action;
              if (a.kind === 'suspendContainer' || a.kind === 'resumeContainer')
                tasks = tasks.map((t) => (t.id === a.containerId ? { ...t, suspended: a.kind === 'suspendContainer' } : t));
            }
          }
        },
      ),
      { numRuns: 40, seed: 20261124 },
    );
  });
});

// ---- the engine: a committing Kairos saves its changed entries, and a restart reads them back ----

class TaskBackend implements ClusterBackend {
  readonly name = 'tasks';
  tasks: Task[] = [];
  nowMs = 0;
  async snapshot(): Promise<ClusterSnapshot> {
    return snapshotOf(this.nowMs, this.tasks);
  }
  async apply(a: Action): Promise<ApplyOutcome> {
    if (a.kind === 'suspendContainer' || a.kind === 'resumeContainer')
      this.tasks = this.tasks.map((t) => (t.id === a.containerId ? { ...t, suspended: a.kind === 'suspendContainer' } : t));
    return { status: 'applied' };
  }
  async capabilities(): Promise<Capabilities> {
    return { queueWrites: true, containerSuspend: true, nodeRanking: true, notes: [] };
  }
}

describe('engine: a committing Kairos', () => {
  it('saves the whole state once, then only the entries each cycle changed; a restarted engine resumes the same state', async () => {
    const backend = new TaskBackend();
    const clock = new FakeClock();
    const policies: PolicyLookup = { get: (n) => (n === 'kairos' ? kairosPolicy : undefined), names: () => ['kairos'] };
    const saves = vi.spyOn(store, 'putPolicyState');
    const engine = new Engine({ backend, store, clock, periodMs: 10_000, policies, initial: { policy: 'kairos', params: {} } });
    await engine.init();
    backend.tasks = NODES.flatMap((_, n) => [0, 1].map((k) => ({ id: `c${n}${k}`, node: n, attainedMs: k * 10 * S, suspended: false })));
    for (let i = 0; i < 4; i++) {
      backend.nowMs += 60 * S;
      backend.tasks = backend.tasks.map((t) => (t.suspended ? t : { ...t, attainedMs: t.attainedMs + 60 * S }));
      const r = await engine.runCycle();
      expect(r.outcome).toBe('ok');
    }
    expect(saves.mock.calls.length).toBe(4);
    expect(saves.mock.calls[0][2]?.changed).toBeUndefined();
    for (const call of saves.mock.calls.slice(1)) expect(call[2]?.changed).toBeDefined();
    const kept = json(engine.policyState());
    await engine.stop();

    const restarted = new Engine({ backend, store, clock, periodMs: 10_000, policies, initial: { policy: 'kairos', params: {} } });
    await restarted.init();
    expect(json(restarted.policyState())).toEqual(kept);
    await restarted.stop();
  });
});
