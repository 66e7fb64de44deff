/**
 * A policy whose cycle takes turns of the event loop (`decideInSteps` with `loopTurn`, Kairos on a
 * large cluster): the loop runs between its steps, and the engine runs one policy cycle at a time,
 * so a dry-run, a trial or a read of the state asked for during a cycle waits for it to end.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Decision } from '../../src/core/actions.js';
import { loopTurn, runStepsInline, type SolveSteps } from '../../src/core/milp.js';
import { definePolicy, type AnyPolicy, type PolicyInput, type PolicyOutput } from '../../src/core/policy.js';
import { Engine, type PolicyLookup } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { useEngineFixture } from './engine-fixture.js';

type Counts = { counts: Record<string, { n: number }> };
const TURNS = 4;
/** What happened, in order: each cycle's start and end (with the count it saw), and the timers that fired. */
const events: string[] = [];

function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

function* turningCycle(input: PolicyInput<Record<string, never>, Counts>): SolveSteps<PolicyOutput<Counts>> {
  const state = input.state;
  const seen = state.counts.k?.n ?? 0;
  events.push(`start ${seen}`);
  for (let i = 0; i < TURNS; i++) {
    const entry = input.tracking!.changing('counts', state.counts, 'k');
    if (entry === undefined) state.counts.k = { n: 1 };
    else entry.n++;
    // Longer than the slice the runtime lets a cycle hold the loop, so that each turn is taken.
    hold(8);
    yield* loopTurn();
  }
  events.push(`end ${state.counts.k.n}`);
  const kill: Decision = { action: { kind: 'killApp', appId: 'app_1' }, policy: 'turning', rule: 'turning.kill', reason: 'an action to send' };
  return { decisions: [kill], state, notes: [`counted to ${state.counts.k.n}`] };
}

const turning = definePolicy<Record<string, never>, Counts>({
  name: 'turning',
  description: 'test policy: counts in steps, taking a turn of the event loop after each',
  paramsSchema: z.object({}),
  initialState: () => ({ counts: {} }),
  updatesStateInPlace: true,
  stateEntries: ['counts'],
  decide: (input) =>
    runStepsInline(turningCycle(input), () => {
      throw new Error('no solves');
    }),
  decideInSteps: turningCycle,
});
const table: Record<string, AnyPolicy> = { turning };
const policies: PolicyLookup = { get: (n) => table[n], names: () => Object.keys(table) };

/** Resolves once `done()` holds, checked at each turn of the event loop. */
function when(done: () => boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    const poll = (): void => (done() ? resolve() : void setImmediate(poll));
    setImmediate(poll);
  });
}
const starts = (): number => events.filter((e) => e.startsWith('start')).length;

describe('engine: a cycle that takes turns of the event loop', () => {
  const f = useEngineFixture('schedbrain-engine-turns-');

  it('lets timers run between its steps; a dry-run and a state read asked meanwhile see a whole state and leave the committed one as it was', async () => {
    events.length = 0;
    const backend = new InMemoryBackend({ now: () => f.clock.now() });
    f.engine = new Engine({ backend, store: f.store, clock: f.clock, periodMs: 10_000, policies, initial: { policy: 'turning', params: {} } });
    await f.engine.init();
    const engine = f.engine;
    // The cycle's action waits at the backend until the dry-run is under way: the cycle's state
    // is then adopted while the dry-run's steps still run, unless the engine keeps them apart.
    let openGate!: () => void;
    backend.applyGate = new Promise<void>((resolve) => (openGate = resolve));

    const cycle = engine.runCycle();
    await when(() => events.includes('start 0'));
    events.push('timer');
    const dry = engine.dryRun();
    const settled = engine.settledPolicyState().then((s) => {
      events.push('state read');
      return s as Counts;
    });
    await when(() => starts() === 2);
    openGate();
    const report = await cycle;
    const dryReport = await dry;
    const state = await settled;
    backend.applyGate = undefined;

    expect(report.outcome).toBe('ok');
    expect(report.notes).toEqual([`counted to ${TURNS}`]);
    // The timer fired inside the cycle's steps; the dry-run's steps began after the cycle's ended.
    expect(events.indexOf('timer')).toBeGreaterThan(events.indexOf('start 0'));
    expect(events.indexOf('timer')).toBeLessThan(events.indexOf(`end ${TURNS}`));
    const cycles = events.filter((e) => e.startsWith('start') || e.startsWith('end'));
    expect(cycles.map((e) => e.split(' ')[0])).toEqual(['start', 'end', 'start', 'end']);
    // The dry-run decided on a whole state: the one before the cycle, or the one it committed.
    const dryFrom = Number(cycles[2].split(' ')[1]);
    expect([0, TURNS]).toContain(dryFrom);
    expect(dryReport.notes).toEqual([`counted to ${dryFrom + TURNS}`]);
    // The state read waited for the cycle's steps and shows a whole state, not one mid-count.
    expect(events.indexOf('state read')).toBeGreaterThan(events.indexOf(`end ${TURNS}`));
    expect([undefined, TURNS]).toContain(state.counts.k?.n);
    // What the cycle committed is untouched by the dry-run: the next cycle counts on from it.
    expect((engine.policyState() as Counts).counts.k.n).toBe(TURNS);
    const next = await engine.runCycle();
    expect(next.notes).toEqual([`counted to ${2 * TURNS}`]);
  });
});
