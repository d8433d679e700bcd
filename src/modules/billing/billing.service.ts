import type { Db } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { formatUsdc } from '../../shared/money.js';
import { findAccount } from './credits.repo.js';

/** Credits per invoice by `expiresIn`. */
export const TARIFF = { '3600': 1, '86400': 2, '432000': 3 } as const;

export interface Billing {
  readonly creditBalance: number;
  readonly reservedCredits: number;
  readonly availableCredits: number;
  readonly maxInvoiceAmount: string;
  readonly tariff: typeof TARIFF;
  readonly successFeeCredits: number;
}

export class BillingService {
  constructor(private readonly deps: { db: Db; maxInvoiceAmount: bigint; successFeeCredits: number }) {}

  async get(workspaceId: WorkspaceId): Promise<Billing> {
    const account = await findAccount(this.deps.db, workspaceId);
    if (!account) throw new AppError('not_found', 'This workspace has no credit account.');
    return {
      creditBalance: Number(account.balance),
      reservedCredits: Number(account.reserved),
      availableCredits: Number(account.balance - account.reserved),
      maxInvoiceAmount: formatUsdc(this.deps.maxInvoiceAmount),
      tariff: TARIFF,
      successFeeCredits: this.deps.successFeeCredits,
    };
  }
}
