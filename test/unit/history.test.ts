import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { historyRecordSchema } from '../../src/core/history.js';
import { RmUnavailableError } from '../../src/core/errors.js';
import { HistoryPuller, HistoryStore, historyRecordOf, startHistorySchedule, warmRunningPolicy, type PolicyStateHost } from '../../src/history/index.js';
import { predictRuntime, threeSigmaParamsSchema, threeSigmaPolicy, type ThreeSigmaState } from '../../src/policies/threesigma/index.js';
import { Store } from '../../src/store/store.js';
import { RmClient } from '../../src/yarn/client.js';
import { appInfoSchema } from '../../src/yarn/schemas.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { serve } from '../../src/cli/main.js';
import { FakeRm, fixture } from './yarn-fake-rm.js';

const DAY = 86_400_000;
const fastRetry = { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 };

/** The KILLED application the recordings end with (test/fixtures/rm/app-killed.json). */
const killed = (): any => fixture('app-killed.json').app;
const KILLED_ID = 'application_1795254945306_0001';

/** More ended applications of the same shape: the recorded one, succeeded, under other ids and times. */
function endedApp(seq: number, o: { finishedTime: number; launchTime?: number; state?: string; finalStatus?: string; name?: string }): any {
  const a = killed();
  return {
    ...a,
    id: `application_1795254945306_${String(seq).padStart(4, '0')}`,
    name: o.name ?? a.name,
    state: o.state ?? 'FINISHED',
    finalStatus: o.finalStatus ?? 'SUCCEEDED',
    startedTime: o.finishedTime - 60_000,
    launchTime: o.launchTime ?? o.finishedTime - 50_000,
    finishedTime: o.finishedTime,
  };
}

function appsBody(apps: any[]): unknown {
  return apps.length ? { apps: { app: apps } } : fixture('apps-empty.json');
}

interface LogLine {
  level: 'info' | 'warn';
  obj: Record<string, unknown>;
  msg: string;
}

function recordingLogger(lines: LogLine[]): Logger {
  const l: Record<string, unknown> = {
    info: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 'info', obj, msg }),
    warn: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 'warn', obj, msg }),
    debug: () => undefined,
    error: () => undefined,
  };
  l.child = () => l;
  return l as unknown as Logger;
}

let dir: string;
let rm: FakeRm;
let store: Store;
let served: any[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-history-'));
  served = [killed()];
  // Like the RM, `finishedTimeBegin` keeps the applications that ended at or after it.
  rm = await new FakeRm()
    .on('GET /apps', (req) => {
      const begin = Number(req.query.get('finishedTimeBegin') ?? 0);
      return { body: appsBody(served.filter((a) => a.finishedTime >= begin)) };
    })
    .start();
  store = await Store.open(dir);
});

afterEach(async () => {
  await store.close();
  await rm.stop();
  rmSync(dir, { recursive: true, force: true });
});

function pullerFor(s: Store, now: () => number, logger?: Logger, rmUrl = rm.url): { history: HistoryStore; puller: HistoryPuller } {
  const history = new HistoryStore(s);
  const source = new RmClient({ rmUrl, requestTimeoutMs: 500, retry: fastRetry });
  return { history, puller: new HistoryPuller({ source, history, logger, overlapMs: 5 * 60_000, maxAgeMs: 30 * DAY, now }) };
}

