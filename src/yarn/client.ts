/**
 * Typed client for the ResourceManager REST API (`/ws/v1/cluster`). Reads are parsed with the
 * zod schemas in schemas.ts; writes carry `?user.name=` (simple auth). Every call has a timeout
 * and a bounded retry on transient failures; everything else surfaces as a typed error from
 * src/core/errors.ts so callers branch on the class:
 * - RmUnavailableError: unreachable, timed out, 5xx (after the retries);
 * - RmRejectedError: 4xx, with the RM's own message (RemoteException JSON or plain text body);
 * - RmProtocolError: a 2xx answer that does not match the schema (names the field);
 * - ReadOnlySchedulerConfError: the scheduler configuration store is not mutable.
 */
import axios, { type AxiosAdapter, type AxiosInstance, type AxiosResponse, type Method } from 'axios';
import { readFileSync } from 'node:fs';
import { Agent as HttpsAgent } from 'node:https';
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { ReadOnlySchedulerConfError, RmProtocolError, RmRejectedError, RmUnavailableError } from '../core/errors.js';
import { describeSchema, parseFast } from './fast-parse.js';
import { OFF_THREAD_MIN_BYTES, sharedListParser, type ListParser } from './list-parser.js';
import { DEFAULT_RETRY_POLICY, withRetry, type RetryPolicy } from './retry.js';
import {
  appAttemptsResponseSchema,
  appResponseSchema,
  appsResponseSchema,
  appsWithoutUsageResponseSchema,
  capacitySchedulerInfoSchema,
  clusterInfoResponseSchema,
  clusterMetricsResponseSchema,
  containersResponseSchema,
  describeZodError,
  newReservationSchema,
  nodeResponseSchema,
  nodesResponseSchema,
  remoteExceptionSchema,
  reservationListSchema,
  schedulerConfResponseSchema,
  schedulerConfVersionResponseSchema,
  schedulerResponseSchema,
  type RmAppAttempt,
  type RmAppInfo,
  type RmCapacitySchedulerInfo,
  type RmClusterInfo,
  type RmClusterMetrics,
  type RmContainerInfo,
  type RmNodeInfo,
  type RmReservation,
} from './schemas.js';

export const RM_WS_PATH = '/ws/v1/cluster';

export interface RmClientOptions {
  /** e.g. `http://rm.example:8088` (with or without trailing slash). */
  readonly rmUrl: string;
  /** Principal for writes with simple auth (`?user.name=`). Defaults to the OS user. */
  readonly user?: string;
  /** Per-attempt timeout. */
  readonly requestTimeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly logger?: Logger;
  /** For tests: a custom axios adapter instead of the network. */
  readonly adapter?: AxiosAdapter;
  /**
   * An HTTPS RM: the CA (PEM) its certificate is checked against, and a client certificate where
   * the RM asks for one. Without `caFile` the system's CAs are used.
   */
  readonly tls?: RmTlsOptions;
  /**
   * A Kerberos-secured RM without SPNEGO here: a delegation token (RM web services accept it in
   * `X-Hadoop-Delegation-Token` when their delegation-token filter is on, the default). Every
   * request carries it; writes then act as the token's owner, not as `user`.
   */
  readonly delegationToken?: string;
  /**
   * Where the big lists (`/nodes`, `/apps`) are parsed: a worker thread by default, so the event
   * loop stays free for the admin API; `false` parses them on this thread.
   */
  readonly listParser?: ListParser | false;
}

export interface RmTlsOptions {
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
}

/** The https.Agent for an HTTPS RM (files read once, at start). */
export function rmHttpsAgent(tls: RmTlsOptions): HttpsAgent {
  const read = (f: string | undefined) => (f === undefined ? undefined : readFileSync(f));
  return new HttpsAgent({ ca: read(tls.caFile), cert: read(tls.certFile), key: read(tls.keyFile), keepAlive: true });
}

export type RmAppState = 'NEW' | 'NEW_SAVING' | 'SUBMITTED' | 'ACCEPTED' | 'RUNNING' | 'FINISHED' | 'FAILED' | 'KILLED';

/** Signals the RM forwards to a container's NodeManager (`SignalContainerCommand`). */
export type ContainerSignal = 'OUTPUT_THREAD_DUMP' | 'GRACEFUL_SHUTDOWN' | 'FORCEFUL_SHUTDOWN';

