/**
 * An in-memory ClusterBackend for tests and demos: a queue tree whose capacities `updateQueues`
 * changes, a few nodes and apps, switchable RM outages and capabilities, and a record of every
 * action applied. Not a simulator: time does not move here.
 */
import type { Action } from '../core/actions.js';
import type { ApplyOutcome, Capabilities, ClusterBackend, SnapshotOptions } from '../core/backend.js';
import { RmRejectedError, RmUnavailableError } from '../core/errors.js';
import type { AppView, ClusterSnapshot, ContainerView, NodeView, QueueView } from '../core/model.js';
import { res, ZERO } from '../core/resources.js';
import { buildSnapshot } from '../core/snapshot.js';

export interface FakeQueue {
  capacityPct: number;
  maxCapacityPct: number;
}

export interface InMemoryBackendOptions {
  /** Queue capacities by path; parents are implied. Default: root.a 50 / root.b 50. */
  queues?: Record<string, FakeQueue>;
  nodes?: number;
  now?: () => number;
  capabilities?: Partial<Capabilities>;
}

const PCT_EPS = 0.01;

export class InMemoryBackend implements ClusterBackend {
  readonly name = 'in-memory';
  queues: Map<string, FakeQueue>;
  nodes: NodeView[];
  apps: AppView[] = [];
  containers: ContainerView[] = [];
  /** Every action the backend carried out, in order. */
  readonly applied: Action[] = [];
  /** Calls to snapshot(), successful or not, and the options of the last (it always gives every part). */
  snapshotCalls = 0;
  lastSnapshotOptions: SnapshotOptions | undefined;
  /** When set, snapshot/apply/capabilities throw RmUnavailableError with this message. */
  down: string | undefined;
  caps: Capabilities;
  /** When set, apply() waits for this promise before acting (to hold a cycle open). */
  applyGate: Promise<void> | undefined;
  /** Actions of these kinds fail with the given message. */
  failKinds = new Map<Action['kind'], string>();
  private readonly now: () => number;

  constructor(opts: InMemoryBackendOptions = {}) {
    this.queues = new Map(
      Object.entries(opts.queues ?? { 'root.a': { capacityPct: 50, maxCapacityPct: 100 }, 'root.b': { capacityPct: 50, maxCapacityPct: 100 } }),
    );
    this.nodes = Array.from({ length: opts.nodes ?? 2 }, (_, i) => ({
      id: `node${i + 1}:8041`,
      state: 'RUNNING' as const,
      rack: '/default-rack',
      capacity: res(8192, 8),
      physicalCapacity: res(8192, 8),
      used: ZERO,
      containerIds: [],
    }));
    this.now = opts.now ?? Date.now;
    this.caps = { queueWrites: true, containerSuspend: false, nodeRanking: false, notes: [], ...opts.capabilities };
  }

  private check(): void {
    if (this.down !== undefined) throw new RmUnavailableError(`ResourceManager unreachable: ${this.down}`);
  }

  async capabilities(): Promise<Capabilities> {
    this.check();
    return this.caps;
  }

  private queueTree(): QueueView {
    const paths = new Set<string>(['root']);
    for (const p of this.queues.keys()) {
      const parts = p.split('.');
      for (let i = 1; i <= parts.length; i++) paths.add(parts.slice(0, i).join('.'));
    }
    const build = (path: string, parentAbs: number, parentAbsMax: number): QueueView => {
      const q = path === 'root' ? { capacityPct: 100, maxCapacityPct: 100 } : (this.queues.get(path) ?? { capacityPct: 0, maxCapacityPct: 100 });
      const abs = (parentAbs * q.capacityPct) / 100;
      const absMax = (parentAbsMax * q.maxCapacityPct) / 100;
      const children = [...paths].filter((p) => p.startsWith(`${path}.`) && !p.slice(path.length + 1).includes('.')).sort();
      return {
        path,
        name: path.split('.').pop() as string,
        state: 'RUNNING',
        capacityPct: q.capacityPct,
        maxCapacityPct: q.maxCapacityPct,
        absoluteCapacityPct: abs,
        absoluteMaxCapacityPct: absMax,
        usedCapacityPct: 0,
        used: ZERO,
        numApplications: this.apps.filter((a) => a.queue === path).length,
        children: children.map((c) => build(c, abs, absMax)),
      };
    };
    return build('root', 100, 100);
  }

  async snapshot(opts: SnapshotOptions = {}): Promise<ClusterSnapshot> {
    this.snapshotCalls++;
    this.lastSnapshotOptions = opts;
    this.check();
    return buildSnapshot({ nowMs: this.now(), nodes: this.nodes, apps: this.apps, containers: this.containers, rootQueue: this.queueTree() });
  }

  async apply(action: Action): Promise<ApplyOutcome> {
    if (this.applyGate) await this.applyGate;
    this.check();
    const fail = this.failKinds.get(action.kind);
    if (fail) return { status: 'failed', error: fail, retryable: false };
    if (action.kind === 'updateQueues') {
      if (!this.caps.queueWrites) throw new RmRejectedError('scheduler configuration is read-only', 405);
      const next = new Map([...this.queues].map(([k, v]) => [k, { ...v }]));
      for (const a of action.add) next.set(a.path, { capacityPct: a.capacityPct, maxCapacityPct: a.maxCapacityPct });
      for (const u of action.update) {
        const q = next.get(u.path);
        if (!q) return { status: 'failed', error: `no such queue ${u.path}`, retryable: false };
        if (u.capacityPct !== undefined) q.capacityPct = u.capacityPct;
        if (u.maxCapacityPct !== undefined) q.maxCapacityPct = u.maxCapacityPct;
      }
      // CapacityScheduler's rule: siblings sum to 100.
      const sums = new Map<string, number>();
      for (const [p, q] of next) {
        const parent = p.slice(0, p.lastIndexOf('.'));
        sums.set(parent, (sums.get(parent) ?? 0) + q.capacityPct);
      }
      for (const [parent, s] of sums)
        if (Math.abs(s - 100) > PCT_EPS) return { status: 'failed', error: `children of ${parent} sum to ${s}`, retryable: false };
      this.queues = next;
    }
    this.applied.push(action);
    return { status: 'applied' };
  }
}
