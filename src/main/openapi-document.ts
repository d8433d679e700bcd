import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { x402Operations } from '../modules/x402/index.js';
import { API_VERSION } from '../http/api-version.js';
import { addOperationExamples, type OperationDocs } from '../http/openapi-examples.js';
import { PORTAL_SESSION_SCHEME, withOperationDefaults } from '../http/openapi-operation.js';
import { webhookEvents } from './openapi-webhooks.js';
import type { Services } from './services.js';

/**
 * The API document (`/openapi.json`), built by @fastify/swagger from the route schemas, then completed:
 * each operation's examples (from its route's `config.docs`), the x402 endpoint (its routes stay
 * undocumented to Fastify so that the 402 path has no validation or serializer), and the webhooks the
 * service sends.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  services: Services,
  tags: readonly { name: string; description: string }[],
): Promise<void> {
  // Filled by `transform`, route by route, before `transformObject` reads it; the document is built once.
  const docsByOperation = new Map<string, OperationDocs>();
  const x402 = x402Operations();
  for (const operation of x402.operations) docsByOperation.set(operation.operationId, operation.docs);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Invoice Service API',
        version: API_VERSION,
        description: 'Invoicing and payment recording for USDC.',
      },
      servers: [{ url: services.config.publicBaseUrl.origin }],
      tags: [...tags],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key from the portal: `Authorization: Bearer isk_…`.',
          },
          portalSession: PORTAL_SESSION_SCHEME,
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transform: ({ schema, url, route }) => {
      // Several permissions read as an OAuth scope string: space-separated, all required.
      const permission = route.config?.permission;
      const required = permission === undefined ? undefined : ([] as string[]).concat(permission).join(' ');
      const method = ([] as string[]).concat(route.method).find((m) => m !== 'HEAD') ?? 'GET';
      const documented = withOperationDefaults(schema ?? {}, method, url);
      if (route.config?.docs && documented.operationId) docsByOperation.set(documented.operationId, route.config.docs);
      return { schema: required ? { ...documented, 'x-permission': required } : documented, url } as never;
    },
    transformObject: (generated) => {
      const document = ('openapiObject' in generated ? generated.openapiObject : {}) as {
        paths?: Record<string, unknown>;
        webhooks?: unknown;
      };
      document.paths = { ...document.paths, ...x402.paths };
      document.webhooks = webhookEvents();
      return addOperationExamples(document, (operationId) => docsByOperation.get(operationId)) as never;
    },
  });
}
