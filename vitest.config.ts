import { defineConfig } from 'vitest/config';

// Unit and conformance tests need nothing outside the repo. Integration tests share one real
// MiniYARNCluster started by the global setup (test/integration/global-setup.ts).
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/conformance/**/*.test.ts'], testTimeout: 60_000 } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          // One mini YARN for the whole run: integration files run one after another.
          fileParallelism: false,
        },
      },
    ],
  },
});
