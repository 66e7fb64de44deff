/**
 * DARSS workflow requests, quota and reservation ledger: `/v1/darss/...`.
 *
 *   POST   /v1/darss/requests          admit a workflow (RSL, JSON or YAML): 201, or 409 with the numbers
 *   GET    /v1/darss/requests          admitted requests (filter by group) with progress and slack
 *   GET    /v1/darss/requests/:id      one request
 *   DELETE /v1/darss/requests/:id      withdraw it (409 once a task of it has started)
 *   GET    /v1/darss/quota             best-effort quota and production cap
 *   PUT    /v1/darss/quota             change them (role admin)
 *   GET    /v1/darss/ledger            the reservation file over [from, to) as a step function
 *
 * A request is judged on a fresh snapshot against the running `darss` policy's ledger, by the
 * policy's own `judgeRequest`, inside `engine.changePolicyState`: a refused or invalid request
 * changes nothing. Admissions are also kept in the store (namespace `darss.requests`, one record
 * per request, written before the 201; a deletion leaves a tombstone): whenever the policy state
 * lacks an admission the store holds, or holds one the store deleted or never got (a crash
 * between the two writes, a switch of policy and back), the booking is put back or released.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConflictError, ValidationError, zodToValidationError } from '../../core/errors.js';
import type { ClusterSnapshot } from '../../core/model.js';
import { checkWorkflow, fieldPath, jobSpanMs, REQUEST_TAG, workflowRequestSchema, type WorkflowRequest } from '../../core/rsl.js';
import {
  addSteps,
  bestEffortQuota,
  capacityChanged,
  clusterUnits,
  emptySteps,
  forEachSegment,
  judgeRequest,
  productionCap,
  releaseBooking,
  admissionParams,
  type AdmissionDecision,
  type AdmittedRequest,
  type DarssParams,
  type DarssState,
  type Piece,
} from '../../policies/darss/index.js';
import type { ApiRoute } from '../openapi.js';
import { errorBody } from '../schemas.js';
import type { RoutePlugin, RoutePluginOptions } from '../server.js';
import { serialQueue } from '../serial.js';

export const DARSS_NAMESPACE = 'darss.requests';
const POLICY = 'darss';
const DAY_MS = 86_400_000;
/** Deadlines and leases beyond this are refused: the ledger is meant for weeks, not years. */
export const MAX_HORIZON_MS = 30 * DAY_MS;
/** Shortest task lease the API takes: bookings step back one lease at a time. */
export const MIN_LEASE_MS = 1000;
/** Most booking steps (windows of one job span before its deadline) one request may cost. */
export const MAX_BOOKING_STEPS = 1_000_000;
/** Most ledger segments one GET returns. */
export const MAX_LEDGER_SEGMENTS = 10_000;
const ID_RE = /^[A-Za-z0-9._-]+$/;

const idSchema = z.string().min(1).max(128).regex(ID_RE, 'letters, digits, ".", "-" and "_" only');
const pieceSchema = z.tuple([z.number(), z.number(), z.number()]);
const admittedJobSchema = z.object({
  tasks: z.number(),
  unitsPerTask: z.number(),
  leaseMs: z.number(),
  latestStartMs: z.number(),
  bookedStartMs: z.number(),
  done: z.boolean().optional(),
});

/** One stored request: what was asked, what was decided, what was booked; or a tombstone. */
const recordSchema = z.object({
  id: z.string(),
  admittedAtMs: z.number(),
  workflow: z.record(z.string(), z.unknown()),
  decision: z.record(z.string(), z.unknown()),
  admitted: z.object({ group: z.string(), deadlineMs: z.number(), jobs: z.record(z.string(), admittedJobSchema) }).optional(),
  bookings: z.record(z.string(), z.array(pieceSchema)).optional(),
  deletedAtMs: z.number().optional(),
});
type RequestRecord = z.infer<typeof recordSchema>;

// ----------------------------------------------------------------------------------- schemas

const numbersBody = z
  .object({
    neededUnitMs: z.number(),
    freeUnitMs: z.number(),
    windowFromMs: z.number(),
    windowToMs: z.number(),
    criticalPathMs: z.number(),
    timeLeftMs: z.number().optional(),
    bookedFromMs: z.number().optional(),
  })
  .describe('DarssNumbers');
