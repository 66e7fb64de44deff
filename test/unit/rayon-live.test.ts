/**
 * The `rayon` baseline live, without an RM: the mapping of a workflow to a YARN reservation, and
 * `/v1/rayon/reservations` on a backend with a stand-in reservation system (the real one is
 * exercised in test/integration/darss-live.test.ts).
 */
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import rayonRoutes from '../../src/api/routes/rayon.js';
import { buildApi } from '../../src/api/server.js';
import type { NativeReservation, ReservationSystem } from '../../src/core/backend.js';
import { ReservationRefusedError } from '../../src/core/errors.js';
import type { AppView } from '../../src/core/model.js';
import { REQUEST_TAG, workflowRequestSchema, type WorkflowRequest } from '../../src/core/rsl.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { Store } from '../../src/store/store.js';
import { reservationSubmission } from '../../src/yarn/reservations.js';
import { asAdmin, testAuth } from '../support/api-auth.js';

const HOUR = 3_600_000;

describe('a workflow as a YARN reservation', () => {
  it('is one reservation whose stages are the jobs in dependency order, each a gang of its tasks and AM', () => {
    const w = workflowRequestSchema.parse({
      deadlineMs: 10 * HOUR,
      jobs: [
        { name: 'load', tasks: 2, leaseMs: 600_000, unitsPerTask: 2, prerequisites: ['extract'] },
        { name: 'extract', tasks: 5, leaseMs: 300_000 },
      ],
    });
    const s = reservationSubmission(w, 'etl', 'reservation_1_0001', { queue: 'plan', unit: { vcores: 1, memoryMB: 1024 }, amOverheadMs: 10_000 }, HOUR);
    expect(s.queue).toBe('plan');
    expect(s['reservation-id']).toBe('reservation_1_0001');
    const d = s['reservation-definition'];
    expect([d.arrival, d.deadline, d['reservation-name']]).toEqual([HOUR, 10 * HOUR, 'etl']);
    expect(d['reservation-requests']['reservation-request-interpreter']).toBe(2);
    expect(d['reservation-requests']['reservation-request']).toEqual([
      { duration: 310_000, 'num-containers': 6, 'min-concurrency': 6, capability: { memory: 1024, vCores: 1 } },
      { duration: 610_000, 'num-containers': 3, 'min-concurrency': 3, capability: { memory: 2048, vCores: 2 } },
    ]);
  });

  it('is refused for a best-effort workflow (no deadline)', () => {
    const w = workflowRequestSchema.parse({ jobs: [{ name: 'a', tasks: 1, leaseMs: 1000 }] });
    expect(() => reservationSubmission(w, 'x', 'r', { queue: 'plan', unit: { vcores: 1, memoryMB: 1024 }, amOverheadMs: 0 }, 0)).toThrow(
      ReservationRefusedError,
    );
  });
});

/** Places what asks for at most `capacity` containers at once; refuses the rest as YARN does. */
class StandInReservations implements ReservationSystem {
  readonly queue = 'root.plan';
  readonly placed = new Map<string, NativeReservation>();
  readonly deleted: string[] = [];
  private next = 1;
  constructor(private readonly capacity: number) {}
  async reserve(w: WorkflowRequest, _name: string, nowMs: number): Promise<NativeReservation> {
    const gang = Math.max(...w.jobs.map((j) => j.tasks + 1));
    if (gang > this.capacity)
      throw new ReservationRefusedError(
        `The size of the largest gang in the reservation definition (${gang}) exceed the capacity available (${this.capacity})`,
      );
    const r: NativeReservation = {
      reservationId: `reservation_1_${this.next++}`,
      queue: this.queue,
      arrivalMs: nowMs,
      deadlineMs: w.deadlineMs!,
      allocations: [{ fromMs: nowMs, toMs: w.deadlineMs!, memoryMB: gang * 1024, vcores: gang }],
    };
    this.placed.set(r.reservationId, r);
    return r;
  }
  async list(): Promise<NativeReservation[]> {
    return [...this.placed.values()];
  }
  async delete(id: string): Promise<void> {
    this.placed.delete(id);
    this.deleted.push(id);
  }
}

