import { encodeFunctionData, erc20Abi } from 'viem';
import { expect, it } from 'vitest';
import {
  BASE_SEPOLIA_USDC,
  createLocalPublicClient,
  sendFromAccount,
  setEthBalance,
} from '../../src/chain/local-chain.js';
import { createTestChain } from '../support/chain.js';
import { openShop, startPayingApp } from '../support/paying-app.js';
import { decodeBase64Json } from '../support/x402.js';

// Two networks, each a real anvil with its own chain id; one relayer settles on both.
const baseSepolia = await createTestChain();
const other = await createTestChain({ network: { name: 'other-chain', chainId: 31337 } });
await setEthBalance(other.rpcUrl, baseSepolia.chain.relayer, 10n ** 20n);
const paying = await startPayingApp({ networks: [baseSepolia.network, other.network], chain: baseSepolia.chain });

it('an invoice created without a network offers both; paid on the second, the invoice, its payment, its receipt and the export name that network', async () => {
  const shop = await openShop(paying);
  const invoice = await shop.invoice('3.21');
  expect(invoice).toMatchObject({ network: null });
  const challenge = await fetch(invoice.payUrl);
  const offered = decodeBase64Json<{ accepts: { network: string }[] }>(challenge.headers.get('payment-required')!);
  expect(offered.accepts.map((accept) => accept.network)).toEqual(['eip155:84532', 'eip155:31337']);

  // A plain transfer on the second network, submitted from the checkout page.
  const payer = await other.payer(3_210_000n);
  await setEthBalance(other.rpcUrl, payer.address, 10n ** 18n);
  const txHash = await sendFromAccount(other.rpcUrl, payer, {
    to: BASE_SEPOLIA_USDC,
    data: encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [invoice.payTo as `0x${string}`, 3_210_000n],
    }),
  });
  await createLocalPublicClient(other.rpcUrl).waitForTransactionReceipt({ hash: txHash });
  const submitted = await paying.app.inject({
    method: 'POST',
    url: `/w/${shop.workspaceId}/i/${invoice.id}/transactions`,
    payload: { network: 'other-chain', txHash },
  });
  expect(submitted.statusCode, submitted.body).toBeLessThan(300);

  const read = async () =>
    (await shop.api('GET', `/invoices/${invoice.id}`)).json<{ status: string; network: string | null }>();
  await expect.poll(async () => (await read()).status, { timeout: 20_000, interval: 200 }).toBe('paid');
  expect((await read()).network).toBe('other-chain');
  const receipt = (await shop.api('GET', `/invoices/${invoice.id}/receipt`)).json<{
    network: string;
    paymentIntentId: string;
  }>();
  expect(receipt.network).toBe('other-chain');
  const payment = (await shop.api('GET', `/payment-intents/${receipt.paymentIntentId}`)).json<{ network: string }>();
  expect(payment.network).toBe('other-chain');
  const exported = (await shop.api('GET', '/invoices/export')).body.split('\r\n');
  const columns = exported[0]!.split(',');
  const row = exported.find((line) => line.includes(invoice.id))!.split(',');
  expect(row[columns.indexOf('network')]).toBe('other-chain');
});
