/**
 * BoPF queue registration: `/v1/bopf/queues`.
 *
 *   POST   /v1/bopf/queues          register an LQ or TQ; the reply gives its admission class and why
 *   GET    /v1/bopf/queues          every admitted queue with its class
 *   GET    /v1/bopf/queues/:name    one queue
 *   PUT    /v1/bopf/queues/:name    re-register with new parameters (judged as if it were absent)
 *   DELETE /v1/bopf/queues/:name    unregister
 *
 * A queue the admission conditions reject is answered 409 with the failing condition and its
 * numbers, and nothing is stored. Invalid input is a 400 naming the field. Admissions are kept in
 * the store (namespace `bopf.admissions`, one record, written atomically) and survive a restart.
 * When the engine runs `bopf` or `nbopf`, its parameters get the admissions (`book`) so the
 * policy allocates for exactly the admitted set; if that hand-over fails the change is undone.
 */
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ValidationError, zodToValidationError } from '../../core/errors.js';
import { AdmissionControl, type AdmissionBook, type AdmissionDecision } from '../../policies/bopf/admission.js';
import { bookSchema } from '../../policies/bopf/policy.js';
import { queueNameSchema, queueSpecSchema, type QueueSpec } from '../../policies/bopf/spec.js';
import type { ApiRoute } from '../openapi.js';
import { errorBody } from '../schemas.js';
import type { RoutePlugin, RoutePluginOptions } from '../server.js';
import { serialQueue } from '../serial.js';

export const BOPF_NAMESPACE = 'bopf.admissions';
const BOOK_KEY = 'book';
const POLICIES = new Set(['bopf', 'nbopf']);

const checkBody = z.object({ condition: z.enum(['safety', 'fairness', 'resource']), passed: z.boolean(), detail: z.string() });
const admissionBody = z
  .object({
    class: z.enum(['hard', 'soft', 'elastic', 'rejected']),
    reason: z.string(),
    queuesIfAdmitted: z.number().int(),
    checks: z.array(checkBody),
    demand: z.object({ vcoreSeconds: z.number(), memoryMBSeconds: z.number() }).optional(),
    demandHow: z.string().optional(),
  })
  .describe('BopfAdmission');
const queueBody = z
  .object({
    name: z.string(),
    kind: z.enum(['LQ', 'TQ']),
    class: z.enum(['hard', 'soft', 'elastic']),
    reason: z.string(),
    spec: queueSpecSchema,
    demand: z.object({ vcoreSeconds: z.number(), memoryMBSeconds: z.number() }),
  })
  .describe('BopfQueue');
const listBody = z.object({
  capacity: z.object({ memoryMB: z.number(), vcores: z.number() }).nullable(),
  variant: z.enum(['bopf', 'nbopf']),
  queues: z.array(queueBody),
});
const registeredBody = z.object({ queue: queueBody, admission: admissionBody });
const conflictBody = z
  .object({
    error: z.literal('conflict'),
    reason: z.string(),
    condition: z.enum(['safety', 'fairness', 'resource']).optional(),
    detail: z.string().optional(),
    admission: admissionBody.optional(),
  })
  .describe('BopfConflict');
const specBody = queueSpecSchema.describe('BopfQueueSpec');
const nameParam = z.object({ name: queueNameSchema.describe('Queue name') });
const lqExample = { name: 'etl', kind: 'LQ', periodMs: 600_000, burstDeadlineMs: 120_000, demand: { vcoreSeconds: 2400, memoryMBSeconds: 4_915_200 } };

export const apiRoutes: readonly ApiRoute[] = [
  {
    method: 'post',
    path: '/v1/bopf/queues',
    summary: 'Register a BoPF queue (LQ or TQ); answers its admission class with the conditions and their numbers',
    tags: ['bopf'],
    body: specBody,
    bodyExample: lqExample,
    responses: { 201: registeredBody, 400: errorBody, 409: conflictBody, 503: errorBody },
  },
  { method: 'get', path: '/v1/bopf/queues', summary: 'Admitted BoPF queues with their classes', tags: ['bopf'], responses: { 200: listBody } },
  {
    method: 'get',
    path: '/v1/bopf/queues/{name}',
    summary: 'One admitted BoPF queue',
    tags: ['bopf'],
    params: nameParam,
    responses: { 200: queueBody, 404: errorBody },
  },
  {
    method: 'put',
    path: '/v1/bopf/queues/{name}',
    summary: 'Re-register a queue with new parameters (judged as if absent; unchanged when rejected)',
    tags: ['bopf'],
    params: nameParam,
    body: specBody,
    bodyExample: { ...lqExample, burstDeadlineMs: 180_000 },
    responses: { 200: registeredBody, 400: errorBody, 404: errorBody, 409: conflictBody },
  },
  {
    method: 'delete',
    path: '/v1/bopf/queues/{name}',
    summary: 'Unregister a BoPF queue',
    tags: ['bopf'],
    params: nameParam,
    responses: { 204: 'removed', 404: errorBody },
  },
];

