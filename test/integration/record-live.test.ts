/**
 * `schedbrain record` against a real YARN: jobs run, are recorded, and replayed.
 *
 * The RM forgets a finished application's containers, so the task detail needs the timeline
 * service. It cannot run inside the mini cluster's JVM (its web app would take over the RM's REST),
 * and the shared cluster does not publish to one; this file starts its own: a timeline server
 * (Hadoop's ApplicationHistoryServer, in-memory store) in one JVM and a one-node mini YARN whose RM
 * publishes to it (`--timeline-address`). The shared cluster is not touched.
 *
 * Jobs (sleep tasks, 256 MB / 1 vcore): 2, 3 and 1 tasks, run one after the other to the end.
 * Asserted:
 * - with the timeline server, every job is recorded with its tasks from it, and each job's task
 *   count is what it ran; the features (name, normalised name, queue, user, type, outcome,
 *   runtime) are the RM's;
 * - without it, every job is still recorded, its tasks marked as the aggregate's estimate;
 * - `simulate` replays the first trace under two policies: each replay runs as many jobs and
 *   tasks as ran, and the HTML report holds both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runRecordCommand } from '../../src/cli/record.js';
import { historyRecordOf } from '../../src/history/records.js';
import { httpJsonGet, timelineSource } from '../../src/history/sources/tasks.js';
import { parseTrace, taskCountOf } from '../../src/history/sources/trace.js';
import { runSimulateCommand } from '../../src/sim/cli.js';
import { recordedWorkload } from '../../src/sim/workloads/recorded.js';
import { JAVA_OPENS, adapterClasspath, ensureAdapterBuilt, findJava } from '../../src/yarn/adapter-build.js';
import { RmClient } from '../../src/yarn/client.js';
import { startMiniCluster, type MiniCluster } from '../../src/yarn/minicluster.js';
import { submitJob, type SubmittedJob } from '../../src/yarn/workload.js';
import { captureStdio } from '../support/capture-stdio.js';
import { eventually } from './helpers.js';

const JOBS = [
  { name: 'etl-2026-11-24-a', containers: 2, seconds: 2 },
  { name: 'etl-2026-11-24-b', containers: 3, seconds: 1 },
  { name: 'report-7', containers: 1, seconds: 3 },
] as const;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Hadoop's timeline server (v1, in-memory) in its own JVM, on `port`. */
async function startTimelineServer(dir: string, port: number): Promise<{ url: string; proc: ChildProcess; log: string }> {
  const conf = join(dir, 'conf');
  mkdirSync(conf, { recursive: true });
  const props: Record<string, string> = {
    'yarn.timeline-service.enabled': 'true',
    'yarn.timeline-service.webapp.address': `localhost:${port}`,
    'yarn.timeline-service.address': 'localhost:0',
    'yarn.timeline-service.store-class': 'org.apache.hadoop.yarn.server.timeline.MemoryTimelineStore',
    'yarn.timeline-service.state-store-class': 'org.apache.hadoop.yarn.server.timeline.recovery.MemoryTimelineStateStore',
    'yarn.timeline-service.recovery.enabled': 'false',
    'yarn.timeline-service.http-authentication.type': 'simple',
    'yarn.timeline-service.http-authentication.simple.anonymous.allowed': 'true',
  };
  const xml = (p: Record<string, string>) =>
    `<?xml version="1.0"?>\n<configuration>\n${Object.entries(p)
      .map(([k, v]) => `<property><name>${k}</name><value>${v}</value></property>`)
      .join('\n')}\n</configuration>\n`;
  writeFileSync(join(conf, 'yarn-site.xml'), xml(props));
  writeFileSync(join(conf, 'core-site.xml'), xml({ 'fs.defaultFS': 'file:///', 'hadoop.tmp.dir': join(dir, 'tmp') }));
  const log = join(dir, 'timeline.log');
  const out = openSync(log, 'a');
  const proc = spawn(
    findJava(),
    [
      ...JAVA_OPENS,
      '-Xmx384m',
      `-Dhadoop.log.dir=${join(dir, 'logs')}`,
      '-cp',
      `${conf}:${adapterClasspath()}`,
      'org.apache.hadoop.yarn.server.applicationhistoryservice.ApplicationHistoryServer',
    ],
    { stdio: ['ignore', out, out] },
  );
  const url = `http://localhost:${port}`;
  const tail = () => readFileSync(log, 'utf8').split('\n').slice(-30).join('\n');
  // A server that exits (e.g. its port taken before it bound it) ends the wait at once.
  let onExit: (() => void) | undefined;
  const exited = new Promise<never>((_, reject) => {
    onExit = () => reject(new Error(`the timeline server exited before it answered\n${tail()}`));
    proc.once('exit', onExit);
  });
  try {
    await Promise.race([
      eventually(
        'the timeline server to answer',
        async () => proc.exitCode === null && (await fetch(`${url}/ws/v1/timeline`, { headers: { Accept: 'application/json' } })).ok,
        120_000,
        500,
        tail,
      ),
      exited,
    ]);
  } finally {
    if (onExit) proc.off('exit', onExit);
  }
  return { url, proc, log };
}

/**
 * The timeline server on a port found free; on another one when that port was taken between the
 * check and the server's bind (the shared cluster's JVMs open ports all the time).
 */
async function startTimelineServerOnFreePort(dir: string): Promise<Awaited<ReturnType<typeof startTimelineServer>>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startTimelineServer(join(dir, `attempt-${attempt}`), await freePort());
    } catch (e) {
      if (attempt >= 3 || !/Port in use|BindException/.test(e instanceof Error ? e.message : String(e))) throw e;
    }
  }
}

