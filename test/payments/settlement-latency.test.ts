import { expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem/accounts';
import { usdcBalance } from '../../src/chain/local-chain.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { openShop, startPayingApp, type PayingApp } from '../support/paying-app.js';
import { payV2 } from '../support/x402.js';

/**
 * Measures, never asserts: how long after a settlement reaches its confirmations the invoice is paid.
 * Blocks come every second from the test (so it knows when each block exists); payments start at random
 * moments, so each meets the chain and the settlement job at a random phase.
 */
// SETTLEMENT_SAMPLES=100 for a closer p99; the suite keeps it short.
const PAYMENTS = Number(process.env.SETTLEMENT_SAMPLES ?? 30);
const BLOCK_MS = 1000;
const chain = await createControlledChain({ confirmations: 3, blockTimeSeconds: 1 });

interface Sample {
  readonly invoiceId: string;
  readonly startedAt: number;
  respondedAt?: number;
  seenPaidAt?: number;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(label: string, values: readonly number[]): string {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return `${label.padEnd(58)} p50 ${percentile(values, 50).toFixed(0).padStart(5)} ms   p99 ${percentile(values, 99).toFixed(0).padStart(5)} ms   mean ${mean.toFixed(0).padStart(5)} ms   min ${Math.min(
    ...values,
  )
    .toFixed(0)
    .padStart(5)} ms`;
}

async function measure(paying: PayingApp, confirmations: number, payers: readonly PrivateKeyAccount[]) {
  const shop = await openShop(paying);
  const invoices = await Promise.all(payers.map(() => shop.invoice('1')));
  const samples: Sample[] = [];
  const db = paying.database.db;

  // Watches the database every 10 ms: "paid" as any reader of the invoice would see it.
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const open = samples.filter((sample) => sample.seenPaidAt === undefined).map((sample) => sample.invoiceId);
      if (open.length > 0) {
        const paid = await db
          .selectFrom('invoices')
          .select('id')
          .where('id', 'in', open)
          .where('status', '=', 'paid')
          .execute();
        const now = Date.now();
        for (const row of paid) samples.find((sample) => sample.invoiceId === row.id)!.seenPaidAt = now;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();

  const payments = invoices.map(async (invoice, index) => {
    await new Promise((resolve) => setTimeout(resolve, index * 150 + Math.random() * 150));
    const sample: Sample = { invoiceId: invoice.id, startedAt: Date.now() };
    samples.push(sample);
    const response = await payV2(payers[index]!)(invoice.payUrl);
    sample.respondedAt = Date.now();
    expect(response.status).toBe(200);
  });
  await Promise.all(payments);
  await new Promise((resolve) => setTimeout(resolve, 50));
  watching = false;
  await watcher;

  const intents = await db
    .selectFrom('payment_intents')
    .select(['invoice_id', 'block_number'])
    .where('status', '=', 'succeeded')
    .execute();
  const invoiceRows = await db
    .selectFrom('invoices')
    .select(['id', 'paid_at'])
    .where('workspace_id', '=', shop.workspaceId)
    .execute();
  expect(intents).toHaveLength(PAYMENTS);
  expect(await usdcBalance(chain.rpcUrl, shop.wallet.address)).toBe(BigInt(PAYMENTS) * 1_000_000n);

  const seen: number[] = [];
  const recorded: number[] = [];
  const endToEnd: number[] = [];
  for (const sample of samples) {
    const intent = intents.find((candidate) => candidate.invoice_id === sample.invoiceId)!;
    // The block that gives the settlement its last required confirmation.
    const confirmedAt = chain.minedAt(intent.block_number! + BigInt(confirmations - 1));
    const paidAt = invoiceRows.find((row) => row.id === sample.invoiceId)!.paid_at!;
    if (confirmedAt === undefined || sample.seenPaidAt === undefined) continue;
    seen.push(sample.seenPaidAt - confirmedAt);
    recorded.push(paidAt.getTime() - confirmedAt);
    endToEnd.push(sample.respondedAt! - sample.startedAt);
  }
  console.log(
    [
      `settlement latency, ${confirmations} confirmation(s), a block every ${BLOCK_MS} ms, blockTimeSeconds 1, n = ${seen.length}:`,
      summary('  confirmed → invoice paid (visible in the database, ±10 ms)', seen),
      summary('  confirmed → paid_at (the service clock at the transition)', recorded),
      summary('  client: first request → 200 with the paid invoice', endToEnd),
    ].join('\n'),
  );
}

it(
  `measures confirmation → paid over ${PAYMENTS} x402 payments with 3 and with 1 confirmation`,
  { timeout: 60_000 },
  async () => {
    const payers: PrivateKeyAccount[] = [];
    for (let i = 0; i < PAYMENTS * 2; i++) payers.push(await chain.payer(1_000_000n));
    const three = await startPayingApp(chain);
    const one = await startPayingApp({ ...chain, networks: [{ ...chain.network, confirmations: 1 }] });
    // From here on blocks come only from the test, one a second.
    await chain.setAutomine(false);
    chain.startMining(BLOCK_MS);

    await measure(three, 3, payers.slice(0, PAYMENTS));
    await measure(one, 1, payers.slice(PAYMENTS));
    await chain.stopMining();
  },
);
