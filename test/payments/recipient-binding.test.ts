import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { usdcBalance } from '../../src/chain/local-chain.js';
import { createTestChain } from '../support/chain.js';
import { openShop, startPayingApp } from '../support/paying-app.js';
import { payV2 } from '../support/x402.js';

const chain = await createTestChain();
const paying = await startPayingApp(chain);

it(
  'an unpaid link recorded for another receiving address accepts no payment; paid records keep theirs',
  { timeout: 60_000 },
  async () => {
    const shop = await openShop(paying);
    const paid = await shop.invoice('1');
    const stale = await shop.invoice('1');
    const payer = await chain.payer(5_000_000n);
    expect((await payV2(payer)(paid.payUrl)).status).toBe(200);

    // As if the invoice had been issued while the workspace received at another address.
    await sql`UPDATE invoices SET pay_to = '0x000000000000000000000000000000000000dead' WHERE id = ${stale.id}`.execute(
      paying.database.db,
    );
    const refused = await fetch(stale.payUrl);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('pay_to_mismatch');
    expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(4_000_000n);

    const receipt = await shop.api('GET', `/invoices/${paid.id}/receipt`);
    expect(receipt.json()).toMatchObject({ recipient: shop.wallet.address.toLowerCase(), amount: '1.000000' });
  },
);
