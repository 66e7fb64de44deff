/**
 * Requirement specification language (RSL) of DARSS (thesis §3.1.3.1): a workflow is a deadline
 * and a DAG of jobs; a job is a number of tasks, each leasing `unitsPerTask` resource units for
 * `leaseMs`. One unit is one vcore and 1 GB by default (`ResourceUnit`). A request without a
 * deadline is best-effort.
 *
 * The thesis gives every task its own lease and units; we keep one lease and one unit count per
 * job (its tasks are alike in every trace we model) and optional task prerequisites inside a job
 * (`taskPrerequisites`, tasks numbered from 1 as in Table 3.1).
 *
 * Static checks (unknown or repeated names, cycles) are in the schema; checks that need the clock
 * or the cluster (deadline in the past, a task larger than any node) are in `checkWorkflow`. Both
 * name the offending field, e.g. `jobs[2].prerequisites[0]`.
 */
import { z } from 'zod';
import { ValidationError } from './errors.js';
import type { Resources } from './resources.js';

/** Application tags that bind a YARN application to a request and to one of its jobs. */
export const REQUEST_TAG = 'schedbrain.darss.request';
export const JOB_TAG = 'schedbrain.darss.job';

/** What one resource unit is: the thesis's atomic container of 1 core and 1 GB. */
export const resourceUnitSchema = z.object({ vcores: z.number().int().positive().default(1), memoryMB: z.number().int().positive().default(1024) }).strict();
export type ResourceUnit = z.infer<typeof resourceUnitSchema>;
export const DEFAULT_UNIT: ResourceUnit = Object.freeze({ vcores: 1, memoryMB: 1024 });

/** Whole units a resource vector holds (the smaller of its vcore and memory counts). */
export function unitsIn(r: Resources, unit: ResourceUnit = DEFAULT_UNIT): number {
  return Math.max(0, Math.min(Math.floor(r.vcores / unit.vcores), Math.floor(r.memoryMB / unit.memoryMB)));
}

const jobNameSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, ".", "-" and "_" only');

export const rslJobSchema = z
  .object({
    name: jobNameSchema,
    tasks: z.number().int().positive().max(1_000_000),
    /** Lease of one task, ms. */
    leaseMs: z.number().int().positive(),
    /** Resource units one task holds while it runs. */
    unitsPerTask: z.number().int().positive().default(1),
    /** Jobs (by name, same workflow) that must finish before this one starts. */
    prerequisites: z.array(jobNameSchema).default([]),
    /** This job's own deadline (epoch or virtual ms); the workflow's when absent. */
    deadlineMs: z.number().int().nonnegative().optional(),
    /** Task number (1-based) → task numbers that must finish before it starts. */
    taskPrerequisites: z.record(z.string(), z.array(z.number().int().positive())).optional(),
  })
  .strict();
export type RslJob = z.infer<typeof rslJobSchema>;

