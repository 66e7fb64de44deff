/**
 * The live control cycle at cluster scale: the real Engine, YarnBackend and store, in dry-run,
 * against the synthetic RM (bench/synthetic-rm.ts) in a child process, so that serving costs
 * nothing to the process measured. Each configuration runs in a fresh process of its own (peak
 * RSS is per configuration): one cold cycle, then `--cycles` cycles each after 1 % of the running
 * apps changed (a container ended and another started). Prints a markdown table for
 * docs/benchmarks.md. Running containers come from the synthetic NodeManager shims (one per
 * node, one list request each, shim contract 5) unless `--containers-from rm`, which reads them
 * from the RM per application as a brain without shims does; RM and shim requests are counted
 * apart.
 *
 *   npm run bench -- --live-scale                                   # every size and policy
 *   npm run bench -- --live-scale --sizes 1k --policies kairos --cycles 3
 *   npm run bench -- --live-scale --sizes 1x50k,50x1k --policies capacity-targets   # one big app vs 50
 *   npm run bench -- --live-scale --sizes 10k --containers-from rm                   # without shims
 *   npm run bench -- --live-scale --sizes 10k --max-old-space-mb 384                 # the measured process's heap capped (issue 19's condition)
 *   node --import tsx bench/live-scale.ts --one 10k --policies kairos --profile /tmp/steady.cpuprofile   # one configuration here, its steady cycles' main thread profiled (--profile-cold FILE: the cold cycle's)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import type { AddressInfo } from 'node:net';
import { ApiAuth } from '../src/api/auth.js';
import { buildApi } from '../src/api/server.js';
import { Engine } from '../src/engine/engine.js';
import type { JournalEntry, NewJournalEntry } from '../src/store/journal.js';
import { Store } from '../src/store/store.js';
import { YarnBackend } from '../src/yarn/backend.js';
import { sharedListParser } from '../src/yarn/list-parser.js';
import { HttpNodeShim } from '../src/yarn/shim-client.js';

export const SIZES: Record<string, { nodes: number; apps: number; containers: number; bigApp?: number }> = {
  '100': { nodes: 100, apps: 100, containers: 2_000 },
  '1k': { nodes: 1_000, apps: 1_000, containers: 20_000 },
  '1k-10k': { nodes: 1_000, apps: 10_000, containers: 20_000 },
  '10k': { nodes: 10_000, apps: 10_000, containers: 200_000 },
  // One application of 50,000 containers against 50 of 1,000 (not run by default).
  '1x50k': { nodes: 1_000, apps: 0, containers: 0, bigApp: 50_000 },
  '50x1k': { nodes: 1_000, apps: 50, containers: 50_000 },
};
const DEFAULT_SIZES = ['100', '1k', '1k-10k', '10k'];

const POLICY_PARAMS: Record<string, unknown> = {
  'capacity-targets': { targets: { 'root.default': { capacityPct: 60 }, 'root.batch': { capacityPct: 40 } } },
  bopf: {},
  kairos: {},
  threesigma: {},
};

interface Row {
  size: string;
  policy: string;
  /** Where running containers came from: the node shims, or the RM per application. */
  containersFrom: 'shims' | 'rm';
  nodes: number;
  apps: number;
  containers: number;
  bigApp?: number;
  cold: Phase;
  steady: Phase;
  peakRssMB: number;
  decisions: number;
  /** `/healthz` answer times (HTTP, same process) while the steady cycles ran: p50, p99, max ms. */
  healthz: { p50: number; p99: number; max: number; probes: number };
}

interface Phase {
  requests: number;
  shimRequests: number;
  mb: number;
  refreshWallS: number;
  refreshCpuS: number;
  /** Of the refresh CPU, the list-parsing thread's (its event loop busy), s. */
  parserThreadS: number;
  /** Of the refresh CPU, the main thread's, s (NaN where the OS does not say). */
  mainThreadS: number;
  decidePlanMs: number;
  journalMs: number;
  journalKB: number;
  cycleWallS: number;
}

const here = fileURLToPath(new URL('.', import.meta.url));

