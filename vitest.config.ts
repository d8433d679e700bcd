import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { TIERS, testTiers, type Tier } from './test/setup/test-tiers.js';

const root = fileURLToPath(new URL('./', import.meta.url));
const tiers = testTiers(root);

function filesOf(tier: Tier): string[] {
  return [...tiers].filter(([, each]) => each === tier).map(([file]) => file);
}

export default defineConfig({
  resolve: {
    // As in tsconfig.json: tests use the client package from its source, not from a build.
    alias: {
      '@invoice-service/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)),
    },
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files run in separate processes, each on its own clone of the migrated template database.
    pool: 'forks',
    // One project per tier (test/setup/test-tiers.ts): `vitest run` runs them all, `--project unit` the
    // files that start nothing. Only the tiers that need PostgreSQL start it.
    projects: TIERS.map((tier) => ({
      extends: true,
      test: {
        name: tier,
        include: filesOf(tier),
        globalSetup: tier === 'unit' ? [] : ['test/setup/global-postgres.ts'],
        // Unit files share no database: threads start faster than processes.
        ...(tier === 'unit' ? { pool: 'threads' as const } : {}),
      },
    })),
  },
});