export const workflowRequestSchema = z
  .object({
    /** Request id (assigned by whoever stores it when absent). */
    id: z.string().min(1).max(128).optional(),
    /** User group the request is charged to (user shares). */
    group: z.string().min(1).max(128).default('default'),
    /** When the request was submitted (epoch or virtual ms); the time it is judged at when absent. */
    submittedAtMs: z.number().int().nonnegative().optional(),
    /** Deadline of the whole workflow (epoch or virtual ms). Absent: best-effort. */
    deadlineMs: z.number().int().nonnegative().optional(),
    jobs: z.array(rslJobSchema).min(1).max(10_000),
  })
  .strict()
  .superRefine((w, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: z.ZodIssueCode.custom, path, message });
    const index = new Map<string, number>();
    w.jobs.forEach((j, i) => {
      if (index.has(j.name)) issue(['jobs', i, 'name'], `job name ${j.name} is used twice`);
      else index.set(j.name, i);
    });
    let bad = false;
    w.jobs.forEach((j, i) => {
      j.prerequisites.forEach((p, k) => {
        if (!index.has(p)) {
          issue(['jobs', i, 'prerequisites', k], `unknown prerequisite ${p}`);
          bad = true;
        } else if (p === j.name) {
          issue(['jobs', i, 'prerequisites', k], `job ${j.name} cannot be its own prerequisite`);
          bad = true;
        }
      });
      if (j.deadlineMs !== undefined && w.deadlineMs === undefined)
        issue(['jobs', i, 'deadlineMs'], 'a best-effort workflow (no deadlineMs) has no job deadlines');
      if (j.deadlineMs !== undefined && w.deadlineMs !== undefined && j.deadlineMs > w.deadlineMs)
        issue(['jobs', i, 'deadlineMs'], `after the workflow deadline (${j.deadlineMs} > ${w.deadlineMs})`);
      if (j.taskPrerequisites) {
        for (const [key, before] of Object.entries(j.taskPrerequisites)) {
          const t = Number(key);
          if (!Number.isInteger(t) || t < 1 || t > j.tasks) {
            issue(['jobs', i, 'taskPrerequisites', key], `task ${key} does not exist (tasks 1..${j.tasks})`);
            continue;
          }
          before.forEach((b, k) => {
            if (b > j.tasks) issue(['jobs', i, 'taskPrerequisites', key, k], `task ${b} does not exist (tasks 1..${j.tasks})`);
            if (b === t) issue(['jobs', i, 'taskPrerequisites', key, k], `task ${t} cannot be its own prerequisite`);
          });
        }
        const cycle = taskCycle(j);
        if (cycle) issue(['jobs', i, 'taskPrerequisites'], `cycle among tasks: ${cycle.join(' → ')}`);
      }
    });
    if (bad) return;
    const cycle = jobCycle(w.jobs);
    if (cycle) issue(['jobs', index.get(cycle[0])!, 'prerequisites'], `cycle in the job DAG: ${cycle.join(' → ')}`);
  });
export type WorkflowRequest = z.infer<typeof workflowRequestSchema>;
export type WorkflowRequestInput = z.input<typeof workflowRequestSchema>;

/** A cycle among the jobs, as names (first repeated at the end), if any. */
function jobCycle(jobs: readonly RslJob[]): string[] | undefined {
  const byName = new Map(jobs.map((j) => [j.name, j]));
  return findCycle(
    jobs.map((j) => j.name),
    (n) => byName.get(n)?.prerequisites ?? [],
  );
}

function taskCycle(j: RslJob): number[] | undefined {
  const tp = j.taskPrerequisites ?? {};
  const nodes = Object.keys(tp).map(Number);
  return findCycle(nodes, (t) => (tp[String(t)] ?? []).filter((b) => b >= 1 && b <= j.tasks && b !== t));
}

/** Depth-first search for a cycle; iterative (a workflow may have thousands of jobs). */
function findCycle<T>(nodes: readonly T[], next: (n: T) => readonly T[]): T[] | undefined {
  const colour = new Map<T, 1 | 2>();
  for (const start of nodes) {
    if (colour.has(start)) continue;
    const stack: { n: T; i: number }[] = [{ n: start, i: 0 }];
    colour.set(start, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const out = next(top.n);
      if (top.i >= out.length) {
        colour.set(top.n, 2);
        stack.pop();
        continue;
      }
      const m = out[top.i++];
      const c = colour.get(m);
      if (c === 1) {
        const from = stack.findIndex((s) => s.n === m);
        // Prerequisite edges point backwards in time: report the cycle in execution order.
        return [...stack.slice(from).map((s) => s.n), m].reverse();
      }
      if (c === undefined) {
        colour.set(m, 1);
        stack.push({ n: m, i: 0 });
      }
    }
  }
  return undefined;
}

/** The jobs in an order where every job comes after its prerequisites (Kahn). */
export function jobsInOrder(w: Pick<WorkflowRequest, 'jobs'>): RslJob[] {
  const byName = new Map(w.jobs.map((j) => [j.name, j]));
  const left = new Map(w.jobs.map((j) => [j.name, j.prerequisites.length]));
  const dependants = new Map<string, string[]>(w.jobs.map((j) => [j.name, []]));
  for (const j of w.jobs) for (const p of j.prerequisites) dependants.get(p)!.push(j.name);
  const ready = w.jobs.filter((j) => j.prerequisites.length === 0).map((j) => j.name);
  const out: RslJob[] = [];
  for (let k = 0; k < ready.length; k++) {
    const n = ready[k];
    out.push(byName.get(n)!);
    for (const d of dependants.get(n)!) {
      const l = left.get(d)! - 1;
      left.set(d, l);
      if (l === 0) ready.push(d);
    }
  }
  if (out.length !== w.jobs.length) throw new ValidationError('jobs', 'cycle in the job DAG');
  return out;
}

