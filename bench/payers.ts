import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import pg from 'pg';
import type { Address } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { createLocalPublicClient, signTransfer } from '../src/chain/local-chain.js';
import type { PurchaseService } from './purchase-service.js';
import type { RpcCounter } from './rpc-counter.js';
import { percentiles, monotonicMs } from './timing.js';
import type { BenchReceiver } from './webhook-receiver.js';

/** Everything a run of payers at once works with, made once by bench/payments.ts. */
export interface PayersContext {
  readonly service: PurchaseService;
  readonly db: pg.Client;
  /** The node itself: the payers' own transactions do not count as the service's calls. */
  readonly rpcUrl: string;
  /** In front of the node, where the service sends every call. */
  readonly counter: RpcCounter;
  readonly receiver: BenchReceiver;
  readonly webhookPath: string;
  /** When the runner asked for each block, by number (monotonic ms). */
  readonly minedAt: ReadonlyMap<bigint, number>;
  readonly createInvoice: (amountMicro: bigint) => Promise<{ id: string; url: string; payTo: Address }>;
}

export type PayerKind = 'x402' | 'transfer';

/** One run: block → webhook of each payment, throughput, failures and the node calls it cost. */
export interface PayersResult {
  readonly kind: PayerKind;
  readonly payers: number;
  readonly payments: number;
  /** Payments that did not end paid with their webhook (x402: an answer other than 200). */
  readonly failed: number;
  readonly serverErrors: number;
  readonly toWebhookMs: readonly number[];
  /** Block → webhook of the payments made first and not counted (x402: one a payer). */
  readonly warmUpMs: readonly number[];
  /** Payments over the time from the first request to the last webhook. */
  readonly perSecond: number;
  readonly nodeCalls: number;
  readonly nodeCallsByMethod: Readonly<Record<string, number>>;
}

const PHASE_TIMEOUT_MS = 180_000;
const POLL_MS = 20;

/**
 * `payers.length` payers at once, each paying `perPayer` invoices one after another, as an agent pays
 * for one request after another: x402 with an unmodified `@x402/fetch` client each, or a plain USDC
 * transfer each (every other one's hash submitted on the checkout route, the others left for the
 * service's scan to find). Invoices are created first; the clock runs from the first payment.
 *
 * x402 payers first pay one invoice each at once, timed apart (`warmUpMs`), as a service that has been
 * taking payments meets them: the one-at-a-time runs before it never had twenty payments in a block, so
 * that first block also runs the service's paths for many at once for the first time. Its failures and
 * 5xx count in the row.
 */
export async function payAtOnce(
  context: PayersContext,
  kind: PayerKind,
  payers: readonly PrivateKeyAccount[],
  perPayer: number,
  amountOf: (payer: number, payment: number) => bigint,
): Promise<PayersResult> {
  const warmUps = kind === 'x402' ? 1 : 0;
  const created = await Promise.all(
    payers.map((_, payer) =>
      Promise.all(
        Array.from({ length: warmUps + perPayer }, (__, index) =>
          context.createInvoice(amountOf(payer, Math.max(0, index - warmUps))),
        ),
      ),
    ),
  );
  const clients = payers.map((account) => (kind === 'x402' ? x402Payer(account) : undefined));
  let warmUpMs: number[] = [];
  // A warm-up payment that fails is a failure all the same: it counts in the row.
  let warmUpFailures = { failed: 0, serverErrors: 0 };
  if (warmUps > 0) {
    const warmUp = created.map((invoices) => invoices.slice(0, warmUps));
    const deadline = monotonicMs() + PHASE_TIMEOUT_MS;
    warmUpFailures = await payEach(context, payers, clients, warmUp, amountOf, deadline);
    warmUpMs = (
      await blockToWebhook(
        context,
        warmUp.flat().map((invoice) => invoice.id),
        deadline,
      )
    ).map(({ ms }) => ms);
  }
  const invoices = created.map((ofPayer) => ofPayer.slice(warmUps));
  // Counted from the first payment: the runs go one after another.
  context.counter.reset();
  const started = monotonicMs();
  const { failed, serverErrors } = await payEach(
    context,
    payers,
    clients,
    invoices,
    amountOf,
    started + PHASE_TIMEOUT_MS,
  );
  const ids = invoices.flat().map((invoice) => invoice.id);
  const toWebhookMs = await blockToWebhook(context, ids, started + PHASE_TIMEOUT_MS);
  const lastWebhook = Math.max(...toWebhookMs.map(({ arrivedAt }) => arrivedAt));
  return {
    kind,
    payers: payers.length,
    payments: ids.length,
    failed: failed + warmUpFailures.failed + (kind === 'transfer' ? ids.length - toWebhookMs.length : 0),
    serverErrors: serverErrors + warmUpFailures.serverErrors,
    toWebhookMs: toWebhookMs.map(({ ms }) => ms),
    warmUpMs,
    perSecond: toWebhookMs.length / ((lastWebhook - started) / 1000),
    nodeCalls: context.counter.total(),
    nodeCallsByMethod: context.counter.calls(),
  };
}

/**
 * Each payer pays its invoices one after another, all payers at once (`clients`: each x402 payer's
 * client; none for transfers). Payments that did not end in a 200 (x402) and answers of 500 or more.
 */
