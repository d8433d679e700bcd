import type { CreditPackage } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { formatUsdc } from '../../shared/money.js';
import { checkGrant, parseLedgerCursor, type LedgerEntry } from './credits.js';
import { addCredits, findAccount, listLedger } from './credits.repo.js';

/** Credits per invoice by `expiresIn`. */
export const TARIFF = { '3600': 1, '86400': 2, '432000': 3 } as const;

export interface PackageOffer {
  readonly id: string;
  readonly credits: number;
  readonly price: string;
  readonly currency: 'USDC';
}

export interface Billing {
  readonly creditBalance: number;
  readonly reservedCredits: number;
  readonly availableCredits: number;
  readonly maxInvoiceAmount: string;
  readonly tariff: typeof TARIFF;
  readonly successFeeCredits: number;
  readonly firstWorkspaceOfWallet: boolean;
  readonly packages: PackageOffer[];
}

export interface BillingServiceDeps {
  readonly db: Db;
  readonly maxInvoiceAmount: bigint;
  readonly successFeeCredits: number;
  readonly creditPackages: readonly CreditPackage[];
  /** The numbers of invoices by id (the invoices module): the ledger names an invoice as people do. */
  readonly invoiceNumbers: (workspaceId: WorkspaceId, invoiceIds: readonly string[]) => Promise<Map<string, string>>;
}

export class BillingService {
  private readonly packages: PackageOffer[];

  constructor(private readonly deps: BillingServiceDeps) {
    this.packages = deps.creditPackages.map(presentPackage);
  }

  async get(workspaceId: WorkspaceId): Promise<Billing> {
    const account = await findAccount(this.deps.db, workspaceId);
    if (!account) throw noAccount();
    return {
      creditBalance: Number(account.balance),
      reservedCredits: Number(account.reserved),
      availableCredits: Number(account.balance - account.reserved),
      maxInvoiceAmount: formatUsdc(this.deps.maxInvoiceAmount),
      tariff: TARIFF,
      successFeeCredits: this.deps.successFeeCredits,
      firstWorkspaceOfWallet: account.first_of_wallet,
      packages: this.packages,
    };
  }

  /**
   * A page of the ledger, newest first: `after` is the `nextCursor` of the page before (an entry's
   * position), `nextCursor` null when nothing older is left.
   */
  async ledger(
    workspaceId: WorkspaceId,
    query: { after?: string; limit: number },
  ): Promise<{ entries: LedgerEntry[]; nextCursor: string | null }> {
    const before = parseLedgerCursor(query.after);
    // One row beyond the page tells whether another page exists.
    const rows = await listLedger(this.deps.db, workspaceId, { before, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const invoiceIds = [
      ...new Set(page.flatMap((entry) => (entry.reference?.startsWith('inv_') ? [entry.reference] : []))),
    ];
    const numbers = await this.deps.invoiceNumbers(workspaceId, invoiceIds);
    const entries = page.map((entry) => ({
      ...entry,
      invoiceNumber: (entry.reference && numbers.get(entry.reference)) ?? null,
    }));
    const last = entries.at(-1);
    return { entries, nextCursor: rows.length > query.limit && last ? last.seq.toString() : null };
  }

  /**
   * The operator grants credits by hand (npm run credits -- grant): one `manual_grant` entry with its
   * reason, and the balance, in one transaction. Resolves the balance and reserve after it.
   */
  async grant(
    workspaceId: WorkspaceId,
    credits: number,
    reason: string,
  ): Promise<{ creditBalance: number; availableCredits: number }> {
    const grant = checkGrant(credits, reason);
    const account = await this.deps.db
      .transaction()
      .execute((trx) =>
        addCredits(trx, workspaceId, { kind: 'manual_grant', credits: BigInt(grant.credits), reason: grant.reason }),
      );
    if (!account) throw noAccount();
    return {
      creditBalance: Number(account.balance),
      availableCredits: Number(account.balance - account.reserved),
    };
  }
}

function presentPackage(creditPackage: CreditPackage): PackageOffer {
  return {
    id: creditPackage.id,
    credits: creditPackage.credits,
    price: formatUsdc(creditPackage.price),
    currency: 'USDC',
  };
}

function noAccount(): AppError {
  return new AppError('not_found', 'This workspace has no credit account.');
}
