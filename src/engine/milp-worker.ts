/**
 * The solver worker (`milp-solver.ts`): loads HiGHS once and runs each request it is sent, one at
 * a time. Mechanism only: what to solve and what the answer means are the policy's.
 */
import { parentPort } from 'node:worker_threads';
import type { Highs } from 'highs';
import { loadHighs, runMilp, type MilpOutcome } from '../core/milp.js';
import type { SolveReply, SolveTask } from './milp-solver.js';

const port = parentPort;
if (!port) throw new Error('milp-worker.ts runs as a worker thread');

let highs: Highs | undefined;
let loadError: string | undefined;
try {
  highs = await loadHighs();
} catch (e) {
  loadError = e instanceof Error ? e.message : String(e);
}

port.postMessage({ ready: true });
port.on('message', (task: SolveTask) => {
  const outcome: MilpOutcome = highs
    ? runMilp(highs, task.request)
    : { solved: false, why: 'failed', error: `HiGHS unavailable in the solver worker: ${loadError ?? 'not loaded'}`, solveMs: 0 };
  port.postMessage({ id: task.id, outcome } satisfies SolveReply);
});
