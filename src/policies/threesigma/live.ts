/**
 * 3Sigma live on YARN (issue #20; design notes §2.2 "Live mapping"). The paper's prototype
 * replaced YARN's scheduler and started a job only when its plan said so; here deferred
 * applications wait in a hold queue (capacity 0, maximum capacity 0: YARN keeps them ACCEPTED,
 * ../shared/notes/yarn-facts.md) and start when a rule moves them into the run queue. A job the
 * plan preempts goes back to the hold queue: its task containers killed (the paper's preemption,
 * its work lost) or suspended by the shim (work kept; resumed when the plan starts it again).
 *
 * YARN knows an application's task requests only once its ApplicationMaster runs, so a held
 * job's size comes from its `schedbrain.tasks` tag (the paper's jobs state their k at submission).
 */
import { z } from 'zod';
import { decisionWithLazyReason, type Decision } from '../../core/actions.js';
import type { AppView, ContainerView } from '../../core/model.js';
import type { Resources } from '../../core/resources.js';
import type { JobDescription } from './features.js';
import type { RunningPlan } from './plan.js';
import type { TrackedJob } from './policy.js';

const POLICY = 'threesigma';

/** Application tag with the number of task containers a job will ask for (besides its ApplicationMaster). */
export const TASKS_TAG = 'schedbrain.tasks';
/** Largest task count read from the tag (a larger value is ignored as a typo, not planned for). */
export const MAX_TAGGED_TASKS = 100_000;

const leafQueuePath = z
  .string()
  .max(255)
  .regex(/^root(\.[A-Za-z0-9_-]+)+$/, 'must be a full leaf queue path such as root.threesigma.hold');

export const liveParamsSchema = z
  .object({
    /** Leaf where deferred applications wait: capacity 0 and maximum-capacity 0 (docs/operator-guide.md, 3Sigma). */
    holdQueue: leafQueuePath,
    /** Leaf an application is moved into when the plan starts it. */
    runQueue: leafQueuePath,
    /** How a job the plan preempts gives up its room: `kill` its task containers (paper), or `suspend` them (the shim). */
    preemption: z.enum(['kill', 'suspend']).default('kill'),
    /** Tag with a job's task containers, for its size while it is held. */
    tasksTag: z.string().min(1).max(255).default(TASKS_TAG),
    /**
     * Held jobs the plan gives no utility: `leftover` releases them when what the plan leaves free
     * now holds them (they run to the end on capacity nobody values, as priorities let them);
     * `never` keeps them held (the paper's plan never starts them).
     */
    withoutUtility: z.enum(['leftover', 'never']).default('leftover'),
  })
  .strict()
  .refine((l) => l.holdQueue !== l.runQueue, { path: ['runQueue'], message: 'must differ from holdQueue' });

export type LiveParams = z.infer<typeof liveParamsSchema>;

const leafOf = (path: string): string => path.slice(path.lastIndexOf('.') + 1);
/** The RM names a queue by its path or (older answers) by its leaf name. */
const inQueue = (app: AppView, path: string): boolean => app.queue === path || app.queue === leafOf(path);

/** The application waits in the hold queue. */
export function isHeld(app: AppView, live: LiveParams): boolean {
  return inQueue(app, live.holdQueue);
}

/** Task containers the application's tag announces; undefined without a usable one. */
export function taggedTasks(app: AppView, live: LiveParams): number | undefined {
  const raw = app.tags[live.tasksTag];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= MAX_TAGGED_TASKS ? n : undefined;
}

/**
 * What is known of a job first seen in the hold queue: it is described as the run queue's (where
 * it runs and the history records it, so both speak of the same queue), with its tagged tasks.
 */
export function describedForRun(d: JobDescription, app: AppView, live: LiveParams): JobDescription {
  if (!isHeld(app, live)) return d;
  const tasks = taggedTasks(app, live);
  return { ...d, queue: live.runQueue, ...(tasks !== undefined ? { containers: tasks } : {}) };
}

/**
 * Whether the plan counts the application as running: out of the hold queue and either holding
 * task containers or released by the plan (its ApplicationMaster may still be starting). Anything
 * in the hold queue waits, whatever it still holds (a preempted job being killed or suspended).
 */
export function runsForPlan(app: AppView, job: TrackedJob, taskContainers: number, live: LiveParams): boolean {
  if (isHeld(app, live)) return false;
  return taskContainers > 0 || job.releasedAtMs !== undefined;
}