const decisionBody = z
  .object({
    accepted: z.boolean(),
    rule: z.string(),
    test: z.enum(['critical-path', 'count-only']),
    nowMs: z.number(),
    reason: z.string(),
    numbers: numbersBody,
  })
  .describe('DarssDecision');
const jobStartBody = z.object({ job: z.string(), latestStartMs: z.number(), bookedStartMs: z.number(), done: z.boolean() });
const requestBody = z
  .object({
    id: z.string(),
    group: z.string(),
    deadlineMs: z.number().nullable(),
    admittedAtMs: z.number(),
    jobs: z.array(jobStartBody),
    progress: z.object({ jobs: z.number().int(), jobsDone: z.number().int(), fraction: z.number() }),
    slackMs: z.number().nullable().describe('least latest start of a job not done, less now; null when nothing is left'),
    noLongerFit: z.object({ atMs: z.number(), capacityUnits: z.number(), limitUnits: z.number(), bookedUnits: z.number() }).nullable(),
    decision: decisionBody,
  })
  .describe('DarssRequest');
const requestDetailBody = requestBody.extend({ workflow: workflowRequestSchema }).describe('DarssRequestDetail');
const createdBody = z.object({ id: z.string(), latestStarts: z.record(z.string(), z.number()), decision: decisionBody });
const conflictBody = z
  .object({
    error: z.literal('conflict'),
    reason: z.string(),
    condition: z.string().optional(),
    numbers: numbersBody.optional(),
    decision: decisionBody.optional(),
  })
  .describe('DarssConflict');
const listQuery = z.object({ group: z.string().min(1).max(128).optional(), limit: z.coerce.number().int().min(1).max(10_000).default(1000) }).strict();
const listBody = z.object({ nowMs: z.number(), requests: z.array(requestBody) });

export const quotaSchema = z
  .object({
    m: z.number().min(0).max(1_000_000),
    n: z.number().positive().max(1_000_000),
    periodMs: z.number().int().min(1000).max(MAX_HORIZON_MS),
    productionCapPct: z.number().min(0).max(100).optional(),
  })
  .strict()
  .superRefine((q, ctx) => {
    if (q.m > q.n) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['m'], message: `m (${q.m}) must not exceed n (${q.n})` });
  })
  .describe('DarssQuotaUpdate');
const quotaBody = z
  .object({
    m: z.number(),
    n: z.number(),
    periodMs: z.number(),
    productionCapPct: z.number(),
    capacityUnits: z.number(),
    bestEffortUnits: z.number(),
    productionLimitUnits: z.number(),
    noLongerFit: z.array(z.string()).optional(),
  })
  .describe('DarssQuota');
const ledgerQuery = z
  .object({
    from: z.coerce.number().int().min(0).max(1e15).optional(),
    to: z.coerce.number().int().min(0).max(1e15).optional(),
    group: z.string().min(1).max(128).optional(),
  })
  .strict();
const ledgerBody = z
  .object({
    fromMs: z.number(),
    toMs: z.number(),
    capacityUnits: z.number(),
    productionLimitUnits: z.number(),
    group: z.string().optional(),
    steps: z.array(z.object({ fromMs: z.number(), toMs: z.number(), units: z.number() })),
    truncated: z.boolean(),
  })
  .describe('DarssLedger');
const workflowBody = workflowRequestSchema.describe('DarssWorkflow');
const idParam = z.object({ id: idSchema.describe('Request id') });
const workflowExample = {
  id: 'nightly-etl',
  group: 'analytics',
  deadlineMs: 1_796_000_000_000,
  jobs: [
    { name: 'extract', tasks: 20, leaseMs: 300_000 },
    { name: 'load', tasks: 5, leaseMs: 600_000, unitsPerTask: 2, prerequisites: ['extract'] },
  ],
};

