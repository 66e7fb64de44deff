/** Folding alike skips of one cycle (`foldRepeatedSkips`). */
import { describe, expect, it } from 'vitest';
import { foldRepeatedSkips, FOLD_SKIPS_FROM, type NewJournalEntry } from '../../src/store/journal.js';

const skip = (i: number, over: Partial<NewJournalEntry> = {}): NewJournalEntry => ({
  cycleId: 'c1',
  policy: 'kairos',
  rule: 'node.cap',
  reason: `node ${i}`,
  result: 'skipped',
  skipReason: 'limit',
  detail: 'maxActionsPerCycle=50 reached',
  action: { kind: 'setNodeResource', nodeId: `n${i}`, resource: { memoryMB: 1024, vcores: 4 } },
  ...over,
});

describe('foldRepeatedSkips', () => {
  it('folds a group from the threshold on, in place of its first entry', () => {
    const sent: NewJournalEntry = { ...skip(0), result: 'dryRun', skipReason: undefined, detail: undefined };
    const many = Array.from({ length: FOLD_SKIPS_FROM + 5 }, (_, i) => skip(i + 1));
    const out = foldRepeatedSkips([sent, ...many, { ...skip(99), rule: 'dispatch.rank', skipReason: 'unsupported', detail: 'no shim' }]);
    expect(out).toHaveLength(3);
    expect(out[0]).toBe(sent);
    expect(out[1]).toMatchObject({ count: FOLD_SKIPS_FROM + 5, action: { nodeId: 'n1' }, skipReason: 'limit' });
    expect(out[2]).toMatchObject({ rule: 'dispatch.rank' });
    expect(out[2].count).toBeUndefined();
  });

  it('keeps groups below the threshold, and skips that differ in rule, reason, detail or kind, apart', () => {
    const few = Array.from({ length: FOLD_SKIPS_FROM - 1 }, (_, i) => skip(i));
    expect(foldRepeatedSkips(few)).toEqual(few);
    const mixed = Array.from({ length: FOLD_SKIPS_FROM * 2 }, (_, i) => skip(i, { detail: `d${i % 3 === 0 ? i : 0}` }));
    const out = foldRepeatedSkips(mixed);
    expect(out.reduce((n, e) => n + (e.count ?? 1), 0)).toBe(mixed.length);
    expect(out.filter((e) => e.count !== undefined)).toHaveLength(1);
  });

  it('never folds decisions that were sent or planned', () => {
    const planned = Array.from({ length: FOLD_SKIPS_FROM * 2 }, (_, i) => ({ ...skip(i), result: 'dryRun' as const, skipReason: undefined }));
    expect(foldRepeatedSkips(planned)).toEqual(planned);
  });
});
