/**
 * Pigeon (Wang et al., "Pigeon: an Effective Distributed, Hierarchical Datacenter Job Scheduler",
 * §2): distributors split each job evenly over group masters; each master places its tasks on the
 * group's workers from two FIFO queues (short tasks high priority, long tasks low priority) served
 * by weighted fair queuing, with a few reserved workers that never run long tasks.
 *
 * Messages: distributor → master (the job's tasks), master → worker (a task), worker → distributor
 * (the result) and worker → master (idle notice), each one network delay.
 */
import { z } from 'zod';
import type { Rng } from '../rng.js';
import { type JobRun, type Scheduler, type TaskLevelEngine } from './engine.js';
import { Fifo } from './fifo.js';

/** `inf`, `infinity` (any case) or a number; Infinity is strict priority. */
const weightSchema = z.preprocess(
  (v) => (typeof v === 'string' && /^(inf|infinity)$/i.test(v.trim()) ? Infinity : v),
  z
    .number()
    .min(1)
    .refine((w) => w === Infinity || Number.isInteger(w), 'an integer ≥ 1 or inf'),
);

export const pigeonParamsSchema = z
  .object({
    /** Distributed job schedulers (N_s); the paper and the authors' simulator use 10. */
    distributors: z.number().int().min(1).default(10),
    /** Workers per group (N_w): 100 in §4 and in the authors' simulator (MNW). */
    groupSize: z.number().int().min(1).default(100),
    /** Reserved (short-only) workers per group: 2 (2 % of 100, the Yahoo setting; DNUM). */
    reservedPerGroup: z.number().int().min(0).default(2),
    /** WFQ weight W: at least one of every W tasks a master serves from its queues is long when any waits; inf = strict priority (the authors' FQW=100000, EC2 runs). */
    weight: weightSchema.default(Infinity),
    /** One-way message delay between any two nodes (§4.1: 0.5 ms). */
    networkDelayMs: z.number().min(0).default(0.5),
    /** Short/long cutoff on a job's mean task duration (default: the trace's, e.g. Yahoo 90,581.1 ms). */
    cutoffMs: z.number().positive().optional(),
  })
  .strict()
  .refine((p) => p.reservedPerGroup < p.groupSize, {
    message: 'reservedPerGroup must leave at least one general worker in a group',
    path: ['reservedPerGroup'],
  });

export type PigeonParams = z.infer<typeof pigeonParamsSchema>;

/** One task waiting at a master: which job, which of its tasks (bound when the job was split). */
interface QueuedTask {
  readonly run: JobRun;
  readonly task: number;
}

export interface PigeonMaster {
  readonly id: number;
  /** Idle general workers, longest idle first. */
  readonly idleGeneral: Fifo<number>;
  /** Idle reserved workers (short tasks only), longest idle first. */
  readonly idleReserved: Fifo<number>;
  /** High-priority queue: tasks of short jobs. */
  readonly high: Fifo<QueuedTask>;
  /** Low-priority queue: tasks of long jobs. */
  readonly low: Fifo<QueuedTask>;
  /** High-priority tasks served from the queues since the last low-priority one (WFQ counter). */
  highStreak: number;
}

/**
 * §2.2 task distribution: of an F-task job, ⌊F/G⌋ tasks go to every master and the remaining
 * F mod G to distinct masters chosen at random. Returns the master of each task, in task order.
 */
export function distributeTasks(tasks: number, masters: number, rng: Rng): Int32Array {
  const out = new Int32Array(tasks);
  const rounds = Math.floor(tasks / masters);
  let k = 0;
  for (let r = 0; r < rounds; r++) for (let m = 0; m < masters; m++) out[k++] = m;
  const rest = tasks - k;
  if (rest > 0) {
    const taken = new Uint8Array(masters);
    while (k < tasks) {
      const m = rng.int(masters);
      if (taken[m]) continue;
      taken[m] = 1;
      out[k++] = m;
    }
  }
  return out;
}

export type ArrivalDecision =
  | { readonly rule: 'pigeon.generalWorker' | 'pigeon.reservedWorker'; readonly worker: number }
  | { readonly rule: 'pigeon.queueHigh' | 'pigeon.queueLow'; readonly worker: -1 };

/**
 * §2.2 a task reaches its master: an idle general worker if any; else, for a short task, an idle
 * reserved worker; else the task waits in its class's queue. A long task never takes a reserved
 * worker.
 */
export function placeArrivingTask(m: PigeonMaster, t: QueuedTask, short: boolean): ArrivalDecision {
  const general = m.idleGeneral.shift();
  if (general !== undefined) return { rule: 'pigeon.generalWorker', worker: general };
  if (short) {
    const reserved = m.idleReserved.shift();
    if (reserved !== undefined) return { rule: 'pigeon.reservedWorker', worker: reserved };
    m.high.push(t);
    return { rule: 'pigeon.queueHigh', worker: -1 };
  }
  m.low.push(t);
  return { rule: 'pigeon.queueLow', worker: -1 };
}

