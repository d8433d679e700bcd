import { keccak256 } from 'viem';
import { blockSeconds, type Network } from '../../chain/networks.js';
import type { Db, Executor } from '../../db/database.js';
import { RetryLater, enqueueJob, type JobLogger } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, type ErrorCode } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { formatUsdc } from '../../shared/money.js';
import { isOrderNonce } from '../../shared/payment-request.js';
import { GroupedWrites, WorkspaceWrites } from '../events/index.js';
import type { LogTarget } from '../../shared/operator-log.js';
import {
  SettlementWouldRevert,
  blockOf,
  type ChainPort,
  type ChainTransfer,
  type ReceiptStatus,
} from '../../chain/chain-port.js';
import { presentAttempt, type PaymentAttemptView } from './payment.present.js';
import {
  heldByAnother,
  invoiceOrder,
  type InvoiceLabel,
  type OrderBooks,
  type OrderRef,
  type PayableOrder,
} from './order.js';
import { OrderChanges, waitForChange } from '../order-changes/index.js';
import { LockedRows } from '../../db/locked-rows.js';
import { Orders, type OrderState } from './orders.js';
import { newPaymentIntentId, type FailureReason, type PaymentIntent, type PaymentIntentId } from './payment-intent.js';
import {
  announcePaymentChange,
  claimTransfer,
  claimedLogIndexes,
  findIntent,
  insertIntent,
  latestIntentOf,
  latestPurchaseAttempts,
  isSettlementTransaction,
  lockIntent,
  lockIntents,
  otherHolderOf,
  releaseClaim,
  succeededIntentOf,
  transactionPaidAlike,
  unfoundClaimsOf,
  updateIntent,
} from './payment.repo.js';
import {
  authorizationKey,
  authorizationPays,
  orderNonceVersion,
  sameOrder,
  type Binding,
  bindAuthorization,
  findBinding,
} from '../authorization-bindings/index.js';
import {
  isNonceTaken,
  relayerUnfunded,
  type RelayerWatch,
  type SettlementKeeper,
  type SettlementSender,
} from '../relayer/index.js';
import { NEW_BLOCK, NewBlockWatcher } from '../new-blocks/index.js';
import { judgeTransfer } from '../transfer-rules/index.js';
import type { SignedAuthorization } from './signed-authorization.js';

export const SETTLE_JOB = 'payments.settle';
export const VERIFY_TRANSACTION_JOB = 'payments.verify_transaction';
/** Authorizations must stay valid a little longer than settlement takes (the x402 facilitators use 6 s). */
export const VALIDITY_MARGIN_SECONDS = 6;

export interface PaymentServiceDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly chain: ChainPort;
  readonly networks: readonly Network[];
  /** A submitted hash the network does not know is dropped this long after submission. */
  readonly unseenTransactionMs: number;
  /** What may pay each kind of order, and its state machine's payment steps: the orders' own modules answer. */
  readonly orders: OrderBooks;
  /** Where a submitted transfer that cannot pay its invoice is recorded for the merchant (received transfers). */
  readonly unpaidTransfers?: UnpaidTransfers;
  /** The relayer: whether it can pay gas, and how its settlements are signed, sent and replaced. */
  readonly relayer: { readonly watch: RelayerWatch; readonly sender: SettlementSender };
  /** Told of each payment recorded, failed or reverted. */
  readonly log: LogTarget;
}

/** Records a transfer that reached the wallet but pays nothing, with why and the invoice it was meant for. */
export interface UnpaidTransfers {
  record(
    workspaceId: WorkspaceId,
    transfer: AppliedTransfer,
    why: { reason: 'amount_mismatch' | 'late'; invoiceId: string },
  ): Promise<unknown>;
}

/** The most blocks back the use of an authorization is looked for (providers bound eth_getLogs ranges). */
const MAX_USE_SEARCH_BLOCKS = 10_000;
/** Blocks looked at before an authorization's submission, for the difference between clocks. */
const USE_SEARCH_MARGIN_BLOCKS = 100;
const FOR_ANOTHER_ORDER =
  'This authorization was made for another invoice or credit purchase and pays only that one; sign a payment for this one.';

/** Submitted hashes of one order looked for at once; more wait until one is found or dropped. */
export const MAX_UNFOUND_CLAIMS = 5;

/** A confirmed USDC transfer a merchant applies to an order. */
export type AppliedTransfer = ChainTransfer & { readonly network: string };
/** How long after submission an unknown hash is looked for at every new block; then less and less often. */
const LOOK_EVERY_BLOCK_SECONDS = 60;
/** The longest pause between two looks for a submitted hash the network does not know yet. */
const MAX_LOOK_INTERVAL_SECONDS = 15;

export class PaymentService {
  private readonly orders: Orders;
  private readonly outcomes: GroupedWrites<{ intent: PaymentIntent; outcome: Outcome; at: Date }, LockedRows>;
  /** New payments of a workspace, begun together (beginIntent). */
  private readonly beginnings: GroupedWrites<Beginning>;
  /** Settlements looking at the chain for their block, and outcomes waiting to be written (`outcomes`). */
  private looking = 0;
  private finishing = 0;

  /** The changes of orders as this process hears them, for whoever follows orders as they change. */
  readonly orderChanges = new OrderChanges();

  constructor(private readonly deps: PaymentServiceDeps) {
    this.orders = new Orders(deps.orders, deps.clock);
    // Payments of different invoices touch different rows; credit purchases all credit the workspace.
    const rowsOf = (order: OrderRef) => (order.kind === 'invoice' ? `invoice ${order.id}` : order.kind);
    this.beginnings = new GroupedWrites({
      db: deps.db,
      log: deps.log,
      write: (trx, writes, beginning) => this.begin(trx, writes, beginning),
      lockOrder: ({ order, intentId }) => `${order.ref.kind} ${order.ref.id} ${intentId}`,
      rowsOf: ({ order }) => rowsOf(order.ref),
      pipelined: true,
      // Twenty payers pay within milliseconds of each other, each beginning on the workspace's counter.
      gatherWhileWriting: true,
    });
    this.outcomes = new GroupedWrites({
      db: deps.db,
      log: deps.log,
      write: (trx, writes, { intent, outcome, at }, locked) => this.record(trx, writes, intent, outcome, at, locked),
      // A group's intents and orders are locked one statement a table, not one a payment.
      prepare: (trx, items) => this.lockAll(trx, items),
      lockOrder: ({ intent }) => `${intent.order.kind} ${intent.order.id} ${intent.id}`,
      // A block wakes its settlements at once, and their outcomes come within milliseconds of each other.
      more: () => this.looking > this.finishing,
      rowsOf: ({ intent }) => rowsOf(intent.order),
      pipelined: true,
    });
  }

