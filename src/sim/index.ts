/**
 * Public surface of the simulator.
 */
export { simulate, summary, lookupPolicy, type SimulateOptions, type SimulateResult } from './simulate.js';
export {
  Simulator,
  SimNode,
  SimApp,
  SimContainer,
  InvariantError,
  SIM_LIMITS,
  SIM_CAPABILITIES,
  type SimOptions,
  type JobRecord,
  type ActionStats,
} from './engine.js';
export { SimBackend } from './backend.js';
export { createFifoAllocator, fifoAppLess, type Allocator, type AllocatorContext, type AllocatorFactory } from './allocator.js';
export { QueueTree, SimQueue } from './queues.js';
export { Rng } from './rng.js';
export { EventQueue, IndexedHeap, KeyedHeap } from '../core/heap.js';
export {
  cdf,
  cdfSvg,
  cutoffForTrace,
  dist,
  jobMetrics,
  percentile,
  TRACE_CUTOFFS_S,
  type CdfSeries,
  type Dist,
  type JobMetric,
  type Metrics,
} from './metrics.js';
export { criticalPathMs, meanTaskMs, taskCount, type JobSpec, type QueueSpec, type StageSpec, type Workload } from './workload.js';
export * from './workloads/index.js';
