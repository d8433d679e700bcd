import type { FastifyRequest } from 'fastify';
import { WorkspaceParams, ensureIdempotencyKey, refuseBodyFields } from '../../http/common.schemas.js';
import type { AutomationService } from './automation.service.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import { IdempotencyHeaders, normalisePortalAmount } from '../invoices/index.js';
import type { AutomationCommand, AutomationId } from './automation.js';
import type { ErrorCode } from '../../shared/errors.js';
import {
  AUTOMATION_LIST_FIELD_CODES,
  AutomationListQuery,
  AutomationPage,
  AutomationParams,
  AutomationView,
  CreateAutomationBody,
  ScheduleBody,
  SchedulePreview,
  UpdateAutomationBody,
} from './automation.schemas.js';
import { automationExamples } from './automation.examples.js';

/** What these routes call. */
export interface AutomationRouteDeps {
  readonly automations: AutomationService;
}

const tags = ['Automations'];

/** What a schedule or an invoice template can be refused for, on creation and on change alike. */
const TEMPLATE_ERRORS: readonly ErrorCode[] = [
  'invalid_request',
  'unknown_field',
  'invalid_json',
  'invalid_schedule',
  'invalid_amount',
  'amount_too_large',
  'unsupported_network',
  'invalid_expires_in',
  'external_id_too_long',
  'description_too_long',
  'invalid_description',
  'invalid_return_url',
  'return_origin_not_allowed',
  'pay_to_mismatch',
];

const EXAMPLE = {
  name: 'Monthly retainer',
  template: { amount: '250.00', externalId: 'retainer-{date}' },
  schedule: { every: 'month' as const, startAt: '2099-01-31T09:00:00Z' },
};

const COMMANDS: Record<AutomationCommand, string> = {
  pause: 'Pause: no invoice is created until it is resumed. Invoices already created stay payable.',
  resume:
    'Resume: it continues with the next occurrence still to come; occurrences due while it was paused are skipped (counted in `skipped`).',
  end: 'End for good: no further invoice. 409 `automation_ended` for any later change.',
};

