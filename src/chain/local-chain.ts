import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  keccak256,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TestClient,
  type Transport,
} from 'viem';
import { LOCAL_CHAIN_ID } from './anvil.js';
import { multicall3RuntimeBytecode } from './multicall3.artifact.js';
import { testUsdcAbi, testUsdcRuntimeBytecode } from './test-usdc.artifact.js';

/** USDC on Base Sepolia. The local chain puts the test token here, so x402 clients know it by default. */
export const BASE_SEPOLIA_USDC: Address = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

/** Where Multicall3 lives on Base Sepolia (and most chains); viem and the x402 facilitator call it there. */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

// Sends the test-only mint transactions. Impersonated, so it needs no key and never shares a nonce with
// a dev account that the service may use as its relayer.
const FAUCET: Address = '0x000000000000000000000000000000000000f00d';
const FAUCET_ETH = 10n ** 21n;

// Local blocks come in milliseconds: poll fast, and never serve a cached block number, or a wait for
// N confirmations sees the chain a polling interval late.
const POLLING_INTERVAL_MS = 50;

/** A viem chain for an anvil at `rpcUrl` posing as Base Sepolia, with Multicall3 where installMulticall3 puts it. */
export function localChain(rpcUrl: string, chainId: number = LOCAL_CHAIN_ID): Chain {
  return defineChain({
    id: chainId,
    name: 'Base Sepolia (local anvil)',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
    testnet: true,
  });
}

/** A public client for a local chain: no block-number cache, fast polling. */
export function createLocalPublicClient(rpcUrl: string): PublicClient<Transport, Chain> {
  return createPublicClient({
    chain: localChain(rpcUrl),
    transport: http(rpcUrl),
    cacheTime: 0,
    pollingInterval: POLLING_INTERVAL_MS,
  });
}

function testClient(rpcUrl: string): TestClient<'anvil', Transport, Chain> {
  return createTestClient({
    mode: 'anvil',
    chain: localChain(rpcUrl),
    transport: http(rpcUrl),
    cacheTime: 0,
    pollingInterval: POLLING_INTERVAL_MS,
  });
}

/** Puts the test USDC's runtime code at the Base Sepolia USDC address. Balances already there stay. */
export async function installTestUsdc(rpcUrl: string): Promise<Address> {
  await testClient(rpcUrl).setCode({ address: BASE_SEPOLIA_USDC, bytecode: testUsdcRuntimeBytecode });
  return BASE_SEPOLIA_USDC;
}

/** Puts a Multicall3 (our own, see contracts/Multicall3.sol) at its canonical address. */
export async function installMulticall3(rpcUrl: string): Promise<Address> {
  await testClient(rpcUrl).setCode({ address: MULTICALL3_ADDRESS, bytecode: multicall3RuntimeBytecode });
  return MULTICALL3_ADDRESS;
}

/**
 * Mints `amountMicro` test USDC to `to` and waits until the mint is mined (at once with automine, by the
 * next block with a block time). Needs installTestUsdc first. Throws when the mint reverts.
 */
export async function fundWithUsdc(rpcUrl: string, to: Address, amountMicro: bigint): Promise<Hash> {
  const [hash] = await fundManyWithUsdc(rpcUrl, [{ to, amountMicro }]);
  return hash!;
}

/**
 * Mints test USDC to many holders at once: every mint is sent before any is waited for (the node gives
 * the impersonated faucet its nonces in turn), so they are mined together in the next block.
 */
export async function fundManyWithUsdc(
  rpcUrl: string,
  grants: readonly { readonly to: Address; readonly amountMicro: bigint }[],
): Promise<Hash[]> {
  const test = testClient(rpcUrl);
  await test.impersonateAccount({ address: FAUCET });
  await test.setBalance({ address: FAUCET, value: FAUCET_ETH });
  const client = createPublicClient({ transport: http(rpcUrl), pollingInterval: POLLING_INTERVAL_MS });
  const hashes: Hash[] = [];
  // Not viem's writeContract: it fills in the nonce itself, and mints sent at once would share it.
  for (const { to, amountMicro } of grants)
    hashes.push(
      await client.request({
        method: 'eth_sendTransaction',
        params: [
          {
            from: FAUCET,
            to: BASE_SEPOLIA_USDC,
            data: encodeFunctionData({ abi: testUsdcAbi, functionName: 'mint', args: [to, amountMicro] }),
          },
        ],
      } as never),
    );
  for (const hash of hashes) {
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`test USDC mint reverted: ${hash}`);
  }
  return hashes;
}

