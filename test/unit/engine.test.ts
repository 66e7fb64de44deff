import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Decision } from '../../src/core/actions.js';
import { ValidationError } from '../../src/core/errors.js';
import { definePolicy, type AnyPolicy } from '../../src/core/policy.js';
import { FakeClock, settle } from '../../src/engine/clock.js';
import { Engine, type EngineOptions, type PolicyLookup } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { capacityTargetsPolicy } from '../../src/policies/capacity-targets/index.js';
import { Store } from '../../src/store/store.js';

const PERIOD = 10_000;

/** A policy that emits whatever the test puts in `script.decisions` and counts its calls in state. */
const script: { decisions: Decision[]; throwWith?: string; wakeInMs?: number } = { decisions: [] };
const scripted = definePolicy<{ tag: string }, { calls: number }>({
  name: 'scripted',
  description: 'test policy',
  paramsSchema: z.object({ tag: z.string().default('x') }),
  initialState: () => ({ calls: 0 }),
  decide({ state, snapshot }) {
    if (script.throwWith) throw new Error(script.throwWith);
    const wakeAtMs = script.wakeInMs === undefined ? undefined : snapshot.nowMs + script.wakeInMs;
    return { decisions: script.decisions, state: { calls: state.calls + 1 }, wakeAtMs };
  },
});

const table: Record<string, AnyPolicy> = { scripted, 'capacity-targets': capacityTargetsPolicy };
const policies: PolicyLookup = { get: (n) => table[n], names: () => Object.keys(table) };

const kill = (appId: string, rule = 'scripted.kill'): Decision => ({ action: { kind: 'killApp', appId }, policy: 'scripted', rule, reason: `kill ${appId}` });

let dir: string;
let store: Store;
let clock: FakeClock;
let backend: InMemoryBackend;
const engines: Engine[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-engine-'));
  store = await Store.open(dir);
  clock = new FakeClock();
  backend = new InMemoryBackend({ now: () => clock.now() });
  script.decisions = [];
  script.throwWith = undefined;
  script.wakeInMs = undefined;
});

