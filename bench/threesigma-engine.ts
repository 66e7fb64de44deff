/**
 * 3Sigma in the live engine at the paper's scale (§6.5: 12,583 nodes, 667 jobs running, 300
 * pending, half with deadlines; the 100,000-runtime history of `bench/threesigma.ts`), dry-run,
 * its admin API in the same process probed every 20 ms while cycles run back to back. Two ways of
 * running the cycle, alternating: the engine's (the MILP solved in a worker thread, the event
 * loop given turns during the cycle's long loops) and the whole cycle on the event loop (the
 * policy without `decideInSteps`, as before). Reports `/healthz` p50 / p99 / max, the event loop's
 * longest hold (`monitorEventLoopDelay`) and the cycle's wall time.
 *
 *   npm run bench -- --threesigma-engine [--cycles 6] [--rounds 2] [--cluster paper|sets]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { ApiAuth } from '../src/api/auth.js';
import { buildApi } from '../src/api/server.js';
import type { ApplyOutcome, Capabilities, ClusterBackend } from '../src/core/backend.js';
import type { AppView, ClusterSnapshot, ContainerView, NodeView } from '../src/core/model.js';
import { buildSnapshot, defaultQueueTree } from '../src/core/snapshot.js';
import { PREFERRED_NODES_TAG, SLO_DEADLINE_TAG, SLOWDOWN_TAG } from '../src/policies/threesigma/params.js';
import type { AnyPolicy } from '../src/core/policy.js';
import { Engine, type PolicyLookup } from '../src/engine/engine.js';
import { threeSigmaParamsSchema, threeSigmaPolicy, type ThreeSigmaState } from '../src/policies/threesigma/index.js';
import { Store } from '../src/store/store.js';
import { bigHistory, paperScaleSnapshot } from './threesigma.js';

/** Serves one snapshot, its clock moved on by a minute at every read (deadlines come closer). */
class FixedBackend implements ClusterBackend {
  readonly name = 'fixed';
  private reads = 0;
  constructor(private readonly snapshotAt0: ClusterSnapshot) {}
  async snapshot(): Promise<ClusterSnapshot> {
    return { ...this.snapshotAt0, nowMs: this.snapshotAt0.nowMs + 60_000 * this.reads++, changedNodeIds: undefined, changedAppIds: undefined };
  }
  async apply(): Promise<ApplyOutcome> {
    return { status: 'skipped', reason: 'dry-run bench' } as unknown as ApplyOutcome;
  }
  async capabilities(): Promise<Capabilities> {
    return {
      queueWrites: true,
      nodeResourceWrites: false,
      appPriority: true,
      appMove: true,
      containerSuspend: false,
      nodeRanking: false,
    } as unknown as Capabilities;
  }
}

/**
 * Twenty large nodes (each one set of the plan), four best-effort jobs on each holding 20 % of it,
 * 200 pending jobs of which half are SLO jobs preferring 15 of the 20 nodes (10 distinct choices,
 * 1.5× slower elsewhere), demands 5 to 50 % of a node: `bench/threesigma.ts`'s 20-set plan as a
 * cluster. Its MILP does not close within the time limit: HiGHS runs to it.
 */
function setsSnapshot(nowMs: number): ClusterSnapshot {
  let x = 7919;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const SETS = 20;
  const CORES = 100;
  const cap = { vcores: CORES, memoryMB: CORES * 4096 };
  const nodes: NodeView[] = [];
  const apps: AppView[] = [];
  const containers: ContainerView[] = [];
  const app = (id: string, extra: Partial<AppView>): AppView => ({
    id,
    name: id,
    user: 'u',
    queue: 'root.default',
    state: 'RUNNING',
    priority: 1,
    submittedAtMs: nowMs - 5 * 60_000,
    pendingContainers: 0,
    pendingContainerResource: { vcores: 1, memoryMB: 4096 },
    runningContainers: 0,
    allocated: { vcores: 0, memoryMB: 0 },
    tags: {},
    ...extra,
  });
  for (let e = 0; e < SETS; e++) {
    const nodeId = `set-${e}.example:8041`;
    const ids: string[] = [];
    for (let k = 0; k < 4; k++) {
      const id = `application_1_r${e}_${k}`;
      const n = CORES / 5;
      apps.push(app(id, { startedAtMs: nowMs, runningContainers: n, allocated: { vcores: n, memoryMB: n * 4096 } }));
      for (let t = 0; t < n; t++) {
        const cid = `container_1_r${e}_${k}_${t}`;
        ids.push(cid);
        containers.push({
          id: cid,
          appId: id,
          nodeId,
          resource: { vcores: 1, memoryMB: 4096 },
          state: 'RUNNING',
          startedAtMs: nowMs - Math.floor(rnd() * 5 * 60_000),
        });
      }
    }
    nodes.push({
      id: nodeId,
      state: 'RUNNING',
      rack: '/r',
      capacity: cap,
      physicalCapacity: cap,
      used: { vcores: (CORES * 4) / 5, memoryMB: ((CORES * 4) / 5) * 4096 },
      containerIds: ids,
    });
  }
  const choices = Array.from({ length: 10 }, () => {
    const preferred = new Set<number>();
    while (preferred.size < 15) preferred.add(Math.floor(rnd() * SETS));
    return [...preferred].map((e) => nodes[e].id).join(',');
  });
  for (let j = 0; j < 200; j++) {
    const slo = j % 2 === 0;
    apps.push(
      app(`application_1_p${j}`, {
        name: `job-${j % 20}-daily`,
        state: 'ACCEPTED',
        submittedAtMs: nowMs - Math.floor(rnd() * 10 * 60_000),
        pendingContainers: Math.max(1, Math.round((0.05 + rnd() * 0.45) * CORES)),
        tags: slo
          ? {
              [SLO_DEADLINE_TAG]: String(nowMs + Math.floor((5 + rnd() * 40) * 60_000)),
              [PREFERRED_NODES_TAG]: choices[Math.floor(rnd() * 10)],
              [SLOWDOWN_TAG]: '1.5',
            }
          : {},
      }),
    );
  }
  return buildSnapshot({ nowMs, nodes, apps, containers, rootQueue: defaultQueueTree() });
}

