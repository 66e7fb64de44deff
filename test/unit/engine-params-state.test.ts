/**
 * Changing only a policy's parameters keeps its state (BoPF registering a queue must not forget
 * the bursts it is tracking); switching to another policy starts that one from its initial state.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Decision } from '../../src/core/actions.js';
import { settle, FakeClock } from '../../src/engine/clock.js';
import { Engine, type PolicyLookup } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { definePolicy, type AnyPolicy } from '../../src/core/policy.js';
import { bopfPolicy, type BopfState } from '../../src/policies/bopf/index.js';
import { capacityTargetsPolicy } from '../../src/policies/capacity-targets/index.js';
import { Store } from '../../src/store/store.js';

const pending: Decision[] = [];
const counting = definePolicy<{ tag: string }, { calls: number; tags: string[] }>({
  name: 'counting',
  description: 'test policy: counts its cycles and the params it saw',
  paramsSchema: z.object({ tag: z.string().default('x') }),
  initialState: () => ({ calls: 0, tags: [] }),
  decide: ({ state, params }) => ({ decisions: [...pending], state: { calls: state.calls + 1, tags: [...state.tags, params.tag] } }),
});
const table: Record<string, AnyPolicy> = { counting, 'capacity-targets': capacityTargetsPolicy, bopf: bopfPolicy };
const policies: PolicyLookup = { get: (n) => table[n], names: () => Object.keys(table) };

let dir: string;
let store: Store;
let clock: FakeClock;
let backend: InMemoryBackend;
const engines: Engine[] = [];

beforeEach(async () => {
  pending.length = 0;
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-engine-params-'));
  store = await Store.open(dir);
  clock = new FakeClock();
  backend = new InMemoryBackend({ now: () => clock.now() });
});
afterEach(async () => {
  for (const e of engines.splice(0)) await e.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function engineWith(policy: string, params?: unknown): Promise<Engine> {
  const e = new Engine({ backend, store, clock, periodMs: 10_000, policies, initial: { policy, params } });
  await e.init();
  engines.push(e);
  return e;
}

describe('engine: policy state across parameter changes', () => {
  it('new params for the running policy keep its state, in memory and in the store', async () => {
    const e = await engineWith('counting', { tag: 'a' });
    await e.runCycle();
    await e.runCycle();
    await e.setPolicy({ name: 'counting', params: { tag: 'b' } });
    expect(e.policyState()).toEqual({ calls: 2, tags: ['a', 'a'] });
    expect((await store.getPolicyState('counting'))?.state).toEqual({ calls: 2, tags: ['a', 'a'] });
    await e.runCycle();
    expect(e.policyState()).toEqual({ calls: 3, tags: ['a', 'a', 'b'] });
  });

  it('another policy starts from its initial state, and coming back starts afresh too', async () => {
    const e = await engineWith('counting');
    await e.runCycle();
    await e.setPolicy({ name: 'capacity-targets', params: { targets: {} } });
    expect(e.policyState()).toEqual({});
    await e.setPolicy({ name: 'counting', params: { tag: 'x' } });
    expect(e.policyState()).toEqual({ calls: 0, tags: [] });
  });

  it('params changed during a cycle: that cycle’s next state is kept', async () => {
    const e = await engineWith('counting', { tag: 'a' });
    // The cycle decides with tag a, then waits in apply while the params change to b.
    pending.push({ action: { kind: 'killApp', appId: 'app_1' }, policy: 'counting', rule: 'counting.kill', reason: 'hold the cycle' });
    let release!: () => void;
    backend.applyGate = new Promise<void>((r) => (release = r));
    const p = e.runCycle();
    await settle();
    await e.setPolicy({ name: 'counting', params: { tag: 'b' } });
    release();
    const r = await p;
    expect(r.notes.join()).not.toMatch(/policy changed during the cycle/);
    expect(e.config().params).toEqual({ tag: 'b' });
    expect(e.policyState()).toEqual({ calls: 1, tags: ['a'] });
    expect((await store.getPolicyState('counting'))?.state).toEqual({ calls: 1, tags: ['a'] });
  });

  it('a restart with new params for the same policy resumes its state', async () => {
    const e1 = await engineWith('counting', { tag: 'a' });
    await e1.runCycle();
    await e1.stop();
    const e2 = await engineWith('counting', { tag: 'b' });
    expect(e2.policyState()).toEqual({ calls: 1, tags: ['a'] });
  });

  it('BoPF: registering another queue does not close the open burst of an LQ', async () => {
    backend = new InMemoryBackend({
      now: () => clock.now(),
      queues: { 'root.lq': { capacityPct: 50, maxCapacityPct: 100 }, 'root.tq': { capacityPct: 50, maxCapacityPct: 100 } },
    });
    const lq = { name: 'lq', kind: 'LQ' as const, periodMs: 60_000, burstDeadlineMs: 20_000, demand: { vcoreSeconds: 10, memoryMBSeconds: 10_240 } };
    const e = await engineWith('bopf', { queues: [lq] });
    backend.apps = [
      {
        id: 'app_1',
        name: 'burst',
        user: 'u',
        queue: 'lq',
        state: 'RUNNING',
        priority: 0,
        submittedAtMs: clock.now(),
        pendingContainers: 2,
        pendingContainerResource: { memoryMB: 512, vcores: 1 },
        runningContainers: 0,
        allocated: { memoryMB: 0, vcores: 0 },
        tags: {},
      },
    ];
    await e.runCycle();
    const opened = (e.policyState() as BopfState).tracks.lq;
    expect(opened).toMatchObject({ open: true, start: clock.now() });
    await clock.advance(3_000);
    await e.setPolicy({ name: 'bopf', params: { queues: [lq, { name: 'tq', kind: 'TQ' }] } });
    expect((e.policyState() as BopfState).tracks.lq).toEqual(opened);
    await e.runCycle();
    // Still the same burst (same start), not a new one opened at the change.
    expect((e.policyState() as BopfState).tracks.lq).toMatchObject({ open: true, start: opened.start });
  });
});

describe('engine: a policy that updates its state in place', () => {
  // Counts in place, as Kairos updates its node table.
  const inPlace = definePolicy<Record<string, never>, { calls: number }>({
    name: 'in-place',
    description: 'test policy: increments its state in place',
    paramsSchema: z.object({}),
    updatesStateInPlace: true,
    initialState: () => ({ calls: 0 }),
    decide: ({ state }) => {
      state.calls++;
      return { decisions: [], state };
    },
  });

  it('a dry-run leaves the engine’s state as it was; a cycle moves it on', async () => {
    table['in-place'] = inPlace;
    const e = await engineWith('in-place');
    await e.runCycle();
    const before = e.policyState() as { calls: number };
    expect(before.calls).toBe(1);
    await e.dryRun();
    await e.dryRun();
    expect(e.policyState()).toBe(before);
    expect(before.calls).toBe(1);
    await e.runCycle();
    expect((e.policyState() as { calls: number }).calls).toBe(2);
    expect(before.calls).toBe(1);
  });
});
