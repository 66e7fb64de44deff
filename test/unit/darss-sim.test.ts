import { describe, expect, it } from 'vitest';
import { getPolicy } from '../../src/policies/index.js';
import { DARSS_CLUSTER, darssWorkload } from '../../src/sim/workloads/darss.js';
import { darssWorkloadFor, runDarss } from '../../src/sim/workloads/darss-cli.js';
import { darssMetrics, fasterShare, jobOutcome } from '../../src/sim/workloads/darss-metrics.js';
import type { JobRecord } from '../../src/sim/engine.js';

describe('DARSS workloads', () => {
  it('uses the Table 4.4 cluster: 300 nodes, 1,905 cores, 2,262 GB', () => {
    expect(DARSS_CLUSTER.reduce((a, g) => a + g.count, 0)).toBe(300);
    expect(DARSS_CLUSTER.reduce((a, g) => a + g.count * g.cores, 0)).toBe(1905);
    expect(DARSS_CLUSTER.reduce((a, g) => a + g.count * g.memoryMB, 0)).toBe(2262 * 1024);
  });

  it('is the same for the same seed, different for another, with the production share asked for', () => {
    const a = darssWorkload('google2011', { seed: 3, jobs: 400 });
    const b = darssWorkload('google2011', { seed: 3, jobs: 400 });
    const c = darssWorkload('google2011', { seed: 4, jobs: 400 });
    expect(JSON.stringify(a.requests)).toBe(JSON.stringify(b.requests));
    expect(JSON.stringify(a.requests)).not.toBe(JSON.stringify(c.requests));
    const share = (pct: number) => darssWorkload('google2019', { seed: 1, jobs: 2000, productionSharePct: pct }).requests!.length / 2000;
    expect(share(20)).toBeGreaterThan(0.17);
    expect(share(20)).toBeLessThan(0.23);
    expect(share(5)).toBeLessThan(0.07);
  });

  it('gives every production job its workflow deadline and makes j2 wait for j1', () => {
    const w = darssWorkload('google2011', { seed: 2, jobs: 300 });
    for (const j of w.jobs) {
      const rid = j.tags?.['schedbrain.darss.request'];
      if (rid === undefined) {
        expect(j.deadlineMs).toBeUndefined();
        continue;
      }
      const req = (w.requests as { id: string; deadlineMs: number }[]).find((r) => r.id === rid)!;
      expect(j.deadlineMs).toBe(req.deadlineMs);
      if (j.tags?.['schedbrain.darss.job'] === 'j2') expect(w.jobs[j.after![0]].name).toBe(`${rid}.j1`);
      else expect(j.after).toBeUndefined();
    }
  });
});

describe('DARSS metrics', () => {
  const rec = (i: number, arrivalMs: number, finishMs: number, extra: Partial<JobRecord> = {}): JobRecord => ({
    appId: `a${i}`,
    name: `j${i}`,
    arrivalMs,
    finishMs,
    killed: false,
    tasks: 1,
    meanTaskMs: 1,
    idealMs: 1,
    tags: {},
    ...extra,
  });
  const prod = (rid: string) => ({ tags: { 'schedbrain.darss.request': rid }, deadlineMs: 100 });

  it('counts workflows accepted, met and missed, and best-effort latency', () => {
    const records = [
      rec(0, 0, 90, prod('a')),
      rec(1, 0, 100, prod('a')),
      rec(2, 0, 101, prod('b')),
      rec(3, 0, 5, { ...prod('c'), killed: true }),
      rec(4, 0, 10),
      rec(5, 0, 30),
    ];
    expect(records.map(jobOutcome)).toEqual(['met', 'met', 'missed', 'rejected', 'best-effort', 'best-effort']);
    const m = darssMetrics(records);
    expect(m.production).toMatchObject({
      submitted: 3,
      accepted: 2,
      rejected: 1,
      metDeadline: 1,
      missedDeadline: 1,
      acceptanceRate: 2 / 3,
      metDeadlineRate: 0.5,
    });
    expect(m.bestEffort.completed).toBe(2);
    expect(m.bestEffort.meanLatency).toBeCloseTo(0.02);
    expect(m.bestEffort.p50Latency).toBeCloseTo(0.02);
  });

  it('compares best-effort jobs one by one', () => {
    const mine = [rec(0, 0, 10), rec(1, 0, 20), rec(2, 0, 30), rec(3, 0, 5, prod('a'))];
    const other = [rec(0, 0, 20), rec(1, 0, 20), rec(2, 0, 10), rec(3, 0, 50, prod('a'))];
    expect(fasterShare(mine, other)).toEqual({ jobs: 3, faster: 1, slower: 1, share: 1 / 3 });
  });
});