/**
 * The room a job needs while it runs: what it holds and asks for, and at least its tagged tasks
 * plus its ApplicationMaster, each of the size it asks for (before its ApplicationMaster runs,
 * YARN shows only the ApplicationMaster's request).
 */
export function liveDemand(app: AppView, live: LiveParams): Resources {
  const size = app.pendingContainerResource;
  const asked = {
    memoryMB: app.allocated.memoryMB + (size ? size.memoryMB * app.pendingContainers : 0),
    vcores: app.allocated.vcores + (size ? size.vcores * app.pendingContainers : 0),
  };
  const tasks = taggedTasks(app, live);
  const unit =
    size ??
    (app.runningContainers > 0
      ? { memoryMB: app.allocated.memoryMB / app.runningContainers, vcores: app.allocated.vcores / app.runningContainers }
      : undefined);
  if (tasks === undefined || !unit) return asked;
  return { memoryMB: Math.max(asked.memoryMB, (tasks + 1) * unit.memoryMB), vcores: Math.max(asked.vcores, (tasks + 1) * unit.vcores) };
}

/** The plan starts a held job now: it moves to the run queue (and its suspended tasks resume). */
export function releaseToRunQueue(app: AppView, job: TrackedJob, tasks: readonly ContainerView[], live: LiveParams, now: number): Decision[] {
  job.releasedAtMs = now;
  const suspended = tasks.filter((c) => c.state === 'SUSPENDED');
  const out: Decision[] = [
    decisionWithLazyReason(
      { kind: 'moveApp', appId: app.id, queue: live.runQueue },
      POLICY,
      'releaseToRunQueue',
      () => `plan starts it now: from ${live.holdQueue} to ${live.runQueue}`,
    ),
  ];
  for (const c of suspended)
    out.push(
      decisionWithLazyReason(
        { kind: 'resumeContainer', containerId: c.id, nodeId: c.nodeId },
        POLICY,
        'releaseToRunQueue',
        () => `plan starts it again: its task suspended on ${c.nodeId} resumes`,
      ),
    );
  return out;
}

/**
 * A held job the plan gives no utility starts on what the plan leaves free now (its priority,
 * the lowest, is set by `deprioritiseWithoutUtility`).
 */
export function runOnLeftoverCapacity(app: AppView, job: TrackedJob, live: LiveParams, now: number): Decision {
  job.releasedAtMs = now;
  return decisionWithLazyReason(
    { kind: 'moveApp', appId: app.id, queue: live.runQueue },
    POLICY,
    'runOnLeftoverCapacity',
    () =>
      `no start in the plan-ahead window earns anything; the plan leaves room for it now: from ${live.holdQueue} to ${live.runQueue}, behind every other job`,
  );
}

/** §4.3.5 with `preemption: 'suspend'`: the preempted job's running tasks stop where they are (the shim), work kept. */
export function suspendForPlan(app: AppView, job: TrackedJob, plan: RunningPlan, tasks: readonly ContainerView[], defer: number): Decision[] {
  const why = `preempted by the plan (cost ${(plan.preemptionCost ?? 0).toFixed(3)} below what it frees for others)`;
  const out: Decision[] = tasks
    .filter((c) => c.state === 'RUNNING')
    .map((c) =>
      decisionWithLazyReason(
        { kind: 'suspendContainer', containerId: c.id, nodeId: c.nodeId },
        POLICY,
        'suspendForPlan',
        () => `${why}: task on ${c.nodeId} suspended`,
      ),
    );
  out.push(decisionWithLazyReason({ kind: 'setAppPriority', appId: app.id, priority: defer }, POLICY, 'suspendForPlan', () => `${why}: waits again`));
  job.releasedAtMs = undefined;
  return out;
}

/** A preempted job waits in the hold queue again, so YARN gives it no new task container until the plan releases it. */
export function returnToHoldQueue(app: AppView, job: TrackedJob, live: LiveParams): Decision {
  job.releasedAtMs = undefined;
  return decisionWithLazyReason(
    { kind: 'moveApp', appId: app.id, queue: live.holdQueue },
    POLICY,
    'returnToHoldQueue',
    () =>
      `preempted by the plan (${live.preemption === 'kill' ? 'its task containers killed' : 'its tasks suspended'}): back to ${live.holdQueue} until the plan starts it again`,
  );
}
