/**
 * The admin API (fastify). Requests are validated with the zod schemas of ./schemas.ts; every
 * error goes through one handler that answers `{ error, field?, reason }`:
 *   validation → 400 naming the field path, unknown route → 404, RM down → 503 with why.
 *
 * Extra route plugins (e.g. src/api/routes/bopf.ts) receive `{ engine, store }` as options and
 * find the same on `app.schedbrain`; see `RoutePlugin` and `loadRoutePlugins`.
 *
 * Every request passes two checks first (./auth.ts): the `Host` header names this service, and
 * the bearer token's role covers the route's (`config: { role }` on a route, else `read` for
 * GET and `operate` for the rest). Every other request is audited: log and journal.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync, type FastifyReply } from 'fastify';
import { readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import { ZodError, type z, type ZodTypeAny } from 'zod';
import { ConflictError, RmUnavailableError, SchedbrainError, UnsupportedActionError, ValidationError, zodToValidationError } from '../core/errors.js';
import type { ClusterSnapshot } from '../core/model.js';
import type { Engine } from '../engine/engine.js';
import { REGISTRY } from '../engine/engine.js';
import { PROMETHEUS_CONTENT_TYPE } from '../engine/metrics.js';
import { StoreDecodeError } from '../store/codec.js';
import { defaultRole, roleAtLeast, type ApiAuth, type Role } from './auth.js';
import type { Store } from '../store/store.js';
import type { HistoryStore, PullResult } from '../history/index.js';
import { buildOpenApi, type ApiRoute, type ErrorResponse } from './openapi.js';
import * as S from './schemas.js';
import { summarizePolicyState } from './state-summary.js';

/** The history of ended applications (src/history) and how to pull more of it, by source, when the service keeps one. */
export interface HistoryAccess {
  readonly records: HistoryStore;
  readonly pullers: Readonly<Partial<Record<string, { pull(): Promise<PullResult> }>>>;
}

export interface RoutePluginOptions {
  readonly engine: Engine;
  readonly store: Store;
  readonly history?: HistoryAccess;
}

/** What an extra route module default-exports. */
export type RoutePlugin = FastifyPluginAsync<RoutePluginOptions>;

/** An extra route module: a default-exported plugin, optionally with its OpenAPI routes. */
export interface RouteModule {
  readonly default: RoutePlugin;
  /** Routes to document in openapi.json (same shape as API_ROUTES). */
  readonly apiRoutes?: readonly ApiRoute[];
}

declare module 'fastify' {
  interface FastifyInstance {
    schedbrain: RoutePluginOptions;
  }
  interface FastifyContextConfig {
    /** The least role that may call the route (default: `read` for GET, `operate` otherwise). */
    role?: Role;
  }
  interface FastifyRequest {
    /** The name of the token the request came with; undefined on open routes. */
    principal?: string;
    /** What a mutating route changed, for the audit trail. */
    audit?: { before?: unknown; after?: unknown };
  }
}

export interface ApiOptions {
  readonly engine: Engine;
  readonly store: Store;
  readonly logger?: Logger;
  /** Extra route plugins, registered after the built-in routes. */
  readonly plugins?: readonly RoutePlugin[];
  /** Who may call what (required: there is no unauthenticated mode). */
  readonly auth: ApiAuth;
  /** TLS (node:https server options); plain HTTP when absent. */
  readonly https?: Record<string, unknown>;
  /** The service's configuration (secrets already redacted) and the like, for `GET /v1/state`. */
  readonly serviceInfo?: () => Record<string, unknown>;
  /** The history of ended applications, for the route plugins that read or pull it. */
  readonly history?: HistoryAccess;
}

