import { createTestClient, createWalletClient, http, type Address, type Hash, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import {
  BASE_SEPOLIA_USDC,
  createLocalPublicClient,
  localChain,
  setEthBalance,
  signTransfer,
} from '../../src/chain/local-chain.js';
import { transferWithAuthorizationTypes } from '../../src/chain/usdc-eip3009.js';
import { testUsdcAbi, testUsdcRuntimeBytecode } from '../../src/chain/test-usdc.artifact.js';
import type { FastifyInstance } from 'fastify';

/** Signs a plain USDC `transfer` without sending it (src/chain/local-chain.ts; the bench signs the same way). */
export { signTransfer };

/** Gas money for a payer that sends its own transactions (chain.payer() holds USDC only). */
export function fundGas(rpcUrl: string, address: Address): Promise<void> {
  return setEthBalance(rpcUrl, address, 10n ** 18n);
}

/** Sends signed bytes and waits for the receipt (automine: at once). */
export async function broadcast(
  rpcUrl: string,
  raw: Hex,
): Promise<{ hash: Hash; status: 'success' | 'reverted'; blockTime: Date }> {
  const client = createLocalPublicClient(rpcUrl);
  const hash = await client.sendRawTransaction({ serializedTransaction: raw });
  const receipt = await client.waitForTransactionReceipt({ hash });
  const block = await client.getBlock({ blockHash: receipt.blockHash });
  return { hash, status: receipt.status, blockTime: new Date(Number(block.timestamp) * 1000) };
}

/** A plain USDC (or `token`) transfer, mined. */
export async function transfer(rpcUrl: string, payer: PrivateKeyAccount, to: Address, amount: bigint, token?: Address) {
  return broadcast(rpcUrl, (await signTransfer(rpcUrl, payer, to, amount, token)).raw);
}

/** Another ERC-20 with the test token's code at `address`, and `amount` of it minted to `holder`. */
export async function installOtherToken(
  rpcUrl: string,
  address: Address,
  holder: PrivateKeyAccount,
  amount: bigint,
): Promise<Address> {
  const chain = localChain(rpcUrl);
  await createTestClient({ mode: 'anvil', chain, transport: http(rpcUrl) }).setCode({
    address,
    bytecode: testUsdcRuntimeBytecode,
  });
  const wallet = createWalletClient({ chain, transport: http(rpcUrl), account: holder });
  const hash = await wallet.writeContract({
    address,
    abi: testUsdcAbi,
    functionName: 'mint',
    args: [holder.address, amount],
  });
  await createLocalPublicClient(rpcUrl).waitForTransactionReceipt({ hash });
  return address;
}

/** Moves the chain's clock forward: the next block is at least `seconds` later. */
export async function advanceChainTime(rpcUrl: string, seconds: number): Promise<void> {
  await createTestClient({ mode: 'anvil', chain: localChain(rpcUrl), transport: http(rpcUrl) }).increaseTime({
    seconds,
  });
}

/** Polls the public payment details until the latest attempt is no longer processing. */
export async function settledPayment(app: FastifyInstance, checkoutPath: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const details = (
      await app.inject({ method: 'GET', url: checkoutPath, headers: { accept: 'application/json' } })
    ).json();
    if (details.payment && details.payment.status !== 'processing') return details;
    if (Date.now() > deadline) throw new Error(`payment still processing: ${JSON.stringify(details.payment)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The body of POST …/authorizations as the checkout page makes it: an EIP-3009 authorization of the
 * shown amount to the shown recipient with `nonce` (the page's `authorizationNonce`), valid 10 minutes,
 * on Base Sepolia unless another `network` is given.
 */
export async function signCheckoutAuthorization(
  payer: PrivateKeyAccount,
  view: { recipient: string; amount: string },
  nonce: `0x${string}`,
  network: { readonly name: string; readonly chainId: number } = { name: 'base-sepolia', chainId: 84532 },
) {
  const authorization = {
    from: payer.address,
    to: view.recipient as Address,
    value: String(Math.round(Number(view.amount) * 1e6)),
    validAfter: '0',
    validBefore: String(Math.floor(Date.now() / 1000) + 600),
    nonce,
  };
  const signature = await payer.signTypedData({
    domain: { name: 'USDC', version: '2', chainId: network.chainId, verifyingContract: BASE_SEPOLIA_USDC },
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: {
      ...authorization,
      value: BigInt(authorization.value),
      validAfter: 0n,
      validBefore: BigInt(authorization.validBefore),
    },
  });
  return { network: network.name, authorization, signature };
}
