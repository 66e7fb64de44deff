import { describe, expect, it, vi } from 'vitest';
import { simulate } from '../../src/sim/index.js';
import type { JobSpec, Workload } from '../../src/sim/workload.js';
import { DEADLINE_TAG, RUNTIME_TAG, threeSigmaE2EWorkload } from '../../src/sim/workloads/threesigma.js';
import { runThreeSigmaSimulate } from '../../src/sim/workloads/threesigma-cli.js';
import { e2eMetrics, runE2E, variantParams } from '../../src/sim/workloads/threesigma-run.js';

const S = 1000;
const HOUR_MS = 3_600_000;

describe('3sigma-e2e workload', () => {
  const e2e = threeSigmaE2EWorkload({ seed: 5, nodes: 64, durationMs: 2 * HOUR_MS, samples: 10 });
  const jobs = e2e.workload.jobs;

  it('is the same for the same seed and differs for another', () => {
    const again = threeSigmaE2EWorkload({ seed: 5, nodes: 64, durationMs: 2 * HOUR_MS, samples: 10 });
    expect(again.workload.jobs.map((j) => [j.arrivalMs, j.tags?.[RUNTIME_TAG]])).toEqual(jobs.map((j) => [j.arrivalMs, j.tags?.[RUNTIME_TAG]]));
    const other = threeSigmaE2EWorkload({ seed: 6, nodes: 64, durationMs: 2 * HOUR_MS, samples: 10 });
    expect(other.workload.jobs.map((j) => j.arrivalMs)).not.toEqual(jobs.map((j) => j.arrivalMs));
  });

  it('offers the asked load within the window, jobs no larger than the cluster', () => {
    // The last job drawn crosses the target: the offered load is 1.4 plus at most that job's share.
    const load = e2e.offeredNodeMs / (e2e.nodes * e2e.windowMs);
    const last = jobs[jobs.length - 1];
    const lastShare = (Number(last.tags?.[RUNTIME_TAG]) * last.stages[0].workMs.length) / (e2e.nodes * e2e.windowMs);
    expect(load).toBeGreaterThanOrEqual(1.4);
    expect(load).toBeLessThan(1.4 + lastShare);
    const offered = jobs.reduce((a, j) => a + Number(j.tags?.[RUNTIME_TAG]) * j.stages[0].workMs.length, 0);
    expect(offered).toBe(e2e.offeredNodeMs);
    for (const j of jobs) {
      expect(j.arrivalMs).toBeGreaterThanOrEqual(0);
      expect(j.arrivalMs).toBeLessThan(e2e.windowMs);
      expect(j.stages[0].workMs.length).toBeLessThanOrEqual(64);
    }
  });

  it('gives SLO jobs a deadline of (1 + slack) × runtime with slack from 20–80 %, and 75 % of the nodes as preferred', () => {
    const slo = jobs.filter((j) => j.deadlineMs !== undefined);
    expect(slo.length / jobs.length).toBeGreaterThan(0.3);
    expect(slo.length / jobs.length).toBeLessThan(0.7);
    const slacks = new Set<number>();
    for (const j of slo) {
      const runtime = Number(j.tags?.[RUNTIME_TAG]);
      expect(Number(j.tags?.[DEADLINE_TAG])).toBe(j.deadlineMs);
      const slack = Math.round((100 * ((j.deadlineMs as number) - j.arrivalMs - runtime)) / runtime);
      expect([20, 40, 60, 80]).toContain(slack);
      slacks.add(slack);
      expect(j.preferredNodes).toHaveLength(48);
      expect(new Set(j.preferredNodes).size).toBe(48);
      expect(j.offPreferredSlowdown).toBe(1.5);
    }
    expect(slacks.size).toBe(4);
    for (const j of jobs.filter((x) => x.deadlineMs === undefined)) expect(j.preferredNodes).toBeUndefined();
  });

  it('has a history of `samples` runs per template whose names match the run’s recurring jobs', () => {
    expect(e2e.history).toHaveLength(10 * e2e.templates.length);
    const keys = new Set(e2e.history.map((h) => h.nameKey));
    expect(keys.size).toBe(e2e.templates.length);
    for (const j of jobs) expect(keys.has((j.name ?? '').replace(/[0-9]+/g, '#'))).toBe(true);
  });

  it('takes a constant slack, and rejects nonsense', () => {
    const c = threeSigmaE2EWorkload({ seed: 1, nodes: 32, durationMs: HOUR_MS, samples: 0, slackPct: [100] });
    for (const j of c.workload.jobs.filter((x) => x.deadlineMs !== undefined)) {
      const runtime = Number(j.tags?.[RUNTIME_TAG]);
      expect(Math.abs((j.deadlineMs as number) - j.arrivalMs - 2 * runtime)).toBeLessThanOrEqual(1);
    }
    expect(() => threeSigmaE2EWorkload({ load: 0 })).toThrow(/load/);
    expect(() => threeSigmaE2EWorkload({ slackPct: [] })).toThrow(/slack/);
    expect(() => threeSigmaE2EWorkload({ durationMs: 0 })).toThrow(/durationMs/);
  });

  it('reads the deprecated hours as the same window, and refuses hours with durationMs', () => {
    const old = threeSigmaE2EWorkload({ seed: 5, nodes: 64, hours: 2, samples: 10 });
    expect(old.windowMs).toBe(2 * HOUR_MS);
    expect(old.workload.jobs.map((j) => j.arrivalMs)).toEqual(jobs.map((j) => j.arrivalMs));
    expect(() => threeSigmaE2EWorkload({ hours: 2, durationMs: 2 * HOUR_MS })).toThrow(/hours is replaced by durationMs/);
  });
});

