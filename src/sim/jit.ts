/**
 * V8 settings for trace replays.
 *
 * On-stack replacement (OSR) is turned off for the process while it replays traces. OSR compiles
 * a function while one call of it is still running a loop, with the type feedback gathered up to
 * then. Early in a replay, that feedback lacks paths the loop has not taken yet (a node's second
 * visit, a task that finishes), and in Node 20 (V8 11.3) such OSR code stays in use after it
 * drops back to the interpreter on one of them: whenever the function later runs unoptimised for
 * a while (after any deoptimisation), each call enters the OSR code at its loop and drops out
 * again. Measured on 30 processes of three Yahoo replays with Kairos each (`--trace-deopt`):
 * 19 entered such a loop, in the policy's `decide` or `scheduleNode`, with 1,500 to 99,000
 * drops to the interpreter and up to 1.5 s added to a 1.9 s run; without OSR none did (at most
 * 94 deoptimisations in a process, each followed by new optimised code). A replay calls its hot
 * functions thousands of times, so they get optimised code as a whole all the same; what OSR
 * speeds up, one long first call of a function, a replay does not have (the trace is parsed
 * before the simulator is made, and parsing it without OSR took no measurably longer either).
 *
 * The flag is process-wide: it also applies to the engine and the API when they share the
 * process, where no loop is long enough for OSR to matter. `SCHEDBRAIN_SIM_OSR=1` keeps V8's
 * default (for comparing).
 */
import { setFlagsFromString } from 'node:v8';

let settled = false;

/** Applies the replay settings to this process (once; later calls do nothing). */
export function settleJitForReplays(env: NodeJS.ProcessEnv = process.env): void {
  if (settled) return;
  settled = true;
  if (env.SCHEDBRAIN_SIM_OSR === '1') return;
  try {
    setFlagsFromString('--no-use-osr');
  } catch {
    // A runtime that refuses flag changes replays as before.
  }
}
