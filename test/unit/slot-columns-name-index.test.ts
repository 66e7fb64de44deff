/**
 * The runtime structures BoPF's admission keeps its queues in: numbers by slot in chunked typed
 * arrays, and slots by name in a typed-array hash table, checked against a plain array and a Map
 * on random sequences of inserts, replacements and deletions.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NameIndex } from '../../src/policies/shared/queues/name-index.js';
import { CHUNK_SLOTS, SlotColumns } from '../../src/policies/shared/queues/slot-columns.js';

describe('SlotColumns', () => {
  it('keeps every slot’s ints and floats across chunks, new slots zero', () => {
    const c = new SlotColumns(3, 2);
    const n = 2 * CHUNK_SLOTS + 5;
    for (let s = 0; s < n; s++) {
      expect(c.add()).toBe(s);
      expect([c.int(s, 0), c.int(s, 2), c.float(s, 1)]).toEqual([0, 0, 0]);
      c.setInt(s, 0, s);
      c.setInt(s, 2, -s - 1);
      c.setFloat(s, 1, s / 3);
    }
    for (let s = 0; s < n; s++) expect([c.int(s, 0), c.int(s, 1), c.int(s, 2), c.float(s, 0), c.float(s, 1)]).toEqual([s, 0, -s - 1, 0, s / 3]);
    expect(c.ints(n - 1)[c.intAt(n - 1)]).toBe(n - 1);
    expect(c.floats(n - 1)[c.floatAt(n - 1) + 1]).toBe((n - 1) / 3);
  });
});

describe('NameIndex', () => {
  it('finds what a Map finds after any inserts, replacements and deletions', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), name: fc.string({ maxLength: 6 }) }),
      fc.record({ kind: fc.constant('delete' as const), name: fc.string({ maxLength: 6 }) }),
      fc.record({ kind: fc.constant('get' as const), name: fc.string({ maxLength: 6 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const records: { name: string }[] = [];
        const index = new NameIndex(records);
        const want = new Map<string, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            records.push({ name: o.name });
            index.set(o.name, records.length - 1);
            want.set(o.name, records.length - 1);
          } else if (o.kind === 'delete') expect(index.delete(o.name)).toBe(want.delete(o.name));
          else expect(index.get(o.name)).toBe(want.get(o.name) ?? -1);
          expect(index.size).toBe(want.size);
        }
        for (const [name, slot] of want) expect(index.get(name)).toBe(slot);
      }),
      { numRuns: 200, seed: 5 },
    );
  });

  it('holds 100,000 names, then loses half of them', () => {
    const records = Array.from({ length: 100_000 }, (_, i) => ({ name: `q${i}` }));
    const index = new NameIndex(records);
    records.forEach((r, i) => index.set(r.name, i));
    for (let i = 0; i < records.length; i += 2) expect(index.delete(`q${i}`)).toBe(true);
    for (let i = 0; i < records.length; i++) expect(index.get(`q${i}`)).toBe(i % 2 ? i : -1);
  });
});
