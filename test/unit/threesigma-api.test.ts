import type { FastifyInstance } from 'fastify';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiToken } from '../../src/api/auth.js';
import threeSigmaRoutes, { parseFeatures, THREESIGMA_SLO_NAMESPACE } from '../../src/api/routes/threesigma.js';
import { buildApi, type HistoryAccess } from '../../src/api/server.js';
import { serve } from '../../src/cli/main.js';
import { RmUnavailableError } from '../../src/core/errors.js';
import { HISTORY_RECORD_VERSION, historyRecordSchema, normaliseName, type HistoryRecord } from '../../src/core/history.js';
import { res } from '../../src/core/resources.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { HistoryStore, type PullResult } from '../../src/history/index.js';
import type { ThreeSigmaState } from '../../src/policies/threesigma/index.js';
import { classMatches, sloClassOf, sloClassSchema, type SloClass } from '../../src/policies/threesigma/slo-classes.js';
import { Store } from '../../src/store/store.js';
import { asAdmin, testAuth } from '../support/api-auth.js';
import { app as appView } from './policy-fixtures.js';
import { FakeRm, fixture } from './yarn-fake-rm.js';

const READER: ApiToken = { name: 'reader', role: 'read', token: 'reader-token-0123456789abcdef0123' };
const MIN = 60_000;
const START_MS = Date.UTC(2026, 10, 24, 9);
let dir: string;
let store: Store;
let backend: InMemoryBackend;
let engine: Engine;
let app: FastifyInstance;
let clock: FakeClock;
let history: HistoryAccess | undefined;

async function start(policy = 'threesigma') {
  store = await Store.open(dir);
  backend = new InMemoryBackend({ now: () => clock.now() });
  engine = new Engine({ backend, store, clock, periodMs: 10_000, initial: { policy, params: policy === 'threesigma' ? {} : undefined } });
  await engine.init();
  app = asAdmin(await buildApi({ engine, store, plugins: [threeSigmaRoutes], auth: testAuth([READER]), ...(history ? { history } : {}) }));
}
async function stop() {
  await app.close();
  await engine.stop();
  await store.close();
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-threesigma-api-'));
  clock = new FakeClock(START_MS);
  history = undefined;
  await start();
});
afterEach(async () => {
  await stop();
  rmSync(dir, { recursive: true, force: true });
});

const send = (method: 'POST' | 'PUT' | 'DELETE' | 'GET', url: string, body?: unknown, headers: Record<string, string> = {}) =>
  app.inject({
    method,
    url,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) } : { headers }),
  });
const state = () => engine.policyState() as ThreeSigmaState;
const storedClasses = async () => (await store.namespace(THREESIGMA_SLO_NAMESPACE, sloClassSchema).list()).map((e) => e.value);

/** A waiting application asking for 2 containers of <1024 MB, 1 vcore>. */
const pending = (id: string, name: string, extra: Parameters<typeof appView>[1] = {}) =>
  appView(id, {
    name,
    user: 'alice',
    queue: 'default',
    state: 'ACCEPTED',
    submittedAtMs: clock.now(),
    pendingContainers: 2,
    pendingContainerResource: res(1024, 1),
    ...extra,
  });

/** A succeeded run of `name` that ran `runtimeMs`, ended `endedAgoMs` before the start. */
function record(appId: string, name: string, runtimeMs: number, endedAgoMs: number, extra: Partial<HistoryRecord> = {}): HistoryRecord {
  const finishedAtMs = START_MS - endedAgoMs;
  const launchedAtMs = finishedAtMs - runtimeMs;
  return historyRecordSchema.parse({
    v: HISTORY_RECORD_VERSION,
    appId,
    user: 'alice',
    queue: 'default',
    name,
    nameKey: normaliseName(name),
    tags: {},
    priority: 0,
    submittedAtMs: launchedAtMs - 1000,
    submitHourUtc: new Date(launchedAtMs - 1000).getUTCHours(),
    launchedAtMs,
    finishedAtMs,
    runtimeMs,
    waitMs: 1000,
    state: 'FINISHED',
    finalStatus: 'SUCCEEDED',
    outcome: 'succeeded',
    source: 'rm',
    recordedAtMs: START_MS - endedAgoMs,
    ...extra,
  });
}
const etlRuns = (n: number, runtimeMs: number) =>
  Array.from({ length: n }, (_, i) => record(`application_1_${1000 + i}`, `etl-${i}`, runtimeMs, (n - i) * MIN));

