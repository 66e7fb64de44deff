/**
 * What an ended application ran, task by task. The RM forgets a finished application's
 * containers, so the detail comes from elsewhere, best first:
 * - the YARN Timeline service's application history (`/ws/v1/applicationhistory/apps/{id}/
 *   appattempts/{attempt}/containers`): every container of every attempt with its start and
 *   finish, for any application type, when the RM publishes to it
 *   (`yarn.system-metrics-publisher.enabled`, `yarn.rm.system-metrics-publisher.emit-container-events`);
 * - the MapReduce JobHistory server (`/ws/v1/history/mapreduce/jobs/{job}/tasks`): map and reduce
 *   tasks of a MapReduce job, with the container sizes from the job's configuration;
 * - failing both, an estimate from the RM's own aggregate (vcore·s and MB·s over the run time).
 */
import axios, { type AxiosAdapter, type AxiosInstance } from 'axios';
import { z } from 'zod';
import type { HistoryRecord } from '../../core/history.js';
import type { TraceStage, TraceTasks } from './trace.js';

/** A JSON GET: the parsed body, or undefined when the server answers 404 (it does not know it). */
export type JsonGet = (url: string) => Promise<unknown>;

export class SourceError extends Error {}

/** JSON GETs with a timeout; 404 → undefined, other failures throw SourceError naming the URL. */
export function httpJsonGet(opts: { timeoutMs?: number; adapter?: AxiosAdapter } = {}): JsonGet {
  const http: AxiosInstance = axios.create({
    timeout: opts.timeoutMs ?? 10_000,
    headers: { Accept: 'application/json' },
    validateStatus: () => true,
    ...(opts.adapter ? { adapter: opts.adapter } : {}),
  });
  return async (url) => {
    let res;
    try {
      res = await http.get<unknown>(url);
    } catch (e) {
      throw new SourceError(`GET ${url}: ${(e as Error).message}`);
    }
    if (res.status === 404) return undefined;
    if (res.status < 200 || res.status >= 300) throw new SourceError(`GET ${url}: HTTP ${res.status}`);
    return res.data;
  };
}

/** Finds one application's tasks; undefined when this source does not know the application. */
export interface TaskSourceReader {
  readonly name: TraceTasks['source'];
  tasksOf(record: HistoryRecord): Promise<TraceTasks | undefined>;
}

const list = <T extends z.ZodTypeAny>(item: T) => z.preprocess((v) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]), z.array(item));
const num = z.coerce.number();

// ---- Timeline service (application history) -----------------------------------------------------

const ahsAttemptsSchema = z
  .object({ appAttempt: list(z.object({ appAttemptId: z.string(), amContainerId: z.string().optional() }).passthrough()) })
  .passthrough();
const ahsContainerSchema = z
  .object({
    containerId: z.string(),
    allocatedMB: num,
    allocatedVCores: num,
    startedTime: num,
    finishedTime: num,
    containerState: z.string().optional(),
    containerExitStatus: num.optional(),
    diagnosticsInfo: z.string().optional(),
  })
  .passthrough();
const ahsContainersSchema = z.object({ container: list(ahsContainerSchema) }).passthrough();

/** Containers of alike size form one stage (YARN knows no stages), in order of first start. */
export function stagesOfContainers(containers: readonly { memoryMB: number; vcores: number; startMs: number; durationMs: number }[]): TraceStage[] {
  const bySize = new Map<string, { memoryMB: number; vcores: number; firstStartMs: number; durationsMs: number[] }>();
  for (const c of [...containers].sort((a, b) => a.startMs - b.startMs)) {
    const key = `${c.memoryMB}/${c.vcores}`;
    let g = bySize.get(key);
    if (!g) bySize.set(key, (g = { memoryMB: c.memoryMB, vcores: c.vcores, firstStartMs: c.startMs, durationsMs: [] }));
    g.durationsMs.push(c.durationMs);
  }
  return [...bySize.values()].map((g) => ({ name: 'tasks', memoryMB: g.memoryMB, vcores: g.vcores, durationsMs: g.durationsMs }));
}

/** `ContainerExitStatus.ABORTED`, with the RM's words for a container its application gave back. */
const ABORTED = -100;
const RELEASED_BY_APPLICATION = /released by application/i;

/**
 * A container the application released with no task in it: an ApplicationMaster gives back what
 * it was allocated beyond its asks (the request bookkeeping races); the RM still reports it, with
 * a "start" that is its allocation. One released while running a task is the same to the RM, and
 * is left out as well (an AM killing its own task; rarer).
 */
