/**
 * An embedded Apache Hadoop YARN cluster (MiniYARNCluster, Hadoop 3.4.1) in a child JVM, for
 * integration tests, fixture recording and demos. See yarn-adapter/…/MiniClusterMain.java for the
 * cluster's configuration (CapacityScheduler, mutable scheduler conf, priorities, the shim).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { SchedbrainError } from '../core/errors.js';
import { JAVA_OPENS, adapterDir, adapterJar, ensureAdapterBuilt, findJava } from './adapter-build.js';

export { findJava } from './adapter-build.js';

export interface MiniClusterNode {
  nodeId: string;
  /** NodeManager web address as the RM reports it (NM web servers are off in the mini cluster: port 0). */
  httpAddress: string;
}

export interface MiniCluster {
  /** RM web base URL, e.g. http://localhost:41611 (REST under /ws/v1/cluster). */
  rmUrl: string;
  /** Directory with the client yarn-site.xml / core-site.xml (for SubmitJob and other YARN clients). */
  confDir: string;
  workDir: string;
  nodes: MiniClusterNode[];
  /** pid of the cluster JVM. */
  pid: number;
  /** RM client RPC address (host:port) and scheduler (AM) RPC address. */
  rmAddress: string;
  schedulerAddress: string;
  /** The cluster JVM's log file. */
  logFile: string;
  hadoopVersion: string;
  /** The schedbrain shim in the cluster JVM (serves both the NodeManager and RM roles), if it loaded. */
  shimUrl?: string;
  /** The shim's shared secret (a random one per cluster, in `<workDir>/shim.secret`). */
  shimSecret?: string;
  stop(): Promise<void>;
}

export interface StartMiniClusterOptions {
  nodes?: number;
  nmMemoryMB?: number;
  nmVcores?: number;
  /** Created (and removed on stop) under the OS temp dir when not given. */
  workDir?: string;
  /** 0 / undefined = a free port chosen by the OS (the real one is reported in rmUrl). */
  rmWebPort?: number;
  /** Every stdout/stderr line of the cluster JVM (its log file has the details). */
  onLog?: (line: string) => void;
  startTimeoutMs?: number;
  /**
   * Scheduler configuration store: 'memory' (default; PUT /scheduler-conf works) or 'file'
   * (stock read-only configuration, to exercise the refusal paths).
   */
  confStore?: 'memory' | 'file';
  /** Grace period for stop() before SIGKILL. */
  stopTimeoutMs?: number;
  /**
   * YARN's ReservationSystem on, with a reservable leaf of root by this name holding
   * `reservationCapacityPct` (default 75) beside root.default. Such a cluster must get no
   * scheduler-conf write: YARN's plan follower stops after one.
   */
  reservationQueue?: string;
  reservationCapacityPct?: number;
  /**
   * `host:port` of a timeline server (application history) the RM publishes applications and
   * containers to; the server runs apart (MiniClusterMain explains why).
   */
  timelineAddress?: string;
}

export class MiniClusterStartError extends SchedbrainError {
  constructor(
    message: string,
    readonly logTail: string,
  ) {
    super(`${message}\n--- cluster output (tail) ---\n${logTail}`);
  }
}

const READY = 'SCHEDBRAIN_MINICLUSTER_READY ';

interface ReadyInfo {
  rmWebUrl: string;
  rmAddress: string;
  schedulerAddress: string;
  confDir: string;
  workDir: string;
  logFile: string;
  hadoopVersion: string;
  pid: number;
  shimUrl?: string | null;
  shimSecretFile?: string | null;
  nodes: MiniClusterNode[];
}

function tail(text: string, lines = 60): string {
  return text.split('\n').slice(-lines).join('\n');
}

function readTail(file: string, lines = 60): string {
  try {
    return tail(readFileSync(file, 'utf8'), lines);
  } catch {
    return '';
  }
}