describe('SLO classes (pure)', () => {
  const job = { user: 'alice', queue: 'default', name: 'etl-2026-11-24', tags: { team: 'data', adhoc: '' }, submittedAtMs: 0, priority: 0 };
  it('match on every field given: names as submitted or with digits as #, tags by key or key=value', () => {
    expect(classMatches({ name: 'etl-#-#-#' }, job)).toBe(true);
    expect(classMatches({ name: 'etl-2026-11-24', user: 'alice' }, job)).toBe(true);
    expect(classMatches({ name: 'etl-#-#-#', user: 'bob' }, job)).toBe(false);
    expect(classMatches({ tag: 'team=data', queue: 'default' }, job)).toBe(true);
    expect(classMatches({ tag: 'team=ml' }, job)).toBe(false);
    expect(classMatches({ tag: 'adhoc' }, job)).toBe(true);
  });
  it('the most specific matching class applies, ties by id', () => {
    const classes: SloClass[] = [
      { id: 'b-user', match: { user: 'alice' }, deadlineMs: 60_000 },
      { id: 'a-user', match: { user: 'alice' }, deadlineMs: 60_000 },
      { id: 'z-two', match: { user: 'alice', queue: 'default' }, slack: 1 },
    ];
    expect(sloClassOf(classes, job)?.id).toBe('z-two');
    expect(sloClassOf(classes.slice(0, 2), job)?.id).toBe('a-user');
    expect(sloClassOf(classes, { ...job, user: 'bob' })).toBeUndefined();
  });
});