describe('history records from RM applications', () => {
  it('records the recorded KILLED application with its features, runtime from the AM launch and outcome', () => {
    const app = appInfoSchema.parse(killed());
    const r = historyRecordOf(app, 1_800_000_000_000)!;
    expect(historyRecordSchema.parse(r)).toEqual(r);
    expect(r).toMatchObject({
      appId: KILLED_ID,
      user: 'root',
      queue: 'root.batch',
      name: 'fixture-sleep',
      nameKey: 'fixture-sleep',
      applicationType: 'SCHEDBRAIN',
      tags: { 'schedbrain.class': 'long', 'schedbrain.estimate-ms': '120000' },
      priority: 5,
      submittedAtMs: 1795254953008,
      launchedAtMs: 1795254954007,
      finishedAtMs: 1795254960040,
      runtimeMs: 1795254960040 - 1795254954007,
      waitMs: 1795254954007 - 1795254953008,
      state: 'KILLED',
      finalStatus: 'KILLED',
      outcome: 'killed',
      usage: { memoryMBSeconds: 2879, vcoreSeconds: 8 },
      source: 'rm',
    });
    expect(r.submitHourUtc).toBe(new Date(1795254953008).getUTCHours());
    // The RM lists no resource requests for an ended application: unknown, not zero.
    expect(r.requested).toBeUndefined();
  });

  it('normalises digits in the name, reads requests where the RM gives them, and has no runtime without a launch', () => {
    const pending = fixture('pending-apps.json').apps.app.find((a: any) => a.id === 'application_1795254678998_0006');
    const app = appInfoSchema.parse({
      ...pending,
      name: 'etl-2026-11-24 run 7',
      state: 'FAILED',
      finalStatus: 'FAILED',
      finishedTime: pending.startedTime + 90_000,
      launchTime: 0,
    });
    const r = historyRecordOf(app, 0)!;
    expect(r.nameKey).toBe('etl-#-#-# run #');
    expect(r.outcome).toBe('failed');
    expect(r.requested).toEqual({ containers: 2, memoryMB: 2048, vcores: 1 });
    expect(r.runtimeMs).toBeUndefined();
    expect(r.launchedAtMs).toBeUndefined();
  });

  it('skips an application that has not ended', () => {
    const running = appInfoSchema.parse(fixture('apps-running.json').apps.app[0]);
    expect(historyRecordOf(running, 0)).toBeUndefined();
  });
});

