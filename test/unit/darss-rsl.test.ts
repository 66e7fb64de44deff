import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import { criticalPathMs, jobsInOrder, parseWorkflow, taskChainLength, unitsIn, workUnitMs } from '../../src/core/rsl.js';

const job = (name: string, extra: Record<string, unknown> = {}) => ({ name, tasks: 2, leaseMs: 1000, ...extra });

function fieldOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).field;
  }
  throw new Error('no error');
}

describe('RSL workflow requests', () => {
  it('fills defaults: one unit per task, no prerequisites, group default', () => {
    const w = parseWorkflow({ deadlineMs: 10_000, jobs: [job('a')] });
    expect(w.group).toBe('default');
    expect(w.jobs[0]).toMatchObject({ unitsPerTask: 1, prerequisites: [] });
  });

  it('a request without a deadline is best-effort and may not carry job deadlines', () => {
    expect(parseWorkflow({ jobs: [job('a')] }).deadlineMs).toBeUndefined();
    expect(fieldOf(() => parseWorkflow({ jobs: [job('a', { deadlineMs: 5 })] }))).toBe('jobs[0].deadlineMs');
  });

  it('names the field of an unknown prerequisite', () => {
    expect(fieldOf(() => parseWorkflow({ deadlineMs: 1, jobs: [job('a'), job('b', { prerequisites: ['a', 'zz'] })] }))).toBe('jobs[1].prerequisites[1]');
  });

  it('names the prerequisites of a job on a cycle', () => {
    const f = fieldOf(() =>
      parseWorkflow({ deadlineMs: 1, jobs: [job('a', { prerequisites: ['c'] }), job('b', { prerequisites: ['a'] }), job('c', { prerequisites: ['b'] })] }),
    );
    expect(f).toMatch(/^jobs\[\d\]\.prerequisites$/);
    expect(() =>
      parseWorkflow({ deadlineMs: 1, jobs: [job('a', { prerequisites: ['c'] }), job('b', { prerequisites: ['a'] }), job('c', { prerequisites: ['b'] })] }),
    ).toThrow(/cycle/);
  });

  it('rejects a cycle among the tasks of a job and a task that does not exist', () => {
    expect(fieldOf(() => parseWorkflow({ deadlineMs: 1, jobs: [job('a', { tasks: 3, taskPrerequisites: { '1': [2], '2': [1] } })] }))).toBe(
      'jobs[0].taskPrerequisites',
    );
    expect(fieldOf(() => parseWorkflow({ deadlineMs: 1, jobs: [job('a', { tasks: 3, taskPrerequisites: { '4': [1] } })] }))).toBe(
      'jobs[0].taskPrerequisites.4',
    );
  });

  it('rejects a repeated job name and a job deadline after the workflow deadline', () => {
    expect(fieldOf(() => parseWorkflow({ deadlineMs: 9, jobs: [job('a'), job('a')] }))).toBe('jobs[1].name');
    expect(fieldOf(() => parseWorkflow({ deadlineMs: 9, jobs: [job('a', { deadlineMs: 10 })] }))).toBe('jobs[0].deadlineMs');
  });

  it('rejects a deadline in the past and a task larger than any node', () => {
    expect(fieldOf(() => parseWorkflow({ deadlineMs: 1000, jobs: [job('a')] }, { nowMs: 1000 }))).toBe('deadlineMs');
    expect(fieldOf(() => parseWorkflow({ deadlineMs: 9000, jobs: [job('a'), job('b', { unitsPerTask: 13 })] }, { nowMs: 0, largestNodeUnits: 12 }))).toBe(
      'jobs[1].unitsPerTask',
    );
    expect(() => parseWorkflow({ deadlineMs: 9000, jobs: [job('b', { unitsPerTask: 12 })] }, { nowMs: 0, largestNodeUnits: 12 })).not.toThrow();
  });

  it('orders jobs after their prerequisites and measures the critical path and the work', () => {
    // Fig. 3.6: job2 after job1, job3 independent; job3 is a chain of three tasks.
    const w = parseWorkflow({
      deadlineMs: 10,
      jobs: [
        { name: 'j2', tasks: 4, leaseMs: 1, prerequisites: ['j1'] },
        { name: 'j1', tasks: 4, leaseMs: 1, taskPrerequisites: { '3': [1], '4': [1] } },
        { name: 'j3', tasks: 3, leaseMs: 1, taskPrerequisites: { '2': [1], '3': [2] } },
      ],
    });
    expect(jobsInOrder(w).map((j) => j.name)).toEqual(['j1', 'j3', 'j2']);
    expect(w.jobs.map(taskChainLength)).toEqual([1, 2, 3]);
    expect(criticalPathMs(w)).toBe(3);
    expect(workUnitMs(w)).toBe(11);
  });

  it('counts whole units in a node: the smaller of cores and GB', () => {
    expect(unitsIn({ vcores: 6, memoryMB: 4096 })).toBe(4);
    expect(unitsIn({ vcores: 12, memoryMB: 16384 })).toBe(12);
    expect(unitsIn({ vcores: 6, memoryMB: 8192 }, { vcores: 2, memoryMB: 1024 })).toBe(3);
  });
});
