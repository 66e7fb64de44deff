import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseSince, runRecordCommand } from '../../src/cli/record.js';
import { nodeGroupsOf, recordWorkload, type RecordingRm } from '../../src/history/sources/record.js';
import { aggregateTasks, jobHistorySource, jobIdOf, tasksFor, timelineSource, type JsonGet } from '../../src/history/sources/tasks.js';
import { formatTraceLine, parseTrace, taskCountOf, TraceError, type TraceHeader, type TraceJob } from '../../src/history/sources/trace.js';
import { historyRecordOf } from '../../src/history/records.js';
import { runSimulateCommand } from '../../src/sim/cli.js';
import { simulate } from '../../src/sim/simulate.js';
import { equalShareQueues, isRecordedTrace, loadRecordedTrace, recordedWorkload } from '../../src/sim/workloads/recorded.js';
import { resolveWorkload } from '../../src/sim/workloads/index.js';
import type { RmAppInfo, RmNodeInfo } from '../../src/yarn/schemas.js';
import { captureStdio } from '../support/capture-stdio.js';

afterEach(() => vi.restoreAllMocks());

// Answers of a real mini YARN (Hadoop 3.4.1, RM publishing to a timeline server) for a job of
// three 256 MB tasks of `sleep 2`; trimmed to the fields read.
const APP = 'application_1795519002098_0001';
const ATTEMPT = 'appattempt_1795519002098_0001_000001';
const AHS = 'http://ahs:8188/ws/v1/applicationhistory/apps';
const ahsAttempts = { appAttempt: [{ appAttemptId: ATTEMPT, appAttemptState: 'FINISHED', amContainerId: 'container_1795519002098_0001_01_000001' }] };
const container = (n: number, startedTime: number, finishedTime: number) => ({
  containerId: `container_1795519002098_0001_01_00000${n}`,
  allocatedMB: 256,
  allocatedVCores: 1,
  startedTime,
  finishedTime,
  elapsedTime: finishedTime - startedTime,
  containerExitStatus: 0,
  containerState: 'COMPLETE',
});
const ahsContainers = {
  container: [
    container(4, 1795519016932, 1795519019183),
    container(3, 1795519016433, 1795519018911),
    container(2, 1795519015927, 1795519018761),
    container(1, 1795519010938, 1795519019772),
  ],
};
const rmApp: RmAppInfo = {
  id: APP,
  user: 'root',
  name: 'etl-2026-11-24',
  queue: 'root.default',
  state: 'FINISHED',
  finalStatus: 'SUCCEEDED',
  applicationType: 'SCHEDBRAIN',
  applicationTags: '',
  priority: 0,
  startedTime: 1795519010184,
  launchTime: 1795519011741,
  finishedTime: 1795519019586,
  memorySeconds: 4196,
  vcoreSeconds: 14,
};

// The MapReduce JobHistory server's documented answers (HistoryServerRest.md, "Tasks API" and
// "Job Conf API"); not verified against a live server here.
const JHS = 'http://jhs:19888/ws/v1/history/mapreduce/jobs';
const mrTasks = {
  tasks: {
    task: [
      {
        progress: 100,
        elapsedTime: 6777,
        state: 'SUCCEEDED',
        startTime: 1326381446541,
        id: 'task_1326381300833_2_2_m_0',
        type: 'MAP',
        successfulAttempt: 'attempt_1326381300833_2_2_m_0_0',
        finishTime: 1326381453318,
      },
      {
        progress: 100,
        elapsedTime: 135559,
        state: 'SUCCEEDED',
        startTime: 1326381446544,
        id: 'task_1326381300833_2_2_r_0',
        type: 'REDUCE',
        successfulAttempt: 'attempt_1326381300833_2_2_r_0_0',
        finishTime: 1326381582103,
      },
    ],
  },
};
const mrConf = {
  conf: {
    path: 'hdfs://host.domain.com:9000/user/user1/.staging/job_1326381300833_0002/job.xml',
    property: [
      { name: 'mapreduce.map.memory.mb', value: '2048', source: ['job.xml'] },
      { name: 'mapreduce.reduce.memory.mb', value: '4096', source: ['job.xml'] },
      { name: 'mapreduce.reduce.cpu.vcores', value: '2', source: ['job.xml'] },
    ],
  },
};
const mrApp: RmAppInfo = {
  ...rmApp,
  id: 'application_1326381300833_0002',
  name: 'Sleep job',
  applicationType: 'MAPREDUCE',
  // The documented job's times moved to the other application's day.
  startedTime: 1795519000000,
  launchTime: 1795519000029,
  finishedTime: 1795519135606,
};