describe('/v1/threesigma/slos', () => {
  const etl = { id: 'etl', match: { name: 'etl-#' }, deadlineMs: 10 * MIN, utility: 3 };

  it('adds, lists, reads and removes classes; the store and the running policy hold exactly them', async () => {
    let r = await send('POST', '/v1/threesigma/slos', etl);
    expect(r.statusCode).toBe(201);
    expect(r.json()).toEqual({ class: etl, running: true });
    expect(await storedClasses()).toEqual([etl]);
    expect(state().sloClasses).toEqual([etl]);
    r = await send('POST', '/v1/threesigma/slos', { id: 'adhoc', match: { tag: 'kind=adhoc', user: 'bob' }, slack: 0.5 });
    expect(r.statusCode).toBe(201);
    r = await send('GET', '/v1/threesigma/slos');
    expect(r.json()).toMatchObject({ running: true, deadlineTag: 'schedbrain.slo.deadline-ms' });
    expect(r.json().classes.map((c: SloClass) => c.id)).toEqual(['adhoc', 'etl']);
    expect((await send('GET', '/v1/threesigma/slos/etl')).json()).toEqual(etl);
    expect((await send('DELETE', '/v1/threesigma/slos/etl')).statusCode).toBe(204);
    expect((await send('GET', '/v1/threesigma/slos/etl')).statusCode).toBe(404);
    expect((await send('DELETE', '/v1/threesigma/slos/etl')).statusCode).toBe(404);
    expect(state().sloClasses!.map((c) => c.id)).toEqual(['adhoc']);
    expect((await storedClasses()).map((c) => c.id)).toEqual(['adhoc']);
  });

  it('refuses bad input with the field and the reason, and stores nothing', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ id: 'x', match: {}, deadlineMs: MIN }, 'body.match', /at least one of tag, name, user, queue/],
      [{ id: 'x', match: { user: 'a' }, deadlineMs: MIN, slack: 1 }, 'body.deadlineMs', /exactly one of deadlineMs and slack/],
      [{ id: 'x', match: { user: 'a' } }, 'body.deadlineMs', /exactly one/],
      [{ id: 'x', match: { user: 'a' }, deadlineMs: 31 * 24 * 60 * MIN }, 'body.deadlineMs', /less than or equal to 2592000000/],
      [{ id: 'x', match: { user: 'a' }, slack: -1 }, 'body.slack', /greater than or equal to 0/],
      [{ id: 'x', match: { user: 'a' }, slack: 1, utility: 0 }, 'body.utility', /greater than 0/],
      [{ id: 'x y', match: { user: 'a' }, slack: 1 }, 'body.id', /letters, digits/],
      [{ id: 'x', match: { user: 'a', host: 'n1' }, slack: 1 }, 'body.match', /Unrecognized key/],
      [{ id: 'x', match: { user: 'a'.repeat(257) }, slack: 1 }, 'body.match.user', /at most 256/],
    ];
    for (const [body, field, reason] of cases) {
      const r = await send('POST', '/v1/threesigma/slos', body);
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(r.json().field, JSON.stringify(body)).toBe(field);
      expect(r.json().reason, JSON.stringify(body)).toMatch(reason);
    }
    expect((await send('POST', '/v1/threesigma/slos')).json()).toMatchObject({ field: 'body' });
    expect((await send('GET', '/v1/threesigma/slos/x%20y')).json()).toMatchObject({ field: 'id' });
    expect(await storedClasses()).toEqual([]);
    expect(state().sloClasses ?? []).toEqual([]);
  });

  it('refuses a second class with the same id (409) and keeps the first', async () => {
    await send('POST', '/v1/threesigma/slos', etl);
    const r = await send('POST', '/v1/threesigma/slos', { ...etl, deadlineMs: MIN });
    expect(r.statusCode).toBe(409);
    expect(r.json().reason).toMatch(/exists already/);
    expect(await storedClasses()).toEqual([etl]);
  });

  it('needs a token of role operate to change classes; read may list them', async () => {
    const auth = { authorization: `Bearer ${READER.token}` };
    expect((await send('POST', '/v1/threesigma/slos', etl, auth)).statusCode).toBe(403);
    expect((await send('GET', '/v1/threesigma/slos', undefined, auth)).statusCode).toBe(200);
    expect(await storedClasses()).toEqual([]);
  });

  it('survive a restart, and reach the policy again after a switch to another policy and back', async () => {
    await send('POST', '/v1/threesigma/slos', etl);
    await stop();
    await start();
    expect((await send('GET', '/v1/threesigma/slos')).json().classes).toEqual([etl]);
    expect(state().sloClasses).toEqual([etl]);
    expect((await send('PUT', '/v1/policy', { name: 'fifo' })).statusCode).toBe(200);
    expect((await send('GET', '/v1/threesigma/slos')).json()).toMatchObject({ running: false, deadlineTag: null, classes: [etl] });
    expect((await send('PUT', '/v1/policy', { name: 'threesigma', params: {} })).statusCode).toBe(200);
    expect(state().sloClasses ?? []).toEqual([]);
    await send('GET', '/v1/threesigma/slos');
    expect(state().sloClasses).toEqual([etl]);
  });

  it('give a matching application its deadline and utility when the policy first sees it; a deadline tag wins over a class', async () => {
    await send('POST', '/v1/threesigma/slos', etl);
    backend.apps.push(pending('application_1_0001', 'etl-42'));
    backend.apps.push(pending('application_1_0002', 'etl-43', { tags: { 'schedbrain.slo.deadline-ms': String(START_MS + 5 * MIN) } }));
    backend.apps.push(pending('application_1_0003', 'report-7'));
    expect((await engine.runCycle()).outcome).toBe('ok');
    const jobs = state().jobs;
    expect(jobs.application_1_0001).toMatchObject({ kind: 'slo', deadlineMs: START_MS + 10 * MIN, sloClass: 'etl', sloUtility: 3 });
    expect(jobs.application_1_0002).toMatchObject({ kind: 'slo', deadlineMs: START_MS + 5 * MIN });
    expect(jobs.application_1_0002.sloClass).toBeUndefined();
    expect(jobs.application_1_0003.kind).toBe('bestEffort');
    const entries = await store.journal.query({ limit: 50, order: 'desc' });
    expect(entries.find((e) => e.action?.kind === 'setAppPriority' && (e.action as { appId: string }).appId === 'application_1_0001')?.reason).toMatch(
      /SLO job \(class etl\), deadline in 600 s/,
    );
    // A class removed later leaves the deadline of an application already seen.
    await send('DELETE', '/v1/threesigma/slos/etl');
    await engine.runCycle();
    expect(state().jobs.application_1_0001).toMatchObject({ kind: 'slo', sloClass: 'etl' });
  });

  it('a slack class sets the deadline at (1 + slack) × the predicted runtime after submission', async () => {
    expect((await send('POST', '/v1/threesigma/history', { records: etlRuns(5, 4 * MIN) })).json().learned).toBe(5);
    await send('POST', '/v1/threesigma/slos', { id: 'etl-slack', match: { name: 'etl-#' }, slack: 0.5 });
    backend.apps.push(pending('application_1_0001', 'etl-42'));
    backend.apps.push(pending('application_1_0002', 'other', { user: 'carol' }));
    await send('POST', '/v1/threesigma/slos', { id: 'carol', match: { user: 'carol' }, slack: 1 });
    await engine.runCycle();
    const j = state().jobs.application_1_0001;
    expect(j).toMatchObject({ kind: 'slo', sloClass: 'etl-slack', deadlineMs: START_MS + 6 * MIN });
    expect(j.prediction?.pointEstimateMs).toBe(4 * MIN);
    // Nothing learned of carol's jobs but the history of all jobs (also 4 min).
    expect(state().jobs.application_1_0002).toMatchObject({ kind: 'slo', sloClass: 'carol', deadlineMs: START_MS + 8 * MIN });
  });
});

