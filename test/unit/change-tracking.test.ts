/** The runtime's change tracking: the wake-up index against a plain model, and which state the structures go with. */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keptKey } from '../../src/core/tracking.js';
import { ChangeTracker, NodeWakes } from '../../src/engine/change-tracking.js';

type Op = { kind: 'schedule'; node: number; at: number } | { kind: 'forget'; node: number } | { kind: 'take'; now: number } | { kind: 'earliest' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('schedule' as const), node: fc.integer({ min: 0, max: 12 }), at: fc.integer({ min: 0, max: 200 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget' as const), node: fc.integer({ min: 0, max: 12 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('take' as const), now: fc.integer({ min: 0, max: 200 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'earliest' as const }) },
);

describe('NodeWakes', () => {
  it('takes exactly the nodes due and tells the earliest wake-up, as a map of node to time would (random operations)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const wakes = new NodeWakes();
        const model = new Map<string, number>();
        // Times mostly grow, as in a run; some go back (wake-ups moved earlier).
        let clock = 0;
        for (const o of ops) {
          if (o.kind === 'schedule') {
            const at = o.at % 3 === 0 ? clock + o.at : o.at;
            wakes.schedule(`n${o.node}`, at);
            model.set(`n${o.node}`, at);
          } else if (o.kind === 'forget') {
            wakes.forget(`n${o.node}`);
            model.delete(`n${o.node}`);
          } else if (o.kind === 'take') {
            clock = Math.max(clock, o.now);
            const taken: string[] = [];
            wakes.takeDue(clock, taken);
            const due = [...model].filter(([, t]) => t <= clock).map(([n]) => n);
            for (const n of due) model.delete(n);
            expect(taken.sort()).toEqual(due.sort());
          } else {
            const times = [...model.values()];
            expect(wakes.earliest()).toBe(times.length > 0 ? Math.min(...times) : undefined);
          }
        }
      }),
      { numRuns: 300, seed: 16 },
    );
  });

  it('lists the nodes due at the same time in the order they first had a wake-up', () => {
    const wakes = new NodeWakes();
    for (const n of ['b', 'a', 'c']) wakes.schedule(n, 10);
    wakes.schedule('a', 5);
    wakes.schedule('a', 10);
    const taken: string[] = [];
    wakes.takeDue(10, taken);
    expect(taken).toEqual(['b', 'a', 'c']);
    expect(wakes.earliest()).toBeUndefined();
  });
});

describe('ChangeTracker', () => {
  const totals = keptKey<{ n: number }>('test.totals');

  it('keeps its structures for the state it was handed over with, and empties itself for any other', () => {
    const tracking = new ChangeTracker();
    const state = { x: 1 };
    expect(tracking.follows(state)).toBe(false);
    tracking.wakes.schedule('n1', 100);
    tracking.keep(totals, { n: 3 });
    tracking.handOver(state);
    expect(tracking.follows(state)).toBe(true);
    expect(tracking.kept(totals)).toEqual({ n: 3 });
    // A copy (loaded from the store, or a state of another run) is not the state handed over.
    expect(tracking.follows(structuredClone(state))).toBe(false);
    expect(tracking.kept(totals)).toBeUndefined();
    expect(tracking.wakes.earliest()).toBeUndefined();
  });

  it("goes on with the engine's copy of the state, and not with the state a discarded cycle left", () => {
    const tracking = new ChangeTracker();
    const committed = { x: 1 };
    tracking.handOver(committed);
    // Cycle 1: the engine hands the policy a copy; the policy hands the tracking over with it.
    const copy1 = structuredClone(committed);
    tracking.carry(committed, copy1);
    expect(tracking.follows(copy1)).toBe(true);
    tracking.handOver(copy1);
    // Committed: copy1 is the engine's state now; cycle 2 goes on from it.
    const copy2 = structuredClone(copy1);
    tracking.carry(copy1, copy2);
    expect(tracking.follows(copy2)).toBe(true);
    tracking.handOver(copy2);
    // Cycle 2 discarded: the engine keeps copy1, which the structures no longer go with.
    const copy3 = structuredClone(copy1);
    tracking.carry(copy1, copy3);
    expect(tracking.follows(copy3)).toBe(false);
  });
});
