import { describe, expect, it } from 'vitest';
import { numberList, objectList } from '../../src/core/lists.js';

describe('lists made in the kind they hold', () => {
  it('are empty, a new list at every call, and hold what they are given', () => {
    const a = objectList<{ id: string }>();
    const b = objectList<{ id: string }>();
    expect(a).toEqual([]);
    expect(a).not.toBe(b);
    a.push({ id: 'x' });
    expect(b).toHaveLength(0);
    const n = numberList();
    const m = numberList();
    expect(n).toEqual([]);
    expect(n).not.toBe(m);
    n.push(1, 2.5, NaN);
    expect(n).toEqual([1, 2.5, NaN]);
    expect(m).toHaveLength(0);
  });
});
