import { getAddress } from 'viem';
import type { Network } from '../../chain/networks.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { formatUsdc } from '../../shared/money.js';
import { effectiveStatus, formatInvoiceNumber, type InvoiceId } from '../invoices/index.js';
import { findInvoice } from '../invoices/index.js';
import { findWorkspace } from '../workspaces/index.js';
import type { TransferAuthorization } from './chain.port.js';
import { paymentNetworkDetails } from '../../shared/payment-request.js';
import { checkoutNonce, nonceLinkVersion } from './checkout.js';
import type { PaymentIntent } from './payment-intent.js';
import { latestIntentOf } from './payment.repo.js';
import type { PaymentService } from './payment.service.js';

export interface CheckoutServiceDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly networks: readonly Network[];
  readonly payments: PaymentService;
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
    const { invoice, workspace, latest } = await this.deps.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => ({
        invoice: await findInvoice(trx, workspaceId, invoiceId),
        workspace: await findWorkspace(trx, workspaceId),
        latest: await latestIntentOf(trx, workspaceId, invoiceId),
      }));
    if (!invoice || !workspace) throw notFound();
    const now = this.deps.clock.now();
    const status = effectiveStatus(invoice, now);
    const payable = status === 'open';
    return {
      invoiceId: invoice.id,
      number: formatInvoiceNumber(invoice.number),
      merchantName: workspace.name,
      merchantDescription: workspace.description,
      status,
      amount: formatUsdc(invoice.amount),
      currency: 'USDC' as const,
      recipient: getAddress(invoice.payTo),
      expiresAt: invoice.expiresAt.toISOString(),
      serverTime: now.toISOString(),
      linkVersion: invoice.linkVersion,
      authorizationNonce: payable ? checkoutNonce(invoice.id, invoice.linkVersion) : null,
      networks: payable
        ? this.deps.payments
            .networksFor(invoice)
            .map((network) => paymentNetworkDetails(network, invoice.payTo, invoice.amount))
        : [],
      successUrl: invoice.successUrl,
      cancelUrl: invoice.cancelUrl,
      payment: latest ? presentAttempt(latest) : null,
    };
  }

  /** A signed authorization whose nonce must be the current link version's checkout nonce. */
  async submitAuthorization(
    workspaceId: WorkspaceId,
    invoiceId: InvoiceId,
    input: { network: string; authorization: TransferAuthorization; signature: `0x${string}` },
  ): Promise<PaymentIntent> {
    const network = this.network(input.network);
    const { invoice, requirements } = await this.deps.payments.requirements(workspaceId, invoiceId).catch(hideForeign);
    if (!requirements.some((requirement) => requirement.network === network))
      throw new AppError('unsupported_network', `This invoice is not payable on ${network.name}.`);
    const signedFor = nonceLinkVersion(invoice.id, invoice.linkVersion, input.authorization.nonce);
    if (signedFor === undefined) {
      throw new AppError(
        'invalid_payment',
        "The authorization nonce is not this invoice's checkout nonce: sign the `authorizationNonce` of the payment details.",
      );
    }
    if (signedFor !== invoice.linkVersion) {
      throw new AppError(
        'invalid_payment',
        'The authorization was signed for an older payment link. Reload the payment details and sign again.',
        { fields: { reason: 'expired' } },
      );
    }
    return this.deps.payments.submitAuthorization(workspaceId, invoiceId, {
      chainId: network.chainId,
      authorization: input.authorization,
      signature: input.signature,
      linkVersion: invoice.linkVersion,
    });
  }

  async submitTransaction(
    workspaceId: WorkspaceId,
    invoiceId: InvoiceId,
    input: { network: string; txHash: `0x${string}` },
  ): Promise<PaymentIntent> {
    const network = this.network(input.network);
    return this.deps.payments
      .submitTransaction(workspaceId, invoiceId, { network, txHash: input.txHash })
      .catch(hideForeign);
  }

  private network(name: string): Network {
    const network = this.deps.networks.find((candidate) => candidate.name === name);
    if (!network)
      throw new AppError(
        'unsupported_network',
        `Unknown network "${name}". The payment details list the networks this invoice accepts.`,
      );
    return network;
  }
}

/** The buyer's last attempt, for the page's progress display: no payer, nothing the chain does not show. */
function presentAttempt(intent: PaymentIntent) {
  return {
    id: intent.id,
    status: intent.status,
    failureReason: intent.failureReason,
    method: intent.method,
    network: intent.network,
    transactionHash: intent.txHash,
    submittedAt: intent.submittedAt.toISOString(),
    finishedAt: intent.finishedAt?.toISOString() ?? null,
  };
}

function notFound(): AppError {
  return new AppError('not_found', 'No such invoice.');
}

/** Every not-found on the public link reads the same, whichever lookup failed. */
function hideForeign(error: unknown): never {
  if (error instanceof AppError && error.code === 'not_found') throw notFound();
  throw error;
}
