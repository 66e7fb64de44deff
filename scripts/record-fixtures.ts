/**
 * Records raw ResourceManager REST responses from a real (embedded) YARN cluster into
 * test/fixtures/rm/. Bodies are written byte for byte as the RM sent them; manifest.json says
 * which request produced each file.
 *
 *   npx tsx scripts/record-fixtures.ts [--out test/fixtures/rm] [--overwrite]
 *
 * Unit tests refer to ids in the existing recordings, so by default only missing files are
 * written (the requests still all run: later ones depend on earlier ones); --overwrite re-records
 * everything. manifest.json keeps, per file, the run (recordedAt) it comes from.
 *
 * Set SCHEDBRAIN_IT_RM_URL + SCHEDBRAIN_IT_CONF_DIR to record from an already running cluster.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { repoRoot } from '../src/yarn/adapter-build.js';
import { startMiniCluster, type MiniCluster } from '../src/yarn/minicluster.js';
import { submitJob } from '../src/yarn/workload.js';

const { values: args } = parseArgs({ args: process.argv.slice(2), options: { out: { type: 'string' }, overwrite: { type: 'boolean', default: false } } });
const outDir = resolve(args.out ?? join(repoRoot, 'test', 'fixtures', 'rm'));
const USER = 'schedbrain';
const overwrite = args.overwrite;
const runAt = new Date().toISOString();

interface Entry {
  file: string;
  method: string;
  path: string;
  requestBody?: unknown;
  status: number;
  contentType: string | null;
  location?: string;
  note?: string;
  /** Start of the recording run the file comes from. */
  recordedAt?: string;
  hadoopVersion?: string;
}
const manifest: Entry[] = [];

