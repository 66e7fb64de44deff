/**
 * Zod schemas for the ResourceManager REST answers we read (Hadoop 3.4 webapp DAOs:
 * ClusterInfo, ClusterMetricsInfo, NodeInfo, CapacitySchedulerInfo / CapacitySchedulerQueueInfo /
 * CapacitySchedulerLeafQueueInfo, AppInfo + ResourceRequestInfo, AppAttemptInfo, ContainerInfo).
 *
 * Only the fields the backend uses are declared, and unknown fields never break parsing: the
 * per-node, per-app and per-container objects (tens of thousands per read) drop them (`.strip()`,
 * cheaper than copying every field the RM sends), the rest keep them (`.passthrough()`). Two
 * Jersey JSON encodings reach us:
 * - the DAOs registered in the RM's JAXBContextResolver use "natural" JSON (real numbers, real
 *   arrays, root element kept: `{"nodes":{"node":[...]}}`), and an empty list is `null`;
 * - other DAOs (e.g. the attempt containers list, the scheduler-conf dump) fall back to Jersey's
 *   default "mapped" JSON, where numbers may be strings and a one-element list is a bare object.
 * The helpers below accept both so one schema serves either.
 */
import { z } from 'zod';
import { arrayOf, FAIL, markFast } from './fast-parse.js';

/** A list that may be `null`/absent (empty), a bare object (one element, mapped JSON) or an array. */
export function list<T extends z.ZodTypeAny>(item: T) {
  const asList = (v: unknown): unknown => (v === null || v === undefined || v === '' ? [] : Array.isArray(v) ? v : [v]);
  const schema = z.preprocess(asList, z.array(item));
  markFast(
    schema,
    (compile) => {
      const each = compile(item);
      return each ? (v) => arrayOf(asList(v), each) : undefined;
    },
    { kind: 'list', item },
  );
  return schema;
}

/** A number that mapped JSON may send as a string. */
const toNumber = (v: unknown): unknown => (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v);
export const num = z.preprocess(toNumber, z.number());
markFast(
  num,
  () => (v) => {
    const n = toNumber(v);
    return typeof n === 'number' && !Number.isNaN(n) ? n : FAIL;
  },
  { kind: 'num' },
);

const optNum = num.optional();

export const resourceInfoSchema = z
  .object({
    memory: num,
    vCores: num,
  })
  .strip();
export type RmResourceInfo = z.infer<typeof resourceInfoSchema>;

// ---- /info -------------------------------------------------------------------------------------

export const clusterInfoSchema = z
  .object({
    id: num,
    startedOn: num,
    state: z.string(),
    haState: z.string().optional(),
    resourceManagerVersion: z.string().optional(),
    hadoopVersion: z.string().optional(),
  })
  .passthrough();
export const clusterInfoResponseSchema = z.object({ clusterInfo: clusterInfoSchema }).passthrough();
export type RmClusterInfo = z.infer<typeof clusterInfoSchema>;

// ---- /metrics ----------------------------------------------------------------------------------

export const clusterMetricsSchema = z
  .object({
    appsSubmitted: num,
    appsPending: num,
    appsRunning: num,
    availableMB: num,
    allocatedMB: num,
    totalMB: num,
    availableVirtualCores: num,
    allocatedVirtualCores: num,
    totalVirtualCores: num,
    containersAllocated: num,
    containersPending: num,
    activeNodes: num,
  })
  .passthrough();
export const clusterMetricsResponseSchema = z.object({ clusterMetrics: clusterMetricsSchema }).passthrough();
export type RmClusterMetrics = z.infer<typeof clusterMetricsSchema>;

// ---- /nodes ------------------------------------------------------------------------------------

export const nodeInfoSchema = z
  .object({
    id: z.string(),
    rack: z.string(),
    state: z.string(),
    nodeHostName: z.string(),
    nodeHTTPAddress: z.string().optional(),
    numContainers: num,
    usedMemoryMB: num,
    availMemoryMB: num,
    usedVirtualCores: num,
    availableVirtualCores: num,
    /** Present since Hadoop 3.3 (YARN-9878); the capacity the RM advertises, over-commit included. */
    totalResource: resourceInfoSchema.optional(),
    usedResource: resourceInfoSchema.optional(),
    availableResource: resourceInfoSchema.optional(),
  })
  .strip();
export type RmNodeInfo = z.infer<typeof nodeInfoSchema>;
export const nodesResponseSchema = z
  .object({
    nodes: z
      .object({ node: list(nodeInfoSchema) })
      .strip()
      .nullable(),
  })
  .strip();