  /**
   * What decides whether an order can take a payment, as read now. Its changes are announced on
   * ORDER_CHANGES_CHANNEL, so a copy can be kept while they are heard.
   */
  readOrder(workspaceId: WorkspaceId, ref: OrderRef): Promise<OrderState> {
    return this.orders.read(workspaceId, ref);
  }

  /** The order of `state`, if it can take a new payment at `now`; otherwise the error that says why. */
  judgeOrder(state: OrderState, now: Date): PayableOrder {
    return this.orders.judge(state, now);
  }

  /** The order, if it can take a new payment now; otherwise the error that says why. */
  payableOrder(workspaceId: WorkspaceId, ref: OrderRef): Promise<PayableOrder> {
    return this.orders.payable(workspaceId, ref);
  }

  /**
   * Checks a signed EIP-3009 authorization against the order and the chain (signature, recipient, exact
   * amount, validity window, unused nonce, balance by simulation), then records the payment intent, moves
   * the order to processing and schedules settlement — all in one transaction. Nothing moves money here.
   */
  async submitAuthorization(
    workspaceId: WorkspaceId,
    ref: OrderRef,
    submission: SignedAuthorization,
  ): Promise<PaymentIntent> {
    const order = await this.orders.payable(workspaceId, ref);
    const noun = ref.kind === 'invoice' ? 'invoice' : 'credit purchase';
    const network = order.networks.find((candidate) => candidate.chainId === submission.chainId);
    if (!network) refuse(`This ${noun} is not payable on that network.`);
    const { authorization, signature } = submission;
    const now = Math.floor(this.deps.clock.now().getTime() / 1000);
    if (authorization.to.toLowerCase() !== order.payTo)
      throw new AppError(
        'pay_to_mismatch',
        ref.kind === 'invoice'
          ? 'The authorization pays another address than the invoice recipient; only the workspace wallet can be paid.'
          : 'The authorization pays another address than the operator wallet, the only recipient of credit purchases.',
        { fields: { reason: 'recipient_mismatch' } },
      );
    if (BigInt(authorization.value) !== order.amount)
      refuse(`The authorization is not for the exact ${noun} amount.`, 'amount_mismatch');
    if (submission.linkVersion !== undefined && submission.linkVersion !== order.linkVersion)
      refuse('The authorization was made for an older payment link.', 'expired');
    checkAuthorizationIsFor(order, submission);
    // Refused before anything is signed or sent: the buyer's USDC never moves for a settlement that cannot be paid.
    if (!(await this.deps.relayer.watch.canPayGas(network))) throw relayerUnfunded(network.name);
    if (BigInt(authorization.validAfter) > BigInt(now)) refuse('The authorization is not valid yet.');
    if (BigInt(authorization.validBefore) < BigInt(now + VALIDITY_MARGIN_SECONDS))
      refuse('The authorization expires too soon to be settled.', 'expired');
    if (!(await this.deps.chain.verifyAuthorization(network, authorization, signature)))
      refuse('The signature does not match the authorization.', 'invalid_signature');
    // One node call decides the rest: the token's own checks, a used authorization among them.
    const simulation = await this.deps.chain.simulateSettlement(network, authorization, signature);
    if (simulation === 'nonce_already_used') refuse('This authorization was already used.', 'already_used');
    if (simulation)
      refuse(
        `The transfer would fail on-chain (${simulation}).`,
        simulation === 'insufficient_balance' ? 'insufficient_balance' : 'settlement_failed',
      );

    return this.beginIntent(
      workspaceId,
      order,
      network,
      {
        method: 'authorization',
        payer: authorization.from.toLowerCase(),
        authorization: { authorization, signature },
        txHash: null,
        paymentIdentifier: submission.paymentIdentifier ?? null,
      },
      SETTLE_JOB,
    );
  }

  /**
   * Records a buyer's claim that a plain USDC transfer pays the order, and the job that looks for it.
   * The claim holds nothing: the order stays open and payable by any other path until a transfer that
   * pays it is found in a block. Submitting the same hash again answers the same attempt; a transfer
   * that already paid something like it is refused at once.
   */
  async submitTransaction(
    workspaceId: WorkspaceId,
    ref: OrderRef,
    submission: {
      network: Network;
      txHash: `0x${string}`;
      /** Found in a confirmed block by the service's own scan: no bound on unseen hashes applies. */
      seenOnChain?: boolean;
    },
  ): Promise<PaymentIntent> {
    const order = await this.orders.payable(workspaceId, ref);
    const { network } = submission;
    if (!order.networks.includes(network))
      throw new AppError(
        'unsupported_network',
        `This ${ref.kind === 'invoice' ? 'invoice' : 'credit purchase'} is not payable on ${network.name}.`,
      );
    const txHash = submission.txHash.toLowerCase() as `0x${string}`;
    const [paid, settlement] = await Promise.all([
      transactionPaidAlike(this.deps.db, {
        network: network.name,
        txHash,
        payTo: order.payTo,
        amount: order.amount,
      }),
      isSettlementTransaction(this.deps.db, network.name, txHash),
    ]);
    if (paid || settlement)
      refuse(
        'This transaction already paid an invoice or a credit purchase; a transfer pays only once.',
        'already_used',
      );
    const at = this.deps.clock.now();
    // The bound on unseen hashes holds back made-up ones only: a hash the node knows (mined or pending)
    // is always taken, so nobody holding the link can block the buyer's real one. Asked only at the
    // bound, and before the transaction, which holds the order's lock.
    const atBound =
      !submission.seenOnChain && (await unfoundClaimsOf(this.deps.db, workspaceId, ref)).length >= MAX_UNFOUND_CLAIMS;
    const known =
      submission.seenOnChain || (atBound && (await this.deps.chain.receipt(network, txHash)).kind !== 'not_found');
    return this.deps.db.transaction().execute(async (trx) => {
      // The order lock orders the submissions of one order, so the bound below is exact.
      await this.orders.lock(trx, workspaceId, ref);
      const claims = await unfoundClaimsOf(trx, workspaceId, ref);
      const same = claims.find((claim) => claim.txHash === txHash && claim.network === network.name);
      if (same) return (await findIntent(trx, workspaceId, same.id))!;
      if (claims.length >= MAX_UNFOUND_CLAIMS && !known) throw tooManyUnfound(ref, this.deps.unseenTransactionMs);
      const intentId = newPaymentIntentId();
      await insertIntent(trx, {
        workspaceId,
        id: intentId,
        order: ref,
        method: 'transaction',
        status: 'processing',
        network: network.name,
        amount: order.amount,
        payTo: order.payTo,
        payer: null,
        linkVersion: order.linkVersion,
        authorization: null,
        txHash,
        submittedAt: at,
        foundAt: null,
        holdsOrder: false,
      });
      await enqueueJob(trx, {
        kind: VERIFY_TRANSACTION_JOB,
        workspaceId,
        payload: { intentId },
        uniqueKey: intentId,
      });
      // The order's row is unchanged, yet its payment details show the claim now (other tabs, devices).
      await announcePaymentChange(trx, workspaceId, ref);
      return (await findIntent(trx, workspaceId, intentId))!;
    });
  }

