/**
 * What became of a plan that a previous process was sending when it stopped (kill -9, power
 * loss): its decisions were recorded durably before the first was sent (`Store.putPlanInFlight`)
 * but their outcomes never reached the journal. The next process journals each of them once, as
 * the ResourceManager shows it now, so that the journal and the cluster agree and nothing the dead
 * process sent goes unrecorded. Nothing is re-sent from here: the next plan starts from what is
 * true, and an action already in effect is a `noop` there.
 */
import { describeAction } from '../core/actions.js';
import type { ClusterSnapshot } from '../core/model.js';
import { isAlreadyTrue } from '../core/reconcile.js';
import type { NewJournalEntry } from '../store/journal.js';
import type { PlanInFlight, PublishedRanking } from '../store/store.js';
import { rankingAlreadyPublished } from './session.js';

export const PLAN_IN_FLIGHT_RULE = 'engine.plan-in-flight';

export function accountForPlanInFlight(
  plan: PlanInFlight,
  snapshot: ClusterSnapshot,
  lastRanking: PublishedRanking | undefined,
  cycleId: string,
): NewJournalEntry[] {
  const agoS = Math.max(0, Math.round((snapshot.nowMs - plan.atMs) / 1000));
  return plan.decisions.map((d) => {
    const inEffect = d.action.kind === 'rankNodes' ? rankingAlreadyPublished(d.action, lastRanking) : isAlreadyTrue(d.action, snapshot);
    const base = {
      cycleId,
      policy: plan.policy,
      rule: PLAN_IN_FLIGHT_RULE,
      action: d.action,
      reason:
        `${describeAction(d.action)}: planned by ${plan.policy} (rule ${d.rule}) in cycle ${plan.cycleId}, ${agoS} s ago, by a process that stopped ` +
        `before journaling what became of it; the policy's reason: ${d.reason}`,
    };
    if (inEffect) return { ...base, result: 'applied', detail: 'in effect on the cluster now: the stopped process sent it' };
    return {
      ...base,
      result: 'failed',
      error:
        d.action.kind === 'rankNodes'
          ? 'not confirmed: the stopped process may not have published this ranking; the next plan publishes its own'
          : 'not in effect on the cluster now: the stopped process did not send it, or the RM did not take it; the next plan decides afresh',
    };
  });
}
