/**
 * Service configuration: defaults < YAML file (`--config FILE` or SCHEDBRAIN_CONFIG) <
 * environment (SCHEDBRAIN_*) < command-line flags. The merged result is validated with zod;
 * an error names the key and where its value came from.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { SchedbrainError } from './core/errors.js';
import { isValidCron } from './history/schedule.js';
import { DEFAULT_JOURNAL_MAX_BYTES } from './store/journal.js';

const DAY_MS = 86_400_000;

// node-cron would throw on an unknown zone only when the schedule starts; refuse it at load instead.
function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export const configSchema = z
  .object({
    /** ResourceManager REST base URL; empty = start an embedded mini YARN cluster. */
    rmUrl: z.string().url().optional(),
    /** User for RM REST calls (`user.name`). */
    user: z.string().min(1).optional(),
    requestTimeoutMs: z.number().int().positive().default(10_000),
    /** An HTTPS RM: CA file (PEM) for its certificate; client certificate and key if it asks for one. */
    rmTls: z
      .object({ caFile: z.string().min(1).optional(), certFile: z.string().min(1).optional(), keyFile: z.string().min(1).optional() })
      .strict()
      .optional(),
    /** A Kerberos-secured RM: file holding a delegation token (from `yarn` or the RM's delegation-token API). */
    rmDelegationTokenFile: z.string().min(1).optional(),
    /** Admin API listen address. */
    host: z.string().min(1).default('127.0.0.1'),
    /** Admin API port; 0 picks a free one. */
    port: z.number().int().min(0).max(65_535).default(7878),
    /** Engine period, ms. */
    periodMs: z.number().int().min(100).default(10_000),
    /** Directory of the embedded store. */
    stateDir: z.string().min(1).default('.schedbrain'),
    /** Decision journal entries older than this (ms) are pruned; 0 keeps everything. Default 7 days. */
    journalRetentionMs: z
      .number()
      .int()
      .min(0)
      .max(3650 * DAY_MS)
      .default(7 * DAY_MS),
    /** The decision journal is kept within this many bytes (keys and values as stored), oldest entries dropped first; 0: no size limit. Default 256 MiB. */
    journalMaxBytes: z
      .number()
      .int()
      .min(0)
      .max(2 ** 40)
      .default(DEFAULT_JOURNAL_MAX_BYTES),
    /** Policy to run; when omitted the stored one (or capacity-targets) runs. */
    policy: z.string().min(1).optional(),
    /** Parameters of `policy`. */
    policyParams: z.unknown().optional(),
    /** Discard every statement (decide and journal, never write). */
    dryRun: z.boolean().optional(),
    limits: z
      .object({
        maxActionsPerCycle: z.number().int().min(0).default(50),
        /** Percentage points a queue capacity may move per cycle. */
        maxCapacityStepPct: z.number().positive().max(100).default(100),
        /** Advertised node resources at most this multiple of physical. */
        maxOvercommitFactor: z.number().min(1).max(64).default(4),
        /** Existing queues whose guarantee may be set to 0. */
        allowZeroCapacity: z.array(z.string().min(1).max(1000)).max(1000).default([]),
        maxSuspendsPerCycle: z.number().int().min(0).max(1_000_000).default(1_000),
        maxSuspendsPerMinute: z.number().int().min(0).max(10_000_000).default(10_000),
        maxKillsPerCycle: z.number().int().min(0).max(100_000).default(20),
        maxKillsPerMinute: z.number().int().min(0).max(1_000_000).default(100),
      })
      .strict()
      .default({}),
    backoff: z
      .object({
        initialMs: z.number().int().positive().default(1000),
        maxMs: z.number().int().positive().default(60_000),
      })
      .strict()
      .default({}),
    /** NodeManager shims (container CPU accounting, suspend/resume, node ranking); none = RM only. */
    shim: z
      .object({
        urls: z.array(z.string().url()).default([]),
        /** The RM-side shim that takes the node ranking (default: the first of urls). */
        rankingUrl: z.string().url().optional(),
        /** Lease the brain renews on every shim; when it lapses the shims resume everything. */
        leaseTtlMs: z.number().int().min(1000).max(3_600_000).default(30_000),
        /** File with the shims' shared secret (schedbrain.shim.secret-file on the NodeManagers). */
        secretFile: z.string().min(1).optional(),
        /** Node shims' container lists read at once in a refresh (docs/decisions.md, "Running containers come from the NodeManager shims"). */
        readConcurrency: z.number().int().min(1).max(256).default(16),
        /** A node shim whose nodes the RM shows unchanged is read again after this long anyway (attained CPU service moves unseen). */
        listMaxAgeMs: z.number().int().min(0).max(3_600_000).default(10_000),
      })
      .strict()
      .default({}),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** A field the brain wrote and someone else changed: respect it for holdOffMs, override it, or pause every write. */
    drift: z
      .object({
        policy: z.enum(['respect', 'override', 'pause']).default('respect'),
        holdOffMs: z
          .number()
          .int()
          .min(0)
          .max(7 * 24 * 3600_000)
          .default(10 * 60_000),
      })
      .strict()
      .default({}),
    /** Who may call the admin API (src/api/auth.ts). Tokens also come from SCHEDBRAIN_API_TOKENS. */
    auth: z
      .object({
        /** YAML/JSON list of { name, role: read|operate|admin, token }. */
        tokensFile: z.string().min(1).optional(),
        /** GET routes answer without a token. */
        openReads: z.boolean().default(false),
        /** /livez, /healthz and /metrics answer without a token. */
        openProbes: z.boolean().default(true),
        /** Host names the `Host` header may carry besides loopback, this host's name and `host`. */
        allowedHosts: z.array(z.string().min(1).max(253)).default([]),
      })
      .strict()
      .default({}),
    /** TLS for the admin API; with clientCaFile, clients must present a certificate it signed. */
    tls: z
      .object({ certFile: z.string().min(1), keyFile: z.string().min(1), clientCaFile: z.string().min(1).optional() })
      .strict()
      .optional(),
    /** Serve the admin API on a non-loopback address without TLS (tokens then cross the network in clear). */
    allowInsecureBind: z.boolean().default(false),
    /** Run a writing policy whose needs the cluster lacks (its decisions journaled as unsupported) instead of refusing it. */
    allowAdvisory: z.boolean().default(false),
    /**
     * History of ended applications read from the RM into the store (src/history). Off unless
     * pullCron is set; retention then runs on retentionCron. Cron: 5 fields, or 6 with seconds.
     */
    history: z
      .object({
        /** When to read what ended since the last pull (every five minutes: a step of 5 in the minute field); unset = no history. */
        pullCron: z.string().min(1).refine(isValidCron, 'not a valid cron expression').optional(),
        retentionCron: z.string().min(1).refine(isValidCron, 'not a valid cron expression').default('23 * * * *'),
        /** Records of applications that ended longer ago (ms) are dropped (and the first pull reads no further back). Default 30 days. */
        maxAgeMs: z
          .number()
          .int()
          .positive()
          .max(3650 * DAY_MS)
          .default(30 * DAY_MS),
        /** Past this many records, those that ended earliest are dropped. */
        maxRecords: z.number().int().min(1).max(10_000_000).default(100_000),
        /** Each pull reads again this far before the latest end it recorded (late state-store saves). */
        overlapMs: z
          .number()
          .int()
          .min(0)
          .max(24 * 3600_000)
          .default(5 * 60_000),
        /** Cron time zone, e.g. `UTC` (default: the process's). */
        timezone: z.string().min(1).refine(isTimeZone, 'not a time zone this runtime knows').optional(),
        /** Timeline server (application history), asked for the containers an ended application ran. */
        timelineUrl: z
          .string()
          .url()
          .regex(/^https?:/, 'an http or https URL')
          .optional(),
        /** MapReduce JobHistory server, asked for a MapReduce job's tasks when the timeline server does not know it. */
        jobHistoryUrl: z
          .string()
          .url()
          .regex(/^https?:/, 'an http or https URL')
          .optional(),
      })
      .strict()
      .default({}),
    /**
     * The RM runs YARN's ReservationSystem with this reservable leaf of root (the `rayon` baseline
     * live, `/v1/rayon/reservations`); the brain then never writes the scheduler configuration.
     * With the embedded mini YARN, the leaf is created with 75 % of the cluster.
     */
    reservationQueue: z
      .string()
      .regex(/^[A-Za-z0-9_]+$/, 'a leaf name of root: letters, digits and "_"')
      .optional(),
    /**
     * One active brain among several (docs/operator-guide.md, "Running two brains"): the brain
     * writes only while it holds the leadership. `file`: a lock file on this host (the default;
     * brains on one host share `lockFile`); `zookeeper`: ephemeral znodes under `zkPath` on the
     * ensemble `zk` (the default when `zk` is set); `none`: no election, the brain always writes.
     */
    leader: z
      .object({
        election: z.enum(['file', 'zookeeper', 'none']).optional(),
        /** Default: <stateDir>/leader.lock. */
        lockFile: z.string().min(1).optional(),
        /** ZooKeeper ensemble, `host:port[,host:port...]`. */
        zk: z
          .string()
          .regex(/^[^\s,]+:\d+(,[^\s,]+:\d+)*(\/[^\s]*)?$/, 'host:port[,host:port...] (optionally a /chroot)')
          .optional(),
        zkPath: z
          .string()
          .regex(/^(\/[^/\s]+)+$/, 'an absolute znode path such as /schedbrain/leader')
          .default('/schedbrain/leader'),
        /** A leader silent this long loses the leadership (ZooKeeper: the session timeout asked for). */
        leaseMs: z.number().int().min(1000).max(600_000).default(15_000),
        /** What a new leader does with over-commits and suspensions a previous brain left: undo or adopt them. */
        onTakeover: z.enum(['undo', 'adopt']).default('undo'),
      })
      .strict()
      .default({}),
    /** Embedded mini YARN (used when rmUrl is empty). */
    miniCluster: z
      .object({
        nodes: z.number().int().min(1).max(16).default(2),
        workDir: z.string().optional(),
      })
      .strict()
      .default({}),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;

