import cookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TrustProxy } from '../config/config.js';
import { requireSession } from '../modules/auth/index.js';
import { checkoutRoutes } from '../modules/checkout/index.js';
import { registerX402 } from '../modules/x402/index.js';
import { requireOwnedWorkspace } from '../modules/workspaces/index.js';
import { registerDemoWallet } from '../web/demo-wallet/demo-wallet.routes.js';
import { registerPortalPages } from '../web/portal/portal.routes.js';
import { checkoutPage } from '../web/checkout/checkout.page.js';
import { answerBelowRouter, refuseMissingHost, refuseWhileClosing } from '../http/below-router.js';
import { commonHeaders, DEFAULT_CACHE_CONTROL } from '../http/common-headers.js';
import { ErrorBody } from '../http/common.schemas.js';
import { limitConnectionsPerIp } from '../http/connection-limit.js';
import { registerDocs } from '../http/docs.routes.js';
import { answeredCode, registerErrorHandling } from '../http/error-handler.js';
import { clientErrorAnswer, frameworkErrorAnswer } from '../http/framework-errors.js';
import { guardInput } from '../http/input-guard.js';
import '../http/fastify-types.js';
import { registerOps } from './ops.routes.js';
import { guardOrigin } from '../http/portal-guards.js';
import { guardMerchantApi } from '../modules/api-keys/index.js';
import { httpProcessesOf, limitPerClientIp } from '../http/rate-limiter.js';
import { requestIdFor } from '../http/request-id.js';
import { registerOpenApi } from './openapi-document.js';
import type { Services } from './services.js';
import { schemaCompiler } from '../http/validation.js';
import { registerMerchantRoutes, registerPortalRoutes } from '../http/workspace-route.js';

export const MERCHANT_API_PREFIX = '/w/:workspaceId/v1';
export const PORTAL_API_PREFIX = '/portal/api';
/** Inside PORTAL_API_PREFIX: every route below is on a workspace the signed-in wallet must own. */
export const PORTAL_WORKSPACE_PREFIX = '/w/:workspaceId';

/** The API document's sections in reading order: the merchant API first, then what buyers and the portal use. */
const API_TAGS = [
  { name: 'Invoices', description: 'Create, read, list, export, cancel and renew invoices.' },
  { name: 'Invoice batches', description: 'Up to 25 invoices in one request, each with its own outcome.' },
  {
    name: 'x402',
    description:
      "The x402 protocol endpoint: an invoice's `url` (and a credit purchase's), which agents pay without a browser.",
  },
  { name: 'Payments', description: 'Payment intents and receipts.' },
  {
    name: 'Received transfers',
    description:
      'Transfers to your wallet that paid no invoice by themselves: apply each to an invoice, or dismiss it.',
  },
  { name: 'Automations', description: 'Invoices on a schedule.' },
  { name: 'Changes', description: 'The change feed: every event, in order, replayable.' },
  { name: 'Webhooks', description: 'The signed webhook endpoint, its deliveries and retries.' },
  { name: 'Billing', description: 'Credits: the balance, the ledger and credit purchases.' },
  { name: 'Workspace', description: "The workspace's profile." },
  { name: 'Checkout settings', description: 'Where checkout may send buyers back to.' },
  { name: 'Health', description: 'What needs the merchant’s attention.' },
  { name: 'Checkout', description: 'The public pages and endpoints a buyer uses in a browser.' },
  { name: 'Wallet sign-in', description: 'Sign-In with Ethereum for the portal.' },
  { name: 'Portal', description: "The portal's own API, on the signed-in session." },
];

export interface BuildAppOptions {
  /** false for silence (tests); otherwise where logs go and at which level (default: stdout, LOG_LEVEL). */
  readonly logger?: false | { readonly level?: string; readonly stream?: NodeJS.WritableStream };
}

/** Builds the whole HTTP app from its services. Listening is the caller's business. */
export async function buildApp(services: Services, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = createFastify(services, options);

  await app.register(cookie);
  await registerOpenApi(app, services, API_TAGS);

  registerOps(app, services);
  registerDocs(app, {
    merchantApiPrefix: MERCHANT_API_PREFIX,
    originCheckedPrefixes: [`${PORTAL_API_PREFIX}/`, '/auth/'],
  });
  // The browser code is bundled here, once per process (src/web/browser-bundle.ts).
  await registerPortalPages(app, services);
  await registerDemoWallet(app, services);
  await app.register(async (x402) => {
    limitPerClientIp(x402, services.config.checkoutRateLimitPerMinute, httpProcessesOf(services));
    registerX402(x402, services);
  });
  // Public, no API key: the invoice id is the capability; rate-limited per client IP inside.
  await app.register(checkoutRoutes({ ...services, page: checkoutPage }));

  await app.register(
    async (auth) => {
      guardOrigin(auth, services.config.publicBaseUrl.origin);
      await auth.register(services.routes.auth);
    },
    { prefix: '/auth' },
  );
  const { routes } = services;
  await app.register(
    async (portal) => {
      guardOrigin(portal, services.config.publicBaseUrl.origin);
      requireSession(portal, services.auth);
      await portal.register(routes.walletPortal);
      await portal.register(
        async (workspace) => {
          requireOwnedWorkspace(workspace, services.workspaces);
          registerPortalRoutes(workspace, [...routes.portalOnly, ...routes.shared]);
        },
        { prefix: PORTAL_WORKSPACE_PREFIX },
      );
    },
    { prefix: PORTAL_API_PREFIX },
  );
  await app.register(
    async (api) => {
      guardMerchantApi(api, services);
      registerMerchantRoutes(api, routes.shared);
      for (const plugin of routes.merchantOnly) await api.register(plugin);
    },
    { prefix: MERCHANT_API_PREFIX },
  );
  return app;
}