/** The built-in routes, as documented in openapi/openapi.json. */
export const API_ROUTES: readonly ApiRoute[] = [
  {
    method: 'get',
    path: '/livez',
    summary: 'Liveness: the process answers (200 even when the RM is down; use /healthz for readiness)',
    tags: ['ops'],
    open: true,
    responses: { 200: S.livezBody },
  },
  {
    method: 'get',
    path: '/healthz',
    summary: 'Liveness and readiness: is the RM reachable, did the last cycle succeed, is the engine advisory?',
    tags: ['ops'],
    open: true,
    responses: { 200: S.healthBody, 503: S.healthBody },
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics (text exposition format 0.0.4)',
    tags: ['ops'],
    open: true,
    responses: { 200: 'Prometheus text exposition' },
  },
  {
    method: 'get',
    path: '/v1/snapshot',
    summary:
      "The cluster as the engine last read it (the queues and the parts the running policy reads: nodes, apps, containers) and its age; read from the RM only when no cycle's read is fresh enough (three periods), or with parts=all when it lacks a part",
    tags: ['cluster'],
    query: S.snapshotQuery,
    responses: { 200: S.snapshotBody, 400: S.errorBody, 503: S.errorBody },
  },
  {
    method: 'get',
    path: '/v1/decisions',
    summary: 'The decision journal (newest first by default)',
    tags: ['engine'],
    query: S.decisionsQuery,
    responses: { 200: S.decisionsBody, 400: S.errorBody },
  },
  { method: 'get', path: '/v1/policy', summary: 'The running policy, its parameters and the dry-run flag', tags: ['engine'], responses: { 200: S.policyBody } },
  {
    method: 'get',
    path: '/v1/policy/state',
    summary: "The running policy's state (in memory) and when it was last persisted",
    tags: ['engine'],
    responses: { 200: S.policyStateBody },
  },
  {
    method: 'get',
    path: '/v1/state',
    summary:
      "The operator's state dump: configuration (secrets redacted), engine status and capabilities, leadership, the running policy with a summary of its ledgers, and what the backend keeps (recorded physical capacities, over-committed nodes, published ranking)",
    tags: ['ops'],
    role: 'operate',
    responses: { 200: S.stateBody },
  },
  {
    method: 'put',
    path: '/v1/policy',
    summary: 'Replace the running policy (validated and persisted before it takes effect; nothing half-applied)',
    tags: ['engine'],
    role: 'admin',
    body: S.putPolicyBody,
    bodyExample: { name: 'capacity-targets', params: { targets: { 'root.a': { capacityPct: 60 }, 'root.b': { capacityPct: 40 } } }, dryRun: false },
    // 409: a policy that writes what this cluster cannot carry out, unless as a dry-run.
    responses: { 200: S.policyBody, 400: S.errorBody, 409: S.errorBody },
  },
  {
    method: 'post',
    path: '/v1/dry-run',
    summary: 'Run one cycle on a fresh snapshot, optionally with another policy; returns decisions with reasons and writes nothing',
    tags: ['engine'],
    role: 'read',
    body: S.dryRunBody.optional(),
    bodyExample: { name: 'capacity-targets', params: { targets: { 'root.a': { capacityPct: 70 }, 'root.b': { capacityPct: 30 } } } },
    responses: { 200: S.dryRunResponse, 400: S.errorBody, 503: S.errorBody },
  },
];

/** Error answers every route may give, by status (the body is always `Error`). */
export const ERROR_RESPONSES: Readonly<Record<number, ErrorResponse>> = {
  400: { name: 'BadRequest', description: 'Invalid input: `field` names the offending part (`body.…`, `query.…`, a path parameter) and `reason` says why' },
  401: {
    name: 'Unauthorized',
    description: 'No bearer token, or one the service does not know',
    headers: { 'WWW-Authenticate': { description: 'Bearer realm="schedbrain"', schema: { type: 'string' } } },
  },
  403: { name: 'Forbidden', description: "The token's role is below the route's, or the Host header names another service" },
  404: { name: 'NotFound', description: 'No such resource' },
  409: { name: 'Conflict', description: 'The request does not fit the current state (`reason` says which)' },
  413: { name: 'PayloadTooLarge', description: 'The body is larger than 1 MiB' },
  415: { name: 'UnsupportedMediaType', description: 'The body is in a media type the route does not read' },
  503: { name: 'RmUnavailable', description: 'The ResourceManager could not be read' },
};

