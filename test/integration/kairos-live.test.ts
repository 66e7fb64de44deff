/**
 * Kairos live on the shared mini YARN: `schedbrain serve --policy kairos` (the `serve` command,
 * in-process) against the real RM and the NodeManager shim, compared with the stock scheduler on
 * the same workload.
 *
 * Workload: two long CPU-bound jobs fill the cluster (AM + 3 one-core tasks each = every vcore of
 * the default two 4-vcore nodes), then two short jobs arrive (AM + 2 tasks each).
 * - Stock scheduler (no brain): the short jobs wait until long tasks finish.
 * - Kairos: nodes advertise N + Q slots, the short jobs are placed at once, long tasks are
 *   suspended (LAS) while they run, and the short jobs finish before the long ones.
 *
 * Assertions are about behaviour (ordering, overlap, suspension, journal), never durations; the
 * measured times are printed as a table (docs/results.md, "Kairos live on YARN").
 *
 * Leaves the cluster as it found it: serve's clean shutdown releases the lease (suspended
 * containers resume), withdraws the ranking and restores node capacities; the test checks that,
 * and afterAll repeats it as a safety net.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { leaseHolderFor, serve } from '../../src/cli/main.js';
import { createAdminClient, ok } from '../../src/client/index.js';
import { HttpNodeShim, type WireContainer } from '../../src/yarn/shim-client.js';
import { submitJob } from '../../src/yarn/workload.js';
import { eventually, shimSecret, shimUrl } from './helpers.js';

const rmUrl = inject('rmUrl');
const confDir = inject('confDir');

const url = shimUrl();

/**
 * CPU seconds of one task. Long tasks are 12x the short ones: on a loaded machine the short jobs'
 * ApplicationMasters take long to start, and a long task must still be far from done by then
 * (with 12 s, two runs beside other CPU-bound work saw a long task end first).
 */
const LONG_CPU_S = 24;
const SHORT_CPU_S = 2;
const LONG_JOBS = 2;
const SHORT_JOBS = 2;
const SHORT_TASKS = 2;
/** Kairos for a test: W = 4 s (the paper's prototype uses 50 s), Q = 4 as in the paper. */
const KAIROS_PARAMS = { quantumMs: 4_000, queueSlots: 4, starvationQuanta: 3 };
const PERIOD_MS = 500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RmApp {
  id: string;
  name: string;
  state: string;
  finalStatus: string;
  startedTime: number;
  launchTime: number;
  finishedTime: number;
}

async function rmApp(appId: string): Promise<RmApp> {
  const res = await fetch(`${rmUrl}/ws/v1/cluster/apps/${appId}`, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`GET app ${appId}: ${res.status}`);
  return ((await res.json()) as { app: RmApp }).app;
}

async function killApp(appId: string): Promise<void> {
  await fetch(`${rmUrl}/ws/v1/cluster/apps/${appId}/state?user.name=schedbrain`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ state: 'KILLED' }),
  });
}

type Capacity = { memoryMB: number; vcores: number };

async function nodeCapacities(): Promise<Record<string, Capacity>> {
  const res = await fetch(`${rmUrl}/ws/v1/cluster/nodes?states=RUNNING`, { headers: { Accept: 'application/json' } });
  const body = (await res.json()) as { nodes: { node: { id: string; totalResource: { memory: number; vCores: number } }[] } };
  return Object.fromEntries(body.nodes.node.map((n) => [n.id, { memoryMB: n.totalResource.memory, vcores: n.totalResource.vCores }]));
}

async function setNodeCapacity(nodeId: string, r: Capacity): Promise<void> {
  await fetch(`${rmUrl}/ws/v1/cluster/nodes/${nodeId}/resource?user.name=schedbrain`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ resource: { memory: r.memoryMB, vCores: r.vcores }, overCommitTimeout: -1 }),
  });
}

const containerPrefix = (appId: string) => `${appId.replace(/^application_/, 'container_')}_`;
const isAm = (containerId: string) => /_000001$/.test(containerId);

/** One look at the shim: every container with its state. */
interface Sample {
  atMs: number;
  containers: Pick<WireContainer, 'containerId' | 'nodeId' | 'state' | 'attainedServiceMs'>[];
}

