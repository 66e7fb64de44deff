/** Decisions whose reason is written only when read, and rankings made from lists (Kairos and Big-C in trace replays). */
import { describe, expect, it } from 'vitest';
import { actionSchema, decisionWithLazyReason, decisionWithReasonOf, describeAction, ListedRanking, rankedNodeLists } from '../../src/core/actions.js';

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
    expect({ action: d.action, policy: d.policy, rule: d.rule, reason: d.reason }).toEqual({
      action,
      policy: 'kairos',
      rule: 'las.preempt',
      reason: 'because',
    });
  });
});

describe('decisionWithReasonOf', () => {
  const action = { kind: 'resumeContainer', containerId: 'c2', nodeId: 'n1' } as const;

  it('formats its action and the values it was given, on first read, once', () => {
    let calls = 0;
    const format = (a: typeof action, busy: number, cores: number, ids: readonly string[], last: boolean): string => {
      calls++;
      return `${a.containerId}@${a.nodeId} ${busy}/${cores} [${ids.join(',')}] ${last}`;
    };
    const d = decisionWithReasonOf(action, 'kairos', 'las.resume', format, 0, 4, ['a', 'b'], true);
    expect(calls).toBe(0);
    expect(d.reason).toBe('c2@n1 0/4 [a,b] true');
    expect(d.reason).toBe('c2@n1 0/4 [a,b] true');
    expect(calls).toBe(1);
    expect(JSON.parse(JSON.stringify(d))).toEqual({ action, policy: 'kairos', rule: 'las.resume', reason: 'c2@n1 0/4 [a,b] true' });
  });

  it('takes formats of fewer values', () => {
    expect(decisionWithReasonOf(action, 'p', 'r', () => 'none').reason).toBe('none');
    expect(decisionWithReasonOf(action, 'p', 'r', (a, n: number) => `${a.kind} n=${n}`, 3).reason).toBe('resumeContainer n=3');
  });
});

describe('ListedRanking', () => {
  it('is a rankNodes action whose scores are its lists, a repeated node keeping its last score', () => {
    const a = new ListedRanking(['n2', 'n1', 'n2'], [5, 1, 7], true, true);
    expect(a.kind).toBe('rankNodes');
    expect(a.scores).toEqual({ n2: 7, n1: 1 });
    expect(a.scores).toBe(a.scores);
    expect(JSON.parse(JSON.stringify(a))).toEqual({ kind: 'rankNodes', scores: { n2: 7, n1: 1 }, leastLoadedFirst: true, partial: true });
    expect(actionSchema.parse(a)).toEqual({ kind: 'rankNodes', scores: { n2: 7, n1: 1 }, leastLoadedFirst: true, partial: true });
    expect(describeAction(a)).toBe('rankNodes(2 nodes, partial, least-loaded first)');
  });

  it('gives its lists as made; a dictionary ranking gives its entries', () => {
    expect(rankedNodeLists(new ListedRanking(['b', 'a'], [2, 1], false, false))).toEqual({ nodeIds: ['b', 'a'], values: [2, 1] });
    expect(rankedNodeLists({ kind: 'rankNodes', scores: { b: 2, a: 1 }, leastLoadedFirst: false, partial: true })).toEqual({
      nodeIds: ['b', 'a'],
      values: [2, 1],
    });
  });

  it('takes any node id as a key, __proto__ included', () => {
    const a = new ListedRanking(['__proto__'], [3], false, true);
    expect(Object.keys(a.scores)).toEqual(['__proto__']);
    expect(a.scores['__proto__']).toBe(3);
  });
});
