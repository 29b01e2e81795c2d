import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Two cores: node tests start litecoind, so keep file parallelism modest.
    maxWorkers: 2,
  },
});
