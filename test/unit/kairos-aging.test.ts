/** kairos-plus (not in the paper): LAS with aging (`serviceAgingPct`, `agedService`). */
import { S, app, node, snap, targets, kinds, type C } from './policy-fixtures.js';
import type { ClusterSnapshot } from '../../src/core/model.js';

import { describe, expect, it } from 'vitest';
import { kairosPolicy, kairosParamsSchema, type KairosState } from '../../src/policies/kairos/index.js';
import { agedService } from '../../src/policies/kairos/node-las.js';
import { ChangeTracker } from '../../src/engine/change-tracking.js';

const params = (p: Record<string, unknown> = {}) => kairosParamsSchema.parse(p);
const tracking = new ChangeTracker();

function run(snapshot: ClusterSnapshot, p: Record<string, unknown> = {}, state?: KairosState) {
  const prm = params(p);
  return kairosPolicy.decide({ snapshot, params: prm, state: state ?? kairosPolicy.initialState(prm), tracking });
}

/** One core; job `old` submitted at 0, job `new` at 390 s; the visits at 400 s and at the quantum's end (450 s). */
function quantumEnd(running: C, waiting: C, p: Record<string, unknown>) {
  const n = node('n1', 1, 5120);
  const apps = [app('old', { submittedAtMs: 0 }), app('new', { submittedAtMs: 390 * S })];
  const at = (ranFor: number): C[] => [{ ...running, attained: (running.attained ?? 0) + ranFor, runningSince: 400 * S }, waiting];
  const first = run(snap(400 * S, [n], at(0), { apps }), p);
  return run(snap(450 * S, [n], at(50 * S), { apps, changed: [] }), p, first.state);
}

describe('kairos-plus: LAS with aging', () => {
  it('is off by default and bounded to 0-100 %', () => {
    expect(params().serviceAgingPct).toBe(0);
    expect(params({ serviceAgingPct: 50 }).serviceAgingPct).toBe(50);
    expect(() => params({ serviceAgingPct: -1 })).toThrow();
    expect(() => params({ serviceAgingPct: 101 })).toThrow();
  });

  it('agedService: attained service less the share of the job age; a job older than 100/pct times its service ranks below a new task', () => {
    expect(agedService(100 * S, 400 * S, 0)).toBe(100 * S);
    expect(agedService(100 * S, 400 * S, 50)).toBe(-100 * S);
    expect(agedService(100 * S, 100 * S, 50)).toBeGreaterThan(agedService(0, 0, 50));
    expect(agedService(100 * S, 201 * S, 50)).toBeLessThan(agedService(0, 0, 50));
  });

  it("a task of a job held back long keeps its core where plain LAS would hand it to a new job's task", () => {
    const running: C = { id: 'x', node: 'n1', app: 'old', attained: 100 * S };
    const waiting: C = { id: 'y', node: 'n1', app: 'new', state: 'SUSPENDED', attained: 20 * S };
    // Plain LAS: y has attained 130 s less, more than the W/2 margin: x yields.
    const plain = quantumEnd(running, waiting, { monitorIntervalMs: 0 });
    expect(targets(plain.decisions, 'suspendContainer')).toEqual(['x']);
    expect(kinds(plain.decisions, 'suspendContainer')[0].rule).toBe('swapOnQuantumEnd');
    // Aging 50 %: x's job is 450 s old (150 - 225 = -75 s), y's 60 s (20 - 30 = -10 s): x stays.
    const aged = quantumEnd(running, waiting, { monitorIntervalMs: 0, serviceAgingPct: 50 });
    expect(kinds(aged.decisions, 'suspendContainer')).toHaveLength(0);
    expect(kinds(aged.decisions, 'resumeContainer')).toHaveLength(0);
  });

  it("a waiting task of a job held back long takes the core of a new job's task, a swap plain LAS would not make, under the rule agedService", () => {
    const running: C = { id: 'r', node: 'n1', app: 'new', attained: 0 };
    const waiting: C = { id: 's', node: 'n1', app: 'old', state: 'SUSPENDED', attained: 60 * S };
    // Plain LAS: r attained 50 s, s 60 s: no swap.
    const plain = quantumEnd(running, waiting, { monitorIntervalMs: 0 });
    expect(kinds(plain.decisions, 'suspendContainer')).toHaveLength(0);
    // Aging 50 %: s ranks 60 - 225 = -165 s, r 50 - 30 = 20 s: s takes the core.
    const aged = quantumEnd(running, waiting, { monitorIntervalMs: 0, serviceAgingPct: 50 });
    expect(targets(aged.decisions, 'suspendContainer')).toEqual(['r']);
    expect(targets(aged.decisions, 'resumeContainer')).toEqual(['s']);
    for (const d of [...kinds(aged.decisions, 'suspendContainer'), ...kinds(aged.decisions, 'resumeContainer')]) expect(d.rule).toBe('agedService');
    expect(kinds(aged.decisions, 'suspendContainer')[0].reason).toContain('s waits with -165 s');
  });
});