/** Bad configuration: names the key and its source. */
export class ConfigError extends SchedbrainError {
  constructor(
    readonly key: string,
    readonly source: string,
    reason: string,
  ) {
    super(`invalid configuration: ${key}${source ? ` (from ${source})` : ''}: ${reason}`);
  }
}

type Kind = 'string' | 'number' | 'boolean' | 'json' | 'list';

/** Environment variables and the config key each sets. */
export const ENV_VARS: Record<string, { key: string; kind: Kind }> = {
  SCHEDBRAIN_RM_URL: { key: 'rmUrl', kind: 'string' },
  SCHEDBRAIN_USER: { key: 'user', kind: 'string' },
  SCHEDBRAIN_REQUEST_TIMEOUT_MS: { key: 'requestTimeoutMs', kind: 'number' },
  SCHEDBRAIN_HOST: { key: 'host', kind: 'string' },
  SCHEDBRAIN_PORT: { key: 'port', kind: 'number' },
  SCHEDBRAIN_PERIOD_MS: { key: 'periodMs', kind: 'number' },
  SCHEDBRAIN_STATE_DIR: { key: 'stateDir', kind: 'string' },
  SCHEDBRAIN_POLICY: { key: 'policy', kind: 'string' },
  SCHEDBRAIN_JOURNAL_RETENTION_MS: { key: 'journalRetentionMs', kind: 'number' },
  SCHEDBRAIN_JOURNAL_RETENTION_HOURS: { key: 'journalRetentionHours', kind: 'number' },
  SCHEDBRAIN_JOURNAL_MAX_BYTES: { key: 'journalMaxBytes', kind: 'number' },
  SCHEDBRAIN_POLICY_PARAMS: { key: 'policyParams', kind: 'json' },
  SCHEDBRAIN_DRY_RUN: { key: 'dryRun', kind: 'boolean' },
  SCHEDBRAIN_MAX_ACTIONS_PER_CYCLE: { key: 'limits.maxActionsPerCycle', kind: 'number' },
  SCHEDBRAIN_MAX_CAPACITY_STEP_PCT: { key: 'limits.maxCapacityStepPct', kind: 'number' },
  SCHEDBRAIN_MAX_OVERCOMMIT_FACTOR: { key: 'limits.maxOvercommitFactor', kind: 'number' },
  SCHEDBRAIN_ALLOW_ZERO_CAPACITY: { key: 'limits.allowZeroCapacity', kind: 'list' },
  SCHEDBRAIN_BACKOFF_INITIAL_MS: { key: 'backoff.initialMs', kind: 'number' },
  SCHEDBRAIN_BACKOFF_MAX_MS: { key: 'backoff.maxMs', kind: 'number' },
  SCHEDBRAIN_LOG_LEVEL: { key: 'logLevel', kind: 'string' },
  SCHEDBRAIN_SHIM_URLS: { key: 'shim.urls', kind: 'list' },
  SCHEDBRAIN_SHIM_SECRET_FILE: { key: 'shim.secretFile', kind: 'string' },
  SCHEDBRAIN_MINI_NODES: { key: 'miniCluster.nodes', kind: 'number' },
  SCHEDBRAIN_TOKENS_FILE: { key: 'auth.tokensFile', kind: 'string' },
  SCHEDBRAIN_DRIFT_POLICY: { key: 'drift.policy', kind: 'string' },
  SCHEDBRAIN_DRIFT_HOLD_OFF_MS: { key: 'drift.holdOffMs', kind: 'number' },
  SCHEDBRAIN_OPEN_READS: { key: 'auth.openReads', kind: 'boolean' },
  SCHEDBRAIN_ALLOWED_HOSTS: { key: 'auth.allowedHosts', kind: 'list' },
  SCHEDBRAIN_HISTORY_PULL_CRON: { key: 'history.pullCron', kind: 'string' },
  SCHEDBRAIN_LEADER_ELECTION: { key: 'leader.election', kind: 'string' },
  SCHEDBRAIN_LEADER_LOCK_FILE: { key: 'leader.lockFile', kind: 'string' },
  SCHEDBRAIN_LEADER_ZK: { key: 'leader.zk', kind: 'string' },
  SCHEDBRAIN_LEADER_ZK_PATH: { key: 'leader.zkPath', kind: 'string' },
  SCHEDBRAIN_LEADER_LEASE_MS: { key: 'leader.leaseMs', kind: 'number' },
  SCHEDBRAIN_LEADER_TAKEOVER: { key: 'leader.onTakeover', kind: 'string' },
};

