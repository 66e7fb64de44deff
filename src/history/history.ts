/**
 * The cluster's history: ended applications read from the ResourceManager and kept in the store
 * (namespace `history.apps`, keyed by application id, so reading an application again changes
 * nothing), with retention by age and by count. The mark of the last pull (`history.meta`) lets
 * the next one ask the RM only for what ended since.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import { historyRecordSchema, type HistoryRecord } from '../core/history.js';
import type { KvNamespace, Store } from '../store/store.js';
import type { RmAppState } from '../yarn/client.js';
import type { RmAppInfo } from '../yarn/schemas.js';
import { historyRecordOf } from './records.js';
import { requestedFromTasks, type TaskSourceReader } from './sources/tasks.js';

export const HISTORY_NAMESPACE = 'history.apps';
export const HISTORY_META_NAMESPACE = 'history.meta';

const markSchema = z
  .object({
    /** Latest end time (RM clock) among the applications recorded so far, epoch ms. */
    lastFinishedAtMs: z.number().min(0),
    /** When the last successful pull ran (brain clock), epoch ms. */
    pulledAtMs: z.number().min(0),
  })
  .strict();
export type PullMark = z.infer<typeof markSchema>;

export interface RetentionLimits {
  /** Records whose application ended longer ago than this are dropped; 0 keeps any age. */
  readonly maxAgeMs: number;
  /** Past this many records, those that ended earliest are dropped; 0 keeps any number. */
  readonly maxRecords: number;
}

/** The stored history: add (deduplicated), list, prune. */
export class HistoryStore {
  private readonly records: KvNamespace<HistoryRecord>;
  private readonly meta: KvNamespace<PullMark>;

  constructor(store: Store) {
    this.records = store.namespace(HISTORY_NAMESPACE, historyRecordSchema);
    this.meta = store.namespace(HISTORY_META_NAMESPACE, markSchema);
  }

  /** Stores the records not yet known by application id; returns how many were new. */
  async add(records: readonly HistoryRecord[]): Promise<number> {
    let added = 0;
    for (const r of records) {
      // The first record of an application wins: an ended application does not change.
      if ((await this.records.get(r.appId)) !== undefined) continue;
      await this.records.put(r.appId, r);
      added++;
    }
    return added;
  }

  async get(appId: string): Promise<HistoryRecord | undefined> {
    return this.records.get(appId);
  }

  /** Every record, in the order the applications ended (ties by id). */
  async list(): Promise<HistoryRecord[]> {
    const all = (await this.records.list()).map((e) => e.value);
    return all.sort(byFinish);
  }

  async count(): Promise<number> {
    return (await this.records.list()).length;
  }

  async mark(): Promise<PullMark | undefined> {
    return this.meta.get('mark');
  }

  async setMark(m: PullMark): Promise<void> {
    await this.meta.put('mark', m);
  }

  /** Drops records past the age limit, then the earliest-ended past the count limit. */
  async prune(limits: RetentionLimits, nowMs: number): Promise<{ removed: number; kept: number }> {
    const all = await this.list();
    const cutoff = limits.maxAgeMs > 0 ? nowMs - limits.maxAgeMs : -Infinity;
    let keepFrom = all.findIndex((r) => r.finishedAtMs >= cutoff);
    if (keepFrom < 0) keepFrom = all.length;
    if (limits.maxRecords > 0) keepFrom = Math.max(keepFrom, all.length - limits.maxRecords);
    for (const r of all.slice(0, keepFrom)) await this.records.del(r.appId);
    return { removed: keepFrom, kept: all.length - keepFrom };
  }
}

function byFinish(a: HistoryRecord, b: HistoryRecord): number {
  return a.finishedAtMs - b.finishedAtMs || (a.appId < b.appId ? -1 : a.appId > b.appId ? 1 : 0);
}

/** The part of the RM client a pull uses. */
export interface EndedAppsSource {
  apps(filter: { states?: readonly RmAppState[]; finishedSinceMs?: number; deSelects?: readonly string[] }): Promise<RmAppInfo[]>;
}

export interface HistoryPullerOptions {
  readonly source: EndedAppsSource;
  readonly history: HistoryStore;
  readonly logger?: Logger;
  /**
   * Each pull asks again for this long before the latest end it recorded: the RM stamps the end
   * time when the application enters FINAL_SAVING and shows it ended only once the state store
   * has saved it, so an end time can be earlier than one already seen. Re-read ones are deduplicated.
   */
  readonly overlapMs: number;
  /**
   * Applications that ended longer ago are not stored (retention would drop them) and the first
   * pull asks for no further back; 0: everything the RM still keeps.
   */
  readonly maxAgeMs: number;
  /**
   * Servers that know what an application ran (the timeline service, the MapReduce JobHistory
   * server), asked in order for the requested containers the RM no longer lists; a record one of
   * them completes names it in `source` (`rm+timeline`). None: the RM's record as it is.
   */
  readonly taskSources?: readonly TaskSourceReader[];
  readonly now?: () => number;
}

