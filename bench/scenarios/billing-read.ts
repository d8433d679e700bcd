import { createBenchWorkspace, startRealApp } from '../real-app.js';
import type { Scenario } from '../scenario.js';
import { helloCeiling } from './hello-ceiling.js';

/** The cheapest authenticated merchant API call: what every API request pays before its own work. */
export const billingRead: Scenario = {
  name: 'GET /w/:ws/v1/billing',
  measures:
    'real app on the embedded PostgreSQL: Bearer-key lookup (1 query), rate limiter, credit account read (1 query)',
  ceiling: helloCeiling,
  async prepare() {
    const real = await startRealApp();
    try {
      const { workspaceId, authorization } = await createBenchWorkspace(real.services, ['billing:read']);
      return {
        app: real.app,
        request: { method: 'GET', path: `/w/${workspaceId}/v1/billing`, headers: { authorization } },
        stop: real.stop,
      };
    } catch (error) {
      await real.stop();
      throw error;
    }
  },
};
