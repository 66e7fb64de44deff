/**
 * A synthetic ResourceManager for benchmarks: an HTTP server on loopback answering the RM REST
 * reads the YARN backend makes, with bodies shaped like the Hadoop 3.4.1 recordings in
 * test/fixtures/rm (each node, app, attempt and container is the recorded object with its ids and
 * figures replaced, so every field a real RM sends is there, unused ones included). Scales to
 * 10,000 nodes, 10,000 running apps and 200,000 containers; `step()` changes a fraction of it the
 * way a busy cluster does between two polls (containers end and start, counters of every running
 * app move, node heartbeats tick).
 *
 * It also stands in for the NodeManager shims (yarn-adapter/…/shim/ShimServer.java): one per
 * node, each at its own base URL `<url>/shim/<node index>` on the same server (`shimUrls()`),
 * serving `GET /v1/health` and `GET /v1/containers` (contract 5: `?allocation=true` adds each
 * container's allocation) with the very containers the RM reads show. Their requests are
 * counted apart from the RM's.
 *
 *   npx tsx bench/synthetic-rm.ts --nodes 1000 --apps 1000 --containers 20000   # serves, prints its URL
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const FIXTURES = fileURLToPath(new URL('../test/fixtures/rm/', import.meta.url));
type Json = any;
const fixture = (name: string): Json => JSON.parse(readFileSync(FIXTURES + name, 'utf8'));

export interface SyntheticRmOptions {
  readonly nodes: number;
  /** Running applications. */
  readonly apps: number;
  /** Live containers across all apps (each app has at least its AM). */
  readonly containers: number;
  /** Applications that ended lately (served to `states=FINISHED,…` reads). */
  readonly finishedApps?: number;
  /** One app holding this many containers on top of the others (the quadratic-grouping case). */
  readonly bigApp?: number;
  /** Cluster timestamp in every id. */
  readonly clusterTs?: number;
  /** The contract the synthetic shims speak: 4 ignores `?allocation=true` (default 5). */
  readonly shimContract?: 4 | 5;
}

interface Container {
  readonly seq: number;
  readonly node: number;
  readonly memoryMB: number;
  readonly vcores: number;
  readonly startedMs: number;
}

interface App {
  readonly index: number;
  readonly id: string;
  readonly queue: string;
  readonly submittedMs: number;
  state: 'RUNNING' | 'ACCEPTED' | 'FINISHED';
  finishedMs: number;
  priority: number;
  containers: Container[];
  nextSeq: number;
  pending: number;
  /** Body of its containers read, until the app changes. */
  containersBody?: string;
}

const NODE_MEMORY_MB = 65_536;
const NODE_VCORES = 32;
const CONTAINER_MB = 1024;
const AM_MB = 512;

