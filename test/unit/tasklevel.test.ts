import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/sim/rng.js';
import { loadEagleTrace } from '../../src/sim/workloads/eagle.js';
import type { Workload } from '../../src/sim/workload.js';
import {
  TaskLevelEngine,
  createEagle,
  createPigeon,
  distributeTasks,
  pigeonGroups,
  pigeonParamsSchema,
  probeCount,
  runTaskLevel,
  sampleWorkers,
  serveFreedWorker,
  taskJobs,
  type DecisionRecord,
} from '../../src/sim/tasklevel/index.js';

/** A workload of one-slot tasks: arrival and task durations in seconds, short below `cutoffS`. */
function workload(jobs: { atS: number; tasksS: number[] }[], cutoffS = 10): Workload {
  return {
    name: 'hand',
    cutoffMs: cutoffS * 1000,
    jobs: jobs.map((j, i) => ({
      arrivalMs: j.atS * 1000,
      name: `j${i}`,
      stages: [{ resource: { memoryMB: 1024, vcores: 1 }, workMs: j.tasksS.map((s) => s * 1000) }],
      tags: { 'schedbrain.estimate-ms': String((1000 * j.tasksS.reduce((a, b) => a + b, 0)) / j.tasksS.length) },
    })),
  };
}

const TRACE = '../shared/traces/yahoo-sub-3363.tr';

describe('one short job on an idle cluster', () => {
  const w = workload([{ atS: 1, tasksS: [3, 5] }]);
  it('Pigeon: its longest task plus distributor → master → worker → distributor (3 delays)', () => {
    const r = runTaskLevel({ workload: w, scheduler: 'pigeon', workers: 200, perJob: true });
    expect(r.perJob?.[0].jctS).toBeCloseTo(5 + 0.0015, 9);
    expect(r.zeroQueueingShare).toBe(1);
  });
  it('Sparrow and Eagle: plus probe, task request, task and result (4 delays)', () => {
    for (const scheduler of ['sparrow', 'eagle'] as const) {
      const r = runTaskLevel({ workload: w, scheduler, workers: 200, perJob: true });
      expect(r.perJob?.[0].jctS).toBeCloseTo(5 + 0.002, 9);
    }
  });
  it('Eagle places a long job centrally and late-binds its tasks (4 delays)', () => {
    const r = runTaskLevel({ workload: workload([{ atS: 0, tasksS: [20, 30] }]), scheduler: 'eagle', workers: 100, perJob: true });
    expect(r.long.count).toBe(1);
    expect(r.perJob?.[0].jctS).toBeCloseTo(30 + 0.002, 9);
  });
  it('the delay is a parameter', () => {
    const r = runTaskLevel({ workload: w, scheduler: 'pigeon', workers: 200, params: { networkDelayMs: 2 }, perJob: true });
    expect(r.perJob?.[0].jctS).toBeCloseTo(5 + 0.006, 9);
  });
});

