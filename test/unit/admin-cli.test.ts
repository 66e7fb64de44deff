/**
 * The operator commands against the admin API in-process on the in-memory backend, listening on a
 * loopback port: tables, JSON, and what the server refuses shown as its field and reason.
 */
import type { FastifyInstance } from 'fastify';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiAuth, type ApiToken } from '../../src/api/auth.js';
import bopfRoutes from '../../src/api/routes/bopf.js';
import darssRoutes from '../../src/api/routes/darss.js';
import rayonRoutes from '../../src/api/routes/rayon.js';
import threeSigmaRoutes from '../../src/api/routes/threesigma.js';
import { buildApi } from '../../src/api/server.js';
import { runAdminCommand } from '../../src/cli/admin/index.js';
import { resolveConnection } from '../../src/cli/admin/connection.js';
import { main } from '../../src/cli/main.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine } from '../../src/engine/engine.js';
import type { NativeReservation, ReservationSystem } from '../../src/core/backend.js';
import { ReservationRefusedError } from '../../src/core/errors.js';
import { InMemoryBackend, type InMemoryBackendOptions } from '../../src/engine/fake-backend.js';
import { Store } from '../../src/store/store.js';
import { TEST_ADMIN } from '../support/api-auth.js';
import { captureStdio } from '../support/capture-stdio.js';

const READER: ApiToken = { name: 'dashboard', role: 'read', token: 'read-token-0123456789abcdef' };
const HOUR = 3_600_000;

interface Service {
  dir: string;
  store: Store;
  engine: Engine;
  backend: InMemoryBackend;
  app: FastifyInstance;
  url: string;
  clock: FakeClock;
}
let svc: Service | undefined;