afterEach(async () => {
  for (const e of engines.splice(0)) await e.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function makeEngine(over: Partial<EngineOptions> = {}): Promise<Engine> {
  const e = new Engine({
    backend,
    store,
    clock,
    periodMs: PERIOD,
    policies,
    initial: { policy: 'scripted' },
    backoff: { initialMs: 1000, maxMs: 8000 },
    ...over,
  });
  await e.init();
  engines.push(e);
  return e;
}

const targets = (a: number, b: number) => ({ targets: { 'root.a': { capacityPct: a }, 'root.b': { capacityPct: b } } });

describe('engine loop', () => {
  it('runs a cycle at start and then once per period', async () => {
    const e = await makeEngine();
    e.start();
    await e.whenIdle();
    expect(backend.snapshotCalls).toBe(1);
    await clock.advance(PERIOD - 1);
    expect(backend.snapshotCalls).toBe(1);
    await clock.advance(1);
    expect(backend.snapshotCalls).toBe(2);
    await clock.advance(PERIOD * 3);
    expect(backend.snapshotCalls).toBe(5);
    await e.stop();
    await clock.advance(PERIOD * 3);
    expect(backend.snapshotCalls).toBe(5);
    expect(clock.pending).toBe(0);
  });

  it("treats a policy's wakeAtMs as a hint to come back sooner, with a floor", async () => {
    const e = await makeEngine();
    script.wakeInMs = 3000;
    e.start();
    await e.whenIdle();
    expect((e.status().nextCycleAtMs as number) - clock.now()).toBe(3000);
    script.wakeInMs = 10;
    await clock.advance(3000);
    expect(backend.snapshotCalls).toBe(2);
    expect((e.status().nextCycleAtMs as number) - clock.now()).toBe(1000);
    script.wakeInMs = PERIOD * 5;
    await clock.advance(1000);
    expect((e.status().nextCycleAtMs as number) - clock.now()).toBe(PERIOD);
  });

  it('prunes journal entries older than the retention', async () => {
    await store.journal.append(clock.now() - 3 * 3600_000, [{ cycleId: 'old', policy: 'scripted', rule: 'r', reason: 'old', result: 'noop' }]);
    await store.journal.append(clock.now() - 60_000, [{ cycleId: 'recent', policy: 'scripted', rule: 'r', reason: 'recent', result: 'noop' }]);
    const e = await makeEngine({ journalRetentionMs: 3600_000 });
    await e.runCycle();
    expect((await store.journal.query({})).map((x) => x.cycleId)).toEqual(['recent']);
  });

  it('never overlaps cycles: a slow cycle delays the next one', async () => {
    script.decisions = [kill('app_1')];
    let release!: () => void;
    backend.applyGate = new Promise<void>((r) => (release = r));
    const e = await makeEngine();
    e.start();
    await clock.advance(PERIOD * 5);
    expect(backend.snapshotCalls).toBe(1);
    // A manual cycle while one is in flight joins it instead of starting another.
    const joined = e.runCycle();
    expect(backend.snapshotCalls).toBe(1);
    release();
    backend.applyGate = undefined;
    const r = await joined;
    expect(r.decisions[0].result).toBe('applied');
    expect(backend.snapshotCalls).toBe(1);
    // The next cycle comes a period later, not immediately in a burst.
    await clock.advance(0);
    expect(backend.snapshotCalls).toBe(1);
    await clock.advance(PERIOD);
    expect(backend.snapshotCalls).toBe(2);
  });

  it('applies capacity-targets, journals applied then noop, and persists policy state', async () => {
    const e = await makeEngine({ initial: { policy: 'capacity-targets', params: targets(30, 70) } });
    const r1 = await e.runCycle();
    expect(r1.outcome).toBe('ok');
    expect(backend.queues.get('root.a')?.capacityPct).toBe(30);
    expect(backend.queues.get('root.b')?.capacityPct).toBe(70);
    expect(r1.decisions).toHaveLength(1);
    expect(r1.decisions[0]).toMatchObject({ result: 'applied', rule: 'capacity-targets.hold', policy: 'capacity-targets' });
    expect(r1.decisions[0].reason).toContain('root.a capacity 50% → 30%');
    // Second cycle: the policy restates nothing, the cluster already matches.
    const r2 = await e.runCycle();
    expect(r2.decisions).toHaveLength(0);
    expect(backend.applied).toHaveLength(1);
    const j = await store.journal.query({});
    expect(j.map((x) => x.result)).toEqual(['applied']);
    expect(j[0].cycleId).toBe(r1.cycleId);
    expect(await store.getPolicyState('capacity-targets')).toMatchObject({ cycleId: r2.cycleId });
  });

  it('dry-run discards the statement: nothing written, decisions journaled as dryRun, state kept', async () => {
    const e = await makeEngine({ initial: { policy: 'scripted', dryRun: true } });
    script.decisions = [kill('app_1')];
    const r = await e.runCycle();
    expect(r.committed).toBe(false);
    expect(backend.applied).toHaveLength(0);
    expect(r.decisions.map((d) => d.result)).toEqual(['dryRun']);
    const j = await store.journal.query({});
    expect(j[0]).toMatchObject({ result: 'dryRun', rule: 'scripted.kill', reason: 'kill app_1', action: { kind: 'killApp', appId: 'app_1' } });
    expect(e.policyState()).toEqual({ calls: 0 });
    expect(await store.getPolicyState('scripted')).toBeUndefined();
  });

  it('reconciliation: actions already true are journaled noop and not sent; rankNodes compares with the last published ranking', async () => {
    backend.caps = { ...backend.caps, nodeRanking: true };
    backend.apps = [
      {
        id: 'app_1',
        name: 'a',
        user: 'u',
        queue: 'root.a',
        state: 'RUNNING',
        priority: 5,
        submittedAtMs: 0,
        pendingContainers: 0,
        runningContainers: 0,
        allocated: { memoryMB: 0, vcores: 0 },
        tags: {},
      },
    ];
    const rank: Decision = {
      action: { kind: 'rankNodes', scores: { 'node1:8041': 1, 'node2:8041': 2 }, leastLoadedFirst: false, partial: false },
      policy: 'scripted',
      rule: 'scripted.rank',
      reason: 'rank',
    };
    script.decisions = [
      { action: { kind: 'setAppPriority', appId: 'app_1', priority: 5 }, policy: 'scripted', rule: 'scripted.prio', reason: 'same priority' },
      rank,
    ];
    const e = await makeEngine();
    const r1 = await e.runCycle();
    expect(r1.decisions.map((d) => d.result)).toEqual(['noop', 'applied']);
    expect(backend.applied.map((a) => a.kind)).toEqual(['rankNodes']);
    const r2 = await e.runCycle();
    expect(r2.decisions.map((d) => d.result)).toEqual(['noop', 'noop']);
    expect(r2.decisions[1].detail).toMatch(/ranking already published/);
    expect(backend.applied).toHaveLength(1);
    // The published ranking survives a restart.
    expect(await store.getRanking()).toEqual({ scores: { 'node1:8041': 1, 'node2:8041': 2 }, leastLoadedFirst: false, publishedAtMs: expect.any(Number) });
  });

  it('limits actions per cycle; the rest are journaled skipped: limit', async () => {
    script.decisions = [kill('app_1'), kill('app_2'), kill('app_3')];
    const e = await makeEngine({ limits: { maxActionsPerCycle: 2 } });
    const r = await e.runCycle();
    expect(r.decisions.map((d) => [d.result, d.skipReason])).toEqual([
      ['applied', undefined],
      ['applied', undefined],
      ['skipped', 'limit'],
    ]);
    expect(r.decisions[2].detail).toMatch(/maxActionsPerCycle=2/);
    expect(backend.applied).toHaveLength(2);
  });

  it('folds many alike skips of one cycle into one journal entry with their count; metrics count them all', async () => {
    script.decisions = Array.from({ length: 25 }, (_, i) => kill(`app_${i}`));
    const e = await makeEngine({ limits: { maxActionsPerCycle: 2 } });
    const r = await e.runCycle();
    expect(r.decisions.map((d) => [d.result, d.count])).toEqual([
      ['applied', undefined],
      ['applied', undefined],
      ['skipped', 23],
    ]);
    expect(r.decisions[2]).toMatchObject({ skipReason: 'limit', action: { kind: 'killApp', appId: 'app_2' } });
    expect(r.decisions[2].reason).toMatch(/and 22 more scripted.kill decisions skipped alike/);
    const journal = await store.journal.query({ order: 'asc' });
    expect(journal.map((j) => j.count)).toEqual([undefined, undefined, 23]);
    expect(await e.metrics.render()).toMatch(/schedbrain_decisions_total\{policy="scripted",result="skipped"\} 23/);
  });

  it('times each phase of a cycle: refresh, decide, plan, apply, journal', async () => {
    script.decisions = [kill('app_1')];
    const e = await makeEngine();
    await e.runCycle();
    const text = await e.metrics.render();
    for (const phase of ['refresh', 'decide', 'plan', 'apply', 'journal']) expect(text).toContain(`schedbrain_cycle_phase_seconds_count{phase="${phase}"} 1`);
  });

  it('clamps a large capacity step toward the target and explains it, converging over cycles', async () => {
    const e = await makeEngine({ initial: { policy: 'capacity-targets', params: targets(80, 20) }, limits: { maxCapacityStepPct: 10 } });
    const r1 = await e.runCycle();
    expect(backend.queues.get('root.a')?.capacityPct).toBe(60);
    expect(backend.queues.get('root.b')?.capacityPct).toBe(40);
    const d = r1.decisions[0];
    expect(d.result).toBe('applied');
    expect(d.detail).toMatch(/clamped to 10 points/);
    expect(d.detail).toMatch(/root\.a 50→80% limited to 60%/);
    expect(d.requestedAction).toMatchObject({
      update: [
        { path: 'root.a', capacityPct: 80 },
        { path: 'root.b', capacityPct: 20 },
      ],
    });
    await e.runCycle();
    await e.runCycle();
    expect([backend.queues.get('root.a')?.capacityPct, backend.queues.get('root.b')?.capacityPct]).toEqual([80, 20]);
    const r4 = await e.runCycle();
    expect(r4.decisions).toHaveLength(0);
  });

  it('advisory mode: with queueWrites false it decides and journals but never writes, and says so', async () => {
    backend.caps = { ...backend.caps, queueWrites: false, notes: ['scheduler configuration store is file-based'] };
    const e = await makeEngine({ initial: { policy: 'capacity-targets', params: targets(30, 70) } });
    const r = await e.runCycle();
    expect(r.advisory).toBe(true);
    expect(r.committed).toBe(false);
    expect(backend.applied).toHaveLength(0);
    expect(backend.queues.get('root.a')?.capacityPct).toBe(50);
    expect(r.decisions[0]).toMatchObject({ result: 'skipped', skipReason: 'advisory' });
    expect(r.decisions[0].detail).toMatch(/advisory mode.*file-based/);
    expect(r.notes.join()).toMatch(/advisory mode/);
    expect(e.status().advisory).toBe(true);
    expect(await e.metrics.render()).toMatch(/schedbrain_advisory_mode 1/);
  });

  it('RM down: no writes, exponential backoff (capped), resumes and applies when the RM is back', async () => {
    const e = await makeEngine({ initial: { policy: 'capacity-targets', params: targets(40, 60) } });
    backend.down = 'connection refused';
    e.start();
    await e.whenIdle();
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const before = clock.now();
      const next = e.status().nextCycleAtMs as number;
      delays.push(next - before);
      await clock.advance(next - before);
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
    expect(backend.applied).toHaveLength(0);
    expect(e.status()).toMatchObject({ rmReachable: false, consecutiveRmFailures: 7 });
    expect(e.status().rmError).toMatch(/connection refused/);
    expect(e.metrics.rmErrors.get()).toBe(7);
    expect(e.metrics.cycles.get({ outcome: 'rm_unavailable' })).toBe(7);
    // The outage is journaled once, where it began; no decision was.
    expect((await store.journal.query({})).map((j) => j.rule)).toEqual(['engine.rm-outage']);
    backend.down = undefined;
    await clock.advance(8000);
    expect(backend.queues.get('root.a')?.capacityPct).toBe(40);
    expect(e.status()).toMatchObject({ rmReachable: true, consecutiveRmFailures: 0 });
    // Back on the normal period.
    expect((e.status().nextCycleAtMs as number) - clock.now()).toBe(PERIOD);
  });

  it('the RM going away mid-commit stops sending and marks the rest failed', async () => {
    script.decisions = [kill('app_1'), kill('app_2')];
    const e = await makeEngine();
    let release!: () => void;
    backend.applyGate = new Promise<void>((r) => (release = r));
    const p = e.runCycle();
    await settle();
    backend.down = 'reset by peer';
    release();
    const r = await p;
    expect(r.outcome).toBe('rm_unavailable');
    expect(r.decisions.map((d) => d.result)).toEqual(['failed', 'failed']);
    expect(r.decisions[1].error).toMatch(/not sent: ResourceManager unavailable/);
    expect(backend.applied).toHaveLength(0);
  });

  it('a policy that throws: cycle discarded, journaled with the error, state kept, loop continues', async () => {
    const e = await makeEngine();
    script.decisions = [kill('app_1')];
    await e.runCycle();
    expect(e.policyState()).toEqual({ calls: 1 });
    script.throwWith = 'boom: division by zero';
    e.start();
    await e.whenIdle();
    expect(backend.applied).toHaveLength(1);
    const j = await store.journal.query({ limit: 1 });
    expect(j[0]).toMatchObject({ rule: 'engine.policy-error', result: 'failed', policy: 'scripted' });
    expect(j[0].error).toMatch(/boom: division by zero/);
    expect(e.policyState()).toEqual({ calls: 1 });
    expect(e.status().lastCycle?.outcome).toBe('policy_error');
    script.throwWith = undefined;
    await clock.advance(PERIOD);
    expect(backend.applied).toHaveLength(2);
    expect(e.policyState()).toEqual({ calls: 2 });
  });

  it('malformed decisions are journaled as failed with the validation error, the rest still go through', async () => {
    script.decisions = [
      { action: { kind: 'killApp', appId: '' }, policy: 'scripted', rule: 'scripted.bad', reason: 'empty id' } as Decision,
      { action: { kind: 'explode' } } as unknown as Decision,
      kill('app_2'),
    ];
    const e = await makeEngine();
    const r = await e.runCycle();
    expect(r.decisions.map((d) => d.result)).toEqual(['failed', 'failed', 'applied']);
    expect(r.decisions[0].error).toMatch(/invalid action: appId/);
    expect(r.decisions[1]).toMatchObject({ policy: 'scripted', rule: 'scripted.unnamed', reason: '(no reason given)' });
    expect(await store.journal.query({})).toHaveLength(3);
  });

  it('failed and unsupported actions are journaled with the reason', async () => {
    backend.failKinds.set('killApp', 'application not found');
    script.decisions = [
      kill('app_9'),
      { action: { kind: 'suspendContainer', containerId: 'c1', nodeId: 'n1' }, policy: 'scripted', rule: 'scripted.suspend', reason: 'r' },
    ];
    const e = await makeEngine();
    const r = await e.runCycle();
    expect(r.decisions[0]).toMatchObject({ result: 'failed', error: 'application not found' });
    expect(r.decisions[1]).toMatchObject({ result: 'skipped', skipReason: 'unsupported' });
  });
});

describe('engine configuration', () => {
  it('resumes the stored policy, params, dry-run flag and state after a restart', async () => {
    const e1 = await makeEngine();
    await e1.setPolicy({ name: 'scripted', params: { tag: 'y' }, dryRun: false });
    await e1.runCycle();
    await e1.runCycle();
    await e1.stop();
    const e2 = await makeEngine({ initial: {} });
    expect(e2.config()).toMatchObject({ name: 'scripted', params: { tag: 'y' }, dryRun: false });
    expect(e2.policyState()).toEqual({ calls: 2 });
  });

  it('setPolicy validates before changing anything', async () => {
    const e = await makeEngine({ initial: { policy: 'capacity-targets', params: targets(50, 50) } });
    await expect(e.setPolicy({ name: 'nope' })).rejects.toMatchObject({ field: 'name' });
    const err = await e.setPolicy({ name: 'capacity-targets', params: { targets: { 'root.a': { capacityPct: 150 } } } }).catch((x) => x);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe('params.targets.root.a.capacityPct');
    expect(e.config().params).toEqual(targets(50, 50));
    expect((await store.getEngineConfig())?.params).toEqual(targets(50, 50));
    // With a snapshot at hand the policy checks the params against the cluster (sum of siblings).
    await e.runCycle();
    const err2 = await e.setPolicy({ name: 'capacity-targets', params: { targets: { 'root.a': { capacityPct: 60 } } } }).catch((x) => x);
    expect(err2).toBeInstanceOf(ValidationError);
    expect(err2.field).toBe('params.targets.root.a.capacityPct');
    expect(err2.message).toMatch(/children of root would sum to 110%/);
    expect(e.config().params).toEqual(targets(50, 50));
    const ok = await e.setPolicy({ name: 'capacity-targets', params: targets(60, 40), dryRun: true });
    expect(ok).toMatchObject({ name: 'capacity-targets', dryRun: true });
    expect(await store.getEngineConfig()).toMatchObject({ policy: 'capacity-targets', dryRun: true, params: targets(60, 40) });
  });

  it('explicit operator settings override the stored ones; bad stored params fail clearly', async () => {
    const e1 = await makeEngine({ initial: { policy: 'scripted', dryRun: true } });
    await e1.stop();
    const e2 = await makeEngine({ initial: { dryRun: false } });
    expect(e2.config()).toMatchObject({ name: 'scripted', dryRun: false });
    await expect(makeEngine({ initial: { policy: 'capacity-targets', params: { targets: 3 } } })).rejects.toMatchObject({ field: 'policyParams.targets' });
    await expect(makeEngine({ initial: { policy: 'ghost' } })).rejects.toMatchObject({ field: 'policy' });
  });

  it('a policy change during a cycle: the old statement finishes, its next state is not kept', async () => {
    const e = await makeEngine();
    await e.runCycle();
    script.decisions = [kill('app_1')];
    let release!: () => void;
    backend.applyGate = new Promise<void>((r) => (release = r));
    const p = e.runCycle();
    await settle();
    await e.setPolicy({ name: 'capacity-targets', params: { targets: {} } });
    release();
    const r = await p;
    expect(r.decisions[0].result).toBe('applied');
    expect(r.notes.join()).toMatch(/policy changed during the cycle/);
    expect(e.policyState()).toEqual({});
    expect((await store.getPolicyState('scripted'))?.state).toEqual({ calls: 1 });
  });

  it('concurrent policy changes are applied one after the other', async () => {
    const e = await makeEngine();
    const [a, b] = await Promise.all([e.setPolicy({ name: 'scripted', params: { tag: 'a' } }), e.setPolicy({ name: 'scripted', params: { tag: 'b' } })]);
    expect(a.params).toEqual({ tag: 'a' });
    expect(b.params).toEqual({ tag: 'b' });
    expect(e.config().params).toEqual({ tag: 'b' });
    expect((await store.getEngineConfig())?.params).toEqual({ tag: 'b' });
  });

  it('dry-run request writes nothing and can try another policy', async () => {
    const e = await makeEngine();
    const r = await e.dryRun({ name: 'capacity-targets', params: targets(20, 80) });
    expect(r.decisions[0]).toMatchObject({ result: 'dryRun', rule: 'capacity-targets.hold' });
    expect(r.decisions[0].reason).toContain('root.b capacity 50% → 80%');
    expect(backend.applied).toHaveLength(0);
    expect(await store.journal.query({})).toHaveLength(0);
    expect(e.config().name).toBe('scripted');
  });
});
