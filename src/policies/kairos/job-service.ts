/**
 * Not in the paper (kairos-plus, `jobServiceRank`): each job's attained service, the sum over its
 * tasks, those that ended included. A job entry integrates the number of its tasks running: the
 * count changes only at a visit of a node (a task starts, ends, is suspended or resumed there), so
 * a node's running tasks are taken out of their jobs' counts before its visit and put back after it
 * (`countNodeTasks` in `index.ts`), and a task seen for the first time brings the service it had
 * attained already; a cycle costs the nodes it visits, not the number of jobs.
 */
import type { ChangeTracking } from '../../core/tracking.js';
import type { AppId } from '../../core/model.js';

/** A job's service up to `atMs`, and how many of its tasks run since then. */
export interface JobEntry {
  serviceMs: number;
  running: number;
  atMs: number;
}

export type JobEntries = Record<AppId, JobEntry>;

/** The state's field of job entries, changed through the tracking (`stateEntries`). */
export const JOBS = 'jobs';

/** A job's attained service at `nowMs` (0 for a job not seen running yet). */
export function jobServiceAt(e: JobEntry | undefined, nowMs: number): number {
  return e === undefined ? 0 : e.serviceMs + e.running * Math.max(0, nowMs - e.atMs);
}

/** Adds `delta` to the job's count of running tasks at `nowMs` (its service brought up to then). */
export function addRunning(jobs: JobEntries, tracking: ChangeTracking, app: AppId, delta: number, nowMs: number): void {
  let e = tracking.changing(JOBS, jobs, app);
  if (e === undefined) jobs[app] = e = { serviceMs: 0, running: 0, atMs: nowMs };
  e.serviceMs = jobServiceAt(e, nowMs);
  e.atMs = nowMs;
  e.running += delta;
}

/** Adds service a task attained before it was first seen (on attaching to a running cluster, or between its start and its node's visit). */
export function addService(jobs: JobEntries, tracking: ChangeTracking, app: AppId, serviceMs: number, nowMs: number): void {
  if (!(serviceMs > 0)) return;
  addRunning(jobs, tracking, app, 0, nowMs);
  jobs[app].serviceMs += serviceMs;
}

/** Forgets the entries of jobs that left the cluster with no task running. */
export function forgetEndedJobs(jobs: JobEntries, tracking: ChangeTracking, present: (app: AppId) => boolean): void {
  for (const app in jobs) {
    if (jobs[app].running > 0 || present(app)) continue;
    tracking.changing(JOBS, jobs, app);
    delete jobs[app];
  }
}
