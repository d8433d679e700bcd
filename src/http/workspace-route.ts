import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import type {
  ContextConfigDefault,
  FastifyInstance,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
  preHandlerAsyncHookHandler,
  preValidationAsyncHookHandler,
} from 'fastify';
import type { Permission } from '../shared/permissions.js';
import type { ErrorCode } from '../shared/errors.js';
import { errorResponses } from './error-examples.js';
import type { FieldRefusal } from './fastify-types.js';
import { BEARER_SECURITY } from './openapi-operation.js';
import type { OperationDocs, OperationExamples } from './openapi-examples.js';

/**
 * One route on one workspace, written once and served to the merchant API (`/w/:workspaceId/v1<url>`,
 * API key) and/or the portal (`/portal/api/w/:workspaceId<url>`, wallet session). The scope's guard has
 * already resolved `request.principal` when the handler runs, so the handler never asks who called.
 */

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteSchema extends FastifySchema {
  /** The merchant API's tags; every portal operation is tagged Portal instead. */
  readonly tags?: string[];
  readonly summary: string;
  readonly description?: string;
  readonly params: TSchema;
  readonly querystring?: TSchema;
  readonly headers?: TSchema;
  readonly body?: TSchema;
  /** Success responses only: error statuses come from `errors` plus the audience's guards. */
  readonly response: Readonly<Record<number, TSchema>>;
}

/** A request that passes validation, so the security tests reach the guards' verdict on every route. */
export interface ExampleRequest {
  readonly body?: object;
  /** Query string with its `?`. */
  readonly query?: string;
}

type Handler<S extends FastifySchema> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  ContextConfigDefault,
  S,
  TypeBoxTypeProvider
>;

interface RouteFields {
  readonly method: HttpMethod;
  /** Relative to the workspace: `/invoices/:invoiceId`; '' is the workspace itself. */
  readonly url: string;
  /** Codes the use case itself answers, whoever calls; each audience adds those of its guards. */
  readonly errors: readonly ErrorCode[];
  /** The API document's examples of this operation (both audiences, unless the portal's differ). */
  readonly examples?: OperationExamples;
  readonly fieldErrorCodes?: Readonly<Record<string, FieldRefusal>>;
  readonly preValidation?: preValidationAsyncHookHandler;
  readonly example?: ExampleRequest;
  /**
   * Runs when the app closes, before it stops taking requests: ends what the route holds open (event
   * streams), which a shutdown would otherwise wait for until each client leaves.
   */
  readonly preClose?: () => void;
}

/** Where the portal's operation differs from the merchant API's; everything else is shared. */
export interface PortalDifferences {
  readonly summary?: string;
  readonly description?: string;
  readonly body?: TSchema;
  readonly errors?: readonly ErrorCode[];
  readonly examples?: OperationExamples;
  /** Runs after validation, before the shared handler: adapts portal input to the merchant API's. */
  readonly preHandler?: preHandlerAsyncHookHandler;
}

export interface WorkspaceRoute extends RouteFields {
  readonly schema: RouteSchema;
  readonly handler: RouteHandlerMethod;
}

export interface SharedRoute extends WorkspaceRoute {
  /** The API key permission(s) of the merchant operation, all required; the portal needs the workspace's owner. */
  readonly permission: Permission | readonly Permission[];
  readonly portal: PortalDifferences;
}

/** A route both audiences are served. Typed by its schema here; stored without it so a table can mix them. */
export function sharedRoute<S extends RouteSchema>(
  route: RouteFields & {
    schema: S;
    permission: Permission | readonly Permission[];
    portal?: PortalDifferences;
    handler: Handler<S>;
  },
): SharedRoute {
  return { ...route, portal: route.portal ?? {}, handler: route.handler as RouteHandlerMethod };
}

/** A route on a workspace that only the portal has (keys, the invoice list, the dashboard, …). */
export function portalRoute<S extends RouteSchema>(
  route: RouteFields & { schema: S; handler: Handler<S> },
): WorkspaceRoute {
  return { ...route, handler: route.handler as RouteHandlerMethod };
}

/** Key missing or invalid, permission missing, per-key rate limit. */
export const MERCHANT_GUARD_ERRORS: readonly ErrorCode[] = [
  'missing_api_key',
  'invalid_api_key',
  'api_key_revoked',
  'permission_denied',
  'rate_limited',
];

/** No session; not the owner's workspace; and for a change, no Origin of this service. */
export const PORTAL_READ_GUARD_ERRORS: readonly ErrorCode[] = ['session_required', 'not_found'];
export const PORTAL_CHANGE_GUARD_ERRORS: readonly ErrorCode[] = [...PORTAL_READ_GUARD_ERRORS, 'origin_mismatch'];

/** Into the merchant API scope, whose guard authenticates the key and checks `config.permission`. */
export function registerMerchantRoutes(app: FastifyInstance, routes: readonly SharedRoute[]): void {
  for (const route of routes) {
    const docs = operationDocs([...route.errors, ...MERCHANT_GUARD_ERRORS], route.examples);
    closeWithApp(app, route);
    app.route({
      method: route.method,
      url: route.url,
      config: {
        permission: route.permission,
        docs,
        ...(route.fieldErrorCodes && { fieldErrorCodes: route.fieldErrorCodes }),
      },
      ...(route.preValidation && { preValidation: route.preValidation }),
      schema: {
        ...route.schema,
        security: BEARER_SECURITY,
        response: { ...route.schema.response, ...errorResponses(docs.errors) },
      },
      handler: route.handler,
    });
  }
}

/** Into the portal's workspace scope, whose guards check the session, the Origin of changes and ownership. */
export function registerPortalRoutes(app: FastifyInstance, routes: readonly (WorkspaceRoute | SharedRoute)[]): void {
  for (const route of routes) {
    const portal: PortalDifferences = 'portal' in route ? route.portal : {};
    const guardErrors = route.method === 'GET' ? PORTAL_READ_GUARD_ERRORS : PORTAL_CHANGE_GUARD_ERRORS;
    const docs = operationDocs([...(portal.errors ?? route.errors), ...guardErrors], portal.examples ?? route.examples);
    const description = portal.description ?? route.schema.description;
    const body = portal.body ?? route.schema.body;
    closeWithApp(app, route);
    app.route({
      method: route.method,
      url: route.url,
      config: { docs, ...(route.fieldErrorCodes && { fieldErrorCodes: route.fieldErrorCodes }) },
      ...(route.preValidation && { preValidation: route.preValidation }),
      ...(portal.preHandler && { preHandler: portal.preHandler }),
      schema: {
        ...route.schema,
        tags: ['Portal'],
        summary: portal.summary ?? route.schema.summary,
        ...(description !== undefined && { description }),
        ...(body && { body }),
        response: { ...route.schema.response, ...errorResponses(docs.errors) },
      },
      handler: route.handler,
    });
  }
}

function closeWithApp(app: FastifyInstance, route: RouteFields): void {
  const { preClose } = route;
  if (preClose) app.addHook('preClose', async () => preClose());
}

function operationDocs(errors: readonly ErrorCode[], examples: OperationExamples | undefined): OperationDocs {
  return { errors, ...(examples && { examples }) };
}
