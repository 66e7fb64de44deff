/**
 * `kairos-paper`: the one 100-job sequence behind the Kairos paper's Fig. 4-7, replayed from the
 * authors' job file (epfl-labos/kairos c0fd6ca, `extra-files/workloads/generated_workload_kairos`,
 * shipped unchanged as `samples/kairos-paper.jobs`).
 *
 * One job a line, whitespace-separated: seconds to sleep before submitting the job, number of
 * reduces, queue, input data set, output path, extra work per record in map and reduce. The input
 * names the category (`256mb-small` with `0 0`: 1, with `500 500`: 2; `256mb-medium`: 3;
 * `256mb-mediumlong`: 4; `1gb-long`: 5); maps, durations and classes are the generator's
 * (`kairosJob`), so the two differ only in the draw: 31/31/33/2/3 jobs, integer gaps.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { JobSpec, Workload } from '../workload.js';
import { KAIROS_CATEGORIES, KAIROS_CLUSTER, kairosJob, type KairosWorkloadOptions } from './kairos.js';

/** The shipped job file (also when running from a compiled `dist/`). */
export function kairosPaperJobFile(): string {
  const here = fileURLToPath(new URL('./samples/kairos-paper.jobs', import.meta.url));
  if (existsSync(here)) return here;
  return fileURLToPath(new URL('../../../../src/sim/workloads/samples/kairos-paper.jobs', import.meta.url));
}

/** Table 1 category of a line's input data set and extra work per record. */
function categoryOf(input: string, mapWork: string, line: number): number {
  if (input.endsWith('256mb-small')) return mapWork === '0' ? 1 : 2;
  if (input.endsWith('256mb-medium')) return 3;
  if (input.endsWith('256mb-mediumlong')) return 4;
  if (input.endsWith('1gb-long')) return 5;
  throw new Error(`kairos-paper job file, line ${line}: unknown input ${input}`);
}

/** The jobs of a job file's text (`seed` and `taskJitter` do not apply: the sequence is fixed). */
export function parseKairosPaperJobs(text: string, o: KairosWorkloadOptions = {}): JobSpec[] {
  const jobs: JobSpec[] = [];
  let tMs = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const f = lines[i].trim().split(/\s+/);
    if (f.length === 1 && f[0] === '') continue;
    if (f.length !== 7) throw new Error(`kairos-paper job file, line ${i + 1}: expected 7 fields, got ${f.length}`);
    const sleepS = Number(f[0]);
    if (!(Number.isInteger(sleepS) && sleepS >= 0)) throw new Error(`kairos-paper job file, line ${i + 1}: bad sleep ${f[0]}`);
    const cat = KAIROS_CATEGORIES[categoryOf(f[3], f[5], i + 1) - 1];
    if (Number(f[1]) !== cat.reduces) throw new Error(`kairos-paper job file, line ${i + 1}: ${f[1]} reduces, category ${cat.id} has ${cat.reduces}`);
    tMs += sleepS * 1000;
    jobs.push(kairosJob(cat, tMs, `job${jobs.length + 1}-c${cat.id}`, cat.id <= 3, { ...o, taskJitter: 0 }));
    if (o.jobs !== undefined && jobs.length >= o.jobs) break;
  }
  return jobs;
}

export function kairosPaperWorkload(o: KairosWorkloadOptions = {}): Workload {
  const jobs = parseKairosPaperJobs(readFileSync(kairosPaperJobFile(), 'utf8'), o);
  // Big-C's split as on the heavy workload: categories 1-3 short (§5.1).
  return { name: 'kairos-paper', jobs, cluster: KAIROS_CLUSTER, cutoffMs: 130_000 };
}