function releasedUnused(c: { containerExitStatus?: number; diagnosticsInfo?: string }): boolean {
  return c.containerExitStatus === ABORTED && RELEASED_BY_APPLICATION.test(c.diagnosticsInfo ?? '');
}

export function timelineSource(baseUrl: string, get: JsonGet): TaskSourceReader {
  const base = `${baseUrl.replace(/\/+$/, '')}/ws/v1/applicationhistory/apps`;
  return {
    name: 'timeline',
    async tasksOf(record) {
      const app = encodeURIComponent(record.appId);
      const rawAttempts = await get(`${base}/${app}/appattempts`);
      if (rawAttempts === undefined) return undefined;
      const attempts = parse(ahsAttemptsSchema, rawAttempts, 'timeline appattempts').appAttempt;
      if (attempts.length === 0) return undefined;
      const amIds = new Set(attempts.map((a) => a.amContainerId).filter((x): x is string => !!x));
      const tasks: { memoryMB: number; vcores: number; startMs: number; durationMs: number }[] = [];
      let am: TraceTasks['am'];
      let released = 0;
      for (const attempt of attempts) {
        const raw = await get(`${base}/${app}/appattempts/${encodeURIComponent(attempt.appAttemptId)}/containers`);
        for (const c of raw === undefined ? [] : parse(ahsContainersSchema, raw, 'timeline containers').container) {
          const size = { memoryMB: Math.max(1, c.allocatedMB), vcores: Math.max(1, Math.round(c.allocatedVCores)) };
          if (amIds.has(c.containerId)) {
            am ??= size;
            continue;
          }
          if (releasedUnused(c)) {
            released++;
            continue;
          }
          // A container with no start or end (still listed as running) ran no task we can time.
          if (!(c.startedTime > 0) || !(c.finishedTime >= c.startedTime)) continue;
          tasks.push({ ...size, startMs: c.startedTime, durationMs: c.finishedTime - c.startedTime });
        }
      }
      return {
        source: 'timeline',
        stages: stagesOfContainers(tasks),
        ...(am ? { am } : {}),
        ...(released ? { note: `${released} container(s) released by the application, not counted as tasks` } : {}),
      };
    },
  };
}

// ---- MapReduce JobHistory -------------------------------------------------------------------------

const mrTaskSchema = z
  .object({ id: z.string(), type: z.string(), state: z.string().optional(), startTime: num, finishTime: num, elapsedTime: num.optional() })
  .passthrough();
const mrTasksSchema = z
  .object({
    tasks: z
      .object({ task: list(mrTaskSchema) })
      .passthrough()
      .nullable(),
  })
  .passthrough();
const mrConfSchema = z
  .object({ conf: z.object({ property: list(z.object({ name: z.string(), value: z.string() }).passthrough()) }).passthrough() })
  .passthrough();

/** `application_1326381300833_0002` → `job_1326381300833_0002` (MapReduce names its job after the application). */
export function jobIdOf(appId: string): string | undefined {
  return /^application_(\d+_\d+)$/.exec(appId) ? appId.replace(/^application_/, 'job_') : undefined;
}

/** MapReduce's defaults when the job's configuration does not say (mapred-default.xml). */
const MR_DEFAULT_MB = 1024;
const MR_DEFAULT_VCORES = 1;

export function jobHistorySource(baseUrl: string, get: JsonGet): TaskSourceReader {
  const base = `${baseUrl.replace(/\/+$/, '')}/ws/v1/history/mapreduce/jobs`;
  return {
    name: 'jobhistory',
    async tasksOf(record) {
      const jobId = jobIdOf(record.appId);
      // Only MapReduce jobs are in the JobHistory server; asking about others costs a 404 each.
      if (!jobId || (record.applicationType !== undefined && record.applicationType.toUpperCase() !== 'MAPREDUCE')) return undefined;
      const rawTasks = await get(`${base}/${jobId}/tasks`);
      if (rawTasks === undefined) return undefined;
      const tasks = parse(mrTasksSchema, rawTasks, 'jobhistory tasks').tasks?.task ?? [];
      const rawConf = await get(`${base}/${jobId}/conf`);
      const conf = new Map((rawConf === undefined ? [] : parse(mrConfSchema, rawConf, 'jobhistory conf').conf.property).map((p) => [p.name, p.value]));
      const size = (kind: 'map' | 'reduce') => ({
        memoryMB: positiveOr(conf.get(`mapreduce.${kind}.memory.mb`), MR_DEFAULT_MB),
        vcores: Math.round(positiveOr(conf.get(`mapreduce.${kind}.cpu.vcores`), MR_DEFAULT_VCORES)),
      });
      const ran = (t: z.infer<typeof mrTaskSchema>) => t.startTime > 0 && t.finishTime >= t.startTime;
      const durations = (type: string) => tasks.filter((t) => t.type.toUpperCase() === type && ran(t)).map((t) => t.finishTime - t.startTime);
      const maps = durations('MAP');
      const reduces = durations('REDUCE');
      const stages: TraceStage[] = [];
      if (maps.length) stages.push({ name: 'map', ...size('map'), durationsMs: maps });
      // Reducers start after the maps (slow-start aside): a stage with the map stage as parent.
      if (reduces.length) stages.push({ name: 'reduce', ...(maps.length ? { parents: [0] } : {}), ...size('reduce'), durationsMs: reduces });
      const amMB = positiveOr(conf.get('yarn.app.mapreduce.am.resource.mb'), 1536);
      const amVcores = Math.round(positiveOr(conf.get('yarn.app.mapreduce.am.resource.cpu-vcores'), 1));
      return { source: 'jobhistory', stages, am: { memoryMB: amMB, vcores: amVcores } };
    },
  };
}

