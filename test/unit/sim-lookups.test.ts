import { describe, expect, it } from 'vitest';
import { Simulator } from '../../src/sim/engine.js';
import type { JobSpec } from '../../src/sim/workload.js';

const ONE = { memoryMB: 1024, vcores: 1 };
const job = (arrivalMs: number, tasks: number): JobSpec => ({ arrivalMs, stages: [{ resource: ONE, workMs: Array.from({ length: tasks }, () => 60_000) }] });

/** A run of 12 jobs of 3 tasks on 40 nodes, stopped while every container still runs. */
function running(): Simulator {
  const sim = new Simulator({ workload: { name: 't', jobs: Array.from({ length: 12 }, (_, i) => job(i * 10, 3)) }, nodes: 40, cores: 1 });
  sim.runUntil(1_000);
  return sim;
}

describe('the simulator finds nodes and containers by id', () => {
  it('finds every live container by its id, and only by it', () => {
    const sim = running();
    const live = [...sim.containers.values()];
    expect(live).toHaveLength(36);
    for (const c of live) {
      expect(sim.containers.get(c.id)).toBe(c);
      // The same id as another string object.
      expect(sim.containers.get(`${c.id} `.trim())).toBe(c);
      expect(sim.containers.has(c.id)).toBe(true);
    }
    const id = live[5].id;
    for (const other of [
      '',
      'container',
      '000001',
      `x${id}`,
      `${id}0`,
      id.replace('container_0_', 'container_1_'),
      id.replace('_01_', '_02_'),
      id.replace('container_0_', ''),
      'container_0_0001_01_000099',
      'container_0_9999_01_000001',
      'container_0_0001_01_0000000000001',
    ])
      expect(sim.containers.get(other)).toBeUndefined();
    expect(sim.containers.get(undefined as unknown as string)).toBeUndefined();
  });

  it('finds no container once it is released', () => {
    const sim = new Simulator({ workload: { name: 't', jobs: [job(0, 2)] }, nodes: 2, cores: 1 });
    sim.runUntil(1_000);
    const ids = [...sim.containers.values()].map((c) => c.id);
    expect(ids).toHaveLength(2);
    sim.run();
    for (const id of ids) expect(sim.containers.get(id)).toBeUndefined();
  });

  it('finds every node by its id, and other strings through the map', () => {
    const sim = running();
    for (const n of sim.nodes) expect(sim.nodeById.get(n.id)).toBe(n);
    expect(sim.nodeById.get('node01')).toBe(sim.nodes[0]);
    expect(sim.nodeById.get('node1')).toBeUndefined();
    expect(sim.nodeById.get('node00')).toBeUndefined();
    expect(sim.nodeById.get('node41')).toBeUndefined();
    expect(sim.nodeById.get('xnode01')).toBeUndefined();
    expect(sim.nodeById.get('')).toBeUndefined();
    expect(sim.nodeById.get('node0000000000001')).toBeUndefined();
  });
});