/** Command-line flags (`--flag VALUE` or `--flag=VALUE`; booleans take no value) of `serve`. */
export const CONFIG_FLAGS: Record<string, { key: string; kind: Kind; help: string }> = {
  'rm-url': { key: 'rmUrl', kind: 'string', help: 'ResourceManager URL (default: start an embedded mini YARN)' },
  user: { key: 'user', kind: 'string', help: 'user for RM REST calls' },
  'rm-ca-file': { key: 'rmTls.caFile', kind: 'string', help: "CA (PEM) for an HTTPS RM's certificate" },
  'rm-cert-file': { key: 'rmTls.certFile', kind: 'string', help: 'client certificate (PEM) for an HTTPS RM that asks for one' },
  'rm-key-file': { key: 'rmTls.keyFile', kind: 'string', help: 'key (PEM) of --rm-cert-file' },
  'rm-delegation-token-file': { key: 'rmDelegationTokenFile', kind: 'string', help: 'file with an RM delegation token (Kerberos-secured RM)' },
  policy: { key: 'policy', kind: 'string', help: 'policy to run (default: the stored one, else capacity-targets)' },
  'policy-params': { key: 'policyParams', kind: 'json', help: 'policy parameters as JSON' },
  'dry-run': { key: 'dryRun', kind: 'boolean', help: 'decide and journal, never write (--no-dry-run to force off)' },
  host: { key: 'host', kind: 'string', help: 'admin API listen address (default 127.0.0.1)' },
  port: { key: 'port', kind: 'number', help: 'admin API port (default 7878; 0 = any free port)' },
  'period-ms': { key: 'periodMs', kind: 'number', help: 'engine period in ms (default 10000)' },
  'state-dir': { key: 'stateDir', kind: 'string', help: 'store directory (default .schedbrain)' },
  'max-actions-per-cycle': { key: 'limits.maxActionsPerCycle', kind: 'number', help: 'safety limit (default 50)' },
  'max-capacity-step-pct': { key: 'limits.maxCapacityStepPct', kind: 'number', help: 'largest queue capacity change per cycle in points (default 100)' },
  'max-overcommit-factor': { key: 'limits.maxOvercommitFactor', kind: 'number', help: 'largest advertised/physical node resource ratio (default 4)' },
  'allow-zero-capacity': { key: 'limits.allowZeroCapacity', kind: 'list', help: 'queues whose guarantee may be set to 0, comma-separated (default none)' },
  'shim-urls': { key: 'shim.urls', kind: 'list', help: 'NodeManager shim URLs, comma-separated (default: none)' },
  'shim-secret-file': { key: 'shim.secretFile', kind: 'string', help: "file with the shims' shared secret (default: the embedded mini YARN's)" },
  'log-level': { key: 'logLevel', kind: 'string', help: 'fatal|error|warn|info|debug|trace|silent (default info)' },
  nodes: { key: 'miniCluster.nodes', kind: 'number', help: 'NodeManagers of the embedded mini YARN (default 2)' },
  'drift-policy': {
    key: 'drift.policy',
    kind: 'string',
    help: 'a field changed outside the brain: respect (default: left alone for --drift-hold-off-ms), override, or pause every write',
  },
  'drift-hold-off-ms': { key: 'drift.holdOffMs', kind: 'number', help: 'how long a change outside the brain is respected (default 600000)' },
  'tokens-file': {
    key: 'auth.tokensFile',
    kind: 'string',
    help: 'admin API tokens: YAML list of {name, role: read|operate|admin, token} (default: <state-dir>/admin.token, made on first start)',
  },
  'open-reads': { key: 'auth.openReads', kind: 'boolean', help: 'GET routes answer without a token (default off)' },
  'allowed-hosts': { key: 'auth.allowedHosts', kind: 'list', help: 'Host header names accepted besides loopback and this host, comma-separated' },
  'tls-cert': { key: 'tls.certFile', kind: 'string', help: 'admin API TLS certificate (PEM); with --tls-key' },
  'tls-key': { key: 'tls.keyFile', kind: 'string', help: 'admin API TLS private key (PEM)' },
  'tls-client-ca': { key: 'tls.clientCaFile', kind: 'string', help: 'require client certificates signed by this CA (mTLS)' },
  'reservation-queue': {
    key: 'reservationQueue',
    kind: 'string',
    help: "reservable leaf of root for YARN's ReservationSystem (rayon live); no scheduler-conf writes then",
  },
  'allow-advisory': {
    key: 'allowAdvisory',
    kind: 'boolean',
    help: 'run a writing policy the cluster cannot fully carry out (e.g. Kairos without a shim) advisory instead of refusing it',
  },
  'allow-insecure-bind': { key: 'allowInsecureBind', kind: 'boolean', help: 'serve on a non-loopback address without TLS (default: refuse)' },
  'leader-election': {
    key: 'leader.election',
    kind: 'string',
    help: 'file (default) | zookeeper (default with --leader-zk) | none: who may write among several brains',
  },
  'leader-lock-file': {
    key: 'leader.lockFile',
    kind: 'string',
    help: 'lock file of the file election; brains on one host name the same one (default <state-dir>/leader.lock)',
  },
  'leader-zk': { key: 'leader.zk', kind: 'string', help: 'ZooKeeper ensemble host:port[,host:port...] for the leader election' },
  'leader-zk-path': { key: 'leader.zkPath', kind: 'string', help: 'znode of the election (default /schedbrain/leader)' },
  'leader-lease-ms': { key: 'leader.leaseMs', kind: 'number', help: 'a silent leader loses the leadership after this (default 15000)' },
  'leader-takeover': {
    key: 'leader.onTakeover',
    kind: 'string',
    help: 'a new leader undoes (default) or adopts the over-commits and suspensions a previous brain left',
  },
};

