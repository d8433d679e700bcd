import { afterAll, expect, it } from 'vitest';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { usdcBalance } from '../../src/chain/local-chain.js';
import { JobRunner } from '../../src/jobs/index.js';
import { jobHandlers } from '../../src/main/jobs.js';
import { systemClock } from '../../src/shared/clock.js';
import { createTestApp, merchant } from '../support/app.js';
import { createTestChain } from '../support/chain.js';

const chain = await createTestChain();
const { app, services, database } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '100000' }, systemClock, chain);
await app.listen({ port: 0, host: '127.0.0.1' });
const runner = new JobRunner({
  db: database.db,
  connection: database.connection,
  handlers: jobHandlers(services),
  pollIntervalMs: 500,
});
await runner.start();
afterAll(() => runner.stop());

it(
  'an unmodified x402 v2 client pays an invoice: money moves once, the invoice is paid, a receipt exists',
  { timeout: 60_000 },
  async () => {
    const shop = await merchant(app, ['invoices:create', 'payments:read', 'invoices:read', 'billing:read']);
    const auth = { authorization: `Bearer ${shop.apiKey}` };
    const created = await app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/invoices`,
      headers: { ...auth, 'idempotency-key': 'x402-pay-1' },
      payload: { amount: '2.5' },
    });
    const invoice = created.json();
    const { port } = app.server.address() as { port: number };
    const url = invoice.url.replace('http://localhost:3000', `http://127.0.0.1:${port}`);
    const payer = await chain.payer(10_000_000n);

    const client = new x402Client().setSpendControls({ maxAmountPerPayment: '$20' });
    registerExactEvmScheme(client, { signer: payer, networks: ['eip155:84532'], policies: [] });
    const response = await wrapFetchWithPayment(fetch, client)(url);

    expect(response.status).toBe(200);
    const body = (await response.json()) as { paymentIntent: { id: string; transactionHash: string } };
    expect(body).toMatchObject({
      invoiceId: invoice.id,
      status: 'paid',
      paymentIntent: { status: 'succeeded', amount: '2.500000', recipient: shop.wallet.address.toLowerCase() },
    });
    const paymentResponse = JSON.parse(Buffer.from(response.headers.get('payment-response')!, 'base64').toString());
    expect(paymentResponse).toMatchObject({
      success: true,
      network: 'eip155:84532',
      transaction: body.paymentIntent.transactionHash,
    });

    expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(7_500_000n);
    expect(await usdcBalance(chain.rpcUrl, shop.wallet.address)).toBe(2_500_000n);
    const receipt = await app.inject({
      method: 'GET',
      url: `/w/${shop.workspaceId}/v1/invoices/${invoice.id}/receipt`,
      headers: auth,
    });
    expect(receipt.json()).toMatchObject({
      number: invoice.number,
      amount: '2.500000',
      payer: payer.address.toLowerCase(),
      transactionHash: body.paymentIntent.transactionHash,
    });
    // The success fee is captured: 1 credit for the invoice, 1 for the fee, nothing reserved.
    const billing = await app.inject({ method: 'GET', url: `/w/${shop.workspaceId}/v1/billing`, headers: auth });
    expect(billing.json()).toMatchObject({ creditBalance: 98, reservedCredits: 0 });
    const intent = await app.inject({
      method: 'GET',
      url: `/w/${shop.workspaceId}/v1/payment-intents/${body.paymentIntent.id}`,
      headers: auth,
    });
    expect(intent.json()).toMatchObject({ status: 'succeeded', invoiceId: invoice.id });

    // Paying again is refused before anything is signed: the invoice is paid.
    const again = await wrapFetchWithPayment(fetch, client)(url);
    expect(again.status).toBe(409);
    expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(7_500_000n);
  },
);
