import { describe, expect, it } from 'vitest';
import { EngineMetrics, MetricsRegistry } from '../../src/engine/metrics.js';

describe('metrics exposition', () => {
  it('renders counters, gauges and histograms in the Prometheus text format', () => {
    const r = new MetricsRegistry();
    const c = r.counter('x_total', 'A counter.');
    c.inc({ result: 'applied', policy: 'p"q' });
    c.inc({ policy: 'p"q', result: 'applied' }, 2);
    const g = r.gauge('g', 'A gauge\nwith newline.');
    g.set(1.5);
    const h = r.histogram('h_seconds', 'A histogram.', [0.1, 1]);
    h.observe(0.05);
    h.observe(0.5);
    h.observe(5);
    expect(r.render()).toBe(
      [
        '# HELP x_total A counter.',
        '# TYPE x_total counter',
        'x_total{policy="p\\"q",result="applied"} 3',
        '# HELP g A gauge\\nwith newline.',
        '# TYPE g gauge',
        'g 1.5',
        '# HELP h_seconds A histogram.',
        '# TYPE h_seconds histogram',
        'h_seconds_bucket{le="0.1"} 1',
        'h_seconds_bucket{le="1"} 2',
        'h_seconds_bucket{le="+Inf"} 3',
        'h_seconds_sum 5.55',
        'h_seconds_count 3',
        '',
      ].join('\n'),
    );
    expect(() => r.counter('x_total', 'again')).toThrow(/registered twice/);
  });

  it('computes the snapshot age at scrape time', () => {
    let now = 10_000;
    const m = new EngineMetrics(() => now);
    expect(m.render()).not.toMatch(/schedbrain_last_successful_snapshot_age_seconds \d/);
    m.snapshotTaken(4_000);
    expect(m.render()).toMatch(/schedbrain_last_successful_snapshot_age_seconds 6\n/);
    now = 14_500;
    expect(m.render()).toMatch(/schedbrain_last_successful_snapshot_age_seconds 10.5\n/);
  });
});
