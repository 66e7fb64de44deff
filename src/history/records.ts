/**
 * ResourceManager applications → history records (`HistoryRecord`, src/core/history.ts).
 *
 * What the RM tells of an ended application: user, queue, name, type, tags, priority, the
 * submission time (`startedTime`, the RMApp's start), the ApplicationMaster's launch
 * (`launchTime`, 0 when it never launched), the end (`finishedTime`), state and final status, and
 * the aggregate MB·s and vcore·s. It lists only outstanding resource requests, so a finished
 * application's requested containers are usually unknown here (the JobHistory server knows them).
 */
import { HISTORY_RECORD_VERSION, historyRecordSchema, normaliseName, type HistoryOutcome, type HistoryRecord } from '../core/history.js';
import { parseTags } from '../yarn/backend.js';
import type { RmAppInfo } from '../yarn/schemas.js';

export const RM_SOURCE = 'rm';

const ENDED_STATES = new Set(['FINISHED', 'FAILED', 'KILLED'] as const);
type EndedState = HistoryRecord['state'];

/** FAILED and KILLED are the RM's word; a FINISHED application's own final status says the rest. */
export function outcomeOf(state: EndedState, finalStatus: string | undefined): HistoryOutcome {
  if (state === 'KILLED' || finalStatus === 'KILLED') return 'killed';
  if (state === 'FAILED' || finalStatus === 'FAILED') return 'failed';
  return 'succeeded';
}

/**
 * The record of one ended application; undefined for one that has not ended (or whose end time
 * the RM does not give), which a pull skips.
 */
export function historyRecordOf(app: RmAppInfo, recordedAtMs: number): HistoryRecord | undefined {
  if (!ENDED_STATES.has(app.state as EndedState)) return undefined;
  const finishedAtMs = app.finishedTime ?? 0;
  if (!(finishedAtMs > 0)) return undefined;
  const submittedAtMs = Math.max(0, app.startedTime);
  // launchTime is 0 for an application killed or failed before its ApplicationMaster started.
  const launched = app.launchTime !== undefined && app.launchTime > 0 ? app.launchTime : undefined;
  // Only the ANY ("*") request counts containers; node and rack requests repeat the same asks.
  const any = (app.resourceRequests ?? []).filter((r) => r.resourceName === '*' && r.numContainers > 0);
  const largest = any.reduce<(typeof any)[number] | undefined>((b, r) => (!b || r.capability.memory > b.capability.memory ? r : b), undefined);
  const record: HistoryRecord = {
    v: HISTORY_RECORD_VERSION,
    appId: app.id,
    user: app.user,
    queue: app.queue,
    name: app.name,
    nameKey: normaliseName(app.name),
    ...(app.applicationType ? { applicationType: app.applicationType } : {}),
    tags: parseTags(app.applicationTags),
    priority: app.priority ?? 0,
    submittedAtMs,
    submitHourUtc: new Date(submittedAtMs).getUTCHours(),
    ...(launched !== undefined
      ? { launchedAtMs: launched, runtimeMs: Math.max(0, finishedAtMs - launched), waitMs: Math.max(0, launched - submittedAtMs) }
      : {}),
    finishedAtMs,
    state: app.state as EndedState,
    ...(app.finalStatus ? { finalStatus: app.finalStatus } : {}),
    outcome: outcomeOf(app.state as EndedState, app.finalStatus),
    ...(largest
      ? { requested: { containers: any.reduce((n, r) => n + r.numContainers, 0), memoryMB: largest.capability.memory, vcores: largest.capability.vCores } }
      : {}),
    ...(app.memorySeconds !== undefined && app.vcoreSeconds !== undefined && app.memorySeconds >= 0 && app.vcoreSeconds >= 0
      ? { usage: { memoryMBSeconds: app.memorySeconds, vcoreSeconds: app.vcoreSeconds } }
      : {}),
    source: RM_SOURCE,
    recordedAtMs,
  };
  // Validated here so a bad value fails at the source (the pull skips it, naming the application).
  return historyRecordSchema.parse(record);
}