type Tree = Record<string, unknown>;

/**
 * Keys renamed so that every duration is in milliseconds: the old name is still read (converted,
 * with a deprecation notice at startup) unless the new one is also given.
 */
export const DEPRECATED_KEYS: ReadonlyArray<{ readonly old: string; readonly key: string; readonly toMs: number; readonly unit: string }> = [
  { old: 'journalRetentionHours', key: 'journalRetentionMs', toMs: 3_600_000, unit: 'hours' },
  { old: 'history.maxAgeDays', key: 'history.maxAgeMs', toMs: DAY_MS, unit: 'days' },
];

function getPath(t: Tree, key: string): unknown {
  let cur: unknown = t;
  for (const p of key.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Tree)[p];
  }
  return cur;
}

function deletePath(t: Tree, key: string): void {
  const parts = key.split('.');
  const holder = parts.length === 1 ? t : getPath(t, parts.slice(0, -1).join('.'));
  if (holder && typeof holder === 'object') delete (holder as Tree)[parts[parts.length - 1]];
}

/** Moves deprecated keys to their millisecond names; returns one notice per key moved. */
function renameDeprecated(merged: Tree, sources: Map<string, string>): string[] {
  const notices: string[] = [];
  for (const d of DEPRECATED_KEYS) {
    const v = getPath(merged, d.old);
    if (v === undefined) continue;
    const from = sources.get(d.old) ?? '';
    if (getPath(merged, d.key) !== undefined) throw new ConfigError(d.old, from, `replaced by ${d.key} (milliseconds), which is set too: give only ${d.key}`);
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new ConfigError(d.old, from, `expected a number of ${d.unit} >= 0`);
    deletePath(merged, d.old);
    setPath(merged, d.key, Math.round(v * d.toMs));
    sources.delete(d.old);
    sources.set(d.key, from);
    notices.push(`${d.old} (${from || 'config'}) is deprecated: it is read as ${d.key} = ${Math.round(v * d.toMs)}; rename it`);
  }
  return notices;
}

