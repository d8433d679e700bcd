import { expect, it } from 'vitest';
import { createWalletClient, http } from 'viem';
import { BASE_SEPOLIA_USDC, createLocalPublicClient, localChain, setEthBalance } from '../../src/chain/local-chain.js';
import { testUsdcAbi } from '../../src/chain/test-usdc.artifact.js';
import type { ChainPort } from '../../src/chain/chain-port.js';
import { newWallet } from '../support/app.js';
import { createTestChain } from '../support/chain.js';
import { openShop, paymentState, startPayingApp } from '../support/paying-app.js';
import { bodyOf, decodeBase64Json, payV2 } from '../support/x402.js';

const testChain = await createTestChain();
/** Runs once, before the next settlement is priced (its gas estimate runs the transfer). */
let beforeSettlement: (() => Promise<void>) | undefined;
const simulations = new Map<string, number>();
const chain: ChainPort = {
  ...testChain.chain,
  async simulateSettlement(network, authorization, signature) {
    simulations.set(authorization.nonce, (simulations.get(authorization.nonce) ?? 0) + 1);
    return testChain.chain.simulateSettlement(network, authorization, signature);
  },
  async priceSettlement(network, authorization, signature) {
    const run = beforeSettlement;
    beforeSettlement = undefined;
    await run?.();
    return testChain.chain.priceSettlement(network, authorization, signature);
  },
};
const paying = await startPayingApp({ networks: testChain.networks, chain });

it('a payer who empties the wallet between verification and settlement: 402 with the reason, the invoice opens again', async () => {
  const shop = await openShop(paying);
  const invoice = await shop.invoice('2');
  const payer = await testChain.payer(2_000_000n);
  await setEthBalance(testChain.rpcUrl, payer.address, 10n ** 18n);
  const sink = newWallet().address;
  beforeSettlement = async () => {
    const wallet = createWalletClient({
      account: payer,
      chain: localChain(testChain.rpcUrl),
      transport: http(testChain.rpcUrl),
    });
    const hash = await wallet.writeContract({
      address: BASE_SEPOLIA_USDC,
      abi: testUsdcAbi,
      functionName: 'transfer',
      args: [sink, 2_000_000n],
    });
    await createLocalPublicClient(testChain.rpcUrl).waitForTransactionReceipt({ hash });
  };

  const response = await payV2(payer)(invoice.payUrl);
  beforeSettlement = undefined;

  expect(response.status).toBe(402);
  expect((await bodyOf(response)).error).toMatch(/payment failed: insufficient_balance/);
  expect(decodeBase64Json(response.headers.get('payment-response')!)).toMatchObject({
    success: false,
    errorReason: 'insufficient_balance',
  });
  expect(
    await paymentState(paying, testChain.rpcUrl, invoice.id, [payer.address, shop.wallet.address, sink]),
  ).toMatchObject({
    status: 'open',
    intents: [{ status: 'failed', failure_reason: 'insufficient_balance', tx_hash: null }],
    balances: [0n, 0n, 2_000_000n],
  });

  // The failed attempt holds nothing: another payer pays the invoice.
  const other = await testChain.payer(2_000_000n);
  expect((await payV2(other)(invoice.payUrl)).status).toBe(200);
  expect(await paymentState(paying, testChain.rpcUrl, invoice.id, [other.address, shop.wallet.address])).toMatchObject({
    status: 'paid',
    intents: [{ status: 'failed' }, { status: 'succeeded' }],
    balances: [0n, 2_000_000n],
  });
  // Each authorization was simulated once, when it was verified: the settlement's gas estimate runs it again.
  expect([...simulations.values()]).toEqual([1, 1]);
});
