/**
 * HTTP client for the Java shim (yarn-adapter/…/shim/ShimServer.java). The wire format is
 * yarn-adapter/src/main/resources/schedbrain-shim-contract.json; the zod schemas below mirror
 * its `$defs` one to one and test/unit/shim-contract.test.ts fails if they drift apart.
 *
 * Topology: one shim per NodeManager JVM (it serves the containers of the node(s) in that JVM)
 * and one in the ResourceManager JVM (it takes the node ranking). A MiniYARNCluster runs
 * everything in one JVM, so one URL serves both roles.
 *
 * Errors (src/core/errors.ts): unreachable / timeout / 5xx → RmUnavailableError (retried first);
 * a refusal (4xx, `{error, reason}`) → ShimRejectedError (an RmRejectedError with the shim's
 * error code); a 2xx body that does not match the contract → RmProtocolError.
 */
import http from 'node:http';
import https from 'node:https';
import { hostname } from 'node:os';
import axios, { type AxiosAdapter, type AxiosInstance, type Method } from 'axios';
import type { Logger } from 'pino';
import { z } from 'zod';
import { RmProtocolError, RmRejectedError, RmUnavailableError } from '../core/errors.js';
import { DEFAULT_RETRY_POLICY, withRetry, type RetryPolicy } from './retry.js';
import type { Resources } from '../core/resources.js';
import type { NodeShim, NodeShimListing, RankingPublication, ShimContainer } from './shim-contract.js';

// ---- wire schemas (one per `$defs` entry of schedbrain-shim-contract.json) -------------------

const epochMs = z.number().int().min(0);
const ttlMs = z.number().int().min(1).max(3_600_000);

export const shimErrorCodes = [
  'bad_request',
  'unauthorized',
  'unknown_container',
  'wrong_node',
  'no_lease',
  'lease_held',
  'not_running',
  'stale_epoch',
  'not_found',
  'method_not_allowed',
  'internal',
] as const;
export type ShimErrorCode = (typeof shimErrorCodes)[number];

export const wireError = z.object({ error: z.enum(shimErrorCodes), reason: z.string() }).strict();

export const wireHealth = z
  .object({
    service: z.literal('schedbrain-shim'),
    contractVersion: z.number().int().min(1),
    roles: z.array(z.enum(['nodemanager', 'resourcemanager'])),
    nodes: z.array(z.string()),
    nowMs: epochMs,
    epoch: z.number().int().min(1).nullable(),
    resources: z.record(z.string(), z.object({ memoryMB: z.number().int().min(0), vcores: z.number().int().min(0) }).strict()),
  })
  .strict();

export const wireProcess = z.object({ pid: z.number().int().min(1), state: z.string().min(1).max(1) }).strict();

export const wireContainer = z
  .object({
    containerId: z.string().min(1),
    nodeId: z.string().min(1),
    state: z.enum(['RUNNING', 'SUSPENDED']),
    attainedServiceMs: z.number().int().min(0),
    runningSinceMs: epochMs,
    suspendedAtMs: epochMs.nullable(),
    pid: z.number().int().min(1),
    processes: z.array(wireProcess),
    // Contract 5, only with `?allocation=true`: what the RM allocated, as the NodeManager holds it.
    allocatedMB: z.number().int().min(0).optional(),
    allocatedVCores: z.number().int().min(0).optional(),
    createdAtMs: epochMs.optional(),
    appMaster: z.boolean().optional(),
  })
  .strict();

export const wireLease = z.object({ holder: z.string().min(1), ttlMs, expiresAtMs: epochMs }).strict();

export const wireContainerList = z
  .object({
    nowMs: epochMs,
    nodes: z.array(z.string()),
    lease: wireLease.nullable(),
    containers: z.array(wireContainer),
  })
  .strict();

export const wireContainerRef = z.object({ nodeId: z.string().min(1), containerId: z.string().min(1) }).strict();
export const wireLeaseRequest = z.object({ holder: z.string().min(1), ttlMs }).strict();
export const wireLeaseRelease = z.object({ holder: z.string().min(1) }).strict();
export const wireLeaseReleased = z.object({ resumed: z.array(z.string()) }).strict();