describe('Pigeon', () => {
  it('splits an F-task job ⌊F/G⌋ to every master and the rest to distinct random masters', () => {
    const rng = new Rng(3);
    const masters = distributeTasks(73, 30, rng);
    const perMaster = new Array<number>(30).fill(0);
    for (const m of masters) perMaster[m]++;
    expect(perMaster.every((n) => n === 2 || n === 3)).toBe(true);
    expect(perMaster.filter((n) => n === 3)).toHaveLength(13);
    const small = distributeTasks(5, 30, rng);
    expect(new Set(small).size).toBe(5);
  });

  it('a reserved worker never takes a long task; a short job arriving behind a long burst starts at once on one', () => {
    // One group of 4 workers, 2 reserved; a long job of 10 tasks, then a short job.
    const w = workload([
      { atS: 0, tasksS: new Array(10).fill(100) },
      { atS: 1, tasksS: [2, 2] },
    ]);
    const decisions: DecisionRecord[] = [];
    const r = runTaskLevel({
      workload: w,
      scheduler: 'pigeon',
      workers: 4,
      params: { groupSize: 4, reservedPerGroup: 2 },
      onDecision: (d) => decisions.push(d),
      perJob: true,
    });
    expect(r.unfinished).toBe(0);
    const { isReserved } = pigeonGroups(4, 4, 2);
    const longOnReserved = decisions.filter((d) => d.job === 0 && d.worker >= 0 && isReserved[d.worker] === 1 && d.rule !== 'pigeon.reservedIdles');
    expect(longOnReserved).toEqual([]);
    expect(decisions.filter((d) => d.job === 1).map((d) => d.rule)).toEqual(['pigeon.distribute', 'pigeon.reservedWorker', 'pigeon.reservedWorker']);
    expect(r.perJob?.[1].jctS).toBeCloseTo(2 + 0.0015, 9);
    // The long job ran 2 tasks at a time on the general workers: 5 waves of 100 s.
    expect(r.perJob?.[0].jctS).toBeGreaterThan(500);
  });

  it('W = ∞ serves every waiting short task before a long one; finite W gives long work one turn in W', () => {
    const { masters } = pigeonGroups(2, 2, 0);
    const m = masters[0];
    const run = {} as never;
    const fill = (): void => {
      for (let k = 0; k < 5; k++) m.high.push({ run, task: k });
      for (let k = 0; k < 5; k++) m.low.push({ run, task: 100 + k });
    };
    fill();
    const strict = Array.from({ length: 10 }, () => serveFreedWorker(m, 0, false, Infinity).rule);
    expect(strict).toEqual([...new Array(5).fill('pigeon.wfqHigh'), ...new Array(5).fill('pigeon.wfqLow')]);
    fill();
    const w3 = Array.from({ length: 6 }, () => serveFreedWorker(m, 0, false, 3).rule);
    expect(w3).toEqual(['pigeon.wfqHigh', 'pigeon.wfqHigh', 'pigeon.wfqLow', 'pigeon.wfqHigh', 'pigeon.wfqHigh', 'pigeon.wfqLow']);
  });

  it('a freed reserved worker takes only short tasks and otherwise idles', () => {
    const { masters } = pigeonGroups(2, 2, 1);
    const m = masters[0];
    m.low.push({ run: {} as never, task: 0 });
    expect(serveFreedWorker(m, 0, true, Infinity).rule).toBe('pigeon.reservedIdles');
    expect(m.low.size).toBe(1);
  });

  it('under strict priority, queued long tasks wait while short tasks keep arriving (event level)', () => {
    // 2 general workers busy with 10 s long tasks, 2 more long tasks queued; short jobs then arrive.
    const w = workload([
      { atS: 0, tasksS: [10, 10, 10, 10] },
      { atS: 1, tasksS: [1] },
      { atS: 1.5, tasksS: [1] },
    ]);
    const decisions: DecisionRecord[] = [];
    runTaskLevel({ workload: w, scheduler: 'pigeon', workers: 2, params: { groupSize: 2, reservedPerGroup: 0 }, onDecision: (d) => decisions.push(d) });
    const served = decisions.filter((d) => d.rule === 'pigeon.wfqHigh' || d.rule === 'pigeon.wfqLow').map((d) => d.rule);
    expect(served).toEqual(['pigeon.wfqHigh', 'pigeon.wfqHigh', 'pigeon.wfqLow', 'pigeon.wfqLow']);
  });

  it('validates its parameters (W an integer ≥ 1 or inf; reserved workers leave a general one)', () => {
    expect(pigeonParamsSchema.parse({ weight: 'inf' }).weight).toBe(Infinity);
    expect(pigeonParamsSchema.parse({}).weight).toBe(Infinity);
    expect(pigeonParamsSchema.safeParse({ weight: 0 }).success).toBe(false);
    expect(pigeonParamsSchema.safeParse({ weight: 2.5 }).success).toBe(false);
    expect(pigeonParamsSchema.safeParse({ groupSize: 2, reservedPerGroup: 2 }).success).toBe(false);
  });
});

describe('Sparrow', () => {
  it('places d·m reservations on distinct workers and hands out each task once', () => {
    const decisions: DecisionRecord[] = [];
    const r = runTaskLevel({
      workload: workload([{ atS: 0, tasksS: [1, 2, 3, 4, 5] }]),
      scheduler: 'sparrow',
      workers: 50,
      onDecision: (d) => decisions.push(d),
    });
    const reserved = decisions.filter((d) => d.rule === 'sparrow.reserve').map((d) => d.worker);
    expect(reserved).toHaveLength(probeCount(5, 2));
    expect(reserved).toHaveLength(10);
    expect(new Set(reserved).size).toBe(10);
    expect(r.decisions['sparrow.lateBind']).toBe(5);
    expect(r.decisions['sparrow.noTaskLeft']).toBe(5);
  });

  it('the probe ratio is a parameter', () => {
    const r = runTaskLevel({ workload: workload([{ atS: 0, tasksS: [1, 2, 3, 4] }]), scheduler: 'sparrow', workers: 50, params: { probeRatio: 3 } });
    expect(r.decisions['sparrow.reserve']).toBe(12);
  });
});

