/**
 * The live engine's MILP solver: HiGHS in a worker thread. The event loop goes on while a policy's
 * solve runs. A solve still running when its time is up (`timeLeftMs`, plus a grace for HiGHS's
 * own time limit to end it; it has been seen to run 625 ms past it on a loaded machine) is left
 * behind: the cycle goes on with a `deadline` outcome while the worker finishes, and the next solve
 * waits for it within its own time. A worker still busy long after (`hungAfterMs`) is terminated,
 * the only way to interrupt HiGHS in WebAssembly, and the next solve starts a fresh one (which
 * loads HiGHS again). Solves run one at a time, in the order asked.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { MilpOutcome, MilpRequest, MilpSolver } from '../core/milp.js';

/** A request as the worker receives it. */
export interface SolveTask {
  readonly id: number;
  readonly request: MilpRequest;
}

export type SolveReply = { readonly id: number; readonly outcome: MilpOutcome } | { readonly ready: true };

export interface WorkerMilpSolverOptions {
  /** After `timeLeftMs`, how long HiGHS's own time limit is given to end the solve before the cycle goes on without it, ms. */
  readonly graceMs?: number;
  /** How long past its time a solve left behind may keep the worker before the worker is terminated, ms. */
  readonly hungAfterMs?: number;
  /** Told when a solve gives no answer: out of time, or the worker failed (the engine logs and counts it). */
  readonly onStop?: (why: 'deadline' | 'failed', detail: string) => void;
}

/** What the solver has done since it was made (for tests and benchmarks). */
export interface WorkerMilpSolverStats {
  solves: number;
  /** Solves the cycle went on without when their time was up. */
  leftBehind: number;
  /** Solves not started: their time ran out before the worker was free (loading HiGHS, finishing a solve left behind). */
  notStarted: number;
  /** Workers terminated because a solve left behind kept them past `hungAfterMs`. */
  terminated: number;
  workerFailures: number;
  workersStarted: number;
}

// HiGHS checks its time limit between nodes and LPs: on a loaded machine it ends tens of ms past
// it. A solve the cycle goes on without is wasted work, so the grace is not too short.
const DEFAULT_GRACE_MS = 100;
const DEFAULT_HUNG_AFTER_MS = 10_000;

interface WorkerHandle {
  readonly thread: Worker;
  /** Settles when HiGHS is loaded in it. */
  readonly ready: Promise<void>;
  /** Settles when no solve left behind is running in it. */
  idle: Promise<void>;
}

export class WorkerMilpSolver implements MilpSolver {
  readonly stats: WorkerMilpSolverStats = { solves: 0, leftBehind: 0, notStarted: 0, terminated: 0, workerFailures: 0, workersStarted: 0 };
  private worker: WorkerHandle | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 0;
  private closed = false;
  private readonly graceMs: number;
  private readonly hungAfterMs: number;

  constructor(private readonly opts: WorkerMilpSolverOptions = {}) {
    this.graceMs = opts.graceMs ?? DEFAULT_GRACE_MS;
    this.hungAfterMs = opts.hungAfterMs ?? DEFAULT_HUNG_AFTER_MS;
  }

  solve(request: MilpRequest): Promise<MilpOutcome> {
    const askedAtMs = performance.now();
    const run = this.queue.then(() => this.solveOne(request, askedAtMs));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Starts the worker (HiGHS loads in it) before the first solve needs it. */
  warm(): Promise<void> {
    return this.ensureWorker().ready;
  }

  /** Stops the worker; later solves answer `failed`. */
  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.thread.terminate();
  }

