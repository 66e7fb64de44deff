import { SimBackend } from '../../src/sim/backend.js';
import type { JobSpec } from '../../src/sim/workload.js';
import { describeBackendConformance } from './backend-conformance.js';

/** A small cluster mid-run: some containers running, some apps still waiting. */
function makeSimBackend(): SimBackend {
  const one = { memoryMB: 1024, vcores: 1 };
  const jobs: JobSpec[] = Array.from({ length: 6 }, (_, i) => ({
    arrivalMs: i * 1000,
    name: `job${i}`,
    stages: [{ resource: i % 2 ? { memoryMB: 2048, vcores: 1 } : one, workMs: [60_000, 90_000, 120_000] }],
  }));
  const b = new SimBackend({ workload: { name: 'conformance', jobs }, nodes: 3, cores: 2, checkInvariants: true });
  b.advance(10_000);
  return b;
}

describeBackendConformance('sim', makeSimBackend, { destructive: true });
