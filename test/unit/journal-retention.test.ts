/** The journal's size limit (`sizeBytes`, `pruneToBytes`) and decisions unchanged since the last cycle (`appendCycle`). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PRUNE_TO_FRACTION, RANKING_DELTA_MIN_SCORES, type NewJournalEntry } from '../../src/store/journal.js';
import { Store } from '../../src/store/store.js';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-journal-'));
  store = await Store.open(dir);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const decision = (cycleId: string, queue: string, over: Partial<NewJournalEntry> = {}): NewJournalEntry => ({
  cycleId,
  policy: 'priorities',
  rule: 'priorities.keep',
  action: { kind: 'setAppPriority', appId: `app_${queue}`, priority: 1 },
  reason: `app_${queue} has its priority`,
  result: 'noop',
  ...over,
});

/** The journal's bytes as LevelDB holds them, read straight from the database. */
async function storedBytes(): Promise<number> {
  await store.close();
  const db = new ClassicLevel<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  let n = 0;
  for await (const [k, v] of db.iterator({ gte: '!journal!', lt: '!journal"' })) n += Buffer.byteLength(k) + Buffer.byteLength(v);
  await db.close();
  store = await Store.open(dir);
  return n;
}

describe('journal size', () => {
  it('counts every stored key and value, kept up to date by appends, repeats and prunes', async () => {
    expect(await store.journal.sizeBytes()).toBe(0);
    await store.journal.append(1000, [decision('c1', 'a', { result: 'applied' }), decision('c1', 'b', { result: 'applied' })]);
    await store.journal.appendCycle(2000, [decision('c2', 'a'), decision('c2', 'b')]);
    await store.journal.appendCycle(3000, [decision('c3', 'a'), decision('c3', 'b', { reason: 'changed' })]);
    await store.journal.prune(1500);
    const tracked = await store.journal.sizeBytes();
    expect(tracked).toBeGreaterThan(0);
    expect(await storedBytes()).toBe(tracked);
    // Reopened: measured by a scan, the same figure.
    expect(await store.journal.sizeBytes()).toBe(tracked);
  });

  it('drops the oldest entries first, down to a fraction of the limit, and nothing while under it', async () => {
    for (let i = 0; i < 50; i++) await store.journal.append(1000 + i, [decision(`c${i}`, `q${i}`, { result: 'applied' })]);
    const full = await store.journal.sizeBytes();
    expect(await store.journal.pruneToBytes(full)).toEqual({ removed: 0, bytes: full });
    const limit = Math.floor(full / 2);
    const r = await store.journal.pruneToBytes(limit);
    expect(r.bytes).toBeLessThanOrEqual(limit * PRUNE_TO_FRACTION);
    expect(r.bytes).toBe(await storedBytes());
    const left = await store.journal.query({ order: 'asc', limit: 100 });
    expect(left).toHaveLength(50 - r.removed);
    // What is left is the newest, unbroken up to the last entry.
    expect(left.map((e) => e.cycleId)).toEqual(Array.from({ length: left.length }, (_, i) => `c${50 - left.length + i}`));
    // Close to the target: one more entry would have been over it.
    expect(r.bytes + (full - r.bytes) / r.removed).toBeGreaterThan(limit * PRUNE_TO_FRACTION);
  });

  it('keeps the entries that explain the current state under both limits', async () => {
    await store.journal.appendCycle(1000, [decision('c1', 'a')]);
    for (let i = 0; i < 20; i++) await store.journal.append(2000 + i, [decision(`x${i}`, `q${i}`, { result: 'applied' })]);
    await store.journal.appendCycle(3000, [decision('c2', 'a')]);
    await store.journal.pruneToBytes(1);
    expect(await store.journal.prune(10_000)).toBe(0);
    const left = await store.journal.query({});
    expect(left).toHaveLength(1);
    expect(left[0]).toMatchObject({ cycleId: 'c1', repeats: 1, lastCycleId: 'c2' });
  });
});