function fakeGet(routes: Record<string, unknown>): JsonGet & { calls: string[] } {
  const calls: string[] = [];
  const get = (async (url: string) => {
    calls.push(url);
    const r = routes[url];
    if (r instanceof Error) throw r;
    return r;
  }) as JsonGet & { calls: string[] };
  get.calls = calls;
  return get;
}

const timelineRoutes = { [`${AHS}/${APP}/appattempts`]: ahsAttempts, [`${AHS}/${APP}/appattempts/${ATTEMPT}/containers`]: ahsContainers };
const jhsRoutes = { [`${JHS}/job_1326381300833_0002/tasks`]: mrTasks, [`${JHS}/job_1326381300833_0002/conf`]: mrConf };

const rec = (app: RmAppInfo) => {
  const r = historyRecordOf(app, 1795519100000);
  if (!r) throw new Error('no record');
  return r;
};

describe('task sources', () => {
  it('the timeline source: every non-AM container of the attempts, with its run time, and the AM size apart', async () => {
    const t = await timelineSource('http://ahs:8188/', fakeGet(timelineRoutes)).tasksOf(rec(rmApp));
    expect(t?.source).toBe('timeline');
    expect(t?.am).toEqual({ memoryMB: 256, vcores: 1 });
    expect(t?.stages).toEqual([{ name: 'tasks', memoryMB: 256, vcores: 1, durationsMs: [2834, 2478, 2251] }]);
  });

  it('the timeline source: a container the application released unused is no task, and the note counts it', async () => {
    const released = { ...container(5, 1795519016000, 1795519016100), containerExitStatus: -100, diagnosticsInfo: 'Container released by application' };
    const lost = { ...container(6, 1795519016000, 1795519017000), containerExitStatus: -100, diagnosticsInfo: 'Container released on a *lost* node' };
    const routes = { ...timelineRoutes, [`${AHS}/${APP}/appattempts/${ATTEMPT}/containers`]: { container: [...ahsContainers.container, released, lost] } };
    const t = await timelineSource('http://ahs:8188', fakeGet(routes)).tasksOf(rec(rmApp));
    // The task on the lost node ran (and was run again): it counts.
    expect(t?.stages[0].durationsMs).toEqual([2834, 1000, 2478, 2251]); // in order of start
    expect(t?.note).toBe('1 container(s) released by the application, not counted as tasks');
  });

  it('the timeline source: an application it does not know (404) is undefined; containers of two sizes are two stages', async () => {
    expect(await timelineSource('http://ahs:8188', fakeGet({})).tasksOf(rec(rmApp))).toBeUndefined();
    const mixed = { container: [...ahsContainers.container, { ...container(5, 1795519017000, 1795519018000), allocatedMB: 1024, allocatedVCores: 2 }] };
    const t = await timelineSource('http://ahs:8188', fakeGet({ ...timelineRoutes, [`${AHS}/${APP}/appattempts/${ATTEMPT}/containers`]: mixed })).tasksOf(
      rec(rmApp),
    );
    expect(t?.stages.map((s) => [s.memoryMB, s.vcores, s.durationsMs.length])).toEqual([
      [256, 1, 3],
      [1024, 2, 1],
    ]);
  });

  it('the JobHistory source: maps, then reduces after them, sized from the job configuration', async () => {
    expect(jobIdOf('application_1326381300833_0002')).toBe('job_1326381300833_0002');
    const t = await jobHistorySource('http://jhs:19888', fakeGet(jhsRoutes)).tasksOf(rec(mrApp));
    expect(t).toEqual({
      source: 'jobhistory',
      stages: [
        { name: 'map', memoryMB: 2048, vcores: 1, durationsMs: [6777] },
        { name: 'reduce', parents: [0], memoryMB: 4096, vcores: 2, durationsMs: [135559] },
      ],
      am: { memoryMB: 1536, vcores: 1 },
    });
  });

  it('the JobHistory source does not ask about an application of another type', async () => {
    const get = fakeGet(jhsRoutes);
    expect(await jobHistorySource('http://jhs:19888', get).tasksOf(rec(rmApp))).toBeUndefined();
    expect(get.calls).toEqual([]);
  });

  it('falls back source by source, and to the aggregate with the reasons in the note', async () => {
    const sources = (routes: Record<string, unknown>) => [
      timelineSource('http://ahs:8188', fakeGet(routes)),
      jobHistorySource('http://jhs:19888', fakeGet(routes)),
    ];
    expect((await tasksFor(rec(mrApp), sources(jhsRoutes))).source).toBe('jobhistory');
    const down = new Error('GET …: connect ECONNREFUSED');
    const t = await tasksFor(rec(rmApp), sources({ [`${AHS}/${APP}/appattempts`]: down }));
    expect(t.source).toBe('aggregate');
    expect(t.note).toContain('timeline: GET …: connect ECONNREFUSED');
    expect(t.note).toContain('jobhistory: not known');
    expect((await tasksFor(rec(rmApp), [])).note).toContain('no timeline or JobHistory server configured');
  });

  it('the aggregate keeps the RM’s work and run time: vcore·s less the AM’s, over one-vcore tasks side by side', () => {
    const r = rec(rmApp); // 14 vcore·s over 7.845 s
    const t = aggregateTasks(r, 'why');
    const stage = t.stages[0];
    const workS = 14 - 7.845;
    expect(stage.durationsMs.length).toBe(Math.round(workS / 7.845));
    expect(stage.durationsMs.reduce((a, b) => a + b, 0) / 1000).toBeCloseTo(workS, 2);
    expect(stage.memoryMB).toBe(Math.round(4196 / 14));
    expect(aggregateTasks({ ...r, usage: undefined }, 'why').stages).toEqual([]);
  });
});

