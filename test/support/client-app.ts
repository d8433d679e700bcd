import { systemClock } from '../../src/shared/clock.js';
import { createTestApp, merchant, type TestApp } from './app.js';

export interface ClientApp extends TestApp {
  /** Where the app listens: the `baseUrl` of a client. */
  readonly origin: string;
}

/**
 * The real app on a loopback port and the wall clock, for clients that speak HTTP to it (the client
 * package, a packed copy of it). Closed after the file's tests.
 */
export async function startClientApp(env: Record<string, string> = {}): Promise<ClientApp> {
  const testApp = await createTestApp(
    { API_RATE_LIMIT_PER_MINUTE: '100000', NEW_WORKSPACE_CREDITS: '1000', ...env },
    systemClock,
  );
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = testApp.app.server.address() as { port: number };
  return { ...testApp, origin: `http://127.0.0.1:${port}` };
}

/** A new workspace of `app` with a key holding `permissions`: what createClient takes. */
export async function clientWorkspace(
  app: ClientApp,
  permissions = ['invoices:create', 'invoices:read', 'payments:read', 'webhooks:read', 'webhooks:write'],
) {
  const { workspaceId, apiKey } = await merchant(app.app, permissions);
  return { baseUrl: app.origin, workspaceId, apiKey };
}
