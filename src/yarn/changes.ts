/**
 * What changed between the YARN backend's refreshes, kept so that a snapshot can say what changed
 * since any earlier snapshot its caller still builds on (`SnapshotOptions.changesSince`): each id
 * carries the number of the last refresh that saw it change, arrive or leave. Semantics as the
 * simulator's (src/core/model.ts): a node changed when its state, rack or capacities changed, a
 * container started or ended on it, or one of its containers changed state or size (this
 * policy's own suspends included: Kairos drops those it planned); an application changed in any
 * field of its view.
 */
import type { AppView, ContainerView, NodeView } from '../core/model.js';

export class ChangeLog {
  /** Number of the latest refresh (the snapshot's `changeMark`). */
  mark = 0;
  private readonly nodes = new Map<string, number>();
  private readonly apps = new Map<string, number>();
  /** Marks below this are no longer answerable (entries of ids gone long ago were dropped). */
  private forgottenBefore = 1;

  /** Starts a refresh; returns its mark. */
  next(): number {
    return ++this.mark;
  }

  nodeChanged(id: string): void {
    this.nodes.set(id, this.mark);
  }

  appChanged(id: string): void {
    this.apps.set(id, this.mark);
  }

  /** Ids changed after `since`, or undefined when `since` is unknown or forgotten. */
  since(since: number | undefined): { nodes: Set<string>; apps: Set<string> } | undefined {
    if (since === undefined || since < this.forgottenBefore || since > this.mark) return undefined;
    const pick = (m: Map<string, number>): Set<string> => {
      const out = new Set<string>();
      for (const [id, at] of m) if (at > since) out.add(id);
      return out;
    };
    return { nodes: pick(this.nodes), apps: pick(this.apps) };
  }

  /**
   * Drops the entries of ids no longer in the cluster once they outnumber the live ones (a
   * cluster whose apps come and go would otherwise keep every id it ever saw); marks before
   * this refresh can no longer be answered, so the next caller gets a full pass.
   */
  compact(liveNodes: ReadonlyMap<string, unknown>, liveApps: ReadonlyMap<string, unknown>): void {
    if (this.nodes.size + this.apps.size <= 2 * (liveNodes.size + liveApps.size) + 1024) return;
    for (const id of this.nodes.keys()) if (!liveNodes.has(id)) this.nodes.delete(id);
    for (const id of this.apps.keys()) if (!liveApps.has(id)) this.apps.delete(id);
    this.forgottenBefore = this.mark;
  }
}

const sameResources = (a: { memoryMB: number; vcores: number }, b: { memoryMB: number; vcores: number }): boolean =>
  a.memoryMB === b.memoryMB && a.vcores === b.vcores;

/** The container facts a node's change covers (attained service and running-since are not). */
export function sameContainer(a: ContainerView, b: ContainerView): boolean {
  return (
    a.appId === b.appId &&
    a.nodeId === b.nodeId &&
    a.state === b.state &&
    a.appMaster === b.appMaster &&
    a.startedAtMs === b.startedAtMs &&
    sameResources(a.resource, b.resource)
  );
}

/** Node facts other than its containers (`used` follows the containers and is not compared). */
export function sameNode(a: NodeView, b: NodeView): boolean {
  if (a.state !== b.state || a.rack !== b.rack || !sameResources(a.capacity, b.capacity) || !sameResources(a.physicalCapacity, b.physicalCapacity))
    return false;
  const x = a.containerIds;
  const y = b.containerIds;
  if (x === y) return true;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

export function sameApp(a: AppView, b: AppView): boolean {
  if (
    a.name !== b.name ||
    a.user !== b.user ||
    a.queue !== b.queue ||
    a.state !== b.state ||
    a.priority !== b.priority ||
    a.submittedAtMs !== b.submittedAtMs ||
    a.startedAtMs !== b.startedAtMs ||
    a.pendingContainers !== b.pendingContainers ||
    a.runningContainers !== b.runningContainers ||
    !sameResources(a.allocated, b.allocated)
  ) {
    return false;
  }
  const p = a.pendingContainerResource;
  const q = b.pendingContainerResource;
  if (p === undefined || q === undefined ? p !== q : !sameResources(p, q)) return false;
  const ka = Object.keys(a.tags);
  if (ka.length !== Object.keys(b.tags).length) return false;
  for (const k of ka) if (a.tags[k] !== b.tags[k]) return false;
  return true;
}
