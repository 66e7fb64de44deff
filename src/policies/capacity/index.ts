/**
 * YARN CapacityScheduler as configured, without admission: the baseline the DARSS thesis calls
 * "YARN" (§4.2.2: two queues per user group, guaranteed in proportion to their known demand,
 * maximum twice the guarantee). The queues are the cluster's (in the simulator, the workload's);
 * the policy asks for nothing, so production work runs whenever its queue is served and may miss
 * its deadline.
 */
import { z } from 'zod';
import { definePolicy } from '../../core/policy.js';

export const capacityParamsSchema = z.object({}).strict();
export type CapacityParams = z.infer<typeof capacityParamsSchema>;

const NO_DECISIONS: never[] = [];

export const capacityPolicy = definePolicy<CapacityParams, null>({
  needs: ['queueWrites'],
  name: 'capacity',
  description: 'Stock YARN CapacityScheduler with the queues as configured (e.g. two per user group), no admission: the brain asks for nothing.',
  paramsSchema: capacityParamsSchema,
  initialState: () => null,
  decide: ({ state }) => ({ decisions: NO_DECISIONS, state }),
});
