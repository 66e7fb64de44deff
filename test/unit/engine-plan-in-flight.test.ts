/**
 * A plan is recorded durably before its first action is sent and cleared once its outcomes are
 * journaled; a process that finds one left by a process that stopped in between journals each of
 * its decisions once, as the cluster shows it now, and sends none of them again.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Decision } from '../../src/core/actions.js';
import { definePolicy, type AnyPolicy } from '../../src/core/policy.js';
import { res } from '../../src/core/resources.js';
import { Engine, type PolicyLookup } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { PLAN_IN_FLIGHT_RULE } from '../../src/engine/plan-in-flight.js';
import type { PlanInFlight } from '../../src/store/store.js';
import { useEngineFixture } from './engine-fixture.js';

const script: { decisions: Decision[] } = { decisions: [] };
const scripted = definePolicy<{ tag: string }, Record<string, never>>({
  name: 'scripted',
  description: 'test policy',
  paramsSchema: z.object({ tag: z.string().default('x') }),
  initialState: () => ({}),
  decide: () => ({ decisions: script.decisions, state: {} }),
});
const table: Record<string, AnyPolicy> = { scripted };
const policies: PolicyLookup = { get: (n) => table[n], names: () => Object.keys(table) };

const overCommit = (nodeId: string, vcores: number): Decision => ({
  action: { kind: 'setNodeResource', nodeId, resource: res(8192, vcores) },
  policy: 'scripted',
  rule: 'scripted.overCommit',
  reason: `${nodeId} to ${vcores} vcores`,
});

const t = useEngineFixture('schedbrain-in-flight-');
let backend: InMemoryBackend;

beforeEach(() => {
  backend = new InMemoryBackend({ now: () => t.clock.now() });
  script.decisions = [];
});

const inFlightEntries = async () => (await t.store.journal.query({ order: 'asc', limit: 1000 })).filter((x) => x.rule === PLAN_IN_FLIGHT_RULE);

async function start(): Promise<Engine> {
  const engine = new Engine({ backend, store: t.store, clock: t.clock, periodMs: 5_000, policies, initial: { policy: 'scripted' } });
  t.engine = engine;
  await engine.init();
  return engine;
}

describe('the plan in flight', () => {
  it('is in the store while its actions are being sent, and gone once they are journaled', async () => {
    const e = await start();
    script.decisions = [overCommit('node1:8041', 12), overCommit('node2:8041', 12)];
    let release!: () => void;
    backend.applyGate = new Promise((r) => (release = r));
    const cycle = e.runCycle();
    let seen: PlanInFlight | undefined;
    for (let i = 0; i < 100 && !seen; i++) {
      await new Promise((r) => setTimeout(r, 5));
      seen = await t.store.getPlanInFlight();
    }
    expect(seen?.decisions.map((d) => d.action)).toEqual(script.decisions.map((d) => d.action));
    expect(seen?.decisions[0].rule).toBe('scripted.overCommit');
    release();
    const r = await cycle;
    expect(r.decisions.map((d) => d.result)).toEqual(['applied', 'applied']);
    expect(await t.store.getPlanInFlight()).toBeUndefined();
  });

  it('left by a stopped process: each decision is journaled once, as the cluster shows it, and nothing is sent again', async () => {
    // The stopped process had sent the first action (node1 shows it) but not the second.
    backend.nodes[0] = { ...backend.nodes[0], capacity: res(8192, 12) };
    await t.store.putPlanInFlight({
      cycleId: 'dead-1',
      policy: 'scripted',
      atMs: t.clock.now() - 3_000,
      decisions: [overCommit('node1:8041', 12), overCommit('node2:8041', 12)].map((d) => ({ rule: d.rule, reason: d.reason, action: d.action })),
    });
    const e = await start();
    // The new process's policy asks for the same two.
    script.decisions = [overCommit('node1:8041', 12), overCommit('node2:8041', 12)];
    const r = await e.runCycle();

    const recovered = await inFlightEntries();
    expect(recovered.map((x) => [x.action?.kind === 'setNodeResource' && x.action.nodeId, x.result])).toEqual([
      ['node1:8041', 'applied'],
      ['node2:8041', 'failed'],
    ]);
    expect(recovered[0].reason).toContain('cycle dead-1');
    expect(recovered[0].reason).toContain('scripted.overCommit');
    expect(recovered[1].error).toContain('not in effect');
    expect(await t.store.getPlanInFlight()).toBeUndefined();
    // Node 1's action is already true: only node 2's is sent now.
    expect(r.decisions.map((d) => d.result)).toEqual(['noop', 'applied']);
    expect(backend.applied).toEqual([script.decisions[1].action]);

    // Looked for once: a later cycle journals nothing more for it.
    await e.runCycle();
    expect(await inFlightEntries()).toHaveLength(2);
  });
});
