import type { ApiKeyPrincipal } from '../modules/api-keys/api-key.service.js';
import type { Permission } from '../modules/api-keys/api-key.js';
import type { Session } from '../modules/auth/auth.service.js';
import type { ErrorCode } from '../shared/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on merchant API routes once the API key is verified. */
    apiKey?: ApiKeyPrincipal;
    /** Set on portal routes once the session cookie is verified. */
    portalSession?: Session;
  }
  interface FastifyContextConfig {
    /** Required on every merchant API route: the key must hold this permission. */
    permission?: Permission;
    /** Specific codes for schema failures of particular body fields (e.g. amount → invalid_amount). */
    fieldErrorCodes?: Readonly<Record<string, ErrorCode>>;
  }
}
