import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../http/common.schemas.js';
import { LEDGER_KINDS } from '../billing/index.js';

export const StatementQuery = Type.Object({
  month: Type.Optional(
    Type.String({
      maxLength: 32,
      description:
        'The calendar month, `YYYY-MM` (UTC). Omit it for the current month. A month that has not begun answers 400 `invalid_request`.',
    }),
  ),
});

const Credits = (description: string) => Type.Integer({ minimum: 0, description });

export const PaidVolumeView = Type.Object({
  currency: Type.String({ description: 'Always `USDC` today.' }),
  network: Type.Union([Type.String(), Type.Null()], {
    description: 'The network the payment was made on; null when no payment record names one.',
  }),
  invoices: Type.Integer({ minimum: 0, description: 'Invoices paid in the month in this currency on this network.' }),
  amount: Type.String({ description: 'Their amounts added up, a decimal string with 6 decimals ("1250.500000").' }),
});

const KINDS = Object.keys(LEDGER_KINDS)
  .map((kind) => `\`${kind}\``)
  .join(', ');

export const LedgerMovementView = Type.Object({
  kind: Type.String({ description: `The ledger entry kind, as in GET /billing/ledger: ${KINDS}.` }),
  entries: Type.Integer({ minimum: 0, description: 'Ledger entries of this kind in the month.' }),
  credited: Credits('Credits these entries added.'),
  debited: Credits('Credits these entries took.'),
});

export const StatementView = Type.Object({
  workspace: Type.Object({ id: Type.String(), name: Type.String() }),
  month: Type.String({ description: '`YYYY-MM`.' }),
  from: Type.String({ format: 'date-time', description: 'The first instant of the month, UTC (included).' }),
  to: Type.String({ format: 'date-time', description: 'The first instant of the next month, UTC (not included).' }),
  final: Type.Boolean({
    description: 'The month has ended, so its figures will not change; false for the current month, counted up to now.',
  }),
  generatedAt: Timestamp,
  invoices: Type.Object({
    created: Type.Integer({ minimum: 0, description: 'Invoices created in the month.' }),
    paid: Type.Integer({ minimum: 0, description: 'Invoices paid in the month (by the time they were paid).' }),
    cancelled: Type.Integer({ minimum: 0, description: 'Invoices cancelled in the month.' }),
    expired: Type.Integer({
      minimum: 0,
      description:
        'Invoices whose deadline passed in the month unpaid, and that are expired still (not renewed since).',
    }),
    paidVolume: Type.Array(PaidVolumeView, {
      description: 'What the paid invoices were worth, per currency and network. Empty when nothing was paid.',
    }),
  }),
  credits: Type.Object({
    openingBalance: Credits('The credit balance when the month began.'),
    granted: Credits('Credits granted in the month: the new-workspace grant, grants by the operator.'),
    purchased: Credits('Credits of credit purchases paid in the month.'),
    spent: Credits('Credits taken in the month: invoice creation, renewals, captured success fees.'),
    closingBalance: Credits(
      'The balance when the month ended (or now, for the current month). Always openingBalance + granted + purchased − spent.',
    ),
    movements: Type.Array(LedgerMovementView, {
      description: 'The same credits by ledger entry kind, for the month; kinds without entries are left out.',
    }),
  }),
});