function fakeRm(apps: RmAppInfo[], nodes: Partial<RmNodeInfo>[]): RecordingRm & { filters: unknown[] } {
  const filters: unknown[] = [];
  return {
    rmUrl: 'http://rm:8088',
    filters,
    apps: async (f) => {
      filters.push(f);
      return apps;
    },
    nodes: async () => nodes as RmNodeInfo[],
  };
}

const node = (memoryMB: number, vcores: number): Partial<RmNodeInfo> => ({
  id: `n${memoryMB}-${vcores}-${Math.random()}`,
  usedMemoryMB: 0,
  availMemoryMB: memoryMB,
  usedVirtualCores: 0,
  availableVirtualCores: vcores,
});

describe('recordWorkload', () => {
  it('asks the RM for what ended since, records features, runtime and outcome, and the tasks with their source', async () => {
    const running = { ...rmApp, id: 'application_1795519002098_0009', state: 'RUNNING', finishedTime: 0 };
    const rm = fakeRm([rmApp, mrApp, running], [node(4096, 4), node(4096, 4), node(8192, 8)]);
    const progress: [number, number][] = [];
    const r = await recordWorkload({
      rm,
      sinceMs: 1_000,
      sources: [timelineSource('http://ahs:8188', fakeGet(timelineRoutes)), jobHistorySource('http://jhs:19888', fakeGet(jhsRoutes))],
      onProgress: (d, t) => progress.push([d, t]),
      now: () => 1795519100000,
    });
    expect(rm.filters[0]).toMatchObject({ states: ['FINISHED', 'FAILED', 'KILLED'], finishedSinceMs: 1_000 });
    expect(r.skipped).toBe(1);
    expect(r.header.cluster.nodeGroups).toEqual([
      { count: 2, vcores: 4, memoryMB: 4096 },
      { count: 1, vcores: 8, memoryMB: 8192 },
    ]);
    // In submission order.
    expect(r.jobs.map((j) => [j.record.appId, j.tasks.source, taskCountOf(j.tasks)])).toEqual([
      ['application_1326381300833_0002', 'jobhistory', 2],
      [APP, 'timeline', 3],
    ]);
    const j = r.jobs[1].record;
    expect(j).toMatchObject({
      user: 'root',
      queue: 'root.default',
      nameKey: 'etl-#-#-#',
      applicationType: 'SCHEDBRAIN',
      outcome: 'succeeded',
      submitHourUtc: new Date(rmApp.startedTime).getUTCHours(),
    });
    expect(j.runtimeMs).toBe(1795519019586 - 1795519011741);
    expect(progress.at(-1)).toEqual([2, 2]);
  });

  it('groups nodes by size from totalResource when the RM gives it', () => {
    expect(nodeGroupsOf([{ ...node(1, 1), totalResource: { memory: 2048, vCores: 2 } } as RmNodeInfo])).toEqual([{ count: 1, vcores: 2, memoryMB: 2048 }]);
  });
});