function setPath(t: Tree, key: string, v: unknown): void {
  const parts = key.split('.');
  let cur = t;
  for (const p of parts.slice(0, -1)) {
    if (typeof cur[p] !== 'object' || cur[p] === null || Array.isArray(cur[p])) cur[p] = {};
    cur = cur[p] as Tree;
  }
  cur[parts[parts.length - 1]] = v;
}

/** Converts a string from env/flags; leaves it as is when it does not convert, so zod reports it. */
function convert(raw: string, kind: Kind, key: string, source: string): unknown {
  switch (kind) {
    case 'string':
      return raw;
    case 'list':
      return raw
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== '');
    case 'number': {
      const n = raw.trim() === '' ? NaN : Number(raw);
      return Number.isFinite(n) ? n : raw;
    }
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
      return raw;
    }
    case 'json':
      try {
        return JSON.parse(raw);
      } catch (e) {
        throw new ConfigError(key, source, `not valid JSON (${(e as Error).message})`);
      }
  }
}

/** Deep merge of plain objects; later wins; arrays and scalars replace. */
function merge(a: Tree, b: Tree): Tree {
  const out: Tree = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur) ? merge(cur as Tree, v as Tree) : v;
  }
  return out;
}

function collectKeys(t: Tree, prefix = ''): string[] {
  return Object.entries(t).flatMap(([k, v]) => {
    const key = prefix ? `${prefix}.${k}` : k;
    return v && typeof v === 'object' && !Array.isArray(v) && key !== 'policyParams' ? [key, ...collectKeys(v as Tree, key)] : [key];
  });
}

