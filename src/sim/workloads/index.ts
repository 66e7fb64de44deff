/**
 * Workload names the simulator understands:
 * - `kairos-heavy`, `kairos-uniform`: the Kairos paper's Table 1 workloads (seeded);
 * - `kairos-paper`: the authors' own 100-job sequence (fixed);
 * - `sample:NAME`: a trace shipped in `src/sim/workloads/samples/NAME.tr`;
 * - any path to an Eagle-format trace file (`*.tr`), or to a recorded trace (`schedbrain record`, JSON lines).
 */
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Workload } from '../workload.js';
import { loadEagleTrace, type EagleOptions } from './eagle.js';
import { kairosWorkload, type KairosWorkloadOptions } from './kairos.js';
import { kairosPaperWorkload } from './kairos-paper.js';
import { isRecordedTrace, loadRecordedTrace } from './recorded.js';

export { KAIROS_CATEGORIES, KAIROS_CLUSTER, KAIROS_CONTAINER, categoryTaskMs, kairosJob, kairosWorkload } from './kairos.js';
export { kairosPaperWorkload } from './kairos-paper.js';
export { formatEagleTrace, loadEagleTrace, parseEagleTrace, TraceFormatError } from './eagle.js';
export { syntheticTrace } from './synthetic.js';

export const BUILTIN_WORKLOADS = ['kairos-heavy', 'kairos-uniform', 'kairos-paper'] as const;

export interface ResolveOptions extends KairosWorkloadOptions, EagleOptions {}

/** Directory of the shipped sample traces (also when running from a compiled `dist/`). */
export function samplesDir(): string {
  const here = fileURLToPath(new URL('./samples/', import.meta.url));
  if (existsSync(here)) return here;
  return fileURLToPath(new URL('../../../../src/sim/workloads/samples/', import.meta.url));
}

export function sampleNames(): string[] {
  try {
    return readdirSync(samplesDir())
      .filter((f) => f.endsWith('.tr'))
      .map((f) => f.slice(0, -3))
      .sort();
  } catch {
    return [];
  }
}

export function resolveWorkload(spec: string, o: ResolveOptions = {}): Workload {
  if (spec === 'kairos-heavy') return kairosWorkload('heavy', o);
  if (spec === 'kairos-uniform') return kairosWorkload('uniform', o);
  if (spec === 'kairos-paper') return kairosPaperWorkload(o);
  if (spec.startsWith('sample:')) {
    const name = spec.slice(7);
    if (!sampleNames().includes(name)) throw new Error(`unknown sample ${name}; available: ${sampleNames().join(', ') || 'none'}`);
    return loadEagleTrace(`${samplesDir()}${name}.tr`, o);
  }
  // A recorded trace (`schedbrain record`) starts with its JSON header; anything else is Eagle's format.
  if (existsSync(spec)) return isRecordedTrace(spec) ? loadRecordedTrace(spec, { maxJobs: o.maxJobs }) : loadEagleTrace(spec, o);
  throw new Error(`unknown workload ${spec}: expected ${BUILTIN_WORKLOADS.join(', ')}, sample:NAME (${sampleNames().join(', ')}) or a trace file path`);
}
