/**
 * The history's schedule: a pull and a retention pass on cron expressions from the config file
 * (`history.pullCron`, `history.retentionCron`). Unlike the engine's loop these are wall-clock
 * chores ("every 5 minutes", "nightly"), so cron fits them (docs/decisions.md). A failed run is
 * logged and the next tick tries again; nothing here throws into the process.
 */
import { schedule, validate, type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import type { HistoryPuller, HistoryStore, RetentionLimits } from './history.js';

export interface HistoryScheduleOptions {
  readonly pullCron: string;
  readonly retentionCron: string;
  readonly puller: HistoryPuller;
  readonly history: HistoryStore;
  readonly retention: RetentionLimits;
  readonly logger?: Logger;
  /** Cron time zone (default the process's). */
  readonly timezone?: string;
  readonly now?: () => number;
}

export interface HistorySchedule {
  /** Runs the pull now (as a tick would); never throws. */
  pullNow(): Promise<unknown>;
  /** Runs the retention pass now (as a tick would); never throws. */
  pruneNow(): Promise<unknown>;
  /** Stops both schedules and waits for a run in progress. */
  stop(): Promise<void>;
}

/** True when node-cron accepts the expression (five or six fields). */
export function isValidCron(expr: string): boolean {
  return validate(expr);
}

export function startHistorySchedule(o: HistoryScheduleOptions): HistorySchedule {
  const now = o.now ?? Date.now;
  const running = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    running.add(p);
    void p.finally(() => running.delete(p));
    return p;
  };
  const prune = async () => {
    try {
      const r = await o.history.prune(o.retention, now());
      if (r.removed > 0) o.logger?.info({ ...r }, 'history retention');
      return r;
    } catch (e) {
      o.logger?.warn({ err: e }, 'history retention failed; the next tick tries again');
      return undefined;
    }
  };
  const pullNow = () => track(o.puller.pullLogged());
  const pruneNow = () => track(prune());
  // noOverlap: a tick that comes while the previous run is still going is skipped, not queued.
  const options = { noOverlap: true, ...(o.timezone ? { timezone: o.timezone } : {}) };
  const tasks: ScheduledTask[] = [
    schedule(o.pullCron, () => pullNow(), { ...options, name: 'history-pull' }),
    schedule(o.retentionCron, () => pruneNow(), { ...options, name: 'history-retention' }),
  ];
  return {
    pullNow,
    pruneNow,
    async stop() {
      for (const t of tasks) await t.destroy();
      await Promise.allSettled([...running]);
    },
  };
}
