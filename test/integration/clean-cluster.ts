/**
 * Runs around every integration file (vitest `setupFiles`): the file must find the shared mini
 * YARN as the global setup recorded it, and leave it so. A file that leaves something behind
 * fails in its own afterAll, with the differences; the leftovers that can be undone from outside
 * (running applications, node capacities) are then undone, so the next file does not fail for it.
 */
import { afterAll, beforeAll, inject } from 'vitest';
import { RmClient } from '../../src/yarn/client.js';
import { clusterDifferences, readClusterState, type ClusterState } from './cluster-state.js';
import { eventually, shimSecret, shimUrl } from './helpers.js';

const rmUrl = inject('rmUrl');
const baseline = inject('clusterBaseline') as ClusterState;

async function differences(): Promise<string[]> {
  return clusterDifferences(baseline, await readClusterState(rmUrl, shimUrl(), shimSecret()));
}

/** Kills what the file left running and gives every node its recorded capacity back. */
async function undoLeftovers(): Promise<void> {
  const client = new RmClient({ rmUrl, user: 'schedbrain', requestTimeoutMs: 10_000 });
  const now = await readClusterState(rmUrl, shimUrl(), shimSecret());
  const before = new Set(baseline.liveApps.map((a) => a.split(' ')[0]));
  for (const a of now.liveApps) {
    const id = a.split(' ')[0]!;
    if (!before.has(id)) await client.killApp(id).catch(() => undefined);
  }
  for (const [id, cap] of Object.entries(baseline.nodes)) {
    if (now.nodes[id] !== cap) {
      const [memoryMB, vcores] = cap.split('/').map(Number) as [number, number];
      await client.setNodeResource(id, { memoryMB, vcores }, -1).catch(() => undefined);
    }
  }
}

beforeAll(async () => {
  const diff = await differences();
  if (diff.length > 0) throw new Error(`the cluster is not as the global setup left it (an earlier file leaked):\n  ${diff.join('\n  ')}`);
});

afterAll(async () => {
  // Killed applications and a released lease take a few seconds to show.
  let last: string[] = [];
  try {
    await eventually('the cluster as this file found it', async () => ((last = await differences()).length === 0 ? true : undefined), 60_000, 500);
  } catch {
    await undoLeftovers();
    throw new Error(`this file left the cluster changed:\n  ${last.join('\n  ')}`);
  }
});
