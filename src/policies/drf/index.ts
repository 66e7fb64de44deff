/**
 * DRF across queues (the BoPF paper's fairness baseline): every leaf under `parentQueue` gets
 * its dominant-resource-fair share of what it can use now, stated as CapacityScheduler
 * capacities (elastic up to max-capacity, so idle resources are still used).
 */
import { definePolicy } from '../../core/policy.js';
import { queueShareCycle, shareParamsSchema, type ShareParams } from '../shared/queues/share.js';

export const drfPolicy = definePolicy<ShareParams, Record<string, never>>({
  needs: ['queueWrites'],
  name: 'drf',
  description: 'Dominant Resource Fairness across the leaves of one parent queue (instantaneous fairness).',
  paramsSchema: shareParamsSchema,
  initialState: () => ({}),
  decide({ snapshot, params }) {
    const { decisions, notes } = queueShareCycle(snapshot, params, 'drf', 'drf', () => 'TQ');
    return { decisions, state: {}, notes };
  },
});

export { drfWaterFill, type DrfClaim } from '../shared/queues/drf-waterfill.js';