describe('decisions unchanged since the last cycle', () => {
  it('are journaled once, then counted on the first entry, and again once they change', async () => {
    const [first] = await store.journal.appendCycle(1000, [decision('c1', 'a')]);
    const [again] = await store.journal.appendCycle(2000, [decision('c2', 'a')]);
    const [third] = await store.journal.appendCycle(3000, [decision('c3', 'a')]);
    expect(again.id).toBe(first.id);
    expect(third).toMatchObject({ id: first.id, cycleId: 'c1', timeMs: 1000, repeats: 2, lastCycleId: 'c3', lastTimeMs: 3000 });
    expect(await store.journal.query({})).toEqual([third]);
    // The target changed: a new entry.
    const [moved] = await store.journal.appendCycle(4000, [decision('c4', 'a', { action: { kind: 'setAppPriority', appId: 'app_a', priority: 2 } })]);
    expect(moved.id).not.toBe(first.id);
    expect(moved.repeats).toBeUndefined();
    expect((await store.journal.query({})).map((e) => e.cycleId)).toEqual(['c4', 'c1']);
  });

  it('are journaled again after a cycle without them, and across a restart', async () => {
    await store.journal.appendCycle(1000, [decision('c1', 'a')]);
    await store.journal.appendCycle(2000, []);
    await store.journal.appendCycle(3000, [decision('c3', 'a')]);
    expect(await store.journal.query({ order: 'asc' })).toMatchObject([{ cycleId: 'c1' }, { cycleId: 'c3' }]);
    await store.close();
    store = await Store.open(dir);
    await store.journal.appendCycle(4000, [decision('c4', 'a')]);
    expect((await store.journal.query({ order: 'asc' })).map((e) => e.cycleId)).toEqual(['c1', 'c3', 'c4']);
  });

  it('fold only results that leave the cluster as it was, one for one when alike', async () => {
    const cycle = (id: string) => [
      decision(id, 'a', { result: 'applied' }),
      decision(id, 'b', { result: 'failed', error: 'refused' }),
      decision(id, 'c', { result: 'dryRun' }),
      decision(id, 'd', { result: 'skipped', skipReason: 'limit' }),
      decision(id, 'd', { result: 'skipped', skipReason: 'limit' }),
    ];
    await store.journal.appendCycle(1000, cycle('c1'));
    const second = await store.journal.appendCycle(2000, cycle('c2').slice(0, 4));
    expect(second.map((e) => e.cycleId)).toEqual(['c2', 'c2', 'c1', 'c1']);
    const all = await store.journal.query({ order: 'asc' });
    expect(all.map((e) => `${e.cycleId}:${e.result}:${e.repeats ?? 0}`)).toEqual([
      'c1:applied:0',
      'c1:failed:0',
      'c1:dryRun:1',
      'c1:skipped:1',
      'c1:skipped:0',
      'c2:applied:0',
      'c2:failed:0',
    ]);
  });

  it('answer a query for the latest cycle with everything it decided', async () => {
    await store.journal.appendCycle(1000, [decision('c1', 'a'), decision('c1', 'b')]);
    await store.journal.appendCycle(2000, [decision('c2', 'a'), decision('c2', 'b', { reason: 'app_b moved' })]);
    const latest = await store.journal.query({ cycleId: 'c2', order: 'asc' });
    expect(latest.map((e) => [e.cycleId, e.reason])).toEqual([
      ['c1', 'app_a has its priority'],
      ['c2', 'app_b moved'],
    ]);
    expect(latest[0]).toMatchObject({ repeats: 1, lastCycleId: 'c2' });
  });

  it('leave appends outside cycles (the admin audit trail) untouched', async () => {
    await store.journal.append(1000, [decision('c1', 'a')]);
    await store.journal.append(2000, [decision('c1', 'a')]);
    expect(await store.journal.query({})).toHaveLength(2);
  });
});

