/**
 * What an operator registers for BoPF: latency-sensitive queues (LQ) with their bursts, and
 * throughput-sensitive queues (TQ). One schema for the admin API and the policy parameters.
 *
 * Units are in the field names: a burst's demand is in resource-seconds (vcore·s and MB·s),
 * times and durations in milliseconds.
 */
import { z } from 'zod';

const positive = z.number().finite().positive();
const nonNegative = z.number().finite().nonnegative();

export const demandSchema = z.object({ vcoreSeconds: nonNegative, memoryMBSeconds: nonNegative }).strict();
export type BurstDemand = z.infer<typeof demandSchema>;

/** A per-resource distribution of a burst's demand (resource-seconds). */
export const distributionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('normal'), mean: nonNegative, std: nonNegative }).strict(),
  z.object({ kind: z.literal('uniform'), min: nonNegative, max: nonNegative }).strict(),
  z.object({ kind: z.literal('empirical'), samples: z.array(nonNegative).min(1).max(100_000) }).strict(),
]);
export type DemandDistribution = z.infer<typeof distributionSchema>;

export const demandDistributionSchema = z
  .object({
    vcoreSeconds: distributionSchema,
    memoryMBSeconds: distributionSchema,
    /** How the two resources' demands move together: `independent` (default) or `perfect`. */
    correlation: z.enum(['independent', 'perfect']).default('independent'),
  })
  .strict();

export const queueNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, "-" and "_" only');

export const queueSpecSchema = z
  .object({
    name: queueNameSchema,
    kind: z.enum(['LQ', 'TQ']),
    /** LQ: time between two bursts. */
    periodMs: positive.optional(),
    /** LQ: a burst must finish within this long after it arrives (t_i). */
    burstDeadlineMs: positive.optional(),
    /** LQ: one burst's demand, when known. */
    demand: demandSchema.optional(),
    /** LQ: per-resource demand distributions, turned into a demand by the alpha-strategy. */
    distribution: demandDistributionSchema.optional(),
    /** LQ: fraction of bursts that must meet their deadline (alpha-strategy quantile), in (0,1). */
    alpha: z.number().gt(0).lt(1).optional(),
    /** LQ: arrival time of the first burst (epoch ms). Lets the resource condition use phases. */
    firstArrivalMs: nonNegative.optional(),
  })
  .strict()
  .superRefine((q, ctx) => {
    const need = (field: keyof typeof q, why: string) => ctx.addIssue({ code: z.ZodIssueCode.custom, path: [field], message: why });
    if (q.kind === 'TQ') {
      for (const f of ['periodMs', 'burstDeadlineMs', 'demand', 'distribution', 'alpha', 'firstArrivalMs'] as const) {
        if (q[f] !== undefined) need(f, 'only latency-sensitive queues (LQ) have bursts');
      }
      return;
    }
    if (q.periodMs === undefined) need('periodMs', 'required for an LQ');
    if (q.burstDeadlineMs === undefined) need('burstDeadlineMs', 'required for an LQ');
    if (q.periodMs !== undefined && q.burstDeadlineMs !== undefined && q.burstDeadlineMs > q.periodMs) {
      need('burstDeadlineMs', `must not exceed periodMs (${q.burstDeadlineMs} > ${q.periodMs})`);
    }
    if ((q.demand === undefined) === (q.distribution === undefined)) need('demand', 'give exactly one of demand or distribution');
    if (q.distribution !== undefined && q.alpha === undefined) need('alpha', 'required with a distribution');
    if (q.distribution === undefined && q.alpha !== undefined) need('alpha', 'only meaningful with a distribution');
    if (q.distribution) {
      for (const r of ['vcoreSeconds', 'memoryMBSeconds'] as const) {
        const d = q.distribution[r];
        if (d.kind === 'uniform' && d.max < d.min) need('distribution', `${r}: max must be ≥ min`);
      }
    }
  });

export type QueueSpec = z.infer<typeof queueSpecSchema>;
export type LqSpec = QueueSpec & { kind: 'LQ'; periodMs: number; burstDeadlineMs: number };

export type AdmissionClass = 'hard' | 'soft' | 'elastic' | 'rejected';
export type Variant = 'bopf' | 'nbopf';
