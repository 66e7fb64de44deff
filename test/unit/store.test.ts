import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Store, StoreDecodeError } from '../../src/store/store.js';
import type { NewJournalEntry } from '../../src/store/journal.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-store-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function entry(policy: string, cycleId: string, n: number): NewJournalEntry {
  return {
    cycleId,
    policy,
    rule: `${policy}.rule`,
    action: { kind: 'killApp', appId: `app_${n}` },
    reason: `reason ${n}`,
    result: 'applied',
  };
}

describe('store', () => {
  it('persists config, policy state, ranking, journal and namespaces across reopen', async () => {
    const admissions = z.object({ appId: z.string(), admittedAtMs: z.number() });
    let s = await Store.open(dir);
    await s.putEngineConfig({ policy: 'capacity-targets', params: { targets: { 'root.a': { capacityPct: 40 } } }, dryRun: true, updatedAtMs: 5 });
    await s.putPolicyState('capacity-targets', { state: { seen: [1, 2] }, savedAtMs: 7, cycleId: 'c1' });
    await s.putRanking({ scores: { n1: 1 }, leastLoadedFirst: true });
    await s.journal.append(1000, [entry('p', 'c1', 1), entry('p', 'c1', 2)]);
    const ns = s.namespace('bopf.admissions', admissions);
    await ns.put('app_1', { appId: 'app_1', admittedAtMs: 10 });
    await ns.put('app_2', { appId: 'app_2', admittedAtMs: 11 });
    await ns.put('other', { appId: 'x', admittedAtMs: 12 });
    await s.close();

    s = await Store.open(dir);
    expect(await s.getEngineConfig()).toEqual({
      policy: 'capacity-targets',
      params: { targets: { 'root.a': { capacityPct: 40 } } },
      dryRun: true,
      updatedAtMs: 5,
    });
    expect((await s.getPolicyState('capacity-targets'))?.state).toEqual({ seen: [1, 2] });
    expect(await s.getPolicyState('nope')).toBeUndefined();
    expect(await s.getRanking()).toEqual({ scores: { n1: 1 }, leastLoadedFirst: true });
    const ns2 = s.namespace('bopf.admissions', admissions);
    expect(await ns2.get('app_1')).toEqual({ appId: 'app_1', admittedAtMs: 10 });
    expect((await ns2.list('app_')).map((e) => e.key)).toEqual(['app_1', 'app_2']);
    expect((await ns2.list()).length).toBe(3);
    await ns2.del('app_1');
    expect(await ns2.get('app_1')).toBeUndefined();
    // Journal keys stay monotonic after reopen even at the same timestamp.
    const [e3] = await s.journal.append(1000, [entry('p', 'c2', 3)]);
    const all = await s.journal.query({ limit: 10 });
    expect(all.map((e) => e.reason)).toEqual(['reason 3', 'reason 2', 'reason 1']);
    expect(all[0].id).toBe(e3.id);
    await s.close();
  });

  it('writes engine config and policy state together', async () => {
    let s = await Store.open(dir);
    await s.putEngineConfigAndState({ policy: 'p', params: { a: 1 }, dryRun: false, updatedAtMs: 1 }, 'p', {
      state: { n: 1 },
      savedAtMs: 1,
      cycleId: 'config',
    });
    await s.close();
    s = await Store.open(dir);
    expect(await s.getEngineConfig()).toEqual({ policy: 'p', params: { a: 1 }, dryRun: false, updatedAtMs: 1 });
    expect(await s.getPolicyState('p')).toEqual({ state: { n: 1 }, savedAtMs: 1, cycleId: 'config' });
    await s.close();
  });

  it('namespaces are isolated and validated on read and write', async () => {
    const s = await Store.open(dir);
    const a = s.namespace('a', z.number());
    const b = s.namespace('b', z.string());
    await a.put('k', 1);
    expect(await b.get('k')).toBeUndefined();
    await expect(b.put('k', 3 as unknown as string)).rejects.toBeInstanceOf(StoreDecodeError);
    // Same namespace read with an incompatible schema: typed error naming the key.
    const wrong = s.namespace('a', z.string());
    await expect(wrong.get('k')).rejects.toThrow(/kv\/a\/k/);
    expect(() => s.namespace('bad name!', z.number())).toThrow(/invalid namespace/);
    await s.close();
  });

  it('queries the journal by latest N, since time, policy and cycle', async () => {
    const s = await Store.open(dir);
    await s.journal.append(1000, [entry('a', 'c1', 1), entry('b', 'c1', 2)]);
    await s.journal.append(2000, [entry('a', 'c2', 3)]);
    await s.journal.append(3000, [entry('b', 'c3', 4), entry('a', 'c3', 5)]);
    expect((await s.journal.query({ limit: 2 })).map((e) => e.reason)).toEqual(['reason 5', 'reason 4']);
    expect((await s.journal.query({ sinceMs: 2000 })).map((e) => e.reason)).toEqual(['reason 5', 'reason 4', 'reason 3']);
    expect((await s.journal.query({ policy: 'a' })).map((e) => e.reason)).toEqual(['reason 5', 'reason 3', 'reason 1']);
    expect((await s.journal.query({ cycleId: 'c1' })).map((e) => e.reason)).toEqual(['reason 2', 'reason 1']);
    // Clock going backwards still appends after the latest entry.
    await s.journal.append(500, [entry('a', 'c4', 6)]);
    expect((await s.journal.query({ limit: 1 }))[0].reason).toBe('reason 6');
    expect(await s.journal.prune(2000)).toBe(2);
    expect((await s.journal.query({})).length).toBe(4);
    await s.close();
  });

  it('reports a clear error when the directory is locked by another process', async () => {
    const s = await Store.open(dir);
    await expect(Store.open(dir)).rejects.toThrow(/cannot open store/);
    await s.close();
  });
});
