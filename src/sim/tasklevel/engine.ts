/**
 * Task-level distributed-scheduling simulator: a virtual clock, a future-event list, one-slot
 * workers and a network that delivers every message after a fixed delay. Pigeon, Eagle and
 * Sparrow (one module each beside this file) place each task with messages — probes, late-binding
 * requests, queues at workers or group masters — which the per-cycle policy contract of the main
 * simulator (`src/sim/engine.ts`) cannot express.
 *
 * A scheduler module owns its distributors, masters and worker queues; the engine runs tasks on
 * workers, delivers messages, counts each decision under the name of the rule that made it, and
 * records when each job's last result reaches its scheduler.
 */
import { EventQueue, type SimEvent } from '../../core/heap.js';
import { Rng } from '../rng.js';

/** One job of a trace: one-slot tasks with their durations. */
export interface TaskJob {
  readonly index: number;
  readonly name: string;
  readonly arrivalMs: number;
  readonly durationsMs: Float64Array;
  /** Mean task duration, the trace's estimate that classifies the job and Eagle's SRPT uses. */
  readonly meanMs: number;
  /** Longest task: the job's run time with unlimited workers and no delays. */
  readonly longestMs: number;
  /** Mean task duration below the short/long cutoff. */
  readonly short: boolean;
}

/** A job while it runs: how many of its tasks have been handed out and how many have finished. */
export class JobRun {
  /** Tasks the scheduler has handed out so far (late binding hands out `durationsMs[launched]` next). */
  launched = 0;
  /** Task results that reached the job's scheduler. */
  finished = 0;
  finishMs = -1;
  /** Scheduler that handles the job (Pigeon distributor, Sparrow/Eagle scheduler). */
  scheduler = 0;

  constructor(readonly job: TaskJob) {}

  get tasks(): number {
    return this.job.durationsMs.length;
  }

  get unlaunched(): number {
    return this.job.durationsMs.length - this.launched;
  }
}

/** A decision as recorded: the rule that made it, when, for which job and worker (-1: none). */
export interface DecisionRecord {
  readonly tMs: number;
  readonly rule: string;
  readonly job: number;
  readonly worker: number;
}

export interface Scheduler {
  readonly name: string;
  /**
   * Message delay between a job's arrival and its completion when it never waits (one task, idle
   * cluster): a job whose completion time exceeds its longest task by no more than this saw no
   * queueing.
   */
  readonly pathDelayMs: number;
  jobArrived(run: JobRun): void;
}

export interface EngineOptions {
  readonly workers: number;
  readonly networkDelayMs: number;
  readonly seed: number;
  /** Called with every decision (tests, traces); counting by rule happens anyway. */
  readonly onDecision?: (d: DecisionRecord) => void;
}

class Event implements SimEvent {
  heapIndex = -1;
  constructor(
    readonly t: number,
    readonly seq: number,
    readonly fire: () => void,
  ) {}
}

export class TaskLevelEngine {
  readonly workers: number;
  readonly networkDelayMs: number;
  readonly rng: Rng;
  readonly runs: JobRun[] = [];
  /** Decisions counted by rule name. */
  readonly decisions = new Map<string, number>();
  private readonly onDecision?: (d: DecisionRecord) => void;
  private readonly queue = new EventQueue<Event>();
  private seq = 0;
  private nowMs = 0;
  private eventCount = 0;
  /** Job of the task each worker runs (-1: none): a worker runs one task at a time. */
  private readonly runningJob: Int32Array;
  private busyMs = 0;

  constructor(o: EngineOptions) {
    if (!Number.isInteger(o.workers) || o.workers < 1) throw new RangeError(`workers must be a positive integer, got ${o.workers}`);
    this.workers = o.workers;
    this.networkDelayMs = o.networkDelayMs;
    this.rng = new Rng(o.seed);
    this.onDecision = o.onDecision;
    this.runningJob = new Int32Array(o.workers).fill(-1);
  }

  get now(): number {
    return this.nowMs;
  }

  get events(): number {
    return this.eventCount;
  }

  /** Worker-milliseconds spent running tasks so far. */
  get busyWorkerMs(): number {
    return this.busyMs;
  }

  isRunning(worker: number): boolean {
    return this.runningJob[worker] >= 0;
  }

  at(tMs: number, fire: () => void): void {
    this.queue.push(new Event(tMs, this.seq++, fire));
  }

  /** Delivers a message: `fire` runs one network delay from now. */
  send(fire: () => void): void {
    this.at(this.nowMs + this.networkDelayMs, fire);
  }

  record(rule: string, job: number, worker: number): void {
    this.decisions.set(rule, (this.decisions.get(rule) ?? 0) + 1);
    this.onDecision?.({ tMs: this.nowMs, rule, job, worker });
  }

  /**
   * Starts task `task` of `run` on `worker` now; `done` runs when it finishes (the scheduler then
   * sends its messages: the result to the job's scheduler, an idle notice, …). Which task a worker
   * gets is the scheduler's choice: bound when the job is split (Pigeon) or when a worker asks for
   * one (late binding, Sparrow and Eagle).
   */
  launchTask(run: JobRun, task: number, worker: number, done: () => void): void {
    if (task < 0 || task >= run.tasks) throw new Error(`job ${run.job.name}: no task ${task}`);
    if (this.runningJob[worker] >= 0) throw new Error(`worker ${worker} already runs a task of job ${this.runningJob[worker]}`);
    const d = run.job.durationsMs[task];
    this.runningJob[worker] = run.job.index;
    this.busyMs += d;
    this.at(this.nowMs + d, () => {
      this.runningJob[worker] = -1;
      done();
    });
  }

  /** A task's result reached the job's scheduler; the job completes with its last result. */
  resultArrived(run: JobRun): void {
    run.finished++;
    if (run.finished === run.tasks) run.finishMs = this.nowMs;
  }

  /** Replays `jobs` (sorted by arrival) under `scheduler` until no event is left. */
  run(jobs: readonly TaskJob[], scheduler: Scheduler): void {
    for (const job of jobs) {
      const r = new JobRun(job);
      this.runs.push(r);
      this.at(job.arrivalMs, () => scheduler.jobArrived(r));
    }
    for (let e = this.queue.pop(); e; e = this.queue.pop()) {
      this.nowMs = e.t;
      this.eventCount++;
      e.fire();
    }
  }
}

/** `count` workers drawn at random from `pool` (ids), distinct while `count` ≤ the pool's size. */
export function sampleWorkers(rng: Rng, pool: ArrayLike<number>, count: number, out: number[] = []): number[] {
  out.length = 0;
  const n = pool.length;
  if (n === 0) return out;
  // Every worker gets ⌊count/n⌋ probes, the rest go to distinct random workers (partial Fisher–Yates).
  const rounds = Math.floor(count / n);
  for (let r = 0; r < rounds; r++) for (let i = 0; i < n; i++) out.push(pool[i]);
  const rest = count - rounds * n;
  if (rest > 0) {
    const picked = new Set<number>();
    while (picked.size < rest) {
      const w = pool[rng.int(n)];
      if (!picked.has(w)) {
        picked.add(w);
        out.push(w);
      }
    }
  }
  return out;
}
