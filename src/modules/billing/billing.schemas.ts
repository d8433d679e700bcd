import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../http/common.schemas.js';
import { LEDGER_KINDS } from './credits.js';

export const PackageView = Type.Object({
  id: Type.String({ description: 'Send it as `packageId` to POST /credit-purchases.' }),
  credits: Type.Integer({ description: 'Credits added when the purchase is paid.' }),
  price: Type.String({ description: 'USDC, always with 6 decimals ("90.000000").' }),
  currency: Type.Literal('USDC'),
});

export const BillingView = Type.Object({
  creditBalance: Type.Integer({ description: 'Credits held, including reserved ones.' }),
  reservedCredits: Type.Integer({ description: 'Success-fee credits reserved by open invoices.' }),
  availableCredits: Type.Integer({ description: 'creditBalance − reservedCredits: what new invoices can use.' }),
  maxInvoiceAmount: Type.String({ description: 'The largest invoice amount in USDC, as a decimal string.' }),
  tariff: Type.Object(
    { '3600': Type.Integer(), '86400': Type.Integer(), '432000': Type.Integer() },
    { description: 'Credits charged per invoice by its expiresIn (seconds).' },
  ),
  successFeeCredits: Type.Integer({
    description: 'Credits reserved at creation and captured when the invoice is paid.',
  }),
  firstWorkspaceOfWallet: Type.Boolean({
    description:
      "Whether this is its wallet's first workspace. New-workspace credits are granted once per wallet, to that one; " +
      "the same wallet's later workspaces start with 0.",
  }),
  packages: Type.Array(PackageView, { description: 'The credit packages on offer (POST /credit-purchases).' }),
});

const KINDS = Object.entries(LEDGER_KINDS)
  .map(([kind, meaning]) => `\`${kind}\`: ${meaning}`)
  .join(' ');

export const LedgerEntryView = Type.Object({
  id: Type.String({
    description: "The entry's position in this workspace's ledger (1, 2, …), as a decimal string.",
  }),
  kind: Type.String({ description: `What the entry records. ${KINDS}` }),
  reason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why, in words: the reason of a manual grant, the new-workspace grant. Null for invoice entries.',
  }),
  amount: Type.Integer({ description: 'Change of the credit balance: positive adds credits, negative takes them.' }),
  reserveChange: Type.Integer({
    description: 'Change of the reserved credits: positive reserves, negative releases or captures.',
  }),
  balanceAfter: Type.Integer({ description: 'The credit balance right after this entry.' }),
  reference: Type.Union([Type.String(), Type.Null()], {
    description: 'What the entry was for: an invoice id (`inv_…`) or a credit purchase id (`cp_…`); null for grants.',
  }),
  invoiceNumber: Type.Union([Type.String(), Type.Null()], {
    description: 'The number of the invoice `reference` names (`INV-000012`); null when it names none.',
  }),
  createdAt: Timestamp,
});

export const LedgerQuery = Type.Object({
  after: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'Omit for the newest entries; then the `nextCursor` of the previous page. Opaque.',
    }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Entries per page, 1–200.' }),
});

/** Schema failures of these query fields answer with the field's own code. */
export const LEDGER_FIELD_CODES = { after: 'invalid_cursor' } as const;

export const LedgerPage = Type.Object({
  entries: Type.Array(LedgerEntryView, { description: 'Newest first.' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `after` for the next (older) page; null when there is none.',
  }),
});
