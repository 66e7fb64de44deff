import { describe, expect, it } from 'vitest';
import { ListedRanking } from '../../src/core/actions.js';
import type { Resources } from '../../src/core/resources.js';
import { SimNode, Simulator } from '../../src/sim/engine.js';
import { NodeOrder } from '../../src/sim/node-order.js';
import { Rng } from '../../src/sim/rng.js';

/** The rankNodes rule written out naively, as the contract in core/actions.ts states it. */
function bruteForce(nodes: SimNode[], r: Resources, ranked: boolean, llf: boolean, scores: Map<string, number>): SimNode | undefined {
  const cands = nodes.filter(
    (n) => n.state === 'RUNNING' && n.capacity.vcores - n.used.vcores >= r.vcores && n.capacity.memoryMB - n.used.memoryMB >= r.memoryMB,
  );
  cands.sort((a, b) => {
    if (ranked) {
      if (llf && a.containers.length !== b.containers.length) return a.containers.length - b.containers.length;
      const sa = scores.get(a.id) ?? Infinity;
      const sb = scores.get(b.id) ?? Infinity;
      if (sa !== sb) return sa < sb ? -1 : 1;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  return cands[0];
}

describe('node order', () => {
  it('always picks the node the rankNodes rule says, under random loads and rankings (dictionaries and lists)', () => {
    const rng = new Rng(11);
    const jobs = Array.from({ length: 300 }, (_, i) => ({
      arrivalMs: i * 300,
      stages: [{ resource: { memoryMB: 512 * (1 + rng.int(4)), vcores: 1 + rng.int(3) }, workMs: [1000 + rng.int(8000)] }],
    }));
    const s = new Simulator({ workload: { name: 'order', jobs }, nodes: 23, cores: 4, memoryMBPerNode: 8192, checkInvariants: true });
    let ranked = false;
    let llf = false;
    const scores = new Map<string, number>();
    let found = 0;
    for (let step = 0; step < 400; step++) {
      s.runUntil(s.nowMs + rng.int(300));
      const x = rng.next();
      if (x < 0.15) {
        const partial = ranked && rng.next() < 0.5;
        llf = rng.next() < 0.5;
        const sc: Record<string, number> = {};
        for (const n of s.nodes) if (rng.next() < 0.4) sc[n.id] = rng.int(4);
        if (!partial) scores.clear();
        for (const [k, v] of Object.entries(sc)) scores.set(k, v);
        // Half the rankings come as lists (as Kairos makes them), some with a node listed twice.
        if (rng.next() < 0.5) {
          const ids = Object.keys(sc);
          const values = ids.map((id) => sc[id]);
          if (ids.length > 0 && rng.next() < 0.3) {
            ids.unshift(ids[0]);
            values.unshift(rng.int(4));
          }
          s.apply(new ListedRanking(ids, values, llf, partial));
        } else s.apply({ kind: 'rankNodes', scores: sc, leastLoadedFirst: llf, partial });
        ranked = true;
      } else if (x < 0.25) {
        const n = s.nodes[rng.int(s.nodes.length)];
        s.apply({ kind: 'setNodeResource', nodeId: n.id, resource: { memoryMB: 4096 + 1024 * rng.int(8), vcores: 2 + rng.int(5) } });
      }
      for (const r of [
        { memoryMB: 512, vcores: 1 },
        { memoryMB: 2048, vcores: 2 },
        { memoryMB: 4096, vcores: 3 },
      ]) {
        const want = bruteForce(s.nodes, r, ranked, llf, scores);
        expect(s.order.find(r)?.id).toBe(want?.id);
        if (want) found++;
      }
    }
    expect(found).toBeGreaterThan(200);
    s.run();
    expect(s.done).toBe(true);
  });

  it('keeps the order right when a partial ranking moves a few of many candidates at once', () => {
    // Few rescored nodes among many candidates: each is moved on its own in the heap, not by a
    // rebuild. Every find must still give the least node by the rule.
    const rng = new Rng(5);
    const jobs = Array.from({ length: 400 }, (_, i) => ({
      arrivalMs: i * 50,
      stages: [{ resource: { memoryMB: 256, vcores: 1 }, workMs: [500 + rng.int(20_000)] }],
    }));
    const s = new Simulator({ workload: { name: 'partial', jobs }, nodes: 120, cores: 1, memoryMBPerNode: 4096 });
    for (const n of s.nodes) s.apply({ kind: 'setNodeResource', nodeId: n.id, resource: { memoryMB: 4096, vcores: 3 } });
    const scores = new Map<string, number>();
    s.apply({ kind: 'rankNodes', scores: {}, leastLoadedFirst: true, partial: false });
    let checked = 0;
    for (let step = 0; step < 1500 && !s.done; step++) {
      s.runUntil(s.nowMs + rng.int(40));
      const sc: Record<string, number> = {};
      const k = 2 + rng.int(9);
      for (let j = 0; j < k; j++) sc[s.nodes[rng.int(s.nodes.length)].id] = rng.int(5) / 2;
      for (const [id, v] of Object.entries(sc)) scores.set(id, v);
      s.apply({ kind: 'rankNodes', scores: sc, leastLoadedFirst: true, partial: true });
      const r = { memoryMB: 256, vcores: 1 };
      expect(s.order.find(r)?.id).toBe(bruteForce(s.nodes, r, true, true, scores)?.id);
      checked++;
    }
    expect(checked).toBeGreaterThan(500);
  });

  it('refuses a node list in which a node is not at the index of its id rank (its slot is kept by id rank)', () => {
    const phys = { memoryMB: 1024, vcores: 1 };
    const a = new SimNode('node1', 0, '/rack1', phys);
    const b = new SimNode('node2', 1, '/rack1', phys);
    expect(() => new NodeOrder([a, b])).not.toThrow();
    expect(() => new NodeOrder([b, a])).toThrow('node node2 has id rank 1, not its index 0');
  });
});
