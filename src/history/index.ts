export {
  HistoryStore,
  HistoryPuller,
  HISTORY_NAMESPACE,
  HISTORY_META_NAMESPACE,
  type EndedAppsSource,
  type HistoryPullerOptions,
  type PullMark,
  type PullResult,
  type RetentionLimits,
} from './history.js';
export { historyRecordOf, outcomeOf, RM_SOURCE } from './records.js';
export { startHistorySchedule, isValidCron, type HistorySchedule, type HistoryScheduleOptions } from './schedule.js';
export { warmRunningPolicy, type PolicyStateHost } from './warm-policy.js';
