/**
 * The single-host leader election (a lock file): a contender takes over only once the leader's
 * heartbeat is older than the lease, every takeover raises the epoch, two contenders never both
 * lead, and a release hands over at once. Time is a fake clock shared by the contenders.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileLeaderElection, leaderGuardMs } from '../../src/engine/leadership.js';

const LEASE = 10_000;
let dir: string;
let nowMs: number;
const now = () => nowMs;

function contender(holder: string, path = join(dir, 'leader.lock')): FileLeaderElection {
  return new FileLeaderElection({ path, holder, leaseMs: LEASE, now });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-leader-'));
  nowMs = 1_700_000_000_000;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('FileLeaderElection', () => {
  it('the first contender leads with epoch 1; the lock file holds the holder and epoch', async () => {
    const a = contender('a');
    expect(await a.acquire()).toBe(true);
    expect(a.isLeader()).toBe(true);
    expect(a.status()).toEqual({ role: 'leader', epoch: 1, holder: 'a' });
    expect(JSON.parse(readFileSync(join(dir, 'leader.lock'), 'utf8'))).toEqual({ holder: 'a', epoch: 1, heartbeatAtMs: nowMs });
  });

  it('a contender takes over only after the lease lapsed, with the next epoch', async () => {
    const a = contender('a');
    const b = contender('b');
    expect(await a.acquire()).toBe(true);
    expect(await b.acquire()).toBe(false);
    expect(b.status()).toEqual({ role: 'standby', epoch: 1, holder: 'a' });
    // b never led: its writes would carry no epoch, not the leader's.
    expect(b.epoch).toBe(0);
    // a renews: b still cannot take over, however long it tries.
    for (let i = 0; i < 5; i++) {
      nowMs += LEASE / 3;
      expect(await a.renew()).toBe(true);
      expect(await b.acquire()).toBe(false);
    }
    // a stops renewing: not before the lease lapsed ...
    nowMs += LEASE - 1;
    expect(await b.acquire()).toBe(false);
    // ... and a stopped counting itself leader before that (its guard).
    expect(a.isLeader()).toBe(false);
    nowMs += 1;
    expect(await b.acquire()).toBe(true);
    expect(b.status()).toEqual({ role: 'leader', epoch: 2, holder: 'b' });
    // a comes back: it has lost, and learns who leads.
    expect(await a.renew()).toBe(false);
    expect(await a.acquire()).toBe(false);
    expect(a.status()).toEqual({ role: 'standby', epoch: 2, holder: 'b' });
  });

  it('a leader stops counting itself leader a guard before its lease lapses', async () => {
    const a = contender('a');
    await a.acquire();
    nowMs += LEASE - leaderGuardMs(LEASE) - 1;
    expect(a.isLeader()).toBe(true);
    nowMs += 1;
    expect(a.isLeader()).toBe(false);
    // Too late to renew: it must acquire again (and gets a new epoch once the lease lapsed).
    expect(await a.renew()).toBe(false);
    nowMs += leaderGuardMs(LEASE);
    expect(await a.acquire()).toBe(true);
    expect(a.epoch).toBe(2);
  });

  it('epochs only grow across leaders and restarts', async () => {
    const epochs: number[] = [];
    for (const name of ['a', 'b', 'c', 'a', 'b']) {
      // A new object per round: a restarted process that knows nothing but the file.
      const e = contender(name);
      expect(await e.acquire()).toBe(true);
      epochs.push(e.epoch);
      nowMs += LEASE;
    }
    expect(epochs).toEqual([1, 2, 3, 4, 5]);
  });

  it('two contenders racing for a lapsed lock: exactly one leads', async () => {
    for (let round = 0; round < 20; round++) {
      const a = contender(`a${round}`);
      const b = contender(`b${round}`);
      const won = await Promise.all([a.acquire(), b.acquire()]);
      expect(won.filter(Boolean)).toHaveLength(1);
      expect([a.isLeader(), b.isLeader()].filter(Boolean)).toHaveLength(1);
      const leader = a.isLeader() ? a : b;
      expect(leader.epoch).toBe(round + 1);
      nowMs += LEASE;
    }
  });

  it('a release hands over at once, and the next epoch is higher', async () => {
    const a = contender('a');
    const b = contender('b');
    await a.acquire();
    expect(await b.acquire()).toBe(false);
    await a.release();
    expect(a.isLeader()).toBe(false);
    expect(await b.acquire()).toBe(true);
    expect(b.epoch).toBe(2);
  });

  it('a claim left by a contender that died is broken once a lease passed', async () => {
    writeFileSync(join(dir, 'leader.lock.claim'), JSON.stringify({ holder: 'dead', atMs: nowMs }));
    const a = contender('a');
    expect(await a.acquire()).toBe(false);
    nowMs += LEASE;
    expect(await a.acquire()).toBe(true);
    expect(a.epoch).toBe(1);
  });

  it('a claim whose text is not there yet (a contender between creating and writing it) is not broken', async () => {
    writeFileSync(join(dir, 'leader.lock.claim'), '');
    const a = contender('a');
    expect(await a.acquire()).toBe(false);
    expect(a.isLeader()).toBe(false);
  });

  it('an unreadable claim whose file is older than a lease is broken', async () => {
    const claim = join(dir, 'leader.lock.claim');
    writeFileSync(claim, '{"hol');
    const old = (Date.now() - 2 * LEASE) / 1000;
    utimesSync(claim, old, old);
    const a = contender('a');
    expect(await a.acquire()).toBe(true);
    expect(a.epoch).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(['leader.lock']);
  });

  it('an unreadable lock file counts as lapsed', async () => {
    writeFileSync(join(dir, 'leader.lock'), 'not json');
    const a = contender('a');
    expect(await a.acquire()).toBe(true);
    expect(a.epoch).toBe(1);
  });
});
