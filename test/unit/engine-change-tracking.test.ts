/**
 * The engine's change tracking goes on from one committed cycle to the next, and is rebuilt after
 * a cycle it discarded, a policy swap and a restart (the state then comes from the store).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { z } from 'zod';
import { definePolicy, type AnyPolicy } from '../../src/core/policy.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine, type PolicyLookup } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { Store } from '../../src/store/store.js';

/** Whether each call found the tracking going with its state (true) or had to rebuild (false). */
const follows: boolean[] = [];
const make = (name: string, updatesStateInPlace: boolean): AnyPolicy =>
  definePolicy<Record<string, never>, { calls: number }>({
    name,
    description: 'test policy',
    paramsSchema: z.object({}).strict(),
    updatesStateInPlace,
    initialState: () => ({ calls: 0 }),
    decide({ state, tracking }) {
      follows.push(tracking!.follows(state));
      const next = updatesStateInPlace ? Object.assign(state, { calls: state.calls + 1 }) : { calls: state.calls + 1 };
      tracking!.handOver(next);
      return { decisions: [], state: next };
    },
  });
const table: Record<string, AnyPolicy> = { inPlace: make('inPlace', true), fresh: make('fresh', false) };
const policies: PolicyLookup = { get: (n) => table[n], names: () => Object.keys(table) };

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-tracking-'));
  store = await Store.open(dir);
  follows.length = 0;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

for (const policy of ['inPlace', 'fresh']) {
  it(`goes on across committed cycles and is rebuilt after a discarded one, a swap and a restart (${policy})`, async () => {
    const engine = new Engine({
      backend: new InMemoryBackend(),
      store,
      clock: new FakeClock(),
      periodMs: 10_000,
      policies,
      initial: { policy, dryRun: false },
    });
    await engine.init();
    await engine.runCycle();
    await engine.runCycle();
    await engine.runCycle();
    expect(follows).toEqual([false, true, true]);
    // A dry-run request runs the policy on the state and discards the cycle.
    await engine.dryRun();
    await engine.runCycle();
    await engine.runCycle();
    expect(follows.slice(3)).toEqual([true, false, true]);
    // A swap runs the new policy once on a trial (discarded), then from its initial state.
    const other = policy === 'inPlace' ? 'fresh' : 'inPlace';
    await engine.setPolicy({ name: other });
    await engine.runCycle();
    await engine.setPolicy({ name: policy });
    await engine.runCycle();
    await engine.runCycle();
    expect(follows.slice(6)).toEqual([false, false, false, false, true]);
    // A restart: a new engine on the same store, the state loaded from it.
    const restarted = new Engine({ backend: new InMemoryBackend(), store, clock: new FakeClock(), periodMs: 10_000, policies });
    await restarted.init();
    await restarted.runCycle();
    await restarted.runCycle();
    expect(follows.slice(11)).toEqual([false, true]);
    expect(restarted.policyState()).toEqual({ calls: 4 });
  });
}
