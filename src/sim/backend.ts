/**
 * The simulator as a ClusterBackend (async wrapper), so the backend conformance suite and any
 * engine code written against `ClusterBackend` run on it unchanged. Actions apply at the current
 * virtual time; `advance` moves the virtual clock.
 */
import type { Action } from '../core/actions.js';
import type { ApplyOutcome, Capabilities, ClusterBackend } from '../core/backend.js';
import type { ClusterSnapshot } from '../core/model.js';
import { SIM_CAPABILITIES, Simulator, type SimOptions } from './engine.js';

export class SimBackend implements ClusterBackend {
  readonly name = 'sim';
  readonly sim: Simulator;

  constructor(simOrOptions: Simulator | SimOptions) {
    this.sim = simOrOptions instanceof Simulator ? simOrOptions : new Simulator(simOrOptions);
  }

  async snapshot(): Promise<ClusterSnapshot> {
    return this.sim.snapshot();
  }

  async apply(action: Action): Promise<ApplyOutcome> {
    try {
      return this.sim.apply(action);
    } catch (e) {
      return { status: 'failed', error: e instanceof Error ? e.message : String(e), retryable: false };
    }
  }

  async capabilities(): Promise<Capabilities> {
    return SIM_CAPABILITIES;
  }

  /** Processes events for `ms` of virtual time. */
  advance(ms: number): void {
    this.sim.runUntil(this.sim.nowMs + ms);
  }
}