/** One queue entry of a scheduler-conf mutation: full queue path and CapacityScheduler keys. */
export interface QueueConfigChange {
  /** Full path, e.g. `root.analytics`. */
  readonly queue: string;
  /** Keys relative to the queue, e.g. `capacity`, `maximum-capacity`, `state`. */
  readonly params: Readonly<Record<string, string>>;
}

/** `SchedConfUpdateInfo`: applied by the RM as one transaction (validated as a whole). */
export interface SchedConfUpdate {
  readonly addQueues?: readonly QueueConfigChange[];
  readonly updateQueues?: readonly QueueConfigChange[];
  readonly removeQueues?: readonly string[];
  readonly globalUpdates?: Readonly<Record<string, string>>;
}

/**
 * JSON body for `PUT /scheduler-conf`. `SchedConfUpdateInfo` is not registered in the RM's
 * natural-JSON context, so Jersey reads it with its default "mapped" convention: root element
 * unwrapped, JAXB maps (`params`, `global-updates`) as `{"entry":[{"key":..,"value":..}]}`.
 */
export function schedConfUpdateBody(update: SchedConfUpdate): Record<string, unknown> {
  const entries = (params: Readonly<Record<string, string>>) => ({
    entry: Object.entries(params).map(([key, value]) => ({ key, value })),
  });
  const queueInfo = (q: QueueConfigChange) => ({ 'queue-name': q.queue, params: entries(q.params) });
  const body: Record<string, unknown> = {};
  if (update.addQueues?.length) body['add-queue'] = update.addQueues.map(queueInfo);
  if (update.removeQueues?.length) body['remove-queue'] = [...update.removeQueues];
  if (update.updateQueues?.length) body['update-queue'] = update.updateQueues.map(queueInfo);
  if (update.globalUpdates && Object.keys(update.globalUpdates).length) body['global-updates'] = entries(update.globalUpdates);
  return body;
}

/** Messages the RM uses when the scheduler configuration cannot be changed over REST. */
const READ_ONLY_CONF_MARKERS = [
  'only supported by MutableConfScheduler',
  'only supported by mutable configuration store',
  'only supports to retrieve scheduler configuration from a mutable-conf scheduler',
];

export function isReadOnlyConfMessage(message: string): boolean {
  return READ_ONLY_CONF_MARKERS.some((m) => message.includes(m));
}