async function startService(
  initial: { policy: string; params: unknown },
  backendOptions: InMemoryBackendOptions = {},
  limits?: { allowZeroCapacity: string[] },
  reservations?: ReservationSystem,
): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), 'schedbrain-admin-cli-'));
  const clock = new FakeClock();
  const store = await Store.open(join(dir, 'state'));
  const backend = new InMemoryBackend({ now: () => clock.now(), ...backendOptions });
  if (reservations) Object.assign(backend, { reservations });
  const engine = new Engine({ backend, store, clock, periodMs: 10_000, ...(limits ? { limits } : {}), initial });
  await engine.init();
  const app = await buildApi({
    engine,
    store,
    plugins: [bopfRoutes, darssRoutes, rayonRoutes, threeSigmaRoutes],
    auth: new ApiAuth({ tokens: [TEST_ADMIN, READER] }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  svc = { dir, store, engine, backend, app, clock, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
  return svc;
}

afterEach(async () => {
  if (!svc) return;
  await svc.app.close();
  await svc.engine.stop();
  await svc.store.close();
  rmSync(svc.dir, { recursive: true, force: true });
  svc = undefined;
});

/** Runs `schedbrain <argv>` against the service; the admin token comes from the environment. */
async function cli(argv: string[], env: NodeJS.ProcessEnv = { SCHEDBRAIN_TOKEN: TEST_ADMIN.token }, signal?: AbortSignal, onOut?: (s: string) => void) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (s: string) => (out.push(s), onOut?.(s)), err: (s: string) => err.push(s) };
  const code = await runAdminCommand([...argv, '--server', svc!.url], {
    io,
    env: { XDG_CONFIG_HOME: join(svc!.dir, 'no-config'), ...env },
    ...(signal ? { signal } : {}),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const targets = (a: number, b: number) => ({ targets: { 'root.a': { capacityPct: a }, 'root.b': { capacityPct: b } } });

describe('schedbrain decisions', () => {
  it('prints the journal as a table, oldest first, with the action and the reason', async () => {
    const { engine } = await startService({ policy: 'capacity-targets', params: targets(70, 30) });
    await engine.runCycle();
    const r = await cli(['decisions']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^TIME +CYCLE +RULE +RESULT +ACTION — REASON$/);
    const row = lines.find((l) => l.includes('updateQueues'))!;
    expect(row).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ +\S+ +capacity-targets\.\S+ +applied +updateQueues root\.a=70%.* root\.b=30%/);
    // Columns line up under the header.
    expect(row.indexOf('applied')).toBe(lines[0]!.indexOf('RESULT'));
  });

  it('prints the same entries as JSON with --json, and --rule keeps one rule and its sub-rules', async () => {
    const { engine } = await startService({ policy: 'capacity-targets', params: targets(70, 30) });
    await engine.runCycle();
    const all = JSON.parse((await cli(['decisions', '--json'])).out) as { rule: string; result: string; action?: { kind: string } }[];
    expect(all.length).toBeGreaterThan(0);
    expect(all.some((e) => e.result === 'applied' && e.action?.kind === 'updateQueues')).toBe(true);
    const rule = all.find((e) => e.action)!.rule;
    const only = JSON.parse((await cli(['decisions', '--json', '--rule', rule])).out) as { rule: string }[];
    expect(only.length).toBeGreaterThan(0);
    expect(only.every((e) => e.rule === rule)).toBe(true);
    const none = JSON.parse((await cli(['decisions', '--json', '--rule', 'no-such-rule'])).out);
    expect(none).toEqual([]);
    expect(JSON.parse((await cli(['decisions', '--json', '--since', String(svc!.clock.now() - 1000)])).out).length).toBe(all.length);
    expect(JSON.parse((await cli(['decisions', '--json', '--since', String(svc!.clock.now() + 1000)])).out)).toEqual([]);
  });

  it('--follow prints entries as they are journaled, one JSON object per line, until stopped', async () => {
    const { engine } = await startService({ policy: 'capacity-targets', params: targets(50, 50) });
    const stop = new AbortController();
    const seen: string[] = [];
    const running = cli(['decisions', '--follow', '--json', '--interval', '20ms'], undefined, stop.signal, (s) => {
      seen.push(s);
      stop.abort();
    });
    await new Promise((r) => setTimeout(r, 60));
    await engine.setPolicy({ name: 'capacity-targets', params: targets(60, 40) });
    await engine.runCycle();
    const r = await running;
    expect(r.code).toBe(0);
    const first = JSON.parse(seen[0]!) as { rule: string; result: string };
    expect(first).toMatchObject({ result: expect.any(String), rule: expect.any(String) });
  });
});

describe('schedbrain policy and dry-run', () => {
  it('a 400 from the server is shown as the field and the reason, exit 1, nothing changed', async () => {
    await startService({ policy: 'capacity-targets', params: targets(50, 50) });
    await svc!.engine.runCycle();
    const r = await cli(['policy', 'set', 'capacity-targets', '--params', '{"targets":{"root.nosuch":{"capacityPct":10}}}']);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('HTTP 400 bad_request');
    expect(r.err).toMatch(/field: +params\.targets\.root\.nosuch\n/);
    expect(r.err).toMatch(/reason: +.*does not exist/);
    expect(svc!.engine.config().params).toEqual(targets(50, 50));
  });

  it('policy set replaces the policy from a YAML file; policy get shows it as text and JSON', async () => {
    await startService({ policy: 'capacity-targets', params: targets(50, 50) });
    const file = join(svc!.dir, 'params.yaml');
    writeFileSync(file, 'targets:\n  root.a: { capacityPct: 65 }\n  root.b: { capacityPct: 35 }\n');
    const set = await cli(['policy', 'set', 'capacity-targets', '--params', file, '--dry-run']);
    expect(set.err).toBe('');
    expect(set.out).toMatch(/^policy +capacity-targets$/m);
    expect(set.out).toMatch(/^dry-run +yes$/m);
    expect(svc!.engine.config()).toMatchObject({ params: targets(65, 35), dryRun: true });
    const got = JSON.parse((await cli(['policy', 'get', '--json'])).out);
    expect(got).toMatchObject({ name: 'capacity-targets', dryRun: true, params: targets(65, 35) });
    // Without --params the running policy keeps its parameters.
    expect((await cli(['policy', 'set', 'capacity-targets', '--no-dry-run'])).code).toBe(0);
    expect(svc!.engine.config()).toMatchObject({ params: targets(65, 35), dryRun: false });
  });

  it('a role below the route is refused with the reason (403); the read token still reads', async () => {
    await startService({ policy: 'capacity-targets', params: targets(50, 50) });
    const r = await cli(['policy', 'set', 'capacity-targets', '--params', JSON.stringify(targets(60, 40))], { SCHEDBRAIN_TOKEN: READER.token });
    expect(r.code).toBe(1);
    expect(r.err).toContain('HTTP 403 forbidden');
    expect(r.err).toMatch(/reason: +token 'dashboard' has role read; PUT \/v1\/policy needs admin/);
    expect((await cli(['policy', 'get'], { SCHEDBRAIN_TOKEN: READER.token })).code).toBe(0);
  });

  it('dry-run lists what the policy would decide, and writes nothing', async () => {
    await startService({ policy: 'capacity-targets', params: targets(50, 50) });
    const r = await cli(['dry-run', 'capacity-targets', '--params', JSON.stringify(targets(80, 20))]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^capacity-targets: ok on the snapshot of /);
    expect(r.out).toMatch(/^RULE +RESULT +ACTION — REASON$/m);
    expect(r.out).toMatch(/dryRun +updateQueues root\.a=80%/);
    expect(svc!.engine.config().params).toEqual(targets(50, 50));
  });

  it('status prints health and policy; --json gives both', async () => {
    await startService({ policy: 'capacity-targets', params: targets(50, 50) });
    await svc!.engine.runCycle();
    const r = await cli(['status']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^status +ok$/m);
    expect(r.out).toMatch(/^policy +capacity-targets$/m);
    expect(r.out).toMatch(/^rm +reachable$/m);
    const j = JSON.parse((await cli(['status', '--json'])).out);
    expect(j).toMatchObject({ server: svc!.url, health: { status: 'ok', rmReachable: true }, policy: { name: 'capacity-targets', dryRun: false } });
    // /healthz answers 503 when the RM is down: still a status, and exit 1.
    svc!.backend.down = 'connection refused';
    await svc!.engine.runCycle();
    const down = await cli(['status']);
    expect(down.code).toBe(1);
    expect(down.out).toMatch(/^status +down$/m);
    expect(down.out).toMatch(/^rm +unreachable: .*connection refused/m);
  });
});

describe('schedbrain state', () => {
  it('prints the state dump as YAML, and as the API answered with --json; role operate', async () => {
    await startService({ policy: 'capacity-targets', params: targets(50, 50) });
    await svc!.engine.runCycle();
    const r = await cli(['state']);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^engine:$/m);
    expect(r.out).toMatch(/^policy:\n( {2}.*\n)* {2}name: capacity-targets$/m);
    const j = JSON.parse((await cli(['state', '--json'])).out);
    expect(j).toMatchObject({ policy: { name: 'capacity-targets' }, engine: { policy: 'capacity-targets' } });
    const reader = await cli(['state'], { SCHEDBRAIN_TOKEN: READER.token });
    expect(reader.code).toBe(1);
    expect(reader.err).toMatch(/needs operate/);
  });
});

describe('schedbrain bopf and darss', () => {
  it('bopf queues add, list (table and JSON) and rm; a refused admission shows the condition', async () => {
    await startService({ policy: 'bopf', params: { parentQueue: 'root' } }, {}, { allowZeroCapacity: ['root.a', 'root.b'] });
    await svc!.engine.runCycle();
    const add = await cli(['bopf', 'queues', 'add', '{"name":"batch","kind":"TQ"}']);
    expect(add.err).toBe('');
    expect(add.out).toMatch(/^queue batch registered: elastic — /);
    const list = await cli(['bopf', 'queues', 'list']);
    expect(list.out.split('\n')[1]).toMatch(/^NAME +KIND +CLASS +PERIOD +DEADLINE +BURST DEMAND +REASON$/);
    expect(list.out).toMatch(/^batch +TQ +elastic +- +- +- +/m);
    expect(JSON.parse((await cli(['bopf', 'queues', 'list', '--json'])).out).queues.map((q: { name: string }) => q.name)).toEqual(['batch']);
    const dup = await cli(['bopf', 'queues', 'add', '{"name":"batch","kind":"TQ"}']);
    expect(dup.code).toBe(1);
    expect(dup.err).toMatch(/HTTP 409 conflict\)\n +reason: +queue batch is already registered/);
    const bad = await cli(['bopf', 'queues', 'add', '{"name":"lq","kind":"LQ"}']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/HTTP 400 bad_request\)\n +field: +body\.periodMs\n +reason: +required for an LQ/);
    expect((await cli(['bopf', 'queues', 'rm', 'batch'])).out).toBe('queue batch unregistered');
    const gone = await cli(['bopf', 'queues', 'rm', 'batch']);
    expect(gone.err).toMatch(/HTTP 404 not_found\)\n +reason: +no BoPF queue batch/);
  });

  it('darss requests submit, list, get and delete; quota set keeps what is not given; the ledger as steps', async () => {
    const queues = { 'root.production': { capacityPct: 50, maxCapacityPct: 100 }, 'root.besteffort': { capacityPct: 50, maxCapacityPct: 100 } };
    await startService({ policy: 'darss', params: {} }, { queues }, { allowZeroCapacity: Object.keys(queues) });
    const now = svc!.clock.now();
    const wf = join(svc!.dir, 'wf.yaml');
    writeFileSync(
      wf,
      `id: wf1\ngroup: etl\ndeadlineMs: ${now + HOUR}\njobs:\n  - { name: a, tasks: 4, leaseMs: 600000 }\n  - { name: b, tasks: 2, leaseMs: 600000, prerequisites: [a] }\n`,
    );
    const sub = await cli(['darss', 'requests', 'submit', wf]);
    expect(sub.err).toBe('');
    expect(sub.out).toMatch(/^request wf1 admitted: /);
    expect(sub.out).toMatch(/^b +\d{4}-/m);
    const list = await cli(['darss', 'requests', 'list']);
    expect(list.out).toMatch(/^ID +GROUP +DEADLINE +JOBS DONE +SLACK +NOTE$/m);
    expect(list.out).toMatch(/^wf1 +etl +\S+ +0\/2 +40m/m);
    expect(JSON.parse((await cli(['darss', 'requests', 'get', 'wf1', '--json'])).out).workflow.jobs).toHaveLength(2);
    const late = await cli(['darss', 'requests', 'submit', JSON.stringify({ id: 'late', jobs: [{ name: 'x', tasks: 1, leaseMs: 60_000 }] })]);
    expect(late.err).toMatch(/field: +body\.deadlineMs\n +reason: +required/);

    const q = await cli(['darss', 'quota', 'set', '--production-cap-pct', '60', '--json']);
    expect(q.err).toBe('');
    const before = JSON.parse((await cli(['darss', 'quota', 'get', '--json'])).out);
    expect(before).toMatchObject({ productionCapPct: 60, m: JSON.parse(q.out).m, n: JSON.parse(q.out).n });
    const ledger = await cli(['darss', 'ledger', '--from', String(now), '--to', '2h']);
    expect(ledger.out).toMatch(/^FROM +TO +UNITS$/m);
    expect(ledger.out).toMatch(/ 4$/m);
    expect((await cli(['darss', 'requests', 'delete', 'wf1'])).out).toBe('request wf1 withdrawn; its bookings are released');
    expect((await cli(['darss', 'requests', 'list'])).out).toBe('no admitted requests');
  });
});