export const wireRankingRequest = z.object({ scores: z.record(z.string(), z.number()), leastLoadedFirst: z.boolean(), ttlMs }).strict();

export const wireRanking = z.object({ scores: z.record(z.string(), z.number()), leastLoadedFirst: z.boolean(), ttlMs, publishedAtMs: epochMs }).strict();

export const wireRankingState = z
  .object({
    ranking: wireRanking.nullable(),
    fresh: z.boolean(),
    policyLoaded: z.boolean(),
    lastOrder: z.array(z.string()).nullable(),
    lastOrderAtMs: epochMs.nullable(),
    lastOrderRanked: z.boolean(),
  })
  .strict();

/** `$defs` name → zod schema. The contract test walks this map against the JSON Schema file. */
export const shimWireSchemas = {
  Error: wireError,
  Health: wireHealth,
  Process: wireProcess,
  Container: wireContainer,
  Lease: wireLease,
  ContainerList: wireContainerList,
  ContainerRef: wireContainerRef,
  LeaseRequest: wireLeaseRequest,
  LeaseRelease: wireLeaseRelease,
  LeaseReleased: wireLeaseReleased,
  RankingRequest: wireRankingRequest,
  Ranking: wireRanking,
  RankingState: wireRankingState,
} as const;
export type ShimWireName = keyof typeof shimWireSchemas;

/** The routes this client uses (`x-endpoints` of the contract). */
export const SHIM_ROUTES = [
  { method: 'GET', path: '/v1/health', response: 'Health' },
  { method: 'GET', path: '/v1/containers', response: 'ContainerList' },
  { method: 'POST', path: '/v1/containers/suspend', request: 'ContainerRef', response: 'Container' },
  { method: 'POST', path: '/v1/containers/resume', request: 'ContainerRef', response: 'Container' },
  { method: 'POST', path: '/v1/lease', request: 'LeaseRequest', response: 'Lease' },
  { method: 'POST', path: '/v1/lease/release', request: 'LeaseRelease', response: 'LeaseReleased' },
  { method: 'PUT', path: '/v1/ranking', request: 'RankingRequest', response: 'RankingState' },
  { method: 'GET', path: '/v1/ranking', response: 'RankingState' },
] as const satisfies readonly { method: string; path: string; request?: ShimWireName; response: ShimWireName }[];

export const SHIM_CONTRACT_VERSION = 5;

/** Node ids kept as one string each (a cluster has fewer nodes). */
const MAX_NODE_IDS_KEPT = 100_000;

/** The header that carries the brain's leadership epoch on every change (fencing). */
export const EPOCH_HEADER = 'X-Schedbrain-Epoch';

export type WireContainer = z.infer<typeof wireContainer>;
export type WireContainerList = z.infer<typeof wireContainerList>;
export type WireLease = z.infer<typeof wireLease>;
export type WireRankingState = z.infer<typeof wireRankingState>;
export type WireHealth = z.infer<typeof wireHealth>;

// ---- errors ------------------------------------------------------------------------------------

/** The shim refused a request (4xx). Nothing changed on the shim. */
export class ShimRejectedError extends RmRejectedError {
  constructor(
    message: string,
    status: number,
    /** The shim's `error` code, e.g. `no_lease`, `wrong_node`; `unknown_node` when no shim serves the node. */
    readonly code: ShimErrorCode | 'unknown_node',
    body?: string,
  ) {
    super(message, status, body);
  }
}

// ---- client ------------------------------------------------------------------------------------

export interface HttpNodeShimOptions {
  /**
   * Base URLs of the NodeManager shims (`http://nm-host:18042`); one for a MiniYARNCluster.
   * Each serves the containers of its node(s); suspend/resume go to the one serving the node.
   */
  readonly urls: readonly string[];
  /** The ResourceManager shim (takes the ranking). Default: the first of `urls` (mini cluster). */
  readonly rankingUrl?: string;
  /** Lease holder name; stable across restarts so a restarted brain renews its own lease. */
  readonly holder?: string;
  /** The shims' shared secret (sent as a bearer token); without it a shim answers reads only. */
  readonly secret?: string;
  /** Per-attempt timeout. */
  readonly requestTimeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly logger?: Logger;
  /** For tests: a custom axios adapter instead of the network. */
  readonly adapter?: AxiosAdapter;
  /**
   * The brain's leadership epoch, read at every change it sends (`X-Schedbrain-Epoch`); the shims
   * refuse changes from an epoch older than one they admitted. Undefined: none sent.
   */
  readonly epoch?: () => number | undefined;
}

