import { getAddress } from 'viem';
import type { Network } from '../../chain/networks.js';
import { formatUsdc } from '../../shared/money.js';
import { orderNonce, paymentNetworkDetails } from '../../shared/payment-request.js';
import { PURCHASE_NONCE_VERSION, effectiveStatus, type CreditPurchase } from './credit-purchase.js';

/** A payer's latest attempt at a purchase, as the payment engine presents it. */
export interface PurchaseAttempt {
  readonly id: string;
  readonly status: 'processing' | 'succeeded' | 'failed' | 'reverted';
  readonly failureReason: string | null;
  readonly method: 'authorization' | 'transaction';
  readonly network: string;
  readonly transactionHash: string | null;
  readonly submittedAt: string;
  readonly finishedAt: string | null;
}

export interface PresentContext {
  readonly publicBaseUrl: URL;
  /** The checked networks, with their tokens' EIP-712 domains. */
  readonly networks: readonly Network[];
  readonly now: Date;
}

/**
 * The purchase as the API shows it, with what a payer needs while it is open: per network, the same
 * payment details the checkout JSON gives for an invoice (token, EIP-712 domain, EIP-681 URI), and the
 * EIP-3009 nonce an authorization must carry. `url` is its x402 payment endpoint, on PUBLIC_BASE_URL;
 * `lastPayment` the latest attempt to pay it, to follow.
 */
export function presentPurchase(
  purchase: CreditPurchase,
  lastPayment: PurchaseAttempt | undefined,
  context: PresentContext,
) {
  const status = effectiveStatus(purchase, context.now);
  const payable = status === 'open';
  return {
    id: purchase.id,
    packageId: purchase.packageId,
    credits: purchase.credits,
    price: formatUsdc(purchase.price),
    currency: 'USDC' as const,
    status,
    recipient: getAddress(purchase.payTo),
    network: purchase.network,
    expiresAt: purchase.expiresAt.toISOString(),
    createdAt: purchase.createdAt.toISOString(),
    paidAt: purchase.paidAt?.toISOString() ?? null,
    url: `${context.publicBaseUrl.origin}/w/${purchase.workspaceId}/x402/credit-purchases/${purchase.id}`,
    payment: {
      authorizationNonce: payable ? orderNonce(purchase.id, PURCHASE_NONCE_VERSION) : null,
      networks: payable
        ? context.networks.map((network) => paymentNetworkDetails(network, purchase.payTo, purchase.price))
        : [],
    },
    lastPayment: lastPayment ?? null,
  };
}

export type CreditPurchaseView = ReturnType<typeof presentPurchase>;