/** Deterministic (seeded) so two runs serve the same cluster. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class SyntheticRm {
  readonly clusterTs: number;
  private readonly nodeTemplate: Json = fixture('nodes.json').nodes.node[0];
  private readonly appTemplate: Json = fixture('apps-running.json').apps.app[0];
  private readonly attemptTemplate: Json = fixture('appattempts.json').appAttempts.appAttempt[0];
  private readonly containerTemplate: Json = fixture('containers.json').container[0];
  private readonly requestTemplate: Json = fixture('pending-apps.json').apps.app[0].resourceRequests[0];
  private readonly schedulerBody: Json = fixture('scheduler-two-queues.json');
  private readonly confBody = readFileSync(FIXTURES + 'scheduler-conf.json', 'utf8');
  private readonly apps: App[] = [];
  private readonly byId = new Map<string, App>();
  private readonly random = rng(1);
  private heartbeatMs: number;
  private confVersion = 1;
  private server?: http.Server;
  url = '';
  /** Requests and bytes served since the last `resetCounters()`. */
  requests = 0;
  bytes = 0;
  readonly byRoute = new Map<string, number>();
  /** Shim requests and bytes since the last `resetCounters()`. */
  shimRequests = 0;
  shimBytes = 0;
  /** Node indexes whose shim answers 503 (down). */
  readonly shimsDown = new Set<number>();
  /** Per node: its containers (rebuilt after a change) and its shim's list bodies. */
  private nodeIndex: Array<Array<{ app: App; c: Container }>> | undefined;
  private readonly shimBodies = new Map<string, string>();

  constructor(readonly opts: SyntheticRmOptions) {
    this.clusterTs = opts.clusterTs ?? 1_795_254_945_306;
    this.heartbeatMs = Date.now();
    const t0 = Date.now() - 3_600_000;
    const perApp = Math.max(1, Math.floor(opts.containers / Math.max(1, opts.apps)));
    let node = 0;
    const place = (): number => (node = (node + 1) % opts.nodes);
    const total = opts.apps + (opts.bigApp ? 1 : 0);
    for (let i = 0; i < total + (opts.finishedApps ?? 0); i++) {
      const id = `application_${this.clusterTs}_${String(i + 1).padStart(4, '0')}`;
      const finished = i >= total;
      const app: App = {
        index: i,
        id,
        queue: i % 5 < 3 ? 'default' : 'batch',
        submittedMs: t0 + i,
        state: finished ? 'FINISHED' : 'RUNNING',
        finishedMs: finished ? Date.now() - 60_000 : 0,
        priority: i % 4,
        containers: [],
        nextSeq: 1,
        pending: i % 10 === 0 ? 2 : 0,
      };
      if (!finished) {
        const n = i === opts.apps ? opts.bigApp! : perApp;
        for (let k = 0; k < n; k++) app.containers.push(this.newContainer(app, place(), t0 + i + k, k === 0));
      }
      this.apps.push(app);
      this.byId.set(id, app);
    }
  }

  private newContainer(app: App, node: number, startedMs: number, am = false): Container {
    return { seq: app.nextSeq++, node, memoryMB: am ? AM_MB : CONTAINER_MB, vcores: 1, startedMs };
  }

  nodeId(i: number): string {
    return `node-${String(i).padStart(5, '0')}.rack-${String(i % 40).padStart(2, '0')}.example:8041`;
  }

  containerId(app: App, seq: number): string {
    // As the RM prints them: the app number as in its id (four digits at least, more past 9,999).
    return `container_${this.clusterTs}_${app.id.slice(app.id.lastIndexOf('_') + 1)}_01_${String(seq).padStart(6, '0')}`;
  }

  /**
   * One poll interval of a busy cluster: in `fraction` of the running apps one container ends
   * and another starts on a node picked at random (half of them with a different size, so the
   * app's counters move; half the same size, so only the container ids tell); every running
   * app's elapsed time and resource-seconds grow, and every node heartbeats.
   */
  step(fraction: number): void {
    const running = this.apps.filter((a) => a.state === 'RUNNING');
    const n = Math.max(1, Math.round(running.length * fraction));
    const now = Date.now();
    for (let k = 0; k < n; k++) {
      const app = running[Math.floor(this.random() * running.length)]!;
      const removed = app.containers.length > 1 ? app.containers.splice(1 + Math.floor(this.random() * (app.containers.length - 1)), 1) : [];
      const node = Math.floor(this.random() * this.opts.nodes);
      const c = this.newContainer(app, node, now);
      app.containers.push(k % 2 === 0 ? { ...c, memoryMB: 2 * CONTAINER_MB } : c);
      app.containersBody = undefined;
      this.nodesChanged([node, ...removed.map((x) => x.node)]);
    }
    this.heartbeatMs = now;
  }

  /** Containers on these nodes may have changed (their shims' bodies are made again). */
  private nodesChanged(nodes: readonly number[]): void {
    this.nodeIndex = undefined;
    for (const n of nodes) {
      this.shimBodies.delete(`${n}|4`);
      this.shimBodies.delete(`${n}|5`);
    }
  }

  /** One more container for the `index`-th app (its counters move). */
  grow(index: number): void {
    const app = this.apps[index]!;
    app.containers.push(this.newContainer(app, index % this.opts.nodes, Date.now()));
    app.containersBody = undefined;
    this.nodesChanged([index % this.opts.nodes]);
  }

  /**
   * The last container of the `from`-th app ends and one of the same size of the `to`-th app
   * starts on its node: no figure of the node moves (the swap only the lists show).
   */
  swapAcrossApps(from: number, to: number): void {
    const a = this.apps[from]!;
    const b = this.apps[to]!;
    if (a.containers.length < 2) return;
    const gone = a.containers.pop()!;
    b.containers.push({ ...this.newContainer(b, gone.node, Date.now()), memoryMB: gone.memoryMB, vcores: gone.vcores });
    a.containersBody = b.containersBody = undefined;
    this.nodesChanged([gone.node]);
  }

  /** A capacity change through the scheduler configuration (bumps its version). */
  bumpConfVersion(): void {
    this.confVersion++;
  }

  resetCounters(): void {
    this.requests = 0;
    this.bytes = 0;
    this.byRoute.clear();
    this.shimRequests = 0;
    this.shimBytes = 0;
  }

  /** The node shims' base URLs, one per node (after `start()`). */
  shimUrls(): string[] {
    return Array.from({ length: this.opts.nodes }, (_, i) => `${this.url}/shim/${i}`);
  }

  // ---- bodies ----------------------------------------------------------------------------------

  /** The recorded scheduler with this cluster's totals as root's effective resources. */
  private schedulerText(): string {
    const info = this.schedulerBody.scheduler.schedulerInfo;
    const total = { memory: NODE_MEMORY_MB * this.opts.nodes, vCores: NODE_VCORES * this.opts.nodes };
    for (const p of [info.capacities?.queueCapacitiesByPartition ?? []].flat() as Json[])
      if (!p.partitionName)
        Object.assign(p, { effectiveMinResource: { ...p.effectiveMinResource, ...total }, effectiveMaxResource: { ...p.effectiveMaxResource, ...total } });
    return JSON.stringify(this.schedulerBody);
  }

  /** The recorded cluster metrics with this cluster's totals (every node RUNNING) and use. */
  private metricsBody(): string {
    let mb = 0;
    let vc = 0;
    let n = 0;
    for (const a of this.apps)
      for (const c of a.containers) {
        mb += c.memoryMB;
        vc += c.vcores;
        n++;
      }
    const m = (fixture('metrics.json') as { clusterMetrics: Json }).clusterMetrics;
    const totalMB = NODE_MEMORY_MB * this.opts.nodes;
    const totalVirtualCores = NODE_VCORES * this.opts.nodes;
    return JSON.stringify({
      clusterMetrics: {
        ...m,
        appsRunning: this.apps.length,
        allocatedMB: mb,
        availableMB: totalMB - mb,
        totalMB,
        allocatedVirtualCores: vc,
        availableVirtualCores: totalVirtualCores - vc,
        totalVirtualCores,
        containersAllocated: n,
        totalNodes: this.opts.nodes,
        activeNodes: this.opts.nodes,
      },
    });
  }

  private nodesBody(): string {
    const used = new Array<{ mb: number; vc: number; n: number }>(this.opts.nodes);
    for (let i = 0; i < this.opts.nodes; i++) used[i] = { mb: 0, vc: 0, n: 0 };
    for (const a of this.apps) {
      for (const c of a.containers) {
        const u = used[c.node]!;
        u.mb += c.memoryMB;
        u.vc += c.vcores;
        u.n++;
      }
    }
    const t = this.nodeTemplate;
    const res = (memory: number, vCores: number): Json => ({
      ...t.usedResource,
      memory,
      vCores,
      resourceInformations: {
        resourceInformation: [
          { ...t.usedResource.resourceInformations.resourceInformation[0], value: memory },
          { ...t.usedResource.resourceInformations.resourceInformation[1], value: vCores },
        ],
      },
    });
    const node: Json[] = [];
    for (let i = 0; i < this.opts.nodes; i++) {
      const u = used[i]!;
      const id = this.nodeId(i);
      node.push({
        ...t,
        rack: `/rack-${String(i % 40).padStart(2, '0')}`,
        id,
        nodeHostName: id.slice(0, id.indexOf(':')),
        lastHealthUpdate: this.heartbeatMs - (i % 1000),
        numContainers: u.n,
        usedMemoryMB: u.mb,
        availMemoryMB: NODE_MEMORY_MB - u.mb,
        usedVirtualCores: u.vc,
        availableVirtualCores: NODE_VCORES - u.vc,
        usedResource: res(u.mb, u.vc),
        availableResource: res(NODE_MEMORY_MB - u.mb, NODE_VCORES - u.vc),
        totalResource: res(NODE_MEMORY_MB, NODE_VCORES),
      });
    }
    return JSON.stringify({ nodes: { node } });
  }

  private appJson(a: App): Json {
    const t = this.appTemplate;
    const mb = a.containers.reduce((s, c) => s + c.memoryMB, 0);
    const vc = a.containers.reduce((s, c) => s + c.vcores, 0);
    const elapsed = Math.max(0, this.heartbeatMs - a.submittedMs);
    const am = this.containerId(a, 1);
    return {
      ...t,
      id: a.id,
      name: `synthetic-${a.index}`,
      queue: `root.${a.queue}`,
      state: a.state,
      finalStatus: a.state === 'FINISHED' ? 'SUCCEEDED' : 'UNDEFINED',
      trackingUrl: `http://localhost:0/proxy/${a.id}/`,
      applicationTags: a.index % 3 === 0 ? 'schedbrain.class=long,schedbrain.estimate-ms=120000' : '',
      priority: a.priority,
      startedTime: a.submittedMs,
      launchTime: a.submittedMs + 1000,
      finishedTime: a.finishedMs,
      elapsedTime: elapsed,
      amContainerLogs: `http://localhost:0/node/containerlogs/${am}/root`,
      masterNodeId: this.nodeId(a.containers[0]?.node ?? 0),
      allocatedMB: a.state === 'RUNNING' ? mb : -1,
      allocatedVCores: a.state === 'RUNNING' ? vc : -1,
      runningContainers: a.state === 'RUNNING' ? a.containers.length : -1,
      memorySeconds: Math.floor((mb * elapsed) / 1000),
      vcoreSeconds: Math.floor((vc * elapsed) / 1000),
      resourceRequests: a.pending > 0 && a.state === 'RUNNING' ? [{ ...this.requestTemplate, numContainers: a.pending }] : [],
    };
  }

  private appsBody(query: URLSearchParams): string {
    const states = new Set((query.get('states') ?? '').split(',').filter(Boolean));
    const since = query.get('finishedTimeBegin') === null ? undefined : Number(query.get('finishedTimeBegin'));
    // `deSelects` (RM 3.1+, case-insensitive) leaves fields out of each app.
    const deSelects = new Set(
      (query.get('deSelects') ?? '')
        .split(',')
        .map((f) => f.trim().toLowerCase())
        .filter(Boolean),
    );
    const app: Json[] = [];
    for (const a of this.apps) {
      if (states.size > 0 && !states.has(a.state)) continue;
      if (since !== undefined && !(a.finishedMs > 0 && a.finishedMs >= since)) continue;
      const json = this.appJson(a);
      if (deSelects.size > 0) for (const k of Object.keys(json)) if (deSelects.has(k.toLowerCase())) delete json[k];
      app.push(json);
    }
    // An empty list is `{"apps":{}}` on a real RM (recorded in apps-empty.json).
    return JSON.stringify(app.length ? { apps: { app } } : { apps: {} });
  }

  private attemptsBody(a: App): string {
    const attemptId = a.id.replace('application_', 'appattempt_') + '_000001';
    return JSON.stringify({
      appAttempts: {
        appAttempt: [
          {
            ...this.attemptTemplate,
            appAttemptId: attemptId,
            containerId: this.containerId(a, 1),
            nodeId: this.nodeId(a.containers[0]?.node ?? 0),
            startTime: a.submittedMs + 10,
          },
        ],
      },
    });
  }

  private containersBody(a: App): string {
    if (a.containersBody !== undefined) return a.containersBody;
    const t = this.containerTemplate;
    const container = a.containers.map((c) => {
      const id = this.containerId(a, c.seq);
      const node = this.nodeId(c.node);
      return {
        ...t,
        containerId: id,
        allocatedMB: String(c.memoryMB),
        allocatedVCores: String(c.vcores),
        assignedNodeId: node,
        nodeId: node,
        startedTime: String(c.startedMs),
        logUrl: `http://localhost:0/node/containerlogs/${id}/root`,
        allocatedResources: {
          entry: [
            { key: 'memory-mb', value: String(c.memoryMB) },
            { key: 'vcores', value: String(c.vcores) },
          ],
        },
      };
    });
    // Mapped JSON: a one-element list is a bare object (containers-single.json).
    a.containersBody = JSON.stringify({ container: container.length === 1 ? container[0] : container });
    return a.containersBody;
  }

  /** What node `i`'s shim lists: its running apps' containers, RUNNING, with a fixed attained service. */
  private shimContainersBody(i: number, allocation: boolean): string {
    const contract = allocation && (this.opts.shimContract ?? 5) >= 5 ? 5 : 4;
    const cached = this.shimBodies.get(`${i}|${contract}`);
    if (cached !== undefined) return cached;
    if (!this.nodeIndex) {
      const index: Array<Array<{ app: App; c: Container }>> = Array.from({ length: this.opts.nodes }, () => []);
      for (const app of this.apps) if (app.state === 'RUNNING') for (const c of app.containers) index[c.node]!.push({ app, c });
      this.nodeIndex = index;
    }
    const nodeId = this.nodeId(i);
    const containers = this.nodeIndex[i]!.map(({ app, c }) => ({
      containerId: this.containerId(app, c.seq),
      nodeId,
      state: 'RUNNING',
      attainedServiceMs: (c.seq * 997) % 60_000,
      runningSinceMs: c.startedMs,
      suspendedAtMs: null,
      pid: 1000 + c.seq,
      processes: [{ pid: 1000 + c.seq, state: 'S' }],
      ...(contract === 5 ? { allocatedMB: c.memoryMB, allocatedVCores: c.vcores, createdAtMs: c.startedMs, appMaster: c.seq === 1 } : {}),
    }));
    const body = JSON.stringify({ nowMs: Date.now(), nodes: [nodeId], lease: null, containers });
    this.shimBodies.set(`${i}|${contract}`, body);
    return body;
  }

  private shimRoute(i: number, path: string, query: URLSearchParams): { status: number; body: string } {
    if (!(i >= 0 && i < this.opts.nodes)) return { status: 404, body: JSON.stringify({ error: 'not_found', reason: `no shim ${i}` }) };
    if (this.shimsDown.has(i)) return { status: 503, body: JSON.stringify({ error: 'internal', reason: 'down' }) };
    if (path === '/v1/containers') return { status: 200, body: this.shimContainersBody(i, query.get('allocation') === 'true') };
    if (path === '/v1/health') {
      const nodeId = this.nodeId(i);
      return {
        status: 200,
        body: JSON.stringify({
          service: 'schedbrain-shim',
          contractVersion: this.opts.shimContract ?? 5,
          roles: ['nodemanager'],
          nodes: [nodeId],
          nowMs: Date.now(),
          epoch: null,
          resources: { [nodeId]: { memoryMB: NODE_MEMORY_MB, vcores: NODE_VCORES } },
        }),
      };
    }
    return { status: 404, body: JSON.stringify({ error: 'not_found', reason: `no ${path}` }) };
  }

  private route(method: string, path: string, query: URLSearchParams): { status: number; body: string; route: string } {
    const ok = (route: string, body: string) => ({ status: 200, body, route });
    if (method !== 'GET') return { status: 405, body: '{}', route: `${method} other` };
    if (path === '/nodes') return ok('/nodes', this.nodesBody());
    if (path === '/scheduler') return ok('/scheduler', this.schedulerText());
    if (path === '/scheduler-conf') return ok('/scheduler-conf', this.confBody);
    if (path === '/scheduler-conf/version') return ok('/scheduler-conf/version', JSON.stringify({ versionID: String(this.confVersion) }));
    if (path === '/info') return ok('/info', JSON.stringify(fixture('info.json')));
    if (path === '/metrics') return ok('/metrics', this.metricsBody());
    if (path === '/apps') return ok('/apps', this.appsBody(query));
    const m = /^\/apps\/([^/]+)(\/appattempts(?:\/([^/]+)\/containers)?)?$/.exec(path);
    const app = m ? this.byId.get(decodeURIComponent(m[1]!)) : undefined;
    if (m && app) {
      if (!m[2]) return ok('/apps/{id}', JSON.stringify({ app: this.appJson(app) }));
      if (!m[3]) return ok('/apps/{id}/appattempts', this.attemptsBody(app));
      return ok('/apps/{id}/appattempts/{attempt}/containers', this.containersBody(app));
    }
    return {
      status: 404,
      body: JSON.stringify({
        RemoteException: { exception: 'NotFoundException', message: `no ${path}`, javaClassName: 'org.apache.hadoop.yarn.webapp.NotFoundException' },
      }),
      route: 'not found',
    };
  }

  async start(port = 0): Promise<this> {
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const shim = /^\/shim\/(\d+)(\/.*)$/.exec(url.pathname);
      if (shim) {
        const r = req.method === 'GET' ? this.shimRoute(Number(shim[1]), shim[2]!, url.searchParams) : { status: 405, body: '{}' };
        this.shimRequests++;
        this.shimBytes += Buffer.byteLength(r.body);
        res.writeHead(r.status, { 'Content-Type': 'application/json' });
        res.end(r.body);
        return;
      }
      const path = url.pathname.replace(/^\/ws\/v1\/cluster/, '');
      if (req.method === 'POST' && path === '/_synthetic/step') {
        this.step(Number(url.searchParams.get('fraction') ?? '0.01'));
        res.end('{}');
        return;
      }
      if (req.method === 'POST' && path === '/_synthetic/counters') {
        const body = JSON.stringify({
          requests: this.requests,
          bytes: this.bytes,
          byRoute: Object.fromEntries(this.byRoute),
          shimRequests: this.shimRequests,
          shimBytes: this.shimBytes,
        });
        this.resetCounters();
        res.end(body);
        return;
      }
      const r = this.route(req.method ?? 'GET', path, url.searchParams);
      this.requests++;
      this.bytes += Buffer.byteLength(r.body);
      this.byRoute.set(r.route, (this.byRoute.get(r.route) ?? 0) + 1);
      res.writeHead(r.status, { 'Content-Type': 'application/json;charset=utf-8' });
      res.end(r.body);
    });
    // Hundreds of reads in flight per refresh: keep connections and never time them out.
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

// Run on its own (the live-scale bench starts it as a child process, so serving costs nothing
// to the process it measures): prints the URL on the first line of stdout.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({
    options: {
      nodes: { type: 'string', default: '100' },
      apps: { type: 'string', default: '100' },
      containers: { type: 'string', default: '2000' },
      finished: { type: 'string', default: '20' },
      'big-app': { type: 'string' },
    },
  });
  const rm = new SyntheticRm({
    nodes: Number(values.nodes),
    apps: Number(values.apps),
    containers: Number(values.containers),
    finishedApps: Number(values.finished),
    bigApp: values['big-app'] === undefined ? undefined : Number(values['big-app']),
  });
  await rm.start();
  process.stdout.write(`${rm.url}\n`);
}
