/**
 * The features 3σPredict groups a job's history by (§4.1): attributes of the job as submitted, and
 * combinations of them. Each feature value is a key such as `user=alice` or `name=etl-#`; the
 * key `all` groups every job and is the fallback for a job whose other values were never seen.
 */

/** What is known of a job when it is submitted. */
export interface JobDescription {
  readonly user: string;
  readonly queue: string;
  readonly name: string;
  /** YARN application type (MAPREDUCE, SPARK, …) when known. */
  readonly applicationType?: string;
  readonly tags: Readonly<Record<string, string>>;
  /** Containers asked for at submission (pending plus running). */
  readonly containers: number;
  /** Size of one container. */
  readonly containerMemoryMB: number;
  readonly containerVcores: number;
  readonly submittedAtMs: number;
  readonly priority: number;
}

export const ALL_JOBS = 'all';

/** Tags under this prefix are the brain's own hints (deadlines, estimates), not job attributes. */
const OWN_TAG_PREFIX = 'schedbrain.';

/** Runs of digits become `#`: `etl-2026-11-24` and `etl-2026-11-25` are the same recurring job. */
export function normaliseName(name: string): string {
  return name.replace(/[0-9]+/g, '#');
}

/** The power of two at or above `n` (1 for n ≤ 1): sizes within a factor of two share a value. */
export function powerOfTwoBucket(n: number): number {
  if (!(n > 1)) return 1;
  return 2 ** Math.ceil(Math.log2(n));
}

/** Every feature value of the job, `all` first, in a fixed order. */
export function featureKeys(job: JobDescription): string[] {
  const name = normaliseName(job.name);
  const hour = new Date(job.submittedAtMs).getUTCHours();
  const keys = [
    ALL_JOBS,
    `user=${job.user}`,
    `queue=${job.queue}`,
    `name=${name}`,
    `user+name=${job.user}|${name}`,
    `tasks=${powerOfTwoBucket(job.containers)}`,
    `container=${powerOfTwoBucket(job.containerMemoryMB)}MB/${job.containerVcores}vc`,
    `hour=${hour}`,
    `user+hour=${job.user}|${hour}`,
    `priority=${job.priority}`,
  ];
  if (job.applicationType) keys.push(`type=${job.applicationType}`);
  for (const k of Object.keys(job.tags).sort()) {
    if (k.startsWith(OWN_TAG_PREFIX)) continue;
    keys.push(`tag:${k}=${normaliseName(job.tags[k])}`);
  }
  return keys;
}
