/**
 * V8 settings for trace replays.
 *
 * On-stack replacement (OSR) is turned off for the process while it replays traces. OSR compiles
 * a function while one call of it is still running a loop, with the type feedback gathered up to
 * then. Early in a replay, that feedback lacks paths the loop has not taken yet (a node's second
 * visit, a task that finishes), and in Node 20 (V8 11.3) such OSR code stays in use after it
 * drops back to the interpreter on one of them: whenever the function later runs unoptimised for
 * a while (after any deoptimisation), each call enters the OSR code at its loop and drops out
 * again. In the Yahoo replay with Kairos this struck about one run in ten, in the Kairos
 * policy's `decide` or `scheduleNode`, with 500 to 38,000 deoptimisations and up to about a
 * second added to a 1.5 s run; without OSR no run showed more than 160. A replay calls its hot
 * functions thousands of times, so they get optimised code as a whole all the same; what OSR
 * speeds up, one long first call of a function, is nowhere in a replay but the trace parser,
 * whose time did not change measurably.
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
