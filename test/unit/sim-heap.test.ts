import { describe, expect, it } from 'vitest';
import { EventQueue, IndexedHeap, KeyedHeap } from '../../src/core/heap.js';
import { Rng } from '../../src/sim/rng.js';

describe('EventQueue', () => {
  it('pops by time, then by scheduling order', () => {
    const q = new EventQueue<{ t: number; seq: number; tag: string }>();
    let seq = 0;
    const ev = (t: number, tag: string) => q.push({ t, seq: seq++, tag });
    ev(5, 'a');
    ev(1, 'b');
    ev(5, 'c');
    ev(3, 'd');
    ev(1, 'e');
    ev(5, 'f');
    const out: string[] = [];
    while (q.size) out.push(q.pop()!.tag);
    expect(out).toEqual(['b', 'e', 'd', 'a', 'c', 'f']);
  });

  it('matches a stable sort on random input', () => {
    const rng = new Rng(42);
    const q = new EventQueue<{ t: number; seq: number }>();
    const all: { t: number; seq: number }[] = [];
    for (let i = 0; i < 5000; i++) {
      const e = { t: rng.int(200), seq: i };
      all.push(e);
      q.push(e);
      if (rng.next() < 0.3) {
        all.splice(all.indexOf(q.peek()!), 1);
        q.pop();
      }
    }
    const expected = [...all].sort((a, b) => a.t - b.t || a.seq - b.seq);
    const got: { t: number; seq: number }[] = [];
    while (q.size) got.push(q.pop()!);
    expect(got).toEqual(expected);
  });

  it('removes queued events anywhere in the heap; the rest still come out in order', () => {
    const rng = new Rng(7);
    const q = new EventQueue<{ t: number; seq: number; heapIndex?: number }>();
    const live: { t: number; seq: number; heapIndex?: number }[] = [];
    for (let i = 0; i < 5000; i++) {
      const e = { t: rng.int(300), seq: i };
      live.push(e);
      q.push(e);
      const r = rng.next();
      if (r < 0.3) {
        const victim = live.splice(rng.int(live.length), 1)[0];
        expect(q.remove(victim)).toBe(true);
        expect(q.remove(victim)).toBe(false);
      } else if (r < 0.4) {
        const top = q.pop()!;
        live.splice(live.indexOf(top), 1);
        expect(q.remove(top)).toBe(false);
      }
    }
    expect(q.size).toBe(live.length);
    const expected = [...live].sort((a, b) => a.t - b.t || a.seq - b.seq);
    const got: { t: number; seq: number }[] = [];
    while (q.size) got.push(q.pop()!);
    expect(got).toEqual(expected);
  });
});

describe('KeyedHeap', () => {
  it('pops by the first key, then the second, and survives JSON without slots', () => {
    const q = new KeyedHeap<string>();
    for (const [a, b, x] of [
      [5, 0, 'a'],
      [1, 1, 'b'],
      [5, -1, 'c'],
      [0, 9, 'd'],
      [1, 0, 'e'],
    ] as const)
      q.insert(x, a, b);
    expect(q.peekKey()).toBe(0);
    const back = Object.assign(new KeyedHeap<string>(), JSON.parse(JSON.stringify(q)));
    const out: string[] = [];
    for (let x = back.pop(); x !== undefined; x = back.pop()) out.push(x);
    expect(out).toEqual(['d', 'e', 'b', 'c', 'a']);
  });

  it('re-keys and removes items anywhere, against a sorted list (random operations)', () => {
    const rng = new Rng(11);
    type Item = { id: number; a: number; b: number; heapIndex: number };
    const q = new KeyedHeap<Item>({ removable: true });
    const live: Item[] = [];
    for (let i = 0; i < 4000; i++) {
      const r = rng.next();
      if (r < 0.4 || live.length === 0) {
        const x = { id: i, a: rng.int(100), b: rng.int(5), heapIndex: -1 };
        live.push(x);
        q.insert(x, x.a, x.b);
      } else if (r < 0.6) {
        const x = live[rng.int(live.length)];
        x.a = rng.int(100);
        x.b = rng.int(5);
        q.update(x, x.a, x.b);
      } else if (r < 0.8) {
        const x = live.splice(rng.int(live.length), 1)[0];
        expect(q.remove(x)).toBe(true);
        expect(q.has(x)).toBe(false);
      } else {
        const top = q.pop()!;
        const least = [...live].sort((x, y) => x.a - y.a || x.b - y.b)[0];
        expect([top.a, top.b]).toEqual([least.a, least.b]);
        live.splice(live.indexOf(top), 1);
        expect(top.heapIndex).toBe(-1);
      }
      expect(q.size).toBe(live.length);
    }
    for (const x of live) expect(q.has(x)).toBe(true);
  });
});

describe('IndexedHeap', () => {
  interface X {
    k: number;
    id: number;
    i: number;
  }
  const mk = () =>
    new IndexedHeap<X>(
      (a, b) => a.k < b.k || (a.k === b.k && a.id < b.id),
      (x) => x.i,
      (x, i) => {
        x.i = i;
      },
    );

  it('supports key updates and removal', () => {
    const h = mk();
    const xs: X[] = Array.from({ length: 100 }, (_, id) => ({ k: (id * 37) % 100, id, i: -1 }));
    for (const x of xs) h.push(x);
    xs[10].k = -5;
    h.update(xs[10]);
    h.remove(xs[20]);
    xs[30].k = 1000;
    h.update(xs[30]);
    const out: number[] = [];
    while (h.size) out.push(h.pop()!.id);
    expect(out[0]).toBe(10);
    expect(out).not.toContain(20);
    expect(out[out.length - 1]).toBe(30);
    const keys = out.map((id) => xs[id].k);
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
  });

  it('findFirst returns the smallest element satisfying a predicate', () => {
    const rng = new Rng(3);
    const h = mk();
    const xs: X[] = Array.from({ length: 500 }, (_, id) => ({ k: rng.int(50), id, i: -1 }));
    h.rebuild(xs);
    for (const m of [2, 3, 7, 11, 499]) {
      const pred = (x: X) => x.id % m === 0 && x.k > 10;
      const expected = xs.filter(pred).sort((a, b) => a.k - b.k || a.id - b.id)[0];
      expect(h.findFirst(pred)).toBe(expected);
    }
    expect(h.findFirst(() => false)).toBeUndefined();
  });
});

describe('Rng', () => {
  it('is deterministic per seed and differs across seeds', () => {
    const a = new Rng(7);
    const b = new Rng(7);
    const c = new Rng(8);
    const sa = Array.from({ length: 10 }, () => a.next());
    expect(Array.from({ length: 10 }, () => b.next())).toEqual(sa);
    expect(Array.from({ length: 10 }, () => c.next())).not.toEqual(sa);
    for (const x of sa) expect(x >= 0 && x < 1).toBe(true);
  });

  it('draws exponentials with the requested mean', () => {
    const r = new Rng(1);
    let s = 0;
    const n = 20000;
    for (let i = 0; i < n; i++) s += r.exponential(60);
    expect(s / n).toBeGreaterThan(57);
    expect(s / n).toBeLessThan(63);
  });
});
