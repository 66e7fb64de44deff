/**
 * The embedded store: one LevelDB (classic-level) under the state directory. Every write is
 * `{ sync: true }` so an acknowledged write survives a crash or power loss.
 *
 * Layout (LevelDB sublevels, so prefixes never collide):
 *   engine!config            the running policy, its params and the dry-run flag
 *   engine!ranking           the last node ranking the engine published (for reconciliation)
 *   state!<policy>           each policy's state (JSON), saved after each committed cycle
 *   state-entries!<policy>\0<field>\0<key>
 *                            the entries of a state's dictionaries (a policy's `stateEntries`),
 *                            one value each, so that a cycle writes only the entries it changed
 *   journal!<time>.<seq>     the decision journal, ordered by time then sequence
 *   kv!<namespace>!<key>     namespaced key/value space for other modules (e.g. BoPF admissions)
 *
 * Values are JSON, validated with zod on read (and on write), so a corrupt or outdated value is
 * reported as a StoreDecodeError naming the key instead of travelling on as `any`.
 */
import { ClassicLevel } from 'classic-level';
import { mkdirSync } from 'node:fs';
import { z } from 'zod';
import { actionSchema } from '../core/actions.js';
import { SchedbrainError } from '../core/errors.js';
import { decodeValue, StoreDecodeError, type RawLevel } from './codec.js';
import { DecisionJournal } from './journal.js';

export { StoreDecodeError, decodeValue } from './codec.js';

/**
 * A typed key/value namespace. Keys are strings; `list(prefix)` returns entries in key order.
 * Obtain one with `store.namespace(name, schema)`.
 */
type Level = ClassicLevel<string, string>;
const SYNC = { sync: true } as const;

export class KvNamespace<T> {
  constructor(
    readonly name: string,
    private readonly level: RawLevel,
    private readonly schema: z.ZodType<T, z.ZodTypeDef, unknown>,
  ) {}

  async get(key: string): Promise<T | undefined> {
    const raw = await this.level.get(key);
    return raw === undefined ? undefined : decodeValue(`${this.name}/${key}`, raw, this.schema);
  }

  async put(key: string, value: T): Promise<void> {
    if (key.length === 0) throw new SchedbrainError('store key must not be empty');
    const checked = this.schema.safeParse(value);
    if (!checked.success) {
      const i = checked.error.issues[0];
      throw new StoreDecodeError(`${this.name}/${key}`, `refusing to write: ${i.path.join('.') || '(value)'}: ${i.message}`);
    }
    await this.level.put(key, JSON.stringify(value), SYNC);
  }

  async del(key: string): Promise<void> {
    await this.level.del(key, SYNC);
  }

  /** Entries whose key starts with `prefix` (all entries when omitted), in key order. */
  async list(prefix = '', opts: { limit?: number } = {}): Promise<Array<{ key: string; value: T }>> {
    const out: Array<{ key: string; value: T }> = [];
    const range = prefix ? { gte: prefix, lt: `${prefix}\uffff` } : {};
    for await (const [k, v] of this.level.iterator({ ...range, limit: opts.limit ?? -1 })) {
      out.push({ key: k, value: decodeValue(`${this.name}/${k}`, v, this.schema) });
    }
    return out;
  }
}

/** What the engine runs; persisted so a restart resumes the same policy. */
export const engineConfigSchema = z.object({
  policy: z.string().min(1),
  params: z.unknown(),
  dryRun: z.boolean(),
  updatedAtMs: z.number(),
});
export type EngineConfig = z.infer<typeof engineConfigSchema>;

export const policyStateRecordSchema = z.object({
  state: z.unknown(),
  savedAtMs: z.number(),
  cycleId: z.string(),
});
export type PolicyStateRecord = z.infer<typeof policyStateRecordSchema>;

export const rankingSchema = z.object({
  scores: z.record(z.string(), z.number()),
  leastLoadedFirst: z.boolean(),
  /** When it was last sent (the snapshot's time), to send it again before the cluster's TTL lapses. */
  publishedAtMs: z.number().optional(),
});
export type PublishedRanking = z.infer<typeof rankingSchema>;

