export { pigeonPolicy, POLICY_NAME, classOf, classifyApp, reservedWorkers, reserveWorkers, serveShortFirst, weightedFairQueuing } from './policy.js';
export type { JobClass, PigeonState } from './policy.js';
export { pigeonParamsSchema, RESERVED_SCORE_MIN, type PigeonParams } from './params.js';
