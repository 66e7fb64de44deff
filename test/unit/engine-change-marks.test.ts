/**
 * The engine asks the backend for what changed since the snapshot its policy state was built
 * from: the last committed cycle's, never one whose statement was discarded, and nothing for an
 * initial or replaced state.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { z } from 'zod';
import type { SnapshotOptions } from '../../src/core/backend.js';
import type { ClusterSnapshot } from '../../src/core/model.js';
import { definePolicy, type AnyPolicy } from '../../src/core/policy.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine, type PolicyLookup } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { Store } from '../../src/store/store.js';

/** Numbers its snapshots and records what each caller asked for. */
class MarkingBackend extends InMemoryBackend {
  readonly asked: Array<number | undefined> = [];
  private mark = 0;
  override async snapshot(opts: SnapshotOptions = {}): Promise<ClusterSnapshot> {
    this.asked.push(opts.changesSince);
    const s = await super.snapshot();
    return {
      ...s,
      changeMark: ++this.mark,
      ...(opts.changesSince !== undefined ? { changedNodeIds: new Set<string>(), changedAppIds: new Set<string>() } : {}),
    };
  }
}

const seen: Array<ReadonlySet<string> | undefined> = [];
const make = (name: string): AnyPolicy =>
  definePolicy<Record<string, never>, { calls: number }>({
    name,
    description: 'test policy',
    paramsSchema: z.object({}).strict(),
    initialState: () => ({ calls: 0 }),
    decide({ state, snapshot }) {
      seen.push(snapshot.changedNodeIds);
      return { decisions: [], state: { calls: state.calls + 1 } };
    },
  });
const table: Record<string, AnyPolicy> = { one: make('one'), two: make('two') };
const policies: PolicyLookup = { get: (n) => table[n], names: () => Object.keys(table) };

let dir: string;
let store: Store;
let backend: MarkingBackend;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-marks-'));
  store = await Store.open(dir);
  backend = new MarkingBackend();
  seen.length = 0;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

it('asks for changes since the last committed snapshot; a policy change starts over', async () => {
  const engine = new Engine({ backend, store, clock: new FakeClock(), periodMs: 10_000, policies, initial: { policy: 'one', dryRun: false } });
  await engine.init();
  await engine.runCycle();
  await engine.runCycle();
  await engine.runCycle();
  expect(backend.asked).toEqual([undefined, 1, 2]);
  expect(seen[0]).toBeUndefined();
  expect(seen[1]).toBeDefined();
  // A dry-run request decides on the engine's view (no read); the API's fresh snapshot builds on
  // the state's snapshot; neither moves anything.
  await engine.dryRun();
  await engine.snapshot();
  await engine.runCycle();
  expect(backend.asked.slice(3)).toEqual([3, 3]);
  await engine.setPolicy({ name: 'two' });
  await engine.runCycle();
  expect(backend.asked.at(-1)).toBeUndefined();
});

it('in dry-run the state never advances, so no cycle gets change sets', async () => {
  const engine = new Engine({ backend, store, clock: new FakeClock(), periodMs: 10_000, policies, initial: { policy: 'one', dryRun: true } });
  await engine.init();
  for (let i = 0; i < 3; i++) await engine.runCycle();
  expect(backend.asked).toEqual([undefined, undefined, undefined]);
  expect(seen.every((s) => s === undefined)).toBe(true);
});