export const apiRoutes: readonly ApiRoute[] = [
  {
    method: 'post',
    path: '/v1/darss/requests',
    summary:
      'Submit a workflow (RSL; application/json or application/yaml); admitted against the ledger (201 with its latest starts) or refused (409 with the failing condition and its numbers)',
    tags: ['darss'],
    body: workflowBody,
    bodyTypes: ['application/json', 'application/yaml'],
    bodyExample: workflowExample,
    responses: { 201: createdBody, 400: errorBody, 409: conflictBody, 503: errorBody },
  },
  {
    method: 'get',
    path: '/v1/darss/requests',
    summary: 'Admitted DARSS requests with progress and slack',
    tags: ['darss'],
    query: listQuery,
    responses: { 200: listBody, 400: errorBody },
  },
  {
    method: 'get',
    path: '/v1/darss/requests/{id}',
    summary: 'One admitted DARSS request with its workflow',
    tags: ['darss'],
    params: idParam,
    responses: { 200: requestDetailBody, 404: errorBody },
  },
  {
    method: 'delete',
    path: '/v1/darss/requests/{id}',
    summary: 'Withdraw a request and release its bookings (409 once one of its tasks has started)',
    tags: ['darss'],
    params: idParam,
    responses: { 204: 'withdrawn', 404: errorBody, 409: conflictBody, 503: errorBody },
  },
  {
    method: 'get',
    path: '/v1/darss/quota',
    summary: 'Best-effort quota (m of n units per period) and production cap',
    tags: ['darss'],
    responses: { 200: quotaBody, 409: errorBody },
  },
  {
    method: 'put',
    path: '/v1/darss/quota',
    summary: 'Change the best-effort quota and production cap (role admin); names admitted requests that no longer fit',
    tags: ['darss'],
    role: 'admin',
    body: quotaSchema,
    bodyExample: { m: 40, n: 100, periodMs: 3_600_000, productionCapPct: 80 },
    responses: { 200: quotaBody, 400: errorBody, 409: errorBody },
  },
  {
    method: 'get',
    path: '/v1/darss/ledger',
    summary: 'Units reserved for production over [from, to) as a step function (at most 30 days, 10,000 steps)',
    tags: ['darss'],
    query: ledgerQuery,
    responses: { 200: ledgerBody, 400: errorBody, 409: errorBody },
  },
];

// ----------------------------------------------------------------------------------- helpers

function parse<T extends z.ZodTypeAny>(schema: T, value: unknown, prefix: string): z.output<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw zodToValidationError(r.error, prefix);
  return r.data;
}

/** A core ValidationError names a field of the request; the API names it under `body`. */
export function inBody(e: unknown): unknown {
  if (!(e instanceof ValidationError)) return e;
  const reason = e.message.startsWith(`${e.field}: `) ? e.message.slice(e.field.length + 2) : e.message;
  return new ValidationError(e.field === '(request)' ? 'body' : `body.${e.field}`, reason);
}

export function parseWorkflowBody(body: unknown): WorkflowRequest {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ValidationError('body', 'a workflow object (JSON or YAML) is required');
  const r = workflowRequestSchema.safeParse(body);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new ValidationError(`body.${fieldPath(i.path)}`, i.message);
  }
  if (r.data.id !== undefined && !ID_RE.test(r.data.id)) throw new ValidationError('body.id', 'letters, digits, ".", "-" and "_" only');
  return r.data;
}

/** Bounds beyond the RSL schema: what an operator-facing API lets reach the ledger and the RM (fields as in the request). */
export function checkBounds(w: WorkflowRequest, now: number): void {
  if (w.deadlineMs === undefined)
    throw new ValidationError('deadlineMs', 'required: the admin API takes production workflows (best-effort jobs need no request)');
  if (w.deadlineMs > now + MAX_HORIZON_MS)
    throw new ValidationError('deadlineMs', `more than ${MAX_HORIZON_MS / DAY_MS} days ahead (${w.deadlineMs} > ${now + MAX_HORIZON_MS})`);
  if (w.submittedAtMs !== undefined && w.submittedAtMs > now)
    throw new ValidationError('submittedAtMs', `in the future (${w.submittedAtMs} > ${now}); omit it, the request is judged now`);
  let steps = 0;
  w.jobs.forEach((j, i) => {
    if (j.leaseMs < MIN_LEASE_MS) throw new ValidationError(`jobs[${i}].leaseMs`, `below ${MIN_LEASE_MS} ms`);
    if (j.leaseMs > MAX_HORIZON_MS) throw new ValidationError(`jobs[${i}].leaseMs`, `above ${MAX_HORIZON_MS} ms`);
    steps += Math.ceil(((j.deadlineMs ?? w.deadlineMs!) - now) / jobSpanMs(j));
  });
  if (steps > MAX_BOOKING_STEPS)
    throw new ValidationError('jobs', `booking would step through ${steps} windows (most ${MAX_BOOKING_STEPS}): use longer leases or a nearer deadline`);
}