describe('schedbrain rayon', () => {
  it('reservations submit, list, get and delete; a workflow the RM cannot place shows its reason', async () => {
    const placed: NativeReservation[] = [];
    const reservations: ReservationSystem = {
      queue: 'plan',
      async reserve(w, name, nowMs) {
        if (w.jobs.some((j) => j.tasks > 10)) throw new ReservationRefusedError('the plan has no room for 30 containers before the deadline');
        const r = {
          reservationId: `reservation_${name}`,
          queue: 'plan',
          arrivalMs: nowMs,
          deadlineMs: w.deadlineMs!,
          allocations: [{ fromMs: nowMs, toMs: nowMs + HOUR, memoryMB: 2048, vcores: 2 }],
        };
        placed.push(r);
        return r;
      },
      list: async () => placed,
      async delete(id) {
        placed.splice(
          placed.findIndex((r) => r.reservationId === id),
          1,
        );
      },
    };
    await startService({ policy: 'fifo', params: {} }, {}, undefined, reservations);
    const now = svc!.clock.now();
    const sub = await cli([
      'rayon',
      'reservations',
      'submit',
      JSON.stringify({ id: 'wf1', deadlineMs: now + HOUR, jobs: [{ name: 'a', tasks: 2, leaseMs: 60_000 }] }),
    ]);
    expect(sub.err).toBe('');
    expect(sub.out).toMatch(/^request wf1 reserved as reservation_wf1 in queue plan$/m);
    expect(sub.out).toMatch(/^FROM +TO +MEMORY MB +VCORES$/m);
    const list = await cli(['rayon', 'reservations', 'list']);
    expect(list.out).toMatch(/^ID +RESERVATION +QUEUE +DEADLINE +ALLOCATIONS$/m);
    expect(list.out).toMatch(/^wf1 +reservation_wf1 +plan +\S+ +1$/m);
    expect(JSON.parse((await cli(['rayon', 'reservations', 'get', 'wf1', '--json'])).out)).toMatchObject({ id: 'wf1', reservationId: 'reservation_wf1' });
    const big = await cli([
      'rayon',
      'reservations',
      'submit',
      JSON.stringify({ id: 'wf2', deadlineMs: now + HOUR, jobs: [{ name: 'b', tasks: 30, leaseMs: 60_000 }] }),
    ]);
    expect(big.code).toBe(1);
    expect(big.err).toMatch(/HTTP 409 conflict\)\n +reason: +the plan has no room .*\n +condition: reservation-refused/);
    expect((await cli(['rayon', 'reservations', 'delete', 'wf1'])).out).toBe('reservation of wf1 given back');
    expect((await cli(['rayon', 'reservations', 'list'])).out).toBe('no reservations');
  });
});

