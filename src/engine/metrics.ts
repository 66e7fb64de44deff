/**
 * The engine's Prometheus metrics, through prom-client: a registry per engine (tests make engines
 * freely, with no "already registered" clash) and the process's default metrics (CPU, memory,
 * heap, GC, event-loop lag), one set per process. See docs/decisions.md.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

type Labels = Record<string, string>;

export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

let processRegistry: Registry | undefined;

/**
 * The process's default metrics. Collection starts at the first call (GC and event-loop lag are
 * observed from then on): `schedbrain serve` calls it at startup, a scrape otherwise.
 */
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Labels in name order: a series prints the same whatever order the caller wrote them in. */
function byName(labels: Labels): Labels {
  const out: Labels = {};
  for (const k of Object.keys(labels).sort()) out[k] = labels[k];
  return out;
}

/** A prom-client counter whose value can also be read at once (prom-client's `get` is async). */
export class EngineCounter {
  private readonly counter: Counter;
  private readonly values = new Map<string, number>();

  constructor(registry: Registry, name: string, help: string, labelNames: readonly string[] = []) {
    this.counter = new Counter({ name, help, labelNames, registers: [registry] });
  }

  inc(labels: Labels = {}, by = 1): void {
    const l = byName(labels);
    this.counter.inc(l, by);
    const k = JSON.stringify(l);
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }

  get(labels: Labels = {}): number {
    return this.values.get(JSON.stringify(byName(labels))) ?? 0;
  }
}

/** The engine's metrics. */
export class EngineMetrics {
  readonly registry = new Registry();
  readonly cycles = new EngineCounter(this.registry, 'schedbrain_cycles_total', 'Engine cycles by outcome (ok, rm_unavailable, policy_error, error).', [
    'outcome',
  ]);
  readonly cycleDuration = new Histogram({
    name: 'schedbrain_cycle_duration_seconds',
    help: 'Duration of an engine cycle, snapshot to journal.',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  /** Where a cycle's time goes; up to 120 s, what a full read of a 10,000-node cluster once took. */
  readonly cyclePhase = new Histogram({
    name: 'schedbrain_cycle_phase_seconds',
    help: 'Duration of each phase of an engine cycle: refresh (capabilities and snapshot), decide (the policy), plan, apply (sending), journal.',
    labelNames: ['phase'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  readonly decisions = new EngineCounter(
    this.registry,
    'schedbrain_decisions_total',
    'Decisions by result (applied, noop, dryRun, skipped, failed) and policy.',
    ['policy', 'result'],
  );
  readonly rmErrors = new EngineCounter(this.registry, 'schedbrain_rm_errors_total', 'Times the ResourceManager could not be read or written.');
  readonly drift = new EngineCounter(this.registry, 'schedbrain_drift_total', 'Fields the brain wrote that were changed outside it, by kind.', ['kind']);
  readonly solverStops = new EngineCounter(
    this.registry,
    'schedbrain_solver_stops_total',
    "A policy's solves that did not give an answer: stopped or not started for lack of the cycle's time (deadline), or the solver worker failed (failed).",
    ['why'],
  );
  private lastSnapshotAtMs: number | undefined;
  readonly snapshotAge: Gauge;
  readonly advisory = new Gauge({
    name: 'schedbrain_advisory_mode',
    help: '1 when the backend cannot write queues and the engine only advises.',
    registers: [this.registry],
  });
  readonly dryRun = new Gauge({ name: 'schedbrain_dry_run', help: '1 when the engine discards every statement (dry-run).', registers: [this.registry] });
  readonly leader = new Gauge({
    name: 'schedbrain_leader',
    help: '1 while this brain may write (it leads, or runs without a leader election), 0 on a standby.',
    registers: [this.registry],
  });
  readonly leaderEpoch = new Gauge({
    name: 'schedbrain_leader_epoch',
    help: "Under a leader election: the leader's epoch as this brain knows it.",
    registers: [this.registry],
  });
  readonly leadershipChanges = new EngineCounter(
    this.registry,
    'schedbrain_leadership_changes_total',
    'Changes of the leadership this brain saw (journaled as engine.leadership), by its role after the change.',
    ['role'],
  );
  readonly consecutiveFailures = new Gauge({
    name: 'schedbrain_consecutive_rm_failures',
    help: 'Cycles in a row that could not read the ResourceManager.',
    registers: [this.registry],
  });

  constructor(now: () => number) {
    const self = this;
    this.snapshotAge = new Gauge({
      name: 'schedbrain_last_successful_snapshot_age_seconds',
      help: 'Seconds since the last successful cluster snapshot.',
      registers: [this.registry],
      // Computed at scrape time; no sample at all before the first snapshot.
      collect() {
        if (self.lastSnapshotAtMs === undefined) this.remove();
        else this.set(Math.max(0, (now() - self.lastSnapshotAtMs) / 1000));
      },
    });
  }

  snapshotTaken(atMs: number): void {
    this.lastSnapshotAtMs = atMs;
  }

  /** The engine's metrics, then the process's, in the Prometheus text format. */
  async render(): Promise<string> {
    return `${await this.registry.metrics()}\n${await processMetrics().metrics()}`;
  }
}