describe('Eagle', () => {
  it('long tasks never run in the short-only partition; short probes there are the fallback', () => {
    const jobs = [{ atS: 0, tasksS: new Array(40).fill(50) }, ...Array.from({ length: 20 }, (_, i) => ({ atS: 1 + i * 0.1, tasksS: [1, 1, 1] }))];
    const decisions: DecisionRecord[] = [];
    const engine = new TaskLevelEngine({ workers: 50, networkDelayMs: 0.5, seed: 4, onDecision: (d) => decisions.push(d) });
    const eagle = createEagle(engine, {
      probeRatio: 2,
      minProbes: 20,
      probeRounds: 2,
      shortPartitionPct: 100,
      longPartitionPct: 80,
      srpt: true,
      stickyBatchProbing: true,
      slackCap: 5,
      schedulers: 10,
      networkDelayMs: 0.5,
    });
    engine.run(taskJobs(workload(jobs)), eagle);
    expect(eagle.firstLongWorker).toBe(10);
    const longWorkers = decisions.filter((d) => d.job === 0 && d.worker >= 0).map((d) => d.worker);
    expect(longWorkers.length).toBeGreaterThan(0);
    expect(longWorkers.every((w) => w >= 10)).toBe(true);
    // Workers busy with long tasks turn short probes away.
    expect(decisions.some((d) => d.rule === 'eagle.rejectProbe' && d.worker >= 10)).toBe(true);
    expect(decisions.some((d) => d.rule === 'eagle.rejectProbe' && d.worker < 10)).toBe(false);
    expect(engine.runs.every((r) => r.finishMs >= 0)).toBe(true);
  });
});

describe('sampling workers', () => {
  it('draws distinct workers while there are enough, and spreads the rest evenly beyond', () => {
    const rng = new Rng(1);
    const pool = [10, 11, 12, 13, 14];
    expect(new Set(sampleWorkers(rng, pool, 4)).size).toBe(4);
    const many = sampleWorkers(rng, pool, 12);
    const counts = pool.map((w) => many.filter((x) => x === w).length);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(12);
    expect(counts.every((c) => c === 2 || c === 3)).toBe(true);
    expect(counts.filter((c) => c === 3)).toHaveLength(2);
  });
});

describe('the short/long cutoff', () => {
  it('is a parameter in milliseconds, and classifies both the scheduling and the figures', () => {
    const w = workload(
      [
        { atS: 0, tasksS: [4] },
        { atS: 0, tasksS: [8] },
      ],
      10,
    );
    expect(runTaskLevel({ workload: w, scheduler: 'pigeon', workers: 10 }).short.count).toBe(2);
    const r = runTaskLevel({ workload: w, scheduler: 'pigeon', workers: 10, params: { cutoffMs: 5000 } });
    expect([r.short.count, r.long.count, r.cutoffMs]).toEqual([1, 1, 5000]);
    expect(r.decisions['pigeon.generalWorker']).toBe(2);
  });
});

describe('determinism', () => {
  const jobs = Array.from({ length: 60 }, (_, i) => ({ atS: i * 0.7, tasksS: Array.from({ length: 1 + (i % 7) * 5 }, (_, k) => 1 + ((i * 13 + k * 7) % 40)) }));
  for (const scheduler of ['pigeon', 'eagle', 'sparrow'] as const) {
    it(`${scheduler}: the same seed gives the same run`, () => {
      const a = runTaskLevel({
        workload: workload(jobs, 20),
        scheduler,
        workers: 60,
        seed: 9,
        params: scheduler === 'pigeon' ? { groupSize: 20 } : {},
        perJob: true,
      });
      const b = runTaskLevel({
        workload: workload(jobs, 20),
        scheduler,
        workers: 60,
        seed: 9,
        params: scheduler === 'pigeon' ? { groupSize: 20 } : {},
        perJob: true,
      });
      expect(a.perJob).toEqual(b.perJob);
      expect(a.decisions).toEqual(b.decisions);
    });
  }
});

describe('yahoo-sub-3363.tr, first 300 jobs', () => {
  it('every scheduler finishes every job no sooner than its longest task plus its message delays', (ctx) => {
    if (!existsSync(TRACE)) ctx.skip();
    const w = loadEagleTrace(TRACE, { maxJobs: 300 });
    for (const scheduler of ['pigeon', 'eagle', 'sparrow'] as const) {
      const r = runTaskLevel({ workload: w, scheduler, workers: 3000, seed: 2, perJob: true });
      expect(r.jobs).toBe(300);
      expect(r.unfinished).toBe(0);
      const pathS = (scheduler === 'pigeon' ? 3 : 4) * 0.0005;
      for (const j of r.perJob ?? []) expect(j.jctS).toBeGreaterThanOrEqual(j.longestTaskS + pathS - 1e-9);
      expect(r.short.count + r.long.count).toBe(300);
    }
  });

  it('Pigeon never runs a long task on a reserved worker', (ctx) => {
    if (!existsSync(TRACE)) ctx.skip();
    const w = loadEagleTrace(TRACE, { maxJobs: 300 });
    const jobs = taskJobs(w);
    const engine = new TaskLevelEngine({
      workers: 3000,
      networkDelayMs: 0.5,
      seed: 5,
      onDecision: (d) => {
        if (d.worker >= 0 && d.job >= 0 && pigeon.isReserved[d.worker] === 1 && d.rule !== 'pigeon.reservedIdles') expect(jobs[d.job].short).toBe(true);
      },
    });
    const pigeon = createPigeon(engine, pigeonParamsSchema.parse({}));
    engine.run(jobs, pigeon);
    expect(engine.runs.every((r) => r.finishMs >= 0)).toBe(true);
  });
});