/** Samples the shim every few hundred ms until stopped. */
function startSampler(shim: HttpNodeShim): { samples: Sample[]; stop: () => Promise<void> } {
  const samples: Sample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const l = await shim.listContainers();
        samples.push({
          atMs: l.nowMs,
          containers: l.containers.map((c) => ({ containerId: c.containerId, nodeId: c.nodeId, state: c.state, attainedServiceMs: c.attainedServiceMs })),
        });
      } catch {
        // a missed sample only makes the record coarser
      }
      await sleep(300);
    }
  })();
  return {
    samples,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

interface Journaled {
  rule: string;
  reason: string;
  result: string;
  action?: { kind: string; containerId?: string; nodeId?: string; resource?: Capacity };
}

/** A running `schedbrain serve`, in-process, stopped through its stop signal. */
interface Brain {
  adminUrl: string;
  /** The first-start admin token serve made in its state directory. */
  token: string;
  out: string[];
  stop: () => Promise<number>;
}

async function startBrain(stateDir: string, shim: string): Promise<Brain> {
  const out: string[] = [];
  const io = { out: (s: string) => out.push(s), err: (s: string) => out.push(s) };
  let signal!: (s: string) => void;
  const stopped = new Promise<string>((r) => (signal = r));
  // The brain reads the shims' shared secret from a file, as on a real cluster.
  const secretFile = join(stateDir, 'shim.secret');
  writeFileSync(secretFile, `${shimSecret() ?? ''}\n`, { mode: 0o600 });
  const argv = [
    '--rm-url',
    rmUrl,
    '--shim-urls',
    shim,
    '--shim-secret-file',
    secretFile,
    '--user',
    'schedbrain',
    '--policy',
    'kairos',
    '--policy-params',
    JSON.stringify(KAIROS_PARAMS),
    '--period-ms',
    String(PERIOD_MS),
    '--port',
    '0',
    '--state-dir',
    stateDir,
    '--log-level',
    'warn',
  ];
  const running = serve(argv, io, stopped);
  const line = await eventually(
    'the admin API line',
    async () => {
      const l = out.find((x) => x.includes('admin API'));
      if (l) return l;
      const code = await Promise.race([running, sleep(100).then(() => undefined)]);
      if (code !== undefined) throw new Error(`serve exited with ${code}: ${out.join('\n')}`);
      return undefined;
    },
    60_000,
    100,
  );
  const adminUrl = /admin API (\S+)/.exec(line)![1]!;
  return {
    adminUrl,
    token: readFileSync(join(stateDir, 'admin.token'), 'utf8').trim(),
    out,
    stop: async () => {
      signal('SIGTERM');
      return running;
    },
  };
}

/** Every journal entry of the running brain, oldest first (paged through the admin API with the generated client). */
async function journal(adminUrl: string, token: string): Promise<Journaled[]> {
  const client = createAdminClient({ baseUrl: adminUrl, token });
  const all: (Journaled & { id: string; timeMs: number })[] = [];
  let since: number | undefined;
  const seen = new Set<string>();
  for (;;) {
    const query = { order: 'asc' as const, limit: 1000, policy: 'kairos', ...(since !== undefined ? { since: String(since) } : {}) };
    const { entries } = (await ok(client.GET('/v1/decisions', { params: { query } }))) as { entries: (Journaled & { id: string; timeMs: number })[] };
    const fresh = entries.filter((e) => !seen.has(e.id));
    for (const e of fresh) {
      seen.add(e.id);
      all.push(e);
    }
    if (entries.length < 1000 || fresh.length === 0) return all;
    since = entries.at(-1)!.timeMs;
  }
}

interface JobResult {
  name: string;
  kind: 'long' | 'short';
  appId: string;
  app: RmApp;
  /** First time one of its task containers was seen by the shim. */
  firstTaskSeenMs?: number;
}

interface RunResult {
  jobs: JobResult[];
  samples: Sample[];
  longTaskIds: string[];
  shortTaskIds: string[];
}

describe.skipIf(!url)('Kairos live on YARN (serve --policy kairos) vs the stock scheduler', () => {
  let shim: HttpNodeShim;
  let baseline: Record<string, Capacity>;
  let longTasks = 3;
  const apps: string[] = [];
  let brain: Brain | undefined;
  const stateDir = mkdtempSync(join(tmpdir(), 'schedbrain-kairos-live-'));

  beforeAll(async () => {
    shim = new HttpNodeShim({ urls: [url!], holder: `kairos-live-it-${process.pid}`, requestTimeoutMs: 10_000, secret: shimSecret() });
    // Another file's brain may still hold a lease on the shared shim: it lapses within its TTL.
    await eventually('no foreign lease on the shim', async () => (await shim.listContainers()).lease === null, 120_000);
    await eventually('no containers left by other files', async () => (await shim.listContainers()).containers.length === 0, 180_000, 1000);
    baseline = await nodeCapacities();
    expect(Object.keys(baseline).length).toBeGreaterThanOrEqual(2);
    // The long jobs (AM + tasks, one vcore each) take every vcore of the cluster: 3 tasks each on
    // the default 2 x 4 vcores.
    const vcores = Object.values(baseline).reduce((n, r) => n + r.vcores, 0);
    longTasks = Math.floor(vcores / LONG_JOBS) - 1;
    expect(longTasks * LONG_JOBS + LONG_JOBS).toBe(vcores);
  });

  afterAll(async () => {
    // Safety net for a failed run; the test itself checks that serve's shutdown did all this.
    if (brain) await brain.stop().catch(() => undefined);
    await Promise.all(apps.map((a) => killApp(a).catch(() => undefined)));
    const now = await nodeCapacities().catch(() => ({}) as Record<string, Capacity>);
    for (const [id, r] of Object.entries(baseline ?? {})) {
      if (now[id] && (now[id]!.vcores !== r.vcores || now[id]!.memoryMB !== r.memoryMB)) await setNodeCapacity(id, r).catch(() => undefined);
    }
    // The brain's lease holder is named after its host and state directory.
    await new HttpNodeShim({ urls: [url!], retry: { maxAttempts: 1 }, secret: shimSecret(), holder: leaseHolderFor(stateDir) })
      .releaseLease()
      .catch(() => undefined);
    await shim?.publishRanking({ scores: {}, leastLoadedFirst: false, ttlMs: 1 }).catch(() => undefined);
    rmSync(stateDir, { recursive: true, force: true });
  });

  /** Long jobs fill the cluster, then the short jobs arrive; runs until all of them finished. */
  async function runWorkload(label: string): Promise<RunResult> {
    const sampler = startSampler(shim);
    try {
      const longs = await Promise.all(
        Array.from({ length: LONG_JOBS }, (_, i) =>
          submitJob(confDir, { name: `${label}-long-${i + 1}`, containers: longTasks, command: { kind: 'cpu', seconds: LONG_CPU_S } }).then((j) => ({
            ...j,
            name: `long-${i + 1}`,
          })),
        ),
      );
      apps.push(...longs.map((j) => j.appId));
      const longTaskIds = await eventually(
        'every long task container launched and computing',
        async () => {
          const cs = (await shim.listContainers()).containers.filter(
            (c) => longs.some((j) => c.containerId.startsWith(containerPrefix(j.appId))) && !isAm(c.containerId),
          );
          if (cs.length < LONG_JOBS * longTasks) return undefined;
          return cs.filter((c) => c.state === 'RUNNING').every((c) => c.attainedServiceMs >= 1000) ? cs.map((c) => c.containerId) : undefined;
        },
        180_000,
      );

      const shorts = await Promise.all(
        Array.from({ length: SHORT_JOBS }, (_, i) =>
          submitJob(confDir, { name: `${label}-short-${i + 1}`, containers: SHORT_TASKS, command: { kind: 'cpu', seconds: SHORT_CPU_S } }).then((j) => ({
            ...j,
            name: `short-${i + 1}`,
          })),
        ),
      );
      apps.push(...shorts.map((j) => j.appId));

      const all = [...longs.map((j) => ({ ...j, kind: 'long' as const })), ...shorts.map((j) => ({ ...j, kind: 'short' as const }))];
      const finished = await eventually(
        'every job to finish',
        async () => {
          const states = await Promise.all(all.map((j) => rmApp(j.appId)));
          return states.every((a) => ['FINISHED', 'FAILED', 'KILLED'].includes(a.state)) ? states : undefined;
        },
        900_000,
        1000,
      );
      await sampler.stop();
      const samples = sampler.samples;
      const shortTaskIds = [...new Set(samples.flatMap((s) => s.containers.map((c) => c.containerId)))].filter(
        (id) => !isAm(id) && shorts.some((j) => id.startsWith(containerPrefix(j.appId))),
      );
      const jobs = all.map((j, i) => ({
        name: j.name,
        kind: j.kind,
        appId: j.appId,
        app: finished[i]!,
        firstTaskSeenMs: samples.find((s) => s.containers.some((c) => !isAm(c.containerId) && c.containerId.startsWith(containerPrefix(j.appId))))?.atMs,
      }));
      return { jobs, samples, longTaskIds, shortTaskIds };
    } finally {
      await sampler.stop();
    }
  }

  /** Samples in which a short task ran while every long task was still there (none had finished). */
  /** The samples as lines (repeats folded): long tasks present and suspended, short tasks running. */
  const timeline = (r: RunResult): string => {
    const t0 = r.samples[0]?.atMs ?? 0;
    const lines: string[] = [];
    let last = '';
    for (const s of r.samples) {
      const longs = s.containers.filter((c) => r.longTaskIds.includes(c.containerId));
      const shorts = s.containers.filter((c) => r.shortTaskIds.includes(c.containerId) && c.state === 'RUNNING');
      const line = `long tasks ${longs.length}/${r.longTaskIds.length} (${longs.filter((c) => c.state === 'SUSPENDED').length} suspended), short tasks running ${shorts.length}`;
      if (line !== last) lines.push(`  +${((s.atMs - t0) / 1000).toFixed(1)} s: ${line}`);
      last = line;
    }
    return lines.join('\n');
  };

  const overlaps = (r: RunResult) =>
    r.samples.filter((s) => {
      const ids = new Set(s.containers.map((c) => c.containerId));
      return r.longTaskIds.every((id) => ids.has(id)) && s.containers.some((c) => r.shortTaskIds.includes(c.containerId) && c.state === 'RUNNING');
    });

  it('short jobs wait under the stock scheduler; under Kairos they start at once and finish before the long jobs', async () => {
    // ---- 1. stock scheduler: no brain -----------------------------------------------------------
    expect((await shim.listContainers()).lease).toBeNull();
    const stock = await runWorkload('stock');
    for (const j of stock.jobs)
      expect({ job: j.name, state: j.app.state, finalStatus: j.app.finalStatus }).toEqual({ job: j.name, state: 'FINISHED', finalStatus: 'SUCCEEDED' });
    // Nothing was suspended, and no short task ever ran next to the full set of long tasks: the
    // short jobs waited for long tasks to finish.
    expect(stock.samples.some((s) => s.containers.some((c) => c.state === 'SUSPENDED'))).toBe(false);
    expect(stock.shortTaskIds.length).toBe(SHORT_JOBS * SHORT_TASKS);
    expect(overlaps(stock)).toEqual([]);
    const allLongsFrom = stock.samples.findIndex((s) => stock.longTaskIds.every((id) => s.containers.some((c) => c.containerId === id)));
    const firstLongGone = stock.samples.slice(allLongsFrom).find((s) => stock.longTaskIds.some((id) => !s.containers.some((c) => c.containerId === id)))!.atMs;
    for (const j of stock.jobs.filter((x) => x.kind === 'short')) expect(j.firstTaskSeenMs!).toBeGreaterThanOrEqual(firstLongGone);

    // ---- 2. Kairos: schedbrain serve --policy kairos -------------------------------------------
    brain = await startBrain(stateDir, url!);
    // node.cap: every node advertises N + Q vcores (memory scaled alike).
    await eventually(
      'every node over-committed to N+Q',
      async () => {
        const now = await nodeCapacities();
        return Object.entries(baseline).every(([id, r]) => now[id]?.vcores === r.vcores + KAIROS_PARAMS.queueSlots) ? now : undefined;
      },
      60_000,
    );
    const kairos = await runWorkload('kairos');
    const decisions = await journal(brain.adminUrl, brain.token);
    expect(await brain.stop()).toBe(0);
    brain = undefined;

    for (const j of kairos.jobs)
      expect({ job: j.name, state: j.app.state, finalStatus: j.app.finalStatus }).toEqual({ job: j.name, state: 'FINISHED', finalStatus: 'SUCCEEDED' });
    // Short tasks started while every long task was still there, and long tasks were suspended
    // (observed through the shim) to give them cores.
    expect(kairos.shortTaskIds.length).toBe(SHORT_JOBS * SHORT_TASKS);
    const together = overlaps(kairos);
    expect(together.length, `no sample with every long task present and a short task running:\n${timeline(kairos)}`).toBeGreaterThan(0);
    const journalCounts = () => {
      const counts: Record<string, number> = {};
      for (const d of decisions) counts[`${d.rule} ${d.result}`] = (counts[`${d.rule} ${d.result}`] ?? 0) + 1;
      return JSON.stringify(counts);
    };
    expect(
      together.some((s) => s.containers.some((c) => kairos.longTaskIds.includes(c.containerId) && c.state === 'SUSPENDED')),
      `no long task suspended while short tasks ran beside every long one:\n${timeline(kairos)}\njournal: ${journalCounts()}`,
    ).toBe(true);
    // Only tasks are suspended: every job's ApplicationMaster kept running.
    expect(kairos.samples.flatMap((s) => s.containers.filter((c) => isAm(c.containerId) && c.state === 'SUSPENDED').map((c) => c.containerId))).toEqual([]);
    // Short jobs finished before the long ones.
    const lastShortDone = Math.max(...kairos.jobs.filter((j) => j.kind === 'short').map((j) => j.app.finishedTime));
    const firstLongDone = Math.min(...kairos.jobs.filter((j) => j.kind === 'long').map((j) => j.app.finishedTime));
    expect(lastShortDone).toBeLessThan(firstLongDone);

    // The journal explains it: rule and reason of every step, applied on the real cluster.
    const applied = decisions.filter((d) => d.result === 'applied');
    // Rules are the names of the functions of node-las.ts: a task yields its core on arrival of
    // another or at its quantum's end, and a core goes to a waiting task at a quantum's end or when free.
    const preempts = applied.filter((d) => (d.rule === 'preemptOnArrival' || d.rule === 'swapOnQuantumEnd') && d.action?.kind === 'suspendContainer');
    const resumes = applied.filter((d) => (d.rule === 'swapOnQuantumEnd' || d.rule === 'resumeOnFreeCore') && d.action?.kind === 'resumeContainer');
    expect(preempts.some((d) => kairos.longTaskIds.includes(d.action!.containerId!))).toBe(true);
    for (const d of preempts) expect(d.reason).toContain(d.action!.containerId!);
    expect(applied.filter((d) => d.action?.kind === 'suspendContainer' && isAm(d.action.containerId!))).toEqual([]);
    expect(resumes.some((d) => kairos.longTaskIds.includes(d.action!.containerId!))).toBe(true);
    const capped = applied.filter((d) => d.rule === 'nodeCap' && d.action?.kind === 'setNodeResource');
    expect(new Set(capped.map((d) => d.action!.nodeId))).toEqual(new Set(Object.keys(baseline)));
    for (const d of capped) expect(d.reason).toMatch(/N\+Q = \d+\+4/);
    expect(applied.some((d) => d.rule === 'dispatchRank' && d.action?.kind === 'rankNodes')).toBe(true);

    // ---- 3. serve's clean shutdown handed the cluster back ---------------------------------------
    expect(await nodeCapacities()).toEqual(baseline);
    const after = await shim.listContainers();
    expect(after.lease).toBeNull();
    expect(after.containers.filter((c) => c.state === 'SUSPENDED')).toEqual([]);
    expect((await shim.rankingState()).fresh).toBe(false);

    // ---- report ----------------------------------------------------------------------------------
    const row = (r: RunResult, name: string) => {
      const j = r.jobs.find((x) => x.name === name)!;
      return {
        startS: j.firstTaskSeenMs !== undefined ? (j.firstTaskSeenMs - j.app.startedTime) / 1000 : NaN,
        jctS: (j.app.finishedTime - j.app.startedTime) / 1000,
      };
    };
    const fmt = (x: number) => x.toFixed(1).padStart(7);
    const lines = [
      `Kairos live on YARN: ${LONG_JOBS} long jobs x ${longTasks} tasks x ${LONG_CPU_S} CPU-s, then ${SHORT_JOBS} short jobs x ${SHORT_TASKS} tasks x ${SHORT_CPU_S} CPU-s;`,
      `W=${KAIROS_PARAMS.quantumMs / 1000} s, Q=${KAIROS_PARAMS.queueSlots}, period ${PERIOD_MS} ms. Seconds from submission (first task seen / completed).`,
      'job       | stock start | stock JCT | kairos start | kairos JCT',
      '----------|-------------|-----------|--------------|-----------',
      ...stock.jobs.map((j) => {
        const s = row(stock, j.name);
        const k = row(kairos, j.name);
        return `${j.name.padEnd(9)} |     ${fmt(s.startS)} |   ${fmt(s.jctS)} |      ${fmt(k.startS)} |    ${fmt(k.jctS)}`;
      }),
      `journal: ${preempts.length} suspensions (preemptOnArrival, swapOnQuantumEnd), ${resumes.length} resumes (swapOnQuantumEnd, resumeOnFreeCore), ${applied.filter((d) => d.rule === 'starvationGuard').length} starvationGuard, ${capped.length} nodeCap, ${applied.filter((d) => d.rule === 'dispatchRank').length} dispatchRank applied; ${decisions.filter((d) => d.result === 'failed').length} failed`,
      `max SUSPENDED containers seen at once under Kairos: ${Math.max(...kairos.samples.map((s) => s.containers.filter((c) => c.state === 'SUSPENDED').length))}`,
    ];
    console.log(lines.join('\n'));
  }, 1_800_000);
});
