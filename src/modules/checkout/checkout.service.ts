import { getAddress } from 'viem';
import type { Network } from '../../chain/networks.js';
import { inOneSnapshot, type Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { formatUsdc } from '../../shared/money.js';
import { checkPayTo, effectiveStatus, findInvoice, formatInvoiceNumber, type InvoiceId } from '../invoices/index.js';
import { findEndpoint } from '../webhook-endpoint/index.js';
import { findWorkspace } from '../workspaces/index.js';
import { findReceipt, formatReceiptNumber } from '../receipts/index.js';
import type { TransferAuthorization } from '../../chain/chain-port.js';
import { paymentNetworkDetails } from '../../shared/payment-request.js';
import {
  invoiceOrder,
  presentAttempt,
  type OrderRef,
  type PaymentIntent,
  type PaymentService,
} from '../payment-engine/index.js';
import { orderNonceVersion } from '../authorization-bindings/index.js';
import { checkoutNonce } from './checkout.js';

/** Whether the relayer can pay a settlement's gas on a network now (the relayer module's watch). */
export interface GasPayer {
  canPayGas(network: Network): Promise<boolean>;
}

export interface CheckoutServiceDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly networks: readonly Network[];
  readonly payments: PaymentService;
  readonly relayer: GasPayer;
}

/**
 * What the public checkout link offers: the payment details and the two ways a buyer pays — a signed
 * EIP-3009 authorization bound to the link (gasless, settled like x402) or the hash of a plain USDC
 * transfer (verified by a job). The invoice id is the capability; an unknown id and another workspace's
 * id are the same 404.
 */
export class CheckoutService {
  constructor(private readonly deps: CheckoutServiceDeps) {}

  async details(workspaceId: WorkspaceId, invoiceId: InvoiceId) {
    // One snapshot for the three reads: a verification committing in between must not show a
    // `processing` invoice next to the `failed` attempt that reopened it.
    const { invoice, workspace, endpoint, numbered, latest, succeeded } = await inOneSnapshot(
      this.deps.db,
      async (trx) => ({
        invoice: await findInvoice(trx, workspaceId, invoiceId),
        workspace: await findWorkspace(trx, workspaceId),
        endpoint: await findEndpoint(trx, workspaceId),
        numbered: await findReceipt(trx, workspaceId, invoiceId),
        ...(await this.deps.payments.attemptsOf(trx, workspaceId, invoiceOrder(invoiceId))),
      }),
    );
    if (!invoice || !workspace) throw notFound();
    const now = this.deps.clock.now();
    const status = effectiveStatus(invoice, now);
    // A link issued for another receiving address takes no new payment (docs/spec/merchant-api-core-v1.1.0.md,
    // What the service does 5): it shows no address to pay. A payment already on its way or done keeps its
    // recipient.
    const recipientChanged =
      (status === 'open' || status === 'expired') && invoice.payTo !== workspace.wallet_address.toLowerCase();
    const payable = status === 'open' && !recipientChanged;
    return {
      invoiceId: invoice.id,
      number: formatInvoiceNumber(invoice.number),
      merchantName: workspace.name,
      merchantDescription: workspace.description,
      merchantSupportContact: workspace.support_contact,
      merchantAccentColor: workspace.accent_color,
      merchantNotified: endpoint?.enabled === true,
      status,
      amount: formatUsdc(invoice.amount),
      description: invoice.description,
      currency: 'USDC' as const,
      recipient: recipientChanged ? null : getAddress(invoice.payTo),
      recipientChanged,
      expiresAt: invoice.expiresAt.toISOString(),
      serverTime: now.toISOString(),
      linkVersion: invoice.linkVersion,
      authorizationNonce: payable ? checkoutNonce(invoice.id, invoice.linkVersion) : null,
      networks: payable ? await this.payableNetworks(invoice) : [],
      successUrl: invoice.successUrl,
      cancelUrl: invoice.cancelUrl,
      payment: latest ? { ...presentAttempt(latest), foundAt: latest.foundAt?.toISOString() ?? null } : null,
      receipt:
        status === 'paid' && invoice.paidAt && succeeded && numbered
          ? this.receipt(
              {
                receiptNumber: formatReceiptNumber(numbered.number),
                pdfUrl: `/w/${workspaceId}/i/${invoice.id}/receipt.pdf`,
              },
              invoice.paidAt,
              succeeded,
            )
          : null,
    };
  }

  /** The networks an open invoice is paid on, each saying whether it takes a payment without gas now. */
  private payableNetworks(invoice: { network: string | null; payTo: string; amount: bigint }) {
    const networks = this.deps.networks.filter(
      (network) => invoice.network === null || network.name === invoice.network,
    );
    return Promise.all(
      networks.map(async (network) => ({
        ...paymentNetworkDetails(network, invoice.payTo, invoice.amount),
        gasless: await this.gasless(network),
      })),
    );
  }