export const nodeResponseSchema = z.object({ node: nodeInfoSchema }).strip();

// ---- /scheduler (CapacityScheduler) ------------------------------------------------------------

export interface RmQueueInfo {
  queueName: string;
  queuePath?: string;
  /** Present on leaf queues only (`capacitySchedulerLeafQueueInfo`). */
  type?: string;
  state?: string;
  capacity: number;
  maxCapacity: number;
  usedCapacity: number;
  absoluteCapacity?: number;
  absoluteMaxCapacity?: number;
  numApplications?: number;
  resourcesUsed?: RmResourceInfo;
  queues?: { queue: RmQueueInfo[] } | null;
  numActiveApplications?: number;
  numPendingApplications?: number;
  numContainers?: number;
  [k: string]: unknown;
}

export const queueInfoSchema: z.ZodType<RmQueueInfo, z.ZodTypeDef, unknown> = z.lazy(() =>
  z
    .object({
      queueName: z.string(),
      queuePath: z.string().optional(),
      type: z.string().optional(),
      state: z.string().optional(),
      capacity: num,
      maxCapacity: num,
      usedCapacity: num,
      absoluteCapacity: optNum,
      absoluteMaxCapacity: optNum,
      numApplications: optNum,
      resourcesUsed: resourceInfoSchema.optional(),
      queues: z
        .object({ queue: list(queueInfoSchema) })
        .passthrough()
        .nullable()
        .optional(),
      numActiveApplications: optNum,
      numPendingApplications: optNum,
      numContainers: optNum,
    })
    .passthrough(),
);

/** The CapacityScheduler root (`CapacitySchedulerInfo`): like a queue, but no state or absolute figures. */
export const capacitySchedulerInfoSchema = z
  .object({
    type: z.literal('capacityScheduler'),
    queueName: z.string(),
    queuePath: z.string().optional(),
    capacity: num,
    maxCapacity: num,
    usedCapacity: num,
    queues: z
      .object({ queue: list(queueInfoSchema) })
      .passthrough()
      .nullable()
      .optional(),
  })
  .passthrough();
export type RmCapacitySchedulerInfo = z.infer<typeof capacitySchedulerInfoSchema>;

export const schedulerResponseSchema = z
  .object({
    scheduler: z
      .object({
        // Other schedulers (fifoScheduler, fairScheduler) have a different `type`; the backend
        // only understands the CapacityScheduler and reports the others as a protocol error.
        schedulerInfo: z.object({ type: z.string() }).passthrough(),
      })
      .passthrough(),
  })
  .passthrough();

// ---- /apps -------------------------------------------------------------------------------------

export const resourceRequestSchema = z
  .object({
    priority: num,
    resourceName: z.string(),
    capability: resourceInfoSchema,
    numContainers: num,
    relaxLocality: z.boolean().optional(),
  })
  .strip();
export type RmResourceRequest = z.infer<typeof resourceRequestSchema>;

export const appInfoSchema = z
  .object({
    id: z.string(),
    user: z.string(),
    name: z.string(),
    queue: z.string(),
    state: z.string(),
    finalStatus: z.string().optional(),
    priority: num.optional(),
    /** Submission time (RMApp start time). */
    startedTime: num,
    /** When the AM container was launched; 0 before. */
    launchTime: optNum,
    finishedTime: optNum,
    /** Comma-separated; YARN lowercases tags on submission. */
    applicationTags: z.string().optional(),
    /** Log link of the current attempt's AM container (names it): a new attempt changes it. */
    amContainerLogs: z.string().optional(),
    applicationType: z.string().optional(),
    runningContainers: optNum,
    allocatedMB: optNum,
    allocatedVCores: optNum,
    resourceRequests: list(resourceRequestSchema).optional(),
    /** Aggregate use over the app's life (MB·s, vcore·s); the history records it for ended apps. */
    memorySeconds: optNum,
    vcoreSeconds: optNum,
  })
  .strip();
export type RmAppInfo = z.infer<typeof appInfoSchema>;
export const appsResponseSchema = z
  .object({
    apps: z
      .object({ app: list(appInfoSchema) })
      .strip()
      .nullable(),
  })
  .strip();
export const appResponseSchema = z.object({ app: appInfoSchema }).strip();
/**
 * The apps list without the aggregate use, which moves at every read of a running app: read so,
 * an app whose view did not change parses to the same object as last time (list-parser.ts).
 */