export class HttpNodeShim implements NodeShim {
  readonly holder: string;
  private readonly urls: string[];
  private readonly rankingUrl: string;
  private readonly http: AxiosInstance;
  private readonly retry: RetryPolicy;
  private readonly logger?: Logger;
  /** nodeId → base URL of the shim serving it (learned from /v1/containers and /v1/health). */
  private readonly nodeUrl = new Map<string, string>();
  private readonly epoch?: () => number | undefined;
  /**
   * One string per node id for the containers listed: each list's JSON gives every container its
   * own copy, and 200,000 containers held 200,000 copies of 10,000 ids (11 MB of heap).
   */
  private readonly nodeIds = new Map<string, string>();
  /**
   * Reads go through node:http with kept-alive connections rather than axios: a refresh reads
   * one list per node shim, and axios cost about three times as much CPU per request
   * (docs/decisions.md, "Running containers come from the NodeManager shims"). Not with a test adapter.
   */
  private readonly rawReads?: {
    readonly agents: { http: http.Agent; https: https.Agent };
    readonly headers: Record<string, string>;
    readonly timeoutMs: number;
  };

  constructor(opts: HttpNodeShimOptions) {
    if (opts.urls.length === 0) throw new RangeError('HttpNodeShim needs at least one shim URL');
    this.urls = opts.urls.map(trimSlash);
    this.rankingUrl = trimSlash(opts.rankingUrl ?? this.urls[0]!);
    this.holder = opts.holder ?? `schedbrain@${hostname()}`;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
    this.logger = opts.logger;
    this.epoch = opts.epoch;
    this.http = axios.create({
      timeout: opts.requestTimeoutMs ?? 5_000,
      // Status handling is ours: 4xx bodies carry {error, reason}.
      validateStatus: () => true,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...(opts.secret ? { Authorization: `Bearer ${opts.secret}` } : {}) },
      adapter: opts.adapter,
      // Shim bodies are JSON; parse ourselves so a non-JSON body becomes a protocol error.
      transformResponse: [(data: unknown) => data],
      responseType: 'text',
    });
    if (!opts.adapter) {
      this.rawReads = {
        agents: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
        headers: { Accept: 'application/json', ...(opts.secret ? { Authorization: `Bearer ${opts.secret}` } : {}) },
        timeoutMs: opts.requestTimeoutMs ?? 5_000,
      };
    }
  }

  /** A GET's status and body text over a kept-alive connection; rejects on a network error or timeout. */
  private rawGet(url: string): Promise<{ status: number; data: string }> {
    const raw = this.rawReads!;
    const secure = url.startsWith('https:');
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).get(
        url,
        { agent: secure ? raw.agents.https : raw.agents.http, headers: raw.headers, timeout: raw.timeoutMs },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          // Most lists arrive in one chunk: decoded as it is, not copied into a joined buffer first.
          res.on('end', () => resolve({ status: res.statusCode ?? 0, data: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`timeout of ${raw.timeoutMs} ms exceeded`)));
      req.on('error', reject);
    });
  }

  async containers(): Promise<ShimContainer[]> {
    const lists = await this.eachNodeShim('list containers', (url) => this.listContainers(url));
    return lists.flatMap((list) => list.containers.map((c) => toShimContainer(c, this.nodeIdOf(c.nodeId))));
  }

  nodeShimUrls(): readonly string[] {
    return this.urls;
  }

  async nodeShimContainers(url: string): Promise<NodeShimListing> {
    const list = await this.listContainers(url, { allocation: true });
    return { nodes: list.nodes, containers: list.containers.map((c) => toShimContainer(c, this.nodeIdOf(c.nodeId))) };
  }

  private nodeIdOf(id: string): string {
    const known = this.nodeIds.get(id);
    if (known !== undefined) return known;
    // Bounded whatever the shims send: past this many ids, it starts over.
    if (this.nodeIds.size >= MAX_NODE_IDS_KEPT) this.nodeIds.clear();
    this.nodeIds.set(id, id);
    return id;
  }

  /**
   * Raw `/v1/containers` of one shim (pids, process states, lease), for tools and tests. With
   * `allocation`, a shim of contract 5 adds what the RM allocated to each container.
   */
  async listContainers(url: string = this.urls[0]!, opts: { allocation?: boolean } = {}): Promise<WireContainerList> {
    const list = await this.call(url, 'GET', opts.allocation ? '/v1/containers?allocation=true' : '/v1/containers', undefined, wireContainerList);
    for (const n of list.nodes) this.nodeUrl.set(n, trimSlash(url));
    return list;
  }

  async health(url: string = this.urls[0]!): Promise<WireHealth> {
    const h = await this.call(url, 'GET', '/v1/health', undefined, wireHealth);
    for (const n of h.nodes) this.nodeUrl.set(n, trimSlash(url));
    return h;
  }

  async suspend(nodeId: string, containerId: string): Promise<void> {
    await this.suspendContainer(nodeId, containerId);
  }

  async resume(nodeId: string, containerId: string): Promise<void> {
    await this.resumeContainer(nodeId, containerId);
  }

  /** Like suspend(), returning the shim's view of the container. */
  async suspendContainer(nodeId: string, containerId: string): Promise<WireContainer> {
    const url = await this.urlFor(nodeId);
    return this.call(url, 'POST', '/v1/containers/suspend', wireContainerRef.parse({ nodeId, containerId }), wireContainer);
  }

  async resumeContainer(nodeId: string, containerId: string): Promise<WireContainer> {
    const url = await this.urlFor(nodeId);
    return this.call(url, 'POST', '/v1/containers/resume', wireContainerRef.parse({ nodeId, containerId }), wireContainer);
  }

  async renewLease(ttlMs: number): Promise<void> {
    const body = wireLeaseRequest.parse({ holder: this.holder, ttlMs: Math.round(ttlMs) });
    await this.onEveryNodeShim('renew the lease', (url) => this.call(url, 'POST', '/v1/lease', body, wireLease));
  }

  /** Gives the lease up: every shim resumes what it suspended. Returns the resumed container ids. */
  async releaseLease(): Promise<string[]> {
    const body = wireLeaseRelease.parse({ holder: this.holder });
    const res = await this.onEveryNodeShim('release the lease', (url) => this.call(url, 'POST', '/v1/lease/release', body, wireLeaseReleased));
    return res.flatMap((r) => r.resumed);
  }

  /** Each node's resources as its NodeManager is configured (the shims' `/v1/health`), from every shim that answers. */
  async configuredResources(): Promise<Map<string, Resources>> {
    const all = await this.eachNodeShim('read configured node resources', (url) => this.health(url));
    const out = new Map<string, Resources>();
    for (const h of all) for (const [node, r] of Object.entries(h.resources)) out.set(node, { memoryMB: r.memoryMB, vcores: r.vcores });
    return out;
  }

  async publishRanking(ranking: RankingPublication): Promise<void> {
    await this.putRanking(ranking);
  }

  async putRanking(ranking: RankingPublication): Promise<WireRankingState> {
    const body = wireRankingRequest.parse({ scores: { ...ranking.scores }, leastLoadedFirst: ranking.leastLoadedFirst, ttlMs: Math.round(ranking.ttlMs) });
    return this.call(this.rankingUrl, 'PUT', '/v1/ranking', body, wireRankingState);
  }

  async rankingState(): Promise<WireRankingState> {
    return this.call(this.rankingUrl, 'GET', '/v1/ranking', undefined, wireRankingState);
  }

  // ---- plumbing ----------------------------------------------------------------------------

  private async urlFor(nodeId: string): Promise<string> {
    if (this.urls.length === 1) return this.urls[0]!;
    const known = this.nodeUrl.get(nodeId);
    if (known) return known;
    await Promise.allSettled(this.urls.map((u) => this.health(u)));
    const found = this.nodeUrl.get(nodeId);
    if (found) return found;
    throw new ShimRejectedError(`no shim serves node ${nodeId} (asked ${this.urls.join(', ')})`, 404, 'unknown_node');
  }

  /** Runs `fn` on every node shim; partial results with a warning, RmUnavailableError if none answer. */
  private async eachNodeShim<T>(what: string, fn: (url: string) => Promise<T>): Promise<T[]> {
    const settled = await Promise.allSettled(this.urls.map(fn));
    const ok = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = settled.flatMap((s, i) => (s.status === 'rejected' ? [{ url: this.urls[i]!, err: s.reason as Error }] : []));
    if (failed.length > 0 && ok.length === 0) throw failed[0]!.err;
    for (const f of failed) this.logger?.warn({ url: f.url, err: f.err.message }, `shim: cannot ${what} on one node shim`);
    return ok;
  }

  /** Runs `fn` on every node shim; any failure is an error (after the others were tried). */
  private async onEveryNodeShim<T>(what: string, fn: (url: string) => Promise<T>): Promise<T[]> {
    const settled = await Promise.allSettled(this.urls.map(fn));
    const failed = settled.flatMap((s, i) => (s.status === 'rejected' ? [{ url: this.urls[i]!, err: s.reason as Error }] : []));
    if (failed.length > 0) {
      for (const f of failed) this.logger?.warn({ url: f.url, err: f.err.message }, `shim: cannot ${what}`);
      throw failed[0]!.err;
    }
    return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  }

  /** Every shim call is idempotent (suspending a suspended container is a no-op), so all retry. */
  private call<T>(base: string, method: Method, path: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
    return withRetry(() => this.once(base, method, path, body, schema), this.retry, {
      isRetryable: (err) => err instanceof RmUnavailableError,
      onRetry: (err, attempt, delayMs) => this.logger?.debug({ url: base + path, attempt, delayMs, err: (err as Error).message }, 'shim call failed, retrying'),
    });
  }

  private async once<T>(base: string, method: Method, path: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
    const where = `${method} ${base}${path}`;
    let res;
    try {
      const epoch = method === 'GET' ? undefined : this.epoch?.();
      res =
        method === 'GET' && this.rawReads
          ? await this.rawGet(base + path)
          : await this.http.request<string>({
              url: base + path,
              method,
              data: body === undefined ? undefined : JSON.stringify(body),
              ...(epoch !== undefined ? { headers: { [EPOCH_HEADER]: String(epoch) } } : {}),
            });
    } catch (err) {
      throw new RmUnavailableError(`shim unreachable: ${where}: ${(err as Error).message}`, { cause: err });
    }
    const text = typeof res.data === 'string' ? res.data : JSON.stringify(res.data);
    if (res.status >= 500) throw new RmUnavailableError(`shim error ${res.status}: ${where}: ${text.slice(0, 300)}`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new RmProtocolError(`shim answered ${res.status} with non-JSON: ${where}: ${text.slice(0, 200)}`);
    }
    if (res.status >= 400) {
      const e = wireError.safeParse(json);
      if (!e.success) throw new RmRejectedError(`shim refused (${res.status}) ${where}: ${text.slice(0, 300)}`, res.status, text);
      throw new ShimRejectedError(`shim refused ${where}: ${e.data.error}: ${e.data.reason}`, res.status, e.data.error, text);
    }
    if (res.status !== 200) throw new RmProtocolError(`shim answered ${res.status}: ${where}`);
    // The container lists are what a refresh reads from every shim: checked by hand first (zod
    // cost twice JSON.parse on them), by zod when the check refuses, for its error.
    if (schema === (wireContainerList as z.ZodType<unknown>) && isWireContainerList(json)) return json as T;
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
      throw new RmProtocolError(`shim answer does not match the contract: ${where}: ${issues.join('; ')}`);
    }
    return parsed.data;
  }
}

