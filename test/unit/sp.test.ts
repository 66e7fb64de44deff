import { describe, expect, it } from 'vitest';
import type { AppView } from '../../src/core/model.js';
import { bopfQueues } from './bopf-queues.js';
import { spPolicy } from '../../src/policies/sp/index.js';

const C = { vcores: 10, memoryMB: 10_240 };
const { leaf, app: appOf, snapshotWith } = bopfQueues(C);
/** An app of `pending` containers, none running. */
const app = (id: string, queue: string, pending: number): AppView => appOf(id, queue, 0, pending);
const snap = (apps: AppView[]) => snapshotWith([leaf('root.lq', 34), leaf('root.lq2', 33), leaf('root.tq', 33)], apps);
const caps = (out: ReturnType<typeof spPolicy.decide>) =>
  Object.fromEntries((out.decisions[0].action as { update: { path: string; capacityPct: number }[] }).update.map((u) => [u.path, u.capacityPct]));

describe('strict priority', () => {
  const params = spPolicy.paramsSchema.parse({ latencyQueues: ['lq', 'lq2'] });

  it('gives latency queues all they can use first, then the rest to the others', () => {
    const out = spPolicy.decide({ snapshot: snap([app('1', 'lq', 7), app('2', 'tq', 100)]), params, state: {} });
    expect(caps(out)).toEqual({ 'root.lq': 70, 'root.lq2': 0, 'root.tq': 30 });
  });

  it('shares by DRF among latency queues when they conflict; TQs starve', () => {
    const out = spPolicy.decide({ snapshot: snap([app('1', 'lq', 100), app('2', 'lq2', 100), app('3', 'tq', 100)]), params, state: {} });
    expect(caps(out)).toEqual({ 'root.lq': 50, 'root.lq2': 50, 'root.tq': 0 });
  });

  it('raises max-capacity to the capacity where the configured ceiling is lower', () => {
    const out = spPolicy.decide({ snapshot: snap([app('1', 'lq', 7), app('2', 'tq', 100)]), params: { ...params, maxCapacityPct: 50 }, state: {} });
    const u = (out.decisions[0].action as { update: { path: string; capacityPct: number; maxCapacityPct: number }[] }).update;
    expect(u.find((x) => x.path === 'root.lq')).toMatchObject({ capacityPct: 70, maxCapacityPct: 70 });
    expect(u.find((x) => x.path === 'root.tq')).toMatchObject({ capacityPct: 30, maxCapacityPct: 50 });
  });

  it('spreads unused capacity equally when nobody asks', () => {
    const out = spPolicy.decide({ snapshot: snap([]), params: { ...params, hysteresisPct: 0 }, state: {} });
    expect(Object.values(caps(out)).reduce((a, b) => a + b, 0)).toBeCloseTo(100, 9);
    expect(caps(out)['root.tq']).toBeCloseTo(33.3, 9);
  });
});