/** Sends a transaction signed by a local account (the local demo's browser wallet pays this way). */
export function sendFromAccount(
  rpcUrl: string,
  account: LocalAccount,
  tx: { to: Address; data?: Hex; value?: bigint },
): Promise<Hash> {
  const wallet = createWalletClient({ account, transport: http(rpcUrl) });
  return wallet.sendTransaction({ chain: null, to: tx.to, data: tx.data, value: tx.value });
}

/** The test USDC balance of `owner`, in micro-units. */
export function usdcBalance(rpcUrl: string, owner: Address): Promise<bigint> {
  return createLocalPublicClient(rpcUrl).readContract({
    address: BASE_SEPOLIA_USDC,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

/**
 * Signs (does not send) a plain ERC-20 `transfer` from `payer`. Gas is fixed, so a transfer that will
 * revert is signed too instead of failing estimation. The hash is known before anything is sent.
 */
export async function signTransfer(
  rpcUrl: string,
  payer: LocalAccount,
  to: Address,
  amount: bigint,
  token: Address = BASE_SEPOLIA_USDC,
): Promise<{ hash: Hash; raw: Hex }> {
  const client = createLocalPublicClient(rpcUrl);
  // The node's own chain id: an anvil may pose as another network than Base Sepolia.
  const [nonce, fees, chainId] = await Promise.all([
    client.getTransactionCount({ address: payer.address, blockTag: 'pending' }),
    client.estimateFeesPerGas(),
    client.getChainId(),
  ]);
  const raw = await payer.signTransaction({
    type: 'eip1559',
    chainId,
    to: token,
    data: encodeFunctionData({ abi: testUsdcAbi, functionName: 'transfer', args: [to, amount] }),
    nonce,
    gas: 100_000n,
    maxFeePerGas: fees.maxFeePerGas * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  return { hash: keccak256(raw), raw };
}

/** Sets the ETH balance of `address` (gas money for test accounts and relayers). */
export async function setEthBalance(rpcUrl: string, address: Address, wei: bigint): Promise<void> {
  await testClient(rpcUrl).setBalance({ address, value: wei });
}

/**
 * Mines `count` empty blocks now. Each block's timestamp is at least one second after the previous one,
 * so mining many at once runs the chain's clock ahead of the wall clock.
 */
export async function mineBlocks(rpcUrl: string, count = 1): Promise<void> {
  await testClient(rpcUrl).mine({ blocks: count });
}

/** Snapshot of the whole chain state; `revertToSnapshot` consumes it (take a new one to revert again). */
export async function takeSnapshot(rpcUrl: string): Promise<Hex> {
  return testClient(rpcUrl).snapshot();
}

export async function revertToSnapshot(rpcUrl: string, id: Hex): Promise<void> {
  await testClient(rpcUrl).revert({ id });
}

export interface BlockProducer {
  /** Stops mining and waits for a block in flight. Idempotent; never throws. */
  stop(): Promise<void>;
  /**
   * Runs `work` with no block mined meanwhile (a block in flight is waited for first), then mines on. For
   * what must not race a new block: anvil_reorg with a block mined at the same moment loses blocks below
   * its head for good.
   */
  paused<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * Mines an empty block every `everySeconds` on an automining chain, so that waiting for N confirmations
 * ends even when no other transaction comes (the demo's chain). Never overlaps two mines.
 */
export function startBlockProducer(rpcUrl: string, everySeconds: number): BlockProducer {
  if (!(everySeconds > 0)) throw new RangeError(`everySeconds must be > 0, got ${everySeconds}`);
  const client = testClient(rpcUrl);
  const intervalMs = everySeconds * 1000;
  let stopped = false;
  let pauses = 0;
  let inFlight: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout;

  const schedule = () => {
    // Unref'd: the producer alone never keeps a process alive.
    timer = setTimeout(tick, intervalMs).unref();
  };
  const tick = () => {
    inFlight = client
      .mine({ blocks: 1 })
      // A failed mine only delays confirmations by one interval; the next tick tries again.
      .catch(() => {})
      .then(() => {
        if (!stopped && pauses === 0) schedule();
      });
  };
  schedule();

  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
    paused: async (work) => {
      pauses += 1;
      clearTimeout(timer);
      await inFlight;
      try {
        return await work();
      } finally {
        pauses -= 1;
        if (!stopped && pauses === 0) schedule();
      }
    },
  };
}
