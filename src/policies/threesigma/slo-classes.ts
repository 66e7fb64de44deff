/**
 * SLO classes: an operator's rule that makes matching applications SLO jobs (§3.1) without a
 * deadline tag. A class matches on tag, name, user and queue (every given field must match) and
 * gives a deadline, either a fixed time after submission or a slack over the predicted runtime,
 * and the utility of meeting it. The admin API keeps them (`/v1/threesigma/slos`) and hands them
 * to the policy's state; the policy applies them when it first sees an application.
 */
import { z } from 'zod';
import { normaliseName, type JobDescription } from './features.js';

const DAY_MS = 86_400_000;
/** Most classes the policy holds: each new application is matched against every one. */
export const MAX_SLO_CLASSES = 1000;
/** Longest fixed deadline a class gives, ms after submission. */
export const MAX_CLASS_DEADLINE_MS = 30 * DAY_MS;
/** Largest slack a class gives (a deadline at 101 × the predicted runtime). */
export const MAX_CLASS_SLACK = 100;

const matchText = z.string().min(1).max(256);
const ID_RE = /^[A-Za-z0-9._-]+$/;

export const sloMatchSchema = z
  .object({
    /** `key=value` (YARN lower-cases tags: so is this), or `key` for any value. */
    tag: matchText.optional().describe('key=value, or key for any value (YARN lower-cases tags)'),
    /** The application name as submitted, or with its digits as `#` (`etl-#` matches `etl-2026-11-24`). */
    name: matchText.optional().describe('the application name as submitted, or with its digits as # (etl-# matches etl-2026-11-24)'),
    user: matchText.optional(),
    /** The queue as the RM reports the application's (its leaf name on the Capacity Scheduler). */
    queue: matchText.optional().describe("the application's queue as the RM reports it"),
  })
  .strict()
  .refine((m) => m.tag !== undefined || m.name !== undefined || m.user !== undefined || m.queue !== undefined, {
    message: 'give at least one of tag, name, user, queue',
  })
  .describe('every field given must match');

export const sloClassSchema = z
  .object({
    id: z.string().min(1).max(128).regex(ID_RE, 'letters, digits, ".", "-" and "_" only'),
    match: sloMatchSchema,
    /** Deadline = submission + this, ms. */
    deadlineMs: z.number().int().min(1000).max(MAX_CLASS_DEADLINE_MS).optional().describe('deadline = submission + this, ms (give this or slack)'),
    /** Deadline = submission + (1 + slack) × the predicted runtime (the chosen expert's point estimate). */
    slack: z.number().min(0).max(MAX_CLASS_SLACK).optional().describe('deadline = submission + (1 + slack) × the predicted runtime (give this or deadlineMs)'),
    /** Utility of meeting the deadline (the SLO utility of params.slo when omitted). */
    utility: z.number().positive().max(1000).optional().describe("utility of meeting the deadline (default: the policy's slo.utility)"),
  })
  .strict()
  .superRefine((c, ctx) => {
    if ((c.deadlineMs === undefined) === (c.slack === undefined))
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['deadlineMs'], message: 'give exactly one of deadlineMs and slack' });
  });

export type SloClass = z.infer<typeof sloClassSchema>;
export type SloMatch = SloClass['match'];

function tagMatches(tag: string, tags: Readonly<Record<string, string>>): boolean {
  const eq = tag.indexOf('=');
  if (eq < 0) return Object.hasOwn(tags, tag);
  const key = tag.slice(0, eq);
  return Object.hasOwn(tags, key) && tags[key] === tag.slice(eq + 1);
}

/** Whether every field the class gives matches the job. */
export function classMatches(m: SloMatch, job: JobDescription): boolean {
  if (m.user !== undefined && m.user !== job.user) return false;
  if (m.queue !== undefined && m.queue !== job.queue) return false;
  if (m.name !== undefined && m.name !== job.name && m.name !== normaliseName(job.name)) return false;
  if (m.tag !== undefined && !tagMatches(m.tag, job.tags)) return false;
  return true;
}

const fieldsGiven = (m: SloMatch): number => [m.tag, m.name, m.user, m.queue].filter((x) => x !== undefined).length;

/** The class that applies to the job: of those that match, the one naming the most fields (ties: the first id). */
export function sloClassOf(classes: readonly SloClass[] | undefined, job: JobDescription): SloClass | undefined {
  let best: SloClass | undefined;
  for (const c of classes ?? []) {
    if (!classMatches(c.match, job)) continue;
    if (best === undefined || fieldsGiven(c.match) > fieldsGiven(best.match) || (fieldsGiven(c.match) === fieldsGiven(best.match) && c.id < best.id)) best = c;
  }
  return best;
}

/** The deadline a class gives a job submitted at `submittedAtMs` whose runtime is predicted as `predictedRuntimeMs`, epoch ms. */
export function classDeadlineMs(c: SloClass, submittedAtMs: number, predictedRuntimeMs: number): number {
  if (c.deadlineMs !== undefined) return submittedAtMs + c.deadlineMs;
  return submittedAtMs + Math.round((1 + (c.slack ?? 0)) * predictedRuntimeMs);
}
