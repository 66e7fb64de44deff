import { describe, expect, it } from 'vitest';
import { parseWorkflow } from '../../src/core/rsl.js';
import { greedyReservation } from '../../src/policies/rayon/index.js';
import { emptySteps, addSteps, valueAt } from '../../src/policies/shared/step-function.js';

describe('rayon greedy reservation agent', () => {
  it('places each job backward from its deadline in windows of one lease, prerequisites before', () => {
    const plan = emptySteps();
    const w = parseWorkflow({
      deadlineMs: 100,
      jobs: [
        { name: 'a', tasks: 4, leaseMs: 10 },
        { name: 'b', tasks: 2, leaseMs: 20, prerequisites: ['a'] },
      ],
    });
    const r = greedyReservation(plan, 3, w, 0);
    if ('failed' in r) throw new Error(r.failed);
    // b: 2 tasks fit in [80, 100); a: 3 in [70, 80), then 1 in [60, 70).
    expect(r.jobs.b).toEqual({ blocks: [[80, 100, 2]], startMs: 80 });
    expect(r.jobs.a).toEqual({
      blocks: [
        [70, 80, 3],
        [60, 70, 1],
      ],
      startMs: 60,
    });
    expect([valueAt(plan, 65), valueAt(plan, 75), valueAt(plan, 90)]).toEqual([1, 3, 2]);
  });

  it('rejects a workflow whose tasks find no window before now, leaving the plan as it was', () => {
    const plan = emptySteps();
    addSteps(plan, 0, 100, 2);
    const w = parseWorkflow({ deadlineMs: 100, jobs: [{ name: 'a', tasks: 3, leaseMs: 40 }] });
    const r = greedyReservation(plan, 3, w, 0);
    expect('failed' in r && r.failed).toMatch(/job a: 1 of 3 tasks find no window/);
    expect(plan).toEqual({ times: [0, 100], units: [2, 0] });
  });

  it('keeps a job rigid: a task needs a whole lease window under the limit', () => {
    const plan = emptySteps();
    addSteps(plan, 50, 60, 3);
    // One task of 30 ms: [70, 100) is free, so it goes there; a second task would need [40, 70), blocked at [50, 60).
    const w = parseWorkflow({ deadlineMs: 100, jobs: [{ name: 'a', tasks: 2, leaseMs: 30, unitsPerTask: 3 }] });
    const r = greedyReservation(plan, 3, w, 0);
    if ('failed' in r) throw new Error(r.failed);
    expect(r.jobs.a.blocks).toEqual([
      [70, 100, 3],
      [10, 40, 3],
    ]);
  });
});
