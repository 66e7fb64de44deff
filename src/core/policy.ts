/**
 * The policy contract. A policy is a function of (snapshot, parameters, its own state) only: it
 * returns decisions and its next state, and touches nothing else. The engine (live) and the
 * simulator call it the same way. By default it does not modify the state it is given; a policy
 * that declares `updatesStateInPlace` may (see there).
 *
 * Policies import only from `src/core` and `src/policies/shared` (`npm run lint` checks it). State
 * must be JSON-serialisable: the engine persists it in the embedded store so histories and
 * admissions survive a restart.
 */
import type { z } from 'zod';
import type { Decision } from './actions.js';
import type { SolveSteps } from './milp.js';
import type { ClusterSnapshot, SnapshotPart } from './model.js';
import type { ChangeTracking } from './tracking.js';

export interface PolicyInput<P, S> {
  readonly snapshot: ClusterSnapshot;
  readonly params: P;
  readonly state: S;
  /**
   * The runtime's change tracking (`tracking.ts`): ordered structures kept between cycles for the
   * policy (due wake-ups, running totals), never persisted. The engine and the simulator always
   * give it; a policy that needs it and is called without one throws.
   */
  readonly tracking?: ChangeTracking;
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
  /**
   * The same cycle as `decide`, written as steps: each solve of a mathematical programme it needs
   * (`milp.ts`, with `solves`), and turns where a long cycle may let the event loop run
   * (`loopTurn`). The live engine runs the solves in a worker it can stop at their deadline and
   * takes the turns, so a long cycle does not hold the event loop; `decide` runs the solves on the
   * caller's thread and takes no turn (the simulator, tests). The engine runs one cycle of a
   * policy at a time, so a cycle's state and change tracking are its own across its turns.
   */
  readonly decideInSteps?: (input: PolicyInput<P, S>) => SolveSteps<PolicyOutput<S>>;
  /** Its steps (`decideInSteps`) solve mathematical programmes: the engine starts its solver worker ahead. */
  readonly solves?: boolean;
  /**
   * decide() may update the state it is given and return it, instead of building a new one.
   * Whoever may still need the previous state passes a copy (`copyStateFor`): the engine does
   * for every cycle (a dry-run or a discarded statement leaves its state as it was); the
   * simulator, which always moves on to the returned state, does not. For policies whose state
   * is large and changes at every cycle (Kairos keeps a task table for every node, updated
   * millions of times in a trace replay, where rebuilding it would cost more than the decisions).
   */
  readonly updatesStateInPlace?: boolean;
  /**
   * Fields of the state that are dictionaries of entries the policy changes only through
   * `tracking.changing` (with `updatesStateInPlace`). The engine then copies the dictionaries, not
   * the entries, for a cycle (`ChangeTracker.beginCycle`), and saves only the entries a cycle
   * changed: a state with an entry per node costs what a cycle touched, not the cluster's size.
   */
  readonly stateEntries?: readonly string[];
  /**
   * What the backend must be able to do for the policy's decisions to take effect. A writing brain
   * whose backend lacks one refuses to start it (unless the operator lets it run advisory).
   */
  readonly needs?: readonly PolicyNeed[];
  /**
   * What the policy reads of a snapshot besides the queue tree and the total capacity
   * (core/model.ts `SnapshotPart`); undefined: everything. A live backend reads only these, so a
   * queue-level policy costs the RM neither its node list nor a container read.
   */
  readonly reads?: readonly SnapshotPart[];
}

/** Backend capabilities (core/backend.ts `Capabilities`) a policy may need. */
export type PolicyNeed = 'queueWrites' | 'containerSuspend' | 'nodeRanking';

/** Helper so policy modules get full type inference without repeating generics. */
export function definePolicy<P, S>(p: Policy<P, S>): Policy<P, S> {
  return p;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPolicy = Policy<any, any>;

/** The state to hand to `policy.decide` when the caller keeps `state` afterwards. */
export function copyStateFor<S>(policy: Policy<unknown, S> | AnyPolicy, state: S): S {
  return policy.updatesStateInPlace ? structuredClone(state) : state;
}
