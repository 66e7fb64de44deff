/**
 * The cluster forgets a node ranking its TTL after it was sent, and the engine sends a ranking only
 * when it changed: so the engine sends the ranking in force again, unchanged, once half the TTL has
 * passed, whether or not the policy asks for a ranking that cycle.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ActionOf, Decision } from '../../src/core/actions.js';
import { definePolicy, type AnyPolicy } from '../../src/core/policy.js';
import { Engine, type PolicyLookup } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { RANKING_REFRESH_RULE } from '../../src/engine/session.js';
import { useEngineFixture } from './engine-fixture.js';

const TTL_MS = 60_000;
const script: { decisions: Decision[] } = { decisions: [] };
const scripted = definePolicy<Record<string, never>, Record<string, never>>({
  name: 'scripted',
  description: 'test policy',
  paramsSchema: z.object({}),
  initialState: () => ({}),
  decide: () => ({ decisions: script.decisions, state: {} }),
});
const table: Record<string, AnyPolicy> = { scripted };
const policies: PolicyLookup = { get: (n) => table[n], names: () => Object.keys(table) };

const rank = (scores: Record<string, number>, partial = false): Decision => ({
  action: { kind: 'rankNodes', scores, leastLoadedFirst: false, partial },
  policy: 'scripted',
  rule: 'scripted.rank',
  reason: 'test ranking',
});

const t = useEngineFixture('schedbrain-ranking-');
let backend: InMemoryBackend;

beforeEach(() => {
  script.decisions = [];
});

async function start(rankingTtlMs: number | undefined): Promise<Engine> {
  backend = new InMemoryBackend({
    now: () => t.clock.now(),
    capabilities: { nodeRanking: true, ...(rankingTtlMs !== undefined ? { rankingTtlMs } : {}) },
  });
  const engine = new Engine({ backend, store: t.store, clock: t.clock, periodMs: 5_000, policies, initial: { policy: 'scripted' } });
  t.engine = engine;
  await engine.init();
  return engine;
}

const sentRankings = () => backend.applied.filter((a): a is ActionOf<'rankNodes'> => a.kind === 'rankNodes');

describe('the engine keeps a published ranking in force', () => {
  it('sends it again unchanged (engine.ranking-refresh) once half the TTL has passed, when the policy asks for none', async () => {
    const e = await start(TTL_MS);
    script.decisions = [rank({ 'node1:8041': 0, 'node2:8041': 5 })];
    await e.runCycle();
    expect(sentRankings()).toHaveLength(1);

    // The policy now asks for nothing; the ranking stays as published until it is due.
    script.decisions = [];
    await t.clock.advance(TTL_MS / 2 - 1_000);
    const quiet = await e.runCycle();
    expect(quiet.decisions).toEqual([]);
    expect(sentRankings()).toHaveLength(1);

    await t.clock.advance(1_000);
    const due = await e.runCycle();
    expect(due.decisions.map((d) => [d.rule, d.result])).toEqual([[RANKING_REFRESH_RULE, 'applied']]);
    expect(due.decisions[0].reason).toContain(`${TTL_MS} ms`);
    expect(sentRankings()).toHaveLength(2);
    expect(sentRankings()[1].scores).toEqual({ 'node1:8041': 0, 'node2:8041': 5 });
    expect(sentRankings()[1].partial).toBe(false);

    // Sent again: due only after another half TTL.
    await t.clock.advance(5_000);
    expect((await e.runCycle()).decisions).toEqual([]);
    expect(sentRankings()).toHaveLength(2);
  });

  it("lets the policy's own unchanged ranking through when due instead of calling it already published", async () => {
    const e = await start(TTL_MS);
    script.decisions = [rank({ 'node1:8041': 0, 'node2:8041': 5 })];
    await e.runCycle();
    await t.clock.advance(5_000);
    expect((await e.runCycle()).decisions.map((d) => d.result)).toEqual(['noop']);
    await t.clock.advance(TTL_MS / 2);
    const due = await e.runCycle();
    expect(due.decisions.map((d) => [d.rule, d.result])).toEqual([['scripted.rank', 'applied']]);
    expect(sentRankings()).toHaveLength(2);
  });

  it('keeps the whole ranking when partial rankings were merged into it', async () => {
    const e = await start(TTL_MS);
    script.decisions = [rank({ 'node1:8041': 0, 'node2:8041': 5 })];
    await e.runCycle();
    await t.clock.advance(10_000);
    script.decisions = [rank({ 'node2:8041': 1 }, true)];
    await e.runCycle();
    script.decisions = [];
    await t.clock.advance(TTL_MS / 2);
    const due = await e.runCycle();
    expect(due.decisions.map((d) => d.rule)).toEqual([RANKING_REFRESH_RULE]);
    expect(sentRankings().at(-1)?.scores).toEqual({ 'node1:8041': 0, 'node2:8041': 1 });
  });

  it('sends nothing again for a backend that keeps a ranking until replaced (no TTL)', async () => {
    const e = await start(undefined);
    script.decisions = [rank({ 'node1:8041': 0 })];
    await e.runCycle();
    script.decisions = [];
    await t.clock.advance(10 * TTL_MS);
    expect((await e.runCycle()).decisions).toEqual([]);
    expect(sentRankings()).toHaveLength(1);
  });
});
