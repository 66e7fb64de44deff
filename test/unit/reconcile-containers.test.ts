import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot, ContainerView } from '../../src/core/model.js';
import { isAlreadyTrue } from '../../src/core/reconcile.js';
import { Simulator } from '../../src/sim/engine.js';

const ONE = { memoryMB: 1024, vcores: 1 };

/** Three one-task jobs on two nodes, stopped while two containers run (the third waits). */
function cluster(): { sim: Simulator; s: ClusterSnapshot; a: ContainerView; b: ContainerView } {
  const jobs = [0, 1, 2].map((i) => ({ arrivalMs: i, stages: [{ resource: ONE, workMs: [60_000] }] }));
  const sim = new Simulator({ workload: { name: 't', jobs }, nodes: 2, cores: 1 });
  sim.runUntil(100);
  const s = sim.snapshot();
  const [a, b] = [...s.containers.values()];
  return { sim, s, a, b };
}

describe('reconciliation of container actions', () => {
  it('tells a running container from a suspended one, on its node or named with another', () => {
    const { sim, s, a, b } = cluster();
    expect(a.nodeId).not.toBe(b.nodeId);
    for (const nodeId of [a.nodeId, b.nodeId, 'node-unknown']) {
      expect(isAlreadyTrue({ kind: 'resumeContainer', containerId: a.id, nodeId }, s)).toBe(true);
      expect(isAlreadyTrue({ kind: 'suspendContainer', containerId: a.id, nodeId }, s)).toBe(false);
      expect(isAlreadyTrue({ kind: 'killContainer', containerId: a.id, nodeId }, s)).toBe(false);
    }
    expect(sim.apply({ kind: 'suspendContainer', containerId: a.id, nodeId: a.nodeId }).status).toBe('applied');
    for (const nodeId of [a.nodeId, b.nodeId]) {
      expect(isAlreadyTrue({ kind: 'suspendContainer', containerId: a.id, nodeId }, s)).toBe(true);
      expect(isAlreadyTrue({ kind: 'resumeContainer', containerId: a.id, nodeId }, s)).toBe(false);
    }
  });

  it('counts a kill of a container that is gone as already done', () => {
    const { s, a } = cluster();
    expect(isAlreadyTrue({ kind: 'killContainer', containerId: `${a.id}9`, nodeId: a.nodeId }, s)).toBe(true);
    expect(isAlreadyTrue({ kind: 'suspendContainer', containerId: 'container_x', nodeId: a.nodeId }, s)).toBe(false);
  });

  it('finds containers by id when the nodes do not carry theirs', () => {
    const { s, a } = cluster();
    const nodes = new Map([...s.nodes].map(([id, n]) => [id, { ...n, containers: undefined }]));
    const bare = { ...s, nodes, containers: s.containers } as unknown as ClusterSnapshot;
    expect(isAlreadyTrue({ kind: 'resumeContainer', containerId: a.id, nodeId: a.nodeId }, bare)).toBe(true);
    expect(isAlreadyTrue({ kind: 'killContainer', containerId: a.id, nodeId: a.nodeId }, bare)).toBe(false);
  });
});