async function startRm(size: {
  nodes: number;
  apps: number;
  containers: number;
  bigApp?: number;
}): Promise<{ url: string; shimUrls: string[]; child: ChildProcess }> {
  const args = [
    '--nodes',
    String(size.nodes),
    '--apps',
    String(size.apps),
    '--containers',
    String(size.containers),
    ...(size.bigApp ? ['--big-app', String(size.bigApp)] : []),
  ];
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'synthetic-rm.ts'), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl).trim());
    });
    child.on('exit', (code) => reject(new Error(`synthetic RM exited with ${code}`)));
  });
  // The synthetic shims: one base URL per node on the RM's server (bench/synthetic-rm.ts).
  const shimUrls = Array.from({ length: size.nodes }, (_, i) => `${url}/shim/${i}`);
  return { url, shimUrls, child };
}

const cpuS = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
/**
 * The main thread's CPU time, s (Linux: its line in /proc/self/task, in clock ticks of 10 ms; NaN
 * elsewhere). The process's CPU less this is the other threads': the list-parsing thread and V8's
 * helpers (parallel and concurrent GC of both isolates, background compilation).
 */
const mainThreadCpuS = (): number => {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** A CPU profile of this thread's JavaScript, from `start` to `stop`. */
class ThreadProfile {
  private session?: Session;
  async start(): Promise<void> {
    this.session = new Session();
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.start');
  }
  async stop(path: string): Promise<void> {
    const { profile } = await this.session!.post('Profiler.stop');
    writeFileSync(path, JSON.stringify(profile));
    this.session!.disconnect();
    this.session = undefined;
  }
}

/** One configuration, in this process; `profiles`: where to write the cold cycle's and the steady cycles' CPU profiles. */
async function runOne(
  sizeName: string,
  policy: string,
  cycles: number,
  containersFrom: 'shims' | 'rm',
  profiles: { cold?: string; steady?: string } = {},
): Promise<Row> {
  const size = SIZES[sizeName]!;
  const { url, shimUrls, child } = await startRm(size);
  const dir = mkdtempSync(join(os.tmpdir(), 'schedbrain-live-'));
  const store = await Store.open(dir);
  try {
    const shim = containersFrom === 'shims' ? new HttpNodeShim({ urls: shimUrls, requestTimeoutMs: 120_000 }) : undefined;
    // The lists' age limit (default 10 s) is set past the run, so that the steady rows show the
    // reads that follow the changes; with the default every list is read again once the cycles
    // are 10 s apart, which the cold row shows.
    const backend = new YarnBackend({ rmUrl: url, user: 'bench', requestTimeoutMs: 120_000, shim, shimListMaxAgeMs: 3_600_000 });
    // What the engine's reads cost, apart from the rest of the cycle.
    let refreshWall = 0;
    let refreshCpu = 0;
    let refreshMainCpu = 0;
    const timed =
      <A extends unknown[], T>(fn: (...args: A) => Promise<T>) =>
      async (...args: A): Promise<T> => {
        const w = performance.now();
        const c = cpuS();
        const m = mainThreadCpuS();
        try {
          return await fn(...args);
        } finally {
          refreshWall += (performance.now() - w) / 1000;
          refreshCpu += cpuS() - c;
          refreshMainCpu += mainThreadCpuS() - m;
        }
      };
    const snapshot = backend.snapshot.bind(backend);
    const capabilities = backend.capabilities.bind(backend);
    backend.snapshot = timed(snapshot);
    backend.capabilities = timed(capabilities);
    let journalWall = 0;
    // A cycle's decisions go through appendCycle, the engine's own entries through append.
    const timedJournal =
      (fn: (nowMs: number, entries: readonly NewJournalEntry[]) => Promise<JournalEntry[]>) => async (nowMs: number, entries: readonly NewJournalEntry[]) => {
        const w = performance.now();
        try {
          return await fn(nowMs, entries);
        } finally {
          journalWall += (performance.now() - w) / 1000;
        }
      };
    store.journal.append = timedJournal(store.journal.append.bind(store.journal));
    store.journal.appendCycle = timedJournal(store.journal.appendCycle.bind(store.journal));
    const engine = new Engine({
      backend,
      store,
      periodMs: 3_600_000,
      readDeadlineMs: 600_000,
      logger: pino({ level: 'silent' }),
      initial: { policy, params: POLICY_PARAMS[policy], dryRun: true },
    });
    await engine.init();
    // The admin API in the same process as the engine, probed every 20 ms while cycles run.
    const api = await buildApi({ engine, store, auth: new ApiAuth({ tokens: [] }) });
    await api.listen({ host: '127.0.0.1', port: 0 });
    const apiUrl = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    const latencies: number[] = [];
    let probe = 'idle' as 'idle' | 'on' | 'stop';
    const prober = (async () => {
      while (probe !== 'stop') {
        await new Promise((r) => setTimeout(r, 20));
        if (probe !== 'on') continue;
        const t = performance.now();
        await fetch(`${apiUrl}/healthz`).then((r) => r.arrayBuffer());
        latencies.push(performance.now() - t);
      }
    })();
    const counters = async (): Promise<{ requests: number; bytes: number; shimRequests: number; shimBytes: number }> =>
      (await fetch(`${url}/ws/v1/cluster/_synthetic/counters`, { method: 'POST' })).json() as Promise<{
        requests: number;
        bytes: number;
        shimRequests: number;
        shimBytes: number;
      }>;

    const phases: Phase[] = [];
    let decisions = 0;
    const profiler = new ThreadProfile();
    for (let i = 0; i <= cycles; i++) {
      if (i === 0 && profiles.cold) await profiler.start();
      if (i === 1 && profiles.cold) await profiler.stop(profiles.cold);
      if (i === 1 && profiles.steady) await profiler.start();
      if (i > 0) await fetch(`${url}/ws/v1/cluster/_synthetic/step?fraction=0.01`, { method: 'POST' });
      await counters();
      probe = i > 0 ? 'on' : 'idle';
      refreshWall = refreshCpu = refreshMainCpu = journalWall = 0;
      const parserBusy = sharedListParser.busyMs();
      // What the cycle added to the journal (a decision unchanged since the last cycle adds nothing).
      const journalBefore = await store.journal.sizeBytes();
      const w = performance.now();
      const report = await engine.runCycle();
      const wall = (performance.now() - w) / 1000;
      if (report.outcome !== 'ok') throw new Error(`cycle ${i}: ${report.outcome}: ${report.error}`);
      const c = await counters();
      decisions = report.decisions.length;
      phases.push({
        requests: c.requests,
        shimRequests: c.shimRequests,
        mb: (c.bytes + c.shimBytes) / 1e6,
        refreshWallS: refreshWall,
        refreshCpuS: refreshCpu,
        parserThreadS: (sharedListParser.busyMs() - parserBusy) / 1000,
        mainThreadS: refreshMainCpu,
        decidePlanMs: (wall - refreshWall - journalWall) * 1000,
        journalMs: journalWall * 1000,
        journalKB: ((await store.journal.sizeBytes()) - journalBefore) / 1e3,
        cycleWallS: wall,
      });
    }
    if (profiles.steady && cycles > 0) await profiler.stop(profiles.steady);
    probe = 'stop';
    await prober;
    await api.close();
    const sorted = [...latencies].sort((a, b) => a - b);
    const pct = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! : NaN);
    const steady = phases.slice(1);
    const med = (k: keyof Phase): number => median(steady.map((p) => p[k]));
    return {
      size: sizeName,
      policy,
      containersFrom,
      ...size,
      cold: phases[0]!,
      steady: {
        requests: med('requests'),
        shimRequests: med('shimRequests'),
        mb: med('mb'),
        refreshWallS: med('refreshWallS'),
        refreshCpuS: med('refreshCpuS'),
        parserThreadS: med('parserThreadS'),
        mainThreadS: med('mainThreadS'),
        decidePlanMs: med('decidePlanMs'),
        journalMs: med('journalMs'),
        journalKB: med('journalKB'),
        cycleWallS: med('cycleWallS'),
      },
      peakRssMB: process.resourceUsage().maxRSS / 1024,
      decisions,
      healthz: { p50: pct(0.5), p99: pct(0.99), max: sorted.at(-1) ?? NaN, probes: sorted.length },
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    child.kill();
  }
}

function runChild(sizeName: string, policy: string, cycles: number, containersFrom: 'shims' | 'rm', maxOldSpaceMB?: number): Promise<Row> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      [
        // The measured process only (the synthetic RM's is not capped).
        ...(maxOldSpaceMB !== undefined ? [`--max-old-space-size=${maxOldSpaceMB}`] : []),
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        '--one',
        sizeName,
        '--policies',
        policy,
        '--cycles',
        String(cycles),
        '--containers-from',
        containersFrom,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    p.on('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as Row);
      else reject(new Error(`${sizeName}/${policy} exited with ${code}: ${out.slice(-500)}`));
    });
  });
}

