export { darssPolicy, darssParamsSchema, darssRequestSchema, judgeRequest, invalidRequest, capacityChanged, holdUntil, productionQueueCapacity, preemptAtLatestStart, timeToDeadlineOrder, rejectUnadmittedProduction, productionLeaf, clusterUnits, admissionParams, REQUEST_TAG, JOB_TAG, type DarssParams, type DarssState, type DarssRequest, type AdmittedJob, type AdmittedRequest } from './policy.js';
export {
  admitWorkflow,
  bestEffortRequest,
  bestEffortQuota,
  productionCap,
  unreservedUnitMs,
  countOnlyAdmission,
  criticalPathAdmission,
  criticalPathLongerThanTimeLeft,
  groupAverageShareCap,
  groupShareCap,
  maxWindowIntegral,
  releaseBooking,
  emptyLedger,
  copyLedger,
  type AdmissionDecision,
  type AdmissionParams,
  type AdmissionRule,
  type AdmissionTest,
  type Ledger,
  type Piece,
  type QuotaParams,
  type GroupShare,
} from './admission.js';
export { timeToDeadline, ttdList, TtdQueue, type JobDeadlines, type TtdEntry } from './ttd.js';
export { addSteps, valueAt, integral, forEachSegment, emptySteps, maxOn, type StepFunction } from '../shared/step-function.js';
