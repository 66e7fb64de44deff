/**
 * Loader for the Eagle/Sparrow simulator trace format, one job per line:
 *
 *     arrival_time_s  num_tasks  mean_task_duration_s  dur_1 … dur_num_tasks
 *
 * Tasks are single-slot (one core). Each job becomes a one-stage app whose tasks request
 * `taskResource` (default <1024 MB, 1 vcore>). The job's mean task duration goes into the
 * `schedbrain.estimate-ms` tag (ms), where estimate-based policies look for it.
 * A comment line `# cluster nodes=N cores=C` sets the trace's default cluster.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Resources } from '../../core/resources.js';
import { cutoffForTrace } from '../metrics.js';
import type { JobSpec, Workload } from '../workload.js';

export interface EagleOptions {
  readonly taskResource?: Resources;
  /** Workload name (default: the file's base name). */
  readonly name?: string;
  /** Keep only the first N jobs. */
  readonly maxJobs?: number;
}

export class TraceFormatError extends Error {}

/** Times in a trace are seconds; beyond this (about 31 years) milliseconds lose their meaning. */
const MAX_TRACE_SECONDS = 1e9;

export function parseEagleTrace(text: string, opts: EagleOptions = {}): Workload {
  const resource = opts.taskResource ?? { memoryMB: 1024, vcores: 1 };
  const jobs: JobSpec[] = [];
  let cluster: { nodes: number; cores: number } | undefined;
  const lines = text.split('\n');
  for (let ln = 0; ln < lines.length; ln++) {
    if (opts.maxJobs !== undefined && jobs.length >= opts.maxJobs) break;
    const line = lines[ln].trim();
    if (line === '' || line.startsWith('#')) {
      // Optional hint written by our generators: `# cluster nodes=N cores=C`.
      const m = /^#\s*cluster\s+nodes=(\d+)\s+cores=(\d+)/.exec(line);
      if (m) cluster = { nodes: Number(m[1]), cores: Number(m[2]) };
      continue;
    }
    const f = line.split(/\s+/);
    const where = `line ${ln + 1}`;
    if (f.length < 3) throw new TraceFormatError(`${where}: expected "arrival_s num_tasks mean_s dur…", got ${f.length} fields`);
    const arrival = Number(f[0]);
    const n = Number(f[1]);
    const mean = Number(f[2]);
    if (!Number.isFinite(arrival) || arrival < 0 || arrival > MAX_TRACE_SECONDS)
      throw new TraceFormatError(`${where}: bad arrival time ${f[0]} (seconds, 0..${MAX_TRACE_SECONDS})`);
    if (!Number.isInteger(n) || n < 1 || n > 10_000_000) throw new TraceFormatError(`${where}: bad task count ${f[1]}`);
    if (!Number.isFinite(mean) || mean < 0 || mean > MAX_TRACE_SECONDS)
      throw new TraceFormatError(`${where}: bad mean task duration ${f[2]} (seconds, 0..${MAX_TRACE_SECONDS})`);
    if (f.length !== 3 + n) throw new TraceFormatError(`${where}: ${n} tasks announced, ${f.length - 3} durations given`);
    const work = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const d = Number(f[3 + k]);
      if (!Number.isFinite(d) || d < 0 || d > MAX_TRACE_SECONDS)
        throw new TraceFormatError(`${where}: bad duration ${f[3 + k]} for task ${k + 1} (seconds, 0..${MAX_TRACE_SECONDS})`);
      work[k] = d * 1000;
    }
    const idx = jobs.length;
    jobs.push({
      arrivalMs: arrival * 1000,
      name: `job${idx + 1}`,
      stages: [{ resource, workMs: work, name: 'tasks' }],
      tags: { 'schedbrain.estimate-ms': String(Math.round(mean * 1000)) },
    });
  }
  const name = opts.name ?? 'trace';
  if (jobs.length === 0 && opts.maxJobs !== 0) throw new TraceFormatError(`${name}: the trace holds no job`);
  const cutoffS = cutoffForTrace(name);
  return {
    name,
    jobs,
    cluster: cluster ?? defaultTraceCluster(name),
    cutoffMs: cutoffS === undefined ? undefined : cutoffS * 1000,
  };
}

/**
 * Default cluster for a trace: 4,000 one-core workers (the Eagle/Kairos large-scale setup);
 * the Pigeon "scaled" traces were scaled for 120 workers.
 */
export function defaultTraceCluster(name: string): { nodes: number; cores: number } {
  return /scaled/i.test(name) ? { nodes: 120, cores: 1 } : { nodes: 4000, cores: 1 };
}

export function loadEagleTrace(path: string, opts: EagleOptions = {}): Workload {
  return parseEagleTrace(readFileSync(path, 'utf8'), { ...opts, name: opts.name ?? basename(path) });
}

/** Serialises single-stage one-core jobs back to the trace format (for generated samples). */
export function formatEagleTrace(jobs: readonly { arrivalS: number; durationsS: readonly number[] }[], cluster?: { nodes: number; cores: number }): string {
  const r = (x: number): string => String(Math.round(x * 1e4) / 1e4);
  return (
    (cluster ? `# cluster nodes=${cluster.nodes} cores=${cluster.cores}\n` : '') +
    jobs
      .map((j) => {
        const mean = j.durationsS.reduce((a, b) => a + b, 0) / j.durationsS.length;
        return [r(j.arrivalS), j.durationsS.length, r(mean), ...j.durationsS.map(r)].join(' ');
      })
      .join('\n') +
    '\n'
  );
}
