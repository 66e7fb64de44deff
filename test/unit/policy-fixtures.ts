/**
 * Snapshot builders shared by the policy unit tests: small hand-checked clusters built with the
 * core model, consistent as the RM reports them.
 */
import type { Action, Decision } from '../../src/core/actions.js';
import type { AppView, ClusterSnapshot, ContainerView, NodeView } from '../../src/core/model.js';
import { buildSnapshot, defaultQueueTree } from '../../src/core/snapshot.js';
import { res, type Resources } from '../../src/core/resources.js';

export const S = 1000;

export interface C {
  id: string;
  node: string;
  app?: string;
  state?: 'RUNNING' | 'SUSPENDED';
  /** Attained service, ms; `null` leaves it undefined (no shim). */
  attained?: number | null;
  startedAt?: number;
  runningSince?: number;
  vcores?: number;
}

export function node(id: string, vcores = 4, memoryMB = 4 * 5120, capacity?: Resources): NodeView {
  return {
    id,
    state: 'RUNNING',
    rack: '/r',
    capacity: capacity ?? res(memoryMB, vcores),
    physicalCapacity: res(memoryMB, vcores),
    used: res(0, 0),
    containerIds: [],
  };
}

export function container(c: C): ContainerView {
  return {
    id: c.id,
    appId: c.app ?? 'app1',
    nodeId: c.node,
    resource: res(5120, c.vcores ?? 1),
    state: c.state ?? 'RUNNING',
    startedAtMs: c.startedAt ?? 0,
    attainedServiceMs: c.attained === null ? undefined : (c.attained ?? 0),
    runningSinceMs: c.runningSince,
  };
}

export function app(id: string, extra: Partial<AppView> = {}): AppView {
  return {
    id,
    name: id,
    user: 'u',
    queue: 'root.default',
    state: 'RUNNING',
    priority: 0,
    submittedAtMs: 0,
    pendingContainers: 0,
    runningContainers: 0,
    allocated: res(0, 0),
    tags: {},
    ...extra,
  };
}

/**
 * A consistent snapshot: each node's `used` and each app's `allocated` are the sums of their
 * containers (running or suspended), as the RM reports them, unless a test sets them.
 */
export function snap(nowMs: number, nodes: NodeView[], cs: C[], opts: { apps?: AppView[]; changed?: string[]; changedApps?: string[] } = {}): ClusterSnapshot {
  const containers = cs.map(container);
  const sumOf = (xs: typeof containers) => ({
    memoryMB: xs.reduce((s, c) => s + c.resource.memoryMB, 0),
    vcores: xs.reduce((s, c) => s + c.resource.vcores, 0),
  });
  const withIds = nodes.map((n) => {
    const mine = containers.filter((c) => c.nodeId === n.id);
    return { ...n, containerIds: mine.map((c) => c.id), used: n.used.vcores === 0 && n.used.memoryMB === 0 ? sumOf(mine) : n.used };
  });
  const appIds = new Set(containers.map((c) => c.appId));
  const apps = (opts.apps ?? [...appIds].map((a) => app(a))).map((a) =>
    a.allocated.vcores === 0 && a.allocated.memoryMB === 0 ? { ...a, allocated: sumOf(containers.filter((c) => c.appId === a.id)) } : a,
  );
  const s = buildSnapshot({ nowMs, nodes: withIds, apps, containers, rootQueue: defaultQueueTree() });
  return {
    ...s,
    ...(opts.changed ? { changedNodeIds: new Set(opts.changed) } : {}),
    ...(opts.changedApps ? { changedAppIds: new Set(opts.changedApps) } : {}),
  };
}

export const kinds = (ds: Decision[], kind: Action['kind']): Decision[] => ds.filter((d) => d.action.kind === kind);
export const targets = (ds: Decision[], kind: 'suspendContainer' | 'resumeContainer'): string[] =>
  kinds(ds, kind)
    .map((d) => (d.action as { containerId: string }).containerId)
    .sort();

/**
 * The snapshot with `nodes`, `containers` and `apps` wrapped: every node, container or
 * application looked up is recorded, and enumerating any of the maps (a scan over the cluster)
 * throws.
 */
export function guarded(s: ClusterSnapshot): { snapshot: ClusterSnapshot; nodes: Set<string>; containers: Set<string>; apps: Set<string> } {
  const nodes = new Set<string>();
  const containers = new Set<string>();
  const apps = new Set<string>();
  const wrap = <V>(m: ReadonlyMap<string, V>, seen: Set<string>): ReadonlyMap<string, V> => {
    const scan = (): never => {
      throw new Error('scanned every entry');
    };
    return {
      get: (k: string) => (seen.add(k), m.get(k)),
      has: (k: string) => (seen.add(k), m.has(k)),
      get size() {
        return m.size;
      },
      keys: scan,
      values: scan,
      entries: scan,
      forEach: scan,
      [Symbol.iterator]: scan,
    } as unknown as ReadonlyMap<string, V>;
  };
  return {
    snapshot: {
      ...s,
      nodes: wrap(s.nodes, nodes),
      containers: wrap(s.containers, containers),
      apps: wrap(s.apps, apps),
      changedNodeIds: s.changedNodeIds,
      changedAppIds: s.changedAppIds,
    },
    nodes,
    containers,
    apps,
  };
}