function numbersOf(d: AdmissionDecision) {
  return {
    neededUnitMs: d.neededUnitMs,
    freeUnitMs: d.freeUnitMs,
    windowFromMs: d.windowFromMs,
    windowToMs: d.windowToMs,
    criticalPathMs: d.criticalPathMs,
    ...(d.timeLeftMs !== undefined ? { timeLeftMs: d.timeLeftMs } : {}),
    ...(d.bookedFromMs !== undefined ? { bookedFromMs: d.bookedFromMs } : {}),
  };
}

function decisionJson(d: AdmissionDecision) {
  return { accepted: d.accepted, rule: d.rule, test: d.test, nowMs: d.nowMs, reason: d.reason, numbers: numbersOf(d) };
}

const darssState = (raw: unknown): DarssState => raw as DarssState;

/**
 * Makes the policy state agree with the stored records: admissions it lacks are booked again
 * from their records (what lies before `now` is past), tombstoned ones it holds are released, and
 * so are admissions made here that were never stored: their 201 was never sent.
 * Returns whether anything changed.
 */
function restore(state: DarssState, records: ReadonlyMap<string, RequestRecord>, now: number): boolean {
  let changed = false;
  for (const id of orphans(state, records)) {
    withdraw(state, id, state.admitted[id].group, now);
    changed = true;
  }
  for (const rec of records.values()) {
    if (rec.deletedAtMs !== undefined) {
      if (state.admitted[rec.id] || state.ledger.bookings[rec.id]) {
        withdraw(state, rec.id, rec.admitted?.group ?? 'default', now);
        changed = true;
      }
      continue;
    }
    if (state.admitted[rec.id] || !rec.admitted) continue;
    const l = state.ledger;
    const gf = (l.byGroup[rec.admitted.group] ??= emptySteps());
    for (const [job, pieces] of Object.entries(rec.bookings ?? {})) {
      const kept: Piece[] = [];
      for (const [a, b, u] of pieces) {
        if (b <= now) continue;
        const s = Math.max(a, now);
        addSteps(l.production, s, b, u);
        addSteps(gf, s, b, u);
        kept.push([s, b, u]);
      }
      if (kept.length) (l.bookings[rec.id] ??= {})[job] = kept;
    }
    state.admitted[rec.id] = structuredClone(rec.admitted);
    state.judged[rec.id] = { ...(rec.decision as unknown as AdmissionDecision), via: VIA } as ApiDecision;
    changed = true;
  }
  return changed;
}

/** Marks a decision taken through this API, so the state's admissions from `params.requests` are never taken for orphans. */
const VIA = 'api';
type ApiDecision = AdmissionDecision & { via?: typeof VIA };

function orphans(state: DarssState, records: ReadonlyMap<string, RequestRecord>): string[] {
  return Object.keys(state.admitted).filter((id) => !records.has(id) && (state.judged[id] as ApiDecision | undefined)?.via === VIA);
}

/** Releases what a request holds from `now` on and forgets it: its applications are no longer production. */
function withdraw(state: DarssState, id: string, group: string, now: number): void {
  releaseBooking(state.ledger, id, group, now);
  delete state.ledger.bookings[id];
  delete state.admitted[id];
  delete state.judged[id];
  if (state.noLongerFit) delete state.noLongerFit[id];
}

