import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'schedbrain-config-'));
  file = join(dir, 'schedbrain.yaml');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function fail(argv: string[], env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    loadConfig(argv, env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  it('has defaults', () => {
    const { config } = loadConfig([], {});
    expect(config).toMatchObject({
      port: 7878,
      periodMs: 10_000,
      stateDir: '.schedbrain',
      host: '127.0.0.1',
      limits: { maxActionsPerCycle: 50, maxCapacityStepPct: 100 },
      miniCluster: { nodes: 2 },
    });
    expect(config.rmUrl).toBeUndefined();
    expect(config.policy).toBeUndefined();
    expect(config.dryRun).toBeUndefined();
  });

  it('durations are in milliseconds; the old hour and day keys are read, converted, with a notice', () => {
    const DAY = 86_400_000;
    const d = loadConfig([], {});
    expect(d.config.journalRetentionMs).toBe(7 * DAY);
    expect(d.config.history.maxAgeMs).toBe(30 * DAY);
    expect(d.deprecations).toEqual([]);
    writeFileSync(file, 'journalRetentionHours: 48\nhistory:\n  maxAgeDays: 2\n');
    const old = loadConfig(['--config', file], {});
    expect(old.config.journalRetentionMs).toBe(2 * DAY);
    expect(old.config.history.maxAgeMs).toBe(2 * DAY);
    expect(old.deprecations).toEqual([
      expect.stringMatching(/^journalRetentionHours \(file .*\) is deprecated: it is read as journalRetentionMs = 172800000/),
      expect.stringMatching(/^history\.maxAgeDays .* history\.maxAgeMs = 172800000/),
    ]);
    expect(old.sources.get('journalRetentionMs')).toBe(`file ${file}`);
    expect(loadConfig([], { SCHEDBRAIN_JOURNAL_RETENTION_MS: '60000' }).config.journalRetentionMs).toBe(60_000);
    expect(loadConfig([], { SCHEDBRAIN_JOURNAL_RETENTION_HOURS: '1' }).config.journalRetentionMs).toBe(3_600_000);
    // Both names at once: which one is meant is unclear.
    const both = fail(['--config', file], { SCHEDBRAIN_JOURNAL_RETENTION_MS: '60000' });
    expect(both.message).toMatch(/journalRetentionHours.*replaced by journalRetentionMs/);
    writeFileSync(file, 'history:\n  maxAgeDays: -1\n');
    expect(fail(['--config', file]).message).toMatch(/history\.maxAgeDays.*number of days >= 0/);
  });

  it('precedence: flags > env > file > defaults', () => {
    writeFileSync(
      file,
      'rmUrl: http://file:8088\nport: 1111\nperiodMs: 5000\npolicy: capacity-targets\ndryRun: true\nlimits:\n  maxActionsPerCycle: 3\n  maxCapacityStepPct: 20\nstateDir: /from/file\n',
    );
    const env = { SCHEDBRAIN_PORT: '2222', SCHEDBRAIN_PERIOD_MS: '6000', SCHEDBRAIN_MAX_ACTIONS_PER_CYCLE: '4', SCHEDBRAIN_DRY_RUN: 'false' };
    const { config, sources } = loadConfig(['--config', file, '--port', '3333', '--state-dir=/from/flag'], env);
    expect(config.rmUrl).toBe('http://file:8088'); // file only
    expect(config.port).toBe(3333); // flag beats env and file
    expect(config.periodMs).toBe(6000); // env beats file
    expect(config.dryRun).toBe(false); // env beats file
    expect(config.stateDir).toBe('/from/flag');
    expect(config.limits).toEqual({
      maxActionsPerCycle: 4,
      maxCapacityStepPct: 20,
      maxOvercommitFactor: 4,
      allowZeroCapacity: [],
      maxSuspendsPerCycle: 1_000,
      maxSuspendsPerMinute: 10_000,
      maxKillsPerCycle: 20,
      maxKillsPerMinute: 100,
    }); // nested keys merge, the rest default
    expect(config.backoff).toEqual({ initialMs: 1000, maxMs: 60_000 }); // defaults
    expect(sources.get('port')).toBe('--port');
    expect(sources.get('periodMs')).toBe('env SCHEDBRAIN_PERIOD_MS');
    expect(sources.get('rmUrl')).toBe(`file ${file}`);
  });

  it('reads SCHEDBRAIN_CONFIG, policy params as JSON, and boolean flags', () => {
    writeFileSync(file, 'policy: capacity-targets\npolicyParams:\n  targets:\n    root.a: { capacityPct: 40 }\n');
    const { config } = loadConfig(['--dry-run'], { SCHEDBRAIN_CONFIG: file, SCHEDBRAIN_DRY_RUN: 'no' });
    expect(config.dryRun).toBe(true);
    expect(config.policyParams).toEqual({ targets: { 'root.a': { capacityPct: 40 } } });
    const env = loadConfig(['--no-dry-run'], { SCHEDBRAIN_POLICY_PARAMS: '{"targets":{}}', SCHEDBRAIN_DRY_RUN: '1' });
    expect(env.config.dryRun).toBe(false);
    expect(env.config.policyParams).toEqual({ targets: {} });
  });

  it('lists from env and flags (shim URLs)', () => {
    expect(loadConfig([], { SCHEDBRAIN_SHIM_URLS: 'http://a:1, http://b:2' }).config.shim).toEqual({
      urls: ['http://a:1', 'http://b:2'],
      leaseTtlMs: 30_000,
      readConcurrency: 16,
      listMaxAgeMs: 10_000,
    });
    expect(loadConfig(['--shim-urls', 'http://c:3'], { SCHEDBRAIN_SHIM_URLS: 'http://a:1' }).config.shim.urls).toEqual(['http://c:3']);
    const e = fail([], { SCHEDBRAIN_SHIM_URLS: 'http://a:1,nope' });
    expect(e.key).toBe('shim.urls.1');
    expect(e.message).toContain('env SCHEDBRAIN_SHIM_URLS');
  });

  it('bad config names the key and its source', () => {
    let e = fail([], { SCHEDBRAIN_PORT: 'eighty' });
    expect(e.key).toBe('port');
    expect(e.message).toMatch(/invalid configuration: port \(from env SCHEDBRAIN_PORT\): Expected number, received string/);
    e = fail(['--period-ms', '10']);
    expect(e.message).toMatch(/periodMs \(from --period-ms\).*100/);
    e = fail([], { SCHEDBRAIN_RM_URL: 'not a url' });
    expect(e.key).toBe('rmUrl');
    e = fail([], { SCHEDBRAIN_DRY_RUN: 'maybe' });
    expect(e.key).toBe('dryRun');
    writeFileSync(file, 'limits:\n  maxActionsPerCycel: 3\n');
    e = fail(['--config', file]);
    expect(e.key).toBe('limits.maxActionsPerCycel');
    expect(e.message).toMatch(/unknown key; known keys here: maxActionsPerCycle, maxCapacityStepPct/);
    expect(e.message).toContain(`file ${file}`);
    writeFileSync(file, 'port: [1, 2\n');
    expect(fail(['--config', file]).message).toMatch(/not valid YAML/);
    expect(fail(['--config', join(dir, 'missing.yaml')]).message).toMatch(/cannot read file \(ENOENT\)/);
    expect(fail(['--bogus']).message).toMatch(/--bogus.*unknown flag/);
    expect(fail(['--port']).message).toMatch(/port.*needs a value/);
    expect(fail([], { SCHEDBRAIN_POLICY_PARAMS: '{oops' }).message).toMatch(/policyParams.*not valid JSON/);
    expect(fail([], { SCHEDBRAIN_BACKOFF_INITIAL_MS: '5000', SCHEDBRAIN_BACKOFF_MAX_MS: '100' }).key).toBe('backoff.maxMs');
  });
});