describe('schedbrain threesigma', () => {
  const run = (appId: string, name: string, runtimeMs: number, finishedAtMs: number) => ({
    v: 1,
    appId,
    user: 'alice',
    queue: 'default',
    name,
    nameKey: name.replace(/[0-9]+/g, '#'),
    tags: {},
    priority: 0,
    submittedAtMs: finishedAtMs - runtimeMs - 1000,
    submitHourUtc: new Date(finishedAtMs - runtimeMs - 1000).getUTCHours(),
    launchedAtMs: finishedAtMs - runtimeMs,
    finishedAtMs,
    runtimeMs,
    state: 'FINISHED',
    outcome: 'succeeded',
    source: 'rm',
    recordedAtMs: finishedAtMs,
  });

  it('slos add, list, get and rm; history import; predict as a table with the chosen expert; plan; refusals as field and reason', async () => {
    await startService({ policy: 'threesigma', params: {} });
    const add = await cli(['threesigma', 'slos', 'add', '{"id":"etl","match":{"name":"etl-#","queue":"default"},"deadlineMs":600000,"utility":2}']);
    expect(add.err).toBe('');
    expect(add.out).toBe('SLO class etl added: name=etl-# queue=default → deadline submit + 10m');
    const list = await cli(['threesigma', 'slos', 'list']);
    expect(list.out.split('\n')[0]).toMatch(/^ID +MATCH +DEADLINE +UTILITY$/);
    expect(list.out).toMatch(/^etl +name=etl-# queue=default +submit \+ 10m +2$/m);
    expect(JSON.parse((await cli(['threesigma', 'slos', 'get', 'etl', '--json'])).out)).toMatchObject({ id: 'etl', deadlineMs: 600_000 });
    const bad = await cli(['threesigma', 'slos', 'add', '{"id":"x","match":{"user":"a"},"deadlineMs":1000,"slack":1}']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/HTTP 400 bad_request\)\n +field: +body\.deadlineMs\n +reason: +give exactly one of deadlineMs and slack/);

    const now = svc!.clock.now();
    const file = join(svc!.dir, 'history.json');
    writeFileSync(file, JSON.stringify([1, 2, 3, 4].map((i) => run(`application_1_000${i}`, `etl-${i}`, 240_000, now - (10 - i) * 60_000))));
    const imp = await cli(['threesigma', 'history', 'import', file]);
    expect(imp.out).toMatch(/^4 records: 4 stored, 0 already known; the running 3Sigma predictor learned 4 runtime/);
    const pred = await cli(['threesigma', 'predict', '--features', 'name=etl-9,user=alice,queue=default']);
    expect(pred.err).toBe('');
    expect(pred.out).toMatch(/^point estimate +4m$/m);
    expect(pred.out).toMatch(/^SLO class +etl$/m);
    expect(pred.out).toMatch(/^FEATURE +ESTIMATOR +NMAE +RUNS +SCORED +ESTIMATE/m);
    expect(pred.out).toMatch(/ chosen$/m);
    expect((await cli(['threesigma', 'predict'])).code).toBe(2);
    const badFeatures = await cli(['threesigma', 'predict', '--features', 'host=n1']);
    expect(badFeatures.err).toMatch(/field: +query\.features\n +reason: +unknown key "host"/);

    expect((await cli(['threesigma', 'plan'])).out).toBe('no plan yet (the policy has not run a cycle)');
    await svc!.engine.runCycle();
    expect((await cli(['threesigma', 'plan'])).out).toMatch(/^solver +\S+ \(.*\)$/m);
    const pull = await cli(['threesigma', 'history', 'pull']);
    expect(pull.code).toBe(1);
    expect(pull.err).toMatch(/HTTP 409 conflict\)\n +reason: +no history pull from rm is configured/);
    expect((await cli(['threesigma', 'slos', 'rm', 'etl'])).out).toBe('SLO class etl removed (applications already seen keep their deadline)');
    expect((await cli(['threesigma', 'slos', 'list'])).out).toBe('no SLO classes');
  });
});