function positiveOr(v: string | undefined, dflt: number): number {
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) && n > 0 ? n : dflt;
}

// ---- The RM's aggregate ----------------------------------------------------------------------------

/** The ApplicationMaster is taken as one vcore for the whole run (the RM does not keep its size). */
const AGGREGATE_AM_VCORES = 1;

/**
 * An estimate from the RM's aggregate: the vcore·s left after the ApplicationMaster's share,
 * spread over k one-vcore tasks running side by side for the whole run, k the work's mean
 * concurrency (rounded, at least 1), each task of the run's mean MB per vcore. Total work and
 * run time are the RM's; the task count and sizes are not known and the note says so.
 */
export function aggregateTasks(record: HistoryRecord, reason: string): TraceTasks {
  const runtimeMs = record.runtimeMs ?? 0;
  const usage = record.usage;
  if (!usage || runtimeMs <= 0 || usage.vcoreSeconds <= 0) {
    return { source: 'aggregate', stages: [], note: `${reason}; the RM gives no run time or usage: no task replayed` };
  }
  const runtimeS = runtimeMs / 1000;
  const workVcoreS = Math.max(0, usage.vcoreSeconds - AGGREGATE_AM_VCORES * runtimeS);
  if (workVcoreS <= 0) return { source: 'aggregate', stages: [], note: `${reason}; the usage is the ApplicationMaster's alone: no task replayed` };
  const tasks = Math.max(1, Math.round(workVcoreS / runtimeS));
  const durationMs = (workVcoreS / tasks) * 1000;
  const memoryMB = Math.max(1, Math.round(usage.memoryMBSeconds / usage.vcoreSeconds));
  return {
    source: 'aggregate',
    stages: [{ name: 'tasks', memoryMB, vcores: 1, durationsMs: new Array<number>(tasks).fill(Math.round(durationMs)) }],
    note: `${reason}; estimated from ${usage.vcoreSeconds} vcore·s over ${runtimeS.toFixed(1)} s: ${tasks} one-vcore task(s)`,
  };
}

/**
 * The history record's `requested` from what ran: the task count, and the size of the largest
 * stage's containers (the record keeps one size, as the RM's requests give it). Undefined when
 * nothing but the ApplicationMaster ran.
 */
export function requestedFromTasks(tasks: TraceTasks): HistoryRecord['requested'] {
  if (tasks.stages.length === 0) return undefined;
  const largest = tasks.stages.reduce((b, s) => (s.memoryMB > b.memoryMB ? s : b));
  return { containers: tasks.stages.reduce((n, s) => n + s.durationsMs.length, 0), memoryMB: largest.memoryMB, vcores: largest.vcores };
}

/**
 * The first source that knows the application, else the aggregate. A source that fails (down,
 * bad answer) is passed over for this application; its message goes into the note.
 */
export async function tasksFor(record: HistoryRecord, sources: readonly TaskSourceReader[]): Promise<TraceTasks> {
  const misses: string[] = [];
  for (const s of sources) {
    try {
      const t = await s.tasksOf(record);
      if (t) return t;
      misses.push(`${s.name}: not known`);
    } catch (e) {
      misses.push(`${s.name}: ${(e as Error).message}`);
    }
  }
  return aggregateTasks(record, misses.length ? misses.join('; ') : 'no timeline or JobHistory server configured');
}

function parse<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, raw: unknown, what: string): T {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new SourceError(`${what}: ${issue.path.join('.') || '(body)'}: ${issue.message}`);
}
