/**
 * Zod schemas of the admin API: requests are validated with them, and the OpenAPI document is
 * generated from them (src/api/openapi.ts), so the two cannot disagree.
 */
import { z } from 'zod';
import { actionSchema } from '../core/actions.js';
import { DECISION_RESULTS, journalEntrySchema, SKIP_REASONS } from '../store/journal.js';

export const errorBody = z
  .object({
    error: z.enum([
      'bad_request',
      'unauthorized',
      'forbidden',
      'not_found',
      'rm_unavailable',
      'conflict',
      'payload_too_large',
      'unsupported_media_type',
      'internal',
    ]),
    /** Dotted path of the offending field (`params.targets.root.a.capacityPct`), for bad_request. */
    field: z.string().optional(),
    reason: z.string(),
  })
  .describe('Error');

const resources = z.object({ memoryMB: z.number().int(), vcores: z.number().int() }).describe('Resources');

// ---- requests ----

export const putPolicyBody = z
  .object({
    name: z.string().min(1).describe('Registered policy name'),
    params: z.unknown().optional().describe("Policy parameters, validated by the policy's schema"),
    dryRun: z.boolean().optional().describe('Discard every statement (decide and journal, never write); unchanged when omitted'),
  })
  .strict()
  .describe('PutPolicyRequest');

export const dryRunBody = z
  .object({
    name: z.string().min(1).optional().describe('Policy to try (default: the running one)'),
    params: z.unknown().optional().describe('Parameters to try (default: the running ones when name is omitted)'),
  })
  .strict()
  .describe('DryRunRequest');

/** `since` accepts epoch milliseconds or an ISO-8601 date-time. */
const sinceParam = z
  .string()
  .transform((s, ctx) => {
    const n = /^\d+$/.test(s) ? Number(s) : Date.parse(s);
    if (!Number.isFinite(n)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'expected epoch milliseconds or an ISO-8601 date-time' });
      return z.NEVER;
    }
    return n;
  })
  .describe('Only entries at or after this time: epoch milliseconds or ISO-8601');

export const decisionsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).default(100).describe('At most this many entries'),
    order: z.enum(['desc', 'asc']).default('desc').describe('desc: newest first; asc: oldest first (page forward with since)'),
    since: sinceParam.optional(),
    policy: z.string().min(1).optional().describe('Only entries of this policy'),
    cycle: z.string().min(1).optional().describe('Only entries of this cycle id'),
  })
  .strict();

export const snapshotQuery = z
  .object({
    parts: z
      .enum(['policy', 'all'])
      .default('policy')
      .describe(
        "policy: what the running policy reads, from the engine's last read (no RM request while it is fresh); all: nodes, apps and containers too, read from the RM now when the engine's read lacks them",
      ),
  })
  .strict();

// ---- responses ----

export const livezBody = z.object({ status: z.literal('alive'), running: z.boolean() }).describe('Liveness');

export const leadershipBody = z
  .object({
    role: z.enum(['leader', 'standby']).describe('standby: another brain leads; this one plans and journals, writes nothing'),
    epoch: z.number().int().min(0).describe("The leader's epoch (0: no leader known); it only grows from one leader to the next"),
    holder: z.string().nullable().describe('The leader'),
  })
  .describe('Leadership');

export const healthBody = z
  .object({
    status: z
      .enum(['ok', 'degraded', 'down', 'starting', 'stale'])
      .describe('down: the RM is unreachable; stale: no good snapshot for staleAfterPeriods periods; degraded: the last cycle failed'),
    staleReason: z.string().optional(),
    capabilities: z
      .object({
        queueWrites: z.boolean(),
        containerSuspend: z.boolean(),
        nodeRanking: z.boolean(),
        notes: z.array(z.string()),
        leadership: leadershipBody.optional(),
      })
      .nullable()
      .describe('What the backend can do, as of the last cycle (null before it), and whether this brain may write (leadership, under a leader election)'),
    leadership: leadershipBody.nullable().describe('Who leads, under a leader election (null: none, this brain always writes)'),
    rmReachable: z.boolean().nullable(),
    rmError: z.string().optional(),
    lastCycle: z
      .object({ cycleId: z.string(), outcome: z.enum(['ok', 'rm_unavailable', 'policy_error', 'error']), atMs: z.number(), error: z.string().optional() })
      .nullable(),
    lastCycleOk: z.boolean().nullable(),
    advisory: z.boolean().nullable().describe('true when the backend cannot write queues: decisions are journaled only'),
    advisoryReason: z.string().optional(),
    dryRun: z.boolean(),
    policy: z.string(),
    running: z.boolean(),
    consecutiveRmFailures: z.number().int(),
    lastSnapshotAtMs: z.number().nullable(),
    nextCycleAtMs: z.number().nullable(),
  })
  .describe('Health');