/**
 * The HTTP app of a worker process (ROLE=worker): liveness, readiness and metrics only, on the same
 * platform (timeouts, connection limit, error body) as the whole app; every other path answers 404.
 */
export async function buildOpsApp(services: Services, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = createFastify(services, options);
  registerOps(app, services);
  return app;
}

/** Fastify with what every route relies on: logging, timeouts, limits, the error body, the input boundary. */
function createFastify(services: Services, options: BuildAppOptions) {
  const headers = commonHeaders(services.config.publicBaseUrl.protocol === 'https:');
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            ...loggerOptions(options.logger?.level ?? services.config.logLevel),
            ...(options.logger?.stream && { stream: options.logger.stream }),
          },
    // One line per request, at debug (the onResponse hook below): at info a busy service's requests
    // would bury everything else.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdFor,
    requestIdHeader: false,
    bodyLimit: 256 * 1024,
    // request.ip, the client address of every per-IP limit and of the request log, follows TRUST_PROXY.
    trustProxy: fastifyTrustProxy(services.config.trustProxy),
    // Slow clients are cut: headers and then the whole request must arrive in time (checked every second).
    // A request without Host is refused by the app (below-router.ts), in the error contract, not by Node.
    http: {
      headersTimeout: services.config.headersTimeoutSeconds * 1000,
      connectionsCheckingInterval: 1000,
      requireHostHeader: false,
    },
    requestTimeout: services.config.requestTimeoutSeconds * 1000,
    // Refused in the contract instead (refuseWhileClosing).
    return503OnClosing: false,
    frameworkErrors: frameworkErrorAnswer(headers),
    clientErrorHandler: clientErrorAnswer(headers),
  }).withTypeProvider<TypeBoxTypeProvider>();
  limitConnectionsPerIp(app.server, services.config.maxConnectionsPerIp, headers);
  answerBelowRouter(app.server, headers);

  app.setValidatorCompiler(schemaCompiler);
  // JSON only: a text body is refused as an unsupported media type rather than validated as a string.
  app.removeContentTypeParser('text/plain');
  app.addSchema(ErrorBody);

  // First hook of every request, so errors and 404s carry these headers too.
  app.addHook('onRequest', async (request, reply) => {
    reply.headers({ ...headers, 'X-Request-ID': request.id });
  });
  refuseMissingHost(app);
  refuseWhileClosing(app);
  // Every answer says whether it may be stored; a route whose answer may be kept says so itself.
  app.addHook('onSend', async (_request, reply) => {
    if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', DEFAULT_CACHE_CONTROL);
  });
  app.addHook('onResponse', async (request, reply) => {
    // Rounded to 0.1 ms: the digits past it are noise, and make the line longer.
    const responseTime = Math.round(reply.elapsedTime * 10) / 10;
    request.log.debug({ req: request, res: reply, code: answeredCode(request), responseTime }, 'request completed');
  });
  registerErrorHandling(app);
  guardInput(app);
  return app;
}

/**
 * A hop count becomes a function of the hop: Fastify takes a bare number as "trust nobody", since a count
 * cannot tell a proxy from a client that connects directly. An operator who sets a count vouches that
 * only the proxies can reach the service (README, TRUST_PROXY); a list is checked against the peer.
 */
function fastifyTrustProxy(trust: TrustProxy): FastifyServerOptions['trustProxy'] {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address: string, hop: number) => hop < trust;
  return [...trust];
}

function loggerOptions(level: string): Exclude<FastifyServerOptions['logger'], boolean | undefined> {
  return {
    level,
    // Never log credentials; the query string is dropped because a misused key could sit there.
    redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
    serializers: {
      req: (request: { method: string; url: string; ip?: string }) => ({
        method: request.method,
        path: request.url.split('?')[0],
        ip: request.ip,
      }),
    },
  };
}