const isNat = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isNonEmpty = (v: unknown): boolean => typeof v === 'string' && v.length > 0;
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const CONTAINER_REQUIRED = ['containerId', 'nodeId', 'state', 'attainedServiceMs', 'runningSinceMs', 'suspendedAtMs', 'pid', 'processes'];

function isWireContainer(c: unknown): boolean {
  if (!isRecord(c)) return false;
  let known = CONTAINER_REQUIRED.length;
  if (!isNonEmpty(c.containerId) || !isNonEmpty(c.nodeId) || (c.state !== 'RUNNING' && c.state !== 'SUSPENDED')) return false;
  if (!isNat(c.attainedServiceMs) || !isNat(c.runningSinceMs) || (c.suspendedAtMs !== null && !isNat(c.suspendedAtMs))) return false;
  if (!isNat(c.pid) || (c.pid as number) < 1 || !Array.isArray(c.processes)) return false;
  for (const p of c.processes as unknown[]) {
    if (!isRecord(p) || Object.keys(p).length !== 2 || !isNat(p.pid) || (p.pid as number) < 1) return false;
    if (typeof p.state !== 'string' || p.state.length !== 1) return false;
  }
  for (const k of ['allocatedMB', 'allocatedVCores', 'createdAtMs'] as const) {
    if (!(k in c)) continue;
    if (!isNat(c[k])) return false;
    known++;
  }
  if ('appMaster' in c) {
    if (typeof c.appMaster !== 'boolean') return false;
    known++;
  }
  return Object.keys(c).length === known;
}