/** Whether a task of the request has started: an application of it holds or held containers, or a job is done. */
function startedBy(snapshot: ClusterSnapshot, id: string, state: DarssState | undefined): string | undefined {
  for (const app of snapshot.apps.values()) {
    if (app.tags[REQUEST_TAG] !== id) continue;
    if (app.runningContainers > 0 || app.state === 'FINISHED' || app.state === 'FAILED')
      return `application ${app.id} (${app.state}, ${app.runningContainers} containers)`;
  }
  const done = Object.entries(state?.admitted[id]?.jobs ?? {}).find(([, j]) => j.done);
  return done ? `job ${done[0]} is done` : undefined;
}

/** Workflow bodies may come as YAML as well as JSON. */
export function acceptYamlBodies(app: FastifyInstance): void {
  app.addContentTypeParser(['application/yaml', 'application/x-yaml', 'text/yaml'], { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, parseYaml(text, { maxAliasCount: 100, logLevel: 'error' }) as unknown);
    } catch (e) {
      done(new ValidationError('body', `malformed YAML: ${(e as Error).message}`), undefined);
    }
  });
}

// ----------------------------------------------------------------------------------- routes

const darssRoutes: RoutePlugin = async (app, opts: RoutePluginOptions) => {
  const { engine, store } = opts;
  const ns = store.namespace(DARSS_NAMESPACE, recordSchema);
  const records = new Map<string, RequestRecord>();
  for (const { key, value } of await ns.list()) records.set(key, value);
  const serial = serialQueue();

  const running = (): boolean => engine.config().name === POLICY;
  const params = (): DarssParams => engine.config().params as DarssParams;
  const requireDarss = (): void => {
    if (!running()) throw new ConflictError(`the running policy is ${engine.config().name}; DARSS requests need the darss policy (PUT /v1/policy)`);
  };
  const liveState = (): DarssState | undefined => (running() ? darssState(engine.policyState()) : undefined);

  /** Brings the running policy's state in line with the store (cheap when it already is). */
  const reconcile = async (): Promise<void> => {
    const s = liveState();
    if (!s) return;
    const off =
      orphans(s, records).length > 0 || [...records.values()].some((r) => (r.deletedAtMs !== undefined ? Boolean(s.admitted[r.id]) : !s.admitted[r.id]));
    if (!off) return;
    await engine.changePolicyState(POLICY, (raw) => ({ changed: restore(darssState(raw), records, engine.clock.now()), value: undefined }));
  };
  try {
    await serial(reconcile);
  } catch (e) {
    app.log.warn({ err: e }, 'could not bring the DARSS state in line with the stored requests; retried at the next request');
  }

  acceptYamlBodies(app);

  const requestJson = (rec: RequestRecord, state: DarssState | undefined, now: number) => {
    const admitted = state?.admitted[rec.id] ?? rec.admitted;
    const jobs = Object.entries(admitted?.jobs ?? {}).map(([job, j]) => ({
      job,
      latestStartMs: j.latestStartMs,
      bookedStartMs: j.bookedStartMs,
      done: j.done === true,
    }));
    const left = jobs.filter((j) => !j.done);
    const done = jobs.length - left.length;
    const d = rec.decision as unknown as AdmissionDecision;
    return {
      id: rec.id,
      group: admitted?.group ?? String(rec.workflow.group ?? 'default'),
      deadlineMs: admitted?.deadlineMs ?? null,
      admittedAtMs: rec.admittedAtMs,
      jobs,
      progress: { jobs: jobs.length, jobsDone: done, fraction: jobs.length ? done / jobs.length : 1 },
      slackMs: left.length ? Math.min(...left.map((j) => j.latestStartMs)) - now : null,
      noLongerFit: state?.noLongerFit?.[rec.id] ?? null,
      decision: decisionJson(d),
    };
  };

  const conflict = (reply: FastifyReply, d: AdmissionDecision) =>
    reply.code(409).send({ error: 'conflict', reason: d.reason, condition: d.rule, numbers: numbersOf(d), decision: decisionJson(d) });

  app.post('/v1/darss/requests', async (req, reply) => {
    const w = parseWorkflowBody(req.body);
    return serial(async () => {
      requireDarss();
      await reconcile();
      const id = w.id ?? `wf-${randomBytes(6).toString('hex')}`;
      if (records.has(id) || liveState()?.judged[id])
        return reply.code(409).send({ error: 'conflict', reason: `request ${id} exists already; give another id` });
      const snapshot = await engine.snapshot();
      const now = snapshot.nowMs;
      const p = params();
      const { total, largest } = clusterUnits(snapshot, p.unit);
      try {
        checkWorkflow(w, { nowMs: now, largestNodeUnits: largest });
        checkBounds(w, now);
      } catch (e) {
        throw inBody(e);
      }
      const request = { ...w, id, submittedAtMs: now };
      type Judged = { decision: AdmissionDecision; admitted?: AdmittedRequest; bookings?: Record<string, Piece[]> };
      const out = await engine.changePolicyState<Judged>(POLICY, (raw) => {
        const state = darssState(raw);
        // Judged on the capacity of this snapshot, as the next cycle would see it.
        if (total !== state.ledger.capacityUnits) capacityChanged(state, total, now, p);
        const decision = judgeRequest(state, request, now, largest, p);
        if (!decision.accepted) return { changed: false, value: { decision } };
        state.judged[id] = { ...decision, via: VIA } as ApiDecision;
        return {
          changed: true,
          value: { decision, admitted: structuredClone(state.admitted[id]), bookings: structuredClone(state.ledger.bookings[id] ?? {}) },
        };
      });
      const d = out.decision;
      if (!d.accepted) {
        if (d.rule === 'invalidRequest') throw new ValidationError('body', d.reason);
        return conflict(reply, d);
      }
      const rec: RequestRecord = {
        id,
        admittedAtMs: now,
        workflow: request as unknown as Record<string, unknown>,
        decision: d as unknown as Record<string, unknown>,
        admitted: out.admitted,
        bookings: out.bookings,
      };
      try {
        await ns.put(id, rec);
      } catch (e) {
        // Not durable, so not admitted: the booking is taken back.
        await engine.changePolicyState(POLICY, (raw) => {
          withdraw(darssState(raw), id, w.group, now);
          return { changed: true, value: undefined };
        });
        throw e;
      }
      records.set(id, rec);
      req.audit = { after: { id, group: w.group, deadlineMs: w.deadlineMs, neededUnitMs: d.neededUnitMs } };
      const latestStarts: Record<string, number> = {};
      for (const [job, j] of Object.entries(out.admitted?.jobs ?? {})) latestStarts[job] = j.latestStartMs;
      return reply.code(201).send({ id, latestStarts, decision: decisionJson(d) });
    });
  });

  app.get('/v1/darss/requests', async (req) => {
    const q = parse(listQuery, req.query ?? {}, 'query');
    await serial(reconcile);
    const now = engine.clock.now();
    const state = liveState();
    const out = [];
    for (const rec of records.values()) {
      if (rec.deletedAtMs !== undefined) continue;
      const j = requestJson(rec, state, now);
      if (q.group !== undefined && j.group !== q.group) continue;
      out.push(j);
      if (out.length >= q.limit) break;
    }
    return { nowMs: now, requests: out };
  });

  const parseId = (params: unknown): string => {
    const r = idSchema.safeParse((params as { id?: string }).id ?? '');
    if (!r.success) throw new ValidationError('id', r.error.issues[0].message);
    return r.data;
  };
  const notFound = (reply: FastifyReply, id: string) => reply.code(404).send({ error: 'not_found', reason: `no DARSS request ${id}` });

  app.get('/v1/darss/requests/:id', async (req, reply) => {
    const id = parseId(req.params);
    const rec = records.get(id);
    if (!rec || rec.deletedAtMs !== undefined) return notFound(reply, id);
    await serial(reconcile);
    return { ...requestJson(rec, liveState(), engine.clock.now()), workflow: rec.workflow };
  });

  app.delete('/v1/darss/requests/:id', async (req, reply) => {
    const id = parseId(req.params);
    return serial(async () => {
      const rec = records.get(id);
      if (!rec || rec.deletedAtMs !== undefined) return notFound(reply, id);
      const snapshot = await engine.snapshot();
      const started = startedBy(snapshot, id, liveState());
      if (started) return reply.code(409).send({ error: 'conflict', reason: `request ${id} has started (${started}): a started workflow cannot be withdrawn` });
      // The tombstone first: once it is stored, a restart releases the booking even if the next step does not happen.
      const tomb: RequestRecord = { ...rec, deletedAtMs: snapshot.nowMs };
      await ns.put(id, tomb);
      records.set(id, tomb);
      if (running())
        await engine.changePolicyState(POLICY, (raw) => ({ changed: restore(darssState(raw), new Map([[id, tomb]]), snapshot.nowMs), value: undefined }));
      req.audit = { before: { id, group: rec.admitted?.group, deadlineMs: rec.admitted?.deadlineMs } };
      return reply.code(204).send();
    });
  });

  const quotaJson = (p: DarssParams, state: DarssState | undefined) => {
    const c = state?.ledger.capacityUnits ?? 0;
    return {
      m: p.quota.m,
      n: p.quota.n,
      periodMs: p.quota.periodMs,
      productionCapPct: p.productionCapPct,
      capacityUnits: c,
      bestEffortUnits: bestEffortQuota(c, p.quota),
      productionLimitUnits: productionCap(c, admissionParams(p)),
    };
  };

  app.get('/v1/darss/quota', async () => {
    requireDarss();
    return quotaJson(params(), liveState());
  });

  app.put('/v1/darss/quota', { config: { role: 'admin' } }, async (req) => {
    if (req.body === undefined) throw new ValidationError('body', 'a JSON body { m, n, periodMs, productionCapPct? } is required');
    const q = parse(quotaSchema, req.body, 'body');
    return serial(async () => {
      requireDarss();
      const before = params();
      req.audit = { before: { quota: before.quota, productionCapPct: before.productionCapPct } };
      await engine.setPolicy({
        name: POLICY,
        params: { ...before, quota: { m: q.m, n: q.n, periodMs: q.periodMs }, productionCapPct: q.productionCapPct ?? before.productionCapPct },
      });
      const p = params();
      req.audit.after = { quota: p.quota, productionCapPct: p.productionCapPct };
      // Bookings made under the old limit may go over the new one: recorded and named, never dropped.
      const over = await engine.changePolicyState(POLICY, (raw) => {
        const state = darssState(raw);
        // Before the first cycle the ledger does not know the cluster's units yet: nothing to compare.
        if (state.ledger.capacityUnits === 0) return { changed: false, value: [] as string[] };
        const was = JSON.stringify(state.noLongerFit ?? {});
        capacityChanged(state, state.ledger.capacityUnits, engine.clock.now(), p);
        return { changed: JSON.stringify(state.noLongerFit ?? {}) !== was, value: Object.keys(state.noLongerFit ?? {}) };
      });
      return { ...quotaJson(p, liveState()), noLongerFit: over };
    });
  });

  app.get('/v1/darss/ledger', async (req) => {
    const q = parse(ledgerQuery, req.query ?? {}, 'query');
    requireDarss();
    await serial(reconcile);
    const from = q.from ?? engine.clock.now();
    const to = q.to ?? from + DAY_MS;
    if (!(to > from)) throw new ValidationError('query.to', `must be after from (${to} ≤ ${from})`);
    if (to - from > MAX_HORIZON_MS) throw new ValidationError('query.to', `at most ${MAX_HORIZON_MS / DAY_MS} days after from`);
    const state = liveState()!;
    const f = q.group !== undefined ? (state.ledger.byGroup[q.group] ?? emptySteps()) : state.ledger.production;
    const steps: { fromMs: number; toMs: number; units: number }[] = [];
    let truncated = false;
    forEachSegment(f, from, to, (a, b, v) => {
      const last = steps[steps.length - 1];
      if (last && Math.abs(last.units - v) < 1e-9) last.toMs = b;
      else if (steps.length < MAX_LEDGER_SEGMENTS) steps.push({ fromMs: a, toMs: b, units: v });
      else truncated = true;
    });
    const p = params();
    return {
      fromMs: from,
      toMs: to,
      capacityUnits: state.ledger.capacityUnits,
      productionLimitUnits: productionCap(state.ledger.capacityUnits, admissionParams(p)),
      ...(q.group !== undefined ? { group: q.group } : {}),
      steps,
      truncated,
    };
  });
};

export default darssRoutes;