describe('large node rankings', () => {
  const N = RANKING_DELTA_MIN_SCORES * 4;
  const scoresOf = (changed: Record<string, number> = {}, n = N): Record<string, number> => {
    const s: Record<string, number> = {};
    for (let i = 0; i < n; i++) s[`node-${i}`] = i;
    return { ...s, ...changed };
  };
  const ranking = (cycleId: string, scores: Record<string, number>, over: Partial<NewJournalEntry> = {}): NewJournalEntry => ({
    cycleId,
    policy: 'kairos',
    rule: 'dispatchRank',
    action: { kind: 'rankNodes', scores, leastLoadedFirst: true, partial: false },
    reason: 'all nodes rescored',
    result: 'dryRun',
    ...over,
  });
  /** The scores an entry stands for: its own, over its base's when it is told against one. */
  const wholeScores = async (id: string): Promise<Record<string, number>> => {
    const all = await store.journal.query({ limit: 1000 });
    const e = all.find((x) => x.id === id)!;
    const own = e.action?.kind === 'rankNodes' ? e.action.scores : {};
    if (!e.rankingBase) return own;
    const base = all.find((x) => x.id === e.rankingBase!.base)!;
    return { ...(base.action?.kind === 'rankNodes' ? base.action.scores : {}), ...own };
  };

  it('are journaled by the scores that changed against the last whole one, standing for the same ranking', async () => {
    const [whole] = await store.journal.appendCycle(1000, [ranking('c1', scoresOf())]);
    expect(whole.rankingBase).toBeUndefined();
    const next = scoresOf({ 'node-3': 100, 'node-7': 200 });
    const [delta] = await store.journal.appendCycle(2000, [ranking('c2', next)]);
    expect(delta.rankingBase).toEqual({ base: whole.id, unchanged: N - 2 });
    expect(delta.action).toEqual({ kind: 'rankNodes', scores: { 'node-3': 100, 'node-7': 200 }, leastLoadedFirst: true, partial: true });
    expect(await wholeScores(delta.id)).toEqual(next);
    // The next is told against the same whole one, not against the delta.
    const third = scoresOf({ 'node-3': 100, 'node-9': 300 });
    const [delta2] = await store.journal.appendCycle(3000, [ranking('c3', third)]);
    expect(delta2.rankingBase).toEqual({ base: whole.id, unchanged: N - 2 });
    expect(await wholeScores(delta2.id)).toEqual(third);
    // Unchanged since the last cycle: folded into that entry as any repeat.
    const [repeat] = await store.journal.appendCycle(4000, [ranking('c4', third)]);
    expect(repeat).toMatchObject({ id: delta2.id, repeats: 1 });
  });

  it('are journaled whole when much changed, a node came or went, the order differs, or they are small', async () => {
    await store.journal.appendCycle(1000, [ranking('c1', scoresOf())]);
    const many: Record<string, number> = {};
    for (let i = 0; i < N / 2; i++) many[`node-${i}`] = 1000 + i;
    const [muchChanged] = await store.journal.appendCycle(2000, [ranking('c2', scoresOf(many))]);
    expect(muchChanged.rankingBase).toBeUndefined();
    const [gone] = await store.journal.appendCycle(3000, [ranking('c3', scoresOf(many, N - 1))]);
    expect(gone.rankingBase).toBeUndefined();
    const [came] = await store.journal.appendCycle(4000, [ranking('c4', { ...scoresOf(many, N - 1), extra: 1 })]);
    expect(came.rankingBase).toBeUndefined();
    const [otherOrder] = await store.journal.appendCycle(5000, [
      ranking(
        'c5',
        { ...scoresOf(many, N - 1), extra: 2 },
        { action: { kind: 'rankNodes', scores: { ...scoresOf(many, N - 1), extra: 2 }, leastLoadedFirst: false, partial: false } },
      ),
    ]);
    expect(otherOrder.rankingBase).toBeUndefined();
    const small = scoresOf({}, RANKING_DELTA_MIN_SCORES - 1);
    await store.journal.appendCycle(6000, [ranking('c6', small, { rule: 'other' })]);
    const [smallNext] = await store.journal.appendCycle(7000, [ranking('c7', { ...small, 'node-1': 50 }, { rule: 'other' })]);
    expect(smallNext.rankingBase).toBeUndefined();
  });

  it("keep the base of the last cycle's ranking under both limits", async () => {
    const [whole] = await store.journal.appendCycle(1000, [ranking('c1', scoresOf())]);
    for (let i = 0; i < 5; i++) await store.journal.append(1500 + i, [decision(`x${i}`, `q${i}`, { result: 'applied' })]);
    const [delta] = await store.journal.appendCycle(2000, [ranking('c2', scoresOf({ 'node-1': 9 }))]);
    await store.journal.pruneToBytes(1);
    expect(await store.journal.prune(10_000)).toBe(0);
    expect((await store.journal.query({})).map((e) => e.id).sort()).toEqual([whole.id, delta.id].sort());
    expect(await wholeScores(delta.id)).toEqual(scoresOf({ 'node-1': 9 }));
  });
});
