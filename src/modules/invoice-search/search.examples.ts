import type { OperationExamples } from '../../http/openapi-examples.js';
import { PAID_INVOICE_EXAMPLE } from '../invoices/index.js';

export const searchExamples = {
  search: { response: { invoices: [PAID_INVOICE_EXAMPLE], nextCursor: null } },
} satisfies Record<string, OperationExamples>;