async function payEach(
  context: PayersContext,
  payers: readonly PrivateKeyAccount[],
  clients: readonly (typeof fetch | undefined)[],
  invoices: readonly (readonly Invoice[])[],
  amountOf: (payer: number, payment: number) => bigint,
  deadline: number,
): Promise<{ failed: number; serverErrors: number }> {
  // The transfer payers each wait for their invoice to be paid: a few connections of their own.
  const polls = new pg.Pool({ ...context.service.connection, max: 4 });
  let failed = 0;
  let serverErrors = 0;
  await Promise.all(
    payers.map(async (account, payer) => {
      const pay = clients[payer];
      for (const [payment, invoice] of invoices[payer]!.entries()) {
        if (pay) {
          const response = await pay(`${context.service.origin}${new URL(invoice.url).pathname}`, {
            signal: AbortSignal.timeout(PHASE_TIMEOUT_MS),
          });
          await response.arrayBuffer();
          if (response.status >= 500) serverErrors += 1;
          if (response.status !== 200) failed += 1;
        } else {
          const status = await payByTransfer(context, account, invoice, amountOf(payer, payment), payment % 2 === 0);
          if (status >= 500) serverErrors += 1;
          // A transfer is mined whatever the submission answered; its invoice is checked below.
          await waitForPaid(polls, invoice.id, deadline);
        }
      }
    }),
  ).finally(() => polls.end());
  return { failed, serverErrors };
}

type Invoice = Awaited<ReturnType<PayersContext['createInvoice']>>;

function x402Payer(account: PrivateKeyAccount): typeof fetch {
  const client = new x402Client().setSpendControls({ maxAmountPerPayment: '$20' });
  registerExactEvmScheme(client, { signer: account, networks: ['eip155:84532'], policies: [] });
  return wrapFetchWithPayment(fetch, client);
}

/** Sends a plain transfer to the mempool and, when `submit`, its hash to the checkout route. The answer's status. */
async function payByTransfer(
  context: PayersContext,
  account: PrivateKeyAccount,
  invoice: { id: string; payTo: Address },
  amount: bigint,
  submit: boolean,
): Promise<number> {
  const { hash, raw } = await signTransfer(context.rpcUrl, account, invoice.payTo, amount);
  await createLocalPublicClient(context.rpcUrl).sendRawTransaction({ serializedTransaction: raw });
  if (!submit) return 0;
  const { service } = context;
  const response = await fetch(`${service.origin}/w/${service.workspaceId}/i/${invoice.id}/transactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ network: 'base-sepolia', txHash: hash }),
  });
  await response.arrayBuffer();
  return response.status;
}

async function waitForPaid(db: pg.Pool, invoiceId: string, deadline: number): Promise<void> {
  while (monotonicMs() < deadline) {
    const { rows } = await db.query(`SELECT 1 FROM invoices WHERE id = $1 AND status = 'paid'`, [invoiceId]);
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Block → `payment_intent.succeeded` at the receiver, for every invoice that was paid and told. */
async function blockToWebhook(
  context: PayersContext,
  invoiceIds: readonly string[],
  deadline: number,
): Promise<{ ms: number; arrivedAt: number }[]> {
  const { rows } = await context.db.query<{ block_number: string; event_id: string }>(
    `SELECT p.block_number, e.id AS event_id FROM payment_intents p
       JOIN events e ON e.payment_intent_id = p.id AND e.type = 'payment_intent.succeeded'
      WHERE p.status = 'succeeded' AND p.invoice_id = ANY($1)`,
    [invoiceIds],
  );
  const arrived = (eventId: string) => context.receiver.arrivedAt(context.webhookPath, eventId);
  while (rows.some((row) => arrived(row.event_id) === undefined) && monotonicMs() < deadline)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  return rows.flatMap((row) => {
    const at = arrived(row.event_id);
    const blockAt = context.minedAt.get(BigInt(row.block_number));
    return at === undefined || blockAt === undefined ? [] : [{ ms: at - blockAt, arrivedAt: at }];
  });
}

/** The result as a table row: name, payments, p50, p99, max, payments/s, failed, 5xx, node calls a payment. */
export function payersRow(result: PayersResult, blockMs: number): string[] {
  const { p50, p99, max } = percentiles(result.toWebhookMs);
  return [
    `${result.kind}: ${result.payers} payers at once`,
    result.payments.toString(),
    p50.toFixed(1),
    p99.toFixed(1),
    max.toFixed(1),
    result.perSecond.toFixed(1),
    result.failed.toString(),
    result.serverErrors.toString(),
    (result.nodeCalls / result.payments).toFixed(1),
    (p99 / blockMs).toFixed(3),
  ];
}

export const PAYERS_HEADER = [
  'payers run: block → webhook',
  'payments',
  'p50 ms',
  'p99 ms',
  'max ms',
  'payments/s',
  'failed',
  '5xx',
  'node calls a payment',
  'p99 ratio to block interval',
];

/** The methods behind a run's node calls, most first: `eth_call 2.0, eth_getTransactionReceipt 1.4, …`. */
export function callsByMethod(result: PayersResult): string {
  return Object.entries(result.nodeCallsByMethod)
    .sort((a, b) => b[1] - a[1])
    .map(([method, count]) => `${method} ${(count / result.payments).toFixed(2)}`)
    .join(', ');
}