/**
 * The decisions of a cycle being sent, kept durably from just before the first is sent until
 * their outcomes are journaled: a process killed in between leaves it for the next to account for.
 */
export const planInFlightSchema = z.object({
  cycleId: z.string(),
  policy: z.string(),
  /** When sending began, epoch ms. */
  atMs: z.number(),
  decisions: z.array(z.object({ rule: z.string(), reason: z.string(), action: actionSchema })),
});
export type PlanInFlight = z.infer<typeof planInFlightSchema>;

/** How a policy's state is saved: its dictionaries of entries, and which entries changed. */
export interface StateSave {
  /** Fields of the state saved entry by entry (the policy's `stateEntries`). */
  readonly entryFields?: readonly string[];
  /** Keys changed since the state saved last, by field; undefined: the whole state. */
  readonly changed?: ReadonlyMap<string, ReadonlySet<string>>;
}

type BatchOp =
  { type: 'put'; key: string; value: string; sublevel: ReturnType<Store['rawSub']> } | { type: 'del'; key: string; sublevel: ReturnType<Store['rawSub']> };

/** A policy's entries: keys `<policy>\0<field>\0<key>`. */
const entryRange = (policy: string) => ({ gte: `${policy}\0`, lt: `${policy}\u0001` });

const NAMESPACE_RE = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;

