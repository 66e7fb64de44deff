/**
 * A committing Kairos at cluster scale: the real Engine and store, a backend in the process that
 * serves a cluster of `--nodes` nodes with `--per-node` containers each (looked up in the
 * snapshot's map, as the YARN backend's are) and takes the policy's actions. Each cycle 1 % of the
 * nodes change (a container ends, another starts). Reports, over the steady cycles: the cycle's
 * wall time, the policy state saved (bytes and time), and how long the event
 * loop was held (`monitorEventLoopDelay`: what a `/healthz` probe would have waited).
 *
 *   npm run bench -- --engine-state [--nodes 10000] [--per-node 20] [--cycles 8]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pino from 'pino';
import type { Action } from '../src/core/actions.js';
import type { ApplyOutcome, Capabilities, ClusterBackend, SnapshotOptions } from '../src/core/backend.js';
import type { ClusterSnapshot, ContainerView, NodeView } from '../src/core/model.js';
import { res, type Resources } from '../src/core/resources.js';
import { defaultQueueTree } from '../src/core/snapshot.js';
import { Engine } from '../src/engine/engine.js';
import { kairosPolicy } from '../src/policies/kairos/index.js';
import { Store } from '../src/store/store.js';
import { OverlayMap } from '../src/yarn/overlay-map.js';

class ScaledBackend implements ClusterBackend {
  readonly name = 'scaled';
  /** Maps of the last snapshot, never changed once served: the next is an overlay of the changes (as the YARN backend's are). */
  private containers: ReadonlyMap<string, ContainerView> = new Map();
  private nodes: ReadonlyMap<string, NodeView> = new Map();
  private containerChanges: { deletes: string[]; sets: [string, ContainerView][] } = { deletes: [], sets: [] };
  private nodeChanges: [string, NodeView][] = [];
  private nowMs = 1_700_000_000_000;
  private mark = 0;
  private readonly changedAt = new Map<string, number>();
  private seq = 0;
  actions = 0;

  constructor(
    readonly nodeCount: number,
    readonly perNode: number,
  ) {
    const nodes = new Map<string, NodeView>();
    const containers = new Map<string, ContainerView>();
    for (let i = 0; i < nodeCount; i++) {
      const id = `node-${String(i).padStart(5, '0')}.example:8041`;
      const ids: string[] = [];
      for (let k = 0; k < perNode; k++) {
        const c = this.newContainer(id, k * 1000);
        containers.set(c.id, c);
        ids.push(c.id);
      }
      nodes.set(id, {
        id,
        state: 'RUNNING',
        rack: '/r',
        capacity: res(65536, 32),
        physicalCapacity: res(65536, 32),
        used: res(perNode * 1024, perNode),
        containerIds: ids,
      });
    }
    this.nodes = nodes;
    this.containers = containers;
    this.containerChanges = { deletes: [], sets: [] };
  }

  private newContainer(nodeId: string, attainedServiceMs: number): ContainerView {
    const n = this.seq++;
    const c: ContainerView = {
      id: `container_e01_1700000000000_${String(n % 10_000).padStart(4, '0')}_01_${String(n).padStart(6, '0')}`,
      appId: `application_1700000000000_${String(n % 10_000).padStart(4, '0')}`,
      nodeId,
      resource: res(1024, 1),
      state: 'RUNNING',
      startedAtMs: this.nowMs,
      attainedServiceMs,
      runningSinceMs: this.nowMs,
    };
    this.containerChanges.sets.push([c.id, c]);
    return c;
  }

  /** 1 % of the nodes: one container ends, another starts; time moves on. */
  step(fraction: number, ms: number): void {
    this.nowMs += ms;
    this.mark++;
    const ids = [...this.nodes.keys()];
    const count = Math.max(1, Math.round(ids.length * fraction));
    for (let i = 0; i < count; i++) {
      const id = ids[(this.mark * 7919 + i * 104_729) % ids.length];
      const node = this.nodes.get(id)!;
      const [gone, ...rest] = node.containerIds;
      this.containerChanges.deletes.push(gone);
      this.nodeChanges.push([id, { ...node, containerIds: [...rest, this.newContainer(id, 0).id] }]);
      this.changedAt.set(id, this.mark);
    }
  }

  async snapshot(opts: SnapshotOptions = {}): Promise<ClusterSnapshot> {
    this.containers = OverlayMap.update(this.containers, this.containerChanges.deletes, this.containerChanges.sets);
    this.containerChanges = { deletes: [], sets: [] };
    if (this.nodeChanges.length > 0) this.nodes = new Map([...this.nodes, ...this.nodeChanges]);
    this.nodeChanges = [];
    const since = opts.changesSince;
    const changed = since === undefined ? undefined : new Set([...this.changedAt].filter(([, m]) => m > since).map(([id]) => id));
    let total: Resources = res(0, 0);
    for (const n of this.nodes.values()) total = res(total.memoryMB + n.capacity.memoryMB, total.vcores + n.capacity.vcores);
    return {
      nowMs: this.nowMs,
      totalCapacity: total,
      nodes: this.nodes,
      apps: new Map(),
      containers: this.containers,
      rootQueue: defaultQueueTree(),
      changeMark: this.mark,
      ...(changed ? { changedNodeIds: changed } : {}),
    };
  }

  async apply(a: Action): Promise<ApplyOutcome> {
    this.actions++;
    if (a.kind === 'setNodeResource') {
      const n = this.nodes.get(a.nodeId);
      if (n) this.nodeChanges.push([a.nodeId, { ...n, capacity: a.resource }]);
    } else if (a.kind === 'suspendContainer' || a.kind === 'resumeContainer') {
      const c = this.containers.get(a.containerId);
      if (c) this.containerChanges.sets.push([c.id, { ...c, state: a.kind === 'suspendContainer' ? 'SUSPENDED' : 'RUNNING' }]);
    }
    return { status: 'applied' };
  }

  async capabilities(): Promise<Capabilities> {
    return { queueWrites: true, containerSuspend: true, nodeRanking: true, notes: [] };
  }
}

