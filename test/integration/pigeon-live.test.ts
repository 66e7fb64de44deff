/**
 * Pigeon live on the shared mini YARN: the engine runs `pigeon` against the real RM and the shim.
 *
 * The test's setup creates `root.pg<tag>` (all of root's guarantee; root.default goes to 0 %) with
 * two leaves, short and long; the long leaf names the RM plugin's `schedbrain-general` sorting
 * policy, which never offers a node the brain's ranking reserves. Both leaves get
 * user-limit-factor 100: at a 1 % guarantee the default (1) would cap a user at 1 % of the cluster.
 *
 * The brain reserves one of the two nodes (reservedPct 10 % of 2 nodes, rounded up to one) and
 * serves short first (short 99 %, long 1 %), with W = 2.
 *
 * Workload (sleep tasks, 1 vcore / 512 MB, on the 2 × <4 vcores, 4096 MB> cluster):
 * - a first long job (AM + 2 tasks of 40 s) and a second one's AM fill the general node, and the
 *   second one (many 10 s tasks) keeps asking: the long jobs fill the cluster as far as they may;
 * - then one short job (AM + many 3 s tasks). When the first long job ends, the general node's
 *   slots free and short and long work compete for them.
 *
 * Asserted:
 * - before the short job, the long jobs ask for containers while the reserved node stays empty;
 * - the short job's first container (its AM) starts on the reserved node within two control
 *   periods of its submission (as the RM records it);
 * - no long container is ever on the reserved node (every container of the long jobs, sampled
 *   from the RM every 250 ms, with its node);
 * - long work progresses while short work waits: the brain swaps the guarantees (rule
 *   `weightedFairQueuing`) after W − 1 short dispatches in a row on the general node (one of
 *   every W is long), and every task that starts on the general node while the swap is in force
 *   is long; long tasks start there during the short job. The longest run of short dispatches on the general node between two long ones is
 *   printed (docs/results.md): above W − 1 by what started before the swap took effect.
 *
 * The cluster is shared: afterAll stops the engine, stands the backend down (the ranking is
 * withdrawn), kills this file's apps, removes the queues and puts root.default back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Engine, type CycleReport } from '../../src/engine/engine.js';
import { RESERVED_SCORE_MIN, type PigeonState } from '../../src/policies/pigeon/index.js';
import { Store } from '../../src/store/store.js';
import { YarnBackend } from '../../src/yarn/backend.js';
import { HttpNodeShim } from '../../src/yarn/shim-client.js';
import { submitJob } from '../../src/yarn/workload.js';
import { eventually, shimSecret, shimUrl } from './helpers.js';

const rmUrl = inject('rmUrl');
const confDir = inject('confDir');
const url = shimUrl();

const PERIOD_MS = 2_000;
const W = 2;
const tag = Date.now() % 100_000;
const PARENT = `root.pg${tag}`;
const SHORT_LEAF = `pg${tag}s`;
const LONG_LEAF = `pg${tag}l`;
const SHORT = `${PARENT}.${SHORT_LEAF}`;
const LONG = `${PARENT}.${LONG_LEAF}`;

const TASK = { memoryMB: 512, vcores: 1 };
/** The first long job: its AM and tasks fill the general node while the short job arrives. */
const FIRST_LONG_TASKS = 2;
const FIRST_LONG_TASK_S = 40;
const LONG_TASKS = 60;
const LONG_TASK_S = 10;
const SHORT_TASKS = 60;
const SHORT_TASK_S = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isAm = (containerId: string) => /_000001$/.test(containerId);

interface Seen {
  containerId: string;
  appId: string;
  nodeId: string;
  startedMs: number;
}