  /**
   * Pays the order with a transfer already seen confirmed on the chain, which the merchant chose for it
   * (a received transfer): recorded as a succeeded payment of the transfer, as a verified submitted hash
   * is, with what arrived. A short transfer needs `acceptShortfall`; an excess is recorded as overpaid.
   * Refused when the order cannot take a payment, the transfer went to another wallet, or another
   * payment already claimed it.
   */
  async applyTransfer(
    workspaceId: WorkspaceId,
    ref: OrderRef,
    transfer: AppliedTransfer,
    options: { acceptShortfall: boolean },
  ): Promise<PaymentIntent> {
    const order = await this.orders.payable(workspaceId, ref);
    if (transfer.to !== order.payTo)
      throw new AppError(
        'pay_to_mismatch',
        `This transfer went to ${transfer.to}, not to ${order.payTo}, where this invoice is paid.`,
      );
    if (transfer.value < order.amount && !options.acceptShortfall)
      throw new AppError(
        'shortfall_not_accepted',
        `This transfer of ${formatUsdc(transfer.value)} USDC is ${formatUsdc(order.amount - transfer.value)} USDC short of the amount ${formatUsdc(order.amount)} USDC. Send acceptShortfall: true to mark it paid with it.`,
      );
    const intentId = newPaymentIntentId();
    const at = this.deps.clock.now();
    await insertIntent(this.deps.db, {
      workspaceId,
      id: intentId,
      order: ref,
      method: 'transaction',
      status: 'processing',
      network: transfer.network,
      amount: order.amount,
      amountReceived: transfer.value,
      payTo: order.payTo,
      payer: null,
      linkVersion: order.linkVersion,
      authorization: null,
      txHash: transfer.txHash,
      submittedAt: at,
      foundAt: null,
      holdsOrder: false,
    });
    const intent = (await findIntent(this.deps.db, workspaceId, intentId))!;
    const { logIndex, blockNumber, blockTime, from: payer } = transfer;
    await this.finish(intent, { succeeded: { logIndex, blockNumber, blockTime, payer } });
    const outcome = (await findIntent(this.deps.db, workspaceId, intentId))!;
    if (outcome.status !== 'succeeded')
      throw new AppError('invalid_payment', 'Another payment already claimed this transfer; it pays only once.');
    return outcome;
  }

  /**
   * The verification job of a submitted transaction (rules in modules/transfer-rules). Waits by RetryLater
   * while the transaction is unseen, unmined or short of confirmations; records a failure with its reason, or
   * claims the transfer and marks the order paid. Safe to run again: a finished intent is left alone,
   * and the claim is unique per (network, tx_hash, log_index) across all workspaces.
   */
  async verifyTransaction(workspaceId: WorkspaceId, intentId: PaymentIntentId): Promise<void> {
    const intent = await findIntent(this.deps.db, workspaceId, intentId);
    if (!intent || intent.status !== 'processing' || intent.method !== 'transaction' || !intent.txHash) return;
    const order = await this.orders.find(this.deps.db, workspaceId, intent.order);
    if (!order) return;
    const network = this.networkNamed(intent.network);
    const receipt = await this.deps.chain.receipt(network, intent.txHash);
    const bindings = await this.bindingsOf(network, receipt);
    const verdict = judgeTransfer(
      receipt,
      {
        authorizedFor: (log) =>
          authorizationPays(log.authorizationNonce, bindings.get(log.logIndex), {
            workspaceId,
            order: intent.order,
            linkVersion: order.linkVersion,
          }),
        payTo: intent.payTo,
        amount: intent.amount,
        confirmations: network.confirmations,
        submittedAt: intent.submittedAt,
        invoiceCreatedAt: order.createdAt,
        deadline: order.expiresAt,
        unseenWindowMs: this.deps.unseenTransactionMs,
      },
      this.deps.clock.now(),
    );
    const interval = blockSeconds(network);
    if (verdict.kind === 'wait') {
      // An unknown hash is looked for less often the longer it stays unknown: a pile of made-up hashes
      // costs the node little.
      const waited = (this.deps.clock.now().getTime() - intent.submittedAt.getTime()) / 1000;
      const pause = intent.foundAt ? interval : Math.min(MAX_LOOK_INTERVAL_SECONDS, interval + waited / 60);
      // Each new block may bring its confirmation or, in the first minute, the transfer itself.
      const onBlock = intent.foundAt || waited < LOOK_EVERY_BLOCK_SECONDS ? NEW_BLOCK : undefined;
      throw new RetryLater(Math.ceil(pause), verdict.why, onBlock);
    }
    if (verdict.kind === 'found') {
      await this.markFound(intent, verdict.blockTime);
      throw new RetryLater(interval, 'waiting for confirmations', NEW_BLOCK);
    }
    if (verdict.kind === 'fail') {
      await this.recordUnpaid(intent, receipt, verdict.reason);
      return this.finish(intent, { failed: verdict.reason });
    }
    // Several equal transfers to the wallet in one transaction may pay several orders: take a free one.
    const claimed = new Set(await claimedLogIndexes(this.deps.db, network.name, intent.txHash));
    const transfer = verdict.candidates.find((log) => !claimed.has(log.logIndex));
    if (!transfer) return this.finish(intent, { failed: 'already_used' });
    return this.finish(intent, {
      succeeded: {
        logIndex: transfer.logIndex,
        blockNumber: verdict.blockNumber,
        blockHash: verdict.blockHash,
        blockTime: verdict.blockTime,
        payer: transfer.from.toLowerCase(),
      },
    });
  }

