/**
 * Recording a cluster's own workload: the applications that ended since a time, read from the RM
 * (`/apps?states=FINISHED,FAILED,KILLED&finishedTimeBegin=`) as history records, each with its
 * tasks from the best source that knows it (tasks.ts), plus the cluster's nodes. The result is a
 * trace (trace.ts) the simulator replays (src/sim/workloads/recorded.ts).
 */
import type { HistoryRecord } from '../../core/history.js';
import type { RmAppState } from '../../yarn/client.js';
import type { RmAppInfo, RmNodeInfo } from '../../yarn/schemas.js';
import { historyRecordOf } from '../records.js';
import { tasksFor, type TaskSourceReader } from './tasks.js';
import { TRACE_FORMAT, TRACE_VERSION, type TraceHeader, type TraceJob, type TraceNodeGroup } from './trace.js';

/** The part of the RM client a recording uses. */
export interface RecordingRm {
  readonly rmUrl: string;
  apps(filter: { states?: readonly RmAppState[]; finishedSinceMs?: number; deSelects?: readonly string[] }): Promise<RmAppInfo[]>;
  nodes(states?: readonly string[]): Promise<RmNodeInfo[]>;
}

export interface RecordOptions {
  readonly rm: RecordingRm;
  /** Applications that ended at or after this (epoch ms). */
  readonly sinceMs: number;
  /** Task sources in the order they are asked; the aggregate is the last resort. */
  readonly sources: readonly TaskSourceReader[];
  readonly sourceUrls?: TraceHeader['sources'];
  /** Keep at most this many applications (the earliest-ended first). */
  readonly maxJobs?: number;
  /** Applications whose tasks are read at the same time (each read is a few GETs). */
  readonly concurrency?: number;
  readonly onProgress?: (done: number, total: number) => void;
  readonly now?: () => number;
}

export interface Recording {
  readonly header: TraceHeader;
  readonly jobs: TraceJob[];
  /** Listed by the RM but not recorded (no end time, or a value the record refuses). */
  readonly skipped: number;
}

const ENDED: readonly RmAppState[] = ['FINISHED', 'FAILED', 'KILLED'];
// Nothing of these is recorded; leaving them out keeps a large answer small.
const DESELECTS = ['resourceInfo', 'timeouts', 'appNodeLabelExpression', 'amNodeLabelExpression'];

/** RUNNING nodes grouped by size (what the simulator builds its cluster from). */
export function nodeGroupsOf(nodes: readonly RmNodeInfo[]): TraceNodeGroup[] {
  const groups = new Map<string, TraceNodeGroup>();
  for (const n of nodes) {
    const memoryMB = Math.round(n.totalResource?.memory ?? n.usedMemoryMB + n.availMemoryMB);
    const vcores = Math.round(n.totalResource?.vCores ?? n.usedVirtualCores + n.availableVirtualCores);
    if (!(memoryMB >= 1 && vcores >= 1)) continue;
    const key = `${memoryMB}/${vcores}`;
    const g = groups.get(key);
    groups.set(key, { count: (g?.count ?? 0) + 1, vcores, memoryMB });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || b.vcores - a.vcores);
}

export async function recordWorkload(o: RecordOptions): Promise<Recording> {
  const now = o.now ?? Date.now;
  const recordedAtMs = now();
  const [apps, nodes] = await Promise.all([o.rm.apps({ states: ENDED, finishedSinceMs: o.sinceMs, deSelects: DESELECTS }), o.rm.nodes(['RUNNING'])]);
  let records: HistoryRecord[] = [];
  let skipped = 0;
  for (const app of apps) {
    let r: HistoryRecord | undefined;
    try {
      r = historyRecordOf(app, recordedAtMs);
    } catch {
      r = undefined;
    }
    if (r && r.finishedAtMs >= o.sinceMs) records.push(r);
    else skipped++;
  }
  records.sort((a, b) => a.finishedAtMs - b.finishedAtMs || (a.appId < b.appId ? -1 : 1));
  if (o.maxJobs !== undefined) records = records.slice(0, o.maxJobs);
  const jobs = new Array<TraceJob>(records.length);
  let next = 0;
  let done = 0;
  o.onProgress?.(0, records.length);
  const worker = async () => {
    while (next < records.length) {
      const i = next++;
      jobs[i] = { record: records[i], tasks: await tasksFor(records[i], o.sources) };
      o.onProgress?.(++done, records.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency ?? 4, 16)) }, worker));
  // Replayed in submission order.
  jobs.sort((a, b) => a.record.submittedAtMs - b.record.submittedAtMs || (a.record.appId < b.record.appId ? -1 : 1));
  const header: TraceHeader = {
    format: TRACE_FORMAT,
    version: TRACE_VERSION,
    recordedAtMs,
    sinceMs: o.sinceMs,
    rmUrl: o.rm.rmUrl,
    cluster: { nodeGroups: nodeGroupsOf(nodes) },
    sources: o.sourceUrls ?? {},
    jobs: jobs.length,
  };
  return { header, jobs, skipped };
}
