/**
 * The DARSS evaluation's metrics (thesis §4.2.3) from a run's job records:
 * - production (per workflow, a request of the workload): accepted (none of its jobs was killed:
 *   only admission kills production), met its deadline (every job finished by it), missed;
 * - best-effort (jobs without a request): completed, and latency = completion − arrival, s;
 * - the paired comparison of the thesis's Fig. 4.7/4.8: the share of best-effort jobs that
 *   finished sooner than under another policy, job by job.
 */
import { REQUEST_TAG } from '../../core/rsl.js';
import type { JobRecord } from '../engine.js';
import { percentile } from '../metrics.js';

export type JobOutcome = 'met' | 'missed' | 'rejected' | 'best-effort' | 'unfinished';

export interface DarssMetrics {
  readonly production: {
    readonly submitted: number;
    readonly accepted: number;
    readonly rejected: number;
    /** accepted ÷ submitted. */
    readonly acceptanceRate: number;
    readonly metDeadline: number;
    /** Accepted workflows that finished after their deadline (or never). */
    readonly missedDeadline: number;
    /** metDeadline ÷ accepted. */
    readonly metDeadlineRate: number;
  };
  readonly bestEffort: {
    readonly completed: number;
    /** Completed by the last arrival of the workload (throughput while work still arrives). */
    readonly completedByLastArrival: number;
    readonly meanLatency: number;
    readonly p50Latency: number;
    readonly p99Latency: number;
  };
}

/** Per job: met / missed / rejected (production), best-effort, or unfinished. */
export function jobOutcome(r: JobRecord | undefined): JobOutcome {
  if (!r || r.finishMs === undefined) return 'unfinished';
  if (r.tags[REQUEST_TAG] === undefined) return r.killed ? 'unfinished' : 'best-effort';
  if (r.killed) return 'rejected';
  return r.deadlineMs !== undefined && r.finishMs > r.deadlineMs ? 'missed' : 'met';
}

export function darssMetrics(records: readonly (JobRecord | undefined)[]): DarssMetrics {
  const byRequest = new Map<string, JobOutcome[]>();
  const latencies: number[] = [];
  let lastArrival = 0;
  for (const r of records) if (r) lastArrival = Math.max(lastArrival, r.arrivalMs);
  let byLastArrival = 0;
  for (const r of records) {
    const o = jobOutcome(r);
    const rid = r?.tags[REQUEST_TAG];
    if (rid !== undefined) {
      let l = byRequest.get(rid);
      if (!l) byRequest.set(rid, (l = []));
      l.push(o);
    } else if (o === 'best-effort') {
      latencies.push((r!.finishMs! - r!.arrivalMs) / 1000);
      if (r!.finishMs! <= lastArrival) byLastArrival++;
    }
  }
  let accepted = 0;
  let met = 0;
  for (const outcomes of byRequest.values()) {
    if (outcomes.includes('rejected')) continue;
    accepted++;
    if (outcomes.every((o) => o === 'met')) met++;
  }
  latencies.sort((a, b) => a - b);
  const submitted = byRequest.size;
  return {
    production: {
      submitted,
      accepted,
      rejected: submitted - accepted,
      acceptanceRate: submitted ? accepted / submitted : 0,
      metDeadline: met,
      missedDeadline: accepted - met,
      metDeadlineRate: accepted ? met / accepted : 0,
    },
    bestEffort: {
      completed: latencies.length,
      completedByLastArrival: byLastArrival,
      meanLatency: latencies.length ? latencies.reduce((a, b) => a + b, 0) / latencies.length : 0,
      p50Latency: percentile(latencies, 50),
      p99Latency: percentile(latencies, 99),
    },
  };
}

/** Of the best-effort jobs both runs completed, the share that finished sooner in `mine` (by job index). */
export function fasterShare(
  mine: readonly (JobRecord | undefined)[],
  other: readonly (JobRecord | undefined)[],
): { jobs: number; faster: number; slower: number; share: number } {
  let jobs = 0;
  let faster = 0;
  let slower = 0;
  for (let i = 0; i < mine.length; i++) {
    const a = mine[i];
    const b = other[i];
    if (jobOutcome(a) !== 'best-effort' || jobOutcome(b) !== 'best-effort') continue;
    jobs++;
    const la = a!.finishMs! - a!.arrivalMs;
    const lb = b!.finishMs! - b!.arrivalMs;
    if (la < lb) faster++;
    else if (la > lb) slower++;
  }
  return { jobs, faster, slower, share: jobs ? faster / jobs : 0 };
}
