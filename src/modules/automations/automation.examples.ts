import type { OperationExamples } from '../../http/openapi-examples.js';
import { EXAMPLE_IDS } from '../../shared/example-ids.js';

const CREATE_BODY = {
  name: 'Monthly retainer',
  template: {
    amount: '250.00',
    expiresIn: 432000,
    externalId: 'retainer-{date}',
    description: 'Design retainer, one month',
  },
  schedule: { every: 'month' as const, startAt: '2099-01-31T09:00:00Z', maxOccurrences: 12 },
};

const UPCOMING = [
  '2099-01-31T09:00:00.000Z',
  '2099-02-28T09:00:00.000Z',
  '2099-03-31T09:00:00.000Z',
  '2099-04-30T09:00:00.000Z',
  '2099-05-31T09:00:00.000Z',
];

/** An active automation that has not run yet, as GET /automations/{id} shows it. */
const AUTOMATION = {
  id: EXAMPLE_IDS.automation,
  name: 'Monthly retainer',
  status: 'active',
  pausedReason: null,
  template: CREATE_BODY.template,
  schedule: {
    every: 'month',
    interval: 1,
    startAt: '2099-01-31T09:00:00.000Z',
    endAt: null,
    maxOccurrences: 12,
  },
  nextRunAt: UPCOMING[0]!,
  upcoming: UPCOMING,
  occurrences: 0,
  skipped: 0,
  lastInvoiceId: null,
  createdAt: '2098-12-20T14:00:00.000Z',
  updatedAt: '2098-12-20T14:00:00.000Z',
} as const;

const PAUSED = {
  ...AUTOMATION,
  status: 'paused',
  pausedReason: { code: 'paused_by_owner', message: 'Paused by the owner.' },
  nextRunAt: null,
  updatedAt: '2098-12-21T08:00:00.000Z',
} as const;

export const automationExamples = {
  create: { request: CREATE_BODY, response: AUTOMATION },
  list: { response: { automations: [AUTOMATION], nextCursor: null } },
  preview: { response: { upcoming: UPCOMING } },
  get: { response: AUTOMATION },
  update: {
    request: { name: 'Monthly retainer (2099)', maxOccurrences: 24 },
    response: {
      ...AUTOMATION,
      name: 'Monthly retainer (2099)',
      schedule: { ...AUTOMATION.schedule, maxOccurrences: 24 },
      updatedAt: '2098-12-21T08:00:00.000Z',
    },
  },
  pause: { response: PAUSED },
  resume: { response: { ...AUTOMATION, updatedAt: '2098-12-22T08:00:00.000Z' } },
  end: {
    response: { ...AUTOMATION, status: 'ended', nextRunAt: null, upcoming: [], updatedAt: '2098-12-22T08:00:00.000Z' },
  },
} satisfies Record<string, OperationExamples>;
