/**
 * In-process metrics with a Prometheus text exposition (format 0.0.4). Small on purpose: the
 * engine needs counters, gauges and one histogram, with labels; see docs/decisions.md.
 */
type Labels = Record<string, string>;

function labelKey(l: Labels): string {
  return Object.keys(l)
    .sort()
    .map((k) => `${k}=${l[k]}`)
    .join(',');
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function fmtLabels(l: Labels, extra?: [string, string]): string {
  const parts = Object.keys(l)
    .sort()
    .map((k) => `${k}="${escapeLabel(l[k])}"`);
  if (extra) parts.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function fmtNum(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}

interface Metric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  render(): string[];
}

export class Counter implements Metric {
  readonly type = 'counter' as const;
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const k = labelKey(labels);
    const v = this.values.get(k);
    if (v) v.value += by;
    else this.values.set(k, { labels, value: by });
  }

  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels))?.value ?? 0;
  }

  render(): string[] {
    if (this.values.size === 0) return [`${this.name} 0`];
    return [...this.values.values()].map((v) => `${this.name}${fmtLabels(v.labels)} ${fmtNum(v.value)}`);
  }
}

export class Gauge implements Metric {
  readonly type = 'gauge' as const;
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    /** Computed at scrape time when given (e.g. ages). */
    private readonly collect?: () => number | undefined,
  ) {}

  set(value: number, labels: Labels = {}): void {
    this.values.set(labelKey(labels), { labels, value });
  }

  get(labels: Labels = {}): number | undefined {
    if (this.collect) return this.collect();
    return this.values.get(labelKey(labels))?.value;
  }

  render(): string[] {
    if (this.collect) {
      const v = this.collect();
      return v === undefined ? [] : [`${this.name} ${fmtNum(v)}`];
    }
    return [...this.values.values()].map((v) => `${this.name}${fmtLabels(v.labels)} ${fmtNum(v.value)}`);
  }
}

export class Histogram implements Metric {
  readonly type = 'histogram' as const;
  private readonly counts: number[];
  private count = 0;
  private total = 0;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {
    this.counts = buckets.map(() => 0);
  }

  observe(v: number): void {
    this.count++;
    this.total += v;
    this.buckets.forEach((b, i) => {
      if (v <= b) this.counts[i]++;
    });
  }

  get observations(): number {
    return this.count;
  }

  render(): string[] {
    const lines = this.buckets.map((b, i) => `${this.name}_bucket${fmtLabels({}, ['le', fmtNum(b)])} ${this.counts[i]}`);
    lines.push(`${this.name}_bucket{le="+Inf"} ${this.count}`);
    lines.push(`${this.name}_sum ${fmtNum(this.total)}`);
    lines.push(`${this.name}_count ${this.count}`);
    return lines;
  }
}

export class MetricsRegistry {
  private readonly metrics: Metric[] = [];

  counter(name: string, help: string): Counter {
    return this.add(new Counter(name, help));
  }

  gauge(name: string, help: string, collect?: () => number | undefined): Gauge {
    return this.add(new Gauge(name, help, collect));
  }

  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    return this.add(new Histogram(name, help, buckets));
  }

  private add<M extends Metric>(m: M): M {
    if (this.metrics.some((x) => x.name === m.name)) throw new Error(`metric ${m.name} registered twice`);
    this.metrics.push(m);
    return m;
  }

  /** Prometheus text exposition format. */
  render(): string {
    const out: string[] = [];
    for (const m of this.metrics) {
      out.push(`# HELP ${m.name} ${m.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
      out.push(`# TYPE ${m.name} ${m.type}`);
      out.push(...m.render());
    }
    return `${out.join('\n')}\n`;
  }
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The engine's metrics. */
export class EngineMetrics {
  readonly registry = new MetricsRegistry();
  readonly cycles = this.registry.counter('schedbrain_cycles_total', 'Engine cycles by outcome (ok, rm_unavailable, policy_error, error).');
  readonly cycleDuration = this.registry.histogram('schedbrain_cycle_duration_seconds', 'Duration of an engine cycle, snapshot to journal.', [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);
  readonly decisions = this.registry.counter('schedbrain_decisions_total', 'Decisions by result (applied, noop, dryRun, skipped, failed) and policy.');
  readonly rmErrors = this.registry.counter('schedbrain_rm_errors_total', 'Times the ResourceManager could not be read or written.');
  private lastSnapshotAtMs: number | undefined;
  readonly snapshotAge: Gauge;
  readonly advisory = this.registry.gauge('schedbrain_advisory_mode', '1 when the backend cannot write queues and the engine only advises.');
  readonly dryRun = this.registry.gauge('schedbrain_dry_run', '1 when the engine discards every statement (dry-run).');
  readonly consecutiveFailures = this.registry.gauge('schedbrain_consecutive_rm_failures', 'Cycles in a row that could not read the ResourceManager.');

  constructor(now: () => number) {
    this.snapshotAge = this.registry.gauge('schedbrain_last_successful_snapshot_age_seconds', 'Seconds since the last successful cluster snapshot.', () =>
      this.lastSnapshotAtMs === undefined ? undefined : Math.max(0, (now() - this.lastSnapshotAtMs) / 1000),
    );
  }

  snapshotTaken(atMs: number): void {
    this.lastSnapshotAtMs = atMs;
  }

  render(): string {
    return this.registry.render();
  }
}