function traceOf(jobs: TraceJob[]): string {
  const header: TraceHeader = {
    format: 'schedbrain-trace',
    version: 1,
    recordedAtMs: 1795519100000,
    sinceMs: 0,
    rmUrl: 'http://rm:8088',
    cluster: { nodeGroups: [{ count: 2, vcores: 4, memoryMB: 4096 }] },
    sources: { timelineUrl: 'http://ahs:8188' },
    jobs: jobs.length,
  };
  return [header, ...jobs].map(formatTraceLine).join('');
}

async function sampleJobs(): Promise<TraceJob[]> {
  const r = await recordWorkload({
    rm: fakeRm([rmApp, mrApp, { ...rmApp, id: 'application_1795519002098_0002', queue: 'root.etl.nightly', startedTime: 1795519012000 }], [node(4096, 4)]),
    sinceMs: 0,
    sources: [timelineSource('http://ahs:8188', fakeGet(timelineRoutes)), jobHistorySource('http://jhs:19888', fakeGet(jhsRoutes))],
  });
  return r.jobs;
}

describe('the trace format', () => {
  it('round-trips through JSON lines and refuses another version, a cut-off file or a bad field (naming the line)', async () => {
    const jobs = await sampleJobs();
    const text = traceOf(jobs);
    expect(parseTrace(text).jobs).toEqual(jobs);
    expect(() => parseTrace(text.replace('"version":1', '"version":2'))).toThrow(/trace version 2/);
    expect(() => parseTrace(text.split('\n').slice(0, 2).join('\n'))).toThrow(/announces 3 jobs, 1 follow/);
    expect(() => parseTrace(text.replace('"durationsMs":[2834', '"durationsMs":[-1'))).toThrow(TraceError);
    expect(() => parseTrace(text.replace('"durationsMs":[2834', '"durationsMs":[-1'))).toThrow(/line \d+: tasks\.stages\.0\.durationsMs\.0/);
    expect(() => parseTrace('')).toThrow(/no header/);
  });
});

describe('the recorded workload', () => {
  it('replays each recorded job with its tasks: job and task counts equal the trace’s', async () => {
    const jobs = await sampleJobs();
    const w = recordedWorkload(parseTrace(traceOf(jobs)));
    expect(w.jobs.length).toBe(3);
    expect(w.jobs.map((j) => j.stages.reduce((n, s) => n + s.workMs.length, 0))).toEqual(jobs.map((j) => taskCountOf(j.tasks)));
    expect(w.jobs[0].arrivalMs).toBe(0);
    expect(w.jobs[1].arrivalMs).toBe(rmApp.startedTime - mrApp.startedTime);
    expect(w.jobs[0].stages[1].parents).toEqual([0]);
    expect(w.cluster?.nodeGroups).toEqual([{ count: 2, cores: 4, memoryMB: 4096 }]);
    const r = simulate({ workload: w, policy: 'fifo' });
    expect(r.jobs).toBe(3);
    // The third application is not in the timeline fixture: its one task is the aggregate's estimate.
    expect(jobs.map((j) => j.tasks.source)).toEqual(['jobhistory', 'timeline', 'aggregate']);
    expect(r.tasks).toBe(2 + 3 + 1);
    expect(r.unfinished).toBe(0);
  });

  it('shares the recorded queues equally at each level, each free to use all', () => {
    expect(equalShareQueues(['root.default', 'root.etl.nightly', 'root.etl.hourly', 'root.adhoc'])).toEqual([
      { path: 'root.adhoc', capacityPct: 33.33, maxCapacityPct: 100 },
      { path: 'root.default', capacityPct: 33.33, maxCapacityPct: 100 },
      { path: 'root.etl', capacityPct: 33.34, maxCapacityPct: 100 },
      { path: 'root.etl.hourly', capacityPct: 50, maxCapacityPct: 100 },
      { path: 'root.etl.nightly', capacityPct: 50, maxCapacityPct: 100 },
    ]);
  });

  it('is found by the simulator from the file’s header; an Eagle trace is not taken for one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rec-'));
    const file = join(dir, 'trace.jsonl');
    writeFileSync(file, traceOf(await sampleJobs()));
    const eagle = join(dir, 'e.tr');
    writeFileSync(eagle, '0 1 1 1\n');
    expect(isRecordedTrace(file)).toBe(true);
    expect(isRecordedTrace(eagle)).toBe(false);
    expect(resolveWorkload(file).jobs.length).toBe(3);
    expect(loadRecordedTrace(file).name).toBe('trace.jsonl');
  });
});

