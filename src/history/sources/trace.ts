/**
 * The recorded-workload trace: JSON lines, a header first, then one ended application per line.
 *
 *   {"format":"schedbrain-trace","version":1,"recordedAtMs":…,"sinceMs":…,"cluster":{…},"sources":{…}}
 *   {"record":{…HistoryRecord…},"tasks":{"source":"timeline","stages":[{"memoryMB":…,"vcores":…,"durationsMs":[…]}]}}
 *
 * `record` is the history record (src/core/history.ts: features, runtime, outcome); `tasks` says
 * what ran and where that came from (`timeline`, `jobhistory`, or `aggregate`: an estimate from
 * the RM's MB·s and vcore·s when neither server knew the application). docs/operator-guide.md
 * describes the format for operators.
 */
import { z } from 'zod';
import { historyRecordSchema, type HistoryRecord } from '../../core/history.js';

export const TRACE_FORMAT = 'schedbrain-trace';
/** Bumped when a field changes meaning; a reader refuses a version it does not know. */
export const TRACE_VERSION = 1;

export const TASK_SOURCES = ['timeline', 'jobhistory', 'aggregate'] as const;
export type TaskSource = (typeof TASK_SOURCES)[number];

const nonNegative = z.number().finite().min(0);
/** A week of one task: longer durations are a unit mistake, not a task. */
const MAX_TASK_MS = 7 * 24 * 3_600_000;

export const nodeGroupSchema = z.object({ count: z.number().int().min(1), vcores: z.number().int().min(1), memoryMB: z.number().int().min(1) }).strict();
export type TraceNodeGroup = z.infer<typeof nodeGroupSchema>;

export const traceHeaderSchema = z
  .object({
    format: z.literal(TRACE_FORMAT),
    version: z.literal(TRACE_VERSION),
    /** When the recording ran (the recorder's clock), epoch ms. */
    recordedAtMs: nonNegative,
    /** Applications that ended at or after this were asked for, epoch ms. */
    sinceMs: nonNegative,
    /** The RM the applications came from. */
    rmUrl: z.string(),
    /** The cluster's RUNNING nodes at recording time, alike ones grouped. */
    cluster: z.object({ nodeGroups: z.array(nodeGroupSchema) }).strict(),
    /** The servers asked for task detail (absent: not configured). */
    sources: z.object({ timelineUrl: z.string().optional(), jobHistoryUrl: z.string().optional() }).strict(),
    /** How many job lines follow. */
    jobs: z.number().int().min(0),
  })
  .strict();
export type TraceHeader = z.infer<typeof traceHeaderSchema>;

export const traceStageSchema = z
  .object({
    /** `map`, `reduce`, or `tasks` when the source knows no kinds. */
    name: z.string().min(1),
    /** Indexes of stages that must finish first (MapReduce: reduce after map). */
    parents: z.array(z.number().int().min(0)).optional(),
    memoryMB: z.number().finite().min(1),
    vcores: z.number().int().min(1),
    /** Each task's run time, ms (container start to finish). */
    durationsMs: z.array(z.number().finite().min(0).max(MAX_TASK_MS)).min(1),
  })
  .strict();
export type TraceStage = z.infer<typeof traceStageSchema>;

export const traceTasksSchema = z
  .object({
    source: z.enum(TASK_SOURCES),
    /** Empty when nothing but the ApplicationMaster ran (or nothing ran). */
    stages: z.array(traceStageSchema),
    /** The ApplicationMaster's container, when the source names it. */
    am: z
      .object({ memoryMB: z.number().finite().min(1), vcores: z.number().int().min(1) })
      .strict()
      .optional(),
    /** Why a better source was not used (the aggregate's reason), or what the estimate assumed. */
    note: z.string().optional(),
  })
  .strict();
export type TraceTasks = z.infer<typeof traceTasksSchema>;

export const traceJobSchema = z.object({ record: historyRecordSchema, tasks: traceTasksSchema }).strict();
export type TraceJob = z.infer<typeof traceJobSchema>;

export class TraceError extends Error {}

export interface Trace {
  readonly header: TraceHeader;
  readonly jobs: readonly TraceJob[];
}

export function formatTraceLine(o: TraceHeader | TraceJob): string {
  return `${JSON.stringify(o)}\n`;
}

export function taskCountOf(tasks: TraceTasks): number {
  return tasks.stages.reduce((n, s) => n + s.durationsMs.length, 0);
}

/** Parses a whole trace; the error names the line and the field. */
export function parseTrace(text: string): Trace {
  const lines = text.split('\n');
  let header: TraceHeader | undefined;
  const jobs: TraceJob[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (e) {
      throw new TraceError(`line ${i + 1}: not JSON (${(e as Error).message})`);
    }
    if (!header) {
      const h = raw as { format?: unknown; version?: unknown };
      if (h?.format !== TRACE_FORMAT) throw new TraceError(`line ${i + 1}: not a ${TRACE_FORMAT} header`);
      if (h.version !== TRACE_VERSION) throw new TraceError(`line ${i + 1}: trace version ${String(h.version)}, this reader knows ${TRACE_VERSION}`);
      header = check(traceHeaderSchema, raw, i);
      continue;
    }
    jobs.push(check(traceJobSchema, raw, i));
  }
  if (!header) throw new TraceError('empty trace: no header line');
  if (jobs.length !== header.jobs) throw new TraceError(`the header announces ${header.jobs} jobs, ${jobs.length} follow (a cut-off file?)`);
  return { header, jobs };
}

function check<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, raw: unknown, index: number): T {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new TraceError(`line ${index + 1}: ${issue.path.join('.') || '(line)'}: ${issue.message}`);
}

/** True when the bytes start like a trace (what the simulator's workload resolver sniffs). */
export function looksLikeTrace(firstLine: string): boolean {
  return firstLine.trimStart().startsWith('{') && firstLine.includes(`"${TRACE_FORMAT}"`);
}

export type { HistoryRecord };
