/**
 * An overlay map reads as the plain map it stands for: same size, entries, lookups and
 * iteration (as a set of entries), over any sequence of updates, each built on the last.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OverlayMap } from '../../src/yarn/overlay-map.js';

const key = fc.integer({ min: 0, max: 40 }).map((i) => `k${i}`);
const step = fc.record({ deletes: fc.array(key, { maxLength: 8 }), sets: fc.array(fc.tuple(key, fc.integer()), { maxLength: 8 }) });

describe('OverlayMap', () => {
  it('matches a plain map after any sequence of updates', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.integer()), { maxLength: 30 }), fc.array(step, { maxLength: 10 }), (initial, steps) => {
        const reference = new Map(initial);
        let m: ReadonlyMap<string, number> = new Map(initial);
        for (const { deletes, sets } of steps) {
          const previous = m;
          const before = new Map(m);
          m = OverlayMap.update(m, deletes, sets);
          for (const k of deletes) reference.delete(k);
          for (const [k, v] of sets) reference.set(k, v);
          expect(m.size).toBe(reference.size);
          expect(new Map(m)).toEqual(reference);
          expect(new Map(m.entries())).toEqual(reference);
          expect([...m.keys()].sort()).toEqual([...reference.keys()].sort());
          expect([...m.values()].sort()).toEqual([...reference.values()].sort());
          for (let i = 0; i <= 40; i++) {
            expect(m.get(`k${i}`)).toBe(reference.get(`k${i}`));
            expect(m.has(`k${i}`)).toBe(reference.has(`k${i}`));
          }
          const seen = new Map<string, number>();
          m.forEach((v, k) => seen.set(k, v));
          expect(seen).toEqual(reference);
          // The map it was built on is left as it was.
          expect(new Map(previous)).toEqual(before);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps one base however many updates are stacked', () => {
    let m: ReadonlyMap<string, number> = new Map([['a', 1]]);
    for (let i = 0; i < 50; i++) m = OverlayMap.update(m, [], [[`x${i}`, i]]);
    expect(OverlayMap.drift(m)).toBe(50);
    expect(m.size).toBe(51);
    expect(OverlayMap.drift(new Map())).toBe(0);
  });
});