export const policyBody = z
  .object({
    name: z.string(),
    description: z.string(),
    params: z.unknown(),
    dryRun: z.boolean(),
    updatedAtMs: z.number(),
    registered: z.array(z.object({ name: z.string(), description: z.string() })),
  })
  .describe('PolicyConfig');

export const policyStateBody = z
  .object({ policy: z.string(), state: z.unknown(), savedAtMs: z.number().nullable(), savedByCycle: z.string().nullable() })
  .describe('PolicyState');

export const journalEntry = journalEntrySchema.describe('JournalEntry');

export const decisionsBody = z.object({ entries: z.array(journalEntry) }).describe('Decisions');

export const plannedDecision = z
  .object({
    policy: z.string(),
    rule: z.string(),
    reason: z.string(),
    action: actionSchema.optional(),
    requestedAction: actionSchema.optional(),
    result: z.enum(DECISION_RESULTS),
    skipReason: z.enum(SKIP_REASONS).optional(),
    detail: z.string().optional(),
    error: z.string().optional(),
  })
  .describe('PlannedDecision');

export const dryRunResponse = z
  .object({
    cycleId: z.string(),
    policy: z.string(),
    params: z.unknown(),
    snapshotAtMs: z.number(),
    outcome: z.enum(['ok', 'policy_error']),
    advisory: z.boolean(),
    decisions: z.array(plannedDecision),
    notes: z.array(z.string()),
    error: z.string().optional(),
  })
  .describe('DryRunResult');

export const nodeView = z
  .object({
    id: z.string(),
    state: z.string(),
    rack: z.string(),
    capacity: resources,
    physicalCapacity: resources,
    used: resources,
    containerIds: z.array(z.string()),
  })
  .describe('Node');

export const appView = z
  .object({
    id: z.string(),
    name: z.string(),
    user: z.string(),
    queue: z.string(),
    state: z.string(),
    priority: z.number(),
    submittedAtMs: z.number(),
    startedAtMs: z.number().optional(),
    pendingContainers: z.number(),
    pendingContainerResource: resources.optional(),
    runningContainers: z.number(),
    allocated: resources,
    tags: z.record(z.string(), z.string()),
  })
  .describe('App');

export const containerView = z
  .object({
    id: z.string(),
    appId: z.string(),
    nodeId: z.string(),
    resource: resources,
    state: z.enum(['RUNNING', 'SUSPENDED']),
    startedAtMs: z.number(),
    attainedServiceMs: z.number().optional(),
    runningSinceMs: z.number().optional(),
  })
  .describe('Container');

export interface QueueJson {
  path: string;
  name: string;
  state: string;
  capacityPct: number;
  maxCapacityPct: number;
  absoluteCapacityPct: number;
  absoluteMaxCapacityPct: number;
  usedCapacityPct: number;
  used: { memoryMB: number; vcores: number };
  numApplications: number;
  children: QueueJson[];
}

export const queueView: z.ZodType<QueueJson> = z
  .object({
    path: z.string(),
    name: z.string(),
    state: z.string(),
    capacityPct: z.number(),
    maxCapacityPct: z.number(),
    absoluteCapacityPct: z.number(),
    absoluteMaxCapacityPct: z.number(),
    usedCapacityPct: z.number(),
    used: resources,
    numApplications: z.number(),
    children: z.array(z.lazy(() => queueView)),
  })
  .describe('Queue');

export const snapshotBody = z
  .object({
    nowMs: z.number(),
    totalCapacity: resources,
    nodes: z.array(nodeView),
    apps: z.array(appView),
    containers: z.array(containerView),
    rootQueue: queueView,
    parts: z
      .array(z.enum(['nodes', 'apps', 'containers']))
      .optional()
      .describe('what was read besides the queues and the total capacity, when not everything: the running policy reads only these (a part not read is empty)'),
    changedNodeIds: z.array(z.string()).optional(),
    changedAppIds: z.array(z.string()).optional(),
    ageMs: z.number().optional().describe('how long ago the cluster was read, ms'),
  })
  .describe('Snapshot');

export const setPolicyResponse = policyBody;

export const stateBody = z
  .object({
    atMs: z.number(),
    service: z.record(z.string(), z.unknown()).describe('configuration with secrets redacted, shim lease holder'),
    engine: z.record(z.string(), z.unknown()).describe('as /healthz reports it, with leadership'),
    policy: z.record(z.string(), z.unknown()).describe('name, parameters, dry-run, size of its state and a summary of its ledgers'),
    backend: z.record(z.string(), z.unknown()).describe('recorded physical capacities, over-committed nodes, published ranking'),
  })
  .describe('ServiceState');
