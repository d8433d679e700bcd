import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { apiKeyRoutes } from '../modules/api-keys/api-key.routes.js';
import { authRoutes } from '../modules/auth/auth.routes.js';
import { billingPortalRoutes } from '../modules/billing/billing.portal-routes.js';
import { billingRoutes } from '../modules/billing/billing.routes.js';
import { dashboardPortalRoutes } from '../modules/dashboard/dashboard.portal-routes.js';
import { changeFeedRoutes } from '../modules/events/change-feed.routes.js';
import { healthPortalRoutes } from '../modules/health/health.portal-routes.js';
import { healthRoutes } from '../modules/health/health.routes.js';
import { checkoutSettingsPortalRoutes } from '../modules/checkout-settings/checkout-settings.portal-routes.js';
import { checkoutSettingsRoutes } from '../modules/checkout-settings/checkout-settings.routes.js';
import { invoiceBatchRoutes } from '../modules/invoice-batches/batch.routes.js';
import { invoiceSearchPortalRoutes } from '../modules/invoice-search/search.portal-routes.js';
import { invoiceSearchRoutes } from '../modules/invoice-search/search.routes.js';
import { invoicePortalRoutes } from '../modules/invoices/invoice.portal-routes.js';
import { invoiceRoutes } from '../modules/invoices/invoice.routes.js';
import { checkoutRoutes } from '../modules/payments/checkout.routes.js';
import { paymentPortalRoutes } from '../modules/payments/payment.portal-routes.js';
import { paymentRoutes } from '../modules/payments/payment.routes.js';
import { registerX402 } from '../modules/payments/x402.routes.js';
import { timelinePortalRoutes } from '../modules/timeline/timeline.portal-routes.js';
import { timelineRoutes } from '../modules/timeline/timeline.routes.js';
import { webhookPortalRoutes } from '../modules/webhooks/webhook.portal-routes.js';
import { webhookRoutes } from '../modules/webhooks/webhook.routes.js';
import { workspaceApiRoutes, workspaceRoutes } from '../modules/workspaces/workspace.routes.js';
import { registerDemoWallet } from '../web/demo-wallet/demo-wallet.routes.js';
import { registerPortalPages } from '../web/portal/portal.routes.js';
import { API_VERSION } from './api-version.js';
import { ErrorBody } from './common.schemas.js';
import { registerDocs } from './docs.routes.js';
import { registerErrorHandling } from './error-handler.js';
import { answerClientError, answerFrameworkError } from './framework-errors.js';
import { guardInput } from './input-guard.js';
import './fastify-types.js';
import { guardMerchantApi } from './merchant-api.js';
import { registerOps } from './ops.routes.js';
import { guardOrigin, requireSession } from './portal-guards.js';
import { limitPerClientIp } from './rate-limiter.js';
import { requestIdFor } from './request-id.js';
import type { Services } from './services.js';
import { schemaCompiler } from './validation.js';

export { API_VERSION };
export const MERCHANT_API_PREFIX = '/w/:workspaceId/v1';

export interface BuildAppOptions {
  /** false for silence (tests); otherwise where logs go and at which level (default: stdout, LOG_LEVEL). */
  readonly logger?: false | { readonly level?: string; readonly stream?: NodeJS.WritableStream };
}

/** Builds the whole HTTP app from its services. Listening is the caller's business. */
export async function buildApp(services: Services, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger === false ? false : { ...loggerOptions(options.logger?.level ?? services.config.logLevel), ...(options.logger?.stream && { stream: options.logger.stream }) },
    genReqId: requestIdFor,
    requestIdHeader: false,
    bodyLimit: 256 * 1024,
    trustProxy: false,
    // Slow clients are cut: headers and then the whole request must arrive in time (checked every second).
    http: { headersTimeout: services.config.headersTimeoutSeconds * 1000, connectionsCheckingInterval: 1000 },
    requestTimeout: services.config.requestTimeoutSeconds * 1000,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(schemaCompiler);
  // JSON only: a text body is refused as an unsupported media type rather than validated as a string.
  app.removeContentTypeParser('text/plain');
  app.addSchema(ErrorBody);

  // First hook of every request, so errors and 404s carry both headers too.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-ID', request.id);
    reply.header('X-API-Version', API_VERSION);
  });
  registerErrorHandling(app);
  guardInput(app);

  await app.register(cookie);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Invoice Service API', version: API_VERSION, description: 'Invoicing and payment recording for USDC.' },
      servers: [{ url: services.config.publicBaseUrl.origin }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key from the portal: `Authorization: Bearer isk_…`.' } } },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const permission = route.config?.permission;
      return { schema: permission ? { ...schema, 'x-permission': permission } : schema, url } as never;
    },
  });

  registerOps(app, services);
  registerDocs(app);
  registerPortalPages(app, services);
  registerDemoWallet(app, services);
  await app.register(async (x402) => {
    limitPerClientIp(x402, services.config.checkoutRateLimitPerMinute);
    registerX402(x402, services);
  });
  // Public, no API key: the invoice id is the capability; rate-limited per client IP inside.
  await app.register(checkoutRoutes(services));

  await app.register(
    async (auth) => {
      guardOrigin(auth, services);
      await auth.register(authRoutes(services));
    },
    { prefix: '/auth' },
  );
  await app.register(
    async (portal) => {
      guardOrigin(portal, services);
      requireSession(portal, services);
      await portal.register(workspaceRoutes(services));
      await portal.register(apiKeyRoutes(services));
      await portal.register(invoicePortalRoutes(services));
      await portal.register(invoiceSearchPortalRoutes(services));
      await portal.register(timelinePortalRoutes(services));
      await portal.register(paymentPortalRoutes(services));
      await portal.register(checkoutSettingsPortalRoutes(services));
      await portal.register(webhookPortalRoutes(services));
      await portal.register(billingPortalRoutes(services));
      await portal.register(healthPortalRoutes(services));
      await portal.register(dashboardPortalRoutes(services));
    },
    { prefix: '/portal/api' },
  );
  await app.register(
    async (api) => {
      guardMerchantApi(api, services);
      await api.register(billingRoutes(services));
      await api.register(invoiceRoutes(services));
      await api.register(invoiceBatchRoutes(services));
      await api.register(paymentRoutes(services));
      await api.register(checkoutSettingsRoutes(services));
      await api.register(workspaceApiRoutes(services));
      await api.register(changeFeedRoutes(services));
      await api.register(webhookRoutes(services));
      await api.register(invoiceSearchRoutes(services));
      await api.register(timelineRoutes(services));
      await api.register(healthRoutes(services));
    },
    { prefix: MERCHANT_API_PREFIX },
  );
  return app;
}

function loggerOptions(level: string): Exclude<FastifyServerOptions['logger'], boolean | undefined> {
  return {
    level,
    // Never log credentials; the query string is dropped because a misused key could sit there.
    redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
    serializers: {
      req: (request: { method: string; url: string; ip?: string }) => ({ method: request.method, path: request.url.split('?')[0], ip: request.ip }),
    },
  };
}
