/**
 * One active brain: two engines on one cluster (the in-memory backend) contend for one lock
 * file. Only the leader writes; the standby plans and journals its cycles as dry-runs (detail
 * `standby`); when the leader stops, the standby takes over within two lease periods, with a
 * higher epoch, reconciles first (`engine.reconcile`) and then writes; a leadership lost in the
 * middle of a cycle stops the rest of its writes. Time is a fake clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/server.js';
import type { Decision } from '../../src/core/actions.js';
import { ConflictError } from '../../src/core/errors.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine, type EngineOptions } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { FileLeaderElection, type LeaderElection, type Leadership } from '../../src/engine/leadership.js';
import type { JournalEntry } from '../../src/store/journal.js';
import { Store } from '../../src/store/store.js';
import { asAdmin, testAuth } from '../support/api-auth.js';

const PERIOD = 10_000;
const LEASE = 15_000;
let dir: string;
let clock: FakeClock;
let backend: InMemoryBackend;
const stores: Store[] = [];
const engines: Engine[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-engine-leader-'));
  clock = new FakeClock();
  backend = new InMemoryBackend({ now: () => clock.now() });
});
afterEach(async () => {
  for (const e of engines.splice(0)) await e.stop();
  for (const s of stores.splice(0)) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const targets = (a: number) => ({ targets: { 'root.a': { capacityPct: a }, 'root.b': { capacityPct: 100 - a } } });

function election(holder: string): FileLeaderElection {
  return new FileLeaderElection({ path: join(dir, 'leader.lock'), holder, leaseMs: LEASE, now: () => clock.now() });
}

async function brain(
  name: string,
  a: number,
  over: Partial<EngineOptions> = {},
  el: LeaderElection = election(name),
): Promise<{ engine: Engine; store: Store }> {
  const store = await Store.open(join(dir, name));
  stores.push(store);
  const engine = new Engine({
    backend,
    store,
    clock,
    periodMs: PERIOD,
    initial: { policy: 'capacity-targets', params: targets(a) },
    leadership: { election: el },
    ...over,
  });
  await engine.init();
  engines.push(engine);
  return { engine, store };
}

async function journal(store: Store): Promise<JournalEntry[]> {
  return store.journal.query({ limit: 1000, order: 'asc' });
}

const capacityOfA = () => backend.queues.get('root.a')!.capacityPct;

describe('engine under a leader election', () => {
  it('the standby writes nothing and journals its cycles as standby dry-runs', async () => {
    const a = await brain('a', 70);
    const b = await brain('b', 30);
    a.engine.start();
    await a.engine.whenIdle();
    b.engine.start();
    await b.engine.whenIdle();
    expect(a.engine.leadership()).toEqual({ role: 'leader', epoch: 1, holder: 'a' });
    expect(b.engine.leadership()).toEqual({ role: 'standby', epoch: 1, holder: 'a' });
    expect(b.engine.status().leadership?.role).toBe('standby');
    for (let i = 0; i < 5; i++) {
      await clock.advance(PERIOD);
      await Promise.all([a.engine.whenIdle(), b.engine.whenIdle()]);
      // No flip-flop: the leader's target holds.
      expect(capacityOfA()).toBe(70);
    }
    expect(backend.applied).toHaveLength(1);
    const jb = await journal(b.store);
    const lead = jb.filter((e) => e.rule === 'engine.leadership');
    expect(lead).toHaveLength(1);
    expect(lead[0]!.reason).toMatch(/^standby: a leads \(epoch 1\)/);
    const planned = jb.filter((e) => e.rule === 'capacity-targets.hold');
    expect(planned.length).toBeGreaterThan(0);
    for (const e of planned) {
      expect(e.result).toBe('dryRun');
      expect(e.detail).toMatch(/^standby: a leads \(epoch 1\); nothing sent/);
    }
    expect(b.engine.status().lastCycle?.outcome).toBe('ok');
    expect(await b.engine.metrics.render()).toMatch(/^schedbrain_leader 0$/m);
    expect(await a.engine.metrics.render()).toMatch(/^schedbrain_leader 1$/m);
    expect(await a.engine.metrics.render()).toMatch(/^schedbrain_leader_epoch 1$/m);
    expect(b.engine.metrics.leadershipChanges.get({ role: 'standby' })).toBe(1);
    // Admin requests that would write to the cluster outside the cycle go to the leader.
    expect(() => b.engine.assertLeads('reserve a workflow')).toThrow(ConflictError);
    expect(() => b.engine.assertLeads('reserve a workflow')).toThrow(
      'cannot reserve a workflow: this brain is a standby (a leads, epoch 1); send it to the leader',
    );
    expect(() => a.engine.assertLeads('reserve a workflow')).not.toThrow();
    const ja = await journal(a.store);
    expect(ja.filter((e) => e.rule === 'engine.leadership').map((e) => e.reason)).toEqual(['this brain (a) leads with epoch 1']);
  });

  it('when the leader stops, the standby takes over within two lease periods, reconciles, then writes', async () => {
    const reconciled: Leadership[] = [];
    const a = await brain('a', 70);
    const b = await brain('b', 30, {
      leadership: {
        election: election('b'),
        reconcile: async (l) => {
          reconciled.push(l);
          // Nothing written before the reconciliation is done.
          expect(capacityOfA()).toBe(70);
          return { reason: 'adopted 0 over-committed nodes and 0 suspended containers', detail: '{}' };
        },
      },
    });
    a.engine.start();
    await a.engine.whenIdle();
    b.engine.start();
    await b.engine.whenIdle();
    expect(capacityOfA()).toBe(70);
    // The leader dies: its loop stops, its lock is never released.
    await a.engine.stop();
    const stoppedAt = clock.now();
    let tookOverAt: number | undefined;
    for (let t = 0; t < 2 * LEASE; t += 500) {
      await clock.advance(500);
      await b.engine.whenIdle();
      if (b.engine.leadership()?.role === 'leader') {
        tookOverAt ??= clock.now();
      }
    }
    expect(tookOverAt).toBeDefined();
    expect(tookOverAt! - stoppedAt).toBeLessThanOrEqual(2 * LEASE);
    expect(b.engine.leadership()).toEqual({ role: 'leader', epoch: 2, holder: 'b' });
    await clock.advance(PERIOD);
    await b.engine.whenIdle();
    expect(capacityOfA()).toBe(30);
    expect(reconciled).toEqual([{ role: 'leader', epoch: 2, holder: 'b' }]);
    const jb = await journal(b.store);
    const rules = jb.map((e) => e.rule).filter((r) => r.startsWith('engine.'));
    const lead = rules.lastIndexOf('engine.leadership');
    expect(rules[lead + 1]).toBe('engine.reconcile');
    expect(jb.find((e) => e.rule === 'engine.reconcile')).toMatchObject({
      reason: 'epoch 2: adopted 0 over-committed nodes and 0 suspended containers',
      result: 'applied',
    });
    expect(jb.filter((e) => e.rule === 'engine.leadership').at(-1)!.reason).toBe('this brain (b) leads with epoch 2');
    // Once b writes, each write is after the reconciliation in the journal.
    const firstApplied = jb.findIndex((e) => e.result === 'applied' && e.rule === 'capacity-targets.hold');
    expect(firstApplied).toBeGreaterThan(jb.findIndex((e) => e.rule === 'engine.reconcile'));
  });

  it('a reconciliation that fails keeps the new leader from writing, and is tried again', async () => {
    let fail = true;
    const b = await brain('b', 30, {
      leadership: {
        election: election('b'),
        reconcile: async () => ({ reason: 'tried', errors: fail ? ['restore node1: refused'] : [], changed: !fail ? false : undefined }),
      },
    });
    b.engine.start();
    await b.engine.whenIdle();
    expect(b.engine.leadership()?.role).toBe('leader');
    expect(backend.applied).toHaveLength(0);
    expect(b.engine.status().lastCycle?.outcome).toBe('ok');
    fail = false;
    await clock.advance(PERIOD);
    await b.engine.whenIdle();
    expect(capacityOfA()).toBe(30);
    const rec = (await journal(b.store)).filter((e) => e.rule === 'engine.reconcile');
    // The second found nothing left to change: noop.
    expect(rec.map((e) => e.result)).toEqual(['failed', 'noop']);
    expect(rec[0]!.error).toBe('restore node1: refused');
  });

  it('the first plan is made on the cluster as the reconciliation left it', async () => {
    const b = await brain('b', 30, {
      leadership: {
        election: election('b'),
        reconcile: async () => {
          // What an undo does: the cluster changes under the cycle's first read.
          backend.queues.get('root.a')!.capacityPct = 30;
          backend.queues.get('root.b')!.capacityPct = 70;
          return { reason: 'undone', changed: true };
        },
      },
    });
    const r = await b.engine.runCycle();
    expect(r.committed).toBe(true);
    expect(backend.applied).toEqual([]);
    // Planned on the first read, it would have sent root.a 50 → 30 again.
    expect(r.decisions.filter((d) => d.result === 'applied' && d.rule === 'capacity-targets.hold')).toEqual([]);
  });

  it('a leadership lost in the middle of a cycle stops the rest of its writes', async () => {
    let leader = true;
    const el: LeaderElection = {
      holder: 'x',
      leaseMs: LEASE,
      acquire: async () => leader,
      renew: async () => leader,
      release: async () => undefined,
      isLeader: () => leader,
      epoch: 7,
      status: () => ({ role: leader ? 'leader' : 'standby', epoch: 7, holder: leader ? 'x' : 'y' }),
    };
    const decisions: Decision[] = ['app_1', 'app_2', 'app_3'].map((appId) => ({
      action: { kind: 'killApp', appId },
      policy: 'scripted',
      rule: 'scripted.kill',
      reason: `kill ${appId}`,
    }));
    const scripted = {
      name: 'scripted',
      description: 't',
      paramsSchema: (await import('zod')).z.object({}),
      initialState: () => ({}),
      decide: () => ({ decisions, state: {} }),
    };
    backend.apps = ['app_1', 'app_2', 'app_3'].map((id) => ({
      id,
      name: id,
      user: 'u',
      queue: 'root.a',
      state: 'RUNNING',
      priority: 0,
      submittedAtMs: 0,
      pendingContainers: 0,
      runningContainers: 1,
      allocated: { memoryMB: 1, vcores: 1 },
      tags: {},
    }));
    const original = backend.apply.bind(backend);
    backend.apply = async (a) => {
      const r = await original(a);
      // The lease lapses right after the first write.
      leader = false;
      return r;
    };
    const { engine, store } = await brain(
      'x',
      50,
      { initial: { policy: 'scripted' }, policies: { get: (n) => (n === 'scripted' ? (scripted as never) : undefined), names: () => ['scripted'] } },
      el,
    );
    const r = await engine.runCycle();
    expect(backend.applied).toHaveLength(1);
    expect(r.decisions.map((d) => d.result)).toEqual(['applied', 'failed', 'failed']);
    expect(r.decisions[1]!.error).toBe('not sent: this brain lost the leadership during the cycle (epoch 7)');
    await store.journal.query({ limit: 10 });
  });

  it('without an election the engine leads alone and reports no leadership', async () => {
    const store = await Store.open(join(dir, 'solo'));
    stores.push(store);
    const e = new Engine({ backend, store, clock, periodMs: PERIOD, initial: { policy: 'capacity-targets', params: targets(60) } });
    await e.init();
    engines.push(e);
    await e.runCycle();
    expect(e.leadership()).toBeUndefined();
    expect(capacityOfA()).toBe(60);
  });

  it('/healthz shows the leadership, in the capabilities too', async () => {
    const a = await brain('a', 70);
    const b = await brain('b', 30);
    await a.engine.runCycle();
    await b.engine.runCycle();
    const health = async (e: Engine, s: Store) => {
      const app = asAdmin(await buildApi({ engine: e, store: s, auth: testAuth() }));
      try {
        return (await app.inject('/healthz')).json() as { status: string; leadership: unknown; capabilities: { leadership?: unknown } };
      } finally {
        await app.close();
      }
    };
    const hb = await health(b.engine, b.store);
    expect(hb.status).toBe('ok');
    expect(hb.leadership).toEqual({ role: 'standby', epoch: 1, holder: 'a' });
    expect(hb.capabilities.leadership).toEqual({ role: 'standby', epoch: 1, holder: 'a' });
    expect((await health(a.engine, a.store)).leadership).toEqual({ role: 'leader', epoch: 1, holder: 'a' });
  });
});
