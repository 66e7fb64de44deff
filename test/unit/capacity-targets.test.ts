import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { capacityTargetsParams, capacityTargetsPolicy } from '../../src/policies/capacity-targets/index.js';
import { getPolicy } from '../../src/policies/index.js';

async function snap(queues?: Record<string, { capacityPct: number; maxCapacityPct: number }>) {
  return new InMemoryBackend({ queues, now: () => 0 }).snapshot();
}

describe('capacity-targets', () => {
  it('is registered', () => {
    expect(getPolicy('capacity-targets')).toBe(capacityTargetsPolicy);
  });

  it('emits one updateQueues with old → new numbers when the cluster differs', async () => {
    const params = capacityTargetsParams.parse({ targets: { 'root.a': { capacityPct: 30, maxCapacityPct: 60 }, 'root.b': { capacityPct: 70 } } });
    const out = capacityTargetsPolicy.decide({ snapshot: await snap(), params, state: {} });
    expect(out.decisions).toHaveLength(1);
    const d = out.decisions[0];
    expect(d.action).toEqual({
      kind: 'updateQueues',
      add: [],
      update: [
        { path: 'root.a', capacityPct: 30, maxCapacityPct: 60 },
        { path: 'root.b', capacityPct: 70 },
      ],
    });
    expect(d.rule).toBe('capacity-targets.hold');
    expect(d.reason).toBe('root.a capacity 50% → 30%; root.a max capacity 100% → 60%; root.b capacity 50% → 70%');
  });

  it('emits nothing when the cluster already matches', async () => {
    const params = capacityTargetsParams.parse({ targets: { 'root.a': { capacityPct: 50 }, 'root.b': { capacityPct: 50, maxCapacityPct: 100 } } });
    expect(capacityTargetsPolicy.decide({ snapshot: await snap(), params, state: {} }).decisions).toEqual([]);
  });

  it('accepts a partial target when the untouched siblings make the sum 100', async () => {
    const s = await snap({
      'root.a': { capacityPct: 40, maxCapacityPct: 100 },
      'root.b': { capacityPct: 40, maxCapacityPct: 100 },
      'root.c': { capacityPct: 20, maxCapacityPct: 100 },
    });
    const params = capacityTargetsParams.parse({ targets: { 'root.a': { capacityPct: 30 }, 'root.b': { capacityPct: 50 } } });
    expect(capacityTargetsPolicy.decide({ snapshot: s, params, state: {} }).decisions).toHaveLength(1);
  });

  it('rejects siblings that would not sum to 100, naming the queue', async () => {
    const params = capacityTargetsParams.parse({ targets: { 'root.a': { capacityPct: 60 } } });
    const s = await snap();
    let caught: unknown;
    try {
      capacityTargetsPolicy.decide({ snapshot: s, params, state: {} });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe('targets.root.a.capacityPct');
    expect((caught as Error).message).toMatch(/children of root would sum to 110% after applying targets \(root\.a=60, root\.b=50\)/);
  });

  it('rejects unknown queues at decide time', async () => {
    const params = capacityTargetsParams.parse({ targets: { 'root.zz': { capacityPct: 10 } } });
    const s = await snap();
    expect(() => capacityTargetsPolicy.decide({ snapshot: s, params, state: {} })).toThrow(/queue root\.zz does not exist/);
  });

  it('validates params with field paths', () => {
    const bad = (v: unknown) => capacityTargetsParams.safeParse(v);
    const r1 = bad({ targets: { 'root.a': { capacityPct: 150 } } });
    expect(r1.success).toBe(false);
    expect(!r1.success && r1.error.issues[0].path).toEqual(['targets', 'root.a', 'capacityPct']);
    const r2 = bad({ targets: { 'root.a': { capacityPct: 60 }, 'root.b': { capacityPct: 50 } } });
    expect(!r2.success && r2.error.issues[0].message).toMatch(/children of root would sum to 110%/);
    const r3 = bad({ targets: { 'root.a': { capacityPct: 60, maxCapacityPct: 50 } } });
    expect(!r3.success && r3.error.issues[0].path).toEqual(['targets', 'root.a', 'maxCapacityPct']);
    const r4 = bad({ targets: { a: { capacityPct: 10 } } });
    expect(!r4.success && r4.error.issues[0].message).toMatch(/queue path/);
    expect(bad({}).success).toBe(true);
  });
});
