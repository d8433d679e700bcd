import { setTimeout as sleep } from 'node:timers/promises';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import pg from 'pg';
import { createTestClient, http, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import {
  createLocalPublicClient,
  fundManyWithUsdc,
  fundWithUsdc,
  localChain,
  setEthBalance,
  signTransfer,
} from '../src/chain/local-chain.js';
import { PAYERS_HEADER, callsByMethod, payAtOnce, payersRow, type PayersContext, type PayersResult } from './payers.js';
import { startBenchChain } from './purchase-chain.js';
import { startPurchaseService, type PurchaseService } from './purchase-service.js';
import { PURCHASE_SPACING_BLOCKS } from './settings.js';
import { markdownTable } from './table.js';
import { startRpcCounter } from './rpc-counter.js';
import { latencyRow, monotonicMs, percentiles } from './timing.js';
import { startReceiverProcess, type BenchReceiver } from './webhook-receiver.js';

const BLOCK_MS = 1000;
/** Every wait is bounded: a payment that is never recorded fails the run instead of hanging it. */
const PHASE_TIMEOUT_MS = 120_000;
const POLL_MS = 10;
const AMOUNT_MICRO = 1_000_000n;
const WEBHOOK_PATH = '/payments';
/** Where credit purchases would be paid; this part buys none. */
const OPERATOR_WALLET = `0x${'0b'.repeat(20)}` as const;
/** The payment's own time budget of the target: p50 of x402's request → 200 within one block and this. */
const X402_BUDGET_MS = 300;

type Progress = (line: string) => void;

/** The runs of many payers at once, after the paced one: agents paying request after request. */
const PAYERS_AT_ONCE = [
  { kind: 'x402', payers: 20, perPayer: 10 },
  { kind: 'transfer', payers: 20, perPayer: 5 },
  { kind: 'x402', payers: 100, perPayer: 3 },
] as const;
type Kind = 'x402' | 'hash' | 'found';
const KINDS: readonly Kind[] = ['x402', 'hash', 'found'];

interface Invoice {
  readonly id: string;
  readonly amount: bigint;
  readonly url: string;
  readonly payTo: Address;
}

interface Sample {
  readonly kind: Kind;
  readonly invoiceId: string;
  readonly startedAt: number;
  /** x402: when the 200 arrived. */
  respondedAt?: number;
  paidSeenAt?: number;
}

/**
 * `BENCH_ONLY=payments`: invoices paid on a local anvil whose blocks the runner mines itself, one every
 * second (`evm_mine`, no automine), so the instant each block came to be is known: the moment the runner
 * asked for it. A third are paid by an unmodified x402 client at the invoice's `url`, a third by a plain
 * USDC transfer whose hash is submitted on the checkout route, and a third by a plain transfer submitted
 * nowhere, which the service's scan of the chain finds. For each, from the block that confirmed it (one
 * confirmation) to the invoice read `paid` by the runner's poll, and to the `payment_intent.succeeded`
 * webhook at a loopback receiver; for x402, the client's request → 200 as well.
 */
export async function runPaymentBench(count: number, progress: Progress): Promise<string[]> {
  const stops: (() => Promise<void>)[] = [];
  try {
    progress('payments: starting anvil, the test USDC, two payers and the receiver…');
    // Automine while it is set up; then the runner mines every block itself.
    const chain = await startBenchChain(undefined, AMOUNT_MICRO * BigInt(count + 1));
    stops.push(chain.stop);
    const { rpcUrl, relayerPrivateKey, payer: x402Payer } = chain;
    // One payer a kind of transfer: two payments at once from one account would take the same nonce.
    const transferPayers = {
      hash: privateKeyToAccount(generatePrivateKey()),
      found: privateKeyToAccount(generatePrivateKey()),
    };
    for (const payer of Object.values(transferPayers)) {
      await setEthBalance(rpcUrl, payer.address, 10n ** 20n);
      await fundWithUsdc(rpcUrl, payer.address, 2n * AMOUNT_MICRO * BigInt(count + 1));
    }
    // Payers at once: x402 payers need USDC only (the relayer pays the gas); transfer payers ETH too.
    const manyPayers = PAYERS_AT_ONCE.map(({ payers }) =>
      Array.from({ length: payers }, () => privateKeyToAccount(generatePrivateKey())),
    );
    // Transfer amounts go up to about 12 USDC.
    const payerUsdc = 20n * AMOUNT_MICRO * BigInt(Math.max(...PAYERS_AT_ONCE.map(({ perPayer }) => perPayer)));
    await fundManyWithUsdc(
      rpcUrl,
      manyPayers.flat().map((account) => ({ to: account.address, amountMicro: payerUsdc })),
    );
    for (const [index, { kind }] of PAYERS_AT_ONCE.entries())
      if (kind === 'transfer')
        for (const account of manyPayers[index]!) await setEthBalance(rpcUrl, account.address, 10n ** 20n);
    const receiver = await startReceiverProcess();
    stops.push(() => receiver.close());
    // Every call of the service goes through it; the runner's own (mining, the payers' transfers) do not.
    const counter = await startRpcCounter(rpcUrl);
    stops.push(counter.close);

    progress('payments: starting the service process (fresh PostgreSQL, app, workers)…');
    const service = await startPurchaseService({
      rpcUrl: counter.url,
      relayerPrivateKey,
      operatorWallet: OPERATOR_WALLET,
      confirmations: 1,
      blockSeconds: BLOCK_MS / 1000,
      webhookUrl: `${receiver.origin}${WEBHOOK_PATH}`,
      // Each invoice costs the credits of its payment window; the default grant pays for about 100.
      newWorkspaceCredits: 1_000_000,
    });
    stops.push(service.stop);
    const db = new pg.Client({ ...service.connection, query_timeout: 10_000 });
    await db.connect();
    stops.push(() => db.end());

    const testClient = createTestClient({ mode: 'anvil', chain: localChain(rpcUrl), transport: http(rpcUrl) });
    await testClient.setAutomine(false);
    const miner = startMiner(rpcUrl);
    stops.push(miner.stop);

    const bench = new PaymentBench(service, db, rpcUrl, x402Payer, transferPayers);
    progress('payments: warming up (one payment of each kind)…');
    await bench.pay(KINDS, 0);
    progress(
      `payments: ${count} x402 payments, ${count} submitted and ${count} found transfers, one every ${((BLOCK_MS * PURCHASE_SPACING_BLOCKS) / 1000).toFixed(2)} s, a block every second…`,
    );
    const kinds: Kind[] = Array.from({ length: KINDS.length * count }, (_, index) => KINDS[index % KINDS.length]!);
    const samples = await bench.pay(kinds, BLOCK_MS * PURCHASE_SPACING_BLOCKS);
    const paced = await report(samples, db, receiver, miner.minedAt);
    const context: PayersContext = {
      service,
      db,
      rpcUrl,
      counter,
      receiver,
      webhookPath: WEBHOOK_PATH,
      minedAt: miner.minedAt,
      createInvoice: (amount) => bench.createInvoice(amount),
    };
    const results: PayersResult[] = [];
    for (const [index, { kind, payers, perPayer }] of PAYERS_AT_ONCE.entries()) {
      progress(`payments: ${payers} ${kind} payers at once, ${perPayer} payments each…`);
      // A transfer found by the scan needs an amount no other open invoice has (in cents: invoices are
      // created with two decimals).
      const amountOf = (payer: number, payment: number) =>
        kind === 'x402'
          ? AMOUNT_MICRO
          : AMOUNT_MICRO + BigInt((index * 1000 + payer * perPayer + payment + 1) * 10_000);
      results.push(await payAtOnce(context, kind, manyPayers[index]!, perPayer, amountOf));
    }
    return [...paced, '', ...payersReport(results)];
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

/** Mines a block every second on a fixed schedule and notes when each was asked for. */
function startMiner(rpcUrl: string) {
  const client = createLocalPublicClient(rpcUrl);
  const minedAt = new Map<bigint, number>();
  let running = true;
  const loop = (async () => {
    const start = monotonicMs();
    for (let tick = 1; running; tick += 1) {
      const wait = start + tick * BLOCK_MS - monotonicMs();
      if (wait > 0) await sleep(wait);
      const askedAt = monotonicMs();
      await client.request({ method: 'evm_mine' as never, params: [] as never });
      minedAt.set(await client.getBlockNumber({ cacheTime: 0 }), askedAt);
    }
  })();
  return {
    minedAt,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

class PaymentBench {
  private keys = 0;
  private readonly payX402: typeof fetch;

  constructor(
    private readonly service: PurchaseService,
    private readonly db: pg.Client,
    private readonly rpcUrl: string,
    x402Payer: PrivateKeyAccount,
    private readonly transferPayers: Readonly<Record<'hash' | 'found', PrivateKeyAccount>>,
  ) {
    const client = new x402Client().setSpendControls({ maxAmountPerPayment: '$20' });
    registerExactEvmScheme(client, { signer: x402Payer, networks: ['eip155:84532'], policies: [] });
    this.payX402 = wrapFetchWithPayment(fetch, client);
  }

  /** Pays one new invoice per kind, `spacingMs` apart, and resolves once the runner has read each `paid`. */
  async pay(kinds: readonly Kind[], spacingMs: number): Promise<Sample[]> {
    const invoices: Invoice[] = [];
    // A transfer submitted nowhere pays an invoice only when no other open one has its amount.
    for (const kind of kinds)
      invoices.push(await this.createInvoice(kind === 'found' ? this.uniqueAmount() : AMOUNT_MICRO));
    const samples: Sample[] = [];
    const start = monotonicMs();
    const deadline = start + kinds.length * spacingMs + PHASE_TIMEOUT_MS;
    const payments = kinds.map(async (kind, index) => {
      const wait = start + index * spacingMs - monotonicMs();
      if (wait > 0) await sleep(wait);
      const invoice = invoices[index]!;
      const sample: Sample = { kind, invoiceId: invoice.id, startedAt: monotonicMs() };
      samples.push(sample);
      if (kind === 'x402') {
        const response = await this.payX402(invoice.url, { signal: AbortSignal.timeout(PHASE_TIMEOUT_MS) });
        sample.respondedAt = monotonicMs();
        if (response.status !== 200)
          throw new Error(`x402 payment answered ${response.status}: ${await response.text()}`);
        await response.arrayBuffer();
      } else {
        await this.payByTransfer(invoice, kind);
      }
    });
    const polled = this.pollPaid(samples, kinds.length, deadline);
    await Promise.all(payments);
    await polled;
    return samples;
  }

  private uniqueAmounts = 0;
  /** 1.01 USDC, 1.02, …: an amount no other invoice of the run has. */
  private uniqueAmount(): bigint {
    return AMOUNT_MICRO + BigInt((this.uniqueAmounts += 1) * 10_000);
  }

  async createInvoice(amount: bigint): Promise<Invoice> {
    const response = await fetch(`${this.service.origin}/w/${this.service.workspaceId}/v1/invoices`, {
      method: 'POST',
      headers: {
        authorization: this.service.authorization,
        'content-type': 'application/json',
        'idempotency-key': `bench-payment-${(this.keys += 1)}`,
      },
      body: JSON.stringify({ amount: (Number(amount) / 1e6).toFixed(2) }),
    });
    const text = await response.text();
    if (response.status !== 201) throw new Error(`invoice create answered ${response.status}: ${text.slice(0, 300)}`);
    const invoice = JSON.parse(text) as { id: string; url: string; payTo: Address; amount: string };
    // Links are built on PUBLIC_BASE_URL; the service process listens on a port of its own.
    const url = new URL(invoice.url);
    return { id: invoice.id, payTo: invoice.payTo, amount, url: `${this.service.origin}${url.pathname}` };
  }

  /** A plain USDC transfer sent to the mempool (mined by the next block), its hash submitted at once or never. */
  private async payByTransfer(invoice: Invoice, kind: 'hash' | 'found'): Promise<void> {
    const { hash, raw } = await signTransfer(this.rpcUrl, this.transferPayers[kind], invoice.payTo, invoice.amount);
    await createLocalPublicClient(this.rpcUrl).sendRawTransaction({ serializedTransaction: raw });
    if (kind === 'found') return;
    const response = await fetch(`${this.service.origin}/w/${this.service.workspaceId}/i/${invoice.id}/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ network: 'base-sepolia', txHash: hash }),
    });
    if (response.status !== 202)
      throw new Error(`hash submission answered ${response.status}: ${await response.text()}`);
  }

  /** Reads which invoices are paid every POLL_MS on the runner's own connection until all `count` are. */
  private async pollPaid(samples: Sample[], count: number, deadline: number): Promise<void> {
    for (;;) {
      const open = samples.filter((sample) => sample.paidSeenAt === undefined);
      if (samples.length === count && open.length === 0) return;
      if (monotonicMs() > deadline) throw new Error(`payments: ${open.length} invoices not paid in time`);
      if (open.length > 0) {
        const { rows } = await this.db.query<{ id: string }>(
          `SELECT id FROM invoices WHERE id = ANY($1) AND status = 'paid'`,
          [open.map((sample) => sample.invoiceId)],
        );
        const seenAt = monotonicMs();
        for (const row of rows) samples.find((sample) => sample.invoiceId === row.id)!.paidSeenAt = seenAt;
      }
      await sleep(POLL_MS);
    }
  }
}

async function report(
  samples: readonly Sample[],
  db: pg.Client,
  receiver: BenchReceiver,
  minedAt: ReadonlyMap<bigint, number>,
): Promise<string[]> {
  const { rows } = await db.query<{ invoice_id: string; block_number: string; event_id: string }>(
    `SELECT p.invoice_id, p.block_number, e.id AS event_id FROM payment_intents p
       JOIN events e ON e.payment_intent_id = p.id AND e.type = 'payment_intent.succeeded'
      WHERE p.status = 'succeeded' AND p.invoice_id = ANY($1)`,
    [samples.map((sample) => sample.invoiceId)],
  );
  const byInvoice = new Map(rows.map((row) => [row.invoice_id, row]));
  // The last payments' webhooks may still be on their way when the poll has seen every invoice paid.
  const deadline = monotonicMs() + 10_000;
  while (rows.some((row) => receiver.arrivedAt(WEBHOOK_PATH, row.event_id) === undefined) && monotonicMs() < deadline)
    await sleep(POLL_MS);
  // The receipt's block is the confirming one with one confirmation.
  const table: string[][] = [];
  const lines: string[] = [];
  for (const kind of KINDS) {
    const mine = samples.filter((sample) => sample.kind === kind);
    const toPaid: number[] = [];
    const toWebhook: number[] = [];
    let errors = 0;
    for (const sample of mine) {
      const row = byInvoice.get(sample.invoiceId);
      const blockAt = row && minedAt.get(BigInt(row.block_number));
      const arrived = row && receiver.arrivedAt(WEBHOOK_PATH, row.event_id);
      if (blockAt === undefined || arrived === undefined || sample.paidSeenAt === undefined) {
        errors += 1;
        continue;
      }
      toPaid.push(sample.paidSeenAt - blockAt);
      toWebhook.push(arrived - blockAt);
    }
    table.push(latencyRow(`${kind}: block → invoice read paid`, toPaid, errors, BLOCK_MS));
    table.push(latencyRow(`${kind}: block → webhook received`, toWebhook, errors, BLOCK_MS));
    if (kind === 'x402') {
      const endToEnd = mine.map((sample) => sample.respondedAt! - sample.startedAt);
      table.push(latencyRow('x402: client request → 200', endToEnd, 0, BLOCK_MS));
    }
  }
  const { distinct, duplicates } = receiver.counts(WEBHOOK_PATH);
  lines.push(
    `payments: ${samples.length / KINDS.length} of each kind, one confirmation, a block mined every ${BLOCK_MS} ms by the runner`,
    '',
    markdownTable(
      ['payment run', 'payments', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'ratio to block interval'],
      table,
    ),
    '',
    `- targets: block → paid and → webhook p99 ≤ 250 ms (found: ≤ 2 block intervals); x402 request → 200 p50 ≤ ${BLOCK_MS + X402_BUDGET_MS} ms (a block and ${X402_BUDGET_MS} ms)`,
    `- webhook deliveries received (warm-up included): ${distinct} distinct, ${duplicates} repeated`,
  );
  return lines;
}

function payersReport(results: readonly PayersResult[]): string[] {
  return [
    `payers at once: each pays its invoices one after another; a block mined every ${BLOCK_MS} ms by the runner; node calls counted at a proxy in front of anvil`,
    '',
    markdownTable(
      PAYERS_HEADER,
      results.map((result) => payersRow(result, BLOCK_MS)),
    ),
    '',
    '- targets: x402 at 20 payers p99 ≤ 250 ms, ≥ 12 payments/s, ≤ 10 node calls a payment; transfers ≤ 5 node calls a payment; 100 payers: none failed, no 5xx',
    '- payments/s: paid and told over the time from the first request to the last webhook; a transfer payer sends its next transfer once the last one is paid',
    ...results.map((result) => `- node calls, ${result.kind} at ${result.payers} payers: ${callsByMethod(result)}`),
    ...results.filter((result) => result.warmUpMs.length > 0).map(warmUpLine),
  ];
}

/** The payments each x402 payer made first, not counted in its row: what their cold block cost. */
function warmUpLine(result: PayersResult): string {
  const { p50, max } = percentiles(result.warmUpMs);
  return (
    `- ${result.kind} at ${result.payers} payers, first one payment each, timed apart (its failures and 5xx count above): ${result.warmUpMs.length} payments, ` +
    `block → webhook p50 ${p50.toFixed(1)} ms, max ${max.toFixed(1)} ms`
  );
}
