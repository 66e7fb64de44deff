/**
 * The policy contract. A policy is a pure function of (snapshot, parameters, its own state):
 * it returns decisions and its next state, and touches nothing else. The engine (live) and the
 * simulator call it the same way.
 *
 * Policies import only from `src/core`. State must be JSON-serialisable: the engine persists it
 * in the embedded store so histories and admissions survive a restart.
 */
import type { z } from 'zod';
import type { Decision } from './actions.js';
import type { ClusterSnapshot } from './model.js';

export interface PolicyInput<P, S> {
  readonly snapshot: ClusterSnapshot;
  readonly params: P;
  readonly state: S;
}

export interface PolicyOutput<S> {
  readonly decisions: Decision[];
  readonly state: S;
  /**
   * The earliest virtual/real time at which the policy wants to be asked again even if nothing
   * changes (e.g. a quantum expiring). The simulator schedules a cycle then; the live engine
   * runs on its period and treats it as a hint.
   */
  readonly wakeAtMs?: number;
  /** Free-form notes explaining the cycle as a whole (shown by dry-run and the journal). */
  readonly notes?: string[];
}

export interface Policy<P = unknown, S = unknown> {
  /** Registry name, e.g. `kairos`. */
  readonly name: string;
  readonly description: string;
  /** Validates operator-supplied parameters and fills defaults. */
  readonly paramsSchema: z.ZodType<P, z.ZodTypeDef, unknown>;
  initialState(params: P): S;
  decide(input: PolicyInput<P, S>): PolicyOutput<S>;
}

/** Helper so policy modules get full type inference without repeating generics. */
export function definePolicy<P, S>(p: Policy<P, S>): Policy<P, S> {
  return p;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPolicy = Policy<any, any>;
