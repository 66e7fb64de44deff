/**
 * V8 settings for trace replays, applied by the commands that replay (`schedbrain simulate`, the
 * benchmark, the reproduction scripts), never by making a simulator: a V8 flag is process-wide.
 *
 * On-stack replacement (OSR) is turned off: code V8 compiled on the spot early in a replay, with
 * feedback from its first cycles only, could be entered and dropped again thousands of times
 * (docs/benchmarks.md, "V8's on-stack replacement and warm-up"). A replay's hot functions are
 * called thousands of times and get optimised whole all the same.
 * `SCHEDBRAIN_SIM_OSR=1` keeps V8's default.
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