describe('connection and usage', () => {
  it('takes the token from the service state directory by default, and says how to give one when there is none', async () => {
    await startService({ policy: 'capacity-targets', params: targets(50, 50) });
    const stateDir = join(svc!.dir, 'svc-state');
    mkdirSync(stateDir);
    writeFileSync(join(stateDir, 'admin.token'), `${TEST_ADMIN.token}\n`);
    expect((await cli(['policy', 'get', '--state-dir', stateDir], {})).code).toBe(0);
    const none = await cli(['policy', 'get', '--state-dir', join(svc!.dir, 'empty')], {});
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/HTTP 401 unauthorized[\s\S]*No token found/);
  });

  it('reads server and token from the client configuration; flags and environment come first', () => {
    const dir = mkdtempSync(join(tmpdir(), 'schedbrain-client-config-'));
    try {
      const file = join(dir, 'client.yaml');
      writeFileSync(join(dir, 'token'), 'from-the-file-0123456789\n');
      writeFileSync(file, 'server: https://brain.example:8443\ntokenFile: token\n');
      expect(resolveConnection({ clientConfig: file }, {})).toEqual({
        server: 'https://brain.example:8443',
        token: 'from-the-file-0123456789',
        tokenSource: join(dir, 'token'),
      });
      expect(resolveConnection({ clientConfig: file, server: 'http://127.0.0.1:9' }, { SCHEDBRAIN_TOKEN: 'env-token-0123456789' })).toMatchObject({
        server: 'http://127.0.0.1:9',
        token: 'env-token-0123456789',
      });
      expect(() => resolveConnection({ clientConfig: join(dir, 'missing.yaml') }, {})).toThrow(/does not exist/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a bad flag is a usage error (exit 2); an unreachable server is said as such (exit 1); main dispatches the commands', async () => {
    await startService({ policy: 'capacity-targets', params: targets(50, 50) });
    const bad = await cli(['decisions', '--limit', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--limit must be an integer/);
    const unknown = await cli(['policy', 'frobnicate']);
    expect(unknown.code).toBe(2);
    const io = { out: () => undefined, err: (s: string) => errs.push(s) };
    const errs: string[] = [];
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    expect(await runAdminCommand(['status', '--server', `http://127.0.0.1:${closed}`], { io, env: { XDG_CONFIG_HOME: join(svc!.dir, 'none') } })).toBe(1);
    expect(errs.join('\n')).toContain(`cannot reach http://127.0.0.1:${closed}: ECONNREFUSED`);
    const stdio = captureStdio();
    expect(await main(['status', '--help'])).toBe(0);
    expect(stdio.out()).toMatch(/^Usage: schedbrain status/);
    vi.restoreAllMocks();
  });
});