const f = (x: number, d = 2): string => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

export function table(rows: readonly Row[]): string {
  const head =
    '| nodes / running apps / containers | policy | containers from | RM requests (cold / 1 % changed) | shim requests (cold / 1 %) | MB read, RM + shims (cold / 1 %) | refresh CPU s (cold / 1 %) | of which list-parsing thread s (cold / 1 %) | of which main thread s (cold / 1 %) | refresh wall s (1 %) | decide + plan ms (1 %) | journal ms (1 %) | journal KB per cycle | decisions per cycle | cycle wall s (1 %) | peak RSS MB | /healthz p50 / p99 / max ms during cycles |';
  const sep = '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
  const lines = rows.map(
    (r) =>
      `| ${r.nodes.toLocaleString('en-US')} / ${(r.apps + (r.bigApp ? 1 : 0)).toLocaleString('en-US')} / ${(r.containers + (r.bigApp ?? 0)).toLocaleString('en-US')} | ${r.policy} | ${r.containersFrom === 'shims' ? 'node shims' : 'RM per app'} | ${r.cold.requests.toLocaleString('en-US')} / ${r.steady.requests.toLocaleString('en-US')} | ${r.cold.shimRequests.toLocaleString('en-US')} / ${r.steady.shimRequests.toLocaleString('en-US')} | ${f(r.cold.mb, 1)} / ${f(r.steady.mb, 1)} | ${f(r.cold.refreshCpuS)} / ${f(r.steady.refreshCpuS)} | ${f(r.cold.parserThreadS)} / ${f(r.steady.parserThreadS)} | ${f(r.cold.mainThreadS)} / ${f(r.steady.mainThreadS)} | ${f(r.steady.refreshWallS)} | ${f(r.steady.decidePlanMs, 0)} | ${f(r.steady.journalMs, 0)} | ${f(r.steady.journalKB, 1)} | ${r.decisions.toLocaleString('en-US')} | ${f(r.steady.cycleWallS)} | ${f(r.peakRssMB, 0)} | ${r.healthz ? `${f(r.healthz.p50, 1)} / ${f(r.healthz.p99, 1)} / ${f(r.healthz.max, 0)}` : '–'} |`,
  );
  return [head, sep, ...lines].join('\n');
}

