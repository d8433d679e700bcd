import { parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startAnvil } from '../src/chain/anvil.js';
import { fundWithUsdc, installMulticall3, installTestUsdc, setEthBalance } from '../src/chain/local-chain.js';
import { transferWithAuthorizationTypes } from '../src/chain/usdc-eip3009.js';

const SETUP_TIMEOUT_MS = 60_000;

/** The chain parts' chain (purchases, payments): a real anvil posing as Base Sepolia, as test/support/chain.ts makes it. */
export interface BenchChain {
  readonly rpcUrl: string;
  /** Generated for this run; holds ETH for the settlements' gas. */
  readonly relayerPrivateKey: Hex;
  /** Holds the test USDC of every purchase of the run, and pays each with an authorization of its own. */
  readonly payer: PrivateKeyAccount;
  /** Ends anvil. Idempotent; never throws. */
  stop(): Promise<void>;
}

/**
 * Anvil mining a block every `blockSeconds` and no other (interval mining, no automine): a settlement
 * waits for the next block as on a real chain, and no transaction adds a block off the schedule. Without
 * `blockSeconds`, automine, for a runner that switches it off and mines itself. Then the test USDC and
 * Multicall3 at their Base Sepolia addresses, a relayer with 100 ETH and a payer with `payerUsdc`
 * micro-units (one mint: the faucet's transactions cannot be sent in parallel).
 */
export async function startBenchChain(blockSeconds: number | undefined, payerUsdc: bigint): Promise<BenchChain> {
  const anvil = await startAnvil(blockSeconds === undefined ? {} : { blockTimeSeconds: blockSeconds });
  const { rpcUrl } = anvil;
  const relayerPrivateKey = generatePrivateKey();
  const payer = privateKeyToAccount(generatePrivateKey());
  const setUp = async () => {
    await installTestUsdc(rpcUrl);
    await installMulticall3(rpcUrl);
    await setEthBalance(rpcUrl, privateKeyToAccount(relayerPrivateKey).address, 10n ** 20n);
    await fundWithUsdc(rpcUrl, payer.address, payerUsdc);
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    // The mint waits for its block; viem alone would wait up to 180 s for it.
    await Promise.race([
      setUp(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the local chain was not set up within ${SETUP_TIMEOUT_MS / 1000} s`)),
          SETUP_TIMEOUT_MS,
        );
      }),
    ]);
    return { rpcUrl, relayerPrivateKey, payer, stop: anvil.stop };
  } catch (error) {
    await anvil.stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** What a payer reads from an open purchase (GET or POST /credit-purchases) to pay it. */
export interface OpenPurchase {
  readonly id: string;
  /** USDC with six decimals, e.g. "10.000000". */
  readonly price: string;
  readonly recipient: Address;
  readonly payment: {
    readonly authorizationNonce: Hex | null;
    readonly networks: readonly {
      readonly name: string;
      readonly chainId: number;
      readonly token: Address;
      readonly tokenName: string;
      readonly tokenVersion: string;
    }[];
  };
}

/** The body of POST …/credit-purchases/:id/authorizations, signed as a wallet would from the purchase's payment details. */
export async function signPurchaseAuthorization(
  payer: PrivateKeyAccount,
  purchase: OpenPurchase,
  validSeconds: number,
) {
  const network = purchase.payment.networks[0];
  const nonce = purchase.payment.authorizationNonce;
  if (!network || !nonce) throw new Error(`purchase ${purchase.id} is not payable`);
  const value = parseUnits(purchase.price, 6);
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + validSeconds);
  const signature = await payer.signTypedData({
    domain: {
      name: network.tokenName,
      version: network.tokenVersion,
      chainId: network.chainId,
      verifyingContract: network.token,
    },
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: { from: payer.address, to: purchase.recipient, value, validAfter: 0n, validBefore, nonce },
  });
  return {
    network: network.name,
    authorization: {
      from: payer.address,
      to: purchase.recipient,
      value: value.toString(),
      validAfter: '0',
      validBefore: validBefore.toString(),
      nonce,
    },
    signature,
  };
}
