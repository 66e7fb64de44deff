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
    for (let t = 0; t < j.tasks; t++) q.push(d.taskTtdMs ? d.taskTtdMs[t] : d.latestFinishMs, { task: `${workflowId}.${j.name}.t${t + 1}`, ttdMs: d.taskTtdMs ? d.taskTtdMs[t] : d.latestFinishMs });
  }
  const out: TtdEntry[] = [];
  for (let e = q.pop(); e !== undefined; e = q.pop()) out.push(e);
  return out;
}

/**
 * A min-heap by key, ties in insertion order: the ttd list. Its contents are plain arrays
 * (`keys`, `seqs`, `items`), so it is JSON-serialisable when its items are.
 */
export class TtdQueue<T> {
  private keys: number[] = [];
  private seqs: number[] = [];
  private items: T[] = [];
  private seq = 0;

  get size(): number {
    return this.items.length;
  }

  push(key: number, item: T): void {
    this.keys.push(key);
    this.seqs.push(this.seq++);
    this.items.push(item);
    let i = this.items.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }

  peekKey(): number | undefined {
    return this.keys[0];
  }

  pop(): T | undefined {
    const n = this.items.length;
    if (n === 0) return undefined;
    const top = this.items[0];
    this.swap(0, n - 1);
    this.keys.pop();
    this.seqs.pop();
    this.items.pop();
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.items.length && this.less(l, m)) m = l;
      if (r < this.items.length && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
    return top;
  }

  private less(a: number, b: number): boolean {
    return this.keys[a] < this.keys[b] || (this.keys[a] === this.keys[b] && this.seqs[a] < this.seqs[b]);
  }

  private swap(a: number, b: number): void {
    [this.keys[a], this.keys[b]] = [this.keys[b], this.keys[a]];
    [this.seqs[a], this.seqs[b]] = [this.seqs[b], this.seqs[a]];
    [this.items[a], this.items[b]] = [this.items[b], this.items[a]];
  }
}