/** Transient failure: retryable, plus whether the RM may have acted on the request anyway. */
export class RmTransientError extends RmUnavailableError {
  constructor(
    message: string,
    /** False only when the request certainly never reached the RM (connection refused). */
    readonly mayHaveBeenProcessed: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Error codes of a request that never got an answer. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const TRANSIENT_CODES = new Set([...NOT_SENT_CODES, 'ECONNRESET', 'ETIMEDOUT', 'ECONNABORTED', 'EPIPE', 'ERR_SOCKET_CONNECTION_TIMEOUT', 'ESOCKETTIMEDOUT']);

interface RequestSpec<T> {
  readonly method: Method;
  /** Relative to `/ws/v1/cluster`, already encoded. */
  readonly path: string;
  readonly query?: Record<string, string>;
  readonly body?: unknown;
  readonly schema?: z.ZodType<T, z.ZodTypeDef, unknown>;
  /** Writes carry `user.name`. */
  readonly write?: boolean;
  /** A read the RM only answers for an identified caller (the scheduler-conf endpoints). */
  readonly withUser?: boolean;
  /**
   * Safe to repeat after an ambiguous failure (timeout, reset, 5xx). Non-idempotent writes are
   * retried only when the RM certainly did not act (connection refused, 503 from a standby RM).
   */
  readonly idempotent: boolean;
  /**
   * A big list: a large answer is parsed and checked off the event loop (`list-parser.ts`), and
   * its items (at `listPath`, matched by id) that equal the last answer's are the same objects.
   */
  readonly offThread?: boolean;
  readonly listPath?: readonly string[];
}

export interface RmResponse<T> {
  readonly status: number;
  readonly data: T;
  readonly headers: Record<string, unknown>;
}

export class RmClient {
  readonly rmUrl: string;
  readonly user: string;
  private readonly http: AxiosInstance;
  private readonly retryPolicy: RetryPolicy;
  private readonly logger?: Logger;
  private readonly listParser: ListParser | undefined;

  constructor(opts: RmClientOptions) {
    this.rmUrl = opts.rmUrl.replace(/\/+$/, '');
    this.user = opts.user ?? process.env.USER ?? 'yarn';
    this.retryPolicy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
    this.logger = opts.logger;
    this.listParser = opts.listParser === false ? undefined : (opts.listParser ?? sharedListParser);
    this.http = axios.create({
      baseURL: this.rmUrl + RM_WS_PATH,
      timeout: opts.requestTimeoutMs ?? 10_000,
      headers: { Accept: 'application/json', ...(opts.delegationToken ? { 'X-Hadoop-Delegation-Token': opts.delegationToken } : {}) },
      ...(opts.tls ? { httpsAgent: rmHttpsAgent(opts.tls) } : {}),
      // Raw bytes in, parsed here: error bodies may be plain text, and we want them verbatim (a
      // big list comes as a stream instead, for the list parser's thread: see `send`).
      responseType: 'arraybuffer',
      transformResponse: [(d: unknown) => d],
      validateStatus: () => true,
      // A standby RM in an HA pair answers 307 to the active one (method and body preserved).
      maxRedirects: 3,
      ...(opts.adapter ? { adapter: opts.adapter } : {}),
    });
  }

  // ---- reads -----------------------------------------------------------------------------------

  async clusterInfo(): Promise<RmClusterInfo> {
    return (await this.get('/info', clusterInfoResponseSchema)).clusterInfo;
  }

  async metrics(): Promise<RmClusterMetrics> {
    return (await this.get('/metrics', clusterMetricsResponseSchema)).clusterMetrics;
  }

  /** All nodes the RM knows (optionally only some states, e.g. `['RUNNING']`). */
  async nodes(states?: readonly string[]): Promise<RmNodeInfo[]> {
    const query = states?.length ? { states: states.join(',') } : undefined;
    return (await this.get('/nodes', nodesResponseSchema, query, { offThread: true, listPath: ['nodes', 'node'] })).nodes?.node ?? [];
  }

  async node(nodeId: string): Promise<RmNodeInfo> {
    return (await this.get(`/nodes/${encodeURIComponent(nodeId)}`, nodeResponseSchema)).node;
  }

  /** The CapacityScheduler root queue with its nested `queues.queue` tree. */
  async scheduler(): Promise<RmCapacitySchedulerInfo> {
    const info = (await this.get('/scheduler', schedulerResponseSchema)).scheduler.schedulerInfo;
    if (info.type !== 'capacityScheduler') {
      throw new RmProtocolError(`scheduler.schedulerInfo.type: expected capacityScheduler, the RM runs ${info.type}`);
    }
    return parseOrThrow(capacitySchedulerInfoSchema, info, 'GET /scheduler');
  }

  /** `deSelects`: fields the RM leaves out of each app (`resourceRequests`, `resourceInfo`, … since 3.1). */
  async apps(
    filter: {
      states?: readonly RmAppState[];
      queue?: string;
      finishedSinceMs?: number;
      deSelects?: readonly string[];
      /** Leave out `memorySeconds` and `vcoreSeconds`, which move at every read of a running app. */
      withoutUsage?: boolean;
    } = {},
  ): Promise<RmAppInfo[]> {
    const query: Record<string, string> = {};
    if (filter.states?.length) query.states = filter.states.join(',');
    if (filter.deSelects?.length) query.deSelects = filter.deSelects.join(',');
    if (filter.queue) query.queue = filter.queue;
    if (filter.finishedSinceMs !== undefined) query.finishedTimeBegin = String(Math.floor(filter.finishedSinceMs));
    const schema = filter.withoutUsage ? appsWithoutUsageResponseSchema : appsResponseSchema;
    return (await this.get('/apps', schema, query, { offThread: true, listPath: ['apps', 'app'] })).apps?.app ?? [];
  }

  async app(appId: string): Promise<RmAppInfo> {
    return (await this.get(`/apps/${encodeURIComponent(appId)}`, appResponseSchema)).app;
  }

  async appAttempts(appId: string): Promise<RmAppAttempt[]> {
    return (await this.get(`/apps/${encodeURIComponent(appId)}/appattempts`, appAttemptsResponseSchema)).appAttempts?.appAttempt ?? [];
  }

  /** Live containers of one attempt (the RM asks the scheduler; the AM container included). */
  async attemptContainers(appId: string, appAttemptId: string): Promise<RmContainerInfo[]> {
    return this.get(`/apps/${encodeURIComponent(appId)}/appattempts/${encodeURIComponent(appAttemptId)}/containers`, containersResponseSchema);
  }

  /**
   * The scheduler configuration held by the mutable store, as key → value.
   * Throws ReadOnlySchedulerConfError when the store is not mutable (file-based, or not CS).
   */
  async schedulerConf(): Promise<Map<string, string>> {
    let props: z.infer<typeof schedulerConfResponseSchema>;
    try {
      // The RM answers 401 "Unable to obtain user name" to anonymous callers here.
      props = await this.get('/scheduler-conf', schedulerConfResponseSchema, undefined, { withUser: true });
    } catch (err) {
      // 400 with the MutableConfScheduler message; 404/405 on RMs without the endpoint.
      if (err instanceof RmRejectedError && (isReadOnlyConfMessage(err.message) || err.status === 404 || err.status === 405)) {
        throw new ReadOnlySchedulerConfError(`scheduler configuration is read-only: ${err.message}`);
      }
      throw err;
    }
    return new Map(props.map((p) => [p.name, p.value === null || p.value === undefined ? '' : String(p.value)]));
  }

  /** Version counter of the mutable scheduler configuration (bumps on every applied mutation). */
  async schedulerConfVersion(): Promise<number> {
    return this.get('/scheduler-conf/version', schedulerConfVersionResponseSchema, undefined, { withUser: true });
  }

  // ---- writes ----------------------------------------------------------------------------------

  /**
   * One scheduler-configuration transaction. The RM validates the resulting configuration as a
   * whole (e.g. sibling capacities summing to 100), so related changes must travel together.
   */
  async updateSchedulerConf(update: SchedConfUpdate): Promise<string> {
    try {
      const res = await this.request<string>({ method: 'PUT', path: '/scheduler-conf', body: schedConfUpdateBody(update), write: true, idempotent: false });
      return typeof res.data === 'string' ? res.data : 'applied';
    } catch (err) {
      if (err instanceof RmRejectedError && isReadOnlyConfMessage(err.message)) {
        throw new ReadOnlySchedulerConfError(`scheduler configuration is read-only: ${err.message}`);
      }
      throw err;
    }
  }

  async setAppPriority(appId: string, priority: number): Promise<number | undefined> {
    const res = await this.request<unknown>({
      method: 'PUT',
      path: `/apps/${encodeURIComponent(appId)}/priority`,
      body: { priority },
      write: true,
      idempotent: true,
    });
    const data = res.data as { priority?: unknown; appPriority?: { priority?: unknown } } | undefined;
    const p = data?.priority ?? data?.appPriority?.priority;
    return p === undefined ? undefined : Number(p);
  }

  /** `queue` may be a leaf name or (Hadoop 3.3+) a full path. */
  async moveApp(appId: string, queue: string): Promise<void> {
    await this.request({ method: 'PUT', path: `/apps/${encodeURIComponent(appId)}/queue`, body: { queue }, write: true, idempotent: true });
  }

  /**
   * Asks the RM to kill the app. 202 (+ Location) means the kill was started; 200 means the app
   * already was in a final state, which `state` names.
   */
  async killApp(appId: string): Promise<{ status: number; state?: string }> {
    const res = await this.request<unknown>({
      method: 'PUT',
      path: `/apps/${encodeURIComponent(appId)}/state`,
      body: { state: 'KILLED' },
      write: true,
      idempotent: true,
    });
    const state = (res.data as { state?: unknown } | undefined)?.state;
    return { status: res.status, ...(typeof state === 'string' ? { state } : {}) };
  }

  /**
   * Sets the capacity the RM advertises for a node. `overCommitTimeoutMs = -1` keeps running
   * containers however long the node stays over its new capacity (no forced preemption).
   */
  async setNodeResource(nodeId: string, resource: { memoryMB: number; vcores: number }, overCommitTimeoutMs = -1): Promise<void> {
    await this.request({
      method: 'POST',
      path: `/nodes/${encodeURIComponent(nodeId)}/resource`,
      body: { resource: { memory: resource.memoryMB, vCores: resource.vcores }, overCommitTimeout: overCommitTimeoutMs },
      write: true,
      idempotent: true,
    });
  }

  async signalContainer(containerId: string, signal: ContainerSignal): Promise<void> {
    // A repeated FORCEFUL_SHUTDOWN is harmless, a repeated thread dump is noise: both acceptable.
    await this.request({ method: 'POST', path: `/containers/${encodeURIComponent(containerId)}/signal/${signal}`, write: true, idempotent: true });
  }

  // ---- ReservationSystem (Rayon) ------------------------------------------------------------

  /** A fresh reservation id; the RM reserves nothing until `submitReservation`. */
  async newReservation(): Promise<string> {
    const res = await this.request({ method: 'POST', path: '/reservation/new-reservation', write: true, idempotent: true, schema: newReservationSchema });
    return res.data['reservation-id'];
  }

  /** 202 when the RM's agent placed it; a 400 (`RmRejectedError`) names why it does not fit. */
  async submitReservation(body: unknown): Promise<void> {
    await this.request({ method: 'POST', path: '/reservation/submit', body, write: true, idempotent: true });
  }

  /** The reservations of a reservable queue, with their allocations. */
  async listReservations(queue: string): Promise<RmReservation[]> {
    const res = await this.request({
      method: 'GET',
      path: '/reservation/list',
      query: { queue, 'include-resource-allocations': 'true' },
      withUser: true,
      idempotent: true,
      schema: reservationListSchema,
    });
    const r = res.data.reservations;
    return r === undefined || r === null ? [] : Array.isArray(r) ? r : [r];
  }

  async deleteReservation(reservationId: string): Promise<void> {
    await this.request({ method: 'POST', path: '/reservation/delete', body: { 'reservation-id': reservationId }, write: true, idempotent: true });
  }

  // ---- plumbing --------------------------------------------------------------------------------

  private async get<T>(
    path: string,
    schema: z.ZodType<T, z.ZodTypeDef, unknown>,
    query?: Record<string, string>,
    opts: { withUser?: boolean; offThread?: boolean; listPath?: readonly string[] } = {},
  ): Promise<T> {
    return (await this.request({ method: 'GET', path, query, schema, idempotent: true, ...opts })).data;
  }

  async request<T>(spec: RequestSpec<T>): Promise<RmResponse<T>> {
    const what = `${spec.method} ${spec.path}`;
    let attempts = 0;
    try {
      return await withRetry(
        async (attempt) => {
          attempts = attempt;
          const res = await this.send(spec, what);
          return { status: res.status, headers: res.headers as Record<string, unknown>, data: await this.decode(spec, res, what) };
        },
        this.retryPolicy,
        {
          isRetryable: (err) => err instanceof RmTransientError && (spec.idempotent || !err.mayHaveBeenProcessed || err.status === 503),
          onRetry: (err, attempt, delayMs) =>
            this.logger?.warn({ err: (err as Error).message, attempt, delayMs, request: what }, 'RM request failed, retrying'),
        },
      );
    } catch (err) {
      if (err instanceof RmTransientError && attempts > 1) {
        throw new RmTransientError(`${err.message} (gave up after ${attempts} attempts)`, err.mayHaveBeenProcessed, err.status);
      }
      throw err;
    }
  }

  private async send(spec: RequestSpec<unknown>, what: string): Promise<AxiosResponse<unknown>> {
    const params: Record<string, string> = { ...spec.query };
    if (spec.write || spec.withUser) params['user.name'] = this.user;
    try {
      return await this.http.request<unknown>({
        method: spec.method,
        url: spec.path,
        params,
        data: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        // A big list streams to the list parser's thread as it arrives (`decode`).
        ...(spec.offThread && this.listParser ? { responseType: 'stream' as const } : {}),
        headers: spec.body === undefined ? undefined : { 'Content-Type': 'application/json' },
      });
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      const reason = (err as Error).message || code;
      if (TRANSIENT_CODES.has(code) || axios.isAxiosError(err)) {
        const timedOut = code === 'ECONNABORTED' || code === 'ETIMEDOUT';
        const why = timedOut ? `timed out after ${this.http.defaults.timeout} ms` : `unreachable (${code || reason})`;
        throw new RmTransientError(`${what}: RM at ${this.rmUrl} ${why}`, !NOT_SENT_CODES.has(code));
      }
      throw new RmUnavailableError(`${what}: ${reason}`);
    }
  }

  private async decode<T>(spec: RequestSpec<T>, res: AxiosResponse<unknown>, what: string): Promise<T> {
    let raw = res.data;
    if (raw instanceof Readable) {
      const length = Number(res.headers['content-length'] ?? NaN);
      const big = !(length < OFF_THREAD_MIN_BYTES);
      const shape = spec.schema ? describeSchema(spec.schema as z.ZodTypeAny) : undefined;
      let lost = false;
      try {
        if (big && shape && this.listParser && res.status >= 200 && res.status < 300) {
          const reuse = spec.listPath ? { key: listKey(spec), path: spec.listPath } : undefined;
          const parsed = await this.listParser.parseStream(raw, shape, reuse, Number.isFinite(length) ? length : undefined);
          if (parsed.ok) return parsed.data as T;
          // Refused: parsed again below, where zod names the field. A worker that died holding
          // the body leaves nothing to parse: the list is read again.
          if (parsed.bytes === undefined) lost = true;
          else raw = parsed.bytes;
        } else {
          const parts: Buffer[] = [];
          for await (const chunk of raw) parts.push(chunk as Buffer);
          raw = Buffer.concat(parts);
        }
      } catch (err) {
        if (err instanceof RmProtocolError) throw err;
        throw new RmTransientError(`${what}: the answer broke off: ${(err as Error).message}`, true);
      }
      if (lost) return (await this.request({ ...spec, offThread: false })).data;
    }
    const bytes = raw instanceof Uint8Array ? raw : raw instanceof ArrayBuffer ? new Uint8Array(raw) : undefined;
    const body =
      typeof raw === 'string'
        ? raw
        : bytes
          ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
          : raw === undefined || raw === null
            ? ''
            : JSON.stringify(raw);
    if (res.status >= 500) {
      if (isRefusalDisguisedAs5xx(body)) {
        throw new RmRejectedError(refusalMessage(body), res.status, body);
      }
      throw new RmTransientError(`${what}: RM answered ${res.status}: ${rmMessage(body) || 'no message'}`, true, res.status);
    }
    if (res.status >= 300) {
      throw new RmRejectedError(rmMessage(body) || `${what}: RM answered ${res.status}`, res.status, body);
    }
    if (!spec.schema) {
      return (parseJsonOrText(body) ?? body) as T;
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new RmProtocolError(`${what}: RM answered ${res.status} with a body that is not JSON: ${body.slice(0, 200)}`);
    }
    return parseOrThrow(spec.schema, json, what);
  }
}

/** Which list a read is, for reusing its unchanged items: path and filters, not the time window. */
function listKey(spec: RequestSpec<unknown>): string {
  const q = Object.entries(spec.query ?? {}).filter(([k]) => k !== 'finishedTimeBegin');
  return `${spec.path}?${new URLSearchParams(q.sort()).toString()}`;
}

function parseOrThrow<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, json: unknown, what: string): T {
  const result = parseFast(schema, json);
  if (!result.success) throw new RmProtocolError(`${what}: unexpected answer shape: ${describeZodError(result.error)}`);
  return result.data;
}

function parseJsonOrText(body: string): unknown {
  if (!body) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/**
 * Some refusals come back as 5xx from a Hadoop 3.4 RM, and repeating them cannot help:
 * - a YarnException thrown inside the caller's doAs (e.g. moving an app to a queue that does not
 *   exist) surfaces as 503 `UndeclaredThrowableException`, its cause only in the RM log;
 * - signalling a finished container answers 500 "Trying to signal an absent container ...".
 */
export function isRefusalDisguisedAs5xx(body: string): boolean {
  return remoteExceptionName(body) === 'UndeclaredThrowableException' || /^Trying to \S+ an absent /.test(body.trim());
}

function refusalMessage(body: string): string {
  if (remoteExceptionName(body) === 'UndeclaredThrowableException') {
    return 'UndeclaredThrowableException: the RM refused the request but hid the reason (see the RM log)';
  }
  return rmMessage(body);
}

function remoteExceptionName(body: string): string | undefined {
  try {
    const parsed = remoteExceptionSchema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data.RemoteException.exception : undefined;
  } catch {
    return undefined;
  }
}

/** The RM's own explanation: `RemoteException.message` from JSON, else the plain-text body. */
export function rmMessage(body: string): string {
  const trimmed = body.trim();
  if (!trimmed) return '';
  try {
    const parsed = remoteExceptionSchema.safeParse(JSON.parse(trimmed));
    if (parsed.success) {
      const ex = parsed.data.RemoteException;
      return [ex.exception, ex.message].filter(Boolean).join(': ');
    }
  } catch {
    // not JSON: the scheduler-conf endpoint answers errors as plain text
  }
  if (trimmed.startsWith('<')) {
    // An HTML error page (Jetty): keep just the text.
    return trimmed
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 500);
  }
  return trimmed.slice(0, 2000);
}