  /**
   * Whether the wallet button is offered: the payment would be refused (relayer_unfunded) when the
   * relayer cannot pay gas, so the page offers the plain transfer instead. A refusal is confirmed by a
   * fresh read (canPayGas), so a relayer funded again shows the button on the next load. A node that
   * does not answer leaves the button: the payment itself then says what is wrong, and the details of a
   * payable link never fail for a balance read.
   */
  private gasless(network: Network): Promise<boolean> {
    return this.deps.relayer.canPayGas(network).catch(() => true);
  }

  /** The paying transaction, linked on the explorer the operator configured for its network (if any). */
  private receipt(numbered: { receiptNumber: string; pdfUrl: string }, paidAt: Date, payment: PaymentIntent) {
    const network = this.deps.networks.find((candidate) => candidate.name === payment.network);
    const hash = payment.txHash;
    return hash && network
      ? {
          ...numbered,
          paidAt: paidAt.toISOString(),
          network: network.name,
          chainId: network.chainId,
          payer: payment.payer,
          transactionHash: hash,
          transactionUrl: network.explorerUrl ? `${network.explorerUrl}/tx/${hash}` : null,
        }
      : null;
  }

  /**
   * A signed authorization whose nonce must be the order's nonce for its current link version: an
   * authorization made for another order (an invoice's, replayed on a credit purchase, or the reverse)
   * never carries it.
   */
  async submitAuthorization(
    workspaceId: WorkspaceId,
    ref: OrderRef,
    input: { network: string; authorization: TransferAuthorization; signature: `0x${string}`; payTo?: string },
  ): Promise<PaymentIntent> {
    const noun = nounOf(ref);
    const network = this.network(input.network, ref);
    await this.checkPayTo(workspaceId, ref, input.payTo);
    const order = await this.deps.payments.payableOrder(workspaceId, ref).catch(hideForeign(ref));
    if (!order.networks.includes(network))
      throw new AppError('unsupported_network', `This ${noun} is not payable on ${network.name}.`);
    const signedFor = orderNonceVersion(order.ref.id, order.linkVersion, input.authorization.nonce);
    if (signedFor === undefined) {
      throw new AppError(
        'invalid_payment',
        `The authorization nonce is not this ${noun}'s nonce: sign the \`authorizationNonce\` of its payment details.`,
      );
    }
    if (signedFor !== order.linkVersion) {
      throw new AppError(
        'invalid_payment',
        'The authorization was signed for an older payment link. Reload the payment details and sign again.',
        { fields: { reason: 'expired' } },
      );
    }
    return this.deps.payments.submitAuthorization(workspaceId, ref, {
      chainId: network.chainId,
      authorization: input.authorization,
      signature: input.signature,
      linkVersion: order.linkVersion,
    });
  }

  async submitTransaction(
    workspaceId: WorkspaceId,
    ref: OrderRef,
    input: { network: string; txHash: `0x${string}`; payTo?: string },
  ): Promise<PaymentIntent> {
    const network = this.network(input.network, ref);
    await this.checkPayTo(workspaceId, ref, input.payTo);
    return this.deps.payments
      .submitTransaction(workspaceId, ref, { network, txHash: input.txHash })
      .catch(hideForeign(ref));
  }

  /**
   * `payTo` in a payment of the checkout link, as POST /invoices takes it: the workspace wallet changes
   * nothing, another value is 403 pay_to_mismatch. An unknown invoice stays the same 404 as without it.
   * Only the checkout link's bodies carry `payTo` (a credit purchase pays the operator, not the workspace).
   */
  private async checkPayTo(workspaceId: WorkspaceId, ref: OrderRef, payTo: string | undefined): Promise<void> {
    if (payTo === undefined) return;
    if (ref.kind !== 'invoice') throw new Error('payTo is taken for invoices only');
    const [invoice, workspace] = await Promise.all([
      findInvoice(this.deps.db, workspaceId, ref.id as InvoiceId),
      findWorkspace(this.deps.db, workspaceId),
    ]);
    if (!invoice || !workspace) throw notFound();
    checkPayTo(payTo, workspace.wallet_address);
  }

  private network(name: string, ref: OrderRef): Network {
    const network = this.deps.networks.find((candidate) => candidate.name === name);
    if (!network)
      throw new AppError(
        'unsupported_network',
        `Unknown network "${name}". The payment details list the networks this ${nounOf(ref)} accepts.`,
      );
    return network;
  }
}

function nounOf(ref: OrderRef): string {
  return ref.kind === 'invoice' ? 'invoice' : 'credit purchase';
}

function notFound(noun = 'invoice'): AppError {
  return new AppError('not_found', `No such ${noun}.`);
}

/** Every not-found on a payment link reads the same, whichever lookup failed. */
function hideForeign(ref: OrderRef) {
  return (error: unknown): never => {
    if (error instanceof AppError && error.code === 'not_found') throw notFound(nounOf(ref));
    throw error;
  };
}
