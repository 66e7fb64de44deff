import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Action, Decision } from '../../src/core/actions.js';
import { definePolicy, type AnyPolicy } from '../../src/core/policy.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine, type PolicyLookup } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import type { SafetyLimits } from '../../src/engine/session.js';
import { Store } from '../../src/store/store.js';

/** A policy that asks for whatever the test lists. */
let asked: Action[] = [];
const scripted = definePolicy<Record<string, never>, null>({
  name: 'scripted',
  description: 'asks for the listed actions',
  paramsSchema: z.object({}).strict(),
  initialState: () => null,
  decide: () => ({
    decisions: asked.map((action, i): Decision => ({ action, policy: 'scripted', rule: `scripted.r${i}`, reason: `action ${i}` })),
    state: null,
  }),
});
const table: Record<string, AnyPolicy> = { scripted };
const policies: PolicyLookup = { get: (n) => table[n], names: () => Object.keys(table) };

let dir: string;
let store: Store;
let clock: FakeClock;
let backend: InMemoryBackend;
let engine: Engine;

async function start(limits: Partial<SafetyLimits> = {}) {
  engine = new Engine({ backend, store, clock, periodMs: 10_000, policies, initial: { policy: 'scripted' }, limits });
  await engine.init();
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-invariants-'));
  store = await Store.open(dir);
  clock = new FakeClock();
  backend = new InMemoryBackend({ now: () => clock.now(), capabilities: { containerSuspend: true } });
  const t = clock.now();
  for (let i = 0; i < 30; i++) {
    backend.apps.push({
      id: `app_${i}`,
      name: `a${i}`,
      user: 'u',
      queue: 'root.a',
      state: 'RUNNING',
      priority: 0,
      submittedAtMs: t,
      startedAtMs: t,
      runningContainers: 1,
      pendingContainers: 0,
      allocated: { memoryMB: 1024, vcores: 1 },
      tags: {},
    } as never);
    backend.containers.push({
      id: `c_${i}`,
      appId: `app_${i}`,
      nodeId: 'node1:8041',
      resource: { memoryMB: 1024, vcores: 1 },
      state: 'RUNNING',
      startedAtMs: t,
    });
  }
  asked = [];
});

afterEach(async () => {
  await engine?.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const node = (vcores: number, memoryMB = 8192): Action => ({ kind: 'setNodeResource', nodeId: 'node1:8041', resource: { memoryMB, vcores } });
const queues = (a: number, b: number): Action => ({
  kind: 'updateQueues',
  add: [],
  update: [
    { path: 'root.a', capacityPct: a },
    { path: 'root.b', capacityPct: b },
  ],
});

describe('cluster invariants: a plan that breaks one is refused whole', () => {
  it('node resources beyond the over-commit factor: nothing of the plan is sent, and the journal says why', async () => {
    await start();
    asked = [queues(40, 60), node(8 * 4 + 1)];
    const r = await engine.runCycle();
    expect(backend.applied).toEqual([]);
    expect(r.decisions.map((d) => [d.result, d.skipReason])).toEqual([
      ['skipped', 'invariant'],
      ['skipped', 'invariant'],
    ]);
    expect(r.decisions[0].detail).toMatch(/plan refused: node1:8041: vcores 33 is more than 4x its physical 8 \(maxOvercommitFactor\)/);
    const j = await store.journal.query({});
    expect(j.every((e) => e.skipReason === 'invariant')).toBe(true);
    // Within the factor, the same plan goes through.
    asked = [queues(40, 60), node(32, 4 * 8192)];
    await engine.runCycle();
    expect(backend.applied.map((a) => a.kind)).toEqual(['updateQueues', 'setNodeResource']);
  });

  it('a value YARN cannot hold (above 2^31-1) is refused whatever the factor', async () => {
    await start({ maxOvercommitFactor: 1e12 });
    asked = [node(2 ** 31)];
    const r = await engine.runCycle();
    expect(backend.applied).toEqual([]);
    expect(r.decisions[0].detail).toMatch(/vcores 2147483648 is not an integer in 0\.\.2147483647/);
  });

  it("an existing queue's guarantee dropped to 0 is refused unless allowed", async () => {
    await start();
    asked = [queues(0, 100)];
    const r = await engine.runCycle();
    expect(backend.applied).toEqual([]);
    expect(r.decisions[0].detail).toMatch(/root\.a: guarantee 50% would drop to 0% \(allow it with limits\.allowZeroCapacity\)/);
    await engine.stop();
    await start({ allowZeroCapacity: ['root.a'] });
    await engine.runCycle();
    expect(backend.queues.get('root.a')?.capacityPct).toBe(0);
  });

  it('sibling guarantees that do not sum to 100 are refused', async () => {
    await start();
    asked = [{ kind: 'updateQueues', add: [], update: [{ path: 'root.a', capacityPct: 70 }] }];
    const r = await engine.runCycle();
    expect(backend.applied).toEqual([]);
    expect(r.decisions[0].detail).toMatch(/children of root would sum to 120%, not 100%/);
  });
});

describe('disruption rates', () => {
  const kills = (from: number, n: number): Action[] =>
    Array.from({ length: n }, (_, i) => ({ kind: 'killContainer', containerId: `c_${from + i}`, nodeId: 'node1:8041' }));
  const suspends = (from: number, n: number): Action[] =>
    Array.from({ length: n }, (_, i) => ({ kind: 'suspendContainer', containerId: `c_${from + i}`, nodeId: 'node1:8041' }));

  it('kills and suspensions beyond the per-cycle limits are skipped (limit), the rest sent', async () => {
    await start({ maxKillsPerCycle: 2, maxSuspendsPerCycle: 3 });
    asked = [...kills(0, 4), ...suspends(10, 5)];
    const r = await engine.runCycle();
    expect(backend.applied.map((a) => a.kind)).toEqual(['killContainer', 'killContainer', 'suspendContainer', 'suspendContainer', 'suspendContainer']);
    const skipped = r.decisions.filter((d) => d.result === 'skipped');
    expect(skipped).toHaveLength(4);
    expect(skipped.every((d) => d.skipReason === 'limit')).toBe(true);
    expect(skipped[0].detail).toBe('maxKillsPerCycle=2 reached');
    expect(skipped.at(-1)!.detail).toBe('maxSuspendsPerCycle=3 reached');
  });

  it('the per-minute limit counts what was applied in the last 60 s', async () => {
    await start({ maxKillsPerCycle: 10, maxKillsPerMinute: 3 });
    asked = kills(0, 2);
    await engine.runCycle();
    await clock.advance(10_000);
    asked = kills(2, 2);
    const r = await engine.runCycle();
    expect(r.decisions.map((d) => d.result)).toEqual(['applied', 'skipped']);
    expect(r.decisions[1].detail).toBe('maxKillsPerMinute=3 reached (2 in the last minute)');
    await clock.advance(60_000);
    asked = kills(4, 3);
    const later = await engine.runCycle();
    expect(later.decisions.map((d) => d.result)).toEqual(['applied', 'applied', 'applied']);
  });
});