/** Automations: the merchant API and the portal's Automations tab. */
export function automationRoutes(services: AutomationRouteDeps): SharedRoute[] {
  const id = (params: { automationId: string }) => params.automationId as AutomationId;
  return [
    sharedRoute({
      method: 'POST',
      url: '/automations',
      permission: 'invoices:create',
      schema: {
        tags,
        summary: 'Create an automation: an invoice on a schedule',
        description:
          'Each occurrence of `schedule` creates one invoice from `template` — numbered and charged like any invoice — and sends an ' +
          '`invoice.scheduled` event (feed and webhook) with `automationId` and `occurrence`. The template obeys every rule of POST /invoices, ' +
          'checked now and again at each occurrence; a refusal that retrying cannot fix (insufficient credits, a return origin removed, ' +
          'an amount above the maximum) pauses the automation (`pausedReason`, listed in GET /issues). After downtime, occurrences missed ' +
          'by more than one period are skipped, not created in a burst. Requires an Idempotency-Key (the rules of POST /invoices). ' +
          'A bad schedule: 400 `invalid_schedule`.',
        params: WorkspaceParams,
        headers: IdempotencyHeaders,
        body: CreateAutomationBody,
        response: { 201: AutomationView },
      },
      errors: [...TEMPLATE_ERRORS, 'idempotency_key_missing', 'invalid_idempotency_key', 'idempotency_key_reused'],
      examples: automationExamples.create,
      portal: {
        description:
          'As POST /automations, but the amount may use a comma ("250,00"); Idempotency-Key is optional here.',
        preHandler: async (request: FastifyRequest) => {
          acceptPortalAmount(request);
          ensureIdempotencyKey(request);
        },
      },
      example: { body: EXAMPLE },
      handler: async (request, reply) => {
        const { automation, replayed } = await services.automations.create(
          request.principal!.workspaceId,
          request.body,
          { idempotencyKey: request.headers['idempotency-key'] },
        );
        if (replayed) reply.header('Idempotent-Replayed', 'true');
        return reply.code(201).send(automation);
      },
    }),

    sharedRoute({
      method: 'GET',
      url: '/automations',
      permission: 'invoices:read',
      fieldErrorCodes: AUTOMATION_LIST_FIELD_CODES,
      schema: {
        tags,
        summary: 'Automations, newest first',
        description: 'Page with `cursor` = the `nextCursor` of the previous page.',
        params: WorkspaceParams,
        querystring: AutomationListQuery,
        response: { 200: AutomationPage },
      },
      errors: ['invalid_request', 'invalid_cursor'],
      examples: automationExamples.list,
      portal: { description: 'As GET /automations.' },
      handler: async (request) => services.automations.list(request.principal!.workspaceId, request.query),
    }),

    sharedRoute({
      method: 'GET',
      url: '/automations/preview',
      permission: 'invoices:read',
      schema: {
        tags,
        summary: 'Preview a schedule',
        description:
          'The dates the schedule in the query (the fields of `schedule` in POST /automations) would create invoices at, ' +
          'checked as on creation: a bad schedule answers 400 `invalid_schedule`. Nothing is stored.',
        params: WorkspaceParams,
        querystring: ScheduleBody,
        response: { 200: SchedulePreview },
      },
      errors: ['invalid_request', 'invalid_schedule'],
      examples: automationExamples.preview,
      portal: { description: 'As GET /automations/preview.' },
      example: { query: '?every=month&startAt=2099-01-31T09:00:00Z' },
      handler: async (request) => ({
        upcoming: services.automations.preview(request.query).map((date) => date.toISOString()),
      }),
    }),

    sharedRoute({
      method: 'GET',
      url: '/automations/:automationId',
      permission: 'invoices:read',
      schema: {
        tags,
        summary: 'Read an automation',
        description: 'Its status, next run, the next five dates, and how many invoices it created.',
        params: AutomationParams,
        response: { 200: AutomationView },
      },
      errors: ['not_found'],
      examples: automationExamples.get,
      portal: { description: 'As GET /automations/{id}.' },
      handler: async (request) => services.automations.get(request.principal!.workspaceId, id(request.params)),
    }),

    sharedRoute({
      method: 'PATCH',
      url: '/automations/:automationId',
      permission: 'invoices:create',
      schema: {
        tags,
        summary: 'Change an automation',
        description:
          'Any of `name`, `template` (checked as on creation), `endAt` and `maxOccurrences` (null removes the limit). ' +
          'Invoices already created keep what they were created with. An ended automation: 409 `automation_ended`.',
        params: AutomationParams,
        body: UpdateAutomationBody,
        response: { 200: AutomationView },
      },
      errors: [...TEMPLATE_ERRORS, 'not_found', 'automation_ended'],
      examples: automationExamples.update,
      portal: {
        description: 'As PATCH /automations/{id}, but the amount may use a comma ("250,00").',
        preHandler: async (request: FastifyRequest) => acceptPortalAmount(request),
      },
      example: { body: { name: 'Monthly retainer (2027)' } },
      handler: async (request) =>
        services.automations.update(request.principal!.workspaceId, id(request.params), request.body),
    }),

    ...(Object.keys(COMMANDS) as AutomationCommand[]).map((name) =>
      sharedRoute({
        method: 'POST',
        url: `/automations/:automationId/${name}`,
        permission: 'invoices:create',
        preValidation: refuseBodyFields,
        schema: {
          tags,
          summary: `${name[0]!.toUpperCase()}${name.slice(1)} an automation`,
          description: COMMANDS[name],
          params: AutomationParams,
          response: { 200: AutomationView },
        },
        errors: ['invalid_request', 'unknown_field', 'not_found', 'automation_ended'],
        examples: automationExamples[name],
        portal: { description: `As POST /automations/{id}/${name}.` },
        handler: async (request) =>
          services.automations.apply(request.principal!.workspaceId, id(request.params), name),
      }),
    ),
  ];
}

/** The portal's forms take amounts as people type them ("250,00"), as for invoices. */
function acceptPortalAmount(request: FastifyRequest): void {
  const template = (request.body as { template?: { amount: string } }).template;
  if (template) template.amount = normalisePortalAmount(template.amount);
}
