/**
 * The live engine's MILP solver: HiGHS in a worker thread. The event loop goes on while a policy's
 * solve runs, and a solve still running when its time is up (`timeLeftMs`, plus a grace for
 * HiGHS's own time limit to end it) is stopped by terminating the worker: in WebAssembly HiGHS
 * cannot be interrupted otherwise, and it has been seen to run 625 ms past its time limit. The
 * next solve starts a fresh worker. Solves run one at a time, in the order asked.
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
  /** After `timeLeftMs`, how long HiGHS's own time limit is given to end the solve before the worker is stopped, ms. */
  readonly graceMs?: number;
  /** Told when a solve is stopped or the worker fails (the engine logs and counts it). */
  readonly onStop?: (why: 'deadline' | 'failed', detail: string) => void;
}

/** What the solver has done since it was made (for `/v1/state` and tests). */
export interface WorkerMilpSolverStats {
  solves: number;
  stoppedAtDeadline: number;
  notStarted: number;
  workerFailures: number;
  workersStarted: number;
}

const DEFAULT_GRACE_MS = 25;

export class WorkerMilpSolver implements MilpSolver {
  readonly stats: WorkerMilpSolverStats = { solves: 0, stoppedAtDeadline: 0, notStarted: 0, workerFailures: 0, workersStarted: 0 };
  private worker: { readonly thread: Worker; readonly ready: Promise<void> } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 0;
  private closed = false;
  private readonly graceMs: number;

  constructor(private readonly opts: WorkerMilpSolverOptions = {}) {
    this.graceMs = opts.graceMs ?? DEFAULT_GRACE_MS;
  }

  solve(request: MilpRequest): Promise<MilpOutcome> {
    const askedAtMs = performance.now();
    const run = this.queue.then(() => this.solveOne(request, askedAtMs));
    this.queue = run.catch(() => undefined);
    return run;
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
    let worker: Worker;
    try {
      const w = this.ensureWorker();
      await w.ready;
      worker = w.thread;
    } catch (e) {
      return this.failed(`solver worker did not start: ${e instanceof Error ? e.message : String(e)}`, 0);
    }
    // Time spent waiting behind another solve, or for a worker to load HiGHS, comes off this one's.
    const waitedMs = performance.now() - askedAtMs;
    const timeLeftMs = request.timeLeftMs === undefined ? undefined : request.timeLeftMs - waitedMs;
    if (timeLeftMs !== undefined && timeLeftMs < (request.minSolveMs ?? 0)) {
      this.stats.notStarted++;
      const error = `${Math.max(0, timeLeftMs).toFixed(0)} ms left after ${waitedMs.toFixed(0)} ms waiting for the solver, a solve needs ${request.minSolveMs ?? 0} ms`;
      this.opts.onStop?.('deadline', error);
      return { solved: false, why: 'deadline', error, solveMs: 0 };
    }
    const id = ++this.nextId;
    const sentAtMs = performance.now();
    this.stats.solves++;
    return new Promise<MilpOutcome>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (outcome: MilpOutcome): void => {
        if (timer) clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        resolve(outcome);
      };
      const onMessage = (reply: SolveReply): void => {
        if ('id' in reply && reply.id === id) done(reply.outcome);
      };
      const onError = (e: Error): void => done(this.failed(`solver worker failed: ${e.message}`, performance.now() - sentAtMs));
      const onExit = (code: number): void => done(this.failed(`solver worker exited (code ${code})`, performance.now() - sentAtMs));
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      if (timeLeftMs !== undefined)
        timer = setTimeout(
          () => {
            const ranMs = performance.now() - sentAtMs;
            worker.off('exit', onExit);
            this.stats.stoppedAtDeadline++;
            // A fresh worker loads HiGHS while the cycle goes on, ready for the next solve.
            this.discard(worker);
            if (!this.closed) this.ensureWorker();
            const error = `solve stopped after ${ranMs.toFixed(0)} ms, at the end of the ${Math.max(0, timeLeftMs).toFixed(0)} ms it had`;
            this.opts.onStop?.('deadline', error);
            done({ solved: false, why: 'deadline', error, solveMs: ranMs });
          },
          Math.max(0, timeLeftMs) + this.graceMs,
        );
      worker.postMessage({ id, request: timeLeftMs === undefined ? request : { ...request, timeLeftMs } } satisfies SolveTask);
    });
  }

  /** Starts the worker (HiGHS loads in it) before the first solve needs it. */
  warm(): Promise<void> {
    return this.ensureWorker().ready;
  }

  private failed(error: string, solveMs: number): MilpOutcome {
    this.stats.workerFailures++;
    this.opts.onStop?.('failed', error);
    return { solved: false, why: 'failed', error, solveMs };
  }

  private ensureWorker(): { readonly thread: Worker; readonly ready: Promise<void> } {
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
    this.worker = { thread, ready };
    this.stats.workersStarted++;
    return this.worker;
  }

  private discard(thread: Worker): void {
    if (this.worker?.thread === thread) this.worker = undefined;
    void thread.terminate().catch(() => undefined);
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