describe('history pull', () => {
  it('stores new ended applications, asking the RM for ended states since the retention horizon', async () => {
    const now = 1795254960040 + DAY;
    const { history, puller } = pullerFor(store, () => now);
    const r = await puller.pull();
    expect(r).toMatchObject({ listed: 1, added: 1, skipped: 0 });
    const req = rm.requests.find((q) => q.path === '/apps')!;
    expect(req.query.get('states')).toBe('FINISHED,FAILED,KILLED');
    expect(req.query.get('finishedTimeBegin')).toBe(String(now - 30 * DAY));
    expect(req.query.get('deSelects')).toContain('resourceInfo');
    expect((await history.get(KILLED_ID))?.outcome).toBe('killed');
    expect(await history.mark()).toEqual({ lastFinishedAtMs: 1795254960040, pulledAtMs: now });
  });

  it('a second pull of the same applications stores nothing new; new ones are added', async () => {
    const now = 1795254960040 + 60_000;
    const { history, puller } = pullerFor(store, () => now);
    await puller.pull();
    const stored = await history.get(KILLED_ID);
    const again = await puller.pull();
    expect(again).toMatchObject({ listed: 1, added: 0 });
    // Asked from the latest end recorded, less the overlap for late state-store saves.
    expect(rm.requests.filter((q) => q.path === '/apps')[1].query.get('finishedTimeBegin')).toBe(String(1795254960040 - 5 * 60_000));
    expect(await history.get(KILLED_ID)).toEqual(stored);
    served = [killed(), endedApp(2, { finishedTime: 1795254960040 + 30_000 })];
    expect(await puller.pull()).toMatchObject({ listed: 2, added: 1 });
    expect((await history.list()).map((r) => r.appId)).toEqual([KILLED_ID, 'application_1795254945306_0002']);
    expect(await history.count()).toBe(2);
  });

  it('retention drops records past the age limit, then the earliest ended past the count limit', async () => {
    const t0 = 1_800_000_000_000;
    served = [1, 2, 3, 4, 5].map((i) => endedApp(i, { finishedTime: t0 + i * DAY }));
    const { history, puller } = pullerFor(store, () => t0 + 6 * DAY);
    await pullerFor(store, () => t0).puller.pull(); // first pull reads everything from t0 − 30 d
    expect(await history.count()).toBe(5);
    // Age: ended more than 3.5 days before t0 + 6 d → apps 1 and 2 go.
    expect(await history.prune({ maxAgeMs: 3.5 * DAY, maxRecords: 0 }, t0 + 6 * DAY)).toEqual({ removed: 2, kept: 3 });
    // Count: 2 at most → app 3 (the earliest ended of 3, 4, 5) goes.
    expect(await history.prune({ maxAgeMs: 0, maxRecords: 2 }, t0 + 6 * DAY)).toEqual({ removed: 1, kept: 2 });
    expect((await history.list()).map((r) => r.appId.slice(-1))).toEqual(['4', '5']);
    // The applications still on the RM are past the mark: a later pull does not bring pruned ones back.
    expect((await puller.pull()).added).toBe(0);
  });

  it('stores nothing that ended before the retention horizon, even when the RM lists it', async () => {
    const t0 = 1_800_000_000_000;
    served = [endedApp(1, { finishedTime: t0 - 40 * DAY }), endedApp(2, { finishedTime: t0 - DAY })];
    // An RM that lists every ended application whatever finishedTimeBegin says.
    rm.on('GET /apps', () => ({ body: appsBody(served) }));
    const { history, puller } = pullerFor(store, () => t0);
    expect(await puller.pull()).toMatchObject({ listed: 2, added: 1, skipped: 1 });
    expect((await history.list()).map((r) => r.appId)).toEqual(['application_1795254945306_0002']);
  });

  it('keeps records and the mark across a restart (store closed and reopened)', async () => {
    const now = 1795254960040 + 60_000;
    await pullerFor(store, () => now).puller.pull();
    await store.close();
    store = await Store.open(dir);
    const { history, puller } = pullerFor(store, () => now + 60_000);
    expect((await history.list()).map((r) => r.appId)).toEqual([KILLED_ID]);
    expect((await history.mark())?.lastFinishedAtMs).toBe(1795254960040);
    expect(await puller.pull()).toMatchObject({ listed: 1, added: 0 });
  });

  it('an RM that is down is a logged failure; the mark stays and the next pull asks for the same span', async () => {
    const now = 1795254960040 + 60_000;
    const lines: LogLine[] = [];
    await pullerFor(store, () => now).puller.pull();
    const mark = await new HistoryStore(store).mark();
    await rm.stop();
    const down = pullerFor(store, () => now + 60_000, recordingLogger(lines));
    await expect(down.puller.pull()).rejects.toBeInstanceOf(RmUnavailableError);
    expect(await down.puller.pullLogged()).toBeUndefined();
    expect(lines.filter((l) => l.level === 'warn' && l.msg.startsWith('history pull failed'))).toHaveLength(1);
    expect(lines.find((l) => l.level === 'warn')!.obj.err).toBeInstanceOf(RmUnavailableError);
    expect(await down.history.mark()).toEqual(mark);
    expect(await down.history.count()).toBe(1);
  });
});