async function call(
  rmUrl: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string; contentType: string | null; location: string | null }> {
  const res = await fetch(rmUrl + path, {
    method,
    headers: { Accept: 'application/json', ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return {
    status: res.status,
    text: await res.text(),
    contentType: res.headers.get('content-type'),
    location: res.headers.get('location'),
  };
}

async function record(rmUrl: string, file: string, method: string, path: string, body?: unknown, note?: string) {
  const r = await call(rmUrl, method, path, body);
  const target = join(outDir, file);
  if (!overwrite && existsSync(target)) {
    console.error(`${r.status} ${method} ${path} (kept existing ${file})`);
    return r;
  }
  writeFileSync(target, r.text);
  manifest.push({
    recordedAt: runAt,
    hadoopVersion,
    file,
    method,
    path,
    requestBody: body,
    status: r.status,
    contentType: r.contentType,
    ...(r.location ? { location: r.location } : {}),
    note,
  });
  console.error(`${r.status} ${method} ${path} -> ${file}`);
  return r;
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function json(rmUrl: string, path: string): Promise<any> {
  const r = await call(rmUrl, 'GET', path);
  return JSON.parse(r.text);
}

let hadoopVersion = 'unknown';

async function main() {
  mkdirSync(outDir, { recursive: true });
  let cluster: MiniCluster | undefined;
  let rmUrl = process.env.SCHEDBRAIN_IT_RM_URL;
  let confDir = process.env.SCHEDBRAIN_IT_CONF_DIR;
  if (!rmUrl || !confDir) {
    cluster = await startMiniCluster({ nodes: 2, nmMemoryMB: 4096, nmVcores: 4 });
    rmUrl = cluster.rmUrl;
    confDir = cluster.confDir;
    console.error(`mini cluster up at ${rmUrl}`);
  }
  const ws = '/ws/v1/cluster';
  hadoopVersion = (await json(rmUrl, `${ws}/info`)).clusterInfo.hadoopVersion;
  try {
    // Before any app.
    await record(rmUrl, 'apps-empty.json', 'GET', `${ws}/apps`, undefined, 'no application submitted yet');
    await record(rmUrl, 'nodes-empty.json', 'GET', `${ws}/nodes?states=DECOMMISSIONED`, undefined, 'filter matching no node');
    await record(rmUrl, 'scheduler-idle.json', 'GET', `${ws}/scheduler`, undefined, 'one queue root.default, nothing running');

    // One running job: AM + 2 sleep tasks.
    const job = await submitJob(confDir, {
      name: 'fixture-sleep',
      containers: 2,
      memoryMB: 512,
      vcores: 1,
      priority: 2,
      tags: { 'schedbrain.estimate-ms': '120000', 'schedbrain.class': 'long' },
      command: { kind: 'sleep', seconds: 180 },
    });
    const appId = job.appId;
    let singleRecorded = false;
    const attemptId: string = await waitFor('attempt with 3 running containers', async () => {
      const atts = await json(rmUrl!, `${ws}/apps/${appId}/appattempts`);
      const att = atts?.appAttempts?.appAttempt?.[0]?.appAttemptId;
      if (!att) return undefined;
      const path = `${ws}/apps/${appId}/appattempts/${att}/containers`;
      const cs = await json(rmUrl!, path);
      // Jersey's JSON: a one-element list comes out as a bare object, not an array.
      const list: any[] = cs?.container === undefined ? [] : [cs.container].flat();
      if (list.length === 1 && !Array.isArray(cs.container) && !singleRecorded) {
        singleRecorded = true;
        await record(rmUrl!, 'containers-single.json', 'GET', path, undefined, 'only the AM container: "container" is an object, not an array');
      }
      const running = list.filter((c: any) => c.containerState === 'RUNNING');
      return running.length >= 3 ? att : undefined;
    });

    await record(rmUrl, 'info.json', 'GET', `${ws}/info`);
    await record(rmUrl, 'metrics.json', 'GET', `${ws}/metrics`);
    const nodes = await record(rmUrl, 'nodes.json', 'GET', `${ws}/nodes`);
    const nodeId: string = JSON.parse(nodes.text).nodes.node[0].id;
    await record(rmUrl, 'nodes-running.json', 'GET', `${ws}/nodes?states=RUNNING`);
    await record(rmUrl, 'node.json', 'GET', `${ws}/nodes/${nodeId}`);
    await record(rmUrl, 'scheduler.json', 'GET', `${ws}/scheduler`, undefined, 'one app running in root.default');
    await record(rmUrl, 'apps.json', 'GET', `${ws}/apps`);
    await record(rmUrl, 'apps-running.json', 'GET', `${ws}/apps?states=RUNNING`);
    await record(rmUrl, 'app.json', 'GET', `${ws}/apps/${appId}`);
    await record(rmUrl, 'appattempts.json', 'GET', `${ws}/apps/${appId}/appattempts`);
    await record(rmUrl, 'containers.json', 'GET', `${ws}/apps/${appId}/appattempts/${attemptId}/containers`);
    await record(rmUrl, 'app-priority.json', 'GET', `${ws}/apps/${appId}/priority`);
    await record(rmUrl, 'app-queue.json', 'GET', `${ws}/apps/${appId}/queue`);
    await record(rmUrl, 'app-state.json', 'GET', `${ws}/apps/${appId}/state`);
    await record(rmUrl, 'scheduler-conf.json', 'GET', `${ws}/scheduler-conf?user.name=${USER}`);

    // Errors.
    await record(rmUrl, 'error-404-app-not-found.json', 'GET', `${ws}/apps/application_1_0001`);
    await record(rmUrl, 'error-400-bad-app-id.json', 'GET', `${ws}/apps/not-an-app-id`);
    await record(rmUrl, 'error-401-no-user.json', 'GET', `${ws}/scheduler-conf`, undefined, 'write/conf endpoints need ?user.name=');
    await record(rmUrl, 'error-401-put-priority-no-user.json', 'PUT', `${ws}/apps/${appId}/priority`, { priority: 5 });

    // Writes (the typed client's shapes).
    await record(rmUrl, 'put-app-priority.json', 'PUT', `${ws}/apps/${appId}/priority?user.name=${USER}`, { priority: 5 });
    await record(
      rmUrl,
      'put-scheduler-conf-ok.txt',
      'PUT',
      `${ws}/scheduler-conf?user.name=${USER}`,
      {
        'update-queue': [{ 'queue-name': 'root.default', params: { entry: [{ key: 'capacity', value: '60' }] } }],
        'add-queue': [
          {
            'queue-name': 'root.batch',
            params: {
              entry: [
                { key: 'capacity', value: '40' },
                { key: 'maximum-capacity', value: '100' },
              ],
            },
          },
        ],
      },
      'body is plain text although the content type says JSON',
    );
    await record(
      rmUrl,
      'error-400-put-scheduler-conf-bad.json',
      'PUT',
      `${ws}/scheduler-conf?user.name=${USER}`,
      {
        'update-queue': [{ 'queue-name': 'root.default', params: { entry: [{ key: 'capacity', value: '90' }] } }],
      },
      'capacities of root children would sum to 130',
    );
    await record(rmUrl, 'put-app-queue.json', 'PUT', `${ws}/apps/${appId}/queue?user.name=${USER}`, { queue: 'batch' });
    await record(rmUrl, 'scheduler-two-queues.json', 'GET', `${ws}/scheduler`, undefined, 'root.default 60 %, root.batch 40 % with the app');
    await record(rmUrl, 'scheduler-conf-two-queues.json', 'GET', `${ws}/scheduler-conf?user.name=${USER}`);
    await record(rmUrl, 'post-node-resource.json', 'POST', `${ws}/nodes/${nodeId}/resource?user.name=${USER}`, {
      resource: { memory: 6144, vCores: 6 },
      overCommitTimeout: -1,
    });
    await record(rmUrl, 'node-overcommitted.json', 'GET', `${ws}/nodes/${nodeId}`, undefined, 'after POST resource 6144 MB / 6 vcores');
    await record(
      rmUrl,
      'put-app-state-kill-202.json',
      'PUT',
      `${ws}/apps/${appId}/state?user.name=${USER}`,
      { state: 'KILLED' },
      '202 Accepted + Location while the kill is in progress',
    );
    await waitFor('app killed', async () => {
      const s = await json(rmUrl!, `${ws}/apps/${appId}/state`);
      return s.state === 'KILLED' ? true : undefined;
    });
    await record(rmUrl, 'app-killed.json', 'GET', `${ws}/apps/${appId}`);
    await record(rmUrl, 'metrics-after-kill.json', 'GET', `${ws}/metrics`);

    // Removing a queue: stop it first, then remove it and give its capacity back in one change.
    await record(rmUrl, 'put-scheduler-conf-stop-queue.txt', 'PUT', `${ws}/scheduler-conf?user.name=${USER}`, {
      'update-queue': [{ 'queue-name': 'root.batch', params: { entry: [{ key: 'state', value: 'STOPPED' }] } }],
    });
    await record(rmUrl, 'scheduler-stopped-queue.json', 'GET', `${ws}/scheduler`, undefined, 'root.batch STOPPED');
    await record(rmUrl, 'put-scheduler-conf-remove-queue.txt', 'PUT', `${ws}/scheduler-conf?user.name=${USER}`, {
      'remove-queue': 'root.batch',
      'update-queue': [{ 'queue-name': 'root.default', params: { entry: [{ key: 'capacity', value: '100' }] } }],
    });
    await record(rmUrl, 'scheduler-conf-after-remove.json', 'GET', `${ws}/scheduler-conf?user.name=${USER}`);
  } finally {
    await cluster?.stop();
  }

  // A cluster with the stock read-only (file) scheduler configuration store.
  if (cluster) {
    const ro = await startMiniCluster({ nodes: 1, confStore: 'file' });
    try {
      await record(
        ro.rmUrl,
        'error-400-scheduler-conf-get-file-store.txt',
        'GET',
        `${ws}/scheduler-conf?user.name=${USER}`,
        undefined,
        'yarn.scheduler.configuration.store.class=file',
      );
      await record(
        ro.rmUrl,
        'error-400-put-scheduler-conf-file-store.txt',
        'PUT',
        `${ws}/scheduler-conf?user.name=${USER}`,
        {
          'update-queue': [{ 'queue-name': 'root.default', params: { entry: [{ key: 'maximum-capacity', value: '90' }] } }],
        },
        'yarn.scheduler.configuration.store.class=file',
      );
    } finally {
      await ro.stop();
    }
  }

  // Merge: entries of files this run did not write stay as they were.
  const manifestFile = join(outDir, 'manifest.json');
  let kept: Entry[] = [];
  if (!overwrite && existsSync(manifestFile)) {
    const old = JSON.parse(readFileSync(manifestFile, 'utf8')) as { recordedAt?: string; hadoopVersion?: string; entries: Entry[] };
    const written = new Set(manifest.map((e) => e.file));
    kept = old.entries.filter((e) => !written.has(e.file)).map((e) => ({ recordedAt: old.recordedAt, hadoopVersion: old.hadoopVersion, ...e }));
  }
  writeFileSync(manifestFile, JSON.stringify({ entries: [...kept, ...manifest] }, null, 2) + '\n');
  console.error(`wrote ${manifest.length} recordings to ${outDir} (${kept.length} kept)`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
