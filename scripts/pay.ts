import { readFileSync } from 'node:fs';
import path from 'node:path';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { createLocalPublicClient, signTransfer } from '../src/chain/local-chain.js';
import { RPC_URL_FILE } from '../src/main/local-network.js';

/**
 * `npm run pay -- <url>`: pays an invoice (or a credit purchase) of the local demo as a buyer (or an agent)
 * would, with the unmodified x402 client and the demo buyer's key from DATA_DIR/demo.json. The url is the
 * invoice's or the purchase's `url` field. With `--transfer`, the buyer sends a plain USDC transfer of the
 * amount to the receiving address instead, as from an exchange, and submits nothing: the service finds it.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const plain = args.includes('--transfer');
  const url = args.find((arg) => arg !== '--transfer');
  if (!url || !/^https?:\/\//.test(url)) {
    console.error(
      'usage: npm run pay -- [--transfer] <url>   (the "url" field of an invoice, …/x402/inv_…, or of a credit purchase, …/x402/credit-purchases/cp_…)',
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
  if (plain) return payByTransfer(url, buyer, dataDir);
  const client = new x402Client().setSpendControls({ maxAmountPerPayment: '$10000' });
  registerExactEvmScheme(client, { signer: buyer, networks: ['eip155:84532'], policies: [] });
  console.log(`paying ${url} as the demo buyer ${buyer.address} …`);
  const response = await wrapFetchWithPayment(fetch, client)(url);
  const body = await response.text();
  console.log(`${response.status} ${body}`);
  process.exit(response.status === 200 ? 0 : 1);
}

/** Reads what to pay from the 402 challenge, sends the plain transfer and waits for it to be mined. */
async function payByTransfer(url: string, buyer: PrivateKeyAccount, dataDir: string): Promise<void> {
  const challenge = await fetch(url);
  const body = (await challenge.json().catch(() => ({}))) as {
    accepts?: { payTo?: `0x${string}`; maxAmountRequired?: string }[];
  };
  const offer = body.accepts?.[0];
  if (challenge.status !== 402 || !offer?.payTo || !offer.maxAmountRequired) {
    console.error(`${url} asks for no payment now (${challenge.status}): ${JSON.stringify(body)}`);
    process.exit(1);
  }
  const rpcUrl = readFileSync(path.join(dataDir, 'chain', RPC_URL_FILE), 'utf8').trim();
  const amount = BigInt(offer.maxAmountRequired);
  console.log(`sending ${Number(amount) / 1e6} USDC to ${offer.payTo} as the demo buyer ${buyer.address} …`);
  const { raw } = await signTransfer(rpcUrl, buyer, offer.payTo, amount);
  const node = createLocalPublicClient(rpcUrl);
  const hash = await node.sendRawTransaction({ serializedTransaction: raw });
  const receipt = await node.waitForTransactionReceipt({ hash });
  console.log(
    `mined in block ${receipt.blockNumber} (${hash}). Nothing to submit: the service finds the transfer on the chain and marks the invoice paid once it is confirmed.`,
  );
  process.exit(receipt.status === 'success' ? 0 : 1);
}

main().catch((error: unknown) => {
  console.error(`payment failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
