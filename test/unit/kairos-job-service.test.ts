/** kairos-plus (not in the paper): LAS by job (`jobServiceRank`, `job-service.ts`). */
import { describe, expect, it } from 'vitest';
import { S, app, node, snap, targets, kinds, type C } from './policy-fixtures.js';
import type { ClusterSnapshot } from '../../src/core/model.js';
import { kairosPolicy, kairosParamsSchema, type KairosState } from '../../src/policies/kairos/index.js';
import { jobServiceAt } from '../../src/policies/kairos/job-service.js';
import { ChangeTracker } from '../../src/engine/change-tracking.js';

const params = (p: Record<string, unknown> = {}) => kairosParamsSchema.parse(p);
const tracking = new ChangeTracker();

function run(snapshot: ClusterSnapshot, p: Record<string, unknown> = {}, state?: KairosState) {
  const prm = params(p);
  return kairosPolicy.decide({ snapshot, params: prm, state: state ?? kairosPolicy.initialState(prm), tracking });
}

/**
 * Job `big` runs three tasks on n2 and task b on n1 (one core); job `small`'s task s waits on n1
 * with more service of its own than b. Visits at 0 and at b's quantum end (50 s).
 */
function quantumEnd(p: Record<string, unknown>) {
  const n1 = node('n1', 1, 5120);
  const n2 = node('n2', 3, 3 * 5120);
  const apps = [app('big'), app('small')];
  const cs = (t: number): C[] => [
    { id: 'b', node: 'n1', app: 'big', attained: 10 * S + t, runningSince: 0 },
    { id: 's', node: 'n1', app: 'small', state: 'SUSPENDED', attained: 40 * S },
    ...[1, 2, 3].map((k) => ({ id: `g${k}`, node: 'n2', app: 'big', attained: t, runningSince: 0 })),
  ];
  const first = run(snap(0, [n1, n2], cs(0), { apps }), { monitorIntervalMs: 0, ...p });
  const second = run(snap(50 * S, [n1, n2], cs(50 * S), { apps, changed: [] }), { monitorIntervalMs: 0, ...p }, first.state);
  return { first, second };
}

describe('kairos-plus: LAS by job', () => {
  it('is off by default', () => {
    expect(params().jobServiceRank).toBe(false);
    const { second } = quantumEnd({});
    expect(Object.keys(second.state.jobs)).toHaveLength(0);
  });

  it("a task yields to a waiting task whose job has attained less, though the task's own service is lower", () => {
    // By task: b attained 60 s, s 40 s, less than the W/2 margin apart: b keeps its core.
    const byTask = quantumEnd({});
    expect(kinds(byTask.second.decisions, 'suspendContainer')).toHaveLength(0);
    // By job: big ran four tasks for 50 s (200 s, plus b's 10 s before it was seen), small none
    // since it was seen (s's 40 s): s takes the core.
    const byJob = quantumEnd({ jobServiceRank: true });
    expect(targets(byJob.second.decisions, 'suspendContainer')).toEqual(['b']);
    expect(targets(byJob.second.decisions, 'resumeContainer')).toEqual(['s']);
    for (const d of [...kinds(byJob.second.decisions, 'suspendContainer'), ...kinds(byJob.second.decisions, 'resumeContainer')])
      expect(d.rule).toBe('rankByJobService');
    expect(kinds(byJob.second.decisions, 'suspendContainer')[0].reason).toContain('its job 210 s; s waits and its job attained 40 s');
    const jobs = byJob.second.state.jobs;
    expect(jobServiceAt(jobs.big, 50 * S)).toBe(210 * S);
    expect(jobServiceAt(jobs.small, 50 * S)).toBe(40 * S);
    // After the swap, b no longer counts as running and s does.
    expect(jobs.big.running).toBe(3);
    expect(jobs.small.running).toBe(1);
  });

  it('keeps counting through a reload from JSON, and forgets a job that left at the next sweep', () => {
    const { second } = quantumEnd({ jobServiceRank: true });
    const reloaded = JSON.parse(JSON.stringify(second.state)) as KairosState;
    const p = { monitorIntervalMs: 0, jobServiceRank: true, sweepIntervalMs: 60 * S };
    const n1 = node('n1', 1, 5120);
    const n2 = node('n2', 3, 3 * 5120);
    // At 100 s big's tasks have ended and big has left; small's s runs on n1.
    const later = run(
      snap(100 * S, [n1, n2], [{ id: 's', node: 'n1', app: 'small', attained: 90 * S, runningSince: 50 * S }], { apps: [app('small')], changed: ['n1', 'n2'] }),
      p,
      reloaded,
    );
    expect(later.state.jobs.big).toBeUndefined();
    expect(jobServiceAt(later.state.jobs.small, 100 * S)).toBe(90 * S);
  });

  it('reads a state of layout 7 (no job entries) and starts counting', () => {
    const { second } = quantumEnd({});
    const old = JSON.parse(JSON.stringify({ ...second.state, layout: 7 })) as Record<string, unknown>;
    delete old.jobs;
    const n1 = node('n1', 1, 5120);
    const out = run(
      snap(60 * S, [n1], [{ id: 'x', node: 'n1', app: 'big', attained: 5 * S, runningSince: 55 * S }], { apps: [app('big')], changed: ['n1'] }),
      { jobServiceRank: true },
      old as unknown as KairosState,
    );
    expect(out.state.layout).toBe(8);
    expect(jobServiceAt(out.state.jobs.big, 60 * S)).toBe(5 * S);
  });
});
