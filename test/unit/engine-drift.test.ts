import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/engine/clock.js';
import { DriftTracker, type DriftOptions } from '../../src/engine/drift.js';
import { Engine } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import type { SnapshotOptions } from '../../src/core/backend.js';
import { partsWith, type ClusterSnapshot } from '../../src/core/model.js';
import { Store } from '../../src/store/store.js';

const PERIOD = 10_000;
const targets = (a: number, b: number) => ({ targets: { 'root.a': { capacityPct: a }, 'root.b': { capacityPct: b } } });

let dir: string;
let store: Store;
let clock: FakeClock;
let backend: InMemoryBackend;
let engine: Engine;

async function start(drift?: DriftOptions) {
  engine = new Engine({
    backend,
    store,
    clock,
    periodMs: PERIOD,
    initial: { policy: 'capacity-targets', params: targets(30, 70) },
    ...(drift ? { drift } : {}),
  });
  await engine.init();
}

/** An administrator's edit, made on the RM behind the brain's back. */
function adminSets(a: number, b: number) {
  backend.queues.get('root.a')!.capacityPct = a;
  backend.queues.get('root.b')!.capacityPct = b;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-drift-'));
  store = await Store.open(dir);
  clock = new FakeClock();
  backend = new InMemoryBackend({ now: () => clock.now() });
});

afterEach(async () => {
  await engine?.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('changes made outside the brain (drift)', () => {
  it('respect (default): the edit is journaled with before/after, counted, and stands for the hold-off', async () => {
    await start({ policy: 'respect', holdOffMs: 5 * PERIOD });
    await engine.runCycle();
    expect(backend.queues.get('root.a')!.capacityPct).toBe(30);
    adminSets(45, 55);
    const r = await engine.runCycle();
    // The policy asked for 30/70 again; the edit stands.
    expect(backend.queues.get('root.a')!.capacityPct).toBe(45);
    expect(r.decisions.map((d) => [d.result, d.skipReason])).toEqual([['skipped', 'drift']]);
    expect(r.decisions[0].detail).toMatch(/root\.a capacity changed outside the brain: it wrote 30%, the cluster now says 45%.*driftPolicy respect/);
    const drift = (await store.journal.query({ order: 'asc' })).filter((e) => e.rule === 'engine.drift');
    expect(drift.map((e) => JSON.parse(e.detail!))).toEqual([
      expect.objectContaining({ kind: 'queueCapacity', target: 'queue:root.a', written: '30', now: '45' }),
      expect.objectContaining({ kind: 'queueCapacity', target: 'queue:root.b', written: '70', now: '55' }),
    ]);
    expect(engine.metrics.drift.get({ kind: 'queueCapacity' })).toBe(2);
    // Reported once, not at every cycle.
    await engine.runCycle();
    expect((await store.journal.query({})).filter((e) => e.rule === 'engine.drift')).toHaveLength(2);
    // After the hold-off the brain writes the field again.
    await clock.advance(5 * PERIOD);
    await engine.runCycle();
    expect(backend.queues.get('root.a')!.capacityPct).toBe(30);
  });

  it('override: the edit is journaled and the brain writes at once', async () => {
    await start({ policy: 'override', holdOffMs: 5 * PERIOD });
    await engine.runCycle();
    adminSets(45, 55);
    await engine.runCycle();
    expect(backend.queues.get('root.a')!.capacityPct).toBe(30);
    expect((await store.journal.query({})).filter((e) => e.rule === 'engine.drift')).toHaveLength(2);
  });

  it('pause: every write is held for the hold-off; a new policy from the operator ends the hold', async () => {
    await start({ policy: 'pause', holdOffMs: 100 * PERIOD });
    await engine.runCycle();
    adminSets(45, 55);
    await engine.runCycle();
    expect(backend.queues.get('root.a')!.capacityPct).toBe(45);
    await engine.setPolicy({ name: 'capacity-targets', params: targets(20, 80) });
    await engine.runCycle();
    expect(backend.queues.get('root.a')!.capacityPct).toBe(20);
  });

  it('an RM outage and its end are journaled once each', async () => {
    await start();
    await engine.runCycle();
    backend.down = 'connection refused';
    await engine.runCycle();
    await engine.runCycle();
    backend.down = undefined;
    await engine.runCycle();
    const rules = (await store.journal.query({ order: 'asc' })).map((e) => e.rule).filter((r) => r.startsWith('engine.'));
    expect(rules).toEqual(['engine.rm-outage', 'engine.rm-recovered']);
    const [outage, back] = (await store.journal.query({ order: 'asc' })).filter((e) => e.rule.startsWith('engine.'));
    expect(outage.reason).toMatch(/became unavailable: .*connection refused/);
    expect(back.reason).toMatch(/answers again after 2 failed cycle/);
  });
});

describe('what the engine reads for a policy', () => {
  it("the policy's declared parts, with those the brain's earlier writes are watched in", async () => {
    await start();
    await engine.runCycle();
    // capacity-targets reads the queue tree alone.
    expect(backend.lastSnapshotOptions?.parts).toEqual([]);
    await engine.view(0);
    expect(backend.lastSnapshotOptions?.parts).toEqual([]);
    const drift = new DriftTracker();
    expect(drift.watchedParts()).toEqual([]);
    drift.recordApplied({ kind: 'setNodeResource', nodeId: 'n1', resource: { memoryMB: 1024, vcores: 2 } }, 0);
    drift.recordApplied({ kind: 'setAppPriority', appId: 'a1', priority: 2 }, 0);
    drift.recordApplied({ kind: 'suspendContainer', containerId: 'c1', nodeId: 'n1' }, 0);
    expect(drift.watchedParts().sort()).toEqual(['apps', 'containers', 'nodes']);
  });

  it('a policy that declares nothing reads everything', async () => {
    engine = new Engine({ backend, store, clock, periodMs: PERIOD, initial: { policy: 'kairos', params: {} } });
    await engine.init();
    await engine.runCycle();
    expect(backend.lastSnapshotOptions?.parts).toBeUndefined();
  });
});

describe('a view that lacks parts', () => {
  /** The in-memory cluster, read as the YARN backend reads it: only the parts asked for. */
  class PartialBackend extends InMemoryBackend {
    override async snapshot(opts: SnapshotOptions = {}): Promise<ClusterSnapshot> {
      const s = await super.snapshot(opts);
      const parts = partsWith(opts.parts);
      if (parts.size === 3) return s;
      return { ...s, parts: [...parts], nodes: parts.has('nodes') ? s.nodes : new Map(), containers: new Map(), apps: parts.has('apps') ? s.apps : new Map() };
    }
  }

  it('everything is read for an operator who asks, and for a dry-run of a policy that reads more', async () => {
    backend = new PartialBackend({ now: () => clock.now() });
    await start();
    await engine.runCycle();
    const view = await engine.view();
    expect(view.snapshot.parts).toEqual([]);
    expect(view.snapshot.nodes.size).toBe(0);
    const all = await engine.viewOfEverything();
    expect(all.snapshot.parts).toBeUndefined();
    expect(all.snapshot.nodes.size).toBeGreaterThan(0);
    expect(backend.lastSnapshotOptions?.parts).toBeUndefined();
    await engine.dryRun({ name: 'bopf', params: { parentQueue: 'root' } });
    expect(backend.lastSnapshotOptions?.parts).toEqual(['apps']);
  });
});