describe('history schedule', () => {
  it('pulls on its cron tick, logs a failed pull without throwing, and stops', async () => {
    const lines: LogLine[] = [];
    const logger = recordingLogger(lines);
    const { history, puller } = pullerFor(store, () => 1795254960040 + 60_000, logger);
    // Every second (six fields), so the test sees a tick without waiting a minute.
    const schedule = startHistorySchedule({
      pullCron: '* * * * * *',
      retentionCron: '0 0 1 1 *',
      puller,
      history,
      retention: { maxAgeMs: 0, maxRecords: 10 },
      logger,
    });
    try {
      const deadline = Date.now() + 5_000;
      while (rm.callsTo('GET /apps') === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(rm.callsTo('GET /apps')).toBeGreaterThan(0);
      await schedule.pullNow();
      expect(await history.count()).toBe(1);
      rm.on('GET /apps', { status: 503, body: { RemoteException: { exception: 'ServiceUnavailable', message: 'standby' } } });
      await expect(schedule.pullNow()).resolves.toBeUndefined();
      expect(lines.some((l) => l.level === 'warn' && l.msg.startsWith('history pull failed'))).toBe(true);
      expect(await schedule.pruneNow()).toEqual({ removed: 0, kept: 1 });
    } finally {
      await schedule.stop();
    }
    const calls = rm.callsTo('GET /apps');
    await new Promise((r) => setTimeout(r, 1_200));
    expect(rm.callsTo('GET /apps')).toBe(calls);
  });
});

describe('history configuration', () => {
  it('is off by default, with hourly retention, 30 days and 100,000 records', () => {
    const { config } = loadConfig([], {});
    expect(config.history).toEqual({ retentionCron: '23 * * * *', maxAgeMs: 30 * DAY, maxRecords: 100_000, overlapMs: 300_000 });
  });

  it('takes cron expressions from the environment or file, and refuses one that is not cron', () => {
    expect(loadConfig([], { SCHEDBRAIN_HISTORY_PULL_CRON: '*/5 * * * *' }).config.history.pullCron).toBe('*/5 * * * *');
    expect(() => loadConfig([], { SCHEDBRAIN_HISTORY_PULL_CRON: 'every five minutes' })).toThrow(ConfigError);
    try {
      loadConfig([], { SCHEDBRAIN_HISTORY_PULL_CRON: 'every five minutes' });
    } catch (e) {
      expect((e as ConfigError).key).toBe('history.pullCron');
    }
  });
});

/** The engine's side of warming: the running policy, and state changed on a copy as the engine does. */
function fakeHost(name: string, state: unknown, params: unknown): PolicyStateHost & { state(): unknown } {
  let current = state;
  return {
    config: () => ({ name, params }),
    async changePolicyState<T>(policy: string, change: (s: unknown) => { changed: boolean; value: T }) {
      expect(policy).toBe(name);
      const copy = structuredClone(current);
      const r = change(copy);
      if (r.changed) current = copy;
      return r.value;
    },
    state: () => current,
  };
}

describe('the running policy warmed from the history', () => {
  const params = threeSigmaParamsSchema.parse({});
  const succeeded = () => endedApp(2, { finishedTime: 1795254960040 + 30_000, launchTime: 1795254960040 - 90_000 });

  it('warms an empty 3Sigma predictor with the succeeded runs, which it then predicts', async () => {
    served = [killed(), succeeded()];
    const { history, puller } = pullerFor(store, () => 1795254960040 + 60_000);
    await puller.pull();
    const host = fakeHost('threesigma', threeSigmaPolicy.initialState(params), params);
    expect(await warmRunningPolicy(host, history)).toBe(1);
    const predictor = (host.state() as ThreeSigmaState).predictor;
    expect(predictor.seq).toBe(1);
    const job = { user: 'root', queue: 'root.batch', name: 'fixture-sleep', tags: {}, submittedAtMs: 1795254960040, priority: 5 };
    expect(predictRuntime(predictor, job, params.predictor)?.pointEstimateMs).toBe(120_000);
  });

  it('leaves a predictor that has learned alone, and any other policy', async () => {
    served = [succeeded()];
    const { history, puller } = pullerFor(store, () => 1795254960040 + 60_000);
    await puller.pull();
    const learnedOnce = fakeHost('threesigma', threeSigmaPolicy.initialState(params), params);
    await warmRunningPolicy(learnedOnce, history);
    const before = structuredClone(learnedOnce.state());
    expect(await warmRunningPolicy(learnedOnce, history)).toBe(0);
    expect(learnedOnce.state()).toEqual(before);
    const other = fakeHost('fifo', { untouched: true }, {});
    expect(await warmRunningPolicy(other, history)).toBeUndefined();
    expect(other.state()).toEqual({ untouched: true });
  });
});

describe('history in serve', () => {
  it('starts the schedule when history.pullCron is configured, pulls at start, and leaves the records in the store', async () => {
    await store.close();
    const file = join(dir, 'schedbrain.yaml');
    writeFileSync(file, 'history:\n  pullCron: "0 0 1 1 *"\n  maxAgeDays: 3650\n');
    // The history's request is the one that keeps resource requests (the snapshot's deselects them).
    const historyRead = () =>
      rm.requests.some(
        (q) => q.path === '/apps' && q.query.get('states') === 'FINISHED,FAILED,KILLED' && !(q.query.get('deSelects') ?? '').includes('resourceRequests'),
      );
    const stop = new Promise<string>((resolve) => {
      const t = setInterval(() => {
        if (historyRead()) {
          clearInterval(t);
          resolve('test');
        }
      }, 20);
    });
    const out: string[] = [];
    const code = await serve(
      ['--rm-url', rm.url, '--state-dir', join(dir, 'state'), '--port', '0', '--log-level', 'silent', '--config', file],
      { out: (x) => out.push(x), err: (x) => out.push(x) },
      stop,
    );
    expect(code, out.join('\n')).toBe(0);
    store = await Store.open(join(dir, 'state'));
    expect((await new HistoryStore(store).list()).map((r) => r.appId)).toEqual([KILLED_ID]);
  }, 20_000);

  it('warms the running 3Sigma policy from the first pull', async () => {
    await store.close();
    served = [killed(), endedApp(2, { finishedTime: 1795254960040 + 30_000, launchTime: 1795254960040 - 90_000 })];
    const file = join(dir, 'schedbrain.yaml');
    writeFileSync(file, 'history:\n  pullCron: "0 0 1 1 *"\n  maxAgeDays: 3650\n');
    const stop = new Promise<string>((resolve) => {
      const t = setInterval(() => {
        if (rm.callsTo('GET /apps') > 0) {
          clearInterval(t);
          resolve('test');
        }
      }, 20);
    });
    const out: string[] = [];
    const args = ['--rm-url', rm.url, '--state-dir', join(dir, 'state'), '--port', '0', '--log-level', 'silent', '--config', file, '--policy', 'threesigma'];
    expect(await serve(args, { out: (x) => out.push(x), err: (x) => out.push(x) }, stop), out.join('\n')).toBe(0);
    store = await Store.open(join(dir, 'state'));
    const saved = (await store.getPolicyState('threesigma'))?.state as ThreeSigmaState;
    expect(saved.predictor.seq).toBe(1);
    expect(saved.predictor.features['name=fixture-sleep'].recentMs).toEqual([120_000]);
  }, 20_000);

  it('starts no schedule without history.pullCron', async () => {
    await store.close();
    let cycles = 0;
    const stop = new Promise<string>((resolve) => {
      const t = setInterval(() => {
        // A few engine reads have gone by: long enough for a history pull at start to show.
        if (rm.callsTo('GET /apps') >= 2 || ++cycles > 100) {
          clearInterval(t);
          setTimeout(() => resolve('test'), 200);
        }
      }, 20);
    });
    const code = await serve(
      ['--rm-url', rm.url, '--state-dir', join(dir, 'state'), '--port', '0', '--log-level', 'silent', '--period-ms', '100'],
      { out: () => undefined, err: () => undefined },
      stop,
    );
    expect(code).toBe(0);
    store = await Store.open(join(dir, 'state'));
    // With a schedule, serve pulls at start and waits for that pull before closing the store.
    expect(await new HistoryStore(store).count()).toBe(0);
  }, 20_000);
});