/** Body size limit of every route. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The error answers a route gives by its shape, besides those it declares: every route refuses
 * a foreign Host (403) and, unless open, a missing or weak token (401, 403); input can be
 * invalid (400), a body too large (413) or of another media type (415); a named resource can be
 * missing (404).
 */
export function withImpliedErrors(r: ApiRoute): ApiRoute {
  const implied: Record<number, ZodTypeAny> = r.open ? { 403: S.errorBody } : { 401: S.errorBody, 403: S.errorBody };
  if (r.body || r.query || r.params) implied[400] = S.errorBody;
  if (r.params) implied[404] = S.errorBody;
  if (r.body) Object.assign(implied, { 413: S.errorBody, 415: S.errorBody });
  return { ...r, responses: { ...implied, ...r.responses } };
}

/** The role `buildApi`'s authentication asks of a route (`config.role`, else by method). */
export const roleOfRoute = (r: ApiRoute): Role => r.role ?? defaultRole(r.method.toUpperCase());

export function openApiDocument(extra: readonly ApiRoute[] = []): Record<string, unknown> {
  const routes = [...API_ROUTES, ...extra]
    .map(withImpliedErrors)
    .map((r) => ({ ...r, responses: Object.fromEntries(Object.entries(r.responses).sort(([a], [b]) => Number(a) - Number(b))) }));
  return buildOpenApi(routes, {
    info: {
      title: 'schedbrain admin API',
      version: '1',
      description:
        'Control and inspect the schedbrain engine: policy, decision journal, dry-run, cluster snapshot, health and metrics, and the routes of the policies that take requests (BoPF queues, DARSS workflows, 3Sigma SLO classes and history). ' +
        'Every route but /livez, /healthz and /metrics needs a bearer token whose role (read < operate < admin) covers the role the operation lists under `bearerAuth`; ' +
        'auth.openProbes: false closes the probes too, auth.openReads: true opens every GET of role read. Errors answer `{ error, field?, reason }`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: 'http://127.0.0.1:7878', description: 'schedbrain serve with its default --host and --port' }],
    tags: [
      { name: 'ops', description: 'Probes and metrics (no token by default)' },
      { name: 'cluster', description: 'The cluster as the brain reads it' },
      { name: 'engine', description: 'The running policy, its decisions and what-if runs' },
      { name: 'bopf', description: 'BoPF queue registration and admission' },
      { name: 'darss', description: 'DARSS workflow requests, quota and reservation ledger' },
      { name: 'rayon', description: "Workflows reserved in the ResourceManager's own ReservationSystem (the Rayon baseline)" },
      { name: 'threesigma', description: '3Sigma SLO classes, history of ended applications, the runtime predictor and the last plan' },
    ],
    errorBody: S.errorBody,
    errorResponses: ERROR_RESPONSES,
    securityScheme: {
      name: 'bearerAuth',
      scheme: {
        type: 'http',
        scheme: 'bearer',
        description:
          'A token of role read, operate or admin (tokens file, SCHEDBRAIN_API_TOKENS, or the first-start <stateDir>/admin.token); an operation lists the least role it needs. See docs/operator-guide.md.',
      },
    },
    roleOf: roleOfRoute,
  });
}

/** The snapshot as JSON: Maps become arrays, sets become arrays. */
export function snapshotToJson(s: ClusterSnapshot): Record<string, unknown> {
  return {
    nowMs: s.nowMs,
    totalCapacity: s.totalCapacity,
    nodes: [...s.nodes.values()],
    apps: [...s.apps.values()],
    containers: [...s.containers.values()],
    rootQueue: s.rootQueue,
    ...(s.parts ? { parts: [...s.parts] } : {}),
    ...(s.changedNodeIds ? { changedNodeIds: [...s.changedNodeIds] } : {}),
    ...(s.changedAppIds ? { changedAppIds: [...s.changedAppIds] } : {}),
  };
}

function parse<T extends z.ZodTypeAny>(schema: T, value: unknown, prefix: string): z.output<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw zodToValidationError(r.error, prefix);
  return r.data;
}

