import { defineConfig } from 'vitest/config';
import IntegrationOrderSequencer from './test/integration/sequencer.js';

// Unit and conformance tests need nothing outside the repo. Integration tests share one real
// MiniYARNCluster started by the global setup (test/integration/global-setup.ts).
export default defineConfig({
  test: {
    sequence: { sequencer: IntegrationOrderSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/conformance/**/*.test.ts', 'test/chaos/**/*.test.ts'],
          exclude: ['test/chaos/**/*.live.test.ts'],
          testTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'integration',
          // Chaos scenarios that need the cluster (`*.live.test.ts`) run here too.
          include: ['test/integration/**/*.test.ts', 'test/chaos/**/*.live.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          // Checks that each file finds the shared cluster clean and leaves it so.
          setupFiles: ['test/integration/clean-cluster.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          // One mini YARN for the whole run: integration files run one after another.
          fileParallelism: false,
        },
      },
    ],
  },
});