  /**
   * A submitted transfer to the invoice's wallet that cannot pay it (another amount, or mined after the
   * deadline) is money the merchant received all the same: it is recorded for them to apply or dismiss.
   */
  private async recordUnpaid(intent: PaymentIntent, receipt: ReceiptStatus, reason: FailureReason): Promise<void> {
    const why = reason === 'amount_mismatch' ? 'amount_mismatch' : reason === 'expired' ? 'late' : undefined;
    if (!why || receipt.kind !== 'mined' || intent.order.kind !== 'invoice' || !this.deps.unpaidTransfers) return;
    const claimed = new Set(await claimedLogIndexes(this.deps.db, intent.network, intent.txHash!));
    for (const log of receipt.transfers)
      if (log.to.toLowerCase() === intent.payTo && !claimed.has(log.logIndex))
        await this.deps.unpaidTransfers.record(
          intent.workspaceId,
          {
            network: intent.network,
            txHash: intent.txHash!.toLowerCase() as `0x${string}`,
            logIndex: log.logIndex,
            from: log.from.toLowerCase() as `0x${string}`,
            to: log.to.toLowerCase() as `0x${string}`,
            value: log.value,
            blockNumber: receipt.blockNumber,
            blockTime: receipt.blockTime,
          },
          { reason: why, invoiceId: intent.order.id },
        );
  }

  /**
   * The settlement job: simulate, sign and store the relayer transaction, send it, wait for the network's
   * confirmations, then record the outcome. Safe to run again at any point: the signed bytes are stored
   * before they are sent, sending them again is the same transaction, and the token refuses a second
   * use of the authorization — money moves at most once.
   */
  async settle(workspaceId: WorkspaceId, intentId: PaymentIntentId): Promise<void> {
    // Counted among the settlements looking at the chain until it turns out to be a new one (it signs).
    let counted = true;
    const uncount = () => void (counted && ((counted = false), (this.looking -= 1)));
    this.looking += 1;
    try {
      await this.settleCounted(workspaceId, intentId, uncount);
    } finally {
      uncount();
    }
  }

  private async settleCounted(workspaceId: WorkspaceId, intentId: PaymentIntentId, uncount: () => void) {
    let intent = await findIntent(this.deps.db, workspaceId, intentId);
    if (!intent || intent.status !== 'processing' || !intent.authorization) return;
    const network = this.networkNamed(intent.network);
    const { authorization } = intent.authorization;
    let seen: ReceiptStatus | undefined;
    let sentNow = false;
    if (!intent.settlementRaw) {
      uncount();
      // Pricing the settlement runs it (its gas estimate): a transfer the token would now refuse is
      // found there, with no simulation of its own.
      const sent = await this.sendSettlement(intent, network);
      if (!sent) return;
      intent = sent;
      sentNow = true;
    } else {
      // Sent before: sent again only when the node does not know it (a lost broadcast, a block dropped by
      // a reorganisation), so a settlement waiting for its block costs a receipt read, not a broadcast too.
      seen = await this.deps.chain.receipt(network, intent.txHash!);
      if (seen.kind === 'not_found') {
        seen = undefined;
        try {
          intent =
            (await this.deps.relayer.sender.resend(network, intent.settlementRaw, this.keeper(intent))) ?? intent;
        } catch (error) {
          // The stored transaction lost its nonce to another one, so it can never be mined: unless it
          // already was, sign the settlement again. The token still lets the authorization run only once.
          if (!isNonceTaken(error)) throw error;
          if ((await this.deps.chain.receipt(network, intent.txHash!)).kind !== 'mined') {
            const sent = await this.sendSettlement(intent, network);
            if (!sent) return;
            intent = sent;
          }
        }
      }
    }
    if (intent.status !== 'processing' || !intent.txHash) return;
    const wait = network.blockTimeSeconds ?? 1;
    // Just sent: it needs a block to be mined, so the node is not asked (three calls a payment) until one
    // comes; a block that came while it was being sent runs the job again at once. One signed below the
    // base fee (a fee cap under it) is found stuck and reported at that next look.
    if (sentNow) throw new RetryLater(wait, 'settlement sent, waiting for its block', NEW_BLOCK);
    const receipt = seen ?? (await this.deps.chain.receipt(network, intent.txHash));
    if (receipt.kind !== 'mined') {
      const sender = this.deps.relayer.sender;
      throw new RetryLater(wait, await sender.unmined(network, intent.settlementRaw!, this.keeper(intent)), NEW_BLOCK);
    }
    this.deps.relayer.sender.settled(intent.txHash);
    if (!receipt.success) {
      const used = await this.deps.chain.authorizationUsed(network, authorization);
      return used ? this.followAuthorizationUse(intent, network) : this.finish(intent, { failed: 'reverted' });
    }
    if (receipt.confirmations < network.confirmations)
      throw new RetryLater(wait, 'waiting for confirmations', NEW_BLOCK);
    const transfer = receipt.transfers.find(
      (log) =>
        log.from.toLowerCase() === authorization.from.toLowerCase() &&
        log.to.toLowerCase() === intent!.payTo &&
        log.value === intent!.amount,
    );
    if (!transfer) return this.finish(intent, { failed: 'settlement_failed' });
    return this.finish(intent, {
      succeeded: { logIndex: transfer.logIndex, ...blockOf(receipt) },
    });
  }

  /**
   * Signs, keeps and sends the intent's settlement. One the token would refuse now is not sent: an
   * authorization used meanwhile is followed to the transaction that used it; any other refusal (the
   * payer's balance moved away since verification…) ends the attempt: undefined then.
   */
  private async sendSettlement(intent: PaymentIntent, network: Network): Promise<PaymentIntent | undefined> {
    const { authorization, signature } = intent.authorization!;
    try {
      return await this.deps.relayer.sender.signAndSend(network, authorization, signature, this.keeper(intent));
    } catch (error) {
      if (!(error instanceof SettlementWouldRevert)) throw error;
      if (error.reason === 'nonce_already_used') await this.followAuthorizationUse(intent, network);
      else
        await this.finish(intent, {
          failed: error.reason === 'insufficient_balance' ? 'insufficient_balance' : 'settlement_failed',
        });
      return undefined;
    }
  }

