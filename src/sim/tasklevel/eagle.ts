/**
 * Eagle (Delgado et al., "Job-aware scheduling in Eagle: divide and stick to your probes", SoCC
 * 2016), configured as its authors' simulator (`epfl-labos/eagle`, `simulation/eagle_simulation.py`)
 * runs it with the README's Eagle settings:
 *
 * - partitions (Hawk's): short jobs probe the first `shortPartitionPct` % of the workers, long
 *   jobs run on the last `longPartitionPct` %, so the first 100 − longPartitionPct % only ever run
 *   short tasks;
 * - long jobs: a central scheduler puts each task on the long-partition worker with the least
 *   estimated waiting time (the sum of the estimates of the long tasks it holds);
 * - short jobs: batch probing (probe ratio, at least `minProbes` probes); a worker that runs or
 *   queues a long task rejects a short probe and answers with its copy of the cluster's
 *   long-work bitmap (succinct state sharing); the scheduler probes again among the workers the
 *   freshest bitmap shows free of long work, and after `probeRounds` rounds in the short-only
 *   partition;
 * - workers: late binding; queues ordered by SRPT (a job's remaining estimated work) with a cap
 *   on how often a short probe may be overtaken; sticky batch probing (a short probe whose task
 *   was launched stays at the worker and asks for the job's next task).
 *
 * Messages: scheduler → worker (probe), worker → scheduler (rejection, task request), scheduler →
 * worker (task or no-op), worker → scheduler (result), each one network delay. Deciding what a
 * worker holds is the central scheduler's own bookkeeping; a job's remaining work is read where
 * its scheduler keeps it, as the authors' simulator does.
 */
import { z } from 'zod';
import { IndexedHeap } from '../../core/heap.js';
import { sampleWorkers, type JobRun, type Scheduler, type TaskLevelEngine } from './engine.js';

export const eagleParamsSchema = z
  .object({
    /** Probes per task of a short job. */
    probeRatio: z.number().min(1).default(2),
    /** Fewest probes a short job sends (the README's Eagle runs: 20). */
    minProbes: z.number().int().min(1).default(20),
    /** Probe rounds among the workers free of long work before the short-only partition. */
    probeRounds: z.number().int().min(1).default(2),
    /** Share of the workers (the first ones) short jobs probe: 100 for every trace in the README. */
    shortPartitionPct: z.number().gt(0).max(100).default(100),
    /** Share of the workers (the last ones) long jobs run on: Yahoo 98, Cloudera 91, Google 83. */
    longPartitionPct: z.number().gt(0).max(100).default(98),
    /** Order worker queues by shortest remaining processing time (else first come, first served). */
    srpt: z.boolean().default(true),
    /** A short probe whose task started stays at the worker for the job's next task. */
    stickyBatchProbing: z.boolean().default(true),
    /** A short probe may be overtaken until it has waited this many times its task estimate (CAP_SRPT_SBP = 5). */
    slackCap: z.number().min(0).default(5),
    /** Distributed schedulers for short jobs; a job goes to one at random. */
    schedulers: z.number().int().min(1).default(10),
    networkDelayMs: z.number().min(0).default(0.5),
    /** Short/long cutoff on a job's mean task duration (default: the trace's, e.g. Yahoo 90,581.1 ms). */
    cutoffMs: z.number().positive().optional(),
  })
  .strict();

export type EagleParams = z.infer<typeof eagleParamsSchema>;

/** A probe queued at a worker. */
interface Probe {
  readonly run: JobRun;
  readonly long: boolean;
  /** Time this probe has been overtaken by, in task estimates of the short probes that went first. */
  waitedMs: number;
  /** Its task was launched and it stays for the next one (sticky batch probing). */
  sticky: boolean;
}

