/**
 * Real YARN test jobs: spawns io.schedbrain.yarn.workload.SubmitJob, which submits a JobMaster
 * ApplicationMaster that runs N task containers on the NodeManagers.
 *
 * Task commands (yarn-adapter/src/main/resources/io/schedbrain/yarn/workload/task.sh):
 * - `sleep`: `sleep <seconds>` of wall time;
 * - `cpu`: a bash busy loop on one core that stops once the task process has consumed `<seconds>`
 *   of its own CPU time, so a suspended (SIGSTOP) or throttled task takes longer in wall time but
 *   does the same work.
 * The AM re-runs tasks whose container the cluster took away (preemption, lost node) and finishes
 * SUCCEEDED when every task exited 0.
 */
import { spawn } from 'node:child_process';
import { SchedbrainError } from '../core/errors.js';
import { JAVA_OPENS, adapterClasspath, ensureAdapterBuilt, findJava } from './adapter-build.js';

export interface JobSpec {
  name: string;
  queue?: string;
  priority?: number;
  /** A reservation of YARN's ReservationSystem to run in (`queue` is then its reservable queue). */
  reservationId?: string;
  /** Sent as application tags `key=value`. YARN lower-cases tags (keys and values). */
  tags?: Record<string, string>;
  containers: number;
  memoryMB?: number;
  vcores?: number;
  command: { kind: 'sleep' | 'cpu'; seconds: number };
  /** Attempts per task, the first included (default 1): a task whose container failed (a kill by signal) runs again until then. */
  taskAttempts?: number;
  /** Resolve only when the app reached FINISHED, FAILED or KILLED. */
  wait?: boolean;
  /** AM container memory (default 256 MB). */
  amMemoryMB?: number;
  /** Submitting user (simple auth: HADOOP_USER_NAME). */
  user?: string;
}

export interface SubmittedJob {
  appId: string;
  /** YarnApplicationState when `wait` was set: FINISHED | FAILED | KILLED. */
  finalState?: string;
  /** FinalApplicationStatus when `wait` was set: SUCCEEDED | FAILED | KILLED | UNDEFINED. */
  finalStatus?: string;
  diagnostics?: string;
}

export class JobSubmitError extends SchedbrainError {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(stderr ? `${message}\n${stderr.split('\n').slice(-30).join('\n')}` : message);
  }
}

export function submitJobArgs(confDir: string, job: JobSpec): string[] {
  if (!Number.isInteger(job.containers) || job.containers < 1) {
    throw new JobSubmitError(`containers must be a positive integer, got ${job.containers}`, '');
  }
  const args = [
    '--conf-dir',
    confDir,
    '--name',
    job.name,
    '--containers',
    String(job.containers),
    '--command',
    `${job.command.kind}:${Math.round(job.command.seconds)}`,
  ];
  if (job.queue !== undefined) args.push('--queue', job.queue);
  if (job.priority !== undefined) args.push('--priority', String(job.priority));
  if (job.memoryMB !== undefined) args.push('--memory-mb', String(job.memoryMB));
  if (job.vcores !== undefined) args.push('--vcores', String(job.vcores));
  if (job.amMemoryMB !== undefined) args.push('--am-memory-mb', String(job.amMemoryMB));
  if (job.taskAttempts !== undefined) args.push('--task-attempts', String(job.taskAttempts));
  if (job.reservationId !== undefined) args.push('--reservation-id', job.reservationId);
  for (const [k, v] of Object.entries(job.tags ?? {})) args.push(`--tag=${k}=${v}`);
  if (job.wait) args.push('--wait');
  return args;
}

export async function submitJob(confDir: string, job: JobSpec): Promise<SubmittedJob> {
  await ensureAdapterBuilt(undefined, { ifMissing: true });
  const args = [...JAVA_OPENS, '-Xmx256m', '-cp', adapterClasspath(), 'io.schedbrain.yarn.workload.SubmitJob'];
  args.push(...submitJobArgs(confDir, job));
  const env = { ...process.env };
  if (job.user) env.HADOOP_USER_NAME = job.user;
  return new Promise<SubmittedJob>((resolvePromise, reject) => {
    const child = spawn(findJava(), args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => reject(new JobSubmitError(`cannot run ${findJava()}: ${e.message}`, '')));
    child.on('exit', (code) => {
      const lines = stdout
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.startsWith('{'));
      if (code !== 0 || lines.length === 0) {
        reject(new JobSubmitError(`SubmitJob exited with ${code}`, stderr));
        return;
      }
      try {
        const last = JSON.parse(lines[lines.length - 1]) as SubmittedJob;
        resolvePromise(last);
      } catch (e) {
        reject(new JobSubmitError(`SubmitJob printed bad JSON: ${(e as Error).message}`, stdout));
      }
    });
  });
}
