/**
 * The features 3σPredict groups a job's history by (§4.1): attributes of the job as submitted, and
 * combinations of them. Each feature value is a key such as `user=alice` or `name=etl-#`; the
 * key `all` groups every job and is the fallback for a job whose other values were never seen.
 */
// One normaliser for the predictor and the recorded history, so their name keys always match.
import { normaliseName } from '../../core/history.js';

export { normaliseName };

/** What is known of a job when it is submitted. */
export interface JobDescription {
  readonly user: string;
  readonly queue: string;
  readonly name: string;
  /** YARN application type (MAPREDUCE, SPARK, …) when known. */
  readonly applicationType?: string;
  readonly tags: Readonly<Record<string, string>>;
  /** Containers asked for at submission (pending plus running); unknown for most recorded history. */
  readonly containers?: number;
  /** Size of one container (both or neither). */
  readonly containerMemoryMB?: number;
  readonly containerVcores?: number;
  readonly submittedAtMs: number;
  readonly priority: number;
}

export const ALL_JOBS = 'all';

/** Tags under this prefix are the brain's own hints (deadlines, estimates), not job attributes. */
const OWN_TAG_PREFIX = 'schedbrain.';

/** The power of two at or above `n` (1 for n ≤ 1): sizes within a factor of two share a value. */
export function powerOfTwoBucket(n: number): number {
  if (!(n > 1)) return 1;
  return 2 ** Math.ceil(Math.log2(n));
}

/** Every feature value of the job, `all` first, in a fixed order. */
export function featureKeys(job: JobDescription): string[] {
  const name = normaliseName(job.name);
  const hour = new Date(job.submittedAtMs).getUTCHours();
  const keys = [ALL_JOBS, `user=${job.user}`, `queue=${job.queue}`, `name=${name}`, `user+name=${job.user}|${name}`];
  // An unknown size is no feature value (not a made-up one every job of unknown size would share).
  if (job.containers !== undefined) keys.push(`tasks=${powerOfTwoBucket(job.containers)}`);
  if (job.containerMemoryMB !== undefined && job.containerVcores !== undefined)
    keys.push(`container=${powerOfTwoBucket(job.containerMemoryMB)}MB/${job.containerVcores}vc`);
  keys.push(`hour=${hour}`, `user+hour=${job.user}|${hour}`, `priority=${job.priority}`);
  if (job.applicationType) keys.push(`type=${job.applicationType}`);
  for (const k of Object.keys(job.tags).sort()) {
    if (k.startsWith(OWN_TAG_PREFIX)) continue;
    keys.push(`tag:${k}=${normaliseName(job.tags[k])}`);
  }
  return keys;
}
