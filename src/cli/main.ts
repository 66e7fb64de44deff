/**
 * `schedbrain` commands: serve, minicluster, simulate. Returns an exit code; bin/schedbrain.mjs
 * calls `main(process.argv.slice(2))`.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino, { type Logger } from 'pino';
import { SchedbrainError, ValidationError } from '../core/errors.js';
import { ApiAuth, AuthConfigError, defaultAllowedHosts, ensureAdminTokenFile, isLoopback, parseTokenList, readTokensFile, type ApiToken } from '../api/auth.js';
import { configHelp, ConfigError, loadConfig, redactSecrets, type Config } from '../config.js';
import type { LeaderElection } from '../engine/leadership.js';
import type { TakeOverReport } from '../yarn/backend.js';
import { ADMIN_COMMANDS, ADMIN_HELP_LINES, runAdminCommand } from './admin/index.js';

const MAIN_HELP = `schedbrain: a scheduling brain for Apache Hadoop YARN

Usage: schedbrain <command> [options]

Commands:
  serve          run the engine and the admin API against a ResourceManager
                 (starts an embedded mini YARN when no RM URL is configured)
  minicluster    start a standalone mini YARN cluster and print its RM URL
  simulate       run policies on a simulated cluster (schedbrain simulate --help)
  record         write the applications a cluster ran as a trace to simulate (schedbrain record --help)

Commands on a running service (its admin API; --server, token from SCHEDBRAIN_TOKEN or admin.token):
${ADMIN_HELP_LINES}

Run 'schedbrain <command> --help' for the options of a command.`;

const SERVE_HELP = `Usage: schedbrain serve [options]

Polls the ResourceManager every period, runs the policy, applies its decisions (or only journals
them in dry-run / advisory mode) and serves the admin API (GET /healthz, /metrics, /v1/snapshot,
/v1/decisions, GET|PUT /v1/policy, POST /v1/dry-run).

Options:
${configHelp()}

Examples:
  schedbrain serve                                   # embedded mini YARN, capacity-targets
  schedbrain serve --rm-url http://rm:8088 --policy capacity-targets --dry-run
  SCHEDBRAIN_RM_URL=http://rm:8088 schedbrain serve --config /etc/schedbrain.yaml`;

const MINI_HELP = `Usage: schedbrain minicluster [--nodes N]

Starts an embedded Apache Hadoop YARN cluster (MiniYARNCluster, needs Java 11+) and prints its
ResourceManager URL and client configuration directory; runs until Ctrl-C.

Options:
  --nodes N      NodeManagers (default 2)
  --help         this help`;

interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

const stdio: Io = { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`) };

function makeLogger(level: Config['logLevel']): Logger {
  // One JSON object per line on stderr, ISO timestamps; stdout carries only the URLs we print.
  return pino({ level, base: { svc: 'schedbrain' }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ fd: 2, sync: true }));
}

/** Resolves when SIGINT or SIGTERM arrives; a second signal exits at once. */
function waitForSignal(log?: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let got = false;
    const on = (sig: NodeJS.Signals) => {
      if (got) {
        log?.warn({ signal: sig }, 'second signal: exiting now');
        process.exit(130);
      }
      got = true;
      resolve(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/** Shim URLs for serve: the configured ones, else the embedded mini cluster's shim. */
export function defaultShimUrls(configured: readonly string[], miniShimUrl: string | undefined): string[] {
  if (configured.length > 0) return [...configured];
  return miniShimUrl ? [miniShimUrl] : [];
}

interface AdminAccess {
  readonly auth: ApiAuth;
  readonly https?: { key: Buffer; cert: Buffer; ca?: Buffer; requestCert: boolean; rejectUnauthorized: boolean };
  /** Set when the first-start admin token is in use. */
  readonly adminTokenFile?: string;
}

/**
 * Who may reach the admin API, decided before anything starts: tokens from the tokens file and
 * SCHEDBRAIN_API_TOKENS, else the state directory's admin token; TLS files read; a non-loopback
 * bind without TLS refused unless allowed.
 */
export function adminAccess(cfg: Config, env: NodeJS.ProcessEnv): AdminAccess {
  const tokens: ApiToken[] = [];
  if (cfg.auth.tokensFile) tokens.push(...readTokensFile(cfg.auth.tokensFile));
  if (env.SCHEDBRAIN_API_TOKENS) tokens.push(...parseTokenList(env.SCHEDBRAIN_API_TOKENS, 'SCHEDBRAIN_API_TOKENS'));
  let adminTokenFile: string | undefined;
  if (tokens.length === 0) {
    const first = ensureAdminTokenFile(cfg.stateDir);
    tokens.push(first.token);
    adminTokenFile = first.path;
  }
  let https: AdminAccess['https'];
  if (cfg.tls) {
    const read = (what: string, file: string) => {
      try {
        return readFileSync(file);
      } catch (e) {
        throw new AuthConfigError(`tls.${what}: cannot read ${file}: ${(e as Error).message}`);
      }
    };
    const ca = cfg.tls.clientCaFile ? read('clientCaFile', cfg.tls.clientCaFile) : undefined;
    https = {
      key: read('keyFile', cfg.tls.keyFile),
      cert: read('certFile', cfg.tls.certFile),
      ...(ca ? { ca } : {}),
      requestCert: ca !== undefined,
      rejectUnauthorized: ca !== undefined,
    };
  }
  if (!isLoopback(cfg.host) && !https && !cfg.allowInsecureBind) {
    throw new AuthConfigError(
      `host ${cfg.host} is not a loopback address and the admin API has no TLS: tokens would cross the network in clear. Give --tls-cert and --tls-key, or --allow-insecure-bind to accept that`,
    );
  }
  const auth = new ApiAuth({
    tokens,
    openReads: cfg.auth.openReads,
    openProbes: cfg.auth.openProbes,
    allowedHosts: [...defaultAllowedHosts(cfg.host), ...cfg.auth.allowedHosts],
  });
  return { auth, ...(https ? { https } : {}), ...(adminTokenFile ? { adminTokenFile } : {}) };
}

/**
 * The shim lease holder: this host and the state directory. The store's lock lets one process
 * use a state directory at a time, so two brains never share a holder name, and a restarted
 * brain (same directory) renews its own lease.
 */
export function leaseHolderFor(stateDir: string): string {
  const dir = realpathSync(stateDir);
  return `schedbrain@${hostname()}:${createHash('sha256').update(dir).digest('hex').slice(0, 12)}`;
}

function readSecretFile(file: string, key: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (e) {
    throw new ConfigError(key, '', `cannot read ${file}: ${(e as Error).message}`);
  }
}

/** The lease must outlive a few engine periods, or it lapses between two healthy cycles. */
export function leaseTtlFor(leaseTtlMs: number, periodMs: number): number {
  return Math.max(leaseTtlMs, 3 * periodMs);
}

/** The leader election `leader` configures (none with `election: none`). */
export async function leaderElectionFor(cfg: Config, holder: string, logger?: Logger): Promise<LeaderElection | undefined> {
  const kind = cfg.leader.election ?? (cfg.leader.zk ? 'zookeeper' : 'file');
  if (kind === 'none') return undefined;
  if (kind === 'zookeeper') {
    const { ZooKeeperLeaderElection } = await import('../engine/leadership-zk.js');
    return new ZooKeeperLeaderElection({ connect: cfg.leader.zk!, path: cfg.leader.zkPath, holder, leaseMs: cfg.leader.leaseMs, logger });
  }
  const { FileLeaderElection } = await import('../engine/leadership.js');
  return new FileLeaderElection({ path: cfg.leader.lockFile ?? join(cfg.stateDir, 'leader.lock'), holder, leaseMs: cfg.leader.leaseMs });
}

function describeElection(cfg: Config, holder: string): string {
  const kind = cfg.leader.election ?? (cfg.leader.zk ? 'zookeeper' : 'file');
  const where =
    kind === 'zookeeper' ? `ZooKeeper ${cfg.leader.zk} ${cfg.leader.zkPath}` : `lock file ${cfg.leader.lockFile ?? join(cfg.stateDir, 'leader.lock')}`;
  return `leader election through ${where} as ${holder} (lease ${cfg.leader.leaseMs} ms)`;
}

/** One line for the journal: what a new leader found left by a previous brain and what it did. */
export function describeTakeOver(r: TakeOverReport): string {
  const nodes = r.overcommitted.map(
    (o) =>
      `${o.nodeId} ${o.advertised.memoryMB} MB / ${o.advertised.vcores} vcores, physical ${o.physical.memoryMB} / ${o.physical.vcores} (${r.physicalFrom[o.nodeId]})`,
  );
  const from = Object.values(r.physicalFrom);
  const sources = `physical capacities: ${from.filter((f) => f === 'nodemanager').length} from the NodeManagers' configuration, ${from.filter((f) => f === 'recorded').length} recorded, ${from.filter((f) => f === 'advertised').length} as advertised`;
  const notes = r.notes.length ? `; ${r.notes.join('; ')}` : '';
  if (nodes.length === 0 && r.suspended.length === 0) return `nothing left by a previous brain (${sources})${notes}`;
  const verb = r.mode === 'undo' ? 'undone' : 'adopted';
  const parts = [
    nodes.length
      ? `${nodes.length} over-committed node(s) ${verb}${r.mode === 'undo' ? ` (${r.restoredNodes.length} restored)` : ''}: ${nodes.join('; ')}`
      : undefined,
    r.suspended.length
      ? `${r.suspended.length} suspended container(s) ${verb}${r.mode === 'undo' ? ` (${r.resumedContainers.length} resumed)` : ' (kept suspended under this brain)'}`
      : undefined,
  ].filter((x): x is string => x !== undefined);
  return `${r.mode}: ${parts.join('; ')} (${sources})${notes}`;
}

export async function serve(argv: string[], io: Io = stdio, stop: Promise<unknown> = waitForSignal()): Promise<number> {
  const startedAtMs = Date.now();
  let loaded;
  try {
    loaded = loadConfig(argv);
  } catch (e) {
    if (e instanceof ConfigError) {
      io.err(`schedbrain serve: ${e.message}\nRun 'schedbrain serve --help' for the options.`);
      return 2;
    }
    throw e;
  }
  if (loaded.help) {
    io.out(SERVE_HELP);
    return 0;
  }
  if (loaded.positional.length) {
    io.err(`schedbrain serve: unexpected argument "${loaded.positional[0]}"`);
    return 2;
  }
  const cfg = loaded.config;
  let access: AdminAccess;
  try {
    access = adminAccess(cfg, process.env);
  } catch (e) {
    if (e instanceof AuthConfigError) {
      io.err(`schedbrain serve: ${e.message}`);
      return 2;
    }
    throw e;
  }
  const log = makeLogger(cfg.logLevel);
  for (const notice of loaded.deprecations) log.warn(notice);
  const cleanups: Array<[string, () => Promise<unknown>]> = [];
  const cleanup = async () => {
    for (const [what, fn] of cleanups.reverse()) {
      try {
        await fn();
      } catch (e) {
        log.error({ err: e }, `shutdown: could not ${what}`);
      }
    }
  };
  try {
    let rmUrl = cfg.rmUrl;
    let shimUrls = cfg.shim.urls;
    let shimSecret = cfg.shim.secretFile ? readSecretFile(cfg.shim.secretFile, 'shim.secretFile') : undefined;
    if (!rmUrl) {
      io.out('schedbrain: no ResourceManager configured; starting an embedded mini YARN cluster...');
      const { startMiniCluster } = await import('../yarn/minicluster.js');
      const mini = await startMiniCluster({
        nodes: cfg.miniCluster.nodes,
        workDir: cfg.miniCluster.workDir,
        reservationQueue: cfg.reservationQueue,
        onLog: (line) => log.debug({ src: 'minicluster' }, line),
      });
      cleanups.push(['stop the mini cluster', () => mini.stop()]);
      rmUrl = mini.rmUrl;
      shimUrls = defaultShimUrls(cfg.shim.urls, mini.shimUrl);
      if (cfg.shim.urls.length === 0) shimSecret ??= mini.shimSecret;
      io.out(`schedbrain: mini YARN ResourceManager ${rmUrl} (client conf ${mini.confDir}${mini.shimUrl ? `, shim ${mini.shimUrl}` : ''})`);
    }
    const { Store } = await import('../store/store.js');
    const store = await Store.open(cfg.stateDir);
    cleanups.push(['close the store', () => store.close()]);
    const { YarnBackend, physicalCapacitySchema } = await import('../yarn/backend.js');
    const holder = leaseHolderFor(cfg.stateDir);
    const election = await leaderElectionFor(cfg, holder, log.child({ mod: 'leader' }));
    // Given up after the cluster is handed back (cleanups run in reverse), so a standby takes over at once.
    if (election) cleanups.push(['give up the leadership', () => election.release()]);
    let shim;
    let lease: { renew(): Promise<void> } | undefined;
    if (shimUrls.length) {
      const { HttpNodeShim } = await import('../yarn/shim-client.js');
      if (!shimSecret) log.warn({ shimUrls }, 'no shim secret (--shim-secret-file): the shims will refuse every suspension, resume, lease and ranking');
      const epoch = election ? () => (election.epoch > 0 ? election.epoch : undefined) : undefined;
      const nodeShim = new HttpNodeShim({
        urls: shimUrls,
        rankingUrl: cfg.shim.rankingUrl,
        requestTimeoutMs: cfg.requestTimeoutMs,
        logger: log.child({ mod: 'shim' }),
        secret: shimSecret,
        holder,
        epoch,
      });
      shim = nodeShim;
      // The engine renews the lease every cycle, so it lapses (and the shims resume every
      // container) when the loop stops, not only when the process dies.
      const ttlMs = leaseTtlFor(cfg.shim.leaseTtlMs, cfg.periodMs);
      if (ttlMs !== cfg.shim.leaseTtlMs)
        log.warn(
          { leaseTtlMs: cfg.shim.leaseTtlMs, periodMs: cfg.periodMs, usedMs: ttlMs },
          'shim lease TTL shorter than three engine periods; using three periods',
        );
      lease = { renew: () => nodeShim.renewLease(ttlMs) };
    }
    const backend = new YarnBackend({
      rmUrl,
      user: cfg.user,
      requestTimeoutMs: cfg.requestTimeoutMs,
      shim,
      shimReadConcurrency: cfg.shim.readConcurrency,
      shimListMaxAgeMs: cfg.shim.listMaxAgeMs,
      logger: log.child({ mod: 'yarn' }),
      physicalCapacityStore: store.namespace('yarn.physical-capacity', physicalCapacitySchema),
      tls: cfg.rmTls,
      delegationToken: cfg.rmDelegationTokenFile ? readSecretFile(cfg.rmDelegationTokenFile, 'rmDelegationTokenFile') : undefined,
      ...(cfg.reservationQueue !== undefined ? { reservations: { queue: cfg.reservationQueue } } : {}),
    });
    // Hand the cluster back to the stock scheduler (suspended containers resume at once,
    // over-committed nodes get their capacity back, the ranking lapses): on a clean shutdown after
    // the loop stopped, and when the operator replaces the policy or switches dry-run on.
    const handBack = async (why: string) => {
      // A standby wrote nothing, and the cluster is the leader's.
      if (election && !election.isLeader()) return;
      const r = await backend.standDown();
      if (r.restoredNodes.length || r.resumedContainers.length)
        log.info({ why, restoredNodes: r.restoredNodes, resumedContainers: r.resumedContainers }, 'cluster handed back to the stock scheduler');
      for (const e of r.errors) log.error({ why, err: e }, 'could not hand part of the cluster back');
    };
    cleanups.push(['hand the cluster back', () => handBack('shutdown')]);
    const { Engine } = await import('../engine/engine.js');
    // GC and event-loop lag are observed from startup, not from the first scrape of /metrics.
    (await import('../engine/metrics.js')).processMetrics();
    const engine = new Engine({
      backend,
      store,
      periodMs: cfg.periodMs,
      logger: log.child({ mod: 'engine' }),
      limits: cfg.limits,
      drift: cfg.drift,
      backoff: cfg.backoff,
      journalRetentionMs: cfg.journalRetentionMs,
      journalMaxBytes: cfg.journalMaxBytes,
      initial: { policy: cfg.policy, params: cfg.policyParams, dryRun: cfg.dryRun },
      lease,
      afterPolicyChange: ({ from, to }) => handBack(from !== to ? `policy ${from} replaced by ${to}` : `${to} switched to dry-run`),
      ...(election
        ? {
            leadership: {
              election,
              reconcile: async () => {
                const r = await backend.takeOver(cfg.leader.onTakeover);
                const changed =
                  r.restoredNodes.length + r.resumedContainers.length > 0 || (r.mode === 'adopt' && r.overcommitted.length + r.suspended.length > 0);
                return { reason: describeTakeOver(r), detail: JSON.stringify(r), errors: r.errors, changed };
              },
            },
          }
        : {}),
      defaultPolicy: { name: 'capacity-targets', params: { targets: {} } },
      requireCapabilities: !cfg.allowAdvisory,
    });
    try {
      await engine.init();
    } catch (e) {
      if (e instanceof ValidationError) {
        io.err(`schedbrain serve: invalid configuration: ${e.message}`);
        await cleanup();
        return 2;
      }
      throw e;
    }
    // Checked for a policy the operator names at this start; a stored or default one starts
    // advisory where the cluster lacks what it needs, with a warning (it may write nothing at all).
    if (!engine.config().dryRun && !cfg.allowAdvisory) {
      const lack = await engine.missingCapabilities();
      if (lack && lack.missing.length > 0 && cfg.policy === undefined) {
        log.warn(
          { policy: engine.config().name, missing: lack.missing, notes: lack.notes },
          'the running policy needs what this cluster lacks; it runs advisory',
        );
      } else if (lack && lack.missing.length > 0) {
        io.err(
          `schedbrain serve: policy ${engine.config().name} needs ${lack.missing.join(', ')}, which this cluster lacks${lack.notes.length ? `:\n  ${lack.notes.join('\n  ')}` : ''}\n` +
            'Start it with --dry-run, or with --allow-advisory to run it anyway (what the cluster cannot do is journaled as unsupported).',
        );
        await cleanup();
        return 2;
      }
      if (lack === undefined)
        log.warn(
          { policy: engine.config().name },
          'the cluster did not say what it can do; the policy starts, and decisions it cannot carry out are journaled as unsupported',
        );
    }
    const h = cfg.history;
    // Made before the API so that its routes can read the history and pull on demand (POST /v1/threesigma/history/pull).
    const historyParts = h.pullCron
      ? await (async () => {
          const { HistoryStore, HistoryPuller } = await import('../history/index.js');
          const { RmClient } = await import('../yarn/client.js');
          const historyLog = log.child({ mod: 'history' });
          const history = new HistoryStore(store);
          const source = new RmClient({
            rmUrl,
            user: cfg.user,
            requestTimeoutMs: cfg.requestTimeoutMs,
            logger: historyLog,
            tls: cfg.rmTls,
            delegationToken: cfg.rmDelegationTokenFile ? readSecretFile(cfg.rmDelegationTokenFile, 'rmDelegationTokenFile') : undefined,
          });
          // Task detail the RM forgets (requested containers), from the servers configured.
          const { httpJsonGet, timelineSource, jobHistorySource } = await import('../history/sources/tasks.js');
          const get = httpJsonGet({ timeoutMs: cfg.requestTimeoutMs });
          const taskSources = [
            ...(h.timelineUrl ? [timelineSource(h.timelineUrl, get)] : []),
            ...(h.jobHistoryUrl ? [jobHistorySource(h.jobHistoryUrl, get)] : []),
          ];
          const puller = new HistoryPuller({ source, history, logger: historyLog, overlapMs: h.overlapMs, maxAgeMs: h.maxAgeMs, taskSources });
          return { history, puller, historyLog };
        })()
      : undefined;
    const { buildApi, loadRouteModules } = await import('../api/server.js');
    const plugins = (await loadRouteModules()).map((m) => m.default);
    const serviceInfo = () => ({
      config: redactSecrets(cfg),
      rmUrl,
      shimUrls,
      shimLeaseHolder: shimUrls.length ? leaseHolderFor(cfg.stateDir) : null,
      startedAtMs,
    });
    const app = await buildApi({
      engine,
      store,
      logger: log.child({ mod: 'api' }),
      plugins,
      auth: access.auth,
      https: access.https,
      serviceInfo,
      ...(historyParts ? { history: { records: historyParts.history, pullers: { rm: historyParts.puller } } } : {}),
    });
    cleanups.push(['close the admin API', () => app.close()]);
    await app.listen({ host: cfg.host, port: cfg.port });
    const address = `${access.https ? 'https' : 'http'}://${cfg.host.includes(':') && !cfg.host.startsWith('[') ? `[${cfg.host}]` : cfg.host}:${(app.server.address() as AddressInfo).port}`;
    cleanups.push(['stop the engine', () => engine.stop()]);
    engine.start();
    if (h.pullCron && historyParts) {
      const { startHistorySchedule, warmRunningPolicy } = await import('../history/index.js');
      const { history, puller, historyLog } = historyParts;
      const maxAgeMs = h.maxAgeMs;
      const schedule = startHistorySchedule({
        pullCron: h.pullCron,
        retentionCron: h.retentionCron,
        puller,
        history,
        retention: { maxAgeMs, maxRecords: h.maxRecords },
        logger: historyLog,
        timezone: h.timezone,
      });
      // A first pull now rather than at the first tick, so a new brain has history at once, and
      // 3Sigma, if it runs with an empty predictor, learns from it.
      const first = schedule
        .pullNow()
        .then(() => warmRunningPolicy(engine, history, historyLog))
        .catch((e: unknown) => historyLog.warn({ err: e }, 'could not warm the policy from the history'));
      // Before the store closes (cleanups run in reverse): a pull or warming in progress finishes its writes.
      cleanups.push(['stop the history schedule', () => schedule.stop().then(() => first)]);
      log.info({ pullCron: h.pullCron, retentionCron: h.retentionCron, maxAgeMs: h.maxAgeMs, maxRecords: h.maxRecords }, 'history schedule started');
    }
    const c = engine.config();
    io.out(`schedbrain: admin API ${address} (policy ${c.name}${c.dryRun ? ', dry-run' : ''}, period ${cfg.periodMs} ms, state ${cfg.stateDir})`);
    if (access.adminTokenFile) io.out(`schedbrain: the admin token is in ${access.adminTokenFile} (send it as "Authorization: Bearer <token>")`);
    if (election) io.out(`schedbrain: ${describeElection(cfg, holder)}; this brain writes only while it leads`);
    log.info(
      {
        rmUrl,
        admin: address,
        policy: c.name,
        dryRun: c.dryRun,
        periodMs: cfg.periodMs,
        stateDir: cfg.stateDir,
        leader: election ? describeElection(cfg, holder) : 'none',
      },
      'serving',
    );
    const sig = await stop;
    log.info({ signal: sig }, 'shutting down: stopping the loop, closing the store');
    await cleanup();
    io.out('schedbrain: stopped');
    return 0;
  } catch (e) {
    log.error({ err: e }, 'serve failed');
    io.err(`schedbrain serve: ${e instanceof SchedbrainError ? e.message : (e as Error).stack}`);
    await cleanup();
    return 1;
  }
}

export async function minicluster(argv: string[], io: Io = stdio, stop: Promise<unknown> = waitForSignal()): Promise<number> {
  let nodes = 2;
  // Tokens in order, so that --help or an error is met where it stands, as with serve's flags.
  const { tokens } = parseArgs({
    args: argv,
    options: { nodes: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const t of tokens) {
    if (t.kind === 'option' && t.name === 'help' && (t.rawName === '-h' || t.value === undefined)) {
      io.out(MINI_HELP);
      return 0;
    }
    if (t.kind === 'option' && t.rawName === '--nodes') {
      const v = t.value;
      nodes = Number(v);
      if (!Number.isInteger(nodes) || nodes < 1 || nodes > 16) {
        io.err(`schedbrain minicluster: --nodes must be an integer 1..16, got "${v}"`);
        return 2;
      }
      continue;
    }
    io.err(`schedbrain minicluster: unknown argument "${argv[t.index]}"\n${MINI_HELP}`);
    return 2;
  }
  const { startMiniCluster } = await import('../yarn/minicluster.js');
  io.out(`schedbrain: starting a mini YARN cluster with ${nodes} node(s)...`);
  let mini;
  try {
    mini = await startMiniCluster({ nodes });
  } catch (e) {
    io.err(`schedbrain minicluster: ${(e as Error).message}`);
    return 1;
  }
  io.out(`ResourceManager: ${mini.rmUrl}`);
  io.out(`client conf:     ${mini.confDir}`);
  io.out(`nodes:           ${mini.nodes.map((n) => n.nodeId).join(', ')}`);
  io.out('Ctrl-C to stop.');
  await stop;
  await mini.stop();
  io.out('schedbrain: mini cluster stopped');
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'serve': {
      const code = await serve(rest);
      // Do not let a stray handle (keep-alive socket, JVM pipe) keep a stopped service alive.
      setTimeout(() => process.exit(code), 2000).unref();
      return code;
    }
    case 'minicluster':
      return minicluster(rest);
    case 'simulate': {
      const { runSimulateCommand } = await import('../sim/cli.js');
      return runSimulateCommand(rest);
    }
    case 'record': {
      const { runRecordCommand } = await import('./record.js');
      return runRecordCommand(rest);
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      stdio.out(MAIN_HELP);
      return cmd === undefined ? 2 : 0;
    default:
      if (ADMIN_COMMANDS.includes(cmd)) return runAdminCommand(argv);
      stdio.err(`schedbrain: unknown command "${cmd}"\n\n${MAIN_HELP}`);
      return 2;
  }
}

// `tsx src/cli/main.ts serve` (npm start) runs the command directly.
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`schedbrain: ${(e as Error).stack ?? e}\n`);
      process.exitCode = 1;
    },
  );
}
