/**
 * Pigeon's parameters on a live cluster, with the paper's values as defaults (Wang et al.,
 * "Pigeon: an Effective Distributed, Hierarchical Datacenter Job Scheduler", SoCC 2019, §3–§5).
 */
import { z } from 'zod';

/**
 * A node the ranking scores at or above this is reserved: the RM plugin's `schedbrain-general`
 * sorting policy never offers it to a queue that names that policy (the shim contract's
 * `x-reserved-score-min`; the Java side's `NodeOrder.RESERVED_SCORE_MIN`).
 */
export const RESERVED_SCORE_MIN = 1_000_000;

/** `inf`, `infinity` (any case) or an integer ≥ 1; Infinity is strict priority. */
const weightSchema = z.preprocess(
  (v) => (typeof v === 'string' && /^(inf|infinity)$/i.test(v.trim()) ? Infinity : v),
  z
    .number()
    .min(1)
    .refine((w) => w === Infinity || Number.isInteger(w), 'an integer ≥ 1 or inf'),
);

const queuePath = z
  .string()
  .min(1)
  .max(255)
  .regex(/^root(\.[A-Za-z0-9_-]+)+$/, 'a full leaf path such as root.pigeon.short');

const nodeId = z.string().min(1).max(255);

export const pigeonParamsSchema = z
  .object({
    /** Leaf for short jobs (Pigeon's high-priority queue, HPQ). */
    shortQueue: queuePath.default('root.pigeon.short'),
    /**
     * Leaf for long jobs (the low-priority queue, LPQ). It must name the RM plugin's
     * `schedbrain-general` node-sorting policy (docs/operator-guide.md, Pigeon): that is what
     * keeps its applications off reserved nodes.
     */
    longQueue: queuePath.default('root.pigeon.long'),
    /**
     * How an application is classed: `queue` (the leaf it was submitted to), `tag` (its
     * `schedbrain.class` tag, `short` or `long`), or `estimate` (its `schedbrain.estimate-ms` tag,
     * the mean task duration, against `cutoffMs`). Without the tag the queue decides.
     */
    classifier: z.enum(['queue', 'tag', 'estimate']).default('queue'),
    /** Short iff the mean task duration is below this (§4: Yahoo's 90.5811 s; Cloudera 272.783 s, Google 1129.532 s). */
    cutoffMs: z.number().positive().max(86_400_000).default(90_581),
    /**
     * Share of the running nodes reserved for short jobs (§3: "no more than 10 %"; §5, the EC2
     * prototype: 10 %). Rounded to whole nodes, at least one and never all when positive.
     */
    reservedPct: z.number().min(0).max(50).default(10),
    /** The reserved nodes by id, instead of `reservedPct` (nodes not running are left out). */
    reservedNodes: z.array(nodeId).max(10_000).optional(),
    /**
     * WFQ weight W: at least one of every W task dispatches is long while long work waits (§3;
     * W = 20 in the paper's simulations, §4). `inf`: strict priority, as on EC2 (§5).
     */
    weight: weightSchema.default(20),
    /**
     * Guarantee of the queue served first, percent of the two leaves' combined guarantee; the
     * other gets the rest. CapacityScheduler serves the leaf furthest below its guarantee first.
     */
    firstCapacityPct: z.number().gt(50).lt(100).default(99),
  })
  .strict()
  .refine((p) => p.shortQueue !== p.longQueue, { message: 'shortQueue and longQueue must differ', path: ['longQueue'] })
  .refine((p) => p.shortQueue.slice(0, p.shortQueue.lastIndexOf('.')) === p.longQueue.slice(0, p.longQueue.lastIndexOf('.')), {
    message: 'shortQueue and longQueue must be siblings (their guarantees are swapped between them)',
    path: ['longQueue'],
  });

export type PigeonParams = z.infer<typeof pigeonParamsSchema>;
