/**
 * One real YARN cluster for all integration test files: starts the embedded MiniYARNCluster
 * (src/yarn/minicluster.ts), provides rmUrl / confDir / miniNodes, and stops it at the end.
 *
 * To run against an already running cluster instead, set SCHEDBRAIN_IT_RM_URL (and
 * SCHEDBRAIN_IT_CONF_DIR, the directory with its client yarn-site.xml, for tests that submit jobs;
 * SCHEDBRAIN_IT_SHIM_URL and SCHEDBRAIN_IT_SHIM_SECRET_FILE for the shim).
 * SCHEDBRAIN_IT_NODES / SCHEDBRAIN_IT_NM_MEMORY_MB / SCHEDBRAIN_IT_NM_VCORES size the embedded one.
 */
import { readFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startMiniCluster } from '../../src/yarn/minicluster.js';
import { readClusterState } from './cluster-state.js';

function intEnv(name: string, dflt: number): number {
  const v = process.env[name];
  return v ? Number.parseInt(v, 10) : dflt;
}

async function nodesOf(rmUrl: string): Promise<{ nodeId: string; httpAddress: string }[]> {
  const res = await fetch(`${rmUrl}/ws/v1/cluster/nodes?states=RUNNING`, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`GET ${rmUrl}/ws/v1/cluster/nodes answered ${res.status}`);
  const body = (await res.json()) as { nodes?: { node?: unknown } };
  const list = body.nodes?.node === undefined ? [] : [body.nodes.node].flat();
  return (list as { id: string; nodeHTTPAddress: string }[]).map((n) => ({ nodeId: n.id, httpAddress: n.nodeHTTPAddress }));
}

export default async function setup(project: TestProject) {
  const external = process.env.SCHEDBRAIN_IT_RM_URL;
  if (external) {
    const rmUrl = external.replace(/\/+$/, '');
    project.provide('rmUrl', rmUrl);
    project.provide('confDir', process.env.SCHEDBRAIN_IT_CONF_DIR ?? '');
    project.provide('miniNodes', await nodesOf(rmUrl));
    project.provide('shimUrl', process.env.SCHEDBRAIN_IT_SHIM_URL ?? '');
    const secret = process.env.SCHEDBRAIN_IT_SHIM_SECRET_FILE ? readFileSync(process.env.SCHEDBRAIN_IT_SHIM_SECRET_FILE, 'utf8').trim() : '';
    project.provide('shimSecret', secret);
    project.provide('clusterBaseline', await readClusterState(rmUrl, process.env.SCHEDBRAIN_IT_SHIM_URL || undefined, secret || undefined));
    return;
  }
  const cluster = await startMiniCluster({
    nodes: intEnv('SCHEDBRAIN_IT_NODES', 2),
    nmMemoryMB: intEnv('SCHEDBRAIN_IT_NM_MEMORY_MB', 4096),
    nmVcores: intEnv('SCHEDBRAIN_IT_NM_VCORES', 4),
    startTimeoutMs: 180_000,
  });
  project.provide('rmUrl', cluster.rmUrl);
  project.provide('confDir', cluster.confDir);
  project.provide('miniNodes', cluster.nodes);
  project.provide('shimUrl', cluster.shimUrl ?? '');
  project.provide('shimSecret', cluster.shimSecret ?? '');
  project.provide('clusterBaseline', await readClusterState(cluster.rmUrl, cluster.shimUrl || undefined, cluster.shimSecret));
  return async () => {
    await cluster.stop();
  };
}