export interface PullResult {
  /** Ended applications the RM listed. */
  readonly listed: number;
  /** Stored for the first time. */
  readonly added: number;
  /** Listed but not recorded: no end time, a value the record refuses, or older than maxAgeMs. */
  readonly skipped: number;
  /** `finishedTimeBegin` asked for, if any. */
  readonly finishedSinceMs?: number;
}

const ENDED: readonly RmAppState[] = ['FINISHED', 'FAILED', 'KILLED'];
// Nothing of these is recorded; leaving them out keeps a large answer small.
const DESELECTS = ['resourceInfo', 'timeouts', 'appNodeLabelExpression', 'amNodeLabelExpression'];

/** Reads what ended since the last pull and stores it. */
export class HistoryPuller {
  private readonly now: () => number;
  private inFlight?: Promise<PullResult>;

  constructor(private readonly opts: HistoryPullerOptions) {
    this.now = opts.now ?? Date.now;
  }

  /**
   * One pull; throws what the RM client throws (RmUnavailableError when it is down), leaving the
   * mark where it was so the next pull asks for the same span again. A pull asked for while one
   * runs is that pull.
   */
  pull(): Promise<PullResult> {
    this.inFlight ??= this.pullOnce().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /** A pull whose failure is logged, never thrown: what a schedule calls. */
  async pullLogged(): Promise<PullResult | undefined> {
    try {
      const r = await this.pull();
      this.opts.logger?.info({ ...r }, 'history pull');
      return r;
    } catch (e) {
      this.opts.logger?.warn({ err: e }, 'history pull failed; the next one asks for the same span again');
      return undefined;
    }
  }

  /** The record with `requested` from the first source that knows the application, else as it was. */
  private async withRequested(r: HistoryRecord, sources: readonly TaskSourceReader[]): Promise<HistoryRecord> {
    for (const s of sources) {
      try {
        const tasks = await s.tasksOf(r);
        const requested = tasks && requestedFromTasks(tasks);
        if (requested) return historyRecordSchema.parse({ ...r, requested, source: `${r.source}+${s.name}` });
        if (tasks) return r;
      } catch (e) {
        this.opts.logger?.warn({ appId: r.appId, source: s.name, err: e }, 'history: task source failed; the record keeps what the RM gave');
      }
    }
    return r;
  }

  private async pullOnce(): Promise<PullResult> {
    const { history, overlapMs, maxAgeMs } = this.opts;
    const startedAt = this.now();
    const horizon = maxAgeMs > 0 ? Math.max(0, startedAt - maxAgeMs) : 0;
    const mark = await history.mark();
    const finishedSinceMs = mark ? Math.max(horizon, mark.lastFinishedAtMs - overlapMs) : maxAgeMs > 0 ? horizon : undefined;
    const apps = await this.opts.source.apps({ states: ENDED, deSelects: DESELECTS, ...(finishedSinceMs !== undefined ? { finishedSinceMs } : {}) });
    const records: HistoryRecord[] = [];
    let skipped = 0;
    for (const app of apps) {
      let r: HistoryRecord | undefined;
      try {
        r = historyRecordOf(app, startedAt);
      } catch (e) {
        this.opts.logger?.warn({ appId: app.id, err: e }, 'history: application not recordable');
      }
      if (r && r.finishedAtMs >= horizon) records.push(r);
      else skipped++;
    }
    if (this.opts.taskSources?.length) {
      for (const [i, r] of records.entries()) {
        // Only records not stored yet: an ended application does not change, so it is asked once.
        if (r.requested || (await history.get(r.appId))) continue;
        records[i] = await this.withRequested(r, this.opts.taskSources);
      }
    }
    const added = await history.add(records);
    const lastFinishedAtMs = records.reduce((m, r) => Math.max(m, r.finishedAtMs), mark?.lastFinishedAtMs ?? 0);
    await history.setMark({ lastFinishedAtMs, pulledAtMs: startedAt });
    return { listed: apps.length, added, skipped, ...(finishedSinceMs !== undefined ? { finishedSinceMs } : {}) };
  }
}
