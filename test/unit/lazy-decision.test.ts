/** Decisions whose reason is written only when read (Kairos and Big-C in trace replays). */
import { describe, expect, it } from 'vitest';
import { decisionWithLazyReason } from '../../src/core/actions.js';

describe('decisionWithLazyReason', () => {
  const action = { kind: 'suspendContainer', containerId: 'c1', nodeId: 'n1' } as const;

  it('writes the reason on first read only, once', () => {
    let calls = 0;
    const d = decisionWithLazyReason(action, 'kairos', 'las.preempt', () => `reason ${++calls}`);
    expect(calls).toBe(0);
    expect(d.reason).toBe('reason 1');
    expect(d.reason).toBe('reason 1');
    expect(calls).toBe(1);
  });

  it('serialises as a plain decision, reason included', () => {
    const d = decisionWithLazyReason(action, 'kairos', 'las.preempt', () => 'because');
    expect(JSON.parse(JSON.stringify(d))).toEqual({ action, policy: 'kairos', rule: 'las.preempt', reason: 'because' });
    expect({ action: d.action, policy: d.policy, rule: d.rule, reason: d.reason }).toEqual({ action, policy: 'kairos', rule: 'las.preempt', reason: 'because' });
  });
});
