/**
 * Strict Priority (the BoPF paper's latency baseline): latency-sensitive queues take all they can
 * use first (DRF among them), the others share what is left by DRF.
 */
import { z } from 'zod';
import { definePolicy } from '../../core/policy.js';
import { queueShareCycle, shareParamsSchema } from '../shared/queues/share.js';

export const spParamsSchema = shareParamsSchema.extend({
  /** Leaf names of the latency-sensitive queues. */
  latencyQueues: z.array(z.string().min(1)).default([]),
});
export type SpParams = z.infer<typeof spParamsSchema>;

export const spPolicy = definePolicy<SpParams, Record<string, never>>({
  needs: ['queueWrites'],
  name: 'sp',
  description: 'Strict priority: latency-sensitive queues first (DRF among them), then the rest by DRF.',
  paramsSchema: spParamsSchema,
  initialState: () => ({}),
  decide({ snapshot, params }) {
    const lqs = new Set(params.latencyQueues);
    const { decisions, notes } = queueShareCycle(snapshot, params, 'sp', 'sp', (name) => (lqs.has(name) ? 'LQ' : 'TQ'));
    return { decisions, state: {}, notes };
  },
});