export interface EagleWorker {
  readonly queue: Probe[];
  /** Holding its slot: running a task or waiting for the scheduler's answer. */
  busy: boolean;
  /** Runs (or is about to run) a long task. */
  runningLong: boolean;
  /** Long probes waiting in its queue. */
  queuedLong: number;
  /** The long-work bitmap it received with its last long probe, and when. */
  bitmap: Uint8Array | undefined;
  bitmapAtMs: number;
}

/** The central scheduler's view of long work: estimated work per worker and the bitmap of workers holding any. */
export interface LongWorkBook {
  readonly estimatedMs: Float64Array;
  readonly tasks: Int32Array;
  readonly bitmap: Uint8Array;
  /** Start and estimate of the long task each worker runs (-1: none). */
  readonly runningSinceMs: Float64Array;
  readonly runningEstimateMs: Float64Array;
}

/** A job's remaining estimated work as its scheduler sees it: estimate × tasks not handed out. */
function remainingMs(run: JobRun): number {
  return run.unlaunched * run.job.meanMs;
}

interface WaitSlot {
  waitMs: number;
  readonly worker: number;
  heapIndex: number;
}

/**
 * Long-job placement (centralised, least waiting time first): workers with no long work, lowest
 * id first; then, task by task, the worker whose estimated wait is least (its queued long work,
 * less what its running long task has done, plus a round trip), each task adding its estimate.
 */
export function placeLongJob(book: LongWorkBook, pool: ArrayLike<number>, tasks: number, estimateMs: number, nowMs: number, delayMs: number): number[] {
  const chosen: number[] = [];
  const empty: number[] = [];
  const heap = new IndexedHeap<WaitSlot>(
    (a, b) => a.waitMs < b.waitMs || (a.waitMs === b.waitMs && a.worker < b.worker),
    (x) => x.heapIndex,
    (x, i) => {
      x.heapIndex = i;
    },
  );
  for (let i = 0; i < pool.length && empty.length < tasks; i++) {
    const w = pool[i];
    if (book.estimatedMs[w] === 0) empty.push(w);
  }
  if (empty.length === tasks) return empty;
  for (let i = 0; i < pool.length; i++) {
    const w = pool[i];
    const q = book.estimatedMs[w];
    if (q === 0) continue;
    const since = book.runningSinceMs[w];
    const wait = since >= 0 ? 2 * delayMs + q - Math.min(nowMs - since, book.runningEstimateMs[w]) : q;
    heap.push({ waitMs: wait, worker: w, heapIndex: -1 });
  }
  for (const w of empty) {
    chosen.push(w);
    heap.push({ waitMs: estimateMs, worker: w, heapIndex: -1 });
  }
  while (chosen.length < tasks) {
    const top = heap.peek() as WaitSlot;
    chosen.push(top.worker);
    top.waitMs += estimateMs;
    heap.update(top);
  }
  return chosen;
}

/**
 * The probe a free worker serves next (index into its queue, -1 when none is left), with SRPT and
 * sticky batch probing as the authors' simulator orders them: probes of jobs with no task left
 * to hand out are dropped; a long probe at the head goes first; otherwise the probe of the job
 * with the least remaining work, provided no short probe in front of it would then have waited
 * more than `slackCap` times its own estimate.
 */
export function srptPick(queue: Probe[], slackCap: number): number {
  let best = -1;
  let bestRemaining = Infinity;
  let slackInFront = Infinity;
  for (let i = 0; i < queue.length;) {
    const pr = queue[i];
    if (pr.run.unlaunched === 0) {
      queue.splice(i, 1);
      continue;
    }
    const rem = remainingMs(pr.run);
    const est = pr.run.job.meanMs;
    if (pr.long && i === 0) return 0;
    if (rem < bestRemaining && est <= slackInFront) {
      best = i;
      bestRemaining = rem;
      if (pr.long) return best;
    }
    if (!pr.long && slackCap !== Infinity) slackInFront = Math.min(slackInFront, slackCap * est - pr.waitedMs);
    i++;
  }
  return best;
}

