/**
 * Regenerates the sample traces shipped in src/sim/workloads/samples/ (deterministic):
 *   npx tsx bench/gen-samples.ts
 */
import { writeFileSync } from 'node:fs';
import { formatEagleTrace, syntheticTrace } from '../src/sim/workloads/index.js';

const dir = new URL('../src/sim/workloads/samples/', import.meta.url);
const samples: Record<string, { cluster: { nodes: number; cores: number }; jobs: ReturnType<typeof syntheticTrace> }> = {
  // 20 jobs on a small cluster: quick demos and tests.
  tiny: {
    cluster: { nodes: 2, cores: 2 },
    jobs: syntheticTrace({ seed: 7, jobs: 20, meanInterArrivalS: 5, minTasks: 1, maxTasks: 8, minTaskS: 1, maxTaskS: 200 }),
  },
  // 300 heavy-tailed jobs; named "yahoo-like" so the Yahoo short/long cutoff (90.58 s) applies.
  'heavy-tail-yahoo-like': {
    cluster: { nodes: 25, cores: 4 },
    jobs: syntheticTrace({ seed: 11, jobs: 300, meanInterArrivalS: 4, minTasks: 1, maxTasks: 60, minTaskS: 2, maxTaskS: 2000, alpha: 1.1 }),
  },
};
for (const [name, { cluster, jobs }] of Object.entries(samples)) {
  writeFileSync(new URL(`${name}.tr`, dir), formatEagleTrace(jobs, cluster));
  console.log(`${name}.tr: ${jobs.length} jobs, ${jobs.reduce((s, j) => s + j.durationsS.length, 0)} tasks`);
}