export interface ParsedFlags {
  /** Config values set by flags (nested by key). */
  values: Tree;
  /** `--config FILE`, if given. */
  configFile?: string;
  help: boolean;
  /** Anything not a flag. */
  positional: string[];
}

/**
 * Parses `serve`-style flags. Unknown flags are an error naming the flag. Node's `parseArgs`
 * splits the words (`--name value`, `--name=value`, `-h`, `--`); what each flag means, `--no-`
 * for booleans and the error messages are this module's.
 */
export function parseConfigFlags(argv: readonly string[], flags = CONFIG_FLAGS): ParsedFlags {
  const out: ParsedFlags = { values: {}, help: false, positional: [] };
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } };
  for (const [name, f] of Object.entries(flags)) options[name] = { type: f.kind === 'boolean' ? 'boolean' : 'string' };
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  for (const t of tokens) {
    if (t.kind === 'option-terminator') continue;
    if (t.kind === 'positional') {
      out.positional.push(t.value);
      continue;
    }
    if (t.name === 'help') {
      out.help = true;
      continue;
    }
    // A single-dash word other than -h is not a flag of ours: an argument, as before.
    if (!t.rawName.startsWith('--')) {
      out.positional.push(argv[t.index]);
      continue;
    }
    let name = t.name;
    if (name === 'config') {
      if (t.value === undefined) throw new ConfigError('config', '--config', 'needs a file name');
      out.configFile = t.value;
      continue;
    }
    let negated = false;
    if (!flags[name] && name.startsWith('no-') && flags[name.slice(3)]?.kind === 'boolean') {
      name = name.slice(3);
      negated = true;
    }
    const f = flags[name];
    if (!f)
      throw new ConfigError(
        `--${name}`,
        'command line',
        `unknown flag; known: --config, ${Object.keys(flags)
          .map((k) => `--${k}`)
          .join(', ')}`,
      );
    if (f.kind === 'boolean') {
      setPath(out.values, f.key, negated ? false : t.value === undefined ? true : convert(t.value, 'boolean', f.key, `--${name}`));
      continue;
    }
    // parseArgs takes the next word as the value whatever it is; a flag there means none was given.
    if (t.value === undefined || (!t.inlineValue && t.value.startsWith('--'))) throw new ConfigError(f.key, `--${name}`, 'needs a value');
    setPath(out.values, f.key, convert(t.value, f.kind, f.key, `--${name}`));
  }
  return out;
}

