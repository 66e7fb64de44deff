import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { HistoryPuller, HistoryStore } from '../../src/history/index.js';
import { requestedFromTasks, type TaskSourceReader } from '../../src/history/sources/tasks.js';
import { Store } from '../../src/store/store.js';
import type { RmAppInfo } from '../../src/yarn/schemas.js';

const app = (seq: number, applicationType = 'SCHEDBRAIN'): RmAppInfo => ({
  id: `application_1795519002098_000${seq}`,
  user: 'etl',
  name: `daily-${seq}`,
  queue: 'root.default',
  state: 'FINISHED',
  finalStatus: 'SUCCEEDED',
  applicationType,
  priority: 0,
  startedTime: 1795519000000 + seq * 1000,
  launchTime: 1795519000500 + seq * 1000,
  finishedTime: 1795519060000 + seq * 1000,
  memorySeconds: 4196,
  vcoreSeconds: 14,
});

/** A source that knows the applications of `sizes` (appId → [count, MB, vcores]) and counts the questions. */
function source(name: 'timeline' | 'jobhistory', sizes: Record<string, [number, number, number]>, fail?: string): TaskSourceReader & { asked: string[] } {
  const asked: string[] = [];
  return {
    name,
    asked,
    async tasksOf(r) {
      asked.push(r.appId);
      if (fail) throw new Error(fail);
      const s = sizes[r.appId];
      return s ? { source: name, stages: [{ name: 'tasks', memoryMB: s[1], vcores: s[2], durationsMs: new Array<number>(s[0]).fill(1000) }] } : undefined;
    },
  };
}

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rec-hist-'));
  store = await Store.open(dir);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('history pulls with task sources', () => {
  it('completes the requested containers from the first source that knows the application, naming it; once per application', async () => {
    const history = new HistoryStore(store);
    const timeline = source('timeline', { [app(1).id]: [3, 256, 1] });
    const jobhistory = source('jobhistory', { [app(2).id]: [5, 2048, 1] });
    const apps = [app(1), app(2), app(3)];
    const puller = new HistoryPuller({
      source: { apps: async () => apps },
      history,
      overlapMs: 0,
      maxAgeMs: 0,
      taskSources: [timeline, jobhistory],
      now: () => 1795519200000,
    });
    await puller.pull();
    const byId = new Map((await history.list()).map((r) => [r.appId, r]));
    expect(byId.get(app(1).id)).toMatchObject({ requested: { containers: 3, memoryMB: 256, vcores: 1 }, source: 'rm+timeline' });
    expect(byId.get(app(2).id)).toMatchObject({ requested: { containers: 5, memoryMB: 2048, vcores: 1 }, source: 'rm+jobhistory' });
    // Neither knows the third: the RM's record as it is (its usage still there).
    expect(byId.get(app(3).id)?.requested).toBeUndefined();
    expect(byId.get(app(3).id)).toMatchObject({ source: 'rm', usage: { vcoreSeconds: 14 } });
    // The next pull lists them again (the overlap): stored ones are not asked about again.
    await puller.pull();
    expect(timeline.asked).toEqual([app(1).id, app(2).id, app(3).id]);
  });

  it('a failing source leaves the RM’s record and the pull goes on', async () => {
    const history = new HistoryStore(store);
    const puller = new HistoryPuller({
      source: { apps: async () => [app(1)] },
      history,
      overlapMs: 0,
      maxAgeMs: 0,
      taskSources: [source('timeline', {}, 'GET http://ahs:8188/…: connect ECONNREFUSED')],
    });
    expect((await puller.pull()).added).toBe(1);
    expect((await history.get(app(1).id))?.source).toBe('rm');
  });

  it('takes the largest stage’s size and every task for the record', () => {
    expect(
      requestedFromTasks({
        source: 'jobhistory',
        stages: [
          { name: 'map', memoryMB: 2048, vcores: 1, durationsMs: [1, 2, 3] },
          { name: 'reduce', parents: [0], memoryMB: 4096, vcores: 2, durationsMs: [4] },
        ],
      }),
    ).toEqual({ containers: 4, memoryMB: 4096, vcores: 2 });
    expect(requestedFromTasks({ source: 'timeline', stages: [] })).toBeUndefined();
  });

  it('the configuration takes the servers’ URLs, http or https only', () => {
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'history:\n  timelineUrl: http://ahs:8188\n  jobHistoryUrl: https://jhs:19890\n');
    expect(loadConfig(['--config', file], {}).config.history).toMatchObject({ timelineUrl: 'http://ahs:8188', jobHistoryUrl: 'https://jhs:19890' });
    writeFileSync(file, 'history:\n  timelineUrl: ftp://ahs\n');
    expect(() => loadConfig(['--config', file], {})).toThrow(/history\.timelineUrl/);
  });
});
