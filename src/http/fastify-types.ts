import type { ErrorCode } from '../shared/errors.js';
import type { WorkspaceId } from '../shared/ids.js';
import type { Permission } from '../shared/permissions.js';
import type { OperationDocs } from './openapi-examples.js';

/**
 * What a schema failure of one body field answers: its own code, or its code with the message every
 * refusal of that field carries (so the schema and the use case word it the same way).
 */
export type FieldRefusal = ErrorCode | { readonly code: ErrorCode; readonly message: string };

/**
 * Who acts on which workspace, whichever door they came in by: set by the merchant API guard (API key)
 * and by the portal's ownership check (wallet session), so a route serving both reads only this.
 */
export interface Principal {
  readonly workspaceId: WorkspaceId;
  /** How the request arrived; the services record it (e.g. an invoice's source). */
  readonly via: 'api' | 'portal';
}

declare module 'fastify' {
  // The api-keys module adds `apiKey` and the auth module `portalSession`, next to their types.
  interface FastifyRequest {
    /** Set on every workspace route of either audience before validation; see Principal. */
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /** Required on every merchant API route: the key must hold this permission (or all of these). */
    permission?: Permission | readonly Permission[];
    /** Specific codes for schema failures of particular body fields (e.g. amount → invalid_amount). */
    fieldErrorCodes?: Readonly<Record<string, FieldRefusal>>;
    /**
     * The body's `items` are checked by the route, one by one, for what the input guard refuses (NUL,
     * an unpaired surrogate, nesting deeper than 32 levels), so that a bad item fails alone.
     */
    checksItemsAlone?: boolean;
    /** The API document's error codes and examples of the operation (read by the document, never at run time). */
    docs?: OperationDocs;
  }
}