export function readConfigFile(file: string): Tree {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError('config', file, `cannot read file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new ConfigError('config', file, `not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError('config', file, 'the file must hold a mapping of keys');
  return doc as Tree;
}

export function envValues(env: NodeJS.ProcessEnv): { values: Tree; sources: Map<string, string> } {
  const values: Tree = {};
  const sources = new Map<string, string>();
  for (const [name, { key, kind }] of Object.entries(ENV_VARS)) {
    const raw = env[name];
    if (raw === undefined) continue;
    // An empty string unsets (useful to clear SCHEDBRAIN_RM_URL from a parent shell).
    if (raw === '' && kind !== 'boolean') continue;
    setPath(values, key, convert(raw, kind, key, `env ${name}`));
    sources.set(key, `env ${name}`);
  }
  return { values, sources };
}

export interface LoadedConfig {
  readonly config: Config;
  /** Keys set by file, env or flags (not defaults) and where each came from. */
  readonly sources: ReadonlyMap<string, string>;
  /** Deprecated keys that were read under their new names (to log at startup). */
  readonly deprecations: readonly string[];
  readonly help: boolean;
  readonly positional: readonly string[];
}

/** Builds the configuration from flags, environment and file. Throws ConfigError. */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const flags = parseConfigFlags(argv);
  const file = flags.configFile ?? (env.SCHEDBRAIN_CONFIG || undefined);
  const sources = new Map<string, string>();
  let merged: Tree = {};
  if (file) {
    const fromFile = readConfigFile(file);
    for (const k of collectKeys(fromFile)) sources.set(k, `file ${file}`);
    merged = merge(merged, fromFile);
  }
  const e = envValues(env);
  for (const [k, s] of e.sources) sources.set(k, s);
  merged = merge(merged, e.values);
  const flagSource = new Map<string, string>();
  for (const [name, f] of Object.entries(CONFIG_FLAGS)) flagSource.set(f.key, `--${name}`);
  for (const k of collectKeys(flags.values)) sources.set(k, flagSource.get(k) ?? 'command line');
  merged = merge(merged, flags.values);
  const deprecations = renameDeprecated(merged, sources);
  const r = configSchema.safeParse(merged);
  if (!r.success) {
    const i = r.error.issues[0];
    let key = i.path.join('.');
    let reason = i.message;
    if (i.code === 'unrecognized_keys') {
      key = [...i.path, i.keys[0]].join('.');
      reason = `unknown key; known keys here: ${Object.keys(keyShape(i.path.map(String))).join(', ')}`;
    }
    const source = sources.get(key) ?? [...sources.entries()].find(([k]) => key.startsWith(`${k}.`))?.[1] ?? '';
    throw new ConfigError(key || '(root)', source, reason);
  }
  if (r.data.backoff.maxMs < r.data.backoff.initialMs)
    throw new ConfigError('backoff.maxMs', sources.get('backoff.maxMs') ?? '', 'must be >= backoff.initialMs');
  if (r.data.leader.election === 'zookeeper' && !r.data.leader.zk)
    throw new ConfigError('leader.zk', sources.get('leader.election') ?? '', 'the zookeeper election needs the ensemble (--leader-zk host:port[,...])');
  return { config: r.data, sources, deprecations, help: flags.help, positional: flags.positional };
}