/** One job of `tasks` one-slot tasks of `taskS` seconds. */
function oneSlotJob(name: string, arrivalS: number, taskS: number, tasks: number, extra: Partial<JobSpec> = {}): JobSpec {
  return { name, arrivalMs: arrivalS * S, stages: [{ resource: { memoryMB: 1024, vcores: 1 }, workMs: new Array<number>(tasks).fill(taskS * S) }], ...extra };
}

describe('preferred nodes in the simulator', () => {
  it('places a job on a free preferred node, and runs it 1.5× longer elsewhere', () => {
    const w: Workload = {
      name: 'preferred',
      cluster: { nodes: 4, cores: 1, memoryMBPerNode: 1024 },
      jobs: [
        oneSlotJob('pref', 0, 100, 1, { preferredNodes: [2], offPreferredSlowdown: 1.5 }),
        // Node 3 only is preferred but taken by `block` until 200 s: the job runs elsewhere, slower.
        oneSlotJob('block', 0, 200, 1, { preferredNodes: [3] }),
        oneSlotJob('elsewhere', 1, 100, 1, { preferredNodes: [3], offPreferredSlowdown: 1.5 }),
      ],
    };
    const r = simulate({ workload: w, policy: 'fifo', seed: 1 });
    const finish = (n: string) => (r.records.find((x) => x?.name === n)?.finishMs ?? NaN) / S;
    expect(finish('pref')).toBe(100);
    expect(finish('block')).toBe(200);
    expect(finish('elsewhere')).toBe(151);
  });
});

describe('Prio (ordering sloFirst)', () => {
  it('preempts a running best-effort job for an SLO job the free capacity cannot hold', () => {
    const w: Workload = {
      name: 'prio',
      cluster: { nodes: 4, cores: 1, memoryMBPerNode: 1024 },
      jobs: [oneSlotJob('be', 0, 100, 4), oneSlotJob('slo', 10, 50, 2, { deadlineMs: 70 * S, tags: { [DEADLINE_TAG]: String(70 * S) } })],
    };
    const r = simulate({ workload: w, policy: 'threesigma', params: { ordering: 'sloFirst' }, seed: 1 });
    const finish = (n: string) => (r.records.find((x) => x?.name === n)?.finishMs ?? NaN) / S;
    // The whole best-effort job is preempted; the SLO job takes two nodes at once, the best-effort
    // job starts again on the other two and on the rest when the SLO job ends.
    expect(finish('slo')).toBe(60);
    expect(r.actions.byKind.killContainer.applied).toBe(4);
    expect(finish('be')).toBe(160);
    // FIFO: the SLO job waits for the best-effort job and misses its deadline.
    const fifo = simulate({ workload: w, policy: 'fifo', seed: 1 });
    expect((fifo.records.find((x) => x?.name === 'slo')?.finishMs ?? NaN) / S).toBe(150);
  });
});

