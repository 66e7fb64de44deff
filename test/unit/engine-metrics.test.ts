import { describe, expect, it } from 'vitest';
import { EngineMetrics } from '../../src/engine/metrics.js';

describe('metrics exposition', () => {
  it('exposes every engine metric with its name, type, help and labels in the Prometheus text format', async () => {
    const m = new EngineMetrics(() => 10_000);
    m.cycles.inc({ outcome: 'ok' });
    m.decisions.inc({ result: 'applied', policy: 'p"q' });
    m.decisions.inc({ policy: 'p"q', result: 'applied' }, 2);
    m.rmErrors.inc();
    m.cycleDuration.observe(0.005);
    m.cycleDuration.observe(0.3);
    m.cycleDuration.observe(40);
    m.cyclePhase.observe({ phase: 'refresh' }, 90);
    m.advisory.set(1);
    m.dryRun.set(0);
    m.consecutiveFailures.set(2);
    m.snapshotTaken(8_500);
    const buckets = [
      ['0.01', 1],
      ['0.05', 1],
      ['0.1', 1],
      ['0.25', 1],
      ['0.5', 2],
      ['1', 2],
      ['2.5', 2],
      ['5', 2],
      ['10', 2],
      ['30', 2],
      ['+Inf', 3],
    ].map(([le, n]) => `schedbrain_cycle_duration_seconds_bucket{le="${le}"} ${n}`);
    expect(await m.registry.metrics()).toBe(
      [
        '# HELP schedbrain_cycles_total Engine cycles by outcome (ok, rm_unavailable, policy_error, error).',
        '# TYPE schedbrain_cycles_total counter',
        'schedbrain_cycles_total{outcome="ok"} 1',
        '',
        '# HELP schedbrain_cycle_duration_seconds Duration of an engine cycle, snapshot to journal.',
        '# TYPE schedbrain_cycle_duration_seconds histogram',
        ...buckets,
        'schedbrain_cycle_duration_seconds_sum 40.305',
        'schedbrain_cycle_duration_seconds_count 3',
        '',
        '# HELP schedbrain_cycle_phase_seconds Duration of each phase of an engine cycle: refresh (capabilities and snapshot), decide (the policy), plan, apply (sending), journal.',
        '# TYPE schedbrain_cycle_phase_seconds histogram',
        // Buckets up to 120 s: a full read of a large cluster once took a minute.
        ...['0.001', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '60'].map(
          (le) => `schedbrain_cycle_phase_seconds_bucket{le="${le}",phase="refresh"} 0`,
        ),
        'schedbrain_cycle_phase_seconds_bucket{le="120",phase="refresh"} 1',
        'schedbrain_cycle_phase_seconds_bucket{le="+Inf",phase="refresh"} 1',
        'schedbrain_cycle_phase_seconds_sum{phase="refresh"} 90',
        'schedbrain_cycle_phase_seconds_count{phase="refresh"} 1',
        '',
        '# HELP schedbrain_decisions_total Decisions by result (applied, noop, dryRun, skipped, failed) and policy.',
        '# TYPE schedbrain_decisions_total counter',
        // Labels in name order whatever order they were given in; quotes escaped.
        'schedbrain_decisions_total{policy="p\\"q",result="applied"} 3',
        '',
        '# HELP schedbrain_rm_errors_total Times the ResourceManager could not be read or written.',
        '# TYPE schedbrain_rm_errors_total counter',
        'schedbrain_rm_errors_total 1',
        '',
        '# HELP schedbrain_drift_total Fields the brain wrote that were changed outside it, by kind.',
        '# TYPE schedbrain_drift_total counter',
        '',
        "# HELP schedbrain_solver_stops_total A policy's solves that did not give an answer: stopped or not started for lack of the cycle's time (deadline), or the solver worker failed (failed).",
        '# TYPE schedbrain_solver_stops_total counter',
        '',
        '# HELP schedbrain_advisory_mode 1 when the backend cannot write queues and the engine only advises.',
        '# TYPE schedbrain_advisory_mode gauge',
        'schedbrain_advisory_mode 1',
        '',
        '# HELP schedbrain_dry_run 1 when the engine discards every statement (dry-run).',
        '# TYPE schedbrain_dry_run gauge',
        'schedbrain_dry_run 0',
        '',
        '# HELP schedbrain_leader 1 while this brain may write (it leads, or runs without a leader election), 0 on a standby.',
        '# TYPE schedbrain_leader gauge',
        'schedbrain_leader 0',
        '',
        "# HELP schedbrain_leader_epoch Under a leader election: the leader's epoch as this brain knows it.",
        '# TYPE schedbrain_leader_epoch gauge',
        'schedbrain_leader_epoch 0',
        '',
        '# HELP schedbrain_leadership_changes_total Changes of the leadership this brain saw (journaled as engine.leadership), by its role after the change.',
        '# TYPE schedbrain_leadership_changes_total counter',
        '',
        '# HELP schedbrain_consecutive_rm_failures Cycles in a row that could not read the ResourceManager.',
        '# TYPE schedbrain_consecutive_rm_failures gauge',
        'schedbrain_consecutive_rm_failures 2',
        '',
        '# HELP schedbrain_last_successful_snapshot_age_seconds Seconds since the last successful cluster snapshot.',
        '# TYPE schedbrain_last_successful_snapshot_age_seconds gauge',
        'schedbrain_last_successful_snapshot_age_seconds 1.5',
        '',
      ].join('\n'),
    );
    expect(m.decisions.get({ result: 'applied', policy: 'p"q' })).toBe(3);
    expect(m.cycles.get({ outcome: 'rm_unavailable' })).toBe(0);
    // Engines have registries of their own: a second one registers the same names without a clash.
    expect(() => new EngineMetrics(() => 0)).not.toThrow();
  });

  it('adds the process metrics: CPU, memory, heap, GC and event-loop lag', async () => {
    const text = await new EngineMetrics(() => 0).render();
    expect(text.startsWith('# HELP schedbrain_cycles_total ')).toBe(true);
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_gc_duration_seconds',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(text).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    }
  });

  it('computes the snapshot age at scrape time', async () => {
    let now = 10_000;
    const m = new EngineMetrics(() => now);
    expect(await m.render()).not.toMatch(/schedbrain_last_successful_snapshot_age_seconds \d/);
    m.snapshotTaken(4_000);
    expect(await m.render()).toMatch(/schedbrain_last_successful_snapshot_age_seconds 6\n/);
    now = 14_500;
    expect(await m.render()).toMatch(/schedbrain_last_successful_snapshot_age_seconds 10.5\n/);
  });
});
