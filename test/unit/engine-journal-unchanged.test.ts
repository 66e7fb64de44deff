/** The engine's journal: a plan that repeats itself is journaled once, and the journal kept within its size limit. */
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Decision } from '../../src/core/actions.js';
import { definePolicy, type AnyPolicy } from '../../src/core/policy.js';
import { Engine, type EngineOptions, type PolicyLookup } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { useEngineFixture } from './engine-fixture.js';

const script: { decisions: Decision[] } = { decisions: [] };
const scripted = definePolicy<{ tag: string }, { calls: number }>({
  name: 'scripted',
  description: 'test policy',
  paramsSchema: z.object({ tag: z.string().default('x') }),
  initialState: () => ({ calls: 0 }),
  decide: ({ state }) => ({ decisions: script.decisions, state: { calls: state.calls + 1 } }),
});
const policies: PolicyLookup = { get: (n) => (n === 'scripted' ? (scripted as AnyPolicy) : undefined), names: () => ['scripted'] };
const kill = (appId: string): Decision => ({ action: { kind: 'killApp', appId }, policy: 'scripted', rule: 'scripted.kill', reason: `kill ${appId}` });

const t = useEngineFixture('schedbrain-engine-journal-');

beforeEach(() => {
  script.decisions = [];
});

async function makeEngine(over: Partial<EngineOptions> = {}): Promise<Engine> {
  const backend = new InMemoryBackend({ now: () => t.clock.now() });
  const engine = new Engine({ backend, store: t.store, clock: t.clock, periodMs: 10_000, policies, initial: { policy: 'scripted', dryRun: true }, ...over });
  t.engine = engine;
  await engine.init();
  return engine;
}

describe('engine journal', () => {
  it('journals a dry-run plan that repeats itself once, counting the cycles that repeated it', async () => {
    const e = await makeEngine();
    script.decisions = [kill('app_1')];
    const first = await e.runCycle();
    await t.clock.advance(10_000);
    await e.runCycle();
    await t.clock.advance(10_000);
    const third = await e.runCycle();
    // The cycle report still shows every decision of the cycle, with the entry that records it.
    expect(third.decisions).toHaveLength(1);
    expect(third.decisions[0]).toMatchObject({ cycleId: first.cycleId, result: 'dryRun', repeats: 2, lastCycleId: third.cycleId });
    const policyEntries = (await t.store.journal.query({ policy: 'scripted' })).filter((x) => x.rule === 'scripted.kill');
    expect(policyEntries).toHaveLength(1);
    expect(await t.store.journal.query({ cycleId: third.cycleId })).toMatchObject([{ rule: 'scripted.kill', repeats: 2 }]);
    // The plan changes: journaled again.
    script.decisions = [kill('app_2')];
    await t.clock.advance(10_000);
    await e.runCycle();
    expect((await t.store.journal.query({})).filter((x) => x.rule === 'scripted.kill')).toHaveLength(2);
  });

  it('keeps the journal within journalMaxBytes, the newest entries kept', async () => {
    const e = await makeEngine({ journalMaxBytes: 4_000 });
    for (let i = 0; i < 40; i++) {
      script.decisions = [kill(`app_${i}`)];
      await e.runCycle();
      await t.clock.advance(10_000);
    }
    expect(await t.store.journal.sizeBytes()).toBeLessThanOrEqual(4_000);
    const newest = await t.store.journal.query({ limit: 1 });
    expect(newest[0]).toMatchObject({ reason: 'kill app_39' });
    expect((await t.store.journal.query({ order: 'asc', limit: 1 }))[0].reason).not.toBe('kill app_0');
  });
});
