/**
 * What the shared mini YARN looks like between integration files: queues, node capacities,
 * running applications and what the shim holds (lease, suspended containers, a fresh ranking).
 * The global setup records it once the cluster is up; every file must leave it that way
 * (`clean-cluster.ts` checks it before and after each file).
 */
import { RmClient } from '../../src/yarn/client.js';
import type { RmQueueInfo } from '../../src/yarn/schemas.js';
import { HttpNodeShim } from '../../src/yarn/shim-client.js';

export interface ClusterState {
  /** Queue path → "capacity/maxCapacity/state". */
  readonly queues: Record<string, string>;
  /** Node id → "memoryMB/vcores" as the RM advertises it. */
  readonly nodes: Record<string, string>;
  /** Applications not yet finished: "id name state". */
  readonly liveApps: string[];
  /** The shim's live lease holder, or null. */
  readonly leaseHolder: string | null;
  /** Containers the shim holds suspended. */
  readonly suspended: string[];
  /** Whether a node ranking is in force (a stale one gives the stock order back). */
  readonly rankingFresh: boolean;
}

const LIVE_APP_STATES = ['NEW', 'NEW_SAVING', 'SUBMITTED', 'ACCEPTED', 'RUNNING'] as const;

function queueLines(q: RmQueueInfo, parent: string, out: Record<string, string>): void {
  const path = q.queuePath ?? (parent ? `${parent}.${q.queueName}` : q.queueName);
  out[path] = `${q.capacity}/${q.maxCapacity}/${q.state ?? 'RUNNING'}`;
  for (const child of q.queues?.queue ?? []) queueLines(child, path, out);
}

export async function readClusterState(rmUrl: string, shimUrl?: string, shimSecret?: string): Promise<ClusterState> {
  const client = new RmClient({ rmUrl, user: 'schedbrain', requestTimeoutMs: 10_000 });
  const [scheduler, nodes, apps] = await Promise.all([client.scheduler(), client.nodes(['RUNNING']), client.apps({ states: LIVE_APP_STATES })]);
  const queues: Record<string, string> = {};
  for (const child of scheduler.queues?.queue ?? []) queueLines(child, 'root', queues);
  let leaseHolder: string | null = null;
  let suspended: string[] = [];
  let rankingFresh = false;
  if (shimUrl) {
    const shim = new HttpNodeShim({ urls: [shimUrl], holder: 'cluster-state-reader', requestTimeoutMs: 10_000, secret: shimSecret });
    const [list, ranking] = await Promise.all([shim.listContainers(), shim.rankingState()]);
    leaseHolder = list.lease?.holder ?? null;
    suspended = list.containers
      .filter((c) => c.state === 'SUSPENDED')
      .map((c) => c.containerId)
      .sort();
    rankingFresh = ranking.fresh;
  }
  return {
    queues,
    nodes: Object.fromEntries(
      nodes
        .map((n) => [
          n.id,
          `${n.totalResource?.memory ?? n.usedMemoryMB + n.availMemoryMB}/${n.totalResource?.vCores ?? n.usedVirtualCores + n.availableVirtualCores}`,
        ])
        .sort(),
    ),
    liveApps: apps.map((a) => `${a.id} ${a.name} ${a.state}`).sort(),
    leaseHolder,
    suspended,
    rankingFresh,
  };
}

/** How `now` differs from `baseline`, one line each; empty when the cluster is as it was. */
export function clusterDifferences(baseline: ClusterState, now: ClusterState): string[] {
  const out: string[] = [];
  const keys = new Set([...Object.keys(baseline.queues), ...Object.keys(now.queues)]);
  for (const q of [...keys].sort()) {
    if (baseline.queues[q] !== now.queues[q]) out.push(`queue ${q}: ${baseline.queues[q] ?? 'absent'} -> ${now.queues[q] ?? 'absent'}`);
  }
  const nodeIds = new Set([...Object.keys(baseline.nodes), ...Object.keys(now.nodes)]);
  for (const n of [...nodeIds].sort()) {
    if (baseline.nodes[n] !== now.nodes[n]) out.push(`node ${n}: ${baseline.nodes[n] ?? 'absent'} -> ${now.nodes[n] ?? 'absent'} (MB/vcores)`);
  }
  const before = new Set(baseline.liveApps.map((a) => a.split(' ')[0]));
  for (const a of now.liveApps) if (!before.has(a.split(' ')[0])) out.push(`application still running: ${a}`);
  if (now.leaseHolder !== null) out.push(`shim lease held by ${now.leaseHolder}`);
  for (const c of now.suspended) out.push(`container suspended: ${c}`);
  if (now.rankingFresh) out.push('a node ranking is still in force');
  return out;
}
