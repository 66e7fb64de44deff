/**
 * Hands the stored history to the running policy: when 3Sigma runs with a predictor that has
 * learned nothing yet, it is warmed from the records (`warmPredictor`), so a new brain predicts
 * from the cluster's past at its first cycle instead of after the first jobs end under it.
 */
import type { Logger } from 'pino';
import { POLICY_NAME, warmPredictor, type ThreeSigmaParams, type ThreeSigmaState } from '../policies/threesigma/index.js';
import type { HistoryStore } from './history.js';

/** The part of the engine this uses: the running policy and a way to change its state. */
export interface PolicyStateHost {
  config(): { name: string; params: unknown };
  changePolicyState<T>(policyName: string, change: (state: unknown) => { changed: boolean; value: T }): Promise<T>;
}

/**
 * Runtimes learned into the running 3Sigma predictor; undefined when another policy runs.
 * A predictor that has learned anything is left alone: it may have learned some of these very
 * applications live, and learning them twice would count them twice.
 */
export async function warmRunningPolicy(host: PolicyStateHost, history: HistoryStore, logger?: Logger): Promise<number | undefined> {
  if (host.config().name !== POLICY_NAME) return undefined;
  const records = await history.list();
  const learned = await host.changePolicyState(POLICY_NAME, (raw) => {
    const state = raw as ThreeSigmaState;
    // Read inside the change: the params and state of this moment, after any switch in between.
    const params = host.config().params as ThreeSigmaParams;
    if (state.predictor.seq > 0 || records.length === 0) return { changed: false, value: 0 };
    const w = warmPredictor(records, params.predictor, {}, state.predictor);
    state.predictor = w.predictor;
    return { changed: w.learned > 0, value: w.learned };
  });
  logger?.info(
    { policy: POLICY_NAME, records: records.length, learned },
    learned > 0 ? 'predictor warmed from the history' : 'predictor not warmed (it has learned already, or no usable record)',
  );
  return learned;
}
