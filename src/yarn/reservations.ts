/**
 * YARN's own ReservationSystem (Rayon, Curino et al.) driven for the `rayon` baseline live: a
 * DARSS workflow (RSL) becomes one reservation whose stages are its jobs in dependency order
 * (`R_ORDER`), placed by the RM's own agent; the jobs then run in it (submitted with its id).
 *
 * Two facts of Hadoop 3.4.1 shape this (`../shared/notes/yarn-facts.md`): the RM's plan follower
 * stops after any scheduler-conf write, so this runs against an RM that gets none; and a
 * reservation queue starts with zero effective resources until something makes the scheduler
 * recompute them, so `nudgeWaitingApps` re-posts a node's unchanged resource while an app waits.
 */
import type { Logger } from 'pino';
import type { NativeReservation, ReservationSystem } from '../core/backend.js';
import { ReservationRefusedError, RmRejectedError } from '../core/errors.js';
import { jobsInOrder, type ResourceUnit, type WorkflowRequest } from '../core/rsl.js';
import type { RmClient } from './client.js';
import type { RmReservation } from './schemas.js';

/** `ReservationRequestInterpreter` ordinals of YARN's REST API. */
const R_ORDER = 2;

export interface ReservationOptions {
  /** The reservable leaf of root (`<name>.reservable = true`). */
  readonly queue: string;
  readonly unit: ResourceUnit;
  /**
   * Each job's stage reserves its tasks plus its ApplicationMaster as one gang for one lease plus
   * this much, ms: the AM holds a container for the whole job.
   */
  readonly amOverheadMs: number;
}

/** YARN's `ReservationSubmissionRequest` as its REST API takes it. */
export interface YarnReservationSubmission {
  queue: string;
  'reservation-id': string;
  'reservation-definition': {
    arrival: number;
    deadline: number;
    'reservation-name': string;
    'reservation-requests': {
      'reservation-request-interpreter': number;
      'reservation-request': { duration: number; 'num-containers': number; 'min-concurrency': number; capability: { memory: number; vCores: number } }[];
    };
  };
}

/**
 * One stage per job in dependency order; each stage a gang of the job's tasks and its AM for one
 * lease (YARN places a gang at once, as the Rayon baseline's rigid per-job skyline does).
 */
export function reservationSubmission(
  w: WorkflowRequest,
  name: string,
  reservationId: string,
  opts: ReservationOptions,
  nowMs: number,
): YarnReservationSubmission {
  if (w.deadlineMs === undefined) throw new ReservationRefusedError(`request ${name} has no deadline: YARN reserves only for deadlines`);
  const stages = jobsInOrder(w).map((j) => {
    const containers = j.tasks + 1;
    return {
      duration: j.leaseMs + opts.amOverheadMs,
      'num-containers': containers,
      'min-concurrency': containers,
      capability: { memory: j.unitsPerTask * opts.unit.memoryMB, vCores: j.unitsPerTask * opts.unit.vcores },
    };
  });
  return {
    queue: opts.queue,
    'reservation-id': reservationId,
    'reservation-definition': {
      arrival: nowMs,
      deadline: w.deadlineMs,
      'reservation-name': name,
      'reservation-requests': { 'reservation-request-interpreter': R_ORDER, 'reservation-request': stages },
    },
  };
}

/** The RM's allocations as [from, to) blocks. */
export function nativeReservation(r: RmReservation, queue: string): NativeReservation {
  const raw = r['resource-allocations'];
  const blocks = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return {
    reservationId: r['reservation-id'],
    queue,
    arrivalMs: r['reservation-definition'].arrival,
    deadlineMs: r['reservation-definition'].deadline,
    allocations: blocks.map((b) => ({ fromMs: b.startTime, toMs: b.endTime, memoryMB: b.resource.memory, vcores: b.resource.vCores })),
  };
}

/** The RM's reservation calls for one reservable queue. */
export class YarnReservations implements ReservationSystem {
  private lastNudgeMs = -Infinity;

  constructor(
    private readonly client: RmClient,
    readonly opts: ReservationOptions,
    private readonly logger?: Logger,
  ) {}

  /** Places `w` through the RM's agent; `ReservationRefusedError` with the RM's reason when it does not fit. */
  get queue(): string {
    return `root.${this.opts.queue}`;
  }

  async reserve(w: WorkflowRequest, name: string, nowMs: number): Promise<NativeReservation> {
    const reservationId = await this.client.newReservation();
    const submission = reservationSubmission(w, name, reservationId, this.opts, nowMs);
    try {
      await this.client.submitReservation(submission);
    } catch (err) {
      if (err instanceof RmRejectedError) throw new ReservationRefusedError(err.message.replace(/^java\.lang\.Exception: /, ''));
      throw err;
    }
    const placed = (await this.list()).find((r) => r.reservationId === reservationId);
    return placed ?? { reservationId, queue: this.queue, arrivalMs: nowMs, deadlineMs: submission['reservation-definition'].deadline, allocations: [] };
  }

  async list(): Promise<NativeReservation[]> {
    return (await this.client.listReservations(this.opts.queue)).map((r) => nativeReservation(r, this.queue));
  }

  async delete(reservationId: string): Promise<void> {
    await this.client.deleteReservation(reservationId);
  }

  /**
   * While an application of the reservable queue waits (ACCEPTED), re-posts one node's unchanged
   * resource, at most every `minIntervalMs`, so the scheduler recomputes the reservation queues'
   * resources. Returns whether it nudged.
   */
  async nudgeWaitingApps(nowMs: number, minIntervalMs = 2000): Promise<boolean> {
    if (nowMs - this.lastNudgeMs < minIntervalMs) return false;
    const waiting = (await this.client.apps({ states: ['ACCEPTED'] })).filter((a) => this.inReservableQueue(a.queue));
    if (waiting.length === 0) return false;
    const node = (await this.client.nodes(['RUNNING'])).find((n) => n.totalResource !== undefined);
    if (node?.totalResource === undefined) return false;
    await this.client.setNodeResource(node.id, { memoryMB: node.totalResource.memory, vcores: node.totalResource.vCores });
    this.lastNudgeMs = nowMs;
    this.logger?.debug({ node: node.id, waiting: waiting.map((a) => a.id) }, 'reservation queues recomputed for waiting apps');
    return true;
  }

  private inReservableQueue(queue: string): boolean {
    const leaf = queue.replace(/^root\./, '');
    return leaf === this.opts.queue || leaf.startsWith(`${this.opts.queue}.`) || leaf.startsWith('reservation_');
  }
}
