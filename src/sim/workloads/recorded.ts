/**
 * A recorded trace (`schedbrain record`, src/history/sources/trace.ts) as a simulator workload:
 * each recorded application one job, arriving when it was submitted (relative to the first),
 * with its recorded tasks as stages; the cluster is the recorded nodes, the queues the recorded
 * ones with equal shares. The ApplicationMaster's container is not replayed: the simulator's
 * jobs have none (src/sim/workload.ts).
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { looksLikeTrace, parseTrace, taskCountOf, type Trace, type TraceJob } from '../../history/sources/trace.js';
import type { JobSpec, QueueSpec, Workload } from '../workload.js';

export interface RecordedOptions {
  /** Workload name (default: the file's base name). */
  readonly name?: string;
  /** Keep only the first N jobs (in submission order). */
  readonly maxJobs?: number;
}

/** What the replay of one recorded application is, for checks and reports. */
export interface RecordedJobInfo {
  readonly appId: string;
  readonly tasks: number;
  readonly source: TraceJob['tasks']['source'];
  /** Submission to end on the recorded cluster, s. */
  readonly recordedJctS: number;
}

export interface RecordedWorkload extends Workload {
  readonly recorded: readonly RecordedJobInfo[];
  /** What the replay is made of, for a report: where it was recorded, and each task source's share. */
  readonly provenance: readonly string[];
}

export function recordedWorkload(trace: Trace, o: RecordedOptions = {}): RecordedWorkload {
  const kept = trace.jobs.filter((j) => taskCountOf(j.tasks) > 0).slice(0, o.maxJobs ?? Infinity);
  // A loop, not Math.min(...): a week of a large cluster is more jobs than a call takes arguments.
  const t0 = kept.reduce((m, j) => Math.min(m, j.record.submittedAtMs), kept.length ? Infinity : 0);
  const jobs: JobSpec[] = kept.map((j) => ({
    arrivalMs: j.record.submittedAtMs - t0,
    name: j.record.name,
    user: j.record.user,
    queue: queuePath(j.record.queue),
    priority: j.record.priority,
    tags: { ...j.record.tags, 'schedbrain.recorded-app': j.record.appId },
    stages: j.tasks.stages.map((s) => ({
      name: s.name,
      ...(s.parents ? { parents: s.parents } : {}),
      resource: { memoryMB: s.memoryMB, vcores: s.vcores },
      workMs: Float64Array.from(s.durationsMs),
    })),
  }));
  const groups = trace.header.cluster.nodeGroups;
  return {
    name: o.name ?? 'recorded',
    jobs,
    ...(groups.length ? { cluster: { nodeGroups: groups.map((g) => ({ count: g.count, cores: g.vcores, memoryMB: g.memoryMB })) } } : {}),
    queues: equalShareQueues(jobs.map((j) => j.queue ?? 'root.default')),
    provenance: provenanceOf(trace, kept.length),
    recorded: kept.map((j) => ({
      appId: j.record.appId,
      tasks: taskCountOf(j.tasks),
      source: j.tasks.source,
      recordedJctS: (j.record.finishedAtMs - j.record.submittedAtMs) / 1000,
    })),
  };
}

function provenanceOf(trace: Trace, replayed: number): string[] {
  const h = trace.header;
  const bySource = new Map<string, number>();
  for (const j of trace.jobs) bySource.set(j.tasks.source, (bySource.get(j.tasks.source) ?? 0) + 1);
  const shares = [...bySource].map(([s, n]) => `${s} ${n}${s === 'aggregate' ? ' (estimated from the RM’s usage)' : ''}`).join(', ');
  return [
    `Recorded from ${h.rmUrl} on ${new Date(h.recordedAtMs).toISOString()}: the applications that ended since ${new Date(h.sinceMs).toISOString()}.`,
    `${trace.jobs.length} recorded, ${replayed} replayed (those with tasks); tasks from ${shares || 'no source'}.`,
  ];
}

/** The RM gives a leaf's full path (Hadoop 3.x) or its bare name (older releases). */
function queuePath(q: string): string {
  return q === 'root' || q.startsWith('root.') ? q : `root.${q}`;
}

/**
 * The recorded queues as a tree whose children share their parent equally, each free to use
 * all of it: the trace holds the queues' names, not their configured capacities.
 */
export function equalShareQueues(leafPaths: readonly string[]): QueueSpec[] {
  const children = new Map<string, string[]>();
  const add = (parent: string, child: string) => {
    const list = children.get(parent) ?? [];
    if (!list.includes(child)) list.push(child);
    children.set(parent, list);
  };
  for (const leaf of new Set(leafPaths.length ? leafPaths : ['root.default'])) {
    const parts = leaf.split('.');
    for (let i = 1; i < parts.length; i++) add(parts.slice(0, i).join('.'), parts.slice(0, i + 1).join('.'));
  }
  const specs: QueueSpec[] = [];
  const walk = (parent: string) => {
    const kids = [...(children.get(parent) ?? [])].sort();
    // Shares in hundredths that sum to exactly 100 (the CapacityScheduler checks the sum).
    const base = Math.floor(10_000 / kids.length) / 100;
    kids.forEach((k, i) => {
      const share = i === kids.length - 1 ? Math.round((100 - base * (kids.length - 1)) * 100) / 100 : base;
      specs.push({ path: k, capacityPct: share, maxCapacityPct: 100 });
      walk(k);
    });
  };
  walk('root');
  return specs;
}

export function loadRecordedTrace(path: string, o: RecordedOptions = {}): RecordedWorkload {
  return recordedWorkload(parseTrace(readFileSync(path, 'utf8')), { ...o, name: o.name ?? basename(path) });
}

/** True when the file's first line is a recorded trace's header (only the first 4 KiB are read). */
export function isRecordedTrace(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return looksLikeTrace(buf.subarray(0, n).toString('utf8').split('\n')[0]);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
