/**
 * YARN FIFO baseline: the stock scheduler, untouched. The policy asks for nothing; the
 * ResourceManager (or the simulator's stock allocator) places containers by application
 * priority, then submission order.
 */
import { z } from 'zod';
import { definePolicy } from '../../core/policy.js';

export const fifoParamsSchema = z.object({}).strict();
export type FifoParams = z.infer<typeof fifoParamsSchema>;

const NO_DECISIONS: never[] = [];

export const fifoPolicy = definePolicy<FifoParams, null>({
  name: 'fifo',
  description: 'Stock YARN FIFO: no actions; containers go out by application priority, then submission order.',
  paramsSchema: fifoParamsSchema,
  initialState: () => null,
  decide: ({ state }) => ({ decisions: NO_DECISIONS, state }),
});