  /**
   * The authorization was used by a transaction other than the relayer's: someone copied it from the
   * mempool and got it mined first, or the payer ran it themselves. It was made for this order, so that
   * transfer is this order's payment: it is followed to the network's confirmations and recorded with
   * its own hash. Only when no such transfer can be found does the attempt fail `already_used`.
   */
  private async followAuthorizationUse(intent: PaymentIntent, network: Network): Promise<void> {
    const { authorization } = intent.authorization!;
    const hash = await this.deps.chain.authorizationUse(network, authorization, await this.searchFrom(network, intent));
    if (!hash) return this.finish(intent, { failed: 'already_used' });
    const receipt = await this.deps.chain.receipt(network, hash);
    const wait = network.blockTimeSeconds ?? 1;
    if (receipt.kind !== 'mined' || receipt.confirmations < network.confirmations)
      throw new RetryLater(
        wait,
        'waiting for the confirmations of the transaction that used the authorization',
        NEW_BLOCK,
      );
    const nonce = authorization.nonce.toLowerCase();
    const transfer = receipt.transfers.find(
      (log) => log.authorizationNonce === nonce && log.to.toLowerCase() === intent.payTo && log.value === intent.amount,
    );
    if (!receipt.success || !transfer) return this.finish(intent, { failed: 'already_used' });
    return this.finish(intent, {
      succeeded: {
        txHash: hash,
        logIndex: transfer.logIndex,
        ...blockOf(receipt),
      },
    });
  }

  /**
   * The block from which the use of an authorization accepted for `intent` is looked for: the blocks
   * since its submission at one a second (no configured network is faster), and a margin for clocks.
   */
  private async searchFrom(network: Network, intent: PaymentIntent): Promise<bigint> {
    const latest = await this.deps.chain.blockNumber(network);
    const seconds = Math.ceil((this.deps.clock.now().getTime() - intent.submittedAt.getTime()) / 1000);
    const blocks = BigInt(Math.min(MAX_USE_SEARCH_BLOCKS, Math.max(0, seconds) + USE_SEARCH_MARGIN_BLOCKS));
    return latest > blocks ? latest - blocks : 0n;
  }

  /** The orders the authorizations executed by the transaction's transfers were bound to, by log index. */
  private async bindingsOf(network: Network, receipt: ReceiptStatus): Promise<Map<number, Binding>> {
    const bindings = new Map<number, Binding>();
    if (receipt.kind !== 'mined') return bindings;
    for (const log of receipt.transfers) {
      if (!log.authorizationNonce) continue;
      const bound = await findBinding(
        this.deps.db,
        authorizationKey(network.name, { from: log.from, nonce: log.authorizationNonce }),
      );
      if (bound) bindings.set(log.logIndex, bound);
    }
    return bindings;
  }

  /** Waits (bounded) until the intent is no longer processing; answers it as it is then. */
  /**
   * The attempt this payment already made on the order: the one named with its payment identifier
   * (whatever became of it; `conflict` when that was another payment), else the one made with this very
   * signature while in flight or paid (latestIntentOf).
   */
  async samePayment(
    workspaceId: WorkspaceId,
    ref: OrderRef,
    submission: SignedAuthorization,
  ): Promise<PaymentIntent | 'conflict' | undefined> {
    const { db } = this.deps;
    if (submission.paymentIdentifier) {
      const named = await latestIntentOf(db, workspaceId, ref, { paymentIdentifier: submission.paymentIdentifier });
      if (named)
        return named.authorization?.signature.toLowerCase() === submission.signature.toLowerCase() ? named : 'conflict';
    }
    return latestIntentOf(db, workspaceId, ref, { signature: submission.signature });
  }

  /** The payment once it has an outcome (read again on each change of its order), or as it is after `timeoutMs`. */
  waitForOutcome(workspaceId: WorkspaceId, intentId: PaymentIntentId, timeoutMs: number): Promise<PaymentIntent> {
    return waitForChange(
      async () => (await findIntent(this.deps.db, workspaceId, intentId))!,
      (intent) => intent.order.id,
      (intent) => intent.status !== 'processing',
      (orderId, watcher) => this.orderChanges.watchOrder(workspaceId, orderId, watcher),
      timeoutMs,
    );
  }

  /**
   * A payment of an invoice and the invoice it pays (for its number and order reference). The payments
   * of credit purchases are the workspace's own, not its buyers': they are read on the purchase.
   */
  async intent(
    workspaceId: WorkspaceId,
    intentId: PaymentIntentId,
  ): Promise<{ intent: PaymentIntent; invoice: InvoiceLabel | undefined }> {
    const intent = await findIntent(this.deps.db, workspaceId, intentId);
    if (!intent || intent.order.kind !== 'invoice')
      throw new AppError('not_found', 'No such payment intent in this workspace.');
    return { intent, invoice: await this.deps.orders.invoice.label(this.deps.db, workspaceId, intent.order.id) };
  }

  /**
   * The order's latest payment attempt and the one that paid it, read with `db` (a caller's snapshot
   * transaction, so that they agree with what else it reads).
   */
  async attemptsOf(
    db: Executor,
    workspaceId: WorkspaceId,
    ref: OrderRef,
  ): Promise<{ latest: PaymentIntent | undefined; succeeded: PaymentIntent | undefined }> {
    return {
      latest: await latestIntentOf(db, workspaceId, ref),
      succeeded: await succeededIntentOf(db, workspaceId, ref),
    };
  }

  /** Makes this engine's jobs that wait for a block due as soon as one arrives (one per worker process). */
  newBlockWatcher(logger: JobLogger): NewBlockWatcher {
    const { db, chain, networks } = this.deps;
    return new NewBlockWatcher({ db, chain, networks, logger });
  }

  /** The latest payment attempt of each of these credit purchases, as a progress display shows it, read on `db`. */
  async purchaseAttempts<Id extends string>(
    db: Executor,
    workspaceId: WorkspaceId,
    purchaseIds: readonly Id[],
  ): Promise<Map<Id, PaymentAttemptView>> {
    const intents = await latestPurchaseAttempts(db, workspaceId, purchaseIds);
    return new Map(intents.map((intent) => [intent.order.id as Id, presentAttempt(intent)]));
  }

