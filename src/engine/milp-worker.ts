/**
 * The solver worker (`milp-solver.ts`): loads HiGHS once and runs each request it is sent, one at
 * a time. Mechanism only: what to solve and what the answer means are the policy's.
 */
import { parentPort } from 'node:worker_threads';
import { loadHighsOrReason, runLoadedMilp } from '../core/milp.js';
import type { SolveReply, SolveTask } from './milp-solver.js';

const port = parentPort;
if (!port) throw new Error('milp-worker.ts runs as a worker thread');

const loaded = await loadHighsOrReason();

port.postMessage({ ready: true });
port.on('message', (task: SolveTask) => {
  const outcome = runLoadedMilp(loaded, task.request, ' in the solver worker');
  port.postMessage({ id: task.id, outcome } satisfies SolveReply);
});
