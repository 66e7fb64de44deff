/**
 * The leader election's settings (`leader`, --leader-*, SCHEDBRAIN_LEADER_*), the election serve
 * builds from them, and the journal line a new leader writes about what it took over.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeTakeOver, leaderElectionFor } from '../../src/cli/main.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { FileLeaderElection } from '../../src/engine/leadership.js';
import { ZooKeeperLeaderElection } from '../../src/engine/leadership-zk.js';

describe('leader settings', () => {
  it('default to a file election in the state directory, a 15 s lease, undo on takeover', async () => {
    const { config } = loadConfig([], {});
    expect(config.leader).toEqual({ zkPath: '/schedbrain/leader', leaseMs: 15_000, onTakeover: 'undo' });
    const dir = mkdtempSync(join(tmpdir(), 'schedbrain-leader-cfg-'));
    try {
      const el = await leaderElectionFor({ ...config, stateDir: dir }, 'me');
      expect(el).toBeInstanceOf(FileLeaderElection);
      expect(await el!.acquire()).toBe(true);
      expect(el!.status()).toEqual({ role: 'leader', epoch: 1, holder: 'me' });
      await el!.release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('take the flags and the environment; --leader-zk picks ZooKeeper', async () => {
    const { config } = loadConfig(
      ['--leader-zk', 'zk1:2181,zk2:2181', '--leader-zk-path', '/yarn/brains', '--leader-lease-ms', '20000', '--leader-takeover', 'adopt'],
      {},
    );
    expect(config.leader).toEqual({ zk: 'zk1:2181,zk2:2181', zkPath: '/yarn/brains', leaseMs: 20_000, onTakeover: 'adopt' });
    expect(await leaderElectionFor(config, 'me')).toBeInstanceOf(ZooKeeperLeaderElection);
    const env = loadConfig([], { SCHEDBRAIN_LEADER_ELECTION: 'none', SCHEDBRAIN_LEADER_LOCK_FILE: '/var/lib/schedbrain/leader.lock' }).config;
    expect(env.leader.election).toBe('none');
    expect(env.leader.lockFile).toBe('/var/lib/schedbrain/leader.lock');
    expect(await leaderElectionFor(env, 'me')).toBeUndefined();
  });

  it('refuse a ZooKeeper election without an ensemble, a bad ensemble, path or takeover mode', () => {
    const fails = (argv: string[]) => {
      try {
        loadConfig(argv, {});
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).message;
      }
      throw new Error(`accepted ${argv.join(' ')}`);
    };
    expect(fails(['--leader-election', 'zookeeper'])).toMatch(/leader\.zk/);
    expect(fails(['--leader-zk', 'zk1'])).toMatch(/leader\.zk/);
    expect(fails(['--leader-zk', 'zk1:2181', '--leader-zk-path', 'schedbrain'])).toMatch(/leader\.zkPath/);
    expect(fails(['--leader-takeover', 'ignore'])).toMatch(/leader\.onTakeover/);
    expect(fails(['--leader-lease-ms', '10'])).toMatch(/leader\.leaseMs/);
  });
});

describe('describeTakeOver', () => {
  const base = { physicalFrom: { 'n1:1': 'nodemanager' as const, 'n2:1': 'advertised' as const }, notes: [], errors: [] };
  it('says when nothing was left', () => {
    expect(describeTakeOver({ ...base, mode: 'undo', overcommitted: [], suspended: [], restoredNodes: [], resumedContainers: [] })).toBe(
      "nothing left by a previous brain (physical capacities: 1 from the NodeManagers' configuration, 0 recorded, 1 as advertised)",
    );
  });
  it('ends with what could not be read or was left alone', () => {
    expect(
      describeTakeOver({
        ...base,
        notes: ['n2:1 is advertised below its physical capacity (2048 MB / 2 vcores of 4096 / 4): left as it is'],
        mode: 'undo',
        overcommitted: [],
        suspended: [],
        restoredNodes: [],
        resumedContainers: [],
      }),
    ).toMatch(/as advertised\); n2:1 is advertised below its physical capacity .*: left as it is$/);
  });
  it('names what was undone or adopted', () => {
    const over = [{ nodeId: 'n1:1', advertised: { memoryMB: 8192, vcores: 8 }, physical: { memoryMB: 4096, vcores: 4 } }];
    expect(
      describeTakeOver({ ...base, mode: 'undo', overcommitted: over, suspended: ['c1', 'c2'], restoredNodes: ['n1:1'], resumedContainers: ['c1', 'c2'] }),
    ).toBe(
      "undo: 1 over-committed node(s) undone (1 restored): n1:1 8192 MB / 8 vcores, physical 4096 / 4 (nodemanager); 2 suspended container(s) undone (2 resumed) (physical capacities: 1 from the NodeManagers' configuration, 0 recorded, 1 as advertised)",
    );
    expect(describeTakeOver({ ...base, mode: 'adopt', overcommitted: over, suspended: ['c1'], restoredNodes: [], resumedContainers: [] })).toMatch(
      /^adopt: 1 over-committed node\(s\) adopted: n1:1 .*; 1 suspended container\(s\) adopted \(kept suspended under this brain\)/,
    );
  });
});