describe('schedbrain record', () => {
  it('parses --since as an age or a date, bounded', () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    expect(parseSince('7d', now)).toBe(now - 7 * 86_400_000);
    expect(parseSince('90m', now)).toBe(now - 90 * 60_000);
    expect(parseSince('2026-11-20T00:00:00Z', now)).toBe(Date.parse('2026-11-20T00:00:00Z'));
    expect(() => parseSince('400d', now)).toThrow(/366 days/);
    expect(() => parseSince('2027-01-01', now)).toThrow(/future/);
    expect(() => parseSince('yesterday', now)).toThrow(/--since/);
  });

  it('refuses bad arguments with exit 2 and the flag named, writing nothing', async () => {
    for (const [argv, msg] of [
      [['--since', '7d', '--out', 'x'], '--rm-url is required'],
      [['--rm-url', 'ftp://rm', '--since', '7d', '--out', 'x'], '--rm-url: expected http or https'],
      [['--rm-url', 'http://rm:8088', '--out', 'x'], '--since is required'],
      [['--rm-url', 'http://rm:8088', '--since', '7d', '--out', 'x', '--max-jobs', '0'], '--max-jobs'],
      [['--rm-url', 'http://rm:8088', '--since', '7d', '--out', 'x', '--timeout-ms', '999999'], '--timeout-ms: at most'],
    ] as const) {
      const io = captureStdio();
      const code = await runRecordCommand([...argv], { env: {} });
      vi.restoreAllMocks();
      expect(code, argv.join(' ')).toBe(2);
      expect(io.err()).toContain(msg);
    }
  });

  it('writes the trace and says how many applications came from each source; simulate replays it into an HTML report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rec-'));
    const out = join(dir, 'trace.jsonl');
    const io = captureStdio();
    const code = await runRecordCommand(
      ['--rm-url', 'http://rm:8088', '--since', '7d', '--out', out, '--timeline-url', 'http://ahs:8188', '--jobhistory-url', 'http://jhs:19888'],
      { rm: fakeRm([rmApp, mrApp], [node(4096, 4)]), get: fakeGet({ ...timelineRoutes, ...jhsRoutes }), now: () => 1795519100000 },
    );
    vi.restoreAllMocks();
    expect(code).toBe(0);
    expect(io.out()).toBe(`recorded 2 applications (5 tasks; timeline 1, jobhistory 1) to ${out}\n`);
    const trace = parseTrace(readFileSync(out, 'utf8'));
    expect(trace.header.sources).toEqual({ timelineUrl: 'http://ahs:8188', jobHistoryUrl: 'http://jhs:19888' });
    expect(trace.header.sinceMs).toBe(1795519100000 - 7 * 86_400_000);

    const html = join(dir, 'report.html');
    const io2 = captureStdio();
    const simCode = await runSimulateCommand(['--workload', out, '--policy', 'fifo,drf', '--json', '--html', html]);
    vi.restoreAllMocks();
    expect(simCode).toBe(0);
    const runs = JSON.parse(io2.out()).runs as { policy: string; jobs: number; tasks: number }[];
    expect(runs.map((r) => [r.policy, r.jobs, r.tasks])).toEqual([
      ['fifo', 2, 5],
      ['drf', 2, 5],
    ]);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<th>fifo</th><th>drf</th>');
    expect(page).toContain('recorded cluster');
    expect(page).toContain('2 recorded, 2 replayed (those with tasks); tasks from jobhistory 1, timeline 1.');
  });
});
