/**
 * Runs a BoPF scenario under one policy on the CapacityScheduler-like allocator and reports what
 * the paper measures: mean LQ and TQ job completion times, and each queue's long-term share of
 * the cluster (time-averaged dominant share) plus a share-over-time series for plots.
 */
import { getPolicy } from '../../policies/index.js';
import { capacityAllocatorWith, createCapacityAllocator } from '../capacity-allocator.js';
import type { PreemptionOptions, PreemptionStats } from '../preemption-monitor.js';
import { Simulator } from '../engine.js';
import { bopfPolicyParams, type BopfScenario } from './bopf.js';

export interface BopfRunOptions {
  /** Policy cycle period (ms); undefined = event-driven. Default 1000 (YARN's FairScheduler updates every 500 ms). */
  readonly policyPeriodMs?: number | null;
  /** Share sampling step, ms. Default 2000. */
  readonly sampleMs?: number;
  readonly seed?: number;
  /** Extra policy parameters. */
  readonly params?: Record<string, unknown>;
  /** Stop the run at this virtual time (ms) even if jobs remain. */
  readonly untilMs?: number;
  /** Model CapacityScheduler's preemption monitor (3.4.1 defaults for what is left out); off when undefined. */
  readonly preemption?: Partial<PreemptionOptions>;
}

export interface BopfRunResult {
  readonly policy: string;
  readonly workload: string;
  readonly lq: {
    readonly jobs: number;
    readonly meanCompletion: number;
    readonly completions: number[];
    readonly byQueue: Record<string, { meanCompletion: number; jobs: number }>;
  };
  readonly tq: { readonly jobs: number; readonly meanCompletion: number; readonly unfinished: number };
  /** Time-averaged dominant share per queue over [0, end of the last LQ period]. */
  readonly longTermShares: Record<string, number>;
  /** Admission classes (bopf / nbopf). */
  readonly admission?: Record<string, string>;
  readonly timeline: { readonly tS: number[]; readonly shares: Record<string, number[]> };
  readonly makespanS: number;
  readonly wallSeconds: number;
  readonly decisionCycles: number;
  /** What the preemption monitor did, when it was on. */
  readonly preemption?: PreemptionStats;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

export function runBopfScenario(s: BopfScenario, policyName: string, o: BopfRunOptions = {}): BopfRunResult {
  const policy = getPolicy(policyName);
  if (!policy) throw new Error(`unknown policy ${policyName}`);
  const t0 = performance.now();
  const periodMs = o.policyPeriodMs === null ? undefined : (o.policyPeriodMs ?? 1000);
  const sim = new Simulator({
    workload: s.workload,
    seed: o.seed ?? 1,
    policy,
    params: bopfPolicyParams(policyName, s, o.params),
    allocator: o.preemption ? capacityAllocatorWith({ preemption: o.preemption }) : createCapacityAllocator,
    ...(periodMs !== undefined ? { periodMs } : {}),
  });
  const paths = [...s.lqQueues, ...s.tqQueues];
  const step = o.sampleMs ?? 2000;
  let lastLq = 0;
  for (const j of s.workload.jobs) if (j.tags?.['bopf.kind'] === 'LQ') lastLq = Math.max(lastLq, j.arrivalMs);
  const lqPeriod = s.queueSpecs.find((q) => q.kind === 'LQ')?.periodMs ?? 0;
  const shareEnd = lastLq + lqPeriod;
  const tS: number[] = [];
  const shares: Record<string, number[]> = Object.fromEntries(paths.map((p) => [p, []]));
  const integral: Record<string, number> = Object.fromEntries(paths.map((p) => [p, 0]));
  const cap = sim.totalCapacity;
  for (let t = 0; !sim.done; t += step) {
    if (o.untilMs !== undefined && t > o.untilMs) break;
    sim.runUntil(t);
    tS.push(t / 1000);
    for (const p of paths) {
      const q = sim.queues.get(p);
      const share = q ? Math.max(q.used.vcores / cap.vcores, q.used.memoryMB / cap.memoryMB) : 0;
      shares[p].push(share);
      if (t < shareEnd) integral[p] += share * step;
    }
  }
  if (o.untilMs === undefined) sim.run();
  const lqDone: number[] = [];
  const byQueue: Record<string, number[]> = {};
  const tqDone: number[] = [];
  let tqUnfinished = 0;
  sim.records.forEach((r, i) => {
    const job = s.workload.jobs[i];
    const kind = job.tags?.['bopf.kind'];
    if (!r || r.finishMs === undefined) {
      if (kind === 'TQ') tqUnfinished++;
      return;
    }
    const c = (r.finishMs - r.arrivalMs) / 1000;
    if (kind === 'LQ') {
      lqDone.push(c);
      (byQueue[job.queue!] ??= []).push(c);
    } else tqDone.push(c);
  });
  const preemption = (sim.allocator as { preemption?: PreemptionStats }).preemption;
  const state = (sim as unknown as { policyState?: { book?: { queues: { spec: { name: string }; cls: string }[] } } }).policyState;
  const admission = state?.book ? Object.fromEntries(state.book.queues.map((q) => [q.spec.name, q.cls])) : undefined;
  return {
    policy: policyName,
    workload: s.workload.name,
    lq: {
      jobs: lqDone.length,
      meanCompletion: mean(lqDone),
      completions: lqDone,
      byQueue: Object.fromEntries(Object.entries(byQueue).map(([q, xs]) => [q, { meanCompletion: mean(xs), jobs: xs.length }])),
    },
    tq: { jobs: tqDone.length, meanCompletion: mean(tqDone), unfinished: tqUnfinished },
    longTermShares: Object.fromEntries(paths.map((p) => [p, shareEnd > 0 ? integral[p] / shareEnd : 0])),
    ...(admission ? { admission } : {}),
    timeline: { tS, shares },
    makespanS: sim.lastFinishMs / 1000,
    wallSeconds: (performance.now() - t0) / 1000,
    decisionCycles: sim.decisionCalls,
    ...(preemption ? { preemption: { ...preemption } } : {}),
  };
}
