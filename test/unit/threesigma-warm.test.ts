import { describe, expect, it } from 'vitest';
import { historyRecordSchema, normaliseName, type HistoryRecord } from '../../src/core/history.js';
import type { JobDescription } from '../../src/policies/threesigma/features.js';
import { emptyPredictor, learnRuntime, predictRuntime, predictorParamsSchema } from '../../src/policies/threesigma/predictor.js';
import { jobOfRecord, warmPredictor } from '../../src/policies/threesigma/warm.js';

const params = predictorParamsSchema.parse({});
const T0 = Date.UTC(2026, 10, 1, 6, 0, 0);

let seq = 0;
function record(o: { user: string; name: string; runtimeMs?: number; outcome?: HistoryRecord['outcome']; finishedAtMs: number }): HistoryRecord {
  seq++;
  const launchedAtMs = o.runtimeMs === undefined ? undefined : o.finishedAtMs - o.runtimeMs;
  const submittedAtMs = (launchedAtMs ?? o.finishedAtMs) - 1_000;
  const outcome = o.outcome ?? 'succeeded';
  return historyRecordSchema.parse({
    v: 1,
    appId: `application_1795254945306_${String(seq).padStart(4, '0')}`,
    user: o.user,
    queue: 'root.default',
    name: o.name,
    nameKey: normaliseName(o.name),
    applicationType: 'MAPREDUCE',
    tags: {},
    priority: 0,
    submittedAtMs,
    submitHourUtc: new Date(submittedAtMs).getUTCHours(),
    ...(launchedAtMs !== undefined ? { launchedAtMs, runtimeMs: o.runtimeMs, waitMs: 1_000 } : {}),
    finishedAtMs: o.finishedAtMs,
    state: outcome === 'succeeded' ? 'FINISHED' : outcome === 'failed' ? 'FAILED' : 'KILLED',
    outcome,
    source: 'rm',
    recordedAtMs: o.finishedAtMs,
  });
}

/** Two recurring jobs a day for ten days, and runs that must not teach anything. */
function history(): HistoryRecord[] {
  const out: HistoryRecord[] = [];
  for (let d = 0; d < 10; d++) {
    const day = T0 + d * 86_400_000;
    out.push(record({ user: 'alice', name: `etl-2026-11-${String(d + 1).padStart(2, '0')}`, runtimeMs: 600_000, finishedAtMs: day + 700_000 }));
    out.push(record({ user: 'bob', name: `report ${d}`, runtimeMs: 60_000, finishedAtMs: day + 3_600_000 }));
  }
  // Killed ones stopped early, and one never launched: neither is how long the job takes.
  out.push(record({ user: 'alice', name: 'etl-2026-11-11', runtimeMs: 5_000, outcome: 'killed', finishedAtMs: T0 + 10 * 86_400_000 }));
  out.push(record({ user: 'bob', name: 'report 10', outcome: 'failed', finishedAtMs: T0 + 10 * 86_400_000 + 1 }));
  return out;
}

/** How the live policy describes a new run of a job (the size is known there, and the type is not). */
function liveJob(user: string, name: string): JobDescription {
  return {
    user,
    queue: 'root.default',
    name,
    tags: {},
    containers: 8,
    containerMemoryMB: 1024,
    containerVcores: 1,
    submittedAtMs: T0 + 20 * 86_400_000,
    priority: 0,
  };
}

describe('3Sigma predictor warmed from history records', () => {
  it('predicts the recorded runtimes of recurring jobs', () => {
    const { predictor, learned, skipped } = warmPredictor(history(), params);
    expect(learned).toBe(20);
    expect(skipped).toBe(2);
    const etl = predictRuntime(predictor, liveJob('alice', 'etl-2026-12-01'), params)!;
    expect(etl.fallback).toBe(false);
    expect(etl.pointEstimateMs).toBe(600_000);
    expect(etl.distribution.valuesMs).toEqual([600_000]);
    expect(etl.nmae).toBe(0);
    const report = predictRuntime(predictor, liveJob('bob', 'report 11'), params)!;
    expect(report.pointEstimateMs).toBe(60_000);
    expect(report.distribution.valuesMs).toEqual([60_000]);
  });

  it('learns in the order the applications ended, whatever order the records come in', () => {
    const records = history();
    const shuffled = [...records].reverse();
    shuffled.push(shuffled.splice(3, 1)[0]);
    expect(warmPredictor(shuffled, params).predictor).toEqual(warmPredictor(records, params).predictor);
  });

  it('is what learning each finished run in turn gives, and leaves the starting state alone', () => {
    const records = history();
    const byHand = emptyPredictor();
    for (const r of [...records].sort((a, b) => a.finishedAtMs - b.finishedAtMs)) {
      if (r.outcome === 'succeeded' && r.runtimeMs !== undefined) learnRuntime(byHand, jobOfRecord(r), r.runtimeMs, params);
    }
    const start = emptyPredictor();
    expect(warmPredictor(records, params, {}, start).predictor).toEqual(byHand);
    expect(start).toEqual(emptyPredictor());
  });

  it('learns other outcomes only when asked to', () => {
    const { learned, skipped } = warmPredictor(history(), params, { outcomes: ['succeeded', 'killed'] });
    expect(learned).toBe(21);
    // The failed run never launched: it has no runtime to learn.
    expect(skipped).toBe(1);
  });

  it('gives a record of unknown size no task-count or container-size feature', () => {
    const job = jobOfRecord(history()[0]);
    expect(job.containers).toBeUndefined();
    expect(job.applicationType).toBe('MAPREDUCE');
  });
});