function keyShape(path: string[]): Record<string, unknown> {
  let s: z.ZodTypeAny = configSchema;
  for (const p of path) {
    while (s instanceof z.ZodDefault || s instanceof z.ZodOptional) s = s._def.innerType;
    s = (s as z.AnyZodObject).shape[p];
  }
  while (s instanceof z.ZodDefault || s instanceof z.ZodOptional) s = s._def.innerType;
  return (s as z.AnyZodObject).shape as Record<string, unknown>;
}

export function configHelp(): string {
  const flagLines = Object.entries(CONFIG_FLAGS).map(
    ([n, f]) =>
      `  --${n}${f.kind === 'boolean' ? '' : ` ${f.kind === 'number' ? 'N' : f.kind === 'json' ? 'JSON' : f.kind === 'list' ? 'A,B' : 'VALUE'}`}`.padEnd(32) +
      f.help,
  );
  const envLines = Object.entries(ENV_VARS).map(([n, v]) => `  ${n.padEnd(34)}${v.key}`);
  return [
    '  --config FILE'.padEnd(32) + 'YAML configuration file (also SCHEDBRAIN_CONFIG)',
    ...flagLines,
    '',
    'Environment (flags > environment > file > defaults):',
    ...envLines,
    `  ${'SCHEDBRAIN_API_TOKENS'.padEnd(34)}admin API tokens, name:role:token[,name:role:token...]`,
  ].join('\n');
}

/** Keys whose values are secrets themselves (file paths to secrets are not: they stay). */
const SECRET_KEY = /^(token|tokens|secret|password|passphrase|privateKey|key)$/i;

/** A copy of `value` with every secret-valued key replaced by `(redacted)`, for state dumps and logs. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '(redacted)' : redactSecrets(v);
  return out;
}