export async function runLiveScale(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: 'string', default: DEFAULT_SIZES.join(',') },
      policies: { type: 'string', default: 'capacity-targets,bopf,kairos' },
      cycles: { type: 'string', default: '3' },
      one: { type: 'string' },
      label: { type: 'string', default: 'run' },
      'containers-from': { type: 'string', default: 'shims' },
      'max-old-space-mb': { type: 'string' },
      profile: { type: 'string' },
      'profile-cold': { type: 'string' },
    },
  });
  const maxOldSpaceMB = values['max-old-space-mb'] === undefined ? undefined : Number(values['max-old-space-mb']);
  if (maxOldSpaceMB !== undefined && !(Number.isInteger(maxOldSpaceMB) && maxOldSpaceMB > 0))
    throw new Error(`--max-old-space-mb: a whole number of MB, not ${values['max-old-space-mb']}`);
  const cycles = Number(values.cycles);
  const containersFrom = values['containers-from'];
  if (containersFrom !== 'shims' && containersFrom !== 'rm') throw new Error(`--containers-from: shims or rm, not ${containersFrom}`);
  if (values.one !== undefined) {
    const row = await runOne(values.one, values.policies, cycles, containersFrom, { steady: values.profile, cold: values['profile-cold'] });
    process.stdout.write(`${JSON.stringify(row)}\n`);
    return;
  }
  const rows: Row[] = [];
  const load0 = os.loadavg()[0]!;
  for (const size of values.sizes.split(',')) {
    for (const policy of values.policies.split(',')) {
      process.stderr.write(`live-scale ${size} ${policy} …\n`);
      const row = await runChild(size, policy, cycles, containersFrom, maxOldSpaceMB);
      rows.push(row);
      process.stderr.write(`${table([row]).split('\n')[2]}\n`);
    }
  }
  const load1 = os.loadavg()[0]!;
  const md = `${table(rows)}\n\n${values.label}: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, load average ${f(load0, 1)} at the start and ${f(load1, 1)} at the end; ${cycles} cycles after the cold one (median shown)${maxOldSpaceMB !== undefined ? `; measured process run with --max-old-space-size=${maxOldSpaceMB}` : ''}.`;
  process.stdout.write(`${md}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runLiveScale(process.argv.slice(2));
}
