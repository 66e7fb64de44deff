/**
 * A standalone ZooKeeper server in a child JVM (yarn-adapter/…/ZooKeeperMain.java, ZooKeeper 3.8
 * from the adapter's classpath), for tests and demos of the brains' leader election.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SchedbrainError } from '../core/errors.js';
import { adapterClasspath, ensureAdapterBuilt, findJava } from './adapter-build.js';

export interface ZooKeeperServer {
  /** Connection string for clients (`127.0.0.1:port`). */
  readonly connect: string;
  readonly port: number;
  readonly pid: number;
  /** Stops the server (stdin closed, then SIGKILL after a grace period) and removes its data unless given. */
  stop(): Promise<void>;
  /** Kills the server at once (as a crash would). */
  kill(): Promise<void>;
}

export interface StartZooKeeperOptions {
  /** 0 / undefined: a free port. */
  readonly port?: number;
  /** Data directory; a temporary one (removed on stop) when not given. */
  readonly dir?: string;
  /** ZooKeeper's tick; sessions may last 2 to 20 ticks. Default 500 ms. */
  readonly tickMs?: number;
  readonly startTimeoutMs?: number;
  readonly onLog?: (line: string) => void;
}

const READY = 'SCHEDBRAIN_ZOOKEEPER_READY ';

export async function startZooKeeper(opts: StartZooKeeperOptions = {}): Promise<ZooKeeperServer> {
  await ensureAdapterBuilt(undefined, { ifMissing: true });
  const own = opts.dir === undefined;
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'schedbrain-zk-'));
  const child = spawn(
    findJava(),
    [
      '-Xmx256m',
      '-cp',
      adapterClasspath(),
      'io.schedbrain.yarn.ZooKeeperMain',
      '--port',
      String(opts.port ?? 0),
      '--dir',
      dir,
      '--tick-ms',
      String(opts.tickMs ?? 500),
    ],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  let output = '';
  const info = await new Promise<{ port: number; connect: string }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new SchedbrainError(`ZooKeeper not ready within ${opts.startTimeoutMs ?? 60_000} ms:\n${output.slice(-2000)}`)),
      opts.startTimeoutMs ?? 60_000,
    );
    let buf = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith(READY)) {
          clearTimeout(timer);
          resolve(JSON.parse(line.slice(READY.length)) as { port: number; connect: string });
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      output = (output + chunk).slice(-20_000);
      for (const line of chunk.split('\n')) if (line) opts.onLog?.(line);
    });
    child.on('error', (e) => reject(new SchedbrainError(`cannot start ${findJava()}: ${e.message}`)));
    void exited.then(() => reject(new SchedbrainError(`ZooKeeper exited before it was ready:\n${output.slice(-2000)}`)));
  }).catch(async (e: unknown) => {
    child.kill('SIGKILL');
    await exited;
    if (own) rmSync(dir, { recursive: true, force: true });
    throw e;
  });
  let stopping: Promise<void> | undefined;
  const stop = (hard: boolean) => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        if (hard) child.kill('SIGKILL');
        else child.stdin.end();
        const k = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(k);
      }
      if (own) rmSync(dir, { recursive: true, force: true });
    })();
    return stopping;
  };
  return { connect: info.connect, port: info.port, pid: child.pid!, stop: () => stop(false), kill: () => stop(true) };
}