  private async solveOne(request: MilpRequest, askedAtMs: number): Promise<MilpOutcome> {
    if (this.closed) return { solved: false, why: 'failed', error: 'solver closed', solveMs: 0 };
    const leftNow = (): number | undefined => (request.timeLeftMs === undefined ? undefined : request.timeLeftMs - (performance.now() - askedAtMs));
    let w: WorkerHandle;
    try {
      w = this.ensureWorker();
      // The wait for HiGHS to load, or for a solve left behind to end, comes off this solve's time, and never goes past it.
      if (!(await settlesWithin(w.ready, leftNow())))
        return this.notStarted(`the solver worker was still loading HiGHS when the solve's ${Math.max(0, request.timeLeftMs ?? 0).toFixed(0)} ms ran out`);
      if (!(await settlesWithin(w.idle, leftNow())))
        return this.notStarted(
          `the solver worker was still busy with a solve left behind when this one's ${Math.max(0, request.timeLeftMs ?? 0).toFixed(0)} ms ran out`,
        );
    } catch (e) {
      return this.failed(`solver worker did not start: ${e instanceof Error ? e.message : String(e)}`, 0);
    }
    if (this.worker !== w) return this.solveOne(request, askedAtMs);
    const waitedMs = performance.now() - askedAtMs;
    const timeLeftMs = leftNow();
    if (timeLeftMs !== undefined && timeLeftMs < (request.minSolveMs ?? 0))
      return this.notStarted(
        `${Math.max(0, timeLeftMs).toFixed(0)} ms left after ${waitedMs.toFixed(0)} ms waiting for the solver, a solve needs ${request.minSolveMs ?? 0} ms`,
      );
    const worker = w.thread;
    const id = ++this.nextId;
    const sentAtMs = performance.now();
    this.stats.solves++;
    return new Promise<MilpOutcome>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let answered = false;
      let finishedBehind: (() => void) | undefined;
      const answer = (outcome: MilpOutcome): void => {
        if (answered) return;
        answered = true;
        if (timer) clearTimeout(timer);
        resolve(outcome);
      };
      const release = (): void => {
        worker.off('message', onMessage);
        worker.off('error', onEnd);
        worker.off('exit', onEnd);
        finishedBehind?.();
      };
      const onMessage = (reply: SolveReply): void => {
        if (!('id' in reply) || reply.id !== id) return;
        release();
        answer(reply.outcome);
      };
      const onEnd = (e: Error | number): void => {
        release();
        answer(this.failed(typeof e === 'number' ? `solver worker exited (code ${e})` : `solver worker failed: ${e.message}`, performance.now() - sentAtMs));
      };
      worker.on('message', onMessage);
      worker.once('error', onEnd);
      worker.once('exit', onEnd);
      if (timeLeftMs !== undefined)
        timer = setTimeout(
          () => {
            const ranMs = performance.now() - sentAtMs;
            this.stats.leftBehind++;
            // The worker finishes the solve; the next one waits for it, and a worker still busy long after is terminated.
            let hung: NodeJS.Timeout | undefined;
            w.idle = new Promise<void>((done) => {
              finishedBehind = () => {
                if (hung) clearTimeout(hung);
                done();
              };
              hung = setTimeout(() => {
                this.stats.terminated++;
                this.discard(worker);
                release();
              }, this.hungAfterMs);
              hung.unref();
            });
            const error = `solve left behind after ${ranMs.toFixed(0)} ms, at the end of the ${Math.max(0, timeLeftMs).toFixed(0)} ms it had`;
            this.opts.onStop?.('deadline', error);
            answer({ solved: false, why: 'deadline', error, solveMs: ranMs });
          },
          Math.max(0, timeLeftMs) + this.graceMs,
        );
      worker.postMessage({ id, request: timeLeftMs === undefined ? request : { ...request, timeLeftMs } } satisfies SolveTask);
    });
  }

  private notStarted(error: string): MilpOutcome {
    this.stats.notStarted++;
    this.opts.onStop?.('deadline', error);
    return { solved: false, why: 'deadline', error, solveMs: 0 };
  }

  private failed(error: string, solveMs: number): MilpOutcome {
    this.stats.workerFailures++;
    this.opts.onStop?.('failed', error);
    return { solved: false, why: 'failed', error, solveMs };
  }

  private ensureWorker(): WorkerHandle {
    if (this.worker) return this.worker;
    const here = import.meta.url;
    const entry = new URL(`./milp-worker.${here.endsWith('.ts') ? 'ts' : 'js'}`, here);
    // Run from the TypeScript sources (tsx, a test runner), the worker registers tsx's loader for
    // itself first: a worker does not inherit the loader of the thread that starts it.
    const thread = here.endsWith('.ts') ? new Worker(tsxBootstrap(entry), { eval: true }) : new Worker(entry);
    // A solver never keeps the process alive.
    thread.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const onReady = (m: SolveReply): void => {
        if ('ready' in m) {
          thread.off('message', onReady);
          resolve();
        }
      };
      thread.on('message', onReady);
      thread.once('error', reject);
      thread.once('exit', (code) => reject(new Error(`exited (code ${code}) before it was ready`)));
    });
    ready.catch(() => undefined);
    // An idle worker that fails or exits is dropped; the next solve starts another.
    thread.on('error', () => this.discard(thread));
    thread.on('exit', () => {
      if (this.worker?.thread === thread) this.worker = undefined;
    });
    this.worker = { thread, ready, idle: Promise.resolve() };
    this.stats.workersStarted++;
    return this.worker;
  }

  private discard(thread: Worker): void {
    if (this.worker?.thread === thread) this.worker = undefined;
    void thread.terminate().catch(() => undefined);
  }
}

/** Whether `p` settles fulfilled within `ms` (undefined: whenever it does); a rejection is thrown. */
async function settlesWithin(p: Promise<void>, ms: number | undefined): Promise<boolean> {
  if (ms === undefined) {
    await p;
    return true;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  try {
    return await Promise.race([p.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A worker's script that registers tsx's loader (resolved from this package, whatever the working directory) and loads `entry`. */
function tsxBootstrap(entry: URL): string {
  // The ESM entry of `tsx/esm/api`, as tsx's own exports map names it.
  const pkgPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const api = pathToFileURL(join(dirname(pkgPath), pkg.exports['./esm/api'].import.default)).href;
  return `(async () => { (await import(${JSON.stringify(api)})).register(); await import(${JSON.stringify(entry.href)}); })();`;
}
