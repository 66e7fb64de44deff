/**
 * The decision journal: one entry per decision a policy made (whatever became of it), plus
 * cycle-level entries (a policy that threw); alike skips of a cycle, and a decision that changes
 * nothing repeated cycle after cycle, share one entry with a count. Keys order entries by time
 * then by a sequence number, so "latest N" and "since T" are range scans.
 */
import { z } from 'zod';
import { actionSchema, rankedNodeLists } from '../core/actions.js';
import { decodeValue, type RawLevel } from './codec.js';

export const DECISION_RESULTS = ['applied', 'noop', 'dryRun', 'skipped', 'failed'] as const;
export type DecisionResult = (typeof DECISION_RESULTS)[number];

/** Why a decision was not sent (result `skipped`). */
export const SKIP_REASONS = ['limit', 'advisory', 'unsupported', 'duplicate', 'superseded', 'invariant', 'drift'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const journalEntrySchema = z.object({
  /** Journal key (time + sequence); stable id of the entry. */
  id: z.string(),
  /** When the entry was written, epoch ms. */
  timeMs: z.number(),
  cycleId: z.string(),
  policy: z.string(),
  /** Rule responsible: the policy's rule, or `engine.*` for entries the engine made itself. */
  rule: z.string(),
  /** The action as sent (after any clamp); absent for cycle-level entries. */
  action: actionSchema.optional(),
  /** The action as the policy asked for it, when the engine changed it (clamp). */
  requestedAction: actionSchema.optional(),
  reason: z.string(),
  result: z.enum(DECISION_RESULTS),
  skipReason: z.enum(SKIP_REASONS).optional(),
  /** Extra explanation from the engine (clamp, advisory, backend detail). */
  detail: z.string().optional(),
  error: z.string().optional(),
  /**
   * Decisions this entry stands for, when alike skips of one cycle were folded into it (same
   * policy, rule, skip reason, detail and action kind; `action` and `reason` are the first one's).
   * Absent: one decision.
   */
  count: z.number().int().min(2).optional(),
  /**
   * Later cycles that made this same decision again (`foldUnchanged`): they were not journaled
   * again, this entry was updated instead. Absent: no later cycle repeated it.
   */
  repeats: z.number().int().min(1).optional(),
  /** With `repeats`: the last cycle that made this decision, and when (epoch ms). */
  lastCycleId: z.string().optional(),
  lastTimeMs: z.number().optional(),
  /**
   * A large node ranking journaled by what changed: `action` lists only the scores that differ
   * from those of entry `base`'s action (a whole ranking of the same policy and rule); `unchanged`
   * scores are as there. Once `base` is pruned, the changed scores alone remain.
   */
  rankingBase: z.object({ base: z.string(), unchanged: z.number().int().min(1) }).optional(),
});
export type JournalEntry = z.infer<typeof journalEntrySchema>;
export type NewJournalEntry = Omit<JournalEntry, 'id' | 'timeMs'>;

/** Alike skips of one cycle are folded from this many on (fewer are each worth seeing). */
export const FOLD_SKIPS_FROM = 10;

/**
 * One cycle's entries with each group of at least `from` alike skips folded into its first
 * entry, which carries the group's `count`: a policy that asks for every node of a large cluster
 * while a per-cycle limit holds would otherwise journal thousands of `skipped: limit` per cycle.
 */
export function foldRepeatedSkips(entries: readonly NewJournalEntry[], from = FOLD_SKIPS_FROM): NewJournalEntry[] {
  const keyOf = (e: NewJournalEntry): string | undefined =>
    e.result === 'skipped' && e.count === undefined ? `${e.policy}\0${e.rule}\0${e.skipReason ?? ''}\0${e.detail ?? ''}\0${e.action?.kind ?? ''}` : undefined;
  // Each entry's key made once (tens of thousands of skips a cycle at 10,000 nodes in dry-run).
  const keys = new Array<string | undefined>(entries.length);
  const sizes = new Map<string, number>();
  let folds = false;
  for (let i = 0; i < entries.length; i++) {
    const k = (keys[i] = keyOf(entries[i]!));
    if (k === undefined) continue;
    const n = (sizes.get(k) ?? 0) + 1;
    sizes.set(k, n);
    if (n >= from) folds = true;
  }
  if (!folds) return [...entries];
  const out: NewJournalEntry[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const k = keys[i];
    const n = k === undefined ? 0 : sizes.get(k)!;
    if (k === undefined || n < from) out.push(e);
    else if (!seen.has(k)) {
      seen.add(k);
      out.push({ ...e, count: n, reason: `${e.reason} (and ${n - 1} more ${e.rule} decisions skipped alike this cycle)` });
    }
  }
  return out;
}

/**
 * Results that leave the cluster as it was. A decision with one of them, identical to one of the
 * previous cycle's, is not journaled again (`appendCycle`); `applied` and `failed` are events (a
 * write, an attempted write) and are always journaled.
 */
export const UNCHANGED_FOLDABLE_RESULTS: ReadonlySet<DecisionResult> = new Set<DecisionResult>(['noop', 'skipped', 'dryRun']);

/** Everything that makes two decisions the same one: target (in the action), rule, outcome and explanation. */
function decisionIdentity(e: NewJournalEntry): string {
  return JSON.stringify([e.policy, e.rule, e.result, e.skipReason, e.detail, e.reason, e.error, e.count, e.action, e.requestedAction, e.rankingBase]);
}

/** A whole node ranking of at least this many scores is journaled as a delta against the last whole one. */
export const RANKING_DELTA_MIN_SCORES = 64;

/** A ranking that changed more than this share of its base's scores is journaled whole (and becomes the base). */
export const RANKING_DELTA_MAX_CHANGED = 0.25;

/** A whole ranking journaled, as the next ones are told against it: each node's place in `values`. */
interface RankingBase {
  readonly id: string;
  readonly leastLoadedFirst: boolean;
  readonly at: ReadonlyMap<string, number>;
  readonly values: readonly number[];
  /** Per node, the last `told` it was seen at (a node listed twice is not a change of score). */
  readonly seen: Uint32Array;
  told: number;
}

function rankingBaseOf(id: string, a: RankNodes): RankingBase | undefined {
  const { nodeIds, values } = rankedNodeLists(a);
  if (nodeIds.length < RANKING_DELTA_MIN_SCORES) return undefined;
  const at = new Map<string, number>();
  for (let i = 0; i < nodeIds.length; i++) at.set(nodeIds[i]!, i);
  return { id, leastLoadedFirst: a.leastLoadedFirst, at, values: values.slice(), seen: new Uint32Array(nodeIds.length), told: 0 };
}

/**
 * The entry's ranking as changes against `base` (a whole ranking journaled earlier), or undefined
 * when it is not a whole ranking, or differs too much (or lists other nodes) to be told so. Read
 * from the action's lists: the dictionary of a whole ranking is made only when it is written whole.
 */
function rankingDelta(e: NewJournalEntry, base: RankingBase | undefined): NewJournalEntry | undefined {
  const a = e.action;
  if (base === undefined || a?.kind !== 'rankNodes' || a.partial || a.leastLoadedFirst !== base.leastLoadedFirst) return undefined;
  const { nodeIds, values } = rankedNodeLists(a);
  // A node of the base missing here, or one it does not list, cannot be told as a change of score.
  if (nodeIds.length !== base.values.length) return undefined;
  const told = ++base.told;
  const limit = Math.floor(base.values.length * RANKING_DELTA_MAX_CHANGED);
  const changed = Object.create(null) as Record<string, number>;
  let changedCount = 0;
  for (let i = 0; i < nodeIds.length; i++) {
    const j = base.at.get(nodeIds[i]!);
    if (j === undefined || base.seen[j] === told) return undefined;
    base.seen[j] = told;
    const v = values[i]!;
    if (base.values[j] === v) continue;
    if (++changedCount > limit) return undefined;
    changed[nodeIds[i]!] = v;
  }
  return {
    ...e,
    action: { kind: 'rankNodes', scores: changed, leastLoadedFirst: a.leastLoadedFirst, partial: true },
    rankingBase: { base: base.id, unchanged: nodeIds.length - changedCount },
  };
}

type RankNodes = Extract<NonNullable<NewJournalEntry['action']>, { kind: 'rankNodes' }>;

/** Default size limit of the journal (256 MiB; docs/decisions.md). */
export const DEFAULT_JOURNAL_MAX_BYTES = 256 * 1024 * 1024;

/** A size-limited journal is pruned down to this fraction of its limit, so one pass makes room for many cycles. */
export const PRUNE_TO_FRACTION = 0.9;

const DELETE_BATCH = 10_000;

export interface JournalQuery {
  /** At most this many entries. Default 100. */
  limit?: number;
  /** `desc` (default): newest first; `asc`: oldest first (page forward with `sinceMs`). */
  order?: 'asc' | 'desc';
  /** Only entries at or after this time (epoch ms). */
  sinceMs?: number;
  /** Only entries of this policy. */
  policy?: string;
  /** Only entries of this cycle: made by it, or made earlier and repeated unchanged by it last. */
  cycleId?: string;
}

const TIME_DIGITS = 13; // epoch ms fits in 13 decimal digits until the year 2286
const SEQ_DIGITS = 9;

function timeKey(ms: number): string {
  return String(Math.max(0, Math.floor(ms))).padStart(TIME_DIGITS, '0');
}

/** What a size limit left: entries removed, and the journal's size after (bytes, as `sizeBytes`). */
export interface SizePruneResult {
  readonly removed: number;
  readonly bytes: number;
}

export class DecisionJournal {
  private lastTimeMs = 0;
  private seq = 0;
  /** Prefix LevelDB stores before each key of this sublevel (counted in the size). */
  private readonly prefixBytes: number;
  /** Bytes of the stored entries (see `sizeBytes`); undefined until first measured. */
  private bytes: number | undefined;
  /** Bytes written since the last measurement began, so a write during the scan is not lost (one the scan saw too counts twice: pruned a little early). */
  private bytesSinceMeasure = 0;
  /**
   * The previous cycle's foldable decisions (`appendCycle`), by identity and occurrence: the
   * stored entry each repeat updates, and its stored size. These entries describe the current
   * state, so neither retention removes them.
   */
  private lastCycle = new Map<string, { entry: JournalEntry; bytes: number }>();
  private liveIds = new Set<string>();
  /** Per policy and rule, the last large whole ranking journaled: what the next is journaled against (`rankingDelta`). */
  private rankingBases = new Map<string, RankingBase>();

  constructor(private readonly level: RawLevel) {
    this.prefixBytes = Buffer.byteLength(level.prefixKey('', 'utf8'));
  }

  /** Reads the last key so keys stay monotonic across restarts. */
  async init(): Promise<void> {
    for await (const [k] of this.level.iterator({ reverse: true, limit: 1 })) {
      const [t, s] = k.split('.');
      this.lastTimeMs = Number(t);
      this.seq = Number(s);
    }
  }

  private entryBytes(key: string, value: string): number {
    return this.prefixBytes + Buffer.byteLength(key) + Buffer.byteLength(value);
  }

  private grow(delta: number): void {
    if (this.bytes !== undefined) this.bytes += delta;
    this.bytesSinceMeasure += delta;
  }

  /**
   * The journal's size: the UTF-8 bytes of every stored key (with its sublevel prefix) and value,
   * as handed to LevelDB. This is the data's own size, exact and independent of compaction;
   * on disk LevelDB compresses it (Snappy) and keeps deleted entries until a compaction drops
   * them (docs/decisions.md). Measured by one scan the first time, then kept up to date.
   */
  async sizeBytes(): Promise<number> {
    if (this.bytes !== undefined) return this.bytes;
    this.bytesSinceMeasure = 0;
    let scanned = 0;
    for await (const [k, v] of this.level.iterator({})) scanned += this.entryBytes(k, v);
    this.bytes = scanned + this.bytesSinceMeasure;
    return this.bytes;
  }

  private nextKey(nowMs: number): { key: string; timeMs: number } {
    // Never go backwards, even if the wall clock does.
    const t = Math.max(Math.floor(nowMs), this.lastTimeMs);
    this.seq = t === this.lastTimeMs ? this.seq + 1 : 0;
    this.lastTimeMs = t;
    return { key: `${timeKey(t)}.${String(this.seq).padStart(SEQ_DIGITS, '0')}`, timeMs: t };
  }

  /** Appends entries atomically (one synced batch); returns them with their ids. */
  async append(nowMs: number, entries: readonly NewJournalEntry[]): Promise<JournalEntry[]> {
    if (entries.length === 0) return [];
    const out: JournalEntry[] = [];
    for (const e of entries) {
      const { key, timeMs } = this.nextKey(nowMs);
      out.push(journalEntrySchema.parse({ ...e, id: key, timeMs }));
    }
    const values = out.map((e) => JSON.stringify(e));
    await this.level.batch(
      out.map((e, i) => ({ type: 'put' as const, key: e.id, value: values[i] })),
      { sync: true },
    );
    this.grow(out.reduce((n, e, i) => n + this.entryBytes(e.id, values[i]), 0));
    return out;
  }

  /**
   * Appends one cycle's decisions. A decision that changes nothing (`UNCHANGED_FOLDABLE_RESULTS`)
   * and is identical to one of the previous cycle's is not written again: the entry that first
   * recorded it gets `repeats` + 1 and this cycle as `lastCycleId` / `lastTimeMs`, in the same
   * synced batch. A decision that changes, stops or comes back is journaled anew. Call it for
   * every cycle that decided, with no entries too, so that "previous" means the last one.
   * Returns one entry per decision, in order: new ones, or the updated entry a repeat folded into.
   */
  async appendCycle(nowMs: number, entries: readonly NewJournalEntry[]): Promise<JournalEntry[]> {
    const timeMs = Math.max(Math.floor(nowMs), this.lastTimeMs);
    const current = new Map<string, { entry: JournalEntry; bytes: number }>();
    const occurrences = new Map<string, number>();
    const out: JournalEntry[] = [];
    const puts: Array<{ key: string; value: string; identity?: string }> = [];
    let delta = 0;
    for (const given of entries) {
      // A large ranking is told as its changes against the last whole one, and known by them.
      const baseKey = `${given.policy}\0${given.rule}`;
      const e = rankingDelta(given, this.rankingBases.get(baseKey)) ?? given;
      let identity: string | undefined;
      if (UNCHANGED_FOLDABLE_RESULTS.has(e.result)) {
        const base = decisionIdentity(e);
        const n = occurrences.get(base) ?? 0;
        occurrences.set(base, n + 1);
        identity = `${base}\0${n}`;
        const prev = this.lastCycle.get(identity);
        if (prev) {
          const entry: JournalEntry = { ...prev.entry, repeats: (prev.entry.repeats ?? 0) + 1, lastCycleId: e.cycleId, lastTimeMs: timeMs };
          const value = JSON.stringify(entry);
          const bytes = this.entryBytes(entry.id, value);
          delta += bytes - prev.bytes;
          current.set(identity, { entry, bytes });
          puts.push({ key: entry.id, value });
          out.push(entry);
          continue;
        }
      }
      const { key } = this.nextKey(nowMs);
      const entry = journalEntrySchema.parse({ ...e, id: key, timeMs: this.lastTimeMs });
      if (e.rankingBase === undefined && e.action?.kind === 'rankNodes' && !e.action.partial) {
        const base = rankingBaseOf(key, e.action);
        if (base) this.rankingBases.set(baseKey, base);
      }
      const value = JSON.stringify(entry);
      const bytes = this.entryBytes(key, value);
      delta += bytes;
      if (identity !== undefined) current.set(identity, { entry, bytes });
      puts.push({ key, value });
      out.push(entry);
    }
    if (puts.length > 0)
      await this.level.batch(
        puts.map((p) => ({ type: 'put' as const, key: p.key, value: p.value })),
        { sync: true },
      );
    this.grow(delta);
    this.lastCycle = current;
    // The bases the last cycle's rankings are told against stay with them.
    this.liveIds = new Set([...current.values()].map((r) => r.entry.id));
    for (const r of current.values()) if (r.entry.rankingBase) this.liveIds.add(r.entry.rankingBase.base);
    return out;
  }

  /** Newest first unless `order: 'asc'`. */
  async query(q: JournalQuery = {}): Promise<JournalEntry[]> {
    const limit = q.limit ?? 100;
    const out: JournalEntry[] = [];
    if (limit <= 0) return out;
    const range = q.sinceMs !== undefined ? { gte: timeKey(q.sinceMs) } : {};
    for await (const [k, v] of this.level.iterator({ ...range, reverse: q.order !== 'asc' })) {
      const e = decodeValue(`journal/${k}`, v, journalEntrySchema);
      if (q.policy !== undefined && e.policy !== q.policy) continue;
      if (q.cycleId !== undefined && e.cycleId !== q.cycleId && e.lastCycleId !== q.cycleId) continue;
      out.push(e);
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * Deletes entries older than `beforeMs`; returns how many. Entries the last cycle repeated
   * are kept: they explain the current state however old their first time.
   */
  async prune(beforeMs: number): Promise<number> {
    const doomed: Array<[string, number]> = [];
    for await (const [k, v] of this.level.iterator({ lt: timeKey(beforeMs) })) if (!this.liveIds.has(k)) doomed.push([k, this.entryBytes(k, v)]);
    await this.deleteAll(doomed);
    return doomed.length;
  }

  /**
   * Keeps the journal within `maxBytes` (as `sizeBytes` counts): once over, the oldest entries
   * are deleted until it is at `PRUNE_TO_FRACTION` of the limit. Entries the last cycle repeated
   * are kept. Cheap when under the limit (the size is kept in memory after a first scan).
   */
  async pruneToBytes(maxBytes: number): Promise<SizePruneResult> {
    const size = await this.sizeBytes();
    if (size <= maxBytes) return { removed: 0, bytes: size };
    const target = Math.floor(maxBytes * PRUNE_TO_FRACTION);
    const doomed: Array<[string, number]> = [];
    let left = size;
    for await (const [k, v] of this.level.iterator({})) {
      if (left <= target) break;
      if (this.liveIds.has(k)) continue;
      const bytes = this.entryBytes(k, v);
      doomed.push([k, bytes]);
      left -= bytes;
    }
    await this.deleteAll(doomed);
    return { removed: doomed.length, bytes: this.bytes ?? left };
  }

  private async deleteAll(doomed: ReadonlyArray<readonly [string, number]>): Promise<void> {
    for (let i = 0; i < doomed.length; i += DELETE_BATCH) {
      const part = doomed.slice(i, i + DELETE_BATCH);
      await this.level.batch(
        part.map(([key]) => ({ type: 'del' as const, key })),
        { sync: true },
      );
      this.grow(-part.reduce((n, [, b]) => n + b, 0));
    }
  }
}