export type FreedDecision =
  | { readonly rule: 'pigeon.reservedServesHigh' | 'pigeon.wfqHigh' | 'pigeon.wfqLow'; readonly task: QueuedTask }
  | { readonly rule: 'pigeon.reservedIdles' | 'pigeon.generalIdles'; readonly task: undefined };

/**
 * §2.2 a worker's idle notice reaches its master. A reserved worker takes the head of the
 * high-priority queue or goes back to the idle list. A general worker is served by weighted fair
 * queuing: the high-priority head, unless W−1 high-priority tasks in a row were served and a long
 * task waits (then the low-priority head); the low-priority head when no short task waits.
 */
export function serveFreedWorker(m: PigeonMaster, worker: number, reserved: boolean, weight: number): FreedDecision {
  if (reserved) {
    const t = m.high.shift();
    if (t === undefined) {
      m.idleReserved.push(worker);
      return { rule: 'pigeon.reservedIdles', task: undefined };
    }
    m.highStreak++;
    return { rule: 'pigeon.reservedServesHigh', task: t };
  }
  const longTurn = m.low.size > 0 && m.highStreak >= weight - 1;
  if (m.high.size > 0 && !longTurn) {
    m.highStreak++;
    return { rule: 'pigeon.wfqHigh', task: m.high.shift() as QueuedTask };
  }
  const t = m.low.shift();
  if (t !== undefined) {
    m.highStreak = 0;
    return { rule: 'pigeon.wfqLow', task: t };
  }
  m.idleGeneral.push(worker);
  return { rule: 'pigeon.generalIdles', task: undefined };
}

/** Groups of `groupSize` consecutive workers (the last may be smaller); the first `reserved` of each are reserved. */
export function pigeonGroups(workers: number, groupSize: number, reserved: number): { masters: PigeonMaster[]; masterOf: Int32Array; isReserved: Uint8Array } {
  const groups = Math.ceil(workers / groupSize);
  const masters: PigeonMaster[] = [];
  const masterOf = new Int32Array(workers);
  const isReserved = new Uint8Array(workers);
  for (let g = 0; g < groups; g++) {
    const m: PigeonMaster = { id: g, idleGeneral: new Fifo(), idleReserved: new Fifo(), high: new Fifo(), low: new Fifo(), highStreak: 0 };
    const first = g * groupSize;
    const end = Math.min(workers, first + groupSize);
    for (let w = first; w < end; w++) {
      masterOf[w] = g;
      if (w - first < reserved) {
        isReserved[w] = 1;
        m.idleReserved.push(w);
      } else m.idleGeneral.push(w);
    }
    masters.push(m);
  }
  return { masters, masterOf, isReserved };
}

export function createPigeon(
  engine: TaskLevelEngine,
  p: PigeonParams,
): Scheduler & { readonly masters: readonly PigeonMaster[]; readonly isReserved: Uint8Array } {
  const { masters, masterOf, isReserved } = pigeonGroups(engine.workers, p.groupSize, p.reservedPerGroup);
  const rng = engine.rng;

  const dispatch = (run: JobRun, task: number, worker: number): void => {
    engine.send(() =>
      engine.launchTask(run, task, worker, () => {
        engine.send(() => engine.resultArrived(run));
        engine.send(() => workerFreed(worker));
      }),
    );
  };

  const workerFreed = (worker: number): void => {
    const m = masters[masterOf[worker]];
    const d = serveFreedWorker(m, worker, isReserved[worker] === 1, p.weight);
    engine.record(d.rule, d.task ? d.task.run.job.index : -1, worker);
    if (d.task) dispatch(d.task.run, d.task.task, worker);
  };

  const tasksArrive = (m: PigeonMaster, run: JobRun, tasks: readonly number[]): void => {
    // §2.2: several tasks of a job reaching a master at once are handled one by one.
    for (const task of tasks) {
      const d = placeArrivingTask(m, { run, task }, run.job.short);
      engine.record(d.rule, run.job.index, d.worker);
      if (d.worker >= 0) dispatch(run, task, d.worker);
    }
  };

  return {
    name: 'pigeon',
    // distributor → master → worker, then the result back to the distributor.
    pathDelayMs: 3 * p.networkDelayMs,
    masters,
    isReserved,
    jobArrived(run: JobRun): void {
      run.scheduler = rng.int(p.distributors);
      const masterOfTask = distributeTasks(run.tasks, masters.length, rng);
      engine.record('pigeon.distribute', run.job.index, -1);
      const perMaster = new Map<number, number[]>();
      for (let k = 0; k < masterOfTask.length; k++) {
        const list = perMaster.get(masterOfTask[k]);
        if (list) list.push(k);
        else perMaster.set(masterOfTask[k], [k]);
      }
      run.launched = run.tasks;
      for (const [mi, tasks] of perMaster) engine.send(() => tasksArrive(masters[mi], run, tasks));
    },
  };
}