describe('/v1/rayon/reservations', () => {
  let dir: string;
  let store: Store;
  let backend: InMemoryBackend;
  let engine: Engine;
  let app: FastifyInstance;
  let clock: FakeClock;
  let rs: StandInReservations;

  async function start(withSystem = true) {
    store = await Store.open(dir);
    backend = new InMemoryBackend({ now: () => clock.now() });
    if (withSystem) Object.assign(backend, { reservations: rs });
    engine = new Engine({ backend, store, clock, periodMs: 10_000, initial: { policy: 'fifo', params: {}, dryRun: true } });
    await engine.init();
    app = asAdmin(await buildApi({ engine, store, plugins: [rayonRoutes], auth: testAuth() }));
  }
  async function stop() {
    await app.close();
    await engine.stop();
    await store.close();
  }
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-rayon-api-'));
    clock = new FakeClock();
    rs = new StandInReservations(6);
    await start();
  });
  afterEach(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const workflow = (id: string, tasks = 2) => ({ id, deadlineMs: clock.now() + HOUR, jobs: [{ name: 'a1', tasks, leaseMs: 60_000 }] });
  const post = (body: object) => app.inject({ method: 'POST', url: '/v1/rayon/reservations', payload: body });
  const get = (url: string) => app.inject({ method: 'GET', url });

  it('reserves a workflow (201 with the reservation and its queue), lists it, and keeps it across a restart', async () => {
    const r = await post(workflow('wfa'));
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json()).toMatchObject({ id: 'wfa', reservationId: 'reservation_1_1', queue: 'root.plan', allocations: [{ vcores: 3 }] });
    await stop();
    await start();
    expect((await get('/v1/rayon/reservations')).json().reservations.map((x: { id: string }) => x.id)).toEqual(['wfa']);
    expect((await get('/v1/rayon/reservations/wfa')).json()).toMatchObject({ reservationId: 'reservation_1_1' });
  });

  it("answers 409 with the RM's reason when the reservation does not fit, and stores nothing", async () => {
    const r = await post(workflow('big', 30));
    expect(r.statusCode).toBe(409);
    expect(r.json()).toMatchObject({ error: 'conflict', condition: 'reservation-refused' });
    expect(r.json().reason).toMatch(/largest gang/);
    expect((await get('/v1/rayon/reservations')).json().reservations).toEqual([]);
  });

  it('answers 400 naming the field for a deadline in the past, and 409 for an id in use', async () => {
    const past = await post({ ...workflow('old'), deadlineMs: clock.now() - 1 });
    expect(past.statusCode).toBe(400);
    expect(past.json().field).toBe('body.deadlineMs');
    expect((await post(workflow('wfa'))).statusCode).toBe(201);
    expect((await post(workflow('wfa'))).statusCode).toBe(409);
  });

  it('gives a reservation back, but not once an application of it holds a container', async () => {
    expect((await post(workflow('wfa'))).statusCode).toBe(201);
    expect((await post(workflow('wfb'))).statusCode).toBe(201);
    const app1: AppView = {
      id: 'application_1_0001',
      name: 'a1',
      user: 'u',
      queue: 'root.plan',
      state: 'ACCEPTED',
      priority: 0,
      submittedAtMs: clock.now(),
      pendingContainers: 2,
      pendingContainerResource: { vcores: 1, memoryMB: 512 },
      runningContainers: 1,
      allocated: { vcores: 1, memoryMB: 256 },
      tags: { [REQUEST_TAG]: 'wfa' },
    };
    backend.apps.push(app1);
    const refused = await app.inject({ method: 'DELETE', url: '/v1/rayon/reservations/wfa' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().condition).toBe('started');
    const ok = await app.inject({ method: 'DELETE', url: '/v1/rayon/reservations/wfb' });
    expect(ok.statusCode).toBe(204);
    expect(rs.deleted).toEqual(['reservation_1_2']);
    expect((await get('/v1/rayon/reservations/wfb')).statusCode).toBe(404);
  });

  it('answers 409 when the brain has no reservation system', async () => {
    await stop();
    await start(false);
    const r = await post(workflow('wfa'));
    expect(r.statusCode).toBe(409);
    expect(r.json().reason).toMatch(/--reservation-queue/);
  });
});
