/**
 * The control loop: poll → snapshot → session (policy.decide) → statement → commit/discard →
 * journal, every `periodMs`, never overlapping. See docs/architecture.md.
 */
import pino, { type Logger } from 'pino';
import { describeAction } from '../core/actions.js';
import type { Capabilities, ClusterBackend, ReservationSystem } from '../core/backend.js';
import { ConflictError, RmUnavailableError, SchedbrainError, ValidationError, zodToValidationError } from '../core/errors.js';
import { covers, unionParts, type ClusterSnapshot, type SnapshotPart } from '../core/model.js';
import type { AnyPolicy, PolicyNeed } from '../core/policy.js';
import { getPolicy, policyNames } from '../policies/index.js';
import { DEFAULT_JOURNAL_MAX_BYTES, foldRepeatedSkips, type JournalEntry, type NewJournalEntry } from '../store/journal.js';
import type { PlanInFlight, PublishedRanking, Store } from '../store/store.js';
import { RealClock, type Clock, type TimerHandle } from './clock.js';
import { EngineMetrics } from './metrics.js';
import { ChangeTracker } from './change-tracking.js';
import { WorkerMilpSolver } from './milp-solver.js';
import { DriftTracker, type DriftOptions } from './drift.js';
import { accountForPlanInFlight } from './plan-in-flight.js';
import type { LeaderElection, Leadership } from './leadership.js';
import { advisoryReason, DEFAULT_LIMITS, disruptionOf, PolicyError, Session, type SafetyLimits, type Statement } from './session.js';

export interface BackoffOptions {
  /** First retry delay after the RM failed, ms. */
  readonly initialMs: number;
  /** Cap of the exponential backoff, ms. */
  readonly maxMs: number;
}

export interface PolicyLookup {
  get(name: string): AnyPolicy | undefined;
  names(): string[];
}

export const REGISTRY: PolicyLookup = { get: getPolicy, names: policyNames };

export interface EngineOptions {
  readonly backend: ClusterBackend;
  /**
   * A writing policy whose needs (`Policy.needs`) the backend lacks is refused (409 on a switch;
   * `serve` does not start it) instead of running advisory. Off: it runs, its decisions journaled
   * as unsupported.
   */
  readonly requireCapabilities?: boolean;
  readonly store: Store;
  readonly periodMs: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly limits?: Partial<SafetyLimits>;
  readonly backoff?: Partial<BackoffOptions>;
  /**
   * A cycle's reads (capabilities and snapshot) must finish within this, or the RM counts as
   * unavailable for the cycle (a hung RM then shows as down). Default: two periods, at least 5 s.
   */
  readonly readDeadlineMs?: number;
  /** /healthz reports stale once the last good snapshot is older than this many periods (default 3). */
  readonly staleAfterPeriods?: number;
  /** What to do when a field the brain wrote is changed by someone else (default: respect it for 10 min). */
  readonly drift?: DriftOptions;
  readonly policies?: PolicyLookup;
  readonly metrics?: EngineMetrics;
  /**
   * Settings given explicitly by the operator (flags, env, file). Each one overrides what the
   * store holds from a previous run; anything left undefined resumes the stored value.
   */
  readonly initial?: { readonly policy?: string; readonly params?: unknown; readonly dryRun?: boolean };
  /** Journal entries older than this are pruned (checked hourly). Default 7 days; 0 keeps all. */
  readonly journalRetentionMs?: number;
  /** The journal is kept within this many bytes, oldest entries first (checked every cycle). Default 256 MiB; 0: no size limit. */
  readonly journalMaxBytes?: number;
  /**
   * Shortest gap between cycles when a policy asks to be woken early (`wakeAtMs`).
   * Default min(1000, periodMs).
   */
  readonly minWakeMs?: number;
  /** Policy used when neither the operator nor the store names one. */
  readonly defaultPolicy?: { readonly name: string; readonly params: unknown };
  /**
   * A lease the loop keeps alive, renewed at the start of every cycle (e.g. the NodeManager
   * shims' lease, `HttpNodeShim.renewLease`): when the loop stops or stalls for longer than the
   * lease, the shims resume every container the brain suspended. A failed renewal is logged and
   * the cycle goes on (actions that need the lease then fail on their own).
   */
  readonly lease?: { renew(): Promise<void> };
  /**
   * Called when the running policy stops acting on the cluster: replaced by another policy, or
   * switched to dry-run. It runs after the change, once no cycle of the previous configuration is
   * in flight, so it can undo what that policy left behind (e.g. resume suspended containers,
   * restore over-committed nodes) without racing it. Errors are logged, never fail the change.
   */
  readonly afterPolicyChange?: (change: { readonly from: string; readonly to: string; readonly dryRun: boolean }) => Promise<void>;
  /**
   * One active brain: cycles write only while `election` says this brain leads; a standby plans
   * and journals as a dry-run. Leadership is renewed every `leaseMs / 3` and at each cycle's start;
   * an action is sent only while the leadership holds. On becoming leader, `reconcile` runs once
   * per epoch before the first write (undo or adopt what a previous leader left; journaled as
   * `engine.reconcile`); until it succeeds the cycle writes nothing.
   */
  readonly leadership?: {
    readonly election: LeaderElection;
    readonly reconcile?: (
      l: Leadership,
    ) => Promise<{ readonly reason: string; readonly detail?: string; readonly errors?: readonly string[]; readonly changed?: boolean }>;
  };
}

export type CycleOutcome = 'ok' | 'rm_unavailable' | 'policy_error' | 'error';

export interface CycleReport {
  readonly cycleId: string;
  readonly startedAtMs: number;
  readonly finishedAtMs: number;
  readonly policy: string;
  readonly dryRun: boolean;
  readonly advisory: boolean;
  readonly outcome: CycleOutcome;
  /** What was decided and what became of it (journal entries; not stored for a dry-run request). */
  readonly decisions: ReadonlyArray<NewJournalEntry | JournalEntry>;
  readonly notes: readonly string[];
  readonly error?: string;
  /** True when the statement was committed (policy state advanced). */
  readonly committed: boolean;
  /** The policy asked to be asked again this many ms after the snapshot (wakeAtMs hint). */
  readonly wakeInMs?: number;
  /** Set when the cycle was discarded because another brain leads (or this one's leadership was not reconciled yet). */
  readonly standby?: boolean;
}

export interface EngineStatus {
  readonly running: boolean;
  readonly policy: string;
  readonly dryRun: boolean;
  /** Undefined until the first cycle tried. */
  readonly rmReachable?: boolean;
  readonly rmError?: string;
  readonly advisory?: boolean;
  readonly advisoryReason?: string;
  readonly capabilities?: Capabilities;
  readonly lastCycle?: { readonly cycleId: string; readonly outcome: CycleOutcome; readonly atMs: number; readonly error?: string };
  readonly lastSnapshotAtMs?: number;
  readonly consecutiveRmFailures: number;
  readonly nextCycleAtMs?: number;
  /** Set while running when the last good snapshot (or the start) is older than staleAfterPeriods. */
  readonly staleReason?: string;
  /** Who leads, when the engine runs under a leader election. */
  readonly leadership?: Leadership;
}

