/**
 * A few lines an operator reads first in `GET /v1/state` about the running policy's state: the
 * ledgers and admissions it holds, not the state itself (`GET /v1/policy/state` has all of it).
 */
import type { BopfState } from '../policies/bopf/index.js';
import { valueAt, type DarssState } from '../policies/darss/index.js';
import type { RayonState } from '../policies/rayon/index.js';
import type { ThreeSigmaState } from '../policies/threesigma/index.js';

export function summarizePolicyState(policy: string, state: unknown, nowMs: number): Record<string, unknown> | null {
  if (state === undefined || state === null || typeof state !== 'object') return null;
  switch (policy) {
    case 'darss': {
      const s = state as DarssState;
      const judged = Object.values(s.judged ?? {});
      return {
        capacityUnits: s.ledger.capacityUnits,
        reservedNowUnits: valueAt(s.ledger.production, nowMs),
        ledgerSteps: s.ledger.production.times.length,
        ledgerEndsAtMs: s.ledger.production.times.at(-1) ?? null,
        admitted: Object.keys(s.admitted).length,
        judged: judged.length,
        rejected: judged.filter((d) => !d.accepted).length,
        noLongerFit: Object.keys(s.noLongerFit ?? {}),
      };
    }
    case 'rayon': {
      const s = state as RayonState;
      return {
        capacityUnits: s.capacityUnits,
        reservedNowUnits: valueAt(s.plan, nowMs),
        reservations: Object.keys(s.reservations).length,
        judged: Object.keys(s.judged).length,
      };
    }
    case 'bopf':
    case 'nbopf': {
      const s = state as BopfState;
      return {
        rejectedQueues: Object.keys(s.rejected ?? {}),
        openBursts: Object.entries(s.tracks ?? {})
          .filter(([, t]) => t.open)
          .map(([q]) => q),
      };
    }
    case 'threesigma': {
      const s = state as ThreeSigmaState;
      const jobs = Object.values(s.jobs ?? {});
      return {
        jobs: jobs.length,
        sloJobs: jobs.filter((j) => j.kind === 'slo').length,
        runtimesLearned: s.predictor?.seq ?? 0,
        featureValues: s.predictor?.size ?? 0,
        sloClasses: (s.sloClasses ?? []).map((c) => c.id),
        lastPlan: s.lastPlan ? { atMs: s.lastPlan.atMs, solver: s.lastPlan.solver, status: s.lastPlan.status, pending: s.lastPlan.pending } : null,
      };
    }
    default:
      return null;
  }
}
