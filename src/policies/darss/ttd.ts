/**
 * The time-to-deadline (ttd) list (thesis §3.1.3.4, §3.2.5, Table 3.1): a backward pass over the
 * workflow's DAG gives every task the time by which it must finish,
 *
 *   ttd(task without successors) = its job's deadline (the workflow's when the job has none),
 *   ttd(x) = min over successors y of (ttd(y) − lease(y)),
 *
 * where a job's successors are the first tasks of the jobs that need it. A task's latest start is
 * ttd − lease. The list is a priority queue, least ttd first.
 */
import { KeyedHeap } from '../../core/heap.js';
import { jobsInOrder, type RslJob, type WorkflowRequest } from '../../core/rsl.js';

export interface JobDeadlines {
  readonly job: string;
  /** Time by which every task of the job must have finished (min over its tasks' ttd + …). */
  readonly latestFinishMs: number;
  /** Latest start of the job's most urgent task: min over its tasks of ttd − lease. */
  readonly latestStartMs: number;
  /** Per task (index = task number − 1); all equal to `latestFinishMs` when tasks are independent. */
  readonly taskTtdMs?: readonly number[];
}

/** ttd of every task of one job, given the time the job must finish by. */
function taskTtds(j: RslJob, latestFinish: number): number[] | undefined {
  const tp = j.taskPrerequisites;
  if (!tp || Object.keys(tp).length === 0) return undefined;
  const successors: number[][] = Array.from({ length: j.tasks }, () => []);
  for (const [key, before] of Object.entries(tp)) for (const b of before) successors[b - 1].push(Number(key) - 1);
  const ttd = new Array<number>(j.tasks).fill(NaN);
  const visit = (t: number): number => {
    if (!Number.isNaN(ttd[t])) return ttd[t];
    let v = latestFinish;
    for (const s of successors[t]) v = Math.min(v, visit(s) - j.leaseMs);
    ttd[t] = v;
    return v;
  };
  for (let t = 0; t < j.tasks; t++) visit(t);
  return ttd;
}

/** The backward pass: deadlines of every job of a production workflow, dependants first. */
export function timeToDeadline(w: WorkflowRequest): Map<string, JobDeadlines> {
  if (w.deadlineMs === undefined) throw new Error('a best-effort workflow has no deadline');
  const order = jobsInOrder(w);
  const dependants = new Map<string, string[]>(order.map((j) => [j.name, []]));
  for (const j of order) for (const p of j.prerequisites) dependants.get(p)!.push(j.name);
  const out = new Map<string, JobDeadlines>();
  for (let k = order.length - 1; k >= 0; k--) {
    const j = order[k];
    let latestFinish = j.deadlineMs ?? w.deadlineMs;
    for (const d of dependants.get(j.name)!) latestFinish = Math.min(latestFinish, out.get(d)!.latestStartMs);
    const tasks = taskTtds(j, latestFinish);
    const latestStart = tasks ? Math.min(...tasks) - j.leaseMs : latestFinish - j.leaseMs;
    out.set(j.name, { job: j.name, latestFinishMs: latestFinish, latestStartMs: latestStart, ...(tasks ? { taskTtdMs: tasks } : {}) });
  }
  return out;
}

export interface TtdEntry {
  /** `<workflow>.<job>.t<task number>` */
  readonly task: string;
  readonly ttdMs: number;
}

/** The ttd list of a workflow: one entry per task, least ttd first (ties in job and task order). */
export function ttdList(workflowId: string, w: WorkflowRequest): TtdEntry[] {
  const deadlines = timeToDeadline(w);
  const q = new TtdQueue<TtdEntry>();
  for (const j of w.jobs) {
    const d = deadlines.get(j.name)!;
    for (let t = 0; t < j.tasks; t++)
      q.push(d.taskTtdMs ? d.taskTtdMs[t] : d.latestFinishMs, {
        task: `${workflowId}.${j.name}.t${t + 1}`,
        ttdMs: d.taskTtdMs ? d.taskTtdMs[t] : d.latestFinishMs,
      });
  }
  const out: TtdEntry[] = [];
  for (let e = q.pop(); e !== undefined; e = q.pop()) out.push(e);
  return out;
}

/**
 * The ttd list: a min-heap by key, ties in insertion order. Plain arrays, so it is
 * JSON-serialisable when its items are.
 */
export class TtdQueue<T> extends KeyedHeap<T> {
  private seq = 0;

  push(key: number, item: T): void {
    this.insert(item, key, this.seq++);
  }
}
