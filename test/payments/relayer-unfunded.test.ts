import { expect, it } from 'vitest';
import { setEthBalance } from '../../src/chain/local-chain.js';
import { createTestChain } from '../support/chain.js';
import { openShop, paymentState, startPayingApp } from '../support/paying-app.js';
import { bodyOf, decodeBase64Json, payV2, recordingFetch } from '../support/x402.js';

const chain = await createTestChain();
const paying = await startPayingApp(chain);

it('a relayer with no ether: an x402 payment is refused with 402 before anything is signed, the metric reads 0, /readyz says why; funded again, it pays', async () => {
  const shop = await openShop(paying);
  const invoice = await shop.invoice('2');
  const payer = await chain.payer(10_000_000n);
  const state = () => paymentState(paying, chain.rpcUrl, invoice.id, [payer.address, shop.wallet.address]);
  await setEthBalance(chain.rpcUrl, chain.chain.relayer, 0n);

  const recorder = recordingFetch();
  const refused = await payV2(payer, recorder.fetch)(invoice.payUrl);
  expect(refused.status).toBe(402);
  const body = await bodyOf<{ error: string }>(refused);
  expect(body.error).toMatch(/Gasless payments on base-sepolia are paused.*plain USDC transfer/);
  expect(decodeBase64Json<{ error: string }>(refused.headers.get('payment-required')!).error).toBe(body.error);
  expect(await state()).toEqual({ status: 'open', intents: [], balances: [10_000_000n, 0n] });

  const metrics = await paying.app.inject({ method: 'GET', url: '/metrics' });
  expect(metrics.body).toContain(
    `invoice_service_relayer_balance_wei{network="base-sepolia",relayer="${chain.chain.relayer}"} 0\n`,
  );
  const ready = await paying.app.inject({ method: 'GET', url: '/readyz' });
  expect(ready.statusCode).toBe(200);
  expect(ready.json<{ warnings: string[] }>().warnings).toEqual([
    expect.stringMatching(
      new RegExp(
        `^the relayer ${chain.chain.relayer} holds 0 wei on base-sepolia, below \\d+ wei: gasless and x402 payments are refused`,
      ),
    ),
  ]);

  // Funded again: a refusal is confirmed by a read at most a block old, so payments go through by the next block.
  await setEthBalance(chain.rpcUrl, chain.chain.relayer, 10n ** 20n);
  await expect
    .poll(async () => (await payV2(payer)(invoice.payUrl)).status, { timeout: 10_000, interval: 250 })
    .toBe(200);
  expect(await state()).toMatchObject({ status: 'paid', balances: [8_000_000n, 2_000_000n] });
  expect((await paying.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
});
