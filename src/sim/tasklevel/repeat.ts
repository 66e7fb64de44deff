/**
 * A longer trace made from a shorter one: copies of its jobs one after another, each copy's
 * arrivals shifted past the previous copy's last arrival. The only Google trace at hand is the
 * 5,001-job scaled excerpt (`google-scaled-load*.tr`); the 10,000-job replays (benchmarks,
 * reproductions) are two copies of it, cut at 10,000 jobs. The offered load stays the same.
 */
import type { JobSpec, Workload } from '../workload.js';

export interface RepeatOptions {
  /** Jobs to keep (the copies are cut here). */
  readonly jobs: number;
  /** Between the last arrival of one copy and the first of the next, ms: the trace's mean gap between arrivals by default. */
  readonly gapMs?: number;
}

export function repeatWorkload(w: Workload, o: RepeatOptions): Workload {
  if (!Number.isInteger(o.jobs) || o.jobs < 1) throw new RangeError(`jobs must be a positive integer, got ${o.jobs}`);
  if (w.jobs.length === 0) throw new RangeError(`${w.name}: no job to repeat`);
  let first = Infinity;
  let last = -Infinity;
  for (const j of w.jobs) {
    first = Math.min(first, j.arrivalMs);
    last = Math.max(last, j.arrivalMs);
  }
  const gapMs = o.gapMs ?? (w.jobs.length > 1 ? (last - first) / (w.jobs.length - 1) : 1000);
  const periodMs = last - first + gapMs;
  const jobs: JobSpec[] = [];
  for (let copy = 0; jobs.length < o.jobs; copy++) {
    for (const j of w.jobs) {
      if (jobs.length >= o.jobs) break;
      jobs.push({ ...j, arrivalMs: j.arrivalMs + copy * periodMs, name: `${j.name ?? `job${jobs.length + 1}`}.${copy}` });
    }
  }
  return { ...w, name: `${w.name}×${Math.ceil(o.jobs / w.jobs.length)} (${o.jobs} jobs)`, jobs };
}