describe.skipIf(!url)('Pigeon live on a real ResourceManager', () => {
  let shim: HttpNodeShim;
  let backend: YarnBackend;
  let dir: string;
  let store: Store;
  let engine: Engine;
  let originalDefault: number | undefined;
  const apps: string[] = [];
  const cycles: CycleReport[] = [];
  /** Every container of this file's apps the sampler saw, by id (first sighting). */
  const seen = new Map<string, Seen>();
  let sampling = false;
  let sampler: Promise<void> | undefined;

  async function sample(): Promise<void> {
    for (const appId of [...apps]) {
      try {
        for (const a of await backend.client.appAttempts(appId)) {
          for (const c of await backend.client.attemptContainers(appId, a.appAttemptId)) {
            const nodeId = c.assignedNodeId ?? c.nodeId;
            if (!seen.has(c.containerId) && nodeId) seen.set(c.containerId, { containerId: c.containerId, appId, nodeId, startedMs: c.startedTime });
          }
        }
      } catch {
        // An app between states answers 404 for a moment; the next sample reads it.
      }
    }
  }

  beforeAll(async () => {
    if (!url) return;
    shim = new HttpNodeShim({ urls: [url], holder: `pigeon-live-${process.pid}`, requestTimeoutMs: 10_000, secret: shimSecret() });
    backend = new YarnBackend({ rmUrl, user: 'schedbrain', shim });
    const before = await backend.client.scheduler();
    originalDefault = [before.queues?.queue ?? []].flat().find((q) => q.queueName === 'default')?.capacity;
    const leaf = { 'maximum-capacity': '100', 'user-limit-factor': '100', capacity: '50' };
    await backend.client.updateSchedulerConf({
      addQueues: [
        { queue: PARENT, params: { capacity: '100', 'maximum-capacity': '100' } },
        { queue: SHORT, params: leaf },
        { queue: LONG, params: { ...leaf, 'multi-node-sorting.policy': 'schedbrain-general' } },
      ],
      updateQueues: [{ queue: 'root.default', params: { capacity: '0' } }],
    });
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-pigeon-live-'));
    store = await Store.open(dir);
    engine = new Engine({
      backend,
      store,
      periodMs: PERIOD_MS,
      initial: { policy: 'pigeon', params: { shortQueue: SHORT, longQueue: LONG, weight: W }, dryRun: false },
    });
    await engine.init();
    const run = engine.runCycle.bind(engine);
    engine.runCycle = async () => {
      const r = await run();
      if (!cycles.includes(r)) cycles.push(r);
      return r;
    };
  });

  afterAll(async () => {
    if (!url) return;
    sampling = false;
    await sampler;
    await engine?.stop();
    const down = await backend?.standDown();
    if (down?.errors.length) console.warn(`stand-down: ${down.errors.join('; ')}`);
    for (const id of apps) await backend.client.killApp(id).catch(() => undefined);
    if (originalDefault !== undefined) {
      const ours = [SHORT, LONG];
      await eventually(
        'our leaves to hold no application',
        async () => {
          const s = await backend.client.scheduler();
          const parent = [s.queues?.queue ?? []].flat().find((q) => q.queueName === `pg${tag}`);
          return [parent?.queues?.queue ?? []].flat().every((q) => (q.numApplications ?? 0) === 0);
        },
        60_000,
        500,
      ).catch((e: unknown) => console.warn((e as Error).message));
      // A parent at 0 % must have its children at 0 % too; stopped queues can be removed, the
      // parent with its subtree.
      await backend.client.updateSchedulerConf({
        updateQueues: [
          { queue: 'root.default', params: { capacity: String(originalDefault) } },
          ...[PARENT, ...ours].map((queue) => ({ queue, params: { capacity: '0' } })),
        ],
      });
      await backend.client.updateSchedulerConf({ updateQueues: [...ours, PARENT].map((queue) => ({ queue, params: { state: 'STOPPED' } })) });
      await backend.client
        .updateSchedulerConf({ removeQueues: [PARENT] })
        .catch(() => backend.client.updateSchedulerConf({ removeQueues: [...ours, PARENT] }))
        .catch((e: unknown) => console.warn(`could not remove ${PARENT}: ${(e as Error).message}`));
      const left = [(await backend.client.scheduler()).queues?.queue ?? []].flat().map((q) => q.queueName);
      expect(left).toEqual(['default']);
    }
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the reserved node for short work, gives short its first container there, and lets long progress every W short dispatches', async () => {
    engine.start();
    const diag = () =>
      `last cycles: ${JSON.stringify(cycles.slice(-3).map((c) => [c.outcome, c.notes, c.error, c.decisions.map((d) => [d.rule, d.result, d.error])]))}\n` +
      `containers seen: ${[...seen.values()].map((c) => `${c.containerId}@${c.nodeId}`).join(' ')}`;

    // --- the brain reserves a node and serves short first --------------------------------------
    const reserved = await eventually(
      'the brain to publish a ranking that reserves a node',
      async () => {
        const r = await shim.rankingState();
        const ids = Object.entries(r.ranking?.scores ?? {})
          .filter(([, s]) => s >= RESERVED_SCORE_MIN)
          .map(([id]) => id);
        return r.fresh && ids.length === 1 ? ids[0] : undefined;
      },
      60_000,
      250,
      diag,
    );
    const nodes = (await backend.client.nodes(['RUNNING'])).map((n) => n.id);
    const general = nodes.filter((n) => n !== reserved);
    expect(general.length).toBeGreaterThanOrEqual(1);
    expect((engine.policyState() as PigeonState).reserved).toEqual([reserved]);
    await eventually(
      'short 99 % and long 1 % on the RM',
      async () => {
        const s = await backend.snapshot();
        const cap = (p: string) => [...s.rootQueue.children].flatMap((q) => q.children).find((q) => q.path === p)?.capacityPct;
        return Math.abs((cap(SHORT) ?? 0) - 99) < 0.05 && Math.abs((cap(LONG) ?? 0) - 1) < 0.05;
      },
      60_000,
      250,
      diag,
    );

    // --- long jobs fill the general node and keep asking; the reserved node stays empty ----------
    sampling = true;
    sampler = (async () => {
      while (sampling) {
        await sample();
        await sleep(250);
      }
    })();
    const first = await submitJob(confDir, {
      name: 'pigeon-long-0',
      queue: LONG_LEAF,
      containers: FIRST_LONG_TASKS,
      ...TASK,
      command: { kind: 'sleep', seconds: FIRST_LONG_TASK_S },
    });
    apps.push(first.appId);
    await eventually(
      'the first long job’s AM and tasks running',
      async () => [...seen.values()].filter((c) => c.appId === first.appId).length >= FIRST_LONG_TASKS + 1,
      180_000,
      250,
      diag,
    );
    const second = await submitJob(confDir, {
      name: 'pigeon-long-1',
      queue: LONG_LEAF,
      containers: LONG_TASKS,
      ...TASK,
      command: { kind: 'sleep', seconds: LONG_TASK_S },
    });
    apps.push(second.appId);
    const longApps = new Set(apps);
    const generalFull = async () => {
      const s = await backend.snapshot();
      const g = general.map((id) => s.nodes.get(id)!);
      const r = s.nodes.get(reserved)!;
      const longPending = [...s.apps.values()].filter((a) => longApps.has(a.id)).reduce((n, a) => n + a.pendingContainers, 0);
      return g.every((n) => n.capacity.vcores - n.used.vcores < 1) && longPending > 0 && r.containerIds.length === 0 ? { longPending } : undefined;
    };
    await eventually('the long jobs to fill the general node and ask for more', generalFull, 180_000, 250, diag);
    // Held for two control periods: the long jobs keep asking and still get nothing on the reserved node.
    await sleep(2 * PERIOD_MS);
    expect(await generalFull()).toBeDefined();

    // --- a short job arrives; the general node stays full until the first long job ends ------------
    const shortJob = await submitJob(confDir, {
      name: 'pigeon-short',
      queue: SHORT_LEAF,
      containers: SHORT_TASKS,
      ...TASK,
      command: { kind: 'sleep', seconds: SHORT_TASK_S },
    });
    apps.push(shortJob.appId);
    const submittedMs = (await backend.client.app(shortJob.appId)).startedTime;
    const shortAm = await eventually(
      'the short job’s first container',
      async () => [...seen.values()].find((c) => c.appId === shortJob.appId),
      60_000,
      100,
      diag,
    );
    expect(shortAm.nodeId).toBe(reserved);
    expect(shortAm.startedMs - submittedMs).toBeLessThanOrEqual(2 * PERIOD_MS);

    // --- while short work waits, long still gets the general node every W short dispatches -----
    const shortDone = await eventually(
      'the short job to finish',
      async () => {
        const a = await backend.client.app(shortJob.appId);
        return ['FINISHED', 'FAILED', 'KILLED'].includes(a.state) ? a : undefined;
      },
      240_000,
      500,
      diag,
    );
    expect(shortDone.finalStatus).toBe('SUCCEEDED');
    await sleep(500);
    sampling = false;
    await sampler;
    await engine.stop();

    const all = [...seen.values()];
    // No container of a long job was ever on the reserved node.
    expect(all.filter((c) => longApps.has(c.appId) && c.nodeId === reserved)).toEqual([]);
    expect(all.filter((c) => longApps.has(c.appId)).length).toBeGreaterThan(FIRST_LONG_TASKS + 2);

    // Task starts on the general node during the short job, in start order.
    const window = all
      .filter(
        (c) => !isAm(c.containerId) && general.includes(c.nodeId) && c.startedMs >= shortAm.startedMs && c.startedMs <= (shortDone.finishedTime ?? Date.now()),
      )
      .sort((a, b) => a.startedMs - b.startedMs);
    const classOf = (c: Seen) => (longApps.has(c.appId) ? 'long' : 'short');
    // The swaps: in force from the end of the cycle that applied one to the start of the cycle that undid it.
    const swaps: { fromMs: number; toMs: number }[] = [];
    for (let i = 0; i < cycles.length; i++) {
      const applied = (rule: string) => cycles[i]!.decisions.some((d) => d.rule === rule && d.result === 'applied' && d.action?.kind === 'updateQueues');
      if (!applied('weightedFairQueuing')) continue;
      const back = cycles.slice(i + 1).find((c) => c.decisions.some((d) => d.rule === 'serveShortFirst' && d.result === 'applied'));
      swaps.push({ fromMs: cycles[i]!.finishedAtMs, toMs: back?.startedAtMs ?? Infinity });
    }
    expect(swaps.length).toBeGreaterThan(0);
    const duringSwaps = window.filter((c) => swaps.some((s) => c.startedMs > s.fromMs && c.startedMs < s.toMs));
    expect(duringSwaps.map(classOf).filter((k) => k === 'short')).toEqual([]);
    // Long progressed on the general node while the short job ran.
    const longStarts = window.filter((c) => classOf(c) === 'long');
    expect(longStarts.length).toBeGreaterThan(0);
    expect(duringSwaps.length).toBeGreaterThan(0);

    // --- figures for docs/results.md ------------------------------------------------------------------
    let run = 0;
    let longestShortRun = 0;
    for (const c of window) {
      run = classOf(c) === 'short' ? run + 1 : 0;
      longestShortRun = Math.max(longestShortRun, run);
    }
    const journal = await store.journal.query({ limit: 10_000 });
    expect(journal.filter((e) => e.result === 'failed')).toEqual([]);
    console.log(
      [
        `Pigeon live: period ${PERIOD_MS} ms, W = ${W}, reserved ${reserved}, general ${general.join(', ')}`,
        `short AM on ${shortAm.nodeId} ${shortAm.startedMs - submittedMs} ms after submission`,
        `general-node task starts during the short job: ${window.length} (${longStarts.length} long), sequence ${window.map((c) => (classOf(c) === 'long' ? 'L' : 's')).join('')}`,
        `longest run of short dispatches on the general node between long ones: ${longestShortRun} (W = ${W}: the paper's bound is W − 1)`,
        `swaps applied: ${swaps.length}; long containers on the reserved node: 0 of ${all.filter((c) => longApps.has(c.appId)).length}`,
        `journal: ${journal.filter((e) => e.result === 'applied').length} applied, 0 failed`,
      ].join('\n'),
    );
  });
});