async function record(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureStdio();
  try {
    const code = await runRecordCommand(argv);
    return { code, out: io.out(), err: io.err() };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('schedbrain record on a real YARN with a timeline server', () => {
  let dir: string;
  let timeline: Awaited<ReturnType<typeof startTimelineServer>> | undefined;
  let mini: MiniCluster | undefined;
  const ran: (SubmittedJob & (typeof JOBS)[number])[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'record-live-'));
    await ensureAdapterBuilt();
    timeline = await startTimelineServerOnFreePort(join(dir, 'timeline'));
    mini = await startMiniCluster({ nodes: 1, nmMemoryMB: 4096, nmVcores: 4, timelineAddress: new URL(timeline.url).host, startTimeoutMs: 180_000 });
    for (const j of JOBS) {
      const r = await submitJob(mini.confDir, {
        name: j.name,
        containers: j.containers,
        memoryMB: 256,
        vcores: 1,
        command: { kind: 'sleep', seconds: j.seconds },
        wait: true,
      });
      expect(r.finalStatus, `${j.name}: ${r.diagnostics ?? ''}`).toBe('SUCCEEDED');
      ran.push({ ...r, ...j });
    }
    // The RM publishes to the timeline server asynchronously: wait until it holds every container.
    const rm = new RmClient({ rmUrl: mini.rmUrl });
    const source = timelineSource(timeline.url, httpJsonGet());
    for (const j of ran) {
      const app = historyRecordOf(await rm.app(j.appId), Date.now());
      if (!app) throw new Error(`${j.appId} has not ended`);
      await eventually(`the timeline server to hold ${j.appId}'s ${j.containers} task containers`, async () => {
        const t = await source.tasksOf(app);
        return t !== undefined && taskCountOf(t) >= j.containers;
      });
    }
  });

  afterAll(async () => {
    await mini?.stop();
    if (timeline && timeline.proc.exitCode === null) {
      const exited = new Promise((r) => timeline?.proc.once('exit', r));
      timeline.proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (timeline.proc.exitCode === null) timeline.proc.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('records every job with its tasks from the timeline server: the task counts are what ran', async () => {
    const out = join(dir, 'trace.jsonl');
    const r = await record(['--rm-url', mini!.rmUrl, '--since', '1h', '--out', out, '--timeline-url', timeline!.url]);
    expect(r.code, r.err).toBe(0);
    const trace = parseTrace(readFileSync(out, 'utf8'));
    expect(trace.header.cluster.nodeGroups).toEqual([{ count: 1, vcores: 4, memoryMB: 4096 }]);
    expect(trace.jobs.map((j) => j.record.appId)).toEqual(ran.map((j) => j.appId));
    for (const [i, j] of trace.jobs.entries()) {
      const want = ran[i];
      expect(j.tasks.source, `${want.name}: ${j.tasks.note ?? ''}`).toBe('timeline');
      // Containers the JobMaster was given beyond its asks and gave back are not tasks (the note counts them).
      expect(taskCountOf(j.tasks), `${want.name}: ${j.tasks.note ?? ''}`).toBe(want.containers);
      expect(j.tasks.stages.map((s) => [s.memoryMB, s.vcores])).toEqual([[256, 1]]);
      // A task of `sleep N` ran at least N seconds in its container.
      for (const d of j.tasks.stages[0].durationsMs) expect(d).toBeGreaterThanOrEqual(want.seconds * 1000);
      expect(j.record).toMatchObject({ name: want.name, nameKey: want.name.replace(/[0-9]+/g, '#'), queue: 'root.default', outcome: 'succeeded' });
      expect(j.record.applicationType).toBe('SCHEDBRAIN');
      expect(j.record.runtimeMs).toBeGreaterThan(want.seconds * 1000);
    }
    expect(recordedWorkload(trace).recorded.map((j) => j.tasks)).toEqual(ran.map((j) => j.containers));

    // Replayed under two policies: as many jobs and tasks as ran, both in one report.
    const html = join(dir, 'report.html');
    const io = captureStdio();
    let code: number;
    try {
      code = await runSimulateCommand(['--workload', out, '--policy', 'fifo,drf', '--json', '--html', html]);
    } finally {
      vi.restoreAllMocks();
    }
    expect(code).toBe(0);
    const runs = (JSON.parse(io.out()) as { runs: { policy: string; jobs: number; tasks: number; unfinished: number }[] }).runs;
    const tasks = JOBS.reduce((n, j) => n + j.containers, 0);
    expect(runs.map((x) => [x.policy, x.jobs, x.tasks, x.unfinished])).toEqual([
      ['fifo', JOBS.length, tasks, 0],
      ['drf', JOBS.length, tasks, 0],
    ]);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<th>fifo</th><th>drf</th>');
    expect(page).toContain('recorded cluster');
  });

  it('without a timeline server, records the same jobs with the aggregate’s estimate, marked so', async () => {
    const out = join(dir, 'trace-rm-only.jsonl');
    const r = await record(['--rm-url', mini!.rmUrl, '--since', '1h', '--out', out]);
    expect(r.code, r.err).toBe(0);
    const trace = parseTrace(readFileSync(out, 'utf8'));
    expect(trace.jobs.map((j) => j.record.appId)).toEqual(ran.map((j) => j.appId));
    for (const j of trace.jobs) {
      expect(j.tasks.source).toBe('aggregate');
      expect(j.tasks.note).toContain('no timeline or JobHistory server configured');
      expect(j.record.usage?.vcoreSeconds).toBeGreaterThan(0);
    }
  });
});