export async function startMiniCluster(opts: StartMiniClusterOptions = {}): Promise<MiniCluster> {
  await ensureAdapterBuilt();
  const ownWorkDir = opts.workDir === undefined;
  const workDir = resolve(opts.workDir ?? mkdtempSync(join(tmpdir(), 'schedbrain-mini-')));
  mkdirSync(workDir, { recursive: true });
  // Run from a private copy of the adapter jar: a rebuild of yarn-adapter/ while the cluster runs
  // would otherwise replace the jar the JVM is still loading classes from.
  const jarCopy = join(workDir, 'yarn-adapter.jar');
  copyFileSync(adapterJar(), jarCopy);
  const nodes = opts.nodes ?? 2;
  const args = [
    ...JAVA_OPENS,
    // One JVM holds the RM and every NM.
    `-Xmx${Math.max(1024, 512 + 192 * nodes)}m`,
    '-cp',
    [jarCopy, join(adapterDir(), 'target', 'lib', '*')].join(':'),
    'io.schedbrain.yarn.MiniClusterMain',
    '--work-dir',
    workDir,
    '--nodes',
    String(nodes),
    '--nm-memory-mb',
    String(opts.nmMemoryMB ?? 4096),
    '--nm-vcores',
    String(opts.nmVcores ?? 4),
    '--rm-web-port',
    String(opts.rmWebPort ?? 0),
    '--conf-store',
    opts.confStore ?? 'memory',
  ];
  if (opts.timelineAddress !== undefined) args.push('--timeline-address', opts.timelineAddress);
  if (opts.reservationQueue !== undefined) {
    args.push('--reservation-queue', opts.reservationQueue, '--reservation-capacity', String(opts.reservationCapacityPct ?? 75));
  }
  // cwd = workDir: anything Hadoop writes relative to the working directory stays there.
  const child: ChildProcessByStdio<Writable, Readable, Readable> = spawn(findJava(), args, {
    cwd: workDir,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const logFile = join(workDir, 'minicluster.log');
  let output = '';
  const exited = new Promise<number | null>((res) => child.on('exit', (code, signal) => res(code ?? (signal ? -1 : null))));

  const lineReader = (stream: Readable, onLine: (line: string) => void) => {
    let buf = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        onLine(line);
      }
    });
  };

  const ready = new Promise<ReadyInfo>((res, rej) => {
    const onLine = (line: string) => {
      output = tail(output + line + '\n', 200);
      opts.onLog?.(line);
      if (line.startsWith(READY)) {
        try {
          res(JSON.parse(line.slice(READY.length)) as ReadyInfo);
        } catch (e) {
          rej(new MiniClusterStartError(`bad READY line: ${(e as Error).message}`, line));
        }
      }
    };
    lineReader(child.stdout, onLine);
    lineReader(child.stderr, onLine);
    child.on('error', (e) => rej(new MiniClusterStartError(`cannot start ${findJava()}: ${e.message} (set JAVA_HOME to a JDK 17)`, '')));
    void exited.then((code) => {
      const hint = output.includes('getSubject is not supported')
        ? ` (${findJava()} is too new for Hadoop 3.4: use a JDK 17, e.g. set SCHEDBRAIN_JAVA or JAVA_HOME)`
        : '';
      rej(new MiniClusterStartError(`mini cluster JVM exited with ${code} before it was ready${hint}`, tail(output) + '\n' + readTail(logFile, 40)));
    });
  });

  const killHard = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };

  const timeoutMs = opts.startTimeoutMs ?? 120_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, rej) => {
    timer = setTimeout(
      () => rej(new MiniClusterStartError(`mini cluster not ready within ${timeoutMs} ms`, tail(output) + '\n' + readTail(logFile, 40))),
      timeoutMs,
    );
  });

  let info: ReadyInfo;
  try {
    info = await Promise.race([ready, timeout]);
  } catch (e) {
    await killHard();
    throw e;
  } finally {
    clearTimeout(timer);
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        // EOF on stdin = orderly shutdown (kills apps, waits for containers to go, stops services).
        child.stdin.end();
        const grace = opts.stopTimeoutMs ?? 45_000;
        const t = setTimeout(() => child.kill('SIGTERM'), grace / 2);
        const k = setTimeout(() => child.kill('SIGKILL'), grace);
        await exited;
        clearTimeout(t);
        clearTimeout(k);
      }
      if (ownWorkDir && !process.env.SCHEDBRAIN_KEEP_WORKDIR && existsSync(workDir)) {
        rmSync(workDir, { recursive: true, force: true });
      }
    })();
    return stopping;
  };

  return {
    rmUrl: info.rmWebUrl,
    confDir: info.confDir,
    workDir,
    nodes: info.nodes,
    pid: child.pid!,
    rmAddress: info.rmAddress,
    schedulerAddress: info.schedulerAddress,
    logFile: info.logFile,
    hadoopVersion: info.hadoopVersion,
    ...(info.shimUrl ? { shimUrl: info.shimUrl } : {}),
    ...(info.shimUrl && info.shimSecretFile ? { shimSecret: readFileSync(info.shimSecretFile, 'utf8').trim() } : {}),
    stop,
  };
}
