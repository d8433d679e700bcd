import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../http/common.schemas.js';
import { ID_PATTERN } from '../../shared/ids.js';
import { InvoiceDescription, PayTo } from '../invoices/index.js';
import { AUTOMATION_STATUSES } from './automation.js';
import { MAX_INTERVAL, PERIODS } from './schedule.js';

/**
 * The POST /invoices fields an automation creates each invoice with. Their values are checked by the
 * rules of POST /invoices themselves (not by this schema), so a bad value answers the same code.
 */
const TEMPLATE_FIELDS = {
  amount: Type.String({ maxLength: 40, description: 'USDC, dot as separator, up to 6 decimals: "12.50".' }),
  network: Type.Optional(Type.String({ maxLength: 64, description: 'Omit to let the payer choose.' })),
  expiresIn: Type.Optional(
    Type.Integer({ description: 'Payment window in seconds (the values of POST /invoices); default 3600.' }),
  ),
  externalId: Type.Optional(
    Type.String({
      maxLength: 512,
      description:
        'Your order reference for each invoice; `{n}` is replaced by the occurrence number and `{date}` by its UTC date (YYYY-MM-DD). At most 128 UTF-8 bytes once replaced.',
    }),
  ),
  description: Type.Optional(InvoiceDescription),
  successUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'https URL on an allowed return origin.' })),
  cancelUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'https URL on an allowed return origin.' })),
};

/** As sent: `payTo` too, as POST /invoices takes it (the workspace wallet, which is not kept, or 403). */
export const InvoiceTemplateBody = Type.Object(
  { ...TEMPLATE_FIELDS, payTo: Type.Optional(PayTo) },
  {
    additionalProperties: false,
    description: 'The POST /invoices fields each invoice is created with; every rule of POST /invoices applies.',
  },
);

/** As stored and shown: every invoice pays the workspace wallet, so there is no `payTo` to keep. */
export const InvoiceTemplateView = Type.Object(TEMPLATE_FIELDS, {
  additionalProperties: false,
  description: 'The POST /invoices fields each invoice is created with.',
});

export const ScheduleBody = Type.Object(
  {
    every: Type.Union(
      PERIODS.map((period) => Type.Literal(period)),
      { description: 'hour, day, week or month.' },
    ),
    interval: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_INTERVAL.hour,
        description: 'Every `interval` periods (default 1); at most a year: 8760 hours, 365 days, 52 weeks, 12 months.',
      }),
    ),
    startAt: Type.String({
      format: 'date-time',
      description:
        'The first occurrence (RFC 3339), not in the past. Monthly schedules keep its day of the month; a shorter month uses its last day.',
    }),
    endAt: Type.Optional(Type.String({ format: 'date-time', description: 'No occurrence at or after it.' })),
    maxOccurrences: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  },
  { additionalProperties: false, description: 'Every date and rule is UTC: no daylight-saving shifts.' },
);

const NAME = Type.String({ minLength: 1, maxLength: 100, description: 'For you; buyers never see it.' });

export const CreateAutomationBody = Type.Object(
  { name: NAME, template: InvoiceTemplateBody, schedule: ScheduleBody },
  { additionalProperties: false },
);

export const UpdateAutomationBody = Type.Object(
  {
    name: Type.Optional(NAME),
    template: Type.Optional(InvoiceTemplateBody),
    endAt: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
    maxOccurrences: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100_000 }))),
  },
  { additionalProperties: false },
);

export const AutomationParams = Type.Object({
  workspaceId: Type.String({ pattern: ID_PATTERN }),
  automationId: Type.String({ maxLength: 64, description: 'Automation id (`aut_…`).' }),
});

export const AutomationView = Type.Object({
  id: Type.String({ description: 'Automation id (`aut_…`).' }),
  name: Type.String(),
  status: Type.Unsafe<(typeof AUTOMATION_STATUSES)[number]>({
    type: 'string',
    enum: [...AUTOMATION_STATUSES],
    description: '`active`; `paused` (by you, or by a refusal: see `pausedReason`); `ended` (for good).',
  }),
  pausedReason: Nullable(
    Type.Object({
      code: Type.String({
        description:
          '`paused_by_owner`, or the error code that stopped it: `insufficient_credits`, `return_origin_not_allowed`, …',
      }),
      message: Type.String(),
    }),
  ),
  template: InvoiceTemplateView,
  schedule: Type.Object({
    every: Type.String(),
    interval: Type.Integer(),
    startAt: Timestamp,
    endAt: Nullable(Timestamp),
    maxOccurrences: Nullable(Type.Integer()),
  }),
  nextRunAt: Nullable(Timestamp),
  upcoming: Type.Array(Timestamp, { description: 'The next five occurrences of the schedule.' }),
  occurrences: Type.Integer({ description: 'Invoices created.' }),
  skipped: Type.Integer({
    description: 'Occurrences passed over: missed by more than one period (the service was down), or due while paused.',
  }),
  lastInvoiceId: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const AutomationListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 64, description: 'The `nextCursor` of the previous page.' })),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
});

export const AutomationPage = Type.Object({
  automations: Type.Array(AutomationView, { description: 'Newest first.' }),
  nextCursor: Nullable(Type.String()),
});

export const AUTOMATION_LIST_FIELD_CODES = { cursor: 'invalid_cursor' } as const;

export const SchedulePreview = Type.Object({
  upcoming: Type.Array(Timestamp, {
    description: 'The first five occurrences of the schedule (fewer when it ends sooner).',
  }),
});
