import type { FastifyInstance, FastifyReply } from 'fastify';
import { fileURLToPath } from 'node:url';
import { AppError, ERROR_CODES } from '../shared/errors.js';
import { API_VERSION } from './api-version.js';
import { DOCS_CSP } from './docs-assets.js';
import { GUIDES_PATH, loadGuides, type Guide } from './docs-guides.js';
import { renderApiReference, type ApiReference } from './docs-page.js';
import { ERROR_STATUS } from './error-status.js';
import type { OpenApiDocument } from './openapi-types.js';

const DOCS_PATH = '/docs';
/** The project's `docs/` folder, shipped with the service. */
const GUIDES_DIRECTORY = fileURLToPath(new URL('../../docs/', import.meta.url));
/** The reference is public and the same for everyone until the next deploy: kept, but checked before each use. */
const PUBLIC_UNTIL_DEPLOY = 'no-cache';

const INTRO =
  'Create invoices from your server with an API key; buyers pay through the checkout link or with any x402 client at the ' +
  "invoice's url. Every response carries X-Request-ID and X-API-Version. Retry network errors and 429/502/503/504 with the " +
  'same Idempotency-Key and body, with bounded backoff.';

const IDEMPOTENCY =
  'Every create of the merchant API needs its own `Idempotency-Key` header: 8–128 visible ASCII characters, a new one ' +
  'per new object and the same one when retrying (the TypeScript client makes one per call and keeps it across its retries).\n\n' +
  'The same key with the same body answers the stored response of the first request, with `Idempotent-Replayed: true`: ' +
  'no second object, no second charge; a request that arrives while the first is still running waits for it. The same ' +
  'key with another body is refused with 422 `idempotency_key_reused`. Keys belong to the workspace and are kept for 7 days.';

export interface DocsRoutesOptions {
  /** The merchant API's prefix in Fastify's form (`/w/:workspaceId/v1`): its operations are shown through the client. */
  readonly merchantApiPrefix: string;
  /** Prefixes whose changes must carry this origin's Origin header (the portal, sign-in). */
  readonly originCheckedPrefixes: readonly string[];
}

/**
 * `/openapi.json` (generated from the route schemas) and the readable reference: `/docs`, `/docs/<section>` and
 * the guides, `/docs/guides/<name>`.
 */
export function registerDocs(app: FastifyInstance, options: DocsRoutesOptions): void {
  // Rendered on first request, once: the document is fixed once the app is ready.
  let reference: ApiReference | undefined;
  const render = (): ApiReference =>
    (reference ??= renderApiReference(app.swagger() as OpenApiDocument, {
      title: 'Invoice Service API',
      version: API_VERSION,
      basePath: DOCS_PATH,
      intro: INTRO,
      idempotency: IDEMPOTENCY,
      errorCodes: ERROR_CODES.map((code) => ({ code, status: ERROR_STATUS[code] })),
      samples: {
        clientPrefix: options.merchantApiPrefix.replace(/:(\w+)/g, '{$1}'),
        clientPackage: '@invoice-service/client',
        apiKeyVariable: 'INVOICE_API_KEY',
        originCheckedPrefixes: options.originCheckedPrefixes,
      },
      guides: readGuides(app),
    }));
  const hide = { hide: true } as const;

  app.get('/openapi.json', { schema: hide }, async (_request, reply) => {
    reply.header('Cache-Control', PUBLIC_UNTIL_DEPLOY);
    return app.swagger();
  });

  const page = (reply: FastifyReply, body: string | undefined, missing: string): string => {
    if (body === undefined) throw new AppError('not_found', missing);
    reply.header('Content-Security-Policy', DOCS_CSP).header('Cache-Control', PUBLIC_UNTIL_DEPLOY);
    reply.type('text/html; charset=utf-8');
    return body;
  };

  app.get(DOCS_PATH, { schema: hide }, async (_request, reply) => page(reply, render().overview, ''));

  app.get<{ Params: { section: string } }>(`${DOCS_PATH}/:section`, { schema: hide }, async (request, reply) =>
    page(
      reply,
      render().sections.get(request.params.section),
      `No such section of the API reference; ${DOCS_PATH} lists them.`,
    ),
  );

  // Two routes rather than a wildcard: a guide in a folder of docs/ (`spec/…`) has two segments, and named
  // parameters keep each route's shape in Fastify's route tree, which the route table reads.
  const guide = (name: string, reply: FastifyReply) =>
    page(reply, render().guides.get(name), `No such guide; ${DOCS_PATH}#guides lists them.`);
  app.get(GUIDES_PATH, { schema: hide }, async (_request, reply) => reply.redirect(`${DOCS_PATH}#guides`));
  app.get<{ Params: { name: string } }>(`${GUIDES_PATH}/:name`, { schema: hide }, async (request, reply) =>
    guide(request.params.name, reply),
  );
  app.get<{ Params: { folder: string; name: string } }>(
    `${GUIDES_PATH}/:folder/:name`,
    { schema: hide },
    async (request, reply) => guide(`${request.params.folder}/${request.params.name}`, reply),
  );
}

/** The guides, or none when `docs/` cannot be read: the API reference does not depend on them. */
function readGuides(app: FastifyInstance): Guide[] {
  try {
    return loadGuides(GUIDES_DIRECTORY);
  } catch (error) {
    app.log.error({ err: error }, `the guides of ${GUIDES_DIRECTORY} could not be read; /docs is served without them`);
    return [];
  }
}