describe('/v1/threesigma/history', () => {
  it('stores new records, learns them into the running predictor, and neither stores nor learns a repeat', async () => {
    let r = await send('POST', '/v1/threesigma/history', { records: etlRuns(3, 5 * MIN) });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ received: 3, stored: 3, duplicates: 0, learned: 3 });
    expect(state().predictor.seq).toBe(3);
    r = await send('POST', '/v1/threesigma/history', { records: [...etlRuns(3, 5 * MIN), record('application_1_2000', 'x', MIN, 0)] });
    expect(r.json()).toMatchObject({ received: 4, stored: 1, duplicates: 3, learned: 1 });
    expect(await new HistoryStore(store).count()).toBe(4);
    r = await send('POST', '/v1/threesigma/history', { records: [record('application_1_3000', 'x', MIN, 0)], learn: false });
    expect(r.json()).toMatchObject({ stored: 1, learned: 0 });
    expect(state().predictor.seq).toBe(4);
  });

  it('refuses a bad record with its field, and stores nothing of the request', async () => {
    const records = [...etlRuns(2, MIN), { ...record('application_1_9', 'y', MIN, 0), runtimeMs: -5 }];
    const r = await send('POST', '/v1/threesigma/history', { records });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ field: 'body.records.2.runtimeMs' });
    expect((await send('POST', '/v1/threesigma/history', { records: [] })).json()).toMatchObject({ field: 'body.records' });
    expect(await new HistoryStore(store).count()).toBe(0);
    expect(state().predictor.seq).toBe(0);
  });

  it('takes back what it stored when the store fails part way, so a retry stores and learns everything', async () => {
    await stop();
    let failAt = 2;
    class FailingHistory extends HistoryStore {
      override async add(records: readonly HistoryRecord[]): Promise<number> {
        if (--failAt === 0) throw new Error('disk full');
        return super.add(records);
      }
    }
    history = {
      get records() {
        return new FailingHistory(store);
      },
      pullers: {},
    };
    await start();
    let r = await send('POST', '/v1/threesigma/history', { records: etlRuns(3, 5 * MIN) });
    expect(r.statusCode).toBe(500);
    expect(r.json().reason).toMatch(/disk full/);
    expect(await new HistoryStore(store).count()).toBe(0);
    expect(state().predictor.seq).toBe(0);
    r = await send('POST', '/v1/threesigma/history', { records: etlRuns(3, 5 * MIN) });
    expect(r.json()).toMatchObject({ stored: 3, learned: 3 });
  });

  it('pulls from a configured source and warms an empty predictor; 409 without one, 503 when the RM is down', async () => {
    let r = await send('POST', '/v1/threesigma/history/pull?source=rm');
    expect(r.statusCode).toBe(409);
    expect(r.json().reason).toMatch(/no history pull from rm/);
    expect((await send('POST', '/v1/threesigma/history/pull?source=jhs')).json()).toMatchObject({ field: 'query.source' });
    await stop();
    let down = false;
    history = {
      get records() {
        return new HistoryStore(store);
      },
      pullers: {
        rm: {
          async pull(): Promise<PullResult> {
            if (down) throw new RmUnavailableError('connection refused');
            const added = await new HistoryStore(store).add(etlRuns(4, 3 * MIN));
            return { listed: 4, added, skipped: 0 };
          },
        },
      },
    };
    await start();
    r = await send('POST', '/v1/threesigma/history/pull');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ source: 'rm', listed: 4, added: 4, skipped: 0, finishedSinceMs: null, learned: 4 });
    expect(state().predictor.seq).toBe(4);
    down = true;
    r = await send('POST', '/v1/threesigma/history/pull');
    expect(r.statusCode).toBe(503);
  });
});

