/**
 * Helpers shared by the integration files (they all run against one mini YARN, one after another).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { repoRoot } from '../../src/yarn/adapter-build.js';

/**
 * Polls `probe` until it yields a value (anything but undefined or false). On timeout the error
 * names what was awaited, the probe's last error, and `diag`'s account of the state.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 120_000,
  everyMs = 250,
  diag?: () => string | Promise<string>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}${diag ? `\n${await diag()}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The shim URL the global setup reports; undefined when the cluster runs without the shim. */
export function shimUrl(): string | undefined {
  return inject('shimUrl') || undefined;
}

/** The shim's shared secret (the brain sends it as a bearer token). */
export function shimSecret(): string | undefined {
  return inject('shimSecret') || undefined;
}

/**
 * The three views of an application's containers, for a wait that timed out: the RM's (state per
 * container), each NodeManager's (its own container state), and the shim's registry (pids and
 * process states of what it lists).
 */
export async function containerViews(rmUrl: string, appId: string): Promise<string> {
  const lines: string[] = [];
  const get = async (url: string, bearer?: string): Promise<unknown> => {
    const res = await fetch(url, {
      headers: { Accept: 'application/json', ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) },
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    return res.json();
  };
  const prefix = `${appId.replace(/^application_/, 'container_')}_`;
  try {
    const attempts = (await get(`${rmUrl}/ws/v1/cluster/apps/${appId}/appattempts`)) as { appAttempts?: { appAttempt?: { appAttemptId: string }[] } };
    for (const a of attempts.appAttempts?.appAttempt ?? []) {
      const cs = (await get(`${rmUrl}/ws/v1/cluster/apps/${appId}/appattempts/${a.appAttemptId}/containers`)) as { container?: unknown };
      const list = [cs.container ?? []].flat() as { containerId: string; containerState: string; assignedNodeId: string }[];
      for (const c of list) lines.push(`RM: ${c.containerId} ${c.containerState} on ${c.assignedNodeId}`);
    }
  } catch (err) {
    lines.push(`RM: ${(err as Error).message}`);
  }
  for (const n of inject('miniNodes')) {
    try {
      // The JVM listens on IPv4 only; Node resolves localhost to ::1 first.
      const body = (await get(`http://${n.httpAddress.replace(/^localhost:/, '127.0.0.1:')}/ws/v1/node/containers`)) as {
        containers?: { container?: unknown } | null;
      };
      const list = [body.containers?.container ?? []].flat() as { id: string; state: string; exitCode?: number }[];
      for (const c of list.filter((c) => c.id.startsWith(prefix))) lines.push(`NM ${n.nodeId}: ${c.id} ${c.state} exit=${c.exitCode ?? ''}`);
    } catch (err) {
      lines.push(`NM ${n.nodeId}: ${(err as Error).message}`);
    }
  }
  const url = shimUrl();
  if (url) {
    try {
      const body = (await get(`${url}/v1/containers`, shimSecret())) as {
        containers: { containerId: string; state: string; pid: number; processes: { pid: number; state: string }[] }[];
      };
      for (const c of body.containers)
        lines.push(`shim: ${c.containerId} ${c.state} pid ${c.pid} [${c.processes.map((p) => `${p.pid}:${p.state}`).join(' ')}]`);
      if (body.containers.length === 0) lines.push('shim: lists no container');
    } catch (err) {
      lines.push(`shim: ${(err as Error).message}`);
    }
  }
  return lines.join('\n');
}

/** `schedbrain serve` in a child process of its own (so it can be killed with any signal). */
export interface ServeProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly adminUrl: string;
  /** The first-start admin token serve made in its state directory. */
  readonly token: string;
  readonly out: string[];
  readonly exited: Promise<number | null>;
}

/**
 * Starts `schedbrain serve --rm-url rmUrl --state-dir stateDir ...args --port 0`, with the suite's
 * shim (its secret written to `<stateDir>.shim.secret`) when the cluster has one, and waits for
 * its admin API line.
 */
export async function startServeProcess(name: string, rmUrl: string, stateDir: string, args: readonly string[]): Promise<ServeProcess> {
  const argv = [join(repoRoot, 'bin', 'schedbrain.mjs'), 'serve', '--rm-url', rmUrl, '--user', 'schedbrain', '--port', '0', '--state-dir', stateDir, ...args];
  const url = shimUrl();
  if (url) {
    const secretFile = `${stateDir}.shim.secret`;
    writeFileSync(secretFile, `${shimSecret() ?? ''}\n`, { mode: 0o600 });
    argv.push('--shim-urls', url, '--shim-secret-file', secretFile);
  }
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => out.push(...d.split('\n').filter(Boolean)));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => out.push(...d.split('\n').filter(Boolean)));
  const line = await eventually(
    `${name}'s admin API line`,
    async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${out.join('\n')}`);
      return out.find((l) => l.includes('admin API'));
    },
    90_000,
    100,
  );
  return { name, child, adminUrl: /admin API (\S+)/.exec(line)![1]!, token: readFileSync(join(stateDir, 'admin.token'), 'utf8').trim(), out, exited };
}

/** Sends `signal` unless the process has ended; resolves with its exit code. */
export async function stopServeProcess(p: ServeProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill(signal);
  return p.exited;
}
