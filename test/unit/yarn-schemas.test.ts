/**
 * Every recorded RM answer (test/fixtures/rm, Hadoop 3.4.1) parses through RmClient, served
 * byte for byte by a local fake RM at the path it was recorded from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RmClient } from '../../src/yarn/client.js';
import { FakeRm, fixture, fixtureText } from './yarn-fake-rm.js';

interface ManifestEntry {
  file: string;
  method: string;
  path: string;
  status: number;
}
const manifest = fixture<{ entries: ManifestEntry[] }>('manifest.json').entries;
/** Single-field app reads (`/apps/{id}/priority|queue|state`) are not used: the app itself carries them. */
const successfulGets = manifest.filter((e) => e.method === 'GET' && e.status === 200 && !/\/apps\/[^/]+\/(priority|queue|state)$/.test(e.path));

/** Which client read answers a recorded path. */
function readerFor(client: RmClient, path: string): () => Promise<unknown> {
  const p = path.replace(/^\/ws\/v1\/cluster/, '').replace(/\?.*$/, '');
  const query = new URLSearchParams(path.includes('?') ? path.slice(path.indexOf('?') + 1) : '');
  let m: RegExpMatchArray | null;
  if (p === '/info') return () => client.clusterInfo();
  if (p === '/metrics') return () => client.metrics();
  if (p === '/nodes') return () => client.nodes(query.get('states')?.split(','));
  if ((m = p.match(/^\/nodes\/([^/]+)$/))) return () => client.node(decodeURIComponent(m![1]!));
  if (p === '/scheduler') return () => client.scheduler();
  if (p === '/scheduler-conf') return () => client.schedulerConf();
  if (p === '/apps') return () => client.apps();
  if ((m = p.match(/^\/apps\/([^/]+)$/))) return () => client.app(m![1]!);
  if ((m = p.match(/^\/apps\/([^/]+)\/appattempts$/))) return () => client.appAttempts(m![1]!);
  if ((m = p.match(/^\/apps\/([^/]+)\/appattempts\/([^/]+)\/containers$/))) return () => client.attemptContainers(m![1]!, m![2]!);
  throw new Error(`no reader for ${path}`);
}

describe('recorded RM answers parse', () => {
  let rm: FakeRm;
  let client: RmClient;
  beforeAll(async () => {
    rm = await new FakeRm().start();
    client = new RmClient({ rmUrl: rm.url, user: 'schedbrain', retry: { maxAttempts: 1 } });
  });
  afterAll(() => rm.stop());

  it('the manifest lists the reads the backend depends on', () => {
    const paths = successfulGets.map((e) => e.path.replace(/\?.*$/, ''));
    for (const needed of ['/info', '/metrics', '/nodes', '/scheduler', '/apps', '/scheduler-conf']) {
      expect(paths).toContain(`/ws/v1/cluster${needed}`);
    }
    expect(paths.some((p) => p.endsWith('/appattempts'))).toBe(true);
    expect(paths.some((p) => p.endsWith('/containers'))).toBe(true);
  });

  for (const entry of successfulGets) {
    it(`${entry.file} (${entry.method} ${entry.path})`, async () => {
      const path = decodeURIComponent(entry.path.replace(/^\/ws\/v1\/cluster/, '').replace(/\?.*$/, ''));
      rm.on(`GET ${path}`, { body: fixtureText(entry.file), contentType: 'application/json;charset=utf-8' });
      const parsed = await readerFor(client, entry.path)();
      expect(parsed).toBeDefined();
    });
  }

  it('nodes: capacity fields and totalResource', async () => {
    rm.on('GET /nodes', { body: fixtureText('nodes.json') });
    const nodes = await client.nodes();
    const raw = fixture('nodes.json').nodes.node;
    expect(nodes.map((n) => n.id)).toEqual(raw.map((n: { id: string }) => n.id));
    for (const n of nodes) {
      expect(n.totalResource).toBeDefined();
      expect(n.totalResource!.memory).toBe(n.usedMemoryMB + n.availMemoryMB);
    }
  });

  it('empty collections are objects without the list key', async () => {
    rm.on('GET /apps', { body: fixtureText('apps-empty.json') });
    rm.on('GET /nodes', { body: fixtureText('nodes-empty.json') });
    expect(await client.apps()).toEqual([]);
    expect(await client.nodes()).toEqual([]);
  });

  it('containers: mapped JSON (string numbers; a single element is a bare object)', async () => {
    const many = 'GET /apps/application_1795254945306_0001/appattempts/appattempt_1795254945306_0001_000001/containers';
    rm.on(many, { body: fixtureText('containers.json') });
    const list = await client.attemptContainers('application_1795254945306_0001', 'appattempt_1795254945306_0001_000001');
    expect(list.length).toBe(fixture('containers.json').container.length);
    expect(typeof list[0]!.allocatedMB).toBe('number');
    expect(typeof list[0]!.startedTime).toBe('number');

    rm.on(many, { body: fixtureText('containers-single.json') });
    const single = await client.attemptContainers('application_1795254945306_0001', 'appattempt_1795254945306_0001_000001');
    expect(single).toHaveLength(1);
    expect(single[0]!.containerId).toBe(fixture('containers-single.json').container.containerId);

    const none = 'GET /apps/application_1795254678998_0007/appattempts/appattempt_1795254678998_0007_000001/containers';
    rm.on(none, { body: fixtureText('pending-containers-application_1795254678998_0007.json') });
    expect(await client.attemptContainers('application_1795254678998_0007', 'appattempt_1795254678998_0007_000001')).toEqual([]);
  });

  it('scheduler: nested queue tree with leaf type and float capacities', async () => {
    rm.on('GET /scheduler', { body: fixtureText('scheduler-two-queues.json') });
    const root = await client.scheduler();
    expect(root.queueName).toBe('root');
    const children = root.queues!.queue;
    expect(children.map((q) => q.queuePath).sort()).toEqual(['root.batch', 'root.default']);
    expect(children.every((q) => q.type === 'capacitySchedulerLeafQueueInfo')).toBe(true);
  });

  it('scheduler-conf: property list to a map; version as a number', async () => {
    rm.on('GET /scheduler-conf', { body: fixtureText('scheduler-conf-two-queues.json') });
    const conf = await client.schedulerConf();
    expect(conf.get('yarn.scheduler.capacity.root.queues')?.split(',').sort()).toEqual(['batch', 'default']);
    expect(rm.requests.at(-1)!.query.get('user.name')).toBe('schedbrain');
    rm.on('GET /scheduler-conf/version', { body: fixtureText('scheduler-conf-version.json') });
    expect(await client.schedulerConfVersion()).toBe(Number(fixture('scheduler-conf-version.json').versionID));
  });

  it('apps: resource requests of a pending app', async () => {
    rm.on('GET /apps', { body: fixtureText('pending-apps.json') });
    const apps = await client.apps();
    const running = apps.find((a) => a.id === 'application_1795254678998_0006')!;
    expect(running.resourceRequests?.[0]).toMatchObject({ resourceName: '*', numContainers: 2, capability: { memory: 2048, vCores: 1 } });
  });
});
