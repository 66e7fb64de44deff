export {
  threeSigmaPolicy,
  describeApp,
  deadlineOf,
  startPlannedNow,
  deferToPlannedStart,
  deprioritiseWithoutUtility,
  keepRunning,
  preemptForPlan,
  preferredNodesOf,
  POLICY_NAME,
  type ThreeSigmaState,
  type TrackedJob,
  type LastPlan,
} from './policy.js';
export { threeSigmaParamsSchema, SLO_DEADLINE_TAG, PREFERRED_NODES_TAG, SLOWDOWN_TAG, type ThreeSigmaParams } from './params.js';
export {
  emptyPredictor,
  learnRuntime,
  predictRuntime,
  expertTable,
  predictorParamsSchema,
  ESTIMATORS,
  type Prediction,
  type PredictorState,
  type PredictorParams,
  type Estimator,
  type ExpertScore,
} from './predictor.js';
export { featureKeys, normaliseName, type JobDescription } from './features.js';
export {
  planCycle,
  handlesOverestimate,
  extendUnderestimate,
  remainingRuntime,
  expectedUse,
  utilityCurveOf,
  startSlices,
  type CyclePlan,
  type Placement,
  type PlanNodes,
  type PreferredNodes,
  type JobPlan,
  type JobToPlan,
  type RunningJobToPlan,
  type RunningPlan,
} from './plan.js';
export { solverAvailability } from './milp.js';
export type { RuntimeDistribution } from './distribution.js';
export { warmPredictor, jobOfRecord, type WarmOptions, type WarmResult } from './warm.js';
export {
  liveParamsSchema,
  isHeld,
  taggedTasks,
  describedForRun,
  runsForPlan,
  liveDemand,
  releaseToRunQueue,
  suspendForPlan,
  returnToHoldQueue,
  runOnLeftoverCapacity,
  TASKS_TAG,
  MAX_TAGGED_TASKS,
  type LiveParams,
} from './live.js';