/** Longest chain of tasks inside a job, in tasks (1 when its tasks are independent). */
export function taskChainLength(j: RslJob): number {
  const tp = j.taskPrerequisites;
  if (!tp || Object.keys(tp).length === 0) return 1;
  const depth = new Map<number, number>();
  const visit = (t: number): number => {
    const d = depth.get(t);
    if (d !== undefined) return d;
    depth.set(t, 1); // the schema rules out cycles; this only stops a malformed input looping
    let best = 0;
    for (const b of tp[String(t)] ?? []) if (b !== t) best = Math.max(best, visit(b));
    depth.set(t, best + 1);
    return best + 1;
  };
  let longest = 1;
  for (const key of Object.keys(tp)) longest = Math.max(longest, visit(Number(key)));
  return longest;
}

/** Shortest time a job can take with unlimited units: its longest task chain × lease, ms. */
export function jobSpanMs(j: RslJob): number {
  return taskChainLength(j) * j.leaseMs;
}

/** Critical path of the workflow with unlimited units, ms (job spans along the longest chain). */
export function criticalPathMs(w: Pick<WorkflowRequest, 'jobs'>): number {
  const finish = new Map<string, number>();
  let longest = 0;
  for (const j of jobsInOrder(w)) {
    let start = 0;
    for (const p of j.prerequisites) start = Math.max(start, finish.get(p)!);
    const f = start + jobSpanMs(j);
    finish.set(j.name, f);
    longest = Math.max(longest, f);
  }
  return longest;
}

/** Unit·ms the workflow needs: Σ tasks × units per task × lease. */
export function workUnitMs(w: Pick<WorkflowRequest, 'jobs'>): number {
  let s = 0;
  for (const j of w.jobs) s += j.tasks * j.unitsPerTask * j.leaseMs;
  return s;
}

export interface WorkflowContext {
  /** The time the request is judged at. */
  readonly nowMs: number;
  /** Units of the largest node (a task must fit on one node). Unchecked when absent. */
  readonly largestNodeUnits?: number;
}

/**
 * Checks that need the clock or the cluster. Throws `ValidationError` naming the field: a
 * deadline not after `nowMs`, or a task holding more units than the largest node has.
 */
export function checkWorkflow(w: WorkflowRequest, ctx: WorkflowContext): void {
  if (w.deadlineMs !== undefined && w.deadlineMs <= ctx.nowMs)
    throw new ValidationError('deadlineMs', `deadline ${w.deadlineMs} is not after now (${ctx.nowMs})`);
  w.jobs.forEach((j, i) => {
    if (j.deadlineMs !== undefined && j.deadlineMs <= ctx.nowMs)
      throw new ValidationError(`jobs[${i}].deadlineMs`, `deadline ${j.deadlineMs} is not after now (${ctx.nowMs})`);
    if (ctx.largestNodeUnits !== undefined && j.unitsPerTask > ctx.largestNodeUnits) {
      throw new ValidationError(
        `jobs[${i}].unitsPerTask`,
        `a task of ${j.unitsPerTask} units is larger than any node (largest: ${ctx.largestNodeUnits} units)`,
      );
    }
  });
}

/** Parses and checks a request; every problem is a `ValidationError` naming its field. */
export function parseWorkflow(input: unknown, ctx?: WorkflowContext): WorkflowRequest {
  const r = workflowRequestSchema.safeParse(input);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new ValidationError(fieldPath(i.path), i.message);
  }
  if (ctx) checkWorkflow(r.data, ctx);
  return r.data;
}

/** `['jobs', 2, 'prerequisites', 0]` → `jobs[2].prerequisites[0]`. */
export function fieldPath(path: readonly (string | number)[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s === '' ? p : `.${p}`;
  return s || '(request)';
}