describe('DARSS in the simulator', () => {
  it('meets the deadline of every workflow it accepts, and rejects what cannot fit', () => {
    for (const seed of [1, 2]) {
      const o = { trace: 'google2011' as const, seed, jobs: 250 };
      const { run } = runDarss(darssWorkloadFor(o), getPolicy('darss')!, {}, o);
      expect(run.unfinished).toBe(0);
      expect(run.production.accepted).toBeGreaterThan(0);
      expect(run.production.missedDeadline).toBe(0);
      expect(run.bestEffort.completed).toBeGreaterThan(0);
    }
  });

  it('rejects a workflow that cannot finish in time, with the numbers, and kills its applications', () => {
    const o = { trace: 'google2011' as const, seed: 1, jobs: 150 };
    const w = darssWorkloadFor(o);
    // The first request's deadline moved to one second after it arrives.
    const reqs = (w.requests as { id: string; submittedAtMs: number; deadlineMs: number }[]).map((r, i) =>
      i === 0 ? { ...r, deadlineMs: r.submittedAtMs + 1000 } : r,
    );
    const { result, run } = runDarss({ ...w, requests: reqs }, getPolicy('darss')!, {}, o);
    expect(run.production.rejected).toBeGreaterThanOrEqual(1);
    const first = result.records.filter((r) => r?.tags['schedbrain.darss.request'] === reqs[0].id);
    expect(first.every((r) => jobOutcome(r) === 'rejected')).toBe(true);
  });
});

describe('DARSS state', () => {
  it('is plain JSON: every state of a run survives a JSON round trip unchanged', () => {
    const o = { trace: 'google2011' as const, seed: 1, jobs: 120 };
    const w = darssWorkloadFor(o);
    const policy = getPolicy('darss')!;
    let checked = 0;
    const checking = {
      ...policy,
      decide: (i: Parameters<typeof policy.decide>[0]) => {
        const out = policy.decide(i);
        if (checked++ % 50 === 0) expect(JSON.parse(JSON.stringify(out.state))).toStrictEqual(structuredClone(out.state));
        return out;
      },
    };
    const { run } = runDarss(w, checking, {}, o);
    expect(checked).toBeGreaterThan(50);
    expect(run.production.submitted).toBe(w.requests!.length);
  });
});

describe('DARSS rules', () => {
  it('names every decision and admission after the function that makes it', async () => {
    const darss = (await import('../../src/policies/darss/index.js')) as Record<string, unknown>;
    const o = { trace: 'google2011' as const, seed: 2, jobs: 200 };
    const w = darssWorkloadFor(o);
    // One request that cannot finish in time, so a rejection and its kill are among the rules.
    const reqs = (w.requests as { submittedAtMs: number; deadlineMs: number }[]).map((r, i) => (i === 0 ? { ...r, deadlineMs: r.submittedAtMs + 1000 } : r));
    const policy = getPolicy('darss')!;
    const rules = new Set<string>();
    const recording = {
      ...policy,
      decide: (i: Parameters<typeof policy.decide>[0]) => {
        const out = policy.decide(i);
        for (const d of out.decisions) rules.add(d.rule);
        for (const j of Object.values((out.state as { judged: Record<string, { rule: string }> }).judged)) rules.add(j.rule);
        return out;
      },
    };
    runDarss({ ...w, requests: reqs }, recording, {}, o);
    expect(rules).toContain('criticalPathLongerThanTimeLeft');
    expect(rules).toContain('rejectUnadmittedProduction');
    expect(rules).toContain('productionQueueCapacity');
    expect(rules).toContain('timeToDeadlineOrder');
    for (const r of rules) expect(typeof darss[r], r).toBe('function');
  });
});
