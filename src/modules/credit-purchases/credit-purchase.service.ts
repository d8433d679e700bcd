import type { Network } from '../../chain/networks.js';
import type { CreditPackage } from '../../config/config.js';
import { inOneSnapshot, type Db, type Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { walletAddress, type WorkspaceId } from '../../shared/ids.js';
import { addCredits, takeBackCredits } from '../billing/index.js';
import { IDEMPOTENCY_TTL_SECONDS, checkIdempotencyKey, createIdempotently, requestHash } from '../idempotency/index.js';
import {
  PURCHASE_WINDOW_SECONDS,
  newCreditPurchaseId,
  purchaseCursor,
  transition,
  type CreditPurchase,
  type CreditPurchaseId,
  type PurchaseCommand,
  type PurchaseTransition,
} from './credit-purchase.js';
import { presentPurchase, type CreditPurchaseView, type PurchaseAttempt } from './credit-purchase.present.js';
import {
  findPurchase,
  insertPurchase,
  listPurchases,
  toPurchase,
  toStored,
  updatePurchase,
} from './credit-purchase.repo.js';

/** The Idempotency-Key scope of POST /credit-purchases: its keys never meet those of POST /invoices. */
const IDEMPOTENCY_SCOPE = 'credit_purchases.create';

export interface CreditPurchaseServiceDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly packages: readonly CreditPackage[];
  /** Receives the purchases; without it there is nothing to pay and every use case answers 503. */
  readonly operatorWallet: string | undefined;
  readonly networks: readonly Network[];
  readonly publicBaseUrl: URL;
  /** The payment engine's latest attempt at each of these purchases (those without one are absent), read on `db`. */
  readonly attempts: (
    db: Executor,
    workspaceId: WorkspaceId,
    purchaseIds: readonly CreditPurchaseId[],
  ) => Promise<ReadonlyMap<CreditPurchaseId, PurchaseAttempt>>;
}

export interface CreatePurchaseOptions {
  readonly idempotencyKey: string | string[] | undefined;
  readonly source: 'api' | 'portal';
}

/**
 * Credit purchases: the order half. A purchase is made here and read here; its payment (authorizations,
 * transactions, x402, settlement) belongs to the payment engine, which reports each step through
 * `applyPaymentStep` and tells the latest attempt through the `attempts` port.
 */
export class CreditPurchaseService {
  constructor(private readonly deps: CreditPurchaseServiceDeps) {}

