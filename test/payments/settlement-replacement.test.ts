import { parseTransaction } from 'viem';
import { describe, expect, it } from 'vitest';
import type { ChainPort } from '../../src/chain/chain-port.js';
import { createLocalPublicClient, mineBlocks } from '../../src/chain/local-chain.js';
import { createTestChain } from '../support/chain.js';
import { openShop, startPayingApp } from '../support/paying-app.js';
import { payV2 } from '../support/x402.js';

const chain = await createTestChain();
const client = createLocalPublicClient(chain.rpcUrl);

/** What the relayer signed first for each payment, before the network's base fee rose past it. */
const firstSigned: { hash: `0x${string}`; maxFeePerGas: bigint; nonce: number }[] = [];

/**
 * The real chain, where the base fee of the next block jumps right after the first settlement of a payment
 * is signed (before it is sent) to `baseFee(signed fee cap)`: that settlement cannot be mined as signed.
 */
function risingFees(baseFee: (maxFeePerGas: bigint) => bigint): ChainPort {
  let raised = false;
  return {
    ...chain.chain,
    async signSettlement(...args) {
      const signed = await chain.chain.signSettlement(...args);
      if (raised) return signed;
      raised = true;
      const tx = parseTransaction(signed.raw);
      firstSigned.push({ hash: signed.hash, maxFeePerGas: tx.maxFeePerGas!, nonce: tx.nonce! });
      await client.request({
        method: 'anvil_setNextBlockBaseFeePerGas' as 'eth_chainId',
        params: [`0x${baseFee(tx.maxFeePerGas!).toString(16)}`] as never,
      });
      await mineBlocks(chain.rpcUrl, 1);
      return signed;
    },
  };
}

const settlementOf = async (paying: Awaited<ReturnType<typeof startPayingApp>>, invoiceId: string) =>
  paying.database.db
    .selectFrom('payment_intents')
    .select(['status', 'tx_hash'])
    .where('invoice_id', '=', invoiceId)
    .executeTakeFirstOrThrow();

describe('a settlement stuck below the base fee', () => {
  it('is replaced with a higher fee (same nonce, same authorization) and mined', async () => {
    const network = { ...chain.network, maxFeePerGasGwei: 100_000 };
    const paying = await startPayingApp({ networks: [network], chain: risingFees((fee) => fee * 10n) });
    const shop = await openShop(paying);
    const invoice = await shop.invoice('2');
    const payer = await chain.payer(10_000_000n);

    const paid = await payV2(payer)(invoice.payUrl);
    expect([200, 202]).toContain(paid.status);
    await expect
      .poll(async () => (await settlementOf(paying, invoice.id)).status, { timeout: 30_000, interval: 200 })
      .toBe('succeeded');
    const stuck = firstSigned[0]!;
    const { tx_hash: hash } = await settlementOf(paying, invoice.id);
    expect(hash).not.toBe(stuck.hash);
    const replacement = await client.getTransaction({ hash: hash as `0x${string}` });
    expect(replacement.nonce).toBe(stuck.nonce);
    expect(replacement.maxFeePerGas!).toBeGreaterThan(stuck.maxFeePerGas);
    expect((await client.getTransactionReceipt({ hash: hash as `0x${string}` })).status).toBe('success');
  });

  it('whose replacement would pass the fee cap is reported and not replaced', async () => {
    const capGwei = 50;
    const network = { ...chain.network, maxFeePerGasGwei: capGwei };
    // The next block's base fee passes the cap: no replacement under it could be mined.
    const paying = await startPayingApp({
      networks: [network],
      chain: risingFees(() => BigInt(capGwei * 2) * 10n ** 9n),
    });
    const shop = await openShop(paying);
    const invoice = await shop.invoice('2');
    const payer = await chain.payer(10_000_000n);
    const before = firstSigned.length;

    // The client waits for the settlement; the report comes meanwhile.
    const payment = payV2(payer)(invoice.payUrl);
    const metric = async () => (await paying.app.inject({ method: 'GET', url: '/metrics' })).body;
    await expect
      .poll(metric, { timeout: 30_000, interval: 200 })
      .toMatch(/^invoice_service_relayer_stuck_settlements\{network="base-sepolia"\} 1$/m);
    const stuck = firstSigned[before]!;
    expect(await settlementOf(paying, invoice.id)).toEqual({ status: 'processing', tx_hash: stuck.hash });
    expect((await payment).status).toBeLessThan(500);
  }, 60_000);
});
