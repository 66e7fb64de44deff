/**
 * The `rayon` baseline live: workflows reserved in the RM's own ReservationSystem.
 *
 *   POST   /v1/rayon/reservations        reserve a workflow (RSL, JSON or YAML): 201 with the
 *                                         reservation id and queue, or 409 with the RM's reason
 *   GET    /v1/rayon/reservations        ours, with what the RM placed
 *   GET    /v1/rayon/reservations/:id    one
 *   DELETE /v1/rayon/reservations/:id    give it back (409 once an application of it has started)
 *
 * Available when the backend has a reservation system (`serve --reservation-queue`). The jobs of a
 * reservation are submitted to its queue with its id and the request tag, like DARSS's. Records go
 * to the store (namespace `rayon.reservations`) before the 201.
 */
import type { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { NativeReservation, ReservationSystem } from '../../core/backend.js';
import { ConflictError, ReservationRefusedError, ValidationError } from '../../core/errors.js';
import { checkWorkflow, REQUEST_TAG, workflowRequestSchema } from '../../core/rsl.js';
import type { ApiRoute } from '../openapi.js';
import { errorBody } from '../schemas.js';
import type { RoutePlugin, RoutePluginOptions } from '../server.js';
import { acceptYamlBodies, checkBounds, inBody, parseWorkflowBody } from './darss.js';
import { serialQueue } from '../serial.js';

export const RAYON_NAMESPACE = 'rayon.reservations';
const WAITING: ReadonlySet<string> = new Set(['NEW', 'NEW_SAVING', 'SUBMITTED', 'ACCEPTED']);

const idSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "-" and "_" only');
const idParam = z.object({ id: idSchema.describe('Request id') });

const recordSchema = z.object({
  id: z.string(),
  reservationId: z.string(),
  queue: z.string(),
  reservedAtMs: z.number(),
  workflow: z.record(z.string(), z.unknown()),
  deletedAtMs: z.number().optional(),
});
type ReservationRecord = z.infer<typeof recordSchema>;

const allocationBody = z.object({ fromMs: z.number(), toMs: z.number(), memoryMB: z.number(), vcores: z.number() });
const reservationBody = z
  .object({
    id: z.string(),
    reservationId: z.string(),
    queue: z.string().describe('submit the jobs here, with the reservation id and the request tag'),
    reservedAtMs: z.number(),
    deadlineMs: z.number(),
    allocations: z.array(allocationBody).describe("what the RM's agent placed; empty once the reservation is over"),
  })
  .describe('RayonReservation');
const listBody = z.object({ nowMs: z.number(), reservations: z.array(reservationBody) });
const conflictBody = z.object({ error: z.literal('conflict'), reason: z.string(), condition: z.string().optional() }).describe('RayonConflict');

const workflowExample = {
  id: 'nightly-etl',
  deadlineMs: 1_796_000_000_000,
  jobs: [
    { name: 'extract', tasks: 4, leaseMs: 300_000 },
    { name: 'load', tasks: 2, leaseMs: 600_000, prerequisites: ['extract'] },
  ],
};

export const apiRoutes: readonly ApiRoute[] = [
  {
    method: 'post',
    path: '/v1/rayon/reservations',
    summary: "Reserve a workflow (RSL) in the RM's own ReservationSystem: 201 with the reservation, or 409 with the RM's reason",
    tags: ['rayon'],
    body: workflowRequestSchema.describe('RayonWorkflow'),
    bodyTypes: ['application/json', 'application/yaml'],
    bodyExample: workflowExample,
    responses: { 201: reservationBody, 400: errorBody, 409: conflictBody, 503: errorBody },
  },
  {
    method: 'get',
    path: '/v1/rayon/reservations',
    summary: 'Workflows reserved through the brain, with what the RM placed',
    tags: ['rayon'],
    responses: { 200: listBody, 409: errorBody, 503: errorBody },
  },
  {
    method: 'get',
    path: '/v1/rayon/reservations/{id}',
    summary: 'One reserved workflow',
    tags: ['rayon'],
    params: idParam,
    responses: { 200: reservationBody, 404: errorBody, 409: errorBody },
  },
  {
    method: 'delete',
    path: '/v1/rayon/reservations/{id}',
    summary: 'Give a reservation back (409 once an application of it has started)',
    tags: ['rayon'],
    params: idParam,
    responses: { 204: 'deleted', 404: errorBody, 409: conflictBody, 503: errorBody },
  },
];

const rayonRoutes: RoutePlugin = async (app, opts: RoutePluginOptions) => {
  const { engine, store } = opts;
  const ns = store.namespace(RAYON_NAMESPACE, recordSchema);
  const records = new Map<string, ReservationRecord>();
  for (const { key, value } of await ns.list()) records.set(key, value);
  const serial = serialQueue();
  const system = (): ReservationSystem => {
    const r = engine.reservationSystem();
    if (!r) throw new ConflictError("this brain has no reservation system: start it with --reservation-queue against an RM that runs YARN's ReservationSystem");
    return r;
  };
  acceptYamlBodies(app);

  const json = (rec: ReservationRecord, placed: NativeReservation | undefined) => ({
    id: rec.id,
    reservationId: rec.reservationId,
    queue: rec.queue,
    reservedAtMs: rec.reservedAtMs,
    deadlineMs: placed?.deadlineMs ?? Number(rec.workflow.deadlineMs),
    allocations: placed?.allocations ?? [],
  });

  app.post('/v1/rayon/reservations', async (req, reply) => {
    const w = parseWorkflowBody(req.body);
    return serial(async () => {
      const rs = system();
      engine.assertLeads('reserve a workflow');
      const id = w.id ?? `wf-${randomBytes(6).toString('hex')}`;
      if (records.has(id)) return reply.code(409).send({ error: 'conflict', reason: `request ${id} exists already; give another id` });
      const now = engine.clock.now();
      try {
        checkWorkflow(w, { nowMs: now });
        checkBounds(w, now);
      } catch (e) {
        throw inBody(e);
      }
      let placed: NativeReservation;
      try {
        placed = await rs.reserve(w, id, now);
      } catch (e) {
        if (e instanceof ReservationRefusedError) return reply.code(409).send({ error: 'conflict', reason: e.message, condition: 'reservation-refused' });
        throw e;
      }
      const rec: ReservationRecord = {
        id,
        reservationId: placed.reservationId,
        queue: placed.queue,
        reservedAtMs: now,
        workflow: { ...w, id } as Record<string, unknown>,
      };
      try {
        await ns.put(id, rec);
      } catch (e) {
        // Not durable, so not reserved: given back to the RM.
        await rs.delete(placed.reservationId).catch(() => undefined);
        throw e;
      }
      records.set(id, rec);
      req.audit = { after: { id, reservationId: placed.reservationId, deadlineMs: w.deadlineMs } };
      return reply.code(201).send(json(rec, placed));
    });
  });

  const placedById = async (): Promise<Map<string, NativeReservation>> => new Map((await system().list()).map((r) => [r.reservationId, r]));

  app.get('/v1/rayon/reservations', async () => {
    const placed = await placedById();
    const out = [...records.values()].filter((r) => r.deletedAtMs === undefined).map((r) => json(r, placed.get(r.reservationId)));
    return { nowMs: engine.clock.now(), reservations: out };
  });

  const parseId = (params: unknown): string => {
    const r = idSchema.safeParse((params as { id?: string }).id ?? '');
    if (!r.success) throw new ValidationError('id', r.error.issues[0].message);
    return r.data;
  };
  const notFound = (reply: FastifyReply, id: string) => reply.code(404).send({ error: 'not_found', reason: `no reservation for request ${id}` });

  app.get('/v1/rayon/reservations/:id', async (req, reply) => {
    const id = parseId(req.params);
    const rec = records.get(id);
    if (!rec || rec.deletedAtMs !== undefined) return notFound(reply, id);
    return json(rec, (await placedById()).get(rec.reservationId));
  });

  app.delete('/v1/rayon/reservations/:id', async (req, reply) => {
    const id = parseId(req.params);
    return serial(async () => {
      const rs = system();
      engine.assertLeads('give a reservation back');
      const rec = records.get(id);
      if (!rec || rec.deletedAtMs !== undefined) return notFound(reply, id);
      const snapshot = await engine.snapshot();
      // Started: an application of it holds a container (its AM counts) or has run.
      const started = [...snapshot.apps.values()].find((a) => a.tags[REQUEST_TAG] === id.toLowerCase() && (a.runningContainers > 0 || !WAITING.has(a.state)));
      if (started)
        return reply.code(409).send({
          error: 'conflict',
          reason: `request ${id} has started (${started.id} is ${started.state} with ${started.runningContainers} container(s)): a started workflow cannot be withdrawn`,
          condition: 'started',
        });
      await rs.delete(rec.reservationId);
      const tomb = { ...rec, deletedAtMs: snapshot.nowMs };
      await ns.put(id, tomb);
      records.set(id, tomb);
      req.audit = { before: { id, reservationId: rec.reservationId } };
      return reply.code(204).send();
    });
  });
};

export default rayonRoutes;