function reasonOf(e: ValidationError): string {
  return e.message.startsWith(`${e.field}: `) ? e.message.slice(e.field.length + 2) : e.message;
}

type ErrorCode = z.infer<typeof S.errorBody>['error'];

/** Errors quote input back; a quote is cut so that no request makes a large error body. */
export const MAX_ECHO_CHARS = 200;

export function truncateEcho(text: string, max = MAX_ECHO_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

function sendError(reply: FastifyReply, status: number, error: ErrorCode, reason: string, field?: string): FastifyReply {
  // The reason holds the field name and the rule besides the quoted value: a little more room.
  const r = truncateEcho(reason, 2 * MAX_ECHO_CHARS);
  return reply
    .code(status)
    .type('application/json')
    .send(field !== undefined ? { error, field: truncateEcho(field), reason: r } : { error, reason: r });
}

class MalformedJsonError extends SchedbrainError {}

export async function buildApi(opts: ApiOptions): Promise<FastifyInstance> {
  const { engine, store, history } = opts;
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger | undefined,
    // Health checks and scrapes would flood the log; errors are logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    ...(opts.https ? { https: opts.https } : {}),
  }) as unknown as FastifyInstance;
  app.decorate('schedbrain', { engine, store, ...(history ? { history } : {}) });
  app.decorateRequest('principal', undefined);
  app.decorateRequest('audit', undefined);
  const auth = opts.auth;

  app.addHook('onRequest', async (req, reply) => {
    if (!auth.hostAllowed(req.headers.host)) {
      return sendError(
        reply,
        403,
        'forbidden',
        `Host '${req.headers.host ?? ''}' does not name this service (allowed: loopback names and the configured auth.allowedHosts)`,
      );
    }
    const path = req.url.split('?')[0]!;
    const role = req.routeOptions.config?.role ?? defaultRole(req.method);
    const token = auth.identify(req.headers.authorization);
    if (token) req.principal = token.name;
    if (auth.isOpen(req.method, path, role)) return;
    if (!token) {
      reply.header('www-authenticate', 'Bearer realm="schedbrain"');
      return sendError(
        reply,
        401,
        'unauthorized',
        req.headers.authorization ? 'the bearer token is not valid' : 'a bearer token is required (Authorization: Bearer <token>)',
      );
    }
    if (!roleAtLeast(token.role, role))
      return sendError(reply, 403, 'forbidden', `token '${token.name}' has role ${token.role}; ${req.method} ${path} needs ${role}`);
  });

  // No route takes a repeated query parameter: say so rather than fail on an array.
  app.addHook('preValidation', async (req, reply) => {
    const q = req.query as Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(q ?? {})) {
      if (Array.isArray(value)) return sendError(reply, 400, 'bad_request', `given ${value.length} times; give it once`, `query.${key}`);
    }
  });

  // Every request that may change something is audited, whatever became of it, before the
  // caller gets the answer.
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.method === 'GET' || req.method === 'HEAD' || reply.statusCode === 401 || (reply.statusCode === 403 && !req.principal)) return payload;
    const path = req.url.split('?')[0]!;
    const record = { who: req.principal ?? 'anonymous', from: req.ip, method: req.method, path, status: reply.statusCode, ...(req.audit ?? {}) };
    opts.logger?.info({ audit: record }, `audit: ${record.who} ${req.method} ${path} -> ${reply.statusCode}`);
    // A dry-run changes nothing: the log is enough; the journal keeps what changed the brain.
    if (req.routeOptions.config?.role === 'read') return payload;
    try {
      await store.journal.append(Date.now(), [
        {
          cycleId: 'api',
          policy: engine.config().name,
          rule: 'api.audit',
          reason: `${record.who} from ${record.from}: ${req.method} ${path} -> ${reply.statusCode}`,
          result: reply.statusCode < 400 ? 'applied' : 'failed',
          detail: truncateEcho(JSON.stringify(req.audit ?? {}), 4000),
        },
      ]);
    } catch (err) {
      req.log.error({ err }, 'could not journal the audit record');
    }
    return payload;
  });

  // JSON bodies: an empty body is "no body"; malformed JSON is a 400 naming `body`.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      done(new MalformedJsonError(`malformed JSON: ${(e as Error).message}`), undefined);
    }
  });

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof MalformedJsonError) return sendError(reply, 400, 'bad_request', err.message, 'body');
    if (err instanceof ValidationError) return sendError(reply, 400, 'bad_request', reasonOf(err), err.field);
    if (err instanceof ZodError) {
      const v = zodToValidationError(err, 'body');
      return sendError(reply, 400, 'bad_request', reasonOf(v), v.field);
    }
    if (err instanceof RmUnavailableError) return sendError(reply, 503, 'rm_unavailable', `ResourceManager unavailable: ${err.message}`);
    if (err instanceof ConflictError) return sendError(reply, 409, 'conflict', err.message);
    if (err instanceof UnsupportedActionError) return sendError(reply, 400, 'bad_request', err.message);
    const fe = err as { statusCode?: number; code?: string; message: string };
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return sendError(reply, 415, 'unsupported_media_type', `${fe.message}; send application/json`);
    if (fe.statusCode === 413) return sendError(reply, 413, 'payload_too_large', `${fe.message} (at most ${BODY_LIMIT_BYTES} bytes)`);
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500)
      return sendError(reply, fe.statusCode, fe.statusCode === 404 ? 'not_found' : 'bad_request', fe.message);
    req.log.error({ err }, 'request failed');
    const msg = err instanceof StoreDecodeError ? err.message : `internal error: ${fe.message}`;
    return sendError(reply, 500, 'internal', msg);
  });

  app.setNotFoundHandler((req, reply) => sendError(reply, 404, 'not_found', `no route ${req.method} ${req.url.split('?')[0]}`));

  const policyView = () => ({ ...engine.config(), registered: REGISTRY.names().map((n) => ({ name: n, description: REGISTRY.get(n)?.description ?? '' })) });

  app.get('/healthz', async (_req, reply) => {
    const s = engine.status();
    const lastCycleOk = s.lastCycle ? s.lastCycle.outcome === 'ok' : null;
    const status = s.rmReachable === false ? 'down' : s.staleReason ? 'stale' : s.lastCycle === undefined ? 'starting' : lastCycleOk ? 'ok' : 'degraded';
    const caps = s.capabilities;
    const l = s.leadership;
    const leadership = l ? { role: l.role, epoch: l.epoch, holder: l.holder ?? null } : null;
    const body: z.input<typeof S.healthBody> = {
      status,
      ...(s.staleReason ? { staleReason: s.staleReason } : {}),
      capabilities: caps
        ? {
            queueWrites: caps.queueWrites,
            containerSuspend: caps.containerSuspend,
            nodeRanking: caps.nodeRanking,
            notes: [...caps.notes],
            ...(leadership ? { leadership } : {}),
          }
        : null,
      leadership,
      rmReachable: s.rmReachable ?? null,
      ...(s.rmError ? { rmError: s.rmError } : {}),
      lastCycle: s.lastCycle ? { ...s.lastCycle } : null,
      lastCycleOk,
      advisory: s.advisory ?? null,
      ...(s.advisoryReason ? { advisoryReason: s.advisoryReason } : {}),
      dryRun: s.dryRun,
      policy: s.policy,
      running: s.running,
      consecutiveRmFailures: s.consecutiveRmFailures,
      lastSnapshotAtMs: s.lastSnapshotAtMs ?? null,
      nextCycleAtMs: s.nextCycleAtMs ?? null,
    };
    return reply.code(status === 'down' || status === 'stale' ? 503 : 200).send(body);
  });

  app.get('/livez', async () => ({ status: 'alive', running: engine.isRunning }));

  app.get('/metrics', async (_req, reply) => reply.type(PROMETHEUS_CONTENT_TYPE).send(await engine.metrics.render()));

  app.get('/v1/snapshot', async (req) => {
    const q = parse(S.snapshotQuery, req.query ?? {}, 'query');
    const v = q.parts === 'all' ? await engine.viewOfEverything() : await engine.view();
    return { ...snapshotToJson(v.snapshot), ageMs: Math.max(0, engine.clock.now() - v.atMs) };
  });

  app.get('/v1/decisions', async (req) => {
    const q = parse(S.decisionsQuery, req.query ?? {}, 'query');
    const entries = await store.journal.query({ limit: q.limit, order: q.order, sinceMs: q.since, policy: q.policy, cycleId: q.cycle });
    return { entries };
  });

  app.get('/v1/policy', async () => policyView());

  app.get('/v1/state', { config: { role: 'operate' } }, async () => {
    const s = engine.status();
    const state = await engine.settledPolicyState();
    return {
      atMs: Date.now(),
      service: opts.serviceInfo?.() ?? {},
      engine: { ...s, leadership: (engine as { leadership?: () => unknown }).leadership?.() ?? null },
      policy: {
        ...engine.config(),
        stateBytes: state === undefined ? 0 : JSON.stringify(state).length,
        summary: summarizePolicyState(engine.config().name, state, Date.now()),
      },
      backend: await engine.describeBackend().catch((e: unknown) => ({ error: (e as Error).message })),
    };
  });

  app.get('/v1/policy/state', async () => {
    const name = engine.config().name;
    const saved = await store.getPolicyState(name);
    return { policy: name, state: (await engine.settledPolicyState()) ?? null, savedAtMs: saved?.savedAtMs ?? null, savedByCycle: saved?.cycleId ?? null };
  });

  app.put('/v1/policy', { config: { role: 'admin' } }, async (req) => {
    if (req.body === undefined) throw new ValidationError('body', 'a JSON body { name, params?, dryRun? } is required');
    const body = parse(S.putPolicyBody, req.body, '');
    const { name, params, dryRun } = engine.config();
    req.audit = { before: { name, params, dryRun } };
    await engine.setPolicy(body);
    const after = engine.config();
    req.audit.after = { name: after.name, params: after.params, dryRun: after.dryRun };
    return policyView();
  });

  // Writes nothing: whoever may read may ask what a policy would do.
  app.post('/v1/dry-run', { config: { role: 'read' } }, async (req) => {
    const body = req.body === undefined ? {} : parse(S.dryRunBody, req.body, '');
    const r = await engine.dryRun(body);
    return {
      cycleId: r.cycleId,
      policy: r.policy,
      params: r.params,
      snapshotAtMs: r.snapshotAtMs,
      outcome: r.outcome === 'ok' ? 'ok' : 'policy_error',
      advisory: r.advisory,
      decisions: r.decisions.map((d) => ({
        policy: d.policy,
        rule: d.rule,
        reason: d.reason,
        action: d.action,
        requestedAction: d.requestedAction,
        result: d.result,
        skipReason: d.skipReason,
        detail: d.detail,
        error: d.error,
      })),
      notes: [...r.notes],
      ...(r.error ? { error: r.error } : {}),
    };
  });

  for (const plugin of opts.plugins ?? []) await app.register(plugin, { engine, store, ...(history ? { history } : {}) });
  await app.ready();
  return app;
}

/**
 * Loads every route module in src/api/routes (or dist/…/routes): each default-exports a
 * RoutePlugin. A new module needs no change anywhere else.
 */
export async function loadRouteModules(dir: URL = new URL('./routes/', import.meta.url)): Promise<RouteModule[]> {
  let files: string[];
  try {
    files = await readdir(fileURLToPath(dir));
  } catch {
    return [];
  }
  const mods: RouteModule[] = [];
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  for (const f of files.sort()) {
    if (!f.endsWith(ext) || f.endsWith('.d.ts') || f.includes('.test.')) continue;
    const m = (await import(pathToFileURL(`${fileURLToPath(dir)}${f}`).href)) as Partial<RouteModule>;
    if (typeof m.default !== 'function') throw new SchedbrainError(`route module ${f} must default-export a fastify plugin`);
    mods.push(m as RouteModule);
  }
  return mods;
}
