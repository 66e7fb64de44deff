/**
 * A finished application as history: what was known of it at submission (the features a runtime
 * predictor groups jobs by), how long it ran and how it ended. The history module
 * (`src/history/`) writes these from the ResourceManager; policies read them (3Sigma warms its
 * predictor from them), so the record is part of the contract, not of either side.
 */
import { z } from 'zod';

/** Runs of digits become `#`: `etl-2026-11-24` and `etl-2026-11-25` are the same recurring job. */
export function normaliseName(name: string): string {
  return name.replace(/[0-9]+/g, '#');
}

export const HISTORY_OUTCOMES = ['succeeded', 'failed', 'killed'] as const;
export type HistoryOutcome = (typeof HISTORY_OUTCOMES)[number];

/** Bumped when a field changes meaning; a reader skips or converts records of another version. */
export const HISTORY_RECORD_VERSION = 1;

const nonNegative = z.number().finite().min(0);

export const historyRecordSchema = z
  .object({
    v: z.literal(HISTORY_RECORD_VERSION),
    appId: z.string().min(1),
    user: z.string(),
    queue: z.string(),
    /** The name as submitted. */
    name: z.string(),
    /** `normaliseName(name)`: the key recurring jobs share. */
    nameKey: z.string(),
    applicationType: z.string().optional(),
    /** `k=v` tags as entries, bare tags as `''` (YARN lower-cases them). */
    tags: z.record(z.string(), z.string()),
    priority: z.number().int(),
    /** When the RM accepted the submission, epoch ms. */
    submittedAtMs: nonNegative,
    /** Hour of the day of the submission, UTC (0–23). */
    submitHourUtc: z.number().int().min(0).max(23),
    /** When the ApplicationMaster container was launched, epoch ms; absent when it never was. */
    launchedAtMs: nonNegative.optional(),
    finishedAtMs: nonNegative,
    /**
     * finishedAtMs − launchedAtMs: from the ApplicationMaster's launch to the end, the part of
     * the job's life a scheduler's placement does not decide. Absent when it never launched.
     */
    runtimeMs: nonNegative.optional(),
    /** launchedAtMs − submittedAtMs (queueing before the ApplicationMaster ran). */
    waitMs: nonNegative.optional(),
    /** The RM's terminal state and the application's own final status. */
    state: z.enum(['FINISHED', 'FAILED', 'KILLED']),
    finalStatus: z.string().optional(),
    outcome: z.enum(HISTORY_OUTCOMES),
    /**
     * Containers asked for, with the size of one, when the source says (the RM lists only
     * outstanding requests, so a finished application's record usually has none).
     */
    requested: z
      .object({ containers: z.number().int().min(0), memoryMB: nonNegative, vcores: nonNegative })
      .strict()
      .optional(),
    /** Aggregate use over the application's life (MB·s and vcore·s), as the RM counts it. */
    usage: z.object({ memoryMBSeconds: nonNegative, vcoreSeconds: nonNegative }).strict().optional(),
    /** Where the record came from (`rm`, later the JobHistory or Timeline server). */
    source: z.string().min(1),
    /** When this brain recorded it, epoch ms. */
    recordedAtMs: nonNegative,
  })
  .strict();
export type HistoryRecord = z.infer<typeof historyRecordSchema>;
