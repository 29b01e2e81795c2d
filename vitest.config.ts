import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the explorer page once, so exported releases carry the page of the current sources.
    globalSetup: ['test/helpers/build-explorer.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Two cores: node tests start litecoind, so keep file parallelism modest.
    maxWorkers: 2,
  },
});
