/**
 * A snapshot's node with the container views it carries (`NodeView.containers`) checked against
 * the snapshot's map: the very views of its `containerIds`, in that order. Returned without them,
 * so that snapshots are compared on what they hold, not on which views a backend had at hand.
 */
import { expect } from 'vitest';
import type { ClusterSnapshot, NodeView } from '../../src/core/model.js';

export function viewsAtHand(s: ClusterSnapshot, n: NodeView): Omit<NodeView, 'containers'> {
  const { containers, ...rest } = n;
  if (containers !== undefined) {
    expect(containers.map((c) => c.id)).toEqual(n.containerIds);
    containers.forEach((c, i) => expect(c).toBe(s.containers.get(n.containerIds[i])));
  }
  return rest;
}