export class Store {
  readonly journal: DecisionJournal;
  private readonly engine: KvNamespace<unknown>;
  private readonly states: KvNamespace<PolicyStateRecord>;
  private readonly stateEntries: ReturnType<Store['rawSub']>;
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly db: Level,
  ) {
    this.engine = new KvNamespace('engine', this.sub('engine'), z.unknown());
    this.states = new KvNamespace('state', this.sub('state'), policyStateRecordSchema);
    this.stateEntries = this.rawSub('state-entries');
    this.journal = new DecisionJournal(this.sub('journal'));
  }

  /** Opens (creating if needed) the store in `dir`. */
  static async open(dir: string): Promise<Store> {
    mkdirSync(dir, { recursive: true });
    const db = new ClassicLevel<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    try {
      await db.open();
    } catch (e) {
      const cause = (e as { cause?: Error }).cause;
      throw new SchedbrainError(`cannot open store in ${dir}: ${cause?.message ?? (e as Error).message}`, { cause: e });
    }
    const store = new Store(dir, db);
    await store.journal.init();
    return store;
  }

  private rawSub(name: string) {
    return this.db.sublevel<string, string>(name, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  }

  private sub(name: string): RawLevel {
    return this.rawSub(name) as unknown as RawLevel;
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.close();
  }

  /**
   * A typed KV namespace for another module (e.g. `store.namespace('bopf.admissions', schema)`).
   * Values are validated with `schema` on write and on read.
   */
  namespace<T>(name: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>): KvNamespace<T> {
    if (!NAMESPACE_RE.test(name)) throw new SchedbrainError(`invalid namespace name "${name}" (letters, digits, . _ -)`);
    return new KvNamespace<T>(
      `kv/${name}`,
      this.db.sublevel('kv').sublevel<string, string>(name, { keyEncoding: 'utf8', valueEncoding: 'utf8' }) as unknown as RawLevel,
      schema,
    );
  }

  async getEngineConfig(): Promise<EngineConfig | undefined> {
    const raw = await this.engine.get('config');
    return raw === undefined ? undefined : decodeValue('engine/config', JSON.stringify(raw), engineConfigSchema);
  }

  async putEngineConfig(c: EngineConfig): Promise<void> {
    await this.engine.put('config', engineConfigSchema.parse(c));
  }

  /**
   * Writes the engine config and a policy's state in one synced batch: a new policy and its
   * initial state land together or not at all.
   */
  async putEngineConfigAndState(c: EngineConfig, policy: string, rec: PolicyStateRecord, save: StateSave = {}): Promise<void> {
    const config = engineConfigSchema.parse(c);
    const ops = await this.policyStateOps(policy, rec, save);
    await this.db.batch([{ type: 'put', key: 'config', value: JSON.stringify(config), sublevel: this.rawSub('engine') }, ...ops], SYNC);
  }

  async getPolicyState(policy: string): Promise<PolicyStateRecord | undefined> {
    const rec = await this.states.get(policy);
    if (rec === undefined) return undefined;
    const state = rec.state as Record<string, Record<string, unknown>> | null;
    for await (const [k, v] of this.stateEntries.iterator(entryRange(policy))) {
      const [, field, key] = k.split('\0');
      if (field === undefined || key === undefined || typeof state !== 'object' || state === null) continue;
      const entries = (state[field] ??= {});
      entries[key] = decodeValue(`state-entries/${k}`, v, z.unknown());
    }
    return rec;
  }

  /**
   * Saves a policy's state in one synced batch. With `entryFields`, each entry of those
   * dictionaries is a value of its own; with `changed` as well (the keys a cycle changed, relative
   * to the state saved last), only those entries are written.
   */
  async putPolicyState(policy: string, rec: PolicyStateRecord, save: StateSave = {}): Promise<void> {
    await this.db.batch(await this.policyStateOps(policy, rec, save), SYNC);
  }

  async delPolicyState(policy: string): Promise<void> {
    const ops: BatchOp[] = [{ type: 'del', key: policy, sublevel: this.rawSub('state') }];
    for await (const k of this.stateEntries.keys(entryRange(policy))) ops.push({ type: 'del', key: k, sublevel: this.stateEntries });
    await this.db.batch(ops, SYNC);
  }

  private async policyStateOps(policy: string, rec: PolicyStateRecord, save: StateSave): Promise<BatchOp[]> {
    const ops: BatchOp[] = [];
    const fields = save.entryFields ?? [];
    const state = rec.state ?? null;
    // Serialised here, so a state that JSON cannot hold fails loudly at save time.
    const head: unknown =
      fields.length > 0 && typeof state === 'object' && state !== null ? { ...state, ...Object.fromEntries(fields.map((f) => [f, {}])) } : state;
    const checked = policyStateRecordSchema.parse({ ...rec, state: null });
    ops.push({ type: 'put', key: policy, value: JSON.stringify({ ...checked, state: head }), sublevel: this.rawSub('state') });
    const entryKey = (field: string, key: string) => `${policy}\0${field}\0${key}`;
    const dict = (field: string) => (state as Record<string, Record<string, unknown> | undefined>)[field] ?? {};
    if (save.changed !== undefined) {
      for (const [field, keys] of save.changed) {
        if (!fields.includes(field)) continue;
        const entries = dict(field);
        for (const key of keys) {
          const entry = entries[key];
          ops.push(
            entry === undefined
              ? { type: 'del', key: entryKey(field, key), sublevel: this.stateEntries }
              : { type: 'put', key: entryKey(field, key), value: JSON.stringify(entry), sublevel: this.stateEntries },
          );
        }
      }
      return ops;
    }
    // A whole state: entries saved before and not in it go.
    for await (const k of this.stateEntries.keys(entryRange(policy))) ops.push({ type: 'del', key: k, sublevel: this.stateEntries });
    for (const field of fields) {
      const entries = dict(field);
      for (const key in entries) ops.push({ type: 'put', key: entryKey(field, key), value: JSON.stringify(entries[key]), sublevel: this.stateEntries });
    }
    return ops;
  }

  async getRanking(): Promise<PublishedRanking | undefined> {
    const raw = await this.engine.get('ranking');
    return raw === undefined ? undefined : decodeValue('engine/ranking', JSON.stringify(raw), rankingSchema);
  }

  async putRanking(r: PublishedRanking): Promise<void> {
    await this.engine.put('ranking', rankingSchema.parse(r));
  }

  async getPlanInFlight(): Promise<PlanInFlight | undefined> {
    const raw = await this.engine.get('plan-in-flight');
    return raw === undefined ? undefined : decodeValue('engine/plan-in-flight', JSON.stringify(raw), planInFlightSchema);
  }

  async putPlanInFlight(p: PlanInFlight): Promise<void> {
    await this.engine.put('plan-in-flight', planInFlightSchema.parse(p));
  }

  async delPlanInFlight(): Promise<void> {
    await this.engine.del('plan-in-flight');
  }
}