export async function runEngineStateBench(argv: string[]): Promise<void> {
  const { values: args } = parseArgs({
    args: argv,
    options: {
      nodes: { type: 'string', default: '10000' },
      'per-node': { type: 'string', default: '20' },
      cycles: { type: 'string', default: '8' },
    },
  });
  const backend = new ScaledBackend(Number(args.nodes), Number(args['per-node']));
  const dir = mkdtempSync(join(os.tmpdir(), 'sb-engine-state-'));
  const store = await Store.open(dir);
  const saves: { ms: number; bytes: number }[] = [];
  const put = store.putPolicyState.bind(store);
  store.putPolicyState = async (policy, rec, save) => {
    const t = performance.now();
    await put(policy, rec, save);
    saves.push({ ms: performance.now() - t, bytes: stateBytes(rec.state, save?.entryFields, save?.changed) });
  };
  const engine = new Engine({
    backend,
    store,
    periodMs: 5_000,
    logger: pino({ level: 'silent' }),
    policies: { get: (n) => (n === kairosPolicy.name ? kairosPolicy : undefined), names: () => [kairosPolicy.name] },
    initial: { policy: kairosPolicy.name, params: {} },
    limits: { maxActionsPerCycle: 100_000 },
  });
  await engine.init();
  // Two cycles to cap every node and settle; the rest are measured.
  for (let i = 0; i < 2; i++) {
    backend.step(0.01, 5_000);
    await engine.runCycle();
  }
  const warmPhases = new Map<string, number>();
  for (const v of (await engine.metrics.cyclePhase.get()).values) if (v.metricName?.endsWith('_sum')) warmPhases.set(String(v.labels.phase), v.value * 1000);
  const rows: { wallMs: number; decisions: number }[] = [];
  const delay = monitorEventLoopDelay({ resolution: 1 });
  saves.length = 0;
  delay.enable();
  for (let i = 0; i < Number(args.cycles); i++) {
    backend.step(0.01, 5_000);
    const t = performance.now();
    const r = await engine.runCycle();
    if (r.outcome !== 'ok') throw new Error(`cycle ${i}: ${r.outcome}: ${r.error}`);
    rows.push({ wallMs: performance.now() - t, decisions: r.decisions.length });
    await new Promise((res) => setTimeout(res, 20));
  }
  delay.disable();
  // Time per phase over the measured cycles (the engine's own histogram, less the warm-up's).
  const phases = new Map<string, number>();
  for (const v of (await engine.metrics.cyclePhase.get()).values)
    if (v.metricName?.endsWith('_sum')) phases.set(String(v.labels.phase), v.value * 1000 - (warmPhases.get(String(v.labels.phase)) ?? 0));
  await engine.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const f = (x: number, d = 1) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  const load = os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ');
  console.log(
    [
      `| nodes / containers | decisions per cycle (median) | cycle wall ms (median) | state saved per cycle, KB (median) | save ms (median) | event loop held, p99 / max ms | load average (1/5/15 min) |`,
      `|---|---:|---:|---:|---:|---:|---|`,
      `| ${backend.nodeCount.toLocaleString('en-US')} / ${(backend.nodeCount * backend.perNode).toLocaleString('en-US')} | ${med(rows.map((r) => r.decisions))} | ${f(med(rows.map((r) => r.wallMs)))} | ${f(med(saves.map((s) => s.bytes / 1e3)))} | ${f(med(saves.map((s) => s.ms)))} | ${f(delay.percentile(99) / 1e6)} / ${f(delay.max / 1e6)} | ${load} |`,
      '',
      `Per cycle, mean ms: ${[...phases].map(([p, ms]) => `${p} ${f(ms / rows.length)}`).join(', ')}`,
    ].join('\n'),
  );
}

/** Bytes of what a save writes: the changed entries when saved entry by entry, else the whole state. */
function stateBytes(state: unknown, fields?: readonly string[], changed?: ReadonlyMap<string, ReadonlySet<string>>): number {
  if (!fields || !changed) return JSON.stringify(state).length;
  let n = 0;
  for (const [f, keys] of changed) for (const k of keys) n += JSON.stringify((state as Record<string, Record<string, unknown>>)[f]?.[k] ?? null).length;
  return n;
}
