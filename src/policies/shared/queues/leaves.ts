/**
 * Queue-level views of a snapshot shared by the queue-share policies (BoPF, N-BoPF, DRF, SP):
 * which leaves sit under the managed parent, and what each one holds and could use right now.
 */
import { findQueue, isActiveApp, type ClusterSnapshot, type QueueView } from '../../../core/model.js';
import type { Resources } from '../../../core/resources.js';

export interface LeafLoad {
  readonly path: string;
  readonly name: string;
  /** Resources held by the queue's containers. */
  readonly used: Resources;
  /** Held plus pending (pending containers × their size): what it could use now. */
  readonly demand: Resources;
  readonly activeApps: number;
}

/** Leaves directly under `parentPath` (the queues whose capacities a policy sets). */
export function managedLeaves(snapshot: ClusterSnapshot, parentPath: string): QueueView[] {
  const parent = findQueue(snapshot.rootQueue, parentPath);
  return parent ? parent.children.filter((c) => c.children.length === 0) : [];
}

/**
 * Load per leaf path. An app's queue is matched by full path or by leaf name (YARN reports either).
 * `paths` lists the leaves of interest, including ones not created yet (zero load).
 */
export function leafLoads(snapshot: ClusterSnapshot, paths: readonly string[]): Map<string, LeafLoad> {
  const byKey = new Map<string, { path: string; name: string; um: number; uv: number; dm: number; dv: number; n: number }>();
  for (const path of paths) {
    const name = path.slice(path.lastIndexOf('.') + 1);
    const acc = { path, name, um: 0, uv: 0, dm: 0, dv: 0, n: 0 };
    byKey.set(path, acc);
    if (!byKey.has(name)) byKey.set(name, acc);
  }
  for (const app of snapshot.apps.values()) {
    if (!isActiveApp(app)) continue;
    const acc = byKey.get(app.queue);
    if (!acc) continue;
    acc.n++;
    acc.um += app.allocated.memoryMB;
    acc.uv += app.allocated.vcores;
    acc.dm += app.allocated.memoryMB;
    acc.dv += app.allocated.vcores;
    if (app.pendingContainers > 0 && app.pendingContainerResource) {
      acc.dm += app.pendingContainers * app.pendingContainerResource.memoryMB;
      acc.dv += app.pendingContainers * app.pendingContainerResource.vcores;
    }
  }
  const out = new Map<string, LeafLoad>();
  for (const path of paths) {
    const a = byKey.get(path)!;
    out.set(path, {
      path,
      name: a.name,
      used: { memoryMB: a.um, vcores: a.uv },
      demand: { memoryMB: a.dm, vcores: a.dv },
      activeApps: a.n,
    });
  }
  return out;
}

export function childPath(parentPath: string, name: string): string {
  return `${parentPath}.${name}`;
}
