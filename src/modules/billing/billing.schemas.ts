import { Type } from '@sinclair/typebox';

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
});
