/**
 * The decision journal: one entry per decision a policy made (whatever became of it), plus
 * cycle-level entries (a policy that threw). Keys order entries by time then by a sequence
 * number, so "latest N" and "since T" are range scans.
 */
import { z } from 'zod';
import { actionSchema } from '../core/actions.js';
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
  const sizes = new Map<string, number>();
  for (const e of entries) {
    const k = keyOf(e);
    if (k !== undefined) sizes.set(k, (sizes.get(k) ?? 0) + 1);
  }
  if (![...sizes.values()].some((n) => n >= from)) return [...entries];
  const out: NewJournalEntry[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    const k = keyOf(e);
    const n = k === undefined ? 0 : sizes.get(k)!;
    if (k === undefined || n < from) out.push(e);
    else if (!seen.has(k)) {
      seen.add(k);
      out.push({ ...e, count: n, reason: `${e.reason} (and ${n - 1} more ${e.rule} decisions skipped alike this cycle)` });
    }
  }
  return out;
}

export interface JournalQuery {
  /** At most this many entries. Default 100. */
  limit?: number;
  /** `desc` (default): newest first; `asc`: oldest first (page forward with `sinceMs`). */
  order?: 'asc' | 'desc';
  /** Only entries at or after this time (epoch ms). */
  sinceMs?: number;
  /** Only entries of this policy. */
  policy?: string;
  /** Only entries of this cycle. */
  cycleId?: string;
}

const TIME_DIGITS = 13; // epoch ms fits in 13 decimal digits until the year 2286
const SEQ_DIGITS = 9;

function timeKey(ms: number): string {
  return String(Math.max(0, Math.floor(ms))).padStart(TIME_DIGITS, '0');
}

export class DecisionJournal {
  private lastTimeMs = 0;
  private seq = 0;

  constructor(private readonly level: RawLevel) {}

  /** Reads the last key so keys stay monotonic across restarts. */
  async init(): Promise<void> {
    for await (const [k] of this.level.iterator({ reverse: true, limit: 1 })) {
      const [t, s] = k.split('.');
      this.lastTimeMs = Number(t);
      this.seq = Number(s);
    }
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
    await this.level.batch(
      out.map((e) => ({ type: 'put' as const, key: e.id, value: JSON.stringify(e) })),
      { sync: true },
    );
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
      if (q.cycleId !== undefined && e.cycleId !== q.cycleId) continue;
      out.push(e);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Deletes entries older than `beforeMs`; returns how many. */
  async prune(beforeMs: number): Promise<number> {
    const keys: string[] = [];
    for await (const [k] of this.level.iterator({ lt: timeKey(beforeMs) })) keys.push(k);
    if (keys.length)
      await this.level.batch(
        keys.map((key) => ({ type: 'del' as const, key })),
        { sync: true },
      );
    return keys.length;
  }
}
