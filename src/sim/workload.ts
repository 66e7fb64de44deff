/**
 * What the simulator replays: jobs (YARN applications) made of stages (a DAG), each stage a set
 * of tasks; every task is one container with a resource vector and an amount of CPU work.
 *
 * A single-stage job is the common case (Eagle traces). Multi-stage jobs model MapReduce
 * (map → reduce) or Spark-like DAGs: a stage's tasks are requested only once all its parent
 * stages have finished.
 */
import type { Resources } from '../core/resources.js';

export interface StageSpec {
  /** Indexes (into the job's `stages`) of the stages that must finish first. */
  readonly parents?: readonly number[];
  /** Container size of every task of the stage. */
  readonly resource: Resources;
  /**
   * CPU work of each task, in ms of running alone at full speed on its vcores (so a task's
   * wall time equals its work when its node is not over-committed). One entry per task.
   */
  readonly workMs: ArrayLike<number>;
  /** Free-form label (`map`, `reduce`, …). */
  readonly name?: string;
  /**
   * The job's ApplicationMaster: one container, no parents, requested first; the stages that list
   * it as a parent are requested when it starts. It holds its allocation until the job's last
   * task finishes, does no work (`workMs` [0]) and is not a task (not counted by `taskCount`).
   */
  readonly appMaster?: boolean;
}

export interface JobSpec {
  /** Arrival (submission) time, virtual ms. */
  readonly arrivalMs: number;
  readonly stages: readonly StageSpec[];
  readonly name?: string;
  readonly user?: string;
  /** Full queue path; defaults to `root.default`. */
  readonly queue?: string;
  /** YARN application priority (higher first). Default 0. */
  readonly priority?: number;
  /** Application tags (key → value), visible to policies through `AppView.tags`. */
  readonly tags?: Readonly<Record<string, string>>;
  /**
   * Short/long class for the metrics split. When absent, the job is short iff its mean task
   * duration is below the cutoff.
   */
  readonly jobClass?: 'short' | 'long';
  /**
   * Run time of the job alone on the cluster, for the slowdown metric. Defaults to the critical
   * path of the stage DAG with unlimited slots (sum over the longest chain of each stage's
   * longest task).
   */
  readonly idealMs?: number;
  /**
   * Indexes (into the workload's `jobs`) of jobs that must finish before this one is submitted:
   * it arrives at the later of `arrivalMs` and their last finish. If one of them is killed, this
   * job is recorded as killed without running.
   */
  readonly after?: readonly number[];
  /** Time by which the job should finish, virtual ms (production work); recorded for the metrics. */
  readonly deadlineMs?: number;
  /**
   * Soft placement constraint: indexes of the nodes the job prefers (0-based, in node-id order).
   * Its containers go to a free preferred node when there is one, else to any node, where its
   * tasks run `offPreferredSlowdown` times longer (3Sigma §5: 1.5×).
   */
  readonly preferredNodes?: readonly number[];
  /** Work multiplier of a task placed off the preferred nodes. Default 1. */
  readonly offPreferredSlowdown?: number;
}

/** Nodes alike: `count` nodes of `cores` cores and `memoryMB` MB each. */
export interface NodeGroup {
  readonly count: number;
  readonly cores: number;
  readonly memoryMB: number;
}

export interface QueueSpec {
  readonly path: string;
  readonly capacityPct: number;
  readonly maxCapacityPct: number;
}

export interface Workload {
  readonly name: string;
  readonly jobs: readonly JobSpec[];
  /** Cluster the workload was designed for; the caller may override each field. */
  readonly cluster?: {
    readonly nodes?: number;
    readonly cores?: number;
    readonly memoryMBPerNode?: number;
    /** A heterogeneous cluster (used unless nodes, cores or memory are given explicitly). */
    readonly nodeGroups?: readonly NodeGroup[];
  };
  /** Short/long cutoff on mean task duration, ms. */
  readonly cutoffMs?: number;
  /** Initial queue tree (besides `root`), parents before children. Default: `root.default` 100 %. */
  readonly queues?: readonly QueueSpec[];
  /**
   * Requests submitted to a policy's admission (DARSS workflows in RSL), handed to policies
   * whose parameters take `requests`.
   */
  readonly requests?: readonly unknown[];
}

/** Mean task work of a job, ms. */
export function meanTaskMs(job: JobSpec): number {
  let n = 0;
  let s = 0;
  for (const st of job.stages) {
    if (st.appMaster) continue;
    for (let i = 0; i < st.workMs.length; i++) s += st.workMs[i];
    n += st.workMs.length;
  }
  return n === 0 ? 0 : s / n;
}

export function taskCount(job: JobSpec): number {
  let n = 0;
  for (const st of job.stages) if (!st.appMaster) n += st.workMs.length;
  return n;
}

/** Critical path of the stage DAG with unlimited slots, ms. */
export function criticalPathMs(job: JobSpec): number {
  const finish: number[] = [];
  const order = topoOrder(job);
  for (const s of order) {
    const st = job.stages[s];
    let start = 0;
    for (const p of st.parents ?? []) start = Math.max(start, finish[p]);
    let longest = 0;
    for (let i = 0; i < st.workMs.length; i++) if (st.workMs[i] > longest) longest = st.workMs[i];
    finish[s] = start + longest;
  }
  let m = 0;
  for (const f of finish) if (f !== undefined && f > m) m = f;
  return m;
}

/** Topological order of the stages; throws on a cycle or a bad parent index. */
export function topoOrder(job: JobSpec): number[] {
  const n = job.stages.length;
  const indeg = new Array<number>(n).fill(0);
  const children: number[][] = Array.from({ length: n }, () => []);
  job.stages.forEach((st, i) => {
    for (const p of st.parents ?? []) {
      if (!Number.isInteger(p) || p < 0 || p >= n || p === i) throw new Error(`job ${job.name ?? ''}: stage ${i} has bad parent ${p}`);
      indeg[i]++;
      children[p].push(i);
    }
  });
  const out: number[] = [];
  const ready: number[] = [];
  for (let i = 0; i < n; i++) if (indeg[i] === 0) ready.push(i);
  while (ready.length) {
    const s = ready.shift() as number;
    out.push(s);
    for (const c of children[s]) if (--indeg[c] === 0) ready.push(c);
  }
  if (out.length !== n) throw new Error(`job ${job.name ?? ''}: stage graph has a cycle`);
  return out;
}