describe('3sigma-e2e runs', () => {
  it('runs every variant to the end on a small cluster, with the metrics in range', { timeout: 300_000 }, () => {
    const e2e = threeSigmaE2EWorkload({ seed: 2, nodes: 8, durationMs: HOUR_MS / 4, samples: 5 });
    for (const v of ['3sigma', 'point-perfect', 'point-real', 'prio', 'no-dist', 'no-oe', 'no-adapt'] as const) {
      const m = runE2E(e2e, v, { seed: 2, periodMs: 60_000 });
      expect(m.unfinished, v).toBe(0);
      expect(m.jobs).toBe(e2e.workload.jobs.length);
      expect(m.slo.missRate).toBeGreaterThanOrEqual(0);
      expect(m.slo.missRate).toBeLessThanOrEqual(1);
      expect(m.goodputMachineHours).toBeGreaterThan(0);
      expect(m.goodputMachineHours).toBeLessThanOrEqual(e2e.offeredNodeMs / 3_600_000 + 1e-9);
      expect(m.historyLearned).toBe(e2e.history.length);
      expect(m.cycle.count).toBeGreaterThan(0);
      if (v === 'prio') expect(m.milp.solves).toBe(0);
      else expect(m.milp.solves).toBeGreaterThan(0);
    }
  });

  it('counts an SLO job late or unfinished as a miss, and goodput only within the window', () => {
    const e2e = threeSigmaE2EWorkload({ seed: 3, nodes: 16, durationMs: HOUR_MS / 2, samples: 0 });
    const jobs = e2e.workload.jobs;
    const records = jobs.map((j, i) => ({
      appId: `a${i}`,
      name: j.name ?? '',
      arrivalMs: j.arrivalMs,
      // Every job finishes exactly at its deadline (SLO) or 60 s after arrival (best effort).
      finishMs: j.deadlineMs ?? j.arrivalMs + 60_000,
      killed: false,
      tasks: 1,
      meanTaskMs: 1,
      idealMs: 1,
      tags: {},
    }));
    const all = e2eMetrics(e2e, records);
    expect(all.slo.missRate).toBe(0);
    expect(all.bestEffort.meanLatencyMs).toBe(60_000);
    const late = e2eMetrics(
      e2e,
      records.map((r, i) => (jobs[i].deadlineMs !== undefined ? { ...r, finishMs: (jobs[i].deadlineMs as number) + 1 } : r)),
    );
    expect(late.slo.missRate).toBe(1);
    expect(late.goodputMachineHours).toBeLessThan(all.goodputMachineHours);
    const none = e2eMetrics(
      e2e,
      records.map((r, i) => (jobs[i].deadlineMs !== undefined ? undefined : r)),
    );
    expect(none.slo.missed).toBe(none.slo.jobs);
    expect(none.unfinished).toBe(none.slo.jobs);
  });

  it('hands each variant its parameters', () => {
    expect(variantParams('point-perfect')).toMatchObject({ runtimeModel: 'tagged', overestimate: { mode: 'off' } });
    expect(variantParams('no-adapt', { overestimate: { threshold: 0.1 } })).toEqual({ overestimate: { mode: 'always', threshold: 0.1 } });
    expect(variantParams('prio')).toEqual({ ordering: 'sloFirst' });
  });
});

describe('schedbrain simulate --workload 3sigma-e2e', () => {
  async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const o = vi.spyOn(process.stdout, 'write').mockImplementation((x) => ((out += String(x)), true));
    const e = vi.spyOn(process.stderr, 'write').mockImplementation((x) => ((err += String(x)), true));
    try {
      return { code: await runThreeSigmaSimulate(argv), out, err };
    } finally {
      o.mockRestore();
      e.mockRestore();
    }
  }

  it('prints the metrics of each system as JSON', async () => {
    const r = await run([
      '--workload',
      '3sigma-e2e',
      '--nodes',
      '8',
      '--duration-ms',
      '900000',
      '--samples',
      '5',
      '--slack',
      '60',
      '--policy',
      'prio,point-real',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as {
      runs: { variant: string; slo: { missRate: number }; goodputMachineHours: number; bestEffort: { meanLatencyMs: number } }[];
    };
    expect(j.runs.map((x) => x.variant)).toEqual(['prio', 'point-real']);
    for (const x of j.runs) {
      expect(x.slo.missRate).toBeGreaterThanOrEqual(0);
      expect(x.goodputMachineHours).toBeGreaterThan(0);
    }
  });

  it('reads the deprecated --hours as --duration-ms with a notice, and refuses both', async () => {
    const small = ['--workload', '3sigma-e2e', '--nodes', '8', '--samples', '5', '--slack', '60', '--policy', 'prio', '--json'];
    const ms = await run([...small, '--duration-ms', '900000']);
    const hours = await run([...small, '--hours', '0.25']);
    expect(hours.code).toBe(0);
    expect(hours.err).toMatch(/--hours \(hours\) is deprecated: read as --duration-ms 900000/);
    const runOf = (out: string) => {
      const { wallMs: _wall, cycle: _cycle, ...rest } = JSON.parse(out) as Record<string, unknown>;
      return rest;
    };
    expect(runOf(hours.out)).toEqual(runOf(ms.out));
    const both = await run([...small, '--duration-ms', '900000', '--hours', '0.25']);
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/--hours \(hours\) is replaced by --duration-ms, which is given too/);
  });

  it('names the flag that is wrong', async () => {
    const r = await run(['--workload', '3sigma-e2e', '--policy', 'tetrisched']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--policy tetrisched/);
    const s = await run(['--workload', '3sigma-e2e', '--slack', 'x']);
    expect(s.code).toBe(2);
    expect(s.err).toMatch(/--slack/);
  });
});
