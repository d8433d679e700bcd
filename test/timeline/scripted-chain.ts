import { BASE_SEPOLIA_USDC } from '../../src/chain/local-chain.js';
import type { Network } from '../../src/chain/networks.js';
import { RetryLater } from '../../src/jobs/index.js';
import type { ChainDeps } from '../../src/main/services.js';
import type { ChainPort, ReceiptStatus } from '../../src/chain/chain-port.js';
import type { PaymentIntentId } from '../../src/modules/payment-engine/payment-intent.js';
import type { PaymentService } from '../../src/modules/payment-engine/payment.service.js';
import { invoiceOrder } from '../../src/modules/payment-engine/order.js';
import type { InvoiceId } from '../../src/modules/invoices/invoice.js';
import type { WorkspaceId } from '../../src/shared/ids.js';

/** A configured network that is never dialled: the scripted port answers for it. */
export const SCRIPTED_NETWORK: Network = {
  name: 'base-sepolia',
  chainId: 84532,
  rpcUrls: ['http://127.0.0.1:9'],
  usdc: BASE_SEPOLIA_USDC,
  confirmations: 1,
  tokenName: 'USDC',
  tokenVersion: '2',
};

export interface ScriptedChain extends ChainDeps {
  /** What `receipt` answers per transaction hash; unknown hashes are not found. */
  readonly receipts: Map<string, ReceiptStatus>;
}

/**
 * A chain port for the "submit a transaction hash" path, whose receipts the test writes. The real
 * PaymentService runs on it (payment intents, invoice transitions, feed events); nothing else is needed
 * by that path, so every other call fails loudly.
 */
export function scriptedChain(): ScriptedChain {
  const receipts = new Map<string, ReceiptStatus>();
  const unsupported = () => Promise.reject(new Error('not scripted: these tests pay by transaction hash'));
  const chain: ChainPort = {
    relayer: '0x0000000000000000000000000000000000000001',
    pendingNonce: unsupported,
    blockNumber: unsupported,
    verifyAuthorization: unsupported,
    authorizationUsed: unsupported,
    simulateSettlement: unsupported,
    priceSettlement: unsupported,
    signSettlement: unsupported,
    replaceSettlement: unsupported,
    relayerFunds: unsupported,
    broadcast: unsupported,
    authorizationUse: unsupported,
    transfersTo: unsupported,
    blockHeader: unsupported,
    receipt: async (_network, hash) => receipts.get(hash.toLowerCase()) ?? { kind: 'not_found' },
  };
  return { networks: [SCRIPTED_NETWORK], chain, receipts };
}

let hashes = 0;

/** A fresh, well-formed transaction hash. */
export function txHash(): `0x${string}` {
  hashes += 1;
  return `0x${hashes.toString(16).padStart(64, 'a')}`;
}

export interface InvoiceRef {
  readonly workspaceId: string;
  readonly id: string;
  readonly payTo: string;
}

/** Submits a transaction hash for the invoice, as the checkout page does. Resolves the intent and the hash. */
export async function submitPayment(
  payments: PaymentService,
  invoice: InvoiceRef,
): Promise<{ intentId: PaymentIntentId; hash: `0x${string}` }> {
  const hash = txHash();
  const intent = await payments.submitTransaction(
    invoice.workspaceId as WorkspaceId,
    invoiceOrder(invoice.id as InvoiceId),
    {
      network: SCRIPTED_NETWORK,
      txHash: hash,
    },
  );
  return { intentId: intent.id, hash };
}

/** How the scripted transaction was mined: by default a success with the network's one confirmation. */
export interface Mining {
  readonly confirmations?: number;
  readonly success?: boolean;
}

/**
 * Mines the submitted transaction as a transfer of `amount` micro-USDC to the invoice's recipient, then
 * runs the verification job once: the exact amount pays the invoice, another fails with amount_mismatch.
 * Short of its confirmations the payment is only found (the job waits): resolves 'waiting' then.
 */
export async function verifyPayment(
  payments: PaymentService,
  chain: ScriptedChain,
  invoice: InvoiceRef,
  submitted: { intentId: PaymentIntentId; hash: `0x${string}` },
  amount: bigint,
  blockTime: Date,
  mining: Mining = {},
): Promise<'done' | 'waiting'> {
  chain.receipts.set(submitted.hash, {
    kind: 'mined',
    success: mining.success ?? true,
    blockNumber: 1n,
    blockHash: `0x${'1'.repeat(64)}`,
    blockTime,
    confirmations: mining.confirmations ?? 1,
    transfers: [
      {
        logIndex: 0,
        token: BASE_SEPOLIA_USDC,
        from: '0x00000000000000000000000000000000000000b0',
        to: invoice.payTo as `0x${string}`,
        value: amount,
      },
    ],
  });
  try {
    await payments.verifyTransaction(invoice.workspaceId as WorkspaceId, submitted.intentId);
    return 'done';
  } catch (error) {
    if (error instanceof RetryLater) return 'waiting';
    throw error;
  }
}

/** Submits and verifies in one go. Resolves the payment intent id. */
export async function payByTransaction(
  payments: PaymentService,
  chain: ScriptedChain,
  invoice: InvoiceRef,
  amount: bigint,
  blockTime: Date,
): Promise<PaymentIntentId> {
  const submitted = await submitPayment(payments, invoice);
  await verifyPayment(payments, chain, invoice, submitted, amount, blockTime);
  return submitted.intentId;
}
