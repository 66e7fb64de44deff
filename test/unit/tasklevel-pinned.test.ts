/**
 * The task-level replays of yahoo-sub-3363.tr on 4,000 workers, seed 1, pinned: figures and a
 * digest of every job's completion time as the engine gave them before any change made for speed
 * (2026-11-24). A change to the engine or a scheduler that moves one of them changes results, not
 * only speed.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadEagleTrace } from '../../src/sim/workloads/eagle.js';
import type { Workload } from '../../src/sim/workload.js';
import { repeatWorkload, runTaskLevel, type TaskLevelSchedulerName } from '../../src/sim/tasklevel/index.js';

const TRACE = '../shared/traces/yahoo-sub-3363.tr';

interface Pinned {
  readonly events: number;
  readonly meanS: number;
  readonly shortP99S: number;
  readonly longMeanS: number;
  /** sha256 of every job's completion time (s, 6 decimals), in arrival order, first 16 hex digits. */
  readonly digest: string;
  readonly decisions: Record<string, number>;
}

const PINNED: Record<TaskLevelSchedulerName, Pinned> = {
  pigeon: {
    events: 614_724,
    meanS: 392.9785765894948,
    shortP99S: 249.4063824558221,
    longMeanS: 3549.2486666677105,
    digest: '9e71d8bcf19a41de',
    decisions: {
      'pigeon.distribute': 3363,
      'pigeon.generalIdles': 49960,
      'pigeon.generalWorker': 49960,
      'pigeon.queueHigh': 20150,
      'pigeon.queueLow': 43108,
      'pigeon.reservedIdles': 23811,
      'pigeon.reservedServesHigh': 12026,
      'pigeon.reservedWorker': 23811,
      'pigeon.wfqHigh': 8124,
      'pigeon.wfqLow': 43108,
    },
  },
  eagle: {
    events: 607_242,
    meanS: 389.94115663188165,
    shortP99S: 153.0645035984516,
    longMeanS: 3582.1338114955593,
    digest: '65fd35f350427e1c',
    decisions: {
      'eagle.acceptProbe': 144647,
      'eagle.batchProbe': 3026,
      'eagle.lateBind': 137029,
      'eagle.leastWaitingWorker': 65038,
      'eagle.noTaskLeft': 23484,
      'eagle.rejectProbe': 125555,
      'eagle.reprobe': 2352,
      'eagle.serveLong': 65038,
      'eagle.serveShort': 83357,
      'eagle.shortPartitionFallback': 3,
      'eagle.srptOvertake': 12118,
    },
  },
  sparrow: {
    events: 828_900,
    meanS: 4085.4904478572917,
    shortP99S: 13043.392416953728,
    longMeanS: 4854.044169139025,
    digest: 'a1a3e5e496b9a316',
    decisions: {
      'sparrow.batchSample': 3363,
      'sparrow.lateBind': 137029,
      'sparrow.noTaskLeft': 137029,
      'sparrow.requestTask': 274058,
      'sparrow.reserve': 274058,
    },
  },
};

describe('yahoo-sub-3363.tr on 4,000 workers, seed 1: the pinned replay', () => {
  let yahoo: Workload | undefined;
  for (const scheduler of Object.keys(PINNED) as TaskLevelSchedulerName[]) {
    it(`${scheduler} gives the pinned figures, decisions and completion times`, (ctx) => {
      if (!existsSync(TRACE)) ctx.skip();
      yahoo ??= loadEagleTrace(TRACE);
      const r = runTaskLevel({ workload: yahoo, scheduler, workers: 4000, seed: 1, perJob: true });
      const want = PINNED[scheduler];
      expect(r.jobs).toBe(3363);
      expect(r.unfinished).toBe(0);
      expect(r.events).toBe(want.events);
      expect(r.decisions).toEqual(want.decisions);
      expect(r.jct.mean).toBeCloseTo(want.meanS, 9);
      expect(r.short.p99).toBeCloseTo(want.shortP99S, 9);
      expect(r.long.mean).toBeCloseTo(want.longMeanS, 9);
      const digest = createHash('sha256')
        .update((r.perJob ?? []).map((j) => j.jctS.toFixed(6)).join(','))
        .digest('hex')
        .slice(0, 16);
      expect(digest).toBe(want.digest);
    });
  }
});

describe('repeatWorkload', () => {
  const base: Workload = {
    name: 'three',
    cutoffMs: 1000,
    jobs: [0, 10, 40].map((atS, i) => ({
      arrivalMs: atS * 1000,
      name: `job${i + 1}`,
      stages: [{ resource: { memoryMB: 1024, vcores: 1 }, workMs: Float64Array.of(500) }],
    })),
  };

  it('shifts each copy past the last arrival of the one before by the mean gap, and cuts at the job count', () => {
    const w = repeatWorkload(base, { jobs: 7 });
    expect(w.jobs.map((j) => j.arrivalMs / 1000)).toEqual([0, 10, 40, 60, 70, 100, 120]);
    expect(w.jobs.map((j) => j.name)).toEqual(['job1.0', 'job2.0', 'job3.0', 'job1.1', 'job2.1', 'job3.1', 'job1.2']);
    expect(w.cutoffMs).toBe(1000);
  });

  it('takes a given gap, and refuses a job count that is not a positive integer', () => {
    expect(repeatWorkload(base, { jobs: 4, gapMs: 5000 }).jobs[3].arrivalMs).toBe(45_000);
    expect(() => repeatWorkload(base, { jobs: 0 })).toThrow(RangeError);
    expect(() => repeatWorkload(base, { jobs: 2.5 })).toThrow(RangeError);
  });
});