export interface ActiveConfig {
  readonly policy: AnyPolicy;
  readonly params: unknown;
  readonly dryRun: boolean;
  readonly updatedAtMs: number;
}

function errMsg(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class Engine {
  readonly metrics: EngineMetrics;
  readonly clock: Clock;
  readonly periodMs: number;
  readonly limits: SafetyLimits;
  private readonly backoff: BackoffOptions;
  private readonly log: Logger;
  private readonly backend: ClusterBackend;
  private readonly store: Store;
  private readonly policies: PolicyLookup;

  private active: ActiveConfig | undefined;
  private state: unknown;
  /** The state as the store holds it, when it is still `state` (a cycle then saves only what it changed). */
  private savedState: unknown;
  /**
   * `changeMark` of the snapshot the state was last built from (a committed cycle): snapshots are
   * asked for what changed since it. Undefined for an initial, restored or replaced state, whose
   * policy then gets no change sets (a full pass).
   */
  private stateMark: number | undefined;
  private generation = 0;
  private running = false;
  private startedAtMs: number | undefined;
  private timer: TimerHandle | undefined;
  private nextCycleAtMs: number | undefined;
  private inFlight: Promise<CycleReport> | undefined;
  private ticking: Promise<void> | undefined;
  private cycleSeq = 0;
  private consecutiveRmFailures = 0;
  private lastCycle: CycleReport | undefined;
  private rmReachable: boolean | undefined;
  private rmError: string | undefined;
  private capabilities: Capabilities | undefined;
  private lastSnapshot: ClusterSnapshot | undefined;
  /** What `view()` read itself (no cycle had a fresh enough one), and a read of it in flight. */
  private viewCache: { snapshot: ClusterSnapshot; capabilities: Capabilities; atMs: number } | undefined;
  private viewRead: Promise<{ snapshot: ClusterSnapshot; capabilities: Capabilities; atMs: number }> | undefined;
  private lastSnapshotAtMs: number | undefined;
  private ranking: PublishedRanking | undefined;
  /** Whether a plan left in flight by a previous process has been looked for (once, at the first snapshot). */
  private planInFlightChecked = false;
  private readonly drift: DriftTracker;
  /** The policy's change tracking across cycles (rebuilt by the policy after a load, a swap or a discarded cycle). */
  private readonly tracking = new ChangeTracker();
  /** Runs the solves of a policy that decides in steps (3Sigma's MILP) off the event loop; started when first needed. */
  private solverWorker: WorkerMilpSolver | undefined;
  /** When each suspension and kill of the last minute was applied (the per-minute limits). */
  private disruptions: { atMs: number; kind: 'suspend' | 'kill' }[] = [];
  private lastPruneAtMs: number | undefined;
  private configLock: Promise<unknown> = Promise.resolve();
  /**
   * One policy cycle at a time (a cycle, a dry-run, a trial), and none while a cycle's state is
   * adopted or a policy change saves one: a cycle that takes turns of the event loop
   * (`decideInSteps`) has the change tracking, and the state's dictionaries it changes in place,
   * to itself until it ends. Readers of the state wait for it (`settledPolicyState`).
   */
  private decideLock: Promise<void> = Promise.resolve();
  /** Leadership as last journaled, the epoch reconciled, the renewal timer and the renewal in flight. */
  private lastLeadership: Leadership | undefined;
  private reconciledEpoch: number | undefined;
  private leaderTimer: TimerHandle | undefined;
  private leaderCheck: Promise<boolean> | undefined;

  constructor(private readonly opts: EngineOptions) {
    if (!(opts.periodMs > 0)) throw new SchedbrainError(`periodMs must be > 0, got ${opts.periodMs}`);
    this.backend = opts.backend;
    this.store = opts.store;
    this.periodMs = opts.periodMs;
    this.clock = opts.clock ?? new RealClock();
    this.log = opts.logger ?? pino({ level: 'silent' });
    this.policies = opts.policies ?? REGISTRY;
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.drift = new DriftTracker(opts.drift);
    this.backoff = { initialMs: Math.min(1000, this.periodMs), maxMs: Math.max(60_000, this.periodMs), ...opts.backoff };
    this.metrics = opts.metrics ?? new EngineMetrics(() => this.clock.now());
    if (!opts.leadership) this.metrics.leader.set(1);
  }

  private lookup(name: string, field = 'name'): AnyPolicy {
    const p = this.policies.get(name);
    if (!p) throw new ValidationError(field, `unknown policy "${name}"; registered: ${this.policies.names().join(', ') || '(none)'}`);
    return p;
  }

  private validateParams(policy: AnyPolicy, params: unknown, field = 'params'): unknown {
    const r = policy.paramsSchema.safeParse(params ?? {});
    if (!r.success) throw zodToValidationError(r.error, field);
    return r.data;
  }

  /**
   * Loads the persisted configuration, applies the operator's explicit settings on top, validates
   * and persists the result. Throws ValidationError (field names the setting) when invalid.
   */
  async init(): Promise<void> {
    const stored = await this.store.getEngineConfig();
    const init = this.opts.initial ?? {};
    let name: string;
    let rawParams: unknown;
    let source: string;
    if (init.policy !== undefined) {
      name = init.policy;
      rawParams = init.params !== undefined ? init.params : stored?.policy === name ? stored.params : undefined;
      source = 'configuration';
    } else if (stored) {
      name = stored.policy;
      rawParams = init.params !== undefined ? init.params : stored.params;
      source = 'store';
    } else {
      name = this.opts.defaultPolicy?.name ?? 'capacity-targets';
      rawParams = init.params !== undefined ? init.params : this.opts.defaultPolicy?.params;
      source = 'default';
    }
    const policy = this.lookup(name, 'policy');
    const params = this.validateParams(policy, rawParams, 'policyParams');
    const dryRun = init.dryRun ?? stored?.dryRun ?? false;
    const updatedAtMs = this.clock.now();
    await this.store.putEngineConfig({ policy: name, params, dryRun, updatedAtMs });
    const saved = await this.store.getPolicyState(name);
    const keepState = saved !== undefined && stored?.policy === name;
    this.state = keepState ? saved.state : policy.initialState(params);
    this.ranking = await this.store.getRanking();
    this.active = { policy, params, dryRun, updatedAtMs };
    this.metrics.dryRun.set(dryRun ? 1 : 0);
    this.log.info({ policy: name, dryRun, source, resumedState: keepState }, 'engine configured');
  }

  private get cfg(): ActiveConfig {
    if (!this.active) throw new SchedbrainError('engine not initialised: call init() first');
    return this.active;
  }

  /** The running policy configuration. */
  config(): { name: string; description: string; params: unknown; dryRun: boolean; updatedAtMs: number } {
    const c = this.cfg;
    return { name: c.policy.name, description: c.policy.description, params: c.params, dryRun: c.dryRun, updatedAtMs: c.updatedAtMs };
  }

  /** Current in-memory policy state (for inspection); between two turns of a cycle, partly changed. */
  policyState(): unknown {
    return this.state;
  }

  /** The policy state once no cycle is changing it (the admin API's reads): the last committed. */
  async settledPolicyState(): Promise<unknown> {
    const release = await this.decideTurn();
    release();
    return this.state;
  }

  /** Waits for the policy cycles before to end; the caller's cycle runs until it calls the release returned. */
  private async decideTurn(): Promise<() => void> {
    const before = this.decideLock;
    let release!: () => void;
    this.decideLock = new Promise<void>((resolve) => (release = resolve));
    await before;
    return release;
  }

  /** Runs a policy cycle once no other is deciding, on the state `stateThen` gives at that point. */
  private async decideAlone(session: Session, policy: AnyPolicy, params: unknown, stateThen: () => unknown): Promise<Statement> {
    const release = await this.decideTurn();
    try {
      return await session.decideOffLoop(policy, params, stateThen(), this.solverFor(policy));
    } finally {
      release();
    }
  }

  /**
   * Replaces the running policy. Validates the name and params (and, when a snapshot is at hand,
   * lets the policy check them against the cluster), persists, then swaps: on any error the old
   * policy keeps running untouched.
   */
  async setPolicy(req: { name: string; params?: unknown; dryRun?: boolean }): Promise<ReturnType<Engine['config']>> {
    // One change at a time: each validates against, and replaces, the configuration before it.
    const run = this.configLock.then(() => this.doSetPolicy(req));
    this.configLock = run.catch(() => undefined);
    return run;
  }

  private async doSetPolicy(req: { name: string; params?: unknown; dryRun?: boolean }): Promise<ReturnType<Engine['config']>> {
    const policy = this.lookup(req.name);
    const params = this.validateParams(policy, req.params);
    // Same policy with new params keeps its state (e.g. BoPF's open bursts when a queue is
    // registered); only another policy starts from its initial state.
    const samePolicy = policy === this.cfg.policy;
    const previous = this.cfg;
    const sameParams = samePolicy && JSON.stringify(params) === JSON.stringify(this.cfg.params);
    const state = samePolicy ? this.state : policy.initialState(params);
    if (this.lastSnapshot && this.capabilities) await this.trialDecide(policy, params, state, this.lastSnapshot, this.capabilities);
    const dryRun = req.dryRun ?? this.cfg.dryRun;
    if (this.opts.requireCapabilities && !dryRun) {
      const lack = await this.missingCapabilities(policy.name);
      if (lack && lack.missing.length > 0)
        throw new ConflictError(
          `policy ${policy.name} needs ${lack.missing.join(', ')}, which this cluster lacks${lack.notes.length ? ` (${lack.notes.join('; ')})` : ''}: run it as a dry-run, or start the brain with --allow-advisory`,
        );
    }
    // Saved and swapped while no cycle has the state half-changed; the same policy keeps the state as it is then.
    const release = await this.decideTurn();
    try {
      const kept = samePolicy ? this.state : state;
      const updatedAtMs = this.clock.now();
      const config = { policy: policy.name, params, dryRun, updatedAtMs };
      if (sameParams) await this.store.putEngineConfig(config);
      else
        await this.store.putEngineConfigAndState(
          config,
          policy.name,
          { state: kept, savedAtMs: updatedAtMs, cycleId: 'config' },
          { entryFields: policy.stateEntries },
        );
      this.active = { policy, params, dryRun, updatedAtMs };
      this.state = kept;
      this.savedState = undefined;
      // A cycle in flight decided for the state this change replaced: its next state is dropped.
      if (!samePolicy) {
        this.generation++;
        this.stateMark = undefined;
      }
    } finally {
      release();
    }
    this.metrics.dryRun.set(dryRun ? 1 : 0);
    this.log.info({ policy: policy.name, dryRun }, 'policy changed');
    if (!samePolicy && this.running) void this.warmSolver();
    const stoppedActing = !samePolicy || (dryRun && !previous.dryRun);
    if (stoppedActing && this.opts.afterPolicyChange) {
      const hook = this.opts.afterPolicyChange;
      // Let a cycle that decided with the previous configuration finish sending first.
      await this.inFlight?.catch(() => undefined);
      await this.safely('hand over after the policy change', () => hook({ from: previous.policy.name, to: policy.name, dryRun }));
    }
    // The operator has spoken: fields held after a change outside the brain are the brain's again.
    this.drift.reset();
    return this.config();
  }

  /**
   * Changes the running policy's state between cycles (an admission through the admin API).
   * `change` gets a copy and says whether it changed it; a changed copy becomes the state at once
   * and is then saved, else (or when `change` throws) nothing changes. A cycle in flight is waited
   * for first; one that starts before the swap decided on the old state: its next state is dropped.
   */
  async changePolicyState<T>(policyName: string, change: (state: unknown) => { changed: boolean; value: T }): Promise<T> {
    const run = this.configLock.then(async () => {
      await this.inFlight?.catch(() => undefined);
      if (this.cfg.policy.name !== policyName) throw new ConflictError(`the running policy is ${this.cfg.policy.name}, not ${policyName}`);
      const next: unknown = structuredClone(this.state);
      const result = change(next);
      if (!result.changed) return result.value;
      this.state = next;
      this.savedState = undefined;
      this.generation++;
      // Swapped before the write: a cycle starting now decides on, and saves after, this state.
      await this.safely('save policy state', () =>
        this.store.putPolicyState(policyName, { state: next, savedAtMs: this.clock.now(), cycleId: 'api' }, { entryFields: this.cfg.policy.stateEntries }),
      );
      return result.value;
    });
    this.configLock = run.catch(() => undefined);
    return run;
  }

  /** Runs the policy once on a snapshot; a ValidationError it throws names a `params.` field. */
  private async trialDecide(policy: AnyPolicy, params: unknown, state: unknown, snapshot: ClusterSnapshot, caps: Capabilities): Promise<Statement | undefined> {
    try {
      return await this.decideAlone(this.session('trial', snapshot, caps), policy, params, () => state);
    } catch (e) {
      const cause = e instanceof PolicyError ? e.cause : e;
      if (cause instanceof ValidationError) {
        const reason = cause.message.startsWith(`${cause.field}: `) ? cause.message.slice(cause.field.length + 2) : cause.message;
        throw new ValidationError(`params.${cause.field}`, reason);
      }
      return undefined;
    }
  }

  private session(cycleId: string, snapshot: ClusterSnapshot, caps: Capabilities): Session {
    const since = this.clock.now() - 60_000;
    this.disruptions = this.disruptions.filter((d) => d.atMs > since);
    const recentDisruptions = {
      suspends: this.disruptions.filter((d) => d.kind === 'suspend').length,
      kills: this.disruptions.filter((d) => d.kind === 'kill').length,
    };
    return new Session({
      cycleId,
      snapshot,
      capabilities: caps,
      limits: this.limits,
      lastRanking: this.ranking,
      recentDisruptions,
      holds: this.drift.holds(this.clock.now()),
      tracking: this.tracking,
    });
  }

  /** The cluster's own reservation system, when the backend has one (YARN's, for `rayon` live). */
  reservationSystem(): ReservationSystem | undefined {
    return this.backend.reservations;
  }

  /**
   * Capabilities the named policy (default: the running one) needs and the backend lacks, with the
   * backend's notes on them; undefined when the backend cannot tell now (RM unreachable).
   */
  async missingCapabilities(name: string = this.cfg.policy.name): Promise<{ missing: PolicyNeed[]; notes: string[] } | undefined> {
    const needs = this.lookup(name).needs ?? [];
    if (needs.length === 0) return { missing: [], notes: [] };
    let caps: Capabilities;
    try {
      caps = await this.backend.capabilities();
    } catch {
      return undefined;
    }
    const missing = needs.filter((n) => !caps[n]);
    return { missing, notes: caps.notes.filter((t) => missing.some((m) => t.startsWith(`${m}:`))) };
  }

  /** What the backend keeps for the operator's state dump (empty when it keeps nothing). */
  async describeBackend(): Promise<Record<string, unknown>> {
    return (await this.backend.describeState?.()) ?? {};
  }

  /**
   * The cluster as the engine last read it, with the capabilities then, if no older than
   * `maxAgeMs` (default: the staleness limit, `staleAfterPeriods` periods); otherwise one read,
   * shared by concurrent callers, which becomes the view. The API's reads go here, so a request
   * costs the RM nothing while the loop runs.
   */
  async view(
    maxAgeMs: number = (this.opts.staleAfterPeriods ?? 3) * this.periodMs,
  ): Promise<{ snapshot: ClusterSnapshot; capabilities: Capabilities; atMs: number }> {
    const cycle =
      this.lastSnapshot && this.capabilities && this.lastSnapshotAtMs !== undefined
        ? { snapshot: this.lastSnapshot, capabilities: this.capabilities, atMs: this.lastSnapshotAtMs }
        : undefined;
    const newest = cycle && this.viewCache ? (cycle.atMs >= this.viewCache.atMs ? cycle : this.viewCache) : (cycle ?? this.viewCache);
    if (newest && this.clock.now() - newest.atMs <= maxAgeMs) return newest;
    this.viewRead ??= (async () => {
      try {
        const capabilities = await this.backend.capabilities();
        const snapshot = await this.backend.snapshot({ parts: this.partsRead(this.cfg.policy) });
        this.viewCache = { snapshot, capabilities, atMs: this.clock.now() };
        return this.viewCache;
      } finally {
        this.viewRead = undefined;
      }
    })();
    return this.viewRead;
  }

  /**
   * The view when it holds every part, else one read of everything now (for an operator who asks;
   * it is not the engine's view, and the backend's next read for the policy starts its parts over).
   */
  async viewOfEverything(): Promise<{ snapshot: ClusterSnapshot; capabilities: Capabilities; atMs: number }> {
    const v = await this.view();
    if (covers(v.snapshot, undefined)) return v;
    return { snapshot: await this.backend.snapshot({}), capabilities: v.capabilities, atMs: this.clock.now() };
  }

  /** A fresh snapshot straight from the backend (RmUnavailableError when it is down). */
  async snapshot(): Promise<ClusterSnapshot> {
    return this.backend.snapshot({ changesSince: this.stateMark, parts: this.partsRead(this.cfg.policy) });
  }

  /**
   * What the engine reads of the cluster for `policy`: what the policy declares it reads, and the
   * parts where the brain's earlier writes are watched for drift; undefined: everything.
   */
  private partsRead(policy: AnyPolicy): readonly SnapshotPart[] | undefined {
    return unionParts(policy.reads, this.drift.watchedParts());
  }

  /**
   * One cycle on a fresh snapshot that writes nothing (no actions, no journal, no state), for
   * the current policy or another one. Decisions carry their reasons and planned results.
   */
  async dryRun(req: { name?: string; params?: unknown } = {}): Promise<CycleReport & { params: unknown; snapshotAtMs: number }> {
    const policy = req.name !== undefined ? this.lookup(req.name) : this.cfg.policy;
    const params = req.params !== undefined || policy !== this.cfg.policy ? this.validateParams(policy, req.params) : this.cfg.params;
    const startedAtMs = this.clock.now();
    const cycleId = `dry-${startedAtMs.toString(36)}`;
    // The view, whose change sets may be relative to an older state: a full pass decides here.
    // Another policy than the running one may read parts the view has not: then they are read.
    const viewed = await this.view();
    const v = covers(viewed.snapshot, this.partsRead(policy))
      ? viewed
      : { ...viewed, snapshot: await this.backend.snapshot({ parts: unionParts(viewed.snapshot.parts, this.partsRead(policy)) }) };
    const caps = v.capabilities;
    const snapshot: ClusterSnapshot = { ...v.snapshot, changedNodeIds: undefined, changedAppIds: undefined };
    const advisory = !caps.queueWrites;
    try {
      const st = await this.decideAlone(this.session(cycleId, snapshot, caps), policy, params, () =>
        policy === this.cfg.policy ? this.state : policy.initialState(params),
      );
      return {
        cycleId,
        startedAtMs,
        finishedAtMs: this.clock.now(),
        policy: policy.name,
        params,
        snapshotAtMs: snapshot.nowMs,
        dryRun: true,
        advisory,
        outcome: 'ok',
        decisions: st.discard(),
        notes: [...(st.output.notes ?? []), ...(advisory ? [advisoryReason(caps)] : [])],
        committed: false,
      };
    } catch (e) {
      const cause = e instanceof PolicyError ? e.cause : e;
      if (cause instanceof ValidationError) {
        const reason = cause.message.startsWith(`${cause.field}: `) ? cause.message.slice(cause.field.length + 2) : cause.message;
        throw new ValidationError(`params.${cause.field}`, reason);
      }
      return {
        cycleId,
        startedAtMs,
        finishedAtMs: this.clock.now(),
        policy: policy.name,
        params,
        snapshotAtMs: snapshot.nowMs,
        dryRun: true,
        advisory,
        outcome: 'policy_error',
        decisions: [],
        notes: [],
        error: errMsg(e),
        committed: false,
      };
    }
  }

  status(): EngineStatus {
    const c = this.cfg;
    return {
      running: this.running,
      policy: c.policy.name,
      dryRun: c.dryRun,
      rmReachable: this.rmReachable,
      rmError: this.rmError,
      advisory: this.capabilities ? !this.capabilities.queueWrites : undefined,
      advisoryReason: this.capabilities && !this.capabilities.queueWrites ? advisoryReason(this.capabilities) : undefined,
      capabilities: this.capabilities,
      lastCycle: this.lastCycle && {
        cycleId: this.lastCycle.cycleId,
        outcome: this.lastCycle.outcome,
        atMs: this.lastCycle.finishedAtMs,
        error: this.lastCycle.error,
      },
      lastSnapshotAtMs: this.lastSnapshotAtMs,
      consecutiveRmFailures: this.consecutiveRmFailures,
      nextCycleAtMs: this.nextCycleAtMs,
      staleReason: this.staleReason(),
      leadership: this.leadership(),
    };
  }

  /** Role, epoch and leader under the leader election; undefined when the engine runs without one. */
  leadership(): Leadership | undefined {
    return this.opts.leadership?.election.status();
  }

  /**
   * Refuses (ConflictError) on a standby: a write to the cluster outside the cycle (an admin
   * request) goes to the leader.
   */
  assertLeads(what: string): void {
    const l = this.leadership();
    if (!l || this.leads()) return;
    throw new ConflictError(
      `cannot ${what}: this brain is a standby (${l.holder ? `${l.holder} leads, epoch ${l.epoch}` : 'no leader known'}); send it to the leader`,
    );
  }

  /** True when this brain may write: no election, or it leads. */
  private leads(): boolean {
    return this.opts.leadership ? this.opts.leadership.election.isLeader() : true;
  }

  /** Renews or tries to take the leadership (one attempt at a time) and journals a change of it. */
  private checkLeadership(cycleId: string): Promise<boolean> {
    this.leaderCheck ??= this.doCheckLeadership(cycleId).finally(() => {
      this.leaderCheck = undefined;
    });
    return this.leaderCheck;
  }

  private async doCheckLeadership(cycleId: string): Promise<boolean> {
    const el = this.opts.leadership?.election;
    if (!el) return true;
    try {
      if (!(el.isLeader() && (await el.renew()))) await el.acquire();
    } catch (e) {
      this.log.warn({ err: errMsg(e) }, 'leader election failed; writing nothing until it answers');
    }
    const now = el.status();
    this.metrics.leader.set(now.role === 'leader' ? 1 : 0);
    this.metrics.leaderEpoch.set(now.epoch);
    const before = this.lastLeadership;
    if (!before || before.role !== now.role || before.epoch !== now.epoch || before.holder !== now.holder) {
      this.lastLeadership = now;
      this.metrics.leadershipChanges.inc({ role: now.role });
      const reason =
        now.role === 'leader'
          ? `this brain (${el.holder}) leads with epoch ${now.epoch}`
          : `standby: ${now.holder ? `${now.holder} leads (epoch ${now.epoch})` : 'no leader known'}; this brain (${el.holder}) plans and journals, writes nothing`;
      const lost = before?.role === 'leader' && (now.role !== 'leader' || now.epoch !== before.epoch);
      this.log[lost ? 'warn' : 'info']({ leadership: now, before }, lost ? `leadership lost: ${reason}` : reason);
      await this.journal([
        {
          cycleId,
          policy: this.cfg.policy.name,
          rule: 'engine.leadership',
          reason: lost ? `leadership of epoch ${before.epoch} lost; ${reason}` : reason,
          result: 'noop',
          detail: JSON.stringify(now),
        },
      ]);
    }
    return now.role === 'leader';
  }

  /**
   * Runs the reconcile hook once per epoch of this brain's leadership: `done` once it succeeded,
   * `changed` when it changed the cluster just now (the cycle's snapshot is then out of date).
   */
  private async reconcileLeadership(cycleId: string): Promise<{ done: boolean; changed: boolean }> {
    const l = this.opts.leadership;
    if (!l) return { done: true, changed: false };
    const now = l.election.status();
    if (now.role !== 'leader') return { done: false, changed: false };
    if (this.reconciledEpoch === now.epoch || !l.reconcile) return { done: true, changed: false };
    try {
      const r = await l.reconcile(now);
      const failed = (r.errors?.length ?? 0) > 0;
      await this.journal([
        {
          cycleId,
          policy: this.cfg.policy.name,
          rule: 'engine.reconcile',
          reason: `epoch ${now.epoch}: ${r.reason}`,
          result: failed ? 'failed' : r.changed === false ? 'noop' : 'applied',
          detail: r.detail,
          ...(failed ? { error: r.errors!.join('; ') } : {}),
        },
      ]);
      if (failed) return { done: false, changed: r.changed !== false };
      this.reconciledEpoch = now.epoch;
      return { done: true, changed: r.changed !== false };
    } catch (e) {
      this.log.error({ err: e }, 'could not reconcile after taking the leadership; writing nothing this cycle');
      await this.journal([
        {
          cycleId,
          policy: this.cfg.policy.name,
          rule: 'engine.reconcile',
          reason: `epoch ${now.epoch}: could not reconcile what a previous leader left; nothing written this cycle`,
          result: 'failed',
          error: errMsg(e),
        },
      ]);
      return { done: false, changed: true };
    }
  }

  private armLeaderTimer(): void {
    const el = this.opts.leadership?.election;
    if (!el || !this.running) return;
    this.leaderTimer = this.clock.setTimeout(
      async () => {
        this.leaderTimer = undefined;
        if (!this.running) return;
        await this.checkLeadership(`lead-${this.clock.now().toString(36)}`);
        this.armLeaderTimer();
      },
      Math.max(100, Math.floor(el.leaseMs / 3)),
    );
  }

  private staleReason(): string | undefined {
    if (!this.running || this.startedAtMs === undefined) return undefined;
    const limitMs = (this.opts.staleAfterPeriods ?? 3) * this.periodMs;
    const since = this.lastSnapshotAtMs ?? this.startedAtMs;
    const ageMs = this.clock.now() - since;
    if (ageMs <= limitMs) return undefined;
    return `${this.lastSnapshotAtMs === undefined ? 'no snapshot since the start' : 'last good snapshot'} ${Math.round(ageMs / 1000)} s ago, more than ${this.opts.staleAfterPeriods ?? 3} periods (${limitMs} ms)`;
  }

  /** Resolves with `work`, or rejects with RmUnavailableError once the read deadline passes. */
  private withReadDeadline<T>(work: Promise<T>): Promise<T> {
    const deadlineMs = this.opts.readDeadlineMs ?? Math.max(5_000, 2 * this.periodMs);
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timer = this.clock.setTimeout(() => {
        if (settled) return;
        settled = true;
        reject(new RmUnavailableError(`the ResourceManager did not answer the cycle's reads within ${deadlineMs} ms`));
      }, deadlineMs);
      work.then(
        (v) => {
          if (settled) return;
          settled = true;
          this.clock.clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          if (settled) return;
          settled = true;
          this.clock.clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Starts the loop: a first cycle now, then one every period (backing off while the RM is down). */
  start(): void {
    if (!this.active) throw new SchedbrainError('engine not initialised: call init() first');
    if (this.running) return;
    this.running = true;
    this.startedAtMs = this.clock.now();
    this.nextCycleAtMs = this.clock.now();
    this.armLeaderTimer();
    void this.warmSolver();
    void this.startTick();
  }

  /** Stops the loop and waits for a cycle in flight to finish. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.leaderTimer) this.clock.clearTimeout(this.leaderTimer);
    this.leaderTimer = undefined;
    // A renewal in flight must not land after the leadership is given up.
    await this.leaderCheck?.catch(() => undefined);
    this.nextCycleAtMs = undefined;
    await this.whenIdle();
    await this.solverWorker?.close();
    this.solverWorker = undefined;
  }

  /**
   * Starts the solver worker for the active policy when it solves MILPs, so that HiGHS has loaded
   * by the first solve (a solve waits for the load only within its own time). Resolves true once
   * it has loaded; false for a policy without solves or a worker that did not start.
   */
  async warmSolver(): Promise<boolean> {
    const solver = this.solverFor(this.cfg.policy);
    if (!solver) return false;
    return solver.warm().then(
      () => true,
      () => false,
    );
  }

  /** The solver for a policy whose steps solve MILPs; undefined for the others (they solve nothing). */
  private solverFor(policy: AnyPolicy): WorkerMilpSolver | undefined {
    if (!policy.decideInSteps || !policy.solves) return undefined;
    this.solverWorker ??= new WorkerMilpSolver({
      onStop: (why, detail) => {
        this.metrics.solverStops.inc({ why });
        this.log.warn({ policy: policy.name, why, detail }, why === 'deadline' ? "a policy's solve ran out of the cycle's time" : "a policy's solve failed");
      },
    });
    return this.solverWorker;
  }

  private schedule(delayMs: number): void {
    const d = Math.max(0, Math.round(delayMs));
    this.nextCycleAtMs = this.clock.now() + d;
    this.timer = this.clock.setTimeout(() => this.startTick(), d);
  }

  private startTick(): Promise<void> {
    const p: Promise<void> = this.tick().finally(() => {
      if (this.ticking === p) this.ticking = undefined;
    });
    this.ticking = p;
    return p;
  }

  /** Resolves when no cycle is running (and the next one, if any, is scheduled). */
  async whenIdle(): Promise<void> {
    while (this.ticking || this.inFlight) {
      await Promise.all([this.ticking, this.inFlight?.catch(() => undefined)]);
    }
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (!this.running) return;
    let delay = this.periodMs;
    try {
      const r = await this.runCycle();
      delay = this.nextDelay(r);
    } catch (e) {
      // runCycle never throws by design; belt and braces so the loop cannot die.
      this.log.error({ err: e }, 'unexpected engine error; continuing');
    }
    if (this.running && !this.timer) this.schedule(delay);
  }

  private backoffDelay(): number {
    const exp = this.backoff.initialMs * 2 ** Math.max(0, this.consecutiveRmFailures - 1);
    return Math.min(this.backoff.maxMs, exp);
  }

  /**
   * Sliding period (like Kubernetes' wait.Until): the next cycle starts `periodMs` after the
   * previous one finished, so a slow cycle never causes a burst; backoff while the RM is down.
   */
  private nextDelay(r: CycleReport): number {
    if (r.outcome === 'rm_unavailable' || r.outcome === 'error') return this.backoffDelay();
    // A policy's wakeAtMs is a hint to come back sooner (never later than the period).
    if (r.wakeInMs !== undefined && r.wakeInMs < this.periodMs) return Math.max(this.opts.minWakeMs ?? Math.min(1000, this.periodMs), r.wakeInMs);
    return this.periodMs;
  }

  /** Runs one cycle now; if one is in flight, returns that one instead (cycles never overlap). */
  runCycle(): Promise<CycleReport> {
    if (this.inFlight) return this.inFlight;
    const p = this.cycle().finally(() => {
      this.inFlight = undefined;
    });
    this.inFlight = p;
    return p;
  }

  private async cycle(): Promise<CycleReport> {
    const startedAtMs = this.clock.now();
    const cycleId = `${startedAtMs.toString(36)}-${++this.cycleSeq}`;
    let cfg = this.cfg;
    const base = { cycleId, startedAtMs, policy: cfg.policy.name, dryRun: cfg.dryRun };
    const finish = (r: Omit<CycleReport, 'finishedAtMs'>): CycleReport => {
      const finishedAtMs = this.clock.now();
      const report = { ...r, finishedAtMs };
      this.lastCycle = report;
      this.metrics.cycles.inc({ outcome: r.outcome });
      this.metrics.cycleDuration.observe((finishedAtMs - startedAtMs) / 1000);
      for (const d of r.decisions) this.metrics.decisions.inc({ result: d.result, policy: d.policy }, d.count ?? 1);
      return report;
    };

    const leading = await this.checkLeadership(cycleId);
    // Only the leader keeps the shims' lease (a standby's would be refused, or outlive it).
    if (this.opts.lease && leading) {
      try {
        await this.opts.lease.renew();
      } catch (e) {
        this.log.warn({ cycleId, err: errMsg(e) }, 'could not renew the lease; actions that need it will fail');
      }
    }
    let caps: Capabilities;
    let snapshot: ClusterSnapshot;
    let askedMark: number | undefined;
    const refreshStart = performance.now();
    try {
      ({ caps, snapshot } = await this.withReadDeadline(
        (async () => {
          const c = await this.backend.capabilities();
          askedMark = this.stateMark;
          return { caps: c, snapshot: await this.backend.snapshot({ changesSince: askedMark, parts: this.partsRead(cfg.policy) }) };
        })(),
      ));
    } catch (e) {
      const firstFailure = this.consecutiveRmFailures === 0;
      const outcome = this.rmFailed(e);
      // An outage is journaled where it starts (and where it ends, below), not at every retry: an
      // RM that does not answer, and one whose answers cannot be read (truncated, malformed).
      if (firstFailure) {
        const what = this.rmReachable === false ? 'became unavailable' : 'answers what cannot be read';
        await this.journal([
          {
            cycleId,
            policy: cfg.policy.name,
            rule: 'engine.rm-outage',
            reason: `the ResourceManager ${what}: ${errMsg(e)}; nothing is written until it answers`,
            result: 'failed',
            error: errMsg(e),
          },
        ]);
      }
      return finish({ ...base, advisory: this.status().advisory ?? false, outcome, decisions: [], notes: [], error: errMsg(e), committed: false });
    }
    this.metrics.cyclePhase.observe({ phase: 'refresh' }, (performance.now() - refreshStart) / 1000);
    const downFor = this.consecutiveRmFailures;
    const wasDown = downFor > 0;
    this.rmOk(caps, snapshot);
    const engineEntries: NewJournalEntry[] = [];
    if (wasDown)
      engineEntries.push({
        cycleId,
        policy: cfg.policy.name,
        rule: 'engine.rm-recovered',
        reason: `the ResourceManager answers again after ${downFor} failed cycle(s)`,
        result: 'noop',
      });
    for (const d of this.drift.detect(snapshot, this.clock.now())) {
      this.metrics.drift.inc({ kind: d.kind });
      this.log.warn({ drift: d, driftPolicy: this.drift.options.policy }, d.describe);
      engineEntries.push({
        cycleId,
        policy: cfg.policy.name,
        rule: 'engine.drift',
        reason: `${d.describe} (driftPolicy ${this.drift.options.policy})`,
        result: 'noop',
        detail: JSON.stringify({ kind: d.kind, target: d.target, written: d.written, now: d.now, writtenAtMs: d.writtenAtMs }),
      });
    }
    let leftInFlight: PlanInFlight | undefined;
    if (!this.planInFlightChecked) {
      this.planInFlightChecked = true;
      leftInFlight = await this.store.getPlanInFlight().catch((e: unknown) => {
        this.log.error({ err: errMsg(e) }, 'could not read the plan a previous process left in flight');
        return undefined;
      });
      if (leftInFlight) {
        const found = accountForPlanInFlight(leftInFlight, snapshot, this.ranking, cycleId);
        this.log.warn(
          { cycleId: leftInFlight.cycleId, decisions: found.length, inEffect: found.filter((e) => e.result === 'applied').length },
          'a previous process stopped while sending a plan; each of its decisions is journaled as the cluster shows it now',
        );
        engineEntries.push(...found);
      }
    }
    if (engineEntries.length > 0) await this.journal(engineEntries);
    if (leftInFlight) await this.safely('clear the plan left in flight', () => this.store.delPlanInFlight());
    const advisory = !caps.queueWrites;
    // Decide with the configuration current now (a PUT may have landed during the snapshot).
    cfg = this.cfg;
    const gen = this.generation;
    const state = this.state;
    // A policy change during the reads replaced the state the change sets were relative to.
    if (askedMark !== this.stateMark) snapshot = { ...snapshot, changedNodeIds: undefined, changedAppIds: undefined };
    // A new leader reconciles before it decides; what that changed is read again, so the first
    // plan is made on the cluster as the reconciliation left it. Until it succeeds: standby.
    let reconciled = false;
    if (!cfg.dryRun && !advisory && leading && this.leads()) {
      const r = await this.reconcileLeadership(cycleId);
      reconciled = r.done;
      if (r.done && r.changed) {
        try {
          snapshot = await this.withReadDeadline(this.backend.snapshot({ parts: this.partsRead(cfg.policy) }));
          this.rmOk(caps, snapshot);
        } catch (e) {
          this.log.warn({ cycleId, err: errMsg(e) }, 'could not read the cluster again after reconciling; writing nothing this cycle');
          reconciled = false;
        }
      }
    }
    let st: Statement;
    try {
      st = await this.decideAlone(this.session(cycleId, snapshot, caps), cfg.policy, cfg.params, () => state);
    } catch (e) {
      const error = errMsg(e);
      this.log.error({ cycleId, policy: cfg.policy.name, err: e instanceof PolicyError ? e.cause : e }, 'policy threw; cycle discarded');
      const entry: NewJournalEntry = {
        cycleId,
        policy: cfg.policy.name,
        rule: 'engine.policy-error',
        reason: `${error}; cycle discarded, nothing sent, state kept`,
        result: 'failed',
        error,
      };
      const decisions = await this.journal([entry]);
      return finish({
        ...base,
        policy: cfg.policy.name,
        dryRun: cfg.dryRun,
        advisory,
        outcome: 'policy_error',
        decisions,
        notes: [],
        error,
        committed: false,
      });
    }

    this.metrics.cyclePhase.observe({ phase: 'decide' }, st.timings.decideS);
    this.metrics.cyclePhase.observe({ phase: 'plan' }, st.timings.planS);
    const notes = [...(st.output.notes ?? [])];
    if (advisory) notes.push(advisoryReason(caps));
    // Advisory mode is a forced discard: decide and journal, write nothing, keep state. So is
    // standby, and a leadership whose takeover could not be reconciled yet.
    const standby = !cfg.dryRun && !advisory && !(reconciled && this.leads());
    const commit = !cfg.dryRun && !advisory && !standby;
    let entries: NewJournalEntry[];
    let outcome: CycleOutcome = 'ok';
    let error: string | undefined;
    // Recorded before the first action is sent and cleared once the outcomes are journaled.
    const sending = commit ? st.pending : [];
    if (sending.length > 0)
      await this.safely('record the plan in flight', () =>
        this.store.putPlanInFlight({
          cycleId,
          policy: cfg.policy.name,
          atMs: this.clock.now(),
          decisions: sending.map((p) => ({ rule: p.decision.rule, reason: p.decision.reason, action: p.action! })),
        }),
      );
    if (commit) {
      const applyStart = performance.now();
      const r = await st.commit(this.opts.leadership ? this.whileLeading(this.opts.leadership.election) : this.backend);
      this.metrics.cyclePhase.observe({ phase: 'apply' }, (performance.now() - applyStart) / 1000);
      entries = r.entries;
      for (const e of entries) {
        if (e.result !== 'applied' || !e.action) continue;
        const kind = disruptionOf(e.action);
        if (kind) this.disruptions.push({ atMs: this.clock.now(), kind });
        this.drift.recordApplied(e.action, this.clock.now());
      }
      if (r.ranking) {
        this.ranking = r.ranking;
        await this.safely('save ranking', () => this.store.putRanking(r.ranking as PublishedRanking));
      }
      if (r.rmUnavailable) {
        outcome = this.rmFailed(new RmUnavailableError(r.rmUnavailable));
        error = r.rmUnavailable;
      }
      // Adopting writes the cycle's entries into dictionaries another cycle (a dry-run) may be changing.
      const release = await this.decideTurn();
      try {
        if (gen === this.generation) {
          const next = st.adoptState();
          // Only the entries the cycle changed are written when the store holds the state it began from.
          const changed = this.savedState === state ? st.changedEntries : undefined;
          this.state = next;
          this.stateMark = snapshot.changeMark;
          this.savedState = undefined;
          await this.safely('save policy state', async () => {
            const rec = { state: next, savedAtMs: this.clock.now(), cycleId };
            await this.store.putPolicyState(cfg.policy.name, rec, { entryFields: cfg.policy.stateEntries, changed });
            this.savedState = next;
          });
        } else {
          notes.push('policy changed during the cycle: its next state was not kept');
        }
      } finally {
        release();
      }
    } else {
      entries = st.discard();
      if (standby) {
        const l = this.leadership();
        const why = `standby: ${l?.role === 'leader' ? 'leadership not reconciled yet' : l?.holder ? `${l.holder} leads (epoch ${l.epoch})` : 'no leader known'}; nothing sent`;
        entries = entries.map((e) => (e.result === 'dryRun' ? { ...e, detail: e.detail ? `${why}; ${e.detail}` : why } : e));
        notes.push(why);
      }
    }
    // At 10,000 nodes the plan and the journal's write are each tens of ms: the loop answers between them.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const journalStart = performance.now();
    const decisions = await this.journal(foldRepeatedSkips(entries), true);
    if (sending.length > 0) await this.safely('clear the plan in flight', () => this.store.delPlanInFlight());
    this.metrics.cyclePhase.observe({ phase: 'journal' }, (performance.now() - journalStart) / 1000);
    this.logCycle(cycleId, cfg, decisions, notes);
    await this.maybePrune();
    const wakeInMs = st.output.wakeAtMs !== undefined ? Math.max(0, st.output.wakeAtMs - snapshot.nowMs) : undefined;
    return finish({
      ...base,
      policy: cfg.policy.name,
      dryRun: cfg.dryRun,
      advisory,
      outcome,
      decisions,
      notes,
      error,
      committed: commit,
      wakeInMs,
      ...(standby ? { standby: true } : {}),
    });
  }

  /** The backend, sending an action only while this brain leads: a leadership lost mid-cycle stops the rest. */
  private whileLeading(el: LeaderElection): ClusterBackend {
    const b = this.backend;
    return {
      name: b.name,
      snapshot: (o) => b.snapshot(o),
      capabilities: () => b.capabilities(),
      apply: async (a) =>
        el.isLeader()
          ? b.apply(a)
          : { status: 'failed', error: `not sent: this brain lost the leadership during the cycle (epoch ${el.epoch})`, retryable: false },
    };
  }

  private async maybePrune(): Promise<void> {
    const maxBytes = this.opts.journalMaxBytes ?? DEFAULT_JOURNAL_MAX_BYTES;
    if (maxBytes > 0)
      await this.safely('keep the journal within its size', async () => {
        const r = await this.store.journal.pruneToBytes(maxBytes);
        if (r.removed) this.log.info({ pruned: r.removed, bytes: r.bytes, maxBytes }, 'journal pruned to its size limit');
      });
    const keep = this.opts.journalRetentionMs ?? 7 * 24 * 3600_000;
    const now = this.clock.now();
    if (keep <= 0 || (this.lastPruneAtMs !== undefined && now - this.lastPruneAtMs < 3600_000)) return;
    this.lastPruneAtMs = now;
    await this.safely('prune the journal', async () => {
      const n = await this.store.journal.prune(now - keep);
      if (n) this.log.info({ pruned: n, olderThanMs: keep }, 'journal pruned');
    });
  }

  /** `cycle`: a cycle's decisions, journaled even when empty, those unchanged since the last cycle folded. */
  private async journal(entries: NewJournalEntry[], cycle = false): Promise<ReadonlyArray<NewJournalEntry | JournalEntry>> {
    if (entries.length === 0 && !cycle) return entries;
    try {
      return await (cycle ? this.store.journal.appendCycle(this.clock.now(), entries) : this.store.journal.append(this.clock.now(), entries));
    } catch (e) {
      this.log.error({ err: e, entries: entries.length }, 'could not write the decision journal');
      return entries;
    }
  }

  private async safely(what: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      this.log.error({ err: e }, `could not ${what}`);
    }
  }

  private rmOk(caps: Capabilities, snapshot: ClusterSnapshot): void {
    if (this.rmReachable === false) this.log.info({ after: this.consecutiveRmFailures }, 'ResourceManager reachable again; resuming');
    if (this.capabilities?.queueWrites !== caps.queueWrites && !caps.queueWrites) this.log.warn({ notes: caps.notes }, advisoryReason(caps));
    this.rmReachable = true;
    this.rmError = undefined;
    this.consecutiveRmFailures = 0;
    this.capabilities = caps;
    this.lastSnapshot = snapshot;
    this.lastSnapshotAtMs = this.clock.now();
    this.metrics.snapshotTaken(this.lastSnapshotAtMs);
    this.metrics.advisory.set(caps.queueWrites ? 0 : 1);
    this.metrics.consecutiveFailures.set(0);
  }

  private rmFailed(e: unknown): CycleOutcome {
    const unavailable = e instanceof RmUnavailableError;
    this.consecutiveRmFailures++;
    this.rmReachable = unavailable ? false : this.rmReachable;
    this.rmError = errMsg(e);
    this.metrics.rmErrors.inc();
    this.metrics.consecutiveFailures.set(this.consecutiveRmFailures);
    this.log.warn(
      { err: errMsg(e), failures: this.consecutiveRmFailures, retryInMs: this.backoffDelay() },
      unavailable
        ? 'ResourceManager unavailable; cycle changes nothing, retrying with backoff'
        : 'cannot read the cluster; cycle changes nothing, retrying with backoff',
    );
    return unavailable ? 'rm_unavailable' : 'error';
  }

  private logCycle(cycleId: string, cfg: ActiveConfig, decisions: ReadonlyArray<NewJournalEntry>, notes: string[]): void {
    const counts: Record<string, number> = {};
    for (const d of decisions) counts[d.result] = (counts[d.result] ?? 0) + (d.count ?? 1);
    const sent = decisions.filter((d) => d.result === 'applied' || d.result === 'failed' || d.result === 'dryRun');
    const level = sent.length ? 'info' : 'debug';
    this.log[level](
      {
        cycleId,
        policy: cfg.policy.name,
        dryRun: cfg.dryRun,
        results: counts,
        actions: sent.map((d) => `${d.result}: ${d.action ? describeAction(d.action) : d.rule}`),
        notes: notes.length ? notes : undefined,
      },
      'cycle',
    );
  }
}