describe('/v1/threesigma/predict and /plan', () => {
  it('shows the chosen expert, its histogram and the NMAE table for features or an application', async () => {
    await send('POST', '/v1/threesigma/history', { records: [...etlRuns(6, 4 * MIN), record('application_1_5000', 'report-1', 20 * MIN, 0)] });
    let r = await send('GET', '/v1/threesigma/predict?features=name=etl-9,user=alice,queue=default');
    expect(r.statusCode).toBe(200);
    const b = r.json();
    expect(b.prediction).toMatchObject({ pointEstimateMs: 4 * MIN, fallback: false });
    expect(b.histogram).toMatchObject({ feature: b.prediction.feature, runs: 6, minMs: 4 * MIN, maxMs: 4 * MIN });
    expect(b.histogram.bins).toEqual([{ centroidMs: 4 * MIN, count: 6 }]);
    expect(b.features).toContain('name=etl-#');
    expect(b.experts.filter((x: { chosen: boolean }) => x.chosen)).toHaveLength(1);
    expect(b.experts.find((x: { feature: string; estimator: string }) => x.feature === 'all' && x.estimator === 'mean').runs).toBe(7);
    expect(b.sloClass).toBeNull();

    backend.apps.push(pending('application_1_0001', 'etl-77'));
    r = await send('GET', '/v1/threesigma/predict?app=application_1_0001');
    expect(r.json()).toMatchObject({
      job: { name: 'etl-77' },
      prediction: { pointEstimateMs: 4 * MIN },
      app: { id: 'application_1_0001', kind: null, planned: null },
    });
    await engine.runCycle();
    r = await send('GET', '/v1/threesigma/predict?app=application_1_0001');
    expect(r.json().app).toMatchObject({ kind: 'bestEffort', planned: { pointEstimateMs: 4 * MIN } });
  });

  it('refuses bad queries with the field and the reason', async () => {
    const cases: [string, string, RegExp][] = [
      ['', 'query', /exactly one of app and features/],
      ['?app=application_1_1&features=user=a', 'query', /exactly one/],
      ['?features=host=n1', 'query.features', /unknown key "host"/],
      ['?features=user', 'query.features', /expected key=value/],
      ['?features=tasks=-1', 'query.features', /tasks: an integer in \[0, 1000000\]/],
      ['?features=containerMemoryMB=1024', 'query.features', /both containerMemoryMB and containerVcores/],
      ['?app=x%20y', 'query.app', /an application id/],
      ['?app=a&since=1', 'query', /Unrecognized key/],
    ];
    for (const [q, field, reason] of cases) {
      const r = await send('GET', `/v1/threesigma/predict${q}`);
      expect(r.statusCode, q).toBe(400);
      expect(r.json().field, q).toBe(field);
      expect(r.json().reason, q).toMatch(reason);
    }
    expect((await send('GET', '/v1/threesigma/predict?app=application_9_9')).statusCode).toBe(404);
  });

  it('features become the job description the predictor keys on', () => {
    const j = parseFeatures('user=alice,name=etl-1,type=SPARK,tasks=8,containerMemoryMB=2048,containerVcores=2,hour=13,tag.team=data', 0);
    expect(j).toMatchObject({
      user: 'alice',
      name: 'etl-1',
      applicationType: 'SPARK',
      containers: 8,
      containerMemoryMB: 2048,
      containerVcores: 2,
      tags: { team: 'data' },
    });
    expect(new Date(j.submittedAtMs).getUTCHours()).toBe(13);
  });

  it('reports the last plan: none before the first cycle, then its size, objective and time', async () => {
    expect((await send('GET', '/v1/threesigma/plan')).json()).toEqual({ policy: 'threesigma', plan: null });
    backend.apps.push(pending('application_1_0001', 'etl-1'));
    await engine.runCycle();
    const r = await send('GET', '/v1/threesigma/plan');
    expect(r.statusCode).toBe(200);
    const p = r.json().plan;
    expect(p).toMatchObject({ pending: 1, running: 0 });
    expect(p.columns).toBeGreaterThanOrEqual(0);
    expect(typeof p.planMs).toBe('number');
    expect(p.startNow + p.deferred + p.withoutUtility).toBe(1);
  });

  it("gives HiGHS's gap when the plan needed the MILP", async () => {
    // No time limit: the solve ends by its node limit and gap wherever the machine is, and waits for the worker's HiGHS.
    expect((await send('PUT', '/v1/policy', { name: 'threesigma', params: { solver: { timeLimitMs: null } } })).statusCode).toBe(200);
    // Three SLO jobs that each need the whole cluster now to meet their deadline: one plan only.
    await send('POST', '/v1/threesigma/slos', { id: 'tight', match: { name: 'big-#' }, deadlineMs: 10 * MIN });
    for (const i of [1, 2, 3]) backend.apps.push(pending(`application_1_000${i}`, `big-${i}`, { pendingContainers: 16 }));
    await engine.runCycle();
    const p = (await send('GET', '/v1/threesigma/plan')).json().plan;
    expect(p).toMatchObject({ solver: 'highs', pending: 3, startNow: 1 });
    expect(p.mipGap).toBeGreaterThanOrEqual(0);
    expect(p.mipGap).toBeLessThanOrEqual(0.001);
  });

  it("summarises the policy's state in GET /v1/state", async () => {
    await send('POST', '/v1/threesigma/slos', { id: 'etl', match: { name: 'etl-#' }, deadlineMs: 10 * MIN });
    await send('POST', '/v1/threesigma/history', { records: etlRuns(2, MIN) });
    backend.apps.push(pending('application_1_0001', 'etl-1'));
    await engine.runCycle();
    expect((await send('GET', '/v1/state')).json().policy.summary).toMatchObject({
      jobs: 1,
      sloJobs: 1,
      runtimesLearned: 2,
      sloClasses: ['etl'],
      lastPlan: { pending: 1 },
    });
  });

  it('answers 409 under another policy', async () => {
    await send('PUT', '/v1/policy', { name: 'fifo' });
    for (const url of ['/v1/threesigma/plan', '/v1/threesigma/predict?features=user=a']) {
      const r = await send('GET', url);
      expect(r.statusCode, url).toBe(409);
      expect(r.json().reason).toMatch(/needs the threesigma policy/);
    }
  });
});

