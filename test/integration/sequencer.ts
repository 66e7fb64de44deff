/**
 * A fixed order for the integration files, which share one cluster: by path, or reversed with
 * SCHEDBRAIN_IT_ORDER=reverse (each file must pass whatever ran before it). Unit and conformance
 * files keep vitest's own order (longest first, for parallel workers).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class IntegrationOrderSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const integration = sorted.filter((f) => f.project.name === 'integration').sort((a, b) => a.moduleId.localeCompare(b.moduleId));
    const order = process.env.SCHEDBRAIN_IT_ORDER ?? 'path';
    if (order === 'reverse') integration.reverse();
    else if (order !== 'path') throw new Error(`SCHEDBRAIN_IT_ORDER must be 'path' or 'reverse', not '${order}'`);
    return [...sorted.filter((f) => f.project.name !== 'integration'), ...integration];
  }
}