interface Row {
  mode: string;
  healthz: { p50: number; p99: number; max: number; probes: number };
  loopHeldMaxMs: number;
  loopHeldP99Ms: number;
  cycleMs: number[];
  notes: string[];
}

async function runMode(mode: 'worker' | 'on the loop', cycles: number, snapshot: ClusterSnapshot, state: ThreeSigmaState): Promise<Row> {
  const policy: AnyPolicy = mode === 'worker' ? threeSigmaPolicy : { ...threeSigmaPolicy, decideInSteps: undefined };
  const policies: PolicyLookup = { get: (n) => (n === policy.name ? policy : undefined), names: () => [policy.name] };
  const dir = mkdtempSync(join(os.tmpdir(), 'schedbrain-3s-engine-'));
  const store = await Store.open(dir);
  const params = threeSigmaParamsSchema.parse({});
  await store.putEngineConfigAndState(
    { policy: policy.name, params, dryRun: true, updatedAtMs: Date.now() },
    policy.name,
    { state, savedAtMs: Date.now(), cycleId: 'bench' },
    {},
  );
  const engine = new Engine({
    backend: new FixedBackend(snapshot),
    store,
    periodMs: 3_600_000,
    logger: pino({ level: 'silent' }),
    policies,
  });
  await engine.init();
  const api = await buildApi({ engine, store, auth: new ApiAuth({ tokens: [] }) });
  await api.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}/healthz`;
  try {
    await engine.runCycle(); // warm-up: compiles, loads HiGHS in the worker
    await fetch(url).then((r) => r.arrayBuffer());
    const latencies: number[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        await new Promise((r) => setTimeout(r, 20));
        const t = performance.now();
        await fetch(url).then((r) => r.arrayBuffer());
        latencies.push(performance.now() - t);
      }
    })();
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const cycleMs: number[] = [];
    let notes: string[] = [];
    for (let i = 0; i < cycles; i++) {
      const t = performance.now();
      const r = await engine.runCycle();
      cycleMs.push(performance.now() - t);
      notes = [...r.notes];
    }
    delay.disable();
    probing = false;
    await prober;
    const sorted = [...latencies].sort((a, b) => a - b);
    const pct = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    return {
      mode,
      healthz: { p50: pct(0.5), p99: pct(0.99), max: sorted.at(-1) ?? NaN, probes: sorted.length },
      loopHeldMaxMs: delay.max / 1e6,
      loopHeldP99Ms: delay.percentile(99) / 1e6,
      cycleMs,
      notes,
    };
  } finally {
    await api.close();
    await engine.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runThreeSigmaEngineBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { cycles: { type: 'string', default: '6' }, rounds: { type: 'string', default: '2' }, cluster: { type: 'string', default: 'paper' } },
  });
  const cycles = Number(values.cycles);
  const rounds = Number(values.rounds);
  const params = threeSigmaParamsSchema.parse({});
  const paper = values.cluster === 'paper';
  const scale = paper ? paperScaleSnapshot(300) : { snapshot: setsSnapshot(10 * 3_600_000), running: 80, containers: 1_600 };
  const history = bigHistory(params);
  const state: ThreeSigmaState = { ...threeSigmaPolicy.initialState(params), predictor: history.predictor };
  const load = () => os.loadavg()[0].toFixed(1);
  const loads = [load()];
  const rows: Row[] = [];
  for (let r = 0; r < rounds; r++)
    for (const mode of ['worker', 'on the loop'] as const) {
      process.stderr.write(`threesigma-engine round ${r + 1} ${mode} …\n`);
      rows.push(await runMode(mode, cycles, scale.snapshot, structuredClone(state)));
    }
  loads.push(load());
  const f = (x: number) => x.toFixed(1);
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log('| round | the cycle | /healthz p50 / p99 / max ms | event loop held p99 / max ms | cycle wall ms (median, max) | last plan |');
  console.log('|---|---|---:|---:|---:|---|');
  rows.forEach((x, i) =>
    console.log(
      `| ${Math.floor(i / 2) + 1} | ${x.mode === 'worker' ? 'solve in a worker, loop turns' : 'all on the event loop'} | ${f(x.healthz.p50)} / ${f(x.healthz.p99)} / ${f(x.healthz.max)} (${x.healthz.probes} probes) | ${f(x.loopHeldP99Ms)} / ${f(x.loopHeldMaxMs)} | ${f(med(x.cycleMs))}, ${f(Math.max(...x.cycleMs))} | ${(x.notes.at(-1) ?? '').slice(0, 90)} |`,
    ),
  );
  console.log(
    `\nrun: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${scale.running} jobs running (${scale.containers.toLocaleString('en-US')} containers) and ${paper ? '300 pending on 12,583 nodes' : '200 pending preferring sets, on 20 nodes of 100 cores'}, ${cycles} cycles per row after a warm-up, load average ${loads.join(' → ')}.`,
  );
}

if (process.argv[1]?.endsWith('threesigma-engine.ts')) await runThreeSigmaEngineBench(process.argv.slice(2));
