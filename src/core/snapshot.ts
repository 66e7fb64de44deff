/**
 * Builds an immutable ClusterSnapshot from plain lists. The YARN backend and unit tests use it;
 * the simulator exposes live views instead (see model.ts).
 */
import type { AppView, ClusterSnapshot, ContainerView, NodeView, QueueView } from './model.js';
import { sum, ZERO } from './resources.js';

export interface SnapshotParts {
  nowMs: number;
  nodes: NodeView[];
  apps: AppView[];
  containers: ContainerView[];
  rootQueue: QueueView;
}

export function buildSnapshot(p: SnapshotParts): ClusterSnapshot {
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  return {
    nowMs: p.nowMs,
    totalCapacity: p.nodes.length ? sum(p.nodes.filter((n) => n.state === 'RUNNING').map((n) => n.capacity)) : ZERO,
    nodes,
    apps: new Map(p.apps.map((a) => [a.id, a])),
    containers: new Map(p.containers.map((c) => [c.id, c])),
    rootQueue: p.rootQueue,
  };
}

/** A single-leaf queue tree (`root.default` at 100 %), for backends and tests without queues. */
export function defaultQueueTree(): QueueView {
  const leaf: QueueView = {
    path: 'root.default',
    name: 'default',
    state: 'RUNNING',
    capacityPct: 100,
    maxCapacityPct: 100,
    absoluteCapacityPct: 100,
    absoluteMaxCapacityPct: 100,
    usedCapacityPct: 0,
    used: ZERO,
    numApplications: 0,
    children: [],
  };
  return { ...leaf, path: 'root', name: 'root', children: [leaf] };
}