function admissionJson(d: AdmissionDecision) {
  return {
    class: d.cls,
    reason: d.reason,
    queuesIfAdmitted: d.queuesIfAdmitted,
    checks: d.checks.map((c) => ({ ...c })),
    ...(d.demand ? { demand: d.demand } : {}),
    ...(d.demandHow ? { demandHow: d.demandHow } : {}),
  };
}

function queueJson(q: AdmissionBook['queues'][number]) {
  return { name: q.spec.name, kind: q.spec.kind, class: q.cls, reason: q.reason, spec: q.spec, demand: q.demand };
}

function parseSpec(body: unknown): QueueSpec {
  if (body === undefined || body === null || typeof body !== 'object') throw new ValidationError('body', 'a JSON object describing the queue is required');
  const r = queueSpecSchema.safeParse(body);
  if (!r.success) throw zodToValidationError(r.error, 'body');
  return r.data;
}

function parseName(params: unknown): string {
  const name = (params as { name?: string }).name ?? '';
  const r = queueNameSchema.safeParse(name);
  if (!r.success) throw new ValidationError('name', r.error.issues[0].message);
  return name;
}

const bopfRoutes: RoutePlugin = async (app, opts: RoutePluginOptions) => {
  const { engine, store } = opts;
  const ns = store.namespace(BOPF_NAMESPACE, bookSchema);
  let book: AdmissionBook | undefined = await ns.get(BOOK_KEY);
  const serial = serialQueue();

  const variantNow = (): 'bopf' | 'nbopf' => (engine.config().name === 'nbopf' ? 'nbopf' : 'bopf');

  /** The admission control to judge a change on (a copy: nothing changes until committed). */
  const working = async (): Promise<AdmissionControl> => {
    if (book) return AdmissionControl.fromBook(book);
    const snap = await engine.snapshot();
    return new AdmissionControl(snap.totalCapacity, { variant: variantNow() });
  };

  /** Stores the new admissions, then hands them to a running BoPF policy; undone on failure. */
  const commit = async (next: AdmissionBook): Promise<void> => {
    const prev = book;
    await ns.put(BOOK_KEY, next);
    try {
      const cfg = engine.config();
      if (POLICIES.has(cfg.name)) {
        await engine.setPolicy({ name: cfg.name, params: { ...(cfg.params as Record<string, unknown>), book: next } });
      }
    } catch (e) {
      if (prev) await ns.put(BOOK_KEY, prev);
      else await ns.del(BOOK_KEY);
      throw e;
    }
    book = next;
  };

  const conflict = (reply: FastifyReply, d: AdmissionDecision) => {
    const failed = d.checks.find((c) => !c.passed);
    return reply
      .code(409)
      .send({ error: 'conflict', reason: d.reason, ...(failed ? { condition: failed.condition, detail: failed.detail } : {}), admission: admissionJson(d) });
  };

  app.post('/v1/bopf/queues', async (req, reply) => {
    const spec = parseSpec(req.body);
    return serial(async () => {
      const control = await working();
      if (control.get(spec.name)) {
        return reply.code(409).send({ error: 'conflict', reason: `queue ${spec.name} is already registered; change it with PUT /v1/bopf/queues/${spec.name}` });
      }
      const d = control.admit(spec);
      if (d.cls === 'rejected') return conflict(reply, d);
      const next = control.toBook();
      await commit(next);
      return reply.code(201).send({ queue: queueJson(control.get(spec.name)!), admission: admissionJson(d) });
    });
  });

  app.get('/v1/bopf/queues', async () => ({
    capacity: book?.capacity ?? null,
    variant: book?.variant ?? variantNow(),
    queues: (book?.queues ?? []).map(queueJson),
  }));

  app.get('/v1/bopf/queues/:name', async (req, reply) => {
    const name = parseName(req.params);
    const q = book?.queues.find((x) => x.spec.name === name);
    if (!q) return reply.code(404).send({ error: 'not_found', reason: `no BoPF queue ${name}` });
    return queueJson(q);
  });

  app.put('/v1/bopf/queues/:name', async (req, reply) => {
    const name = parseName(req.params);
    const body = req.body as Record<string, unknown> | undefined;
    const spec = parseSpec(body && typeof body === 'object' && body.name === undefined ? { ...body, name } : body);
    if (spec.name !== name) throw new ValidationError('body.name', `must be ${name} (the queue in the path) or omitted`);
    return serial(async () => {
      if (!book?.queues.some((q) => q.spec.name === name)) return reply.code(404).send({ error: 'not_found', reason: `no BoPF queue ${name}` });
      const control = await working();
      const d = control.admit(spec);
      if (d.cls === 'rejected') return conflict(reply, d);
      await commit(control.toBook());
      return { queue: queueJson(control.get(name)!), admission: admissionJson(d) };
    });
  });

  app.delete('/v1/bopf/queues/:name', async (req, reply) => {
    const name = parseName(req.params);
    return serial(async () => {
      if (!book?.queues.some((q) => q.spec.name === name)) return reply.code(404).send({ error: 'not_found', reason: `no BoPF queue ${name}` });
      const control = await working();
      control.remove(name);
      await commit(control.toBook());
      return reply.code(204).send();
    });
  });
};

export default bopfRoutes;