  /** The paid invoice, as its payments name it, and the payment that paid it. */
  async receipt(
    workspaceId: WorkspaceId,
    invoiceId: string,
  ): Promise<{ invoice: InvoiceLabel; payment: PaymentIntent }> {
    const invoice = await this.deps.orders.invoice.label(this.deps.db, workspaceId, invoiceId);
    if (!invoice) throw new AppError('not_found', 'No such invoice in this workspace.');
    const payment = await succeededIntentOf(this.deps.db, workspaceId, invoiceOrder(invoiceId));
    if (!invoice.paid || !payment)
      throw new AppError('invoice_not_paid', 'This invoice is not paid yet; a receipt exists once it is.');
    return { invoice, payment };
  }

  /**
   * Keeps a settlement of `intent` in its row, unless another run of its job (a worker whose lease was
   * taken over) signed while this one waited: that one's transaction is followed instead of a second one,
   * which would revert and leave this intent tracking the reverted copy.
   */
  private keeper(intent: PaymentIntent): SettlementKeeper<PaymentIntent> {
    return {
      superseded: async (trx) => {
        const current = await lockIntent(trx, intent.workspaceId, intent.id);
        return current?.status === 'processing' && current.txHash === intent.txHash ? undefined : (current ?? intent);
      },
      keep: (trx, settlement) =>
        updateIntent(trx, intent.workspaceId, intent.id, { settlementRaw: settlement.raw, txHash: settlement.hash }),
    };
  }

  /**
   * Starts settling an authorization: the order to processing, the intent and its event, its job — one
   * transaction, shared with the other payments of the workspace that begin meanwhile (`beginnings`).
   */
  private async beginIntent(
    workspaceId: WorkspaceId,
    order: PayableOrder,
    network: Network,
    attempt: Beginning['attempt'],
    jobKind: string,
  ): Promise<PaymentIntent> {
    const beginning: Beginning = {
      workspaceId,
      order,
      network,
      attempt,
      jobKind,
      at: this.deps.clock.now(),
      intentId: newPaymentIntentId(),
    };
    await this.beginnings.write(workspaceId, beginning);
    return beginning.begun!;
  }

  /** One payment's beginning (beginIntent), in the caller's transaction; its event joins `writes`. */
  private async begin(trx: Executor, writes: WorkspaceWrites, beginning: Beginning): Promise<void> {
    const { workspaceId, order, network, attempt, jobKind, at, intentId } = beginning;
    const taken = await this.orders.apply(
      trx,
      workspaceId,
      order.ref,
      { type: 'begin_payment', startedAt: at },
      at,
      writes,
    );
    if (!taken.ok && taken.code !== 'noop')
      throw new AppError(
        taken.code as ErrorCode,
        `The ${order.ref.kind === 'invoice' ? 'invoice' : 'credit purchase'} cannot take a payment now (${taken.code.replace(/^(invoice|purchase)_/, '').replaceAll('_', ' ')}).`,
      );
    if (attempt.authorization) {
      const key = authorizationKey(network.name, attempt.authorization.authorization);
      const bound = await bindAuthorization(trx, key, workspaceId, order.ref);
      if (bound.workspaceId !== workspaceId || !sameOrder(bound.order, order.ref))
        refuse(FOR_ANOTHER_ORDER, 'authorized_for_another_order');
    }
    await insertIntent(trx, {
      ...attempt,
      workspaceId,
      id: intentId,
      order: order.ref,
      status: 'processing',
      network: network.name,
      amount: order.amount,
      payTo: order.payTo,
      linkVersion: order.linkVersion,
      submittedAt: at,
      foundAt: at,
      holdsOrder: true,
    });
    const stored = (await findIntent(trx, workspaceId, intentId))!;
    await this.recordIntentEvent(trx, writes, stored, 'payment_intent.processing', at);
    await enqueueJob(trx, { kind: jobKind, workspaceId, payload: { intentId }, uniqueKey: intentId });
    beginning.begun = stored;
  }

  /** A submitted transfer that pays the order was found in a block: announce it and hold the order. */
  private async markFound(intent: PaymentIntent, blockTime: Date): Promise<void> {
    const at = this.deps.clock.now();
    await this.transact(async (trx, writes) => {
      const current = await lockIntent(trx, intent.workspaceId, intent.id);
      if (current?.status === 'processing' && !current.foundAt)
        await this.announce(trx, writes, current, blockTime, at);
    });
  }

  /**
   * The first moment an attempt counts: the order turns processing (unless another payment already
   * holds it, or it can take no payment any more) and the attempt is announced (in the feed, for an invoice).
   */
  private async announce(
    trx: Executor,
    writes: WorkspaceWrites,
    intent: PaymentIntent,
    blockTime: Date,
    at: Date,
    locked?: LockedRows,
  ): Promise<PaymentIntent> {
    const startedAt = blockTime < intent.submittedAt ? blockTime : intent.submittedAt;
    const taken = await this.orders.apply(
      trx,
      intent.workspaceId,
      intent.order,
      { type: 'begin_payment', startedAt },
      at,
      writes,
      locked,
    );
    // Another attempt holds it already: this one holds it too, so the order stays processing while either does.
    const holds = taken.ok || heldByAnother(taken);
    const found = await updateIntent(trx, intent.workspaceId, intent.id, { foundAt: at, holdsOrder: holds });
    await this.recordIntentEvent(trx, writes, found, 'payment_intent.processing', at);
    return found;
  }

  /** Recorded with the other outcomes of the moment (those of one block): one transaction for them all. */
  private finish(intent: PaymentIntent, outcome: Outcome): Promise<void> {
    this.finishing += 1;
    return this.outcomes
      .write(intent.workspaceId, { intent, outcome, at: this.deps.clock.now() })
      .finally(() => (this.finishing -= 1));
  }

  /** One transaction whose events and credit movements go last (WorkspaceWrites), told to the log once committed. */
  private transact<T>(work: (trx: Executor, writes: WorkspaceWrites) => Promise<T>): Promise<T> {
    return WorkspaceWrites.transaction(this.deps.db, this.deps.log, work);
  }

