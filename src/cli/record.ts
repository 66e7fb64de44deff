/**
 * `schedbrain record`: the applications that ended on a cluster since a time, with their tasks,
 * written as a trace the simulator replays (`schedbrain simulate --workload trace.jsonl`).
 * A progress bar goes to stderr when stderr is a terminal; stdout carries one summary line.
 */
import { createWriteStream, renameSync } from 'node:fs';
import { once } from 'node:events';
import { RmClient } from '../yarn/client.js';
import { readFlags, UsageError } from '../sim/params.js';
import { recordWorkload, type RecordingRm } from '../history/sources/record.js';
import { httpJsonGet, jobHistorySource, timelineSource, type JsonGet, type TaskSourceReader } from '../history/sources/tasks.js';
import { formatTraceLine, taskCountOf, TASK_SOURCES } from '../history/sources/trace.js';

export const RECORD_HELP = `Usage: schedbrain record --rm-url URL --since AGE|DATE --out FILE.jsonl [options]

Reads the applications that ended since AGE ago (30m, 12h, 7d; at most 366d) or since DATE
(ISO 8601) from the ResourceManager, finds what each ran (timeline service, else MapReduce
JobHistory, else an estimate from the RM's aggregate usage) and writes a trace:
  schedbrain simulate --workload FILE.jsonl --policy fifo,kairos --html report.html

Options:
  --rm-url URL            ResourceManager web address (or SCHEDBRAIN_RM_URL)
  --since AGE|DATE        how far back (required)
  --out FILE              trace file to write (required)
  --timeline-url URL      YARN timeline / application history server (e.g. http://ahs:8188)
  --jobhistory-url URL    MapReduce JobHistory server (e.g. http://jhs:19888)
  --max-jobs N            at most N applications (earliest-ended first; 1..1000000)
  --timeout-ms MS         per-request timeout (100..300000, default 10000)
  --help                  this help`;

const FLAGS = {
  'rm-url': { type: 'string' },
  since: { type: 'string' },
  out: { type: 'string' },
  'timeline-url': { type: 'string' },
  'jobhistory-url': { type: 'string' },
  'max-jobs': { type: 'number', integer: true, min: 1 },
  'timeout-ms': { type: 'number', integer: true, min: 100 },
} as const;

const MAX_SINCE_MS = 366 * 86_400_000;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `7d` → now − 7 days; an ISO date as given. Refuses the future and more than 366 days back. */
export function parseSince(v: string, nowMs: number): number {
  const m = /^(\d+(?:\.\d+)?)\s*([smhdw])$/.exec(v.trim());
  const ms = m ? nowMs - Number(m[1]) * UNIT_MS[m[2]] : /^\d{4}-\d{2}-\d{2}/.test(v.trim()) ? Date.parse(v.trim()) : NaN;
  if (!Number.isFinite(ms)) throw new UsageError(`--since: expected an age (30m, 12h, 7d) or an ISO date, got ${v}`);
  if (ms > nowMs) throw new UsageError(`--since: ${v} is in the future`);
  if (nowMs - ms > MAX_SINCE_MS) throw new UsageError(`--since: ${v} is more than 366 days back`);
  return ms;
}

