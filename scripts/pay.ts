import { readFileSync } from 'node:fs';
import path from 'node:path';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';

/**
 * `npm run pay -- <url>`: pays an invoice (or a credit purchase) of the local demo as a buyer (or an agent)
 * would, with the unmodified x402 client and the demo buyer's key from DATA_DIR/demo.json. The url is the
 * invoice's or the purchase's `url` field.
 */
async function main(): Promise<void> {
  const url = process.argv[2];
  if (!url || !/^https?:\/\//.test(url)) {
    console.error(
      'usage: npm run pay -- <url>   (the "url" field of an invoice, …/x402/inv_…, or of a credit purchase, …/x402/credit-purchases/cp_…)',
    );
    process.exit(2);
  }
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
  let buyerKey: `0x${string}`;
  try {
    buyerKey = (JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8')) as { buyerPrivateKey: `0x${string}` })
      .buyerPrivateKey;
  } catch {
    console.error(`no demo buyer in ${dataDir}/demo.json: start the local demo first (npm start without NETWORKS)`);
    process.exit(2);
  }
  const buyer = privateKeyToAccount(buyerKey);
  const client = new x402Client().setSpendControls({ maxAmountPerPayment: '$10000' });
  registerExactEvmScheme(client, { signer: buyer, networks: ['eip155:84532'], policies: [] });
  console.log(`paying ${url} as the demo buyer ${buyer.address} …`);
  const response = await wrapFetchWithPayment(fetch, client)(url);
  const body = await response.text();
  console.log(`${response.status} ${body}`);
  process.exit(response.status === 200 ? 0 : 1);
}

main().catch((error: unknown) => {
  console.error(`payment failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