describe('history pull in serve', () => {
  it("pulls from the RM on demand through the service's own puller when history.pullCron is configured", async () => {
    // The recorded KILLED application, and one succeeded run of the same job.
    const killed = fixture('app-killed.json').app as Record<string, unknown> & { finishedTime: number };
    const succeeded = {
      ...killed,
      id: 'application_1795254945306_0002',
      state: 'FINISHED',
      finalStatus: 'SUCCEEDED',
      launchTime: killed.finishedTime - 120_000,
    };
    const rm = await new FakeRm().on('GET /apps', () => ({ body: { apps: { app: [killed, succeeded] } } })).start();
    const stateDir = join(dir, 'serve-state');
    const file = join(dir, 'schedbrain.yaml');
    // Never ticks in the test: only the pull at start and the one asked for.
    writeFileSync(file, 'history:\n  pullCron: "0 0 1 1 *"\n  maxAgeDays: 3650\n');
    const out: string[] = [];
    let answer: { status: number; body: Record<string, unknown> } | undefined;
    const stop = new Promise<string>((resolve, reject) => {
      const t = setInterval(() => {
        const line = out.find((l) => l.includes('admin API http'));
        if (!line) return;
        clearInterval(t);
        const url = /admin API (http:\/\/\S+) /.exec(line)![1];
        const token = readFileSync(join(stateDir, 'admin.token'), 'utf8').trim();
        fetch(`${url}/v1/threesigma/history/pull?source=rm`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
          .then(async (r) => (answer = { status: r.status, body: (await r.json()) as Record<string, unknown> }))
          .then(() => resolve('test'), reject);
      }, 20);
    });
    try {
      const args = ['--rm-url', rm.url, '--state-dir', stateDir, '--port', '0', '--log-level', 'silent', '--config', file, '--policy', 'threesigma'];
      expect(await serve(args, { out: (x) => out.push(x), err: (x) => out.push(x) }, stop), out.join('\n')).toBe(0);
    } finally {
      await rm.stop();
    }
    expect(answer?.status, JSON.stringify(answer)).toBe(200);
    // The pull at start may still run (then this is that pull) or be done (then nothing is new): either way both were read.
    expect(answer!.body).toMatchObject({ source: 'rm', listed: 2, skipped: 0 });
    expect(typeof answer!.body.learned).toBe('number');
  }, 20_000);
});