  /**
   * The intents of one workspace's group of outcomes and their orders, locked and kept for `record`:
   * intents first, then orders, each in id order, as every group takes them.
   */
  private async lockAll(trx: Executor, items: readonly { intent: PaymentIntent }[]): Promise<LockedRows> {
    const intents = items.map(({ intent }) => intent);
    const workspaceId = intents[0]!.workspaceId;
    const locked = new LockedRows();
    const ids = intents.map((intent) => intent.id);
    for (const intent of await lockIntents(trx, workspaceId, ids)) locked.keep('intent', intent.id, intent);
    const orders = intents.map((intent) => intent.order);
    await this.orders.lockAll(trx, workspaceId, orders, locked);
    return locked;
  }

  /**
   * The outcome of a processing intent, in the caller's transaction; events and credits join `writes`.
   * `locked`: the rows its group locked together (lockAll), taken instead of being locked again.
   */
  private async record(
    trx: Executor,
    writes: WorkspaceWrites,
    intent: PaymentIntent,
    outcome: Outcome,
    at: Date,
    locked?: LockedRows,
  ): Promise<void> {
    let current =
      locked?.take<PaymentIntent>('intent', intent.id) ?? (await lockIntent(trx, intent.workspaceId, intent.id));
    if (!current || current.status !== 'processing') return;
    if ('failed' in outcome) {
      // The order is reopened only when no other payment still holds it. A claim that was never
      // found in a block held nothing and was never announced: it fails quietly.
      if (current.holdsOrder && !(await otherHolderOf(trx, intent.workspaceId, intent.order, intent.id)))
        await this.orders.apply(trx, intent.workspaceId, intent.order, { type: 'payment_failed' }, at, writes, locked);
      const failed = await updateIntent(trx, intent.workspaceId, intent.id, {
        status: 'failed',
        failureReason: outcome.failed,
        holdsOrder: false,
        finishedAt: at,
      });
      if (failed.foundAt) await this.recordIntentEvent(trx, writes, failed, 'payment_intent.failed', at);
      // The order may be unchanged (a claim never found, another payment still holding it): its watchers
      // still learn why this attempt does not count. Sent once with the order's own notice, if any.
      await announcePaymentChange(trx, intent.workspaceId, intent.order);
      return;
    }
    const claimed = await claimTransfer(trx, {
      network: intent.network,
      txHash: outcome.succeeded.txHash ?? intent.txHash!,
      logIndex: outcome.succeeded.logIndex,
      workspaceId: intent.workspaceId,
      intentId: intent.id,
    });
    if (!claimed) {
      // A buyer-submitted transfer that another payment claimed first (a race with the read before):
      // it pays that one only. A settlement's hash is refused as a submitted transfer, so nothing else
      // can claim our own settlement: that stays loud.
      if (intent.method === 'transaction' || outcome.succeeded.txHash)
        return this.record(trx, writes, intent, { failed: 'already_used' }, at, locked);
      throw new Error(`transfer ${intent.txHash}#${outcome.succeeded.logIndex} is already claimed`);
    }
    if (!current.foundAt) current = await this.announce(trx, writes, current, outcome.succeeded.blockTime, at, locked);
    const paid = await this.orders.apply(
      trx,
      intent.workspaceId,
      intent.order,
      { type: 'payment_succeeded', network: intent.network },
      at,
      writes,
      locked,
    );
    // The order was not processing: another payment had paid it, or the invoice was cancelled before
    // this one landed. The money arrived all the same; it is recorded beside the order, never lost.
    const overpayment = !paid.ok;
    const succeeded = await updateIntent(trx, intent.workspaceId, intent.id, {
      status: 'succeeded',
      ...outcome.succeeded,
      holdsOrder: false,
      overpayment,
      finishedAt: at,
    });
    await this.recordIntentEvent(
      trx,
      writes,
      succeeded,
      overpayment ? 'payment_intent.overpaid' : 'payment_intent.succeeded',
      at,
      paid.ok ? paid.label : undefined,
    );
    // The order is unchanged, so no trigger tells its watchers (an x402 payer waiting for this outcome).
    if (overpayment) await announcePaymentChange(trx, intent.workspaceId, intent.order);
  }

  /**
   * A reorganisation took the recorded payment's transaction out of the chain (payment-finality decided):
   * in one transaction the intent becomes `reverted`, its transfer claim is freed, the order is no longer
   * paid (unless this was an overpayment), the feed and webhook learn it, and the same transaction is
   * followed again from its original submission: mined again in the new chain, it pays again as usual.
   *
   * The relayer's own settlement is sent again too, as nodes put the transactions of dropped blocks back
   * in their pools, which not every node does: left out, the buyer's authorization would stay unused and
   * the relayer's nonce would leave a gap that every later settlement waits behind.
   */
  async revertPayment(workspaceId: WorkspaceId, intentId: PaymentIntentId): Promise<void> {
    const at = this.deps.clock.now();
    await this.transact(async (trx, writes) => {
      const intent = await lockIntent(trx, workspaceId, intentId);
      if (intent?.status !== 'succeeded' || !intent.txHash) return;
      await releaseClaim(trx, intent);
      if (!intent.overpayment) await this.orders.revertPayment(trx, workspaceId, intent.order, at, writes);
      const reverted = await updateIntent(trx, workspaceId, intentId, { status: 'reverted', finishedAt: at });
      await this.recordIntentEvent(trx, writes, reverted, 'payment_intent.reverted', at);
      const ownSettlement =
        intent.authorization !== null &&
        intent.settlementRaw !== null &&
        keccak256(intent.settlementRaw) === intent.txHash.toLowerCase();
      const again = newPaymentIntentId();
      await insertIntent(trx, {
        // The same transaction, order, amount and submission time (its deadline rules stay as they were).
        ...intent,
        amountReceived: intent.amountReceived ?? undefined,
        id: again,
        status: 'processing',
        foundAt: null,
        holdsOrder: false,
        // A settlement keeps its authorization, signed bytes and payment identifier: the settlement job sends
        // it again, and a copy of the payment still finds it. Another transaction is only watched.
        ...(ownSettlement
          ? {}
          : { method: 'transaction', authorization: null, settlementRaw: null, paymentIdentifier: null }),
      });
      await enqueueJob(trx, {
        kind: ownSettlement ? SETTLE_JOB : VERIFY_TRANSACTION_JOB,
        workspaceId,
        payload: { intentId: again },
        uniqueKey: again,
      });
      await announcePaymentChange(trx, workspaceId, intent.order);
    });
  }

