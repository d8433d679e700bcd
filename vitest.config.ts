import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global-postgres.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files run in separate processes, each on its own clone of the migrated template database.
    pool: 'forks',
  },
});