export function createEagle(
  engine: TaskLevelEngine,
  p: EagleParams,
): Scheduler & { readonly workerState: readonly EagleWorker[]; readonly firstLongWorker: number } {
  const rng = engine.rng;
  const n = engine.workers;
  const delay = p.networkDelayMs;
  const shortPoolEnd = Math.max(1, Math.floor((p.shortPartitionPct * n) / 100));
  const firstLongWorker = Math.min(n - 1, Math.floor(((100 - p.longPartitionPct) * n) / 100));
  const shortPool = Int32Array.from({ length: shortPoolEnd }, (_, i) => i);
  const longPool = Int32Array.from({ length: n - firstLongWorker }, (_, i) => firstLongWorker + i);
  const shortOnly = Int32Array.from({ length: Math.min(firstLongWorker, shortPoolEnd) }, (_, i) => i);
  const workers: EagleWorker[] = Array.from({ length: n }, () => ({
    queue: [],
    busy: false,
    runningLong: false,
    queuedLong: 0,
    bitmap: undefined,
    bitmapAtMs: -1,
  }));
  const book: LongWorkBook = {
    estimatedMs: new Float64Array(n),
    tasks: new Int32Array(n),
    bitmap: new Uint8Array(n),
    runningSinceMs: new Float64Array(n).fill(-1),
    runningEstimateMs: new Float64Array(n),
  };
  const sample: number[] = [];

  /** A free worker picks its next probe and asks that job's scheduler for a task. */
  const serveNext = (w: number): void => {
    const s = workers[w];
    if (s.busy || s.queue.length === 0) return;
    const i = p.srpt ? srptPick(s.queue, p.slackCap) : firstLive(s.queue);
    if (i < 0) return;
    const pr = s.queue[i];
    s.busy = true;
    if (pr.long) {
      s.runningLong = true;
      s.queuedLong--;
      book.runningSinceMs[w] = engine.now;
      book.runningEstimateMs[w] = pr.run.job.meanMs;
    }
    engine.record(pr.long ? 'eagle.serveLong' : i === 0 ? 'eagle.serveShort' : 'eagle.srptOvertake', pr.run.job.index, w);
    engine.send(() => lateBind(pr, w));
  };

  const lateBind = (pr: Probe, w: number): void => {
    const run = pr.run;
    if (run.launched < run.tasks) {
      const task = run.launched++;
      engine.record('eagle.lateBind', run.job.index, w);
      engine.send(() => taskArrives(pr, task, w));
    } else {
      engine.record('eagle.noTaskLeft', run.job.index, w);
      engine.send(() => {
        removeProbe(w, pr);
        if (pr.long) longTaskGone(w, pr.run.job.meanMs);
        workers[w].busy = false;
        serveNext(w);
      });
    }
  };

  const taskArrives = (pr: Probe, task: number, w: number): void => {
    const s = workers[w];
    const i = s.queue.indexOf(pr);
    if (!pr.long) {
      // Probes it overtook count its estimate against their slack.
      for (let k = 0; k < i; k++) s.queue[k].waitedMs += pr.run.job.meanMs;
    }
    if (pr.long || !p.stickyBatchProbing) s.queue.splice(i, 1);
    else pr.sticky = true;
    engine.launchTask(pr.run, task, w, () => {
      engine.send(() => engine.resultArrived(pr.run));
      if (pr.long) longTaskGone(w, pr.run.job.meanMs);
      s.busy = false;
      serveNext(w);
    });
  };

  const removeProbe = (w: number, pr: Probe): void => {
    const q = workers[w].queue;
    const i = q.indexOf(pr);
    if (i >= 0) q.splice(i, 1);
  };

  /** The central scheduler's book when a long task ends (or its probe found nothing to run). */
  const longTaskGone = (w: number, estimateMs: number): void => {
    workers[w].runningLong = false;
    book.runningSinceMs[w] = -1;
    book.estimatedMs[w] -= estimateMs;
    if (--book.tasks[w] === 0) {
      book.estimatedMs[w] = 0;
      book.bitmap[w] = 0;
    }
  };

  /** One round of short probes reaches its workers; rejections go back with the freshest bitmap. */
  const probeRound = (run: JobRun, targets: number[], round: number): void => {
    let rejected = 0;
    let freshest: Uint8Array | undefined;
    let freshestAt = -1;
    const final = round > p.probeRounds;
    for (const w of targets) {
      const s = workers[w];
      if (s.bitmap && s.bitmapAtMs > freshestAt) {
        freshest = s.bitmap;
        freshestAt = s.bitmapAtMs;
      }
      if (!final && (s.runningLong || s.queuedLong > 0)) {
        rejected++;
        engine.record('eagle.rejectProbe', run.job.index, w);
        continue;
      }
      s.queue.push({ run, long: false, waitedMs: 0, sticky: false });
      engine.record('eagle.acceptProbe', run.job.index, w);
      serveNext(w);
    }
    if (rejected === 0) return;
    const bitmap = freshest;
    engine.send(() => reprobe(run, rejected, bitmap, round));
  };

  /** Rejected probes go again: among workers the bitmap shows free of long work, then to the short-only partition. */
  const reprobe = (run: JobRun, count: number, bitmap: Uint8Array | undefined, round: number): void => {
    if (run.launched >= run.tasks) return;
    let pool: ArrayLike<number>;
    if (round < p.probeRounds) {
      const free: number[] = [];
      for (let i = 0; i < shortPool.length; i++) {
        const w = shortPool[i];
        if (w < firstLongWorker || !bitmap || bitmap[w] === 0) free.push(w);
      }
      pool = free.length > 0 ? free : shortPool;
      engine.record('eagle.reprobe', run.job.index, -1);
    } else {
      pool = shortOnly.length > 0 ? shortOnly : shortPool;
      engine.record('eagle.shortPartitionFallback', run.job.index, -1);
    }
    const targets = sampleWorkers(rng, pool, count, sample).slice();
    engine.send(() => probeRound(run, targets, round + 1));
  };

  const placeLong = (run: JobRun): void => {
    const est = run.job.meanMs;
    const chosen = placeLongJob(book, longPool, run.tasks, est, engine.now, delay);
    for (const w of chosen) {
      book.estimatedMs[w] += est;
      book.tasks[w]++;
      book.bitmap[w] = 1;
      engine.record('eagle.leastWaitingWorker', run.job.index, w);
    }
    // Succinct state sharing: the long probes carry the bitmap as it stands with this job placed.
    const snapshot = book.bitmap.slice();
    const sentAt = engine.now;
    engine.send(() => {
      for (const w of chosen) {
        const s = workers[w];
        s.queue.push({ run, long: true, waitedMs: 0, sticky: false });
        s.queuedLong++;
        s.bitmap = snapshot;
        s.bitmapAtMs = sentAt;
        serveNext(w);
      }
    });
  };

  return {
    name: 'eagle',
    pathDelayMs: 4 * delay,
    workerState: workers,
    firstLongWorker,
    jobArrived(run: JobRun): void {
      run.scheduler = rng.int(p.schedulers);
      if (!run.job.short) {
        placeLong(run);
        return;
      }
      const count = Math.max(Math.ceil(p.probeRatio * run.tasks), p.minProbes);
      const targets = sampleWorkers(rng, shortPool, count, sample).slice();
      engine.record('eagle.batchProbe', run.job.index, -1);
      engine.send(() => probeRound(run, targets, 1));
    },
  };
}

/** First-come first-served: the oldest probe whose job still has a task to hand out. */
function firstLive(queue: Probe[]): number {
  while (queue.length > 0 && queue[0].run.unlaunched === 0) queue.shift();
  return queue.length > 0 ? 0 : -1;
}