  private async recordIntentEvent(
    trx: Executor,
    writes: WorkspaceWrites,
    intent: PaymentIntent,
    type: `payment_intent.${'processing' | 'succeeded' | 'overpaid' | 'failed' | 'reverted'}`,
    at: Date,
    /** The invoice's label, when the caller has it as this transaction left it. */
    label?: InvoiceLabel,
  ): Promise<void> {
    // A credit purchase is the workspace's own order: its payments reach no feed and no webhook.
    if (intent.order.kind !== 'invoice') return;
    const invoiceId = intent.order.id;
    const invoice = label ?? (await this.deps.orders.invoice.label(trx, intent.workspaceId, invoiceId));
    writes.append(intent.workspaceId, {
      type,
      invoiceId,
      paymentIntentId: intent.id,
      data: {
        paymentIntent: presentIntent(intent, invoice),
        ...(invoice && { invoice: { id: invoiceId, number: invoice.number, externalId: invoice.externalId } }),
      },
      at,
    });
  }

  networkNamed(name: string): Network {
    const network = this.deps.networks.find((candidate) => candidate.name === name);
    if (!network) throw new Error(`network ${name} is not configured any more`);
    return network;
  }
}

/** A payment to begin (beginIntent), and what it began once written. */
interface Beginning {
  readonly workspaceId: WorkspaceId;
  readonly order: PayableOrder;
  readonly network: Network;
  readonly attempt: Pick<PaymentIntent, 'method' | 'payer' | 'authorization' | 'txHash'> & {
    paymentIdentifier?: string | null;
  };
  readonly jobKind: string;
  readonly at: Date;
  readonly intentId: PaymentIntentId;
  begun?: PaymentIntent;
}

/** How a processing intent ends: failed with its reason, or paid by a transfer in a block. */
type Outcome =
  | { failed: FailureReason }
  | {
      succeeded: {
        logIndex: number;
        blockNumber: bigint;
        /** Absent for a transfer a merchant applied (found by the scan): it is not re-checked for finality. */
        blockHash?: `0x${string}`;
        blockTime: Date;
        payer?: string;
        /** The transaction that used the authorization, when it is not the relayer's settlement. */
        txHash?: `0x${string}`;
      };
    };

/**
 * An authorization pays the order it was made for: a nonce made for an order (orderNonce: the checkout
 * page's, a credit purchase's) must be this order's for its current link version. A payment that does
 * not say which link version it was made for (x402 v1) must have become valid after the current link
 * was issued, less the 10 minutes x402 clients date their authorizations back for clock skew: one
 * signed before a renewal is refused.
 */
function checkAuthorizationIsFor(
  order: PayableOrder,
  submission: Pick<SignedAuthorization, 'authorization' | 'linkVersion'>,
): void {
  const { nonce, validAfter } = submission.authorization;
  if (isOrderNonce(nonce)) {
    const version = orderNonceVersion(order.ref.id, order.linkVersion, nonce);
    if (version === undefined) refuse(FOR_ANOTHER_ORDER, 'authorized_for_another_order');
    if (version !== order.linkVersion) refuse('The authorization was made for an older payment link.', 'expired');
    return;
  }
  const issuedAt = Math.floor(order.linkIssuedAt.getTime() / 1000);
  if (
    submission.linkVersion === undefined &&
    order.linkVersion > 1 &&
    BigInt(validAfter) < BigInt(issuedAt - SKEW_BACKDATING_SECONDS)
  )
    refuse(
      'The authorization was signed before this payment link was renewed (x402 v1 payments name no link version): sign a new payment.',
      'expired',
    );
}

/** How far x402 clients date an authorization's validAfter back from the moment they sign it. */
const SKEW_BACKDATING_SECONDS = 600;

/**
 * The bound on unseen hashes, as the buyer reads it next to the hash field: it is met only by a hash the
 * node does not know either (a known one is always taken), so it says to check the hash.
 */
function tooManyUnfound(ref: OrderRef, unseenTransactionMs: number): AppError {
  const minutes = Math.max(1, Math.round(unseenTransactionMs / 60_000));
  return new AppError(
    'rate_limited',
    `This transaction is not on the network, and ${MAX_UNFOUND_CLAIMS} submitted transactions of this ` +
      `${ref.kind === 'invoice' ? 'invoice' : 'credit purchase'} are still being looked for there. Check the hash, ` +
      `or submit it again once one of them is found or dropped (a hash no node knows is dropped after ${minutes} minutes).`,
    { retryAfterSeconds: 60 },
  );
}

function refuse(message: string, reason?: FailureReason): never {
  throw new AppError('invalid_payment', message, reason ? { fields: { reason } } : {});
}

/** The payment intent as the API shows it. */
export function presentIntent(intent: PaymentIntent, invoice?: Pick<InvoiceLabel, 'number' | 'externalId'>) {
  return {
    id: intent.id,
    status: intent.status,
    failureReason: intent.failureReason,
    invoiceId: intent.order.id,
    invoiceNumber: invoice ? invoice.number : null,
    /** The merchant's order reference (the invoice's externalId). */
    externalId: invoice?.externalId ?? null,
    method: intent.method,
    network: intent.network,
    amount: formatUsdc(intent.amount),
    ...receivedOf(intent),
    currency: 'USDC' as const,
    recipient: intent.payTo,
    payer: intent.payer,
    transactionHash: intent.txHash,
    blockNumber: intent.blockNumber?.toString() ?? null,
    submittedAt: intent.submittedAt.toISOString(),
    finishedAt: intent.finishedAt?.toISOString() ?? null,
    /** Succeeded after another payment had paid the invoice (or it was cancelled); the merchant settles it. */
    overpayment: intent.overpayment,
  };
}

/** What arrived, and how far it is from the amount: a merchant may apply a transfer of another amount. */
function receivedOf({ amount, amountReceived }: Pick<PaymentIntent, 'amount' | 'amountReceived'>) {
  const received = amountReceived ?? amount;
  return {
    amountReceived: formatUsdc(received),
    shortfall: received < amount ? formatUsdc(amount - received) : null,
    overpaid: received > amount ? formatUsdc(received - amount) : null,
  };
}
