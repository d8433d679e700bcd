import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // As in tsconfig.json: tests use the client package from its source, not from a build.
    alias: {
      '@invoice-service/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global-postgres.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files run in separate processes, each on its own clone of the migrated template database.
    pool: 'forks',
  },
});
