import type { FastifyInstance } from 'fastify';
import { ERROR_CODES } from '../shared/errors.js';
import { renderApiReference } from './docs-page.js';
import { ERROR_STATUS } from './error-status.js';
import type { OpenApiDocument } from './openapi-types.js';

const INTRO =
  'Create invoices from your server with an API key; buyers pay through the checkout link or with any x402 client at the ' +
  "invoice's url. Every response carries X-Request-ID and X-API-Version. Retry network errors and 429/502/503/504 with the " +
  'same Idempotency-Key and body, with bounded backoff.';

/** `/openapi.json` (generated from the route schemas) and the readable reference at `/docs`. */
export function registerDocs(app: FastifyInstance): void {
  let page: string | undefined;
  const hide = { hide: true } as const;

  app.get('/openapi.json', { schema: hide }, async () => app.swagger());

  app.get('/docs', { schema: hide }, async (_request, reply) => {
    page ??= renderApiReference(app.swagger() as OpenApiDocument, {
      title: 'Invoice Service API',
      version: '1.1.0',
      intro: INTRO,
      errorCodes: ERROR_CODES.map((code) => ({ code, status: ERROR_STATUS[code] })),
    });
    reply.header(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    reply.type('text/html; charset=utf-8');
    return page;
  });
}