export const appsWithoutUsageResponseSchema = z
  .object({
    apps: z
      .object({ app: list(appInfoSchema.omit({ memorySeconds: true, vcoreSeconds: true })) })
      .strip()
      .nullable(),
  })
  .strip();

// ---- /apps/{id}/appattempts --------------------------------------------------------------------

export const appAttemptSchema = z
  .object({
    id: num,
    appAttemptId: z.string(),
    startTime: num,
    finishedTime: optNum,
    containerId: z.string().optional(),
    nodeId: z.string().optional(),
    appAttemptState: z.string().optional(),
  })
  .strip();
export type RmAppAttempt = z.infer<typeof appAttemptSchema>;
export const appAttemptsResponseSchema = z
  .object({
    appAttempts: z
      .object({ appAttempt: list(appAttemptSchema) })
      .strip()
      .nullable(),
  })
  .strip();

// ---- /apps/{id}/appattempts/{attempt}/containers -----------------------------------------------

export const containerInfoSchema = z
  .object({
    containerId: z.string(),
    allocatedMB: num,
    allocatedVCores: num,
    assignedNodeId: z.string().optional(),
    nodeId: z.string().optional(),
    priority: optNum,
    startedTime: num,
    finishedTime: optNum,
    containerState: z.string(),
  })
  .strip();
export type RmContainerInfo = z.infer<typeof containerInfoSchema>;
/** `ContainersInfo` is not in the RM's natural-JSON list: accept the wrapped and the bare forms. */
export const containersResponseSchema = z
  .union([
    z
      .object({
        containers: z
          .object({ container: list(containerInfoSchema) })
          .strip()
          .nullable(),
      })
      .strip(),
    z.object({ container: list(containerInfoSchema) }).strip(),
  ])
  .transform((v): RmContainerInfo[] =>
    'containers' in v ? ((v.containers as { container: RmContainerInfo[] } | null)?.container ?? []) : (v.container as RmContainerInfo[]),
  );

// ---- /scheduler-conf ---------------------------------------------------------------------------

export const confPropertySchema = z.object({ name: z.string(), value: z.union([z.string(), z.number(), z.boolean()]).nullable().optional() }).passthrough();
/** `ConfInfo`: root `configuration` with `property` entries (wrapped or not, depending on JSON mode). */
type ConfProperty = z.infer<typeof confPropertySchema>;
export const schedulerConfResponseSchema = z
  .union([
    z
      .object({
        configuration: z
          .object({ property: list(confPropertySchema) })
          .passthrough()
          .nullable(),
      })
      .passthrough(),
    z.object({ property: list(confPropertySchema) }).passthrough(),
  ])
  .transform((v): ConfProperty[] =>
    'configuration' in v ? ((v.configuration as { property: ConfProperty[] } | null)?.property ?? []) : (v.property as ConfProperty[]),
  );

export const schedulerConfVersionResponseSchema = z
  .union([z.object({ configVersion: z.object({ versionID: num }).passthrough() }).passthrough(), z.object({ versionID: num }).passthrough()])
  .transform((v): number => ('configVersion' in v ? (v.configVersion as { versionID: number }).versionID : (v.versionID as number)));

// ---- errors ------------------------------------------------------------------------------------

export const remoteExceptionSchema = z
  .object({
    RemoteException: z
      .object({ exception: z.string().optional(), message: z.string().nullable().optional(), javaClassName: z.string().optional() })
      .passthrough(),
  })
  .passthrough();

/** `"a.b.0.c: Expected number, received string"` for the first issue, so operators see the field. */
export function describeZodError(err: z.ZodError): string {
  return err.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

// ---- ReservationSystem: numbers come back as strings; one item is an object, not a list ----

export const newReservationSchema = z.object({ 'reservation-id': z.string().min(1) });
const numeric = z.union([z.number(), z.string()]).transform(Number);
const reservationAllocationSchema = z.object({ startTime: numeric, endTime: numeric, resource: z.object({ memory: numeric, vCores: numeric }) });
export const reservationSchema = z.object({
  'reservation-id': z.string(),
  'acceptance-time': numeric.optional(),
  user: z.string().optional(),
  'resource-allocations': z.union([reservationAllocationSchema, z.array(reservationAllocationSchema)]).optional(),
  'reservation-definition': z.object({ arrival: numeric, deadline: numeric, 'reservation-name': z.string().optional() }),
});
export type RmReservation = z.infer<typeof reservationSchema>;
export const reservationListSchema = z.object({ reservations: z.union([reservationSchema, z.array(reservationSchema)]).nullish() });