/** What `wireContainerList` accepts, checked by hand (true: zod would give the same object back). */
export function isWireContainerList(v: unknown): boolean {
  if (!isRecord(v) || Object.keys(v).length !== 4 || !isNat(v.nowMs) || !Array.isArray(v.nodes) || !Array.isArray(v.containers)) return false;
  for (const n of v.nodes as unknown[]) if (typeof n !== 'string') return false;
  if (v.lease !== null) {
    const l = v.lease;
    if (!isRecord(l) || Object.keys(l).length !== 3 || !isNonEmpty(l.holder) || !isNat(l.expiresAtMs)) return false;
    if (!isNat(l.ttlMs) || (l.ttlMs as number) < 1 || (l.ttlMs as number) > 3_600_000) return false;
  }
  for (const c of v.containers as unknown[]) if (!isWireContainer(c)) return false;
  return true;
}

/**
 * A wire container as the backend takes it (the allocation only when the shim sent all of it).
 * Written out whole rather than spread from a common part: at 200,000 containers a refresh the
 * spread cost ten times as much.
 */
function toShimContainer(c: WireContainer, nodeId: string): ShimContainer {
  if (c.allocatedMB === undefined || c.allocatedVCores === undefined || c.createdAtMs === undefined)
    return { containerId: c.containerId, nodeId, state: c.state, attainedServiceMs: c.attainedServiceMs, runningSinceMs: c.runningSinceMs };
  return {
    containerId: c.containerId,
    nodeId,
    state: c.state,
    attainedServiceMs: c.attainedServiceMs,
    runningSinceMs: c.runningSinceMs,
    allocated: sharedAllocation(c.allocatedMB, c.allocatedVCores),
    createdAtMs: c.createdAtMs,
    appMaster: c.appMaster === true,
  };
}

/**
 * One frozen object per container size: a cluster runs 200,000 containers of a few sizes, and an
 * object each was 8 MB of heap that every refresh kept. Bounded: past this many sizes it starts over.
 */
const allocations = new Map<number, Resources>();
const MAX_ALLOCATIONS_KEPT = 4_096;

function sharedAllocation(memoryMB: number, vcores: number): Resources {
  // An exact key while both fit (the shim's figures are whole numbers); others are not shared.
  if (!(memoryMB < 2 ** 36 && vcores < 2 ** 16)) return { memoryMB, vcores };
  const key = memoryMB * 2 ** 16 + vcores;
  let r = allocations.get(key);
  if (r === undefined) {
    if (allocations.size >= MAX_ALLOCATIONS_KEPT) allocations.clear();
    allocations.set(key, (r = Object.freeze({ memoryMB, vcores })));
  }
  return r;
}

function trimSlash(u: string): string {
  return u.replace(/\/+$/, '');
}
