/**
 * What the BoPF policy tests build alike: leaf queues under root (a percentage guarantee, and
 * optionally absolute resources), applications of equal containers, and a snapshot of one node
 * holding the whole cluster.
 */
import type { AppView, QueueView } from '../../src/core/model.js';
import type { Resources } from '../../src/core/resources.js';
import { buildSnapshot } from '../../src/core/snapshot.js';

/** A queue with a percentage guarantee (and optionally absolute resources), nothing used. */
export function queueView(path: string, capacityPct: number, capacityResource?: Resources, children: QueueView[] = []): QueueView {
  return {
    path,
    name: path.split('.').pop()!,
    state: 'RUNNING',
    capacityPct,
    ...(capacityResource ? { capacityResource } : {}),
    maxCapacityPct: 100,
    absoluteCapacityPct: capacityPct,
    absoluteMaxCapacityPct: 100,
    usedCapacityPct: 0,
    used: { memoryMB: 0, vcores: 0 },
    numApplications: 0,
    children,
  };
}

/** A snapshot of one node holding the whole cluster, with these queues under root. */
export function oneNodeSnapshot(cluster: Resources, leaves: QueueView[], apps: AppView[] = [], nowMs = 0) {
  const root: QueueView = { ...queueView('root', 100), children: leaves };
  const node = {
    id: 'n1',
    state: 'RUNNING' as const,
    rack: '/r',
    capacity: cluster,
    physicalCapacity: cluster,
    used: { memoryMB: 0, vcores: 0 },
    containerIds: [],
  };
  return buildSnapshot({ nowMs, nodes: [node], apps, containers: [], rootQueue: root });
}

/** Builders for a cluster of `cluster` resources whose containers are <1 vcore, `containerMemoryMB`>. */
export function bopfQueues(cluster: Resources, containerMemoryMB = 0) {
  const leaf = (path: string, capacityPct: number, capacityResource?: Resources): QueueView => queueView(path, capacityPct, capacityResource);
  const snapshotWith = (leaves: QueueView[], apps: AppView[], nowMs = 0) => oneNodeSnapshot(cluster, leaves, apps, nowMs);

  /** An app of `running` + `pending` containers. */
  function app(id: string, queue: string, running: number, pending: number): AppView {
    return {
      id,
      name: id,
      user: 'u',
      queue,
      state: 'RUNNING',
      priority: 0,
      submittedAtMs: 0,
      pendingContainers: pending,
      pendingContainerResource: { vcores: 1, memoryMB: containerMemoryMB },
      runningContainers: running,
      allocated: { vcores: running, memoryMB: running * containerMemoryMB },
      tags: {},
    };
  }

  return { leaf, snapshotWith, app };
}
