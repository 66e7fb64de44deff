/**
 * Sparrow (Ousterhout et al., SOSP 2013): batch sampling — a job of m tasks places reservations
 * (probes) on d·m random workers — and late binding — a worker that reaches a reservation asks
 * the job's scheduler for a task, and gets one only while the job still has tasks not handed out.
 *
 * Messages: scheduler → worker (probe), worker → scheduler (task request), scheduler → worker
 * (task or no-op), worker → scheduler (result), each one network delay. Workers serve their
 * reservations first come, first served.
 */
import { z } from 'zod';
import { sampleWorkers, type JobRun, type Scheduler, type TaskLevelEngine } from './engine.js';
import { Fifo } from './fifo.js';

export const sparrowParamsSchema = z
  .object({
    /** Probe ratio d: probes per task (the Sparrow paper's d = 2). */
    probeRatio: z.number().min(1).default(2),
    /** Distributed schedulers; a job goes to one at random (no processing cost is modelled). */
    schedulers: z.number().int().min(1).default(10),
    networkDelayMs: z.number().min(0).default(0.5),
    /** Short/long cutoff on a job's mean task duration (default: the trace's, e.g. Yahoo 90,581.1 ms). */
    cutoffMs: z.number().positive().optional(),
  })
  .strict();

export type SparrowParams = z.infer<typeof sparrowParamsSchema>;

/** Batch sampling: ⌈d·m⌉ probes, on distinct workers while there are enough of them. */
export function probeCount(tasks: number, probeRatio: number): number {
  return Math.ceil(probeRatio * tasks);
}

export interface SparrowWorker {
  readonly reservations: Fifo<JobRun>;
  /** Holding its slot: running a task or waiting for the scheduler's answer. */
  busy: boolean;
}

export function createSparrow(engine: TaskLevelEngine, p: SparrowParams): Scheduler & { readonly workerState: readonly SparrowWorker[] } {
  const rng = engine.rng;
  const workers: SparrowWorker[] = Array.from({ length: engine.workers }, () => ({ reservations: new Fifo<JobRun>(), busy: false }));
  const all = Int32Array.from({ length: engine.workers }, (_, i) => i);
  const probes: number[] = [];

  /** The worker takes its oldest reservation and asks that job's scheduler for a task. */
  const nextReservation = (w: number): void => {
    const s = workers[w];
    const run = s.reservations.shift();
    if (run === undefined) return;
    s.busy = true;
    engine.record('sparrow.requestTask', run.job.index, w);
    engine.send(() => lateBind(run, w));
  };

  /** Late binding at the scheduler: the next task not handed out, or a no-op when none is left. */
  const lateBind = (run: JobRun, w: number): void => {
    if (run.launched < run.tasks) {
      const task = run.launched++;
      engine.record('sparrow.lateBind', run.job.index, w);
      engine.send(() =>
        engine.launchTask(run, task, w, () => {
          engine.send(() => engine.resultArrived(run));
          workers[w].busy = false;
          nextReservation(w);
        }),
      );
    } else {
      engine.record('sparrow.noTaskLeft', run.job.index, w);
      engine.send(() => {
        workers[w].busy = false;
        nextReservation(w);
      });
    }
  };

  return {
    name: 'sparrow',
    // probe, task request, task, result.
    pathDelayMs: 4 * p.networkDelayMs,
    workerState: workers,
    jobArrived(run: JobRun): void {
      run.scheduler = rng.int(p.schedulers);
      const targets = sampleWorkers(rng, all, probeCount(run.tasks, p.probeRatio), probes).slice();
      engine.record('sparrow.batchSample', run.job.index, -1);
      engine.send(() => {
        for (const w of targets) {
          workers[w].reservations.push(run);
          engine.record('sparrow.reserve', run.job.index, w);
          if (!workers[w].busy) nextReservation(w);
        }
      });
    },
  };
}
