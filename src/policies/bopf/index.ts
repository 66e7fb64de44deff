export { bopfPolicy, makeBopfPolicy, bopfParamsSchema, bookSchema, type BopfParams, type BopfState } from './policy.js';
export { nbopfPolicy } from './nbopf.js';
export { AdmissionControl, admitAll, burstRate, type AdmissionBook, type AdmissionDecision, type AdmittedQueue, type ConditionCheck } from './admission.js';
export { resolveDemand, quantile, normalQuantile } from './alpha.js';
export { allocate, type AllocQueue, type QueueAllocation, type Mode } from '../shared/queues/allocate.js';
export { planCapacities, largestRemainder, capacityDecision } from '../shared/queues/capacities.js';
export { queueSpecSchema, type QueueSpec, type AdmissionClass, type Variant } from './spec.js';
