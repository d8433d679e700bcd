import type { ApiReferenceOptions } from '../../src/http/docs-page.js';

/** Reference options for renderer tests: the product's sample settings, a title that must be escaped. */
export const OPTIONS: ApiReferenceOptions = {
  title: 'Invoice <Service> API',
  version: '1.1.0',
  basePath: '/docs',
  intro: 'First paragraph with `code`.\n\nSecond <i>paragraph</i>.',
  idempotency: 'Send a new key per create.',
  errorCodes: [
    { code: 'rate_limited', status: 429 },
    { code: 'not_found', status: 404 },
    { code: 'invalid_request', status: 400 },
    { code: 'invalid_json', status: 400 },
  ],
  samples: {
    clientPrefix: '/w/{workspaceId}/v1',
    clientPackage: '@invoice-service/client',
    apiKeyVariable: 'INVOICE_API_KEY',
    originCheckedPrefixes: ['/portal/api/'],
  },
};