function checkUrl(flag: string, v: string): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new UsageError(`${flag}: not a URL: ${v}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`${flag}: expected http or https, got ${u.protocol}`);
  return v.replace(/\/+$/, '');
}

function progressBar(): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = -1;
  return (done, total) => {
    const pct = total ? Math.floor((100 * done) / total) : 100;
    if (pct === last) return;
    last = pct;
    const w = 30;
    const fill = Math.round((w * pct) / 100);
    process.stderr.write(`\rrecording [${'#'.repeat(fill)}${'.'.repeat(w - fill)}] ${pct}% ${done}/${total} applications`);
    if (done >= total) process.stderr.write('\n');
  };
}

export interface RecordCommandDeps {
  /** For tests: the RM and the JSON GETs of the task sources instead of the network. */
  readonly rm?: RecordingRm;
  readonly get?: JsonGet;
  readonly now?: () => number;
  readonly env?: NodeJS.ProcessEnv;
}

export async function runRecordCommand(argv: readonly string[], deps: RecordCommandDeps = {}): Promise<number> {
  const now = deps.now ?? Date.now;
  const env = deps.env ?? process.env;
  let opts;
  try {
    const { values: v, help } = readFlags(argv, FLAGS);
    if (help) {
      process.stdout.write(`${RECORD_HELP}\n`);
      return 0;
    }
    const rmUrl = (v['rm-url'] as string | undefined) ?? env.SCHEDBRAIN_RM_URL;
    if (!rmUrl && !deps.rm) throw new UsageError('--rm-url is required (or SCHEDBRAIN_RM_URL)');
    if (v.since === undefined) throw new UsageError('--since is required');
    if (v.out === undefined) throw new UsageError('--out is required');
    const maxJobs = v['max-jobs'] as number | undefined;
    if (maxJobs !== undefined && maxJobs > 1_000_000) throw new UsageError(`--max-jobs: at most 1000000, got ${maxJobs}`);
    const timeoutMs = (v['timeout-ms'] as number | undefined) ?? 10_000;
    if (timeoutMs > 300_000) throw new UsageError(`--timeout-ms: at most 300000, got ${timeoutMs}`);
    opts = {
      rmUrl: rmUrl ? checkUrl('--rm-url', rmUrl) : undefined,
      sinceMs: parseSince(v.since as string, now()),
      out: v.out as string,
      timelineUrl: v['timeline-url'] === undefined ? undefined : checkUrl('--timeline-url', v['timeline-url'] as string),
      jobHistoryUrl: v['jobhistory-url'] === undefined ? undefined : checkUrl('--jobhistory-url', v['jobhistory-url'] as string),
      maxJobs,
      timeoutMs,
    };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`schedbrain record: ${e.message}\n${RECORD_HELP}\n`);
    return 2;
  }
  try {
    const rm = deps.rm ?? new RmClient({ rmUrl: opts.rmUrl as string, requestTimeoutMs: opts.timeoutMs });
    const get = deps.get ?? httpJsonGet({ timeoutMs: opts.timeoutMs });
    const sources: TaskSourceReader[] = [];
    if (opts.timelineUrl) sources.push(timelineSource(opts.timelineUrl, get));
    if (opts.jobHistoryUrl) sources.push(jobHistorySource(opts.jobHistoryUrl, get));
    const recording = await recordWorkload({
      rm,
      sinceMs: opts.sinceMs,
      sources,
      sourceUrls: { ...(opts.timelineUrl ? { timelineUrl: opts.timelineUrl } : {}), ...(opts.jobHistoryUrl ? { jobHistoryUrl: opts.jobHistoryUrl } : {}) },
      maxJobs: opts.maxJobs,
      onProgress: progressBar(),
      now,
    });
    // Written aside and renamed: a failed write leaves no cut-off trace under the name asked for.
    const partial = `${opts.out}.partial`;
    const out = createWriteStream(partial);
    for (const line of [recording.header, ...recording.jobs].map(formatTraceLine)) {
      if (!out.write(line)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    renameSync(partial, opts.out);
    const bySource = TASK_SOURCES.map((s) => [s, recording.jobs.filter((j) => j.tasks.source === s).length] as const).filter(([, n]) => n > 0);
    const tasks = recording.jobs.reduce((n, j) => n + taskCountOf(j.tasks), 0);
    process.stdout.write(
      `recorded ${recording.jobs.length} applications (${tasks} tasks; ${bySource.map(([s, n]) => `${s} ${n}`).join(', ') || 'none'})` +
        `${recording.skipped ? `, ${recording.skipped} skipped` : ''} to ${opts.out}\n`,
    );
    return 0;
  } catch (e) {
    process.stderr.write(`schedbrain record: ${(e as Error).message}\n`);
    return 1;
  }
}