  /**
   * Makes a purchase of one package, or replays the stored result of an earlier request with the same
   * Idempotency-Key and body (the rules of POST /invoices: a concurrent duplicate waits for the first
   * and replays it; the same key with another body is refused; a refusal leaves the key unused).
   */
  async create(
    workspaceId: WorkspaceId,
    input: { packageId: string },
    options: CreatePurchaseOptions,
  ): Promise<{ purchase: CreditPurchaseView; replayed: boolean }> {
    const payTo = this.operatorWallet();
    const key = checkIdempotencyKey(options.idempotencyKey);
    const creditPackage = this.deps.packages.find((candidate) => candidate.id === input.packageId);
    if (!creditPackage) {
      throw new AppError(
        'unknown_package',
        `There is no credit package "${input.packageId}". The packages on offer are: ${this.deps.packages.map((p) => p.id).join(', ')} (GET /billing).`,
      );
    }
    const now = this.deps.clock.now();
    const claim = {
      scope: IDEMPOTENCY_SCOPE,
      key,
      requestHash: requestHash(input),
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_SECONDS * 1000),
    };
    const outcome = await this.deps.db.transaction().execute((trx) =>
      createIdempotently(trx, workspaceId, claim, {
        // The purchase that key made, as it is now: a retry after it was paid must not show it open.
        replay: async (response) => {
          const made = toPurchase(response as Record<string, unknown>);
          return (await findPurchase(trx, workspaceId, made.id)) ?? made;
        },
        create: async () => {
          const purchase = await insertPurchase(trx, {
            workspaceId,
            id: newCreditPurchaseId(),
            packageId: creditPackage.id,
            credits: creditPackage.credits,
            price: creditPackage.price,
            status: 'open',
            payTo,
            network: null,
            expiresAt: new Date(now.getTime() + PURCHASE_WINDOW_SECONDS * 1000),
            createdAt: now,
            paidAt: null,
            source: options.source,
          });
          return { made: purchase, response: toStored(purchase) };
        },
      }),
    );
    if (outcome.kind === 'reused') {
      throw new AppError(
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different request body. Use a new key for a new purchase.',
      );
    }
    return {
      purchase: (await this.present(this.deps.db, workspaceId, [outcome.made]))[0]!,
      replayed: outcome.kind === 'replay',
    };
  }

  async get(workspaceId: WorkspaceId, purchaseId: CreditPurchaseId): Promise<CreditPurchaseView> {
    this.operatorWallet();
    const [view] = await inOneSnapshot(this.deps.db, async (trx) => {
      const purchase = await findPurchase(trx, workspaceId, purchaseId);
      return purchase ? this.present(trx, workspaceId, [purchase]) : [];
    });
    if (!view) throw new AppError('not_found', 'No such credit purchase in this workspace.');
    return view;
  }

  /** A page of the workspace's purchases, newest first. */
  async list(
    workspaceId: WorkspaceId,
    query: { cursor?: string; limit: number },
  ): Promise<{ purchases: CreditPurchaseView[]; nextCursor: string | null }> {
    this.operatorWallet();
    const before = purchaseCursor.parse(query.cursor);
    return inOneSnapshot(this.deps.db, async (trx) => {
      // One row beyond the page tells whether another page exists.
      const rows = await listPurchases(trx, workspaceId, { before, limit: query.limit + 1 });
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      return {
        purchases: await this.present(trx, workspaceId, page),
        nextCursor: rows.length > query.limit && last ? purchaseCursor.encode(last) : null,
      };
    });
  }

  /**
   * A payment step of the purchase, inside the payment engine's transaction: locks the purchase, asks
   * the state machine, writes the change and — on the step into `paid` — adds the package's credits
   * with a `purchase` ledger entry, together. Resolves the refusal (nothing written) when the step does
   * not apply, undefined when there is no such purchase.
   */
  async applyPaymentStep(
    trx: Executor,
    workspaceId: WorkspaceId,
    purchaseId: CreditPurchaseId,
    command: PurchaseCommand,
    at: Date = this.deps.clock.now(),
  ): Promise<{ purchase: CreditPurchase; result: PurchaseTransition } | undefined> {
    const purchase = await findPurchase(trx, workspaceId, purchaseId, true);
    if (!purchase) return undefined;
    const result = transition(purchase, command, at);
    if (!result.ok) return { purchase, result };
    const updated = await updatePurchase(trx, purchase, result.changes);
    if (result.credits > 0) {
      const account = await addCredits(trx, workspaceId, {
        kind: 'purchase',
        credits: BigInt(result.credits),
        reference: purchase.id,
      });
      if (!account) throw new Error(`workspace ${workspaceId} has no credit account`);
    }
    if (result.credits < 0)
      await takeBackCredits(trx, workspaceId, {
        kind: 'purchase.reverted',
        credits: BigInt(-result.credits),
        reference: purchase.id,
      });
    return { purchase: updated, result };
  }

  /** The operator wallet, lowercase; 503 purchases_unavailable when none is configured. */
  private operatorWallet(): string {
    const wallet = this.deps.operatorWallet;
    if (!wallet) {
      throw new AppError(
        'purchases_unavailable',
        'Credit purchases are not available on this service: its operator has not configured the wallet that receives them (OPERATOR_WALLET).',
      );
    }
    return walletAddress(wallet);
  }

  /**
   * The purchases with their latest payment attempts, read on `db`: one snapshot for both when the
   * purchases were read in it, so that a settlement committing in between never shows a `processing`
   * purchase beside the attempt that paid it.
   */
  private async present(
    db: Executor,
    workspaceId: WorkspaceId,
    purchases: readonly CreditPurchase[],
  ): Promise<CreditPurchaseView[]> {
    const attempts = await this.deps.attempts(
      db,
      workspaceId,
      purchases.map((purchase) => purchase.id),
    );
    const context = {
      publicBaseUrl: this.deps.publicBaseUrl,
      networks: this.deps.networks,
      now: this.deps.clock.now(),
    };
    return purchases.map((purchase) => presentPurchase(purchase, attempts.get(purchase.id), context));
  }
}
