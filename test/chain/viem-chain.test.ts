import {
  concat,
  createTestClient,
  createWalletClient,
  http,
  keccak256,
  parseSignature,
  parseTransaction,
  slice,
  toHex,
  type Hex,
  type LocalAccount,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRpcCounter } from '../../bench/rpc-counter.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAnvil } from '../../src/chain/anvil.js';
import {
  BASE_SEPOLIA_USDC,
  MULTICALL3_ADDRESS,
  createLocalPublicClient,
  fundWithUsdc,
  installMulticall3,
  installTestUsdc,
  localChain,
  mineBlocks,
  revertToSnapshot,
  setEthBalance,
  takeSnapshot,
  usdcBalance,
} from '../../src/chain/local-chain.js';
import type { Network } from '../../src/chain/networks.js';
import { transferWithAuthorizationTypes } from '../../src/chain/usdc-eip3009.js';
import { testUsdcAbi } from '../../src/chain/test-usdc.artifact.js';
import { BroadcastError, createViemChain } from '../../src/chain/viem-chain.js';
import { jsonRpc } from '../support/chain.js';
import type { ChainPort, TransferAuthorization } from '../../src/chain/chain-port.js';

// Fixed keys: a failing run can be replayed exactly.
const key = (name: string) => keccak256(toHex(`viem-chain ${name}`));
const relayerKey = key('relayer');
const payer = privateKeyToAccount(key('payer'));
const payee = privateKeyToAccount(key('payee'));
const stranger = privateKeyToAccount(key('stranger'));
const FUNDED = 100_000_000n;

const anvil = await startAnvil({ accounts: 1 });
afterAll(() => anvil.stop());
const rpcUrl = anvil.rpcUrl;
const reader = createLocalPublicClient(rpcUrl);
const network: Network = {
  name: 'base-sepolia',
  chainId: 84532,
  rpcUrls: [rpcUrl],
  usdc: BASE_SEPOLIA_USDC,
  confirmations: 1,
  tokenName: 'USDC',
  tokenVersion: '2',
};
const domain = { name: 'USDC', version: '2', chainId: 84532, verifyingContract: BASE_SEPOLIA_USDC } as const;

beforeAll(async () => {
  await installTestUsdc(rpcUrl);
  await installMulticall3(rpcUrl);
  await setEthBalance(rpcUrl, privateKeyToAccount(relayerKey).address, 10n ** 20n);
  await setEthBalance(rpcUrl, payer.address, 10n ** 20n);
  await fundWithUsdc(rpcUrl, payer.address, FUNDED);
});

// A fresh port per test: its nonce allocator must not remember a chain that a snapshot revert undid.
let chain: ChainPort;
let snapshot: Hex;
beforeEach(async () => {
  snapshot = await takeSnapshot(rpcUrl);
  chain = createViemChain({ relayerPrivateKey: relayerKey });
});
afterEach(() => revertToSnapshot(rpcUrl, snapshot));

let nonceCounter = 0;
async function authorization(overrides: Partial<TransferAuthorization> = {}): Promise<TransferAuthorization> {
  const now = (await reader.getBlock()).timestamp;
  return {
    from: payer.address,
    to: payee.address,
    value: '12500000',
    validAfter: '0',
    validBefore: String(now + 3600n),
    nonce: keccak256(toHex(`nonce ${++nonceCounter} ${Date.now()}`)),
    ...overrides,
  };
}

function sign(auth: TransferAuthorization, signer: LocalAccount = payer): Promise<Hex> {
  const message = {
    ...auth,
    value: BigInt(auth.value),
    validAfter: BigInt(auth.validAfter),
    validBefore: BigInt(auth.validBefore),
  };
  return signer.signTypedData({
    domain,
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message,
  });
}

/** The same signature with a 0/1 recovery id instead of v = 27/28. */
function withRecoveryId(signature: Hex): Hex {
  const { yParity } = parseSignature(signature);
  return concat([slice(signature, 0, 64), toHex(yParity, { size: 1 })]);
}

/** Anvil answers eth_sendRawTransaction before its automine has mined the block: wait for it. */
async function mined(hash: Hex): Promise<void> {
  await reader.waitForTransactionReceipt({ hash, pollingInterval: 20 });
}

async function settle(auth: TransferAuthorization, signature: Hex) {
  const signed = await chain.signSettlement(network, auth, signature, await chain.pendingNonce(network));
  await chain.broadcast(network, signed.raw);
  return signed;
}

describe('verifyAuthorization', () => {
  it('accepts a payer signature with v 27/28 or 0/1 and refuses anything else without throwing', async () => {
    const auth = await authorization();
    const signature = await sign(auth);
    expect(await chain.verifyAuthorization(network, auth, signature)).toBe(true);
    expect(await chain.verifyAuthorization(network, auth, withRecoveryId(signature))).toBe(true);

    expect(await chain.verifyAuthorization(network, { ...auth, value: '12500001' }, signature)).toBe(false);
    expect(await chain.verifyAuthorization(network, { ...auth, to: stranger.address }, signature)).toBe(false);
    expect(await chain.verifyAuthorization(network, auth, await sign(auth, stranger))).toBe(false);
    expect(await chain.verifyAuthorization({ ...network, chainId: 8453 }, auth, signature)).toBe(false);
    for (const garbage of ['0x', '0x1234', `0x${'zz'.repeat(65)}`, `0x${'00'.repeat(65)}`, `${signature}00`] as Hex[]) {
      expect(await chain.verifyAuthorization(network, auth, garbage), garbage).toBe(false);
    }
    expect(await chain.verifyAuthorization(network, { ...auth, value: 'lots' }, signature)).toBe(false);
  });

  it('refuses the malleable high-s copy that USDC refuses on-chain', async () => {
    const auth = await authorization();
    const { r, s, yParity } = parseSignature(await sign(auth));
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const highS = concat([r, toHex(n - BigInt(s), { size: 32 }), toHex(yParity === 0 ? 28 : 27, { size: 1 })]);
    expect(await chain.verifyAuthorization(network, auth, highS)).toBe(false);
    expect(await chain.simulateSettlement(network, auth, highS)).toBe('invalid_signature');
  });
});

describe('authorizationUsed and simulateSettlement', () => {
  it('reports the nonce unused before a settlement and used after it', async () => {
    const auth = await authorization();
    const signature = await sign(auth);
    expect(await chain.authorizationUsed(network, auth)).toBe(false);
    expect(await chain.simulateSettlement(network, auth, signature)).toBeUndefined();
    expect(await chain.simulateSettlement(network, auth, withRecoveryId(signature))).toBeUndefined();
    await mined((await settle(auth, signature)).hash);
    expect(await chain.authorizationUsed(network, auth)).toBe(true);
    expect(await chain.simulateSettlement(network, auth, signature)).toBe('nonce_already_used');
    // Pricing runs the transfer too: the token's refusal comes back as a reason, not as a node failure.
    await expect(chain.signSettlement(network, auth, signature, 0)).rejects.toMatchObject({
      name: 'SettlementWouldRevert',
      reason: 'nonce_already_used',
      message: 'a settlement on base-sepolia would revert: nonce_already_used',
    });
  });

  it('names why a settlement would fail', async () => {
    const now = (await reader.getBlock()).timestamp;
    const cases: [string, TransferAuthorization, LocalAccount][] = [
      ['insufficient_balance', await authorization({ value: String(FUNDED + 1n) }), payer],
      ['authorization_expired', await authorization({ validBefore: String(now - 1n) }), payer],
      [
        'authorization_not_yet_valid',
        await authorization({ validAfter: String(now + 3600n), validBefore: String(now + 7200n) }),
        payer,
      ],
      ['invalid_signature', await authorization(), stranger],
      [
        'simulation_failed: ERC20: transfer to the zero address',
        await authorization({ to: '0x0000000000000000000000000000000000000000' }),
        payer,
      ],
    ];
    for (const [reason, auth, signer] of cases) {
      expect(await chain.simulateSettlement(network, auth, await sign(auth, signer)), reason).toBe(reason);
    }
  });

  it('sends signatures that are not 65 bytes through the bytes overload', async () => {
    const auth = await authorization();
    expect(await chain.simulateSettlement(network, auth, `0x${'11'.repeat(64)}`)).toBe('invalid_signature');
  });

  it('throws, rather than blaming the payment, when the node cannot be reached', async () => {
    const auth = await authorization();
    const down = { ...network, rpcUrls: ['http://127.0.0.1:9'] };
    await expect(chain.simulateSettlement(down, auth, await sign(auth))).rejects.toThrow(
      /simulating a settlement on base-sepolia failed/,
    );
  });
});

describe('settling', () => {
  it('signs without sending, then broadcasts, and reports the receipt with growing confirmations', async () => {
    const auth = await authorization();
    const signed = await chain.signSettlement(network, auth, await sign(auth), await chain.pendingNonce(network));
    expect(signed.hash).toBe(keccak256(signed.raw));
    expect(await chain.receipt(network, signed.hash)).toEqual({ kind: 'not_found' });
    expect(await chain.authorizationUsed(network, auth)).toBe(false);

    await chain.broadcast(network, signed.raw);
    await mined(signed.hash);
    const first = await chain.receipt(network, signed.hash);
    const block = await reader.getBlock();
    expect(first).toEqual({
      kind: 'mined',
      success: true,
      blockNumber: block.number,
      blockHash: block.hash,
      blockTime: new Date(Number(block.timestamp) * 1000),
      confirmations: 1,
      // Log 0 is AuthorizationUsed, which is not a transfer: it names the authorization the transfer executed.
      transfers: [
        {
          logIndex: 1,
          token: BASE_SEPOLIA_USDC,
          from: payer.address,
          to: payee.address,
          value: 12_500_000n,
          authorizationNonce: auth.nonce.toLowerCase(),
        },
      ],
    });
    await mineBlocks(rpcUrl, 3);
    expect(await chain.receipt(network, signed.hash)).toMatchObject({ kind: 'mined', confirmations: 4 });
  });

  it('treats sending the same bytes again as success and moves the money once', async () => {
    const auth = await authorization();
    const signed = await chain.signSettlement(network, auth, await sign(auth), await chain.pendingNonce(network));
    await chain.broadcast(network, signed.raw);
    await mined(signed.hash);
    await chain.broadcast(network, signed.raw); // mined already: the node says "nonce too low"
    await mineBlocks(rpcUrl, 2);
    await chain.broadcast(network, signed.raw);
    expect(await usdcBalance(rpcUrl, payer.address)).toBe(FUNDED - 12_500_000n);
    expect(await usdcBalance(rpcUrl, payee.address)).toBe(12_500_000n);
  });

  it('reports a sent transaction as pending until a block includes it, and accepts it again while it waits', async () => {
    const test = createTestClient({ mode: 'anvil', chain: localChain(rpcUrl), transport: http(rpcUrl) });
    await test.setAutomine(false);
    try {
      const auth = await authorization();
      const signed = await chain.signSettlement(network, auth, await sign(auth), await chain.pendingNonce(network));
      await chain.broadcast(network, signed.raw);
      await chain.broadcast(network, signed.raw); // in the pool: "already imported"
      expect(await chain.receipt(network, signed.hash)).toEqual({ kind: 'pending' });
      await mineBlocks(rpcUrl, 1);
      expect(await chain.receipt(network, signed.hash)).toMatchObject({
        kind: 'mined',
        success: true,
        confirmations: 1,
      });
      expect(await usdcBalance(rpcUrl, payee.address)).toBe(12_500_000n);
    } finally {
      await test.setAutomine(true);
    }
  });

  it('signs with the nonces it is given; settlements sent out of order all mine', async () => {
    const payers = Array.from({ length: 5 }, (_, i) => privateKeyToAccount(key(`payer ${i}`)));
    for (const p of payers) await fundWithUsdc(rpcUrl, p.address, 1_000_000n);
    const auths = await Promise.all(payers.map((p) => authorization({ from: p.address, value: '1000000' })));
    const signatures = await Promise.all(auths.map((auth, i) => sign(auth, payers[i])));

    const first = await chain.pendingNonce(network);
    const signed = await Promise.all(
      auths.map((auth, i) => chain.signSettlement(network, auth, signatures[i] as Hex, first + i)),
    );
    expect(signed.map((s) => parseTransaction(s.raw).nonce)).toEqual([0, 1, 2, 3, 4].map((i) => first + i));
    // Sent last nonce first: each waits in the pool for its predecessor, as on a real chain. Anvil mines
    // one block per arriving transaction, so the last to become minable waits for the next block.
    for (const s of [...signed].reverse()) await chain.broadcast(network, s.raw);
    expect(await chain.pendingNonce(network)).toBe(first + 5);
    await mineBlocks(rpcUrl, 1);
    for (const s of signed) await mined(s.hash);
    for (const s of signed)
      expect(await chain.receipt(network, s.hash)).toMatchObject({ kind: 'mined', success: true });
    expect(await usdcBalance(rpcUrl, payee.address)).toBe(5_000_000n);
  });

  it('reports a settlement that reverted as mined without success and without transfers', async () => {
    const auth = await authorization();
    const signature = await sign(auth);
    // Both signed before either is sent, so the second is never simulated against a used nonce.
    const nonce = await chain.pendingNonce(network);
    const first = await chain.signSettlement(network, auth, signature, nonce);
    const second = await chain.signSettlement(network, auth, signature, nonce + 1);
    await chain.broadcast(network, first.raw);
    await chain.broadcast(network, second.raw);
    await mined(second.hash);
    expect(await chain.receipt(network, second.hash)).toMatchObject({ kind: 'mined', success: false, transfers: [] });
    expect(await usdcBalance(rpcUrl, payee.address)).toBe(12_500_000n);
  });

  it('refuses bytes whose nonce another sender took as nonce_taken; a new signature with a free nonce settles', async () => {
    const auth = await authorization();
    const other = await authorization();
    const nonce = await chain.pendingNonce(network);
    const stale = await chain.signSettlement(network, auth, await sign(auth), nonce);
    // Another sender with the same relayer key takes the nonce first.
    const otherProcess = createViemChain({ relayerPrivateKey: relayerKey });
    const taken = await otherProcess.signSettlement(network, other, await sign(other), nonce);
    await otherProcess.broadcast(network, taken.raw);
    await mined(taken.hash);

    const refused = chain.broadcast(network, stale.raw);
    await expect(refused).rejects.toThrow(BroadcastError);
    await expect(refused).rejects.toMatchObject({ kind: 'nonce_taken' });
    const again = await settle(auth, await sign(auth));
    await mined(again.hash);
    expect(await chain.receipt(network, again.hash)).toMatchObject({ kind: 'mined', success: true });
    expect(await usdcBalance(rpcUrl, payee.address)).toBe(25_000_000n);
  });

  it('explains a broadcast the node refuses, without dumping the request', async () => {
    const poor = createViemChain({ relayerPrivateKey: key('relayer without gas money') });
    const auth = await authorization();
    const signed = await poor.signSettlement(network, auth, await sign(auth), await poor.pendingNonce(network));
    const refused = poor.broadcast(network, signed.raw);
    await expect(refused).rejects.toMatchObject({ kind: 'rejected' });
    await expect(refused).rejects.toThrow(/^broadcasting 0x[0-9a-f]{64} on base-sepolia failed: Insufficient funds/);
    await expect(refused).rejects.not.toThrow(signed.raw.slice(2, 40));
  });
});

describe('receipt', () => {
  /** A plain USDC transfer from the payer to the payee, mined; its hash. */
  async function payeeTransfer(value: bigint): Promise<Hex> {
    const wallet = createWalletClient({ account: payer, chain: localChain(rpcUrl), transport: http(rpcUrl) });
    const hash = await wallet.writeContract({
      address: BASE_SEPOLIA_USDC,
      abi: testUsdcAbi,
      functionName: 'transfer',
      args: [payee.address, value],
    });
    await mined(hash);
    return hash;
  }

  it('reports a hash the node never saw as not found', async () => {
    expect(await chain.receipt(network, keccak256(toHex('never sent')))).toEqual({ kind: 'not_found' });
  });

  it('decodes a plain ERC-20 transfer, and only the Transfer logs of the network’s USDC', async () => {
    const hash = await payeeTransfer(3_000_000n);
    expect(await chain.receipt(network, hash)).toMatchObject({
      kind: 'mined',
      success: true,
      transfers: [{ logIndex: 0, token: BASE_SEPOLIA_USDC, from: payer.address, to: payee.address, value: 3_000_000n }],
    });
    const otherToken: Network = { ...network, usdc: MULTICALL3_ADDRESS };
    expect(await chain.receipt(otherToken, hash)).toMatchObject({ kind: 'mined', transfers: [] });
  });

  /** Three USDC transfers of the payer mined together in one new block; their hashes. */
  async function threeInOneBlock(): Promise<Hex[]> {
    const wallet = createWalletClient({ account: payer, chain: localChain(rpcUrl), transport: http(rpcUrl) });
    const tester = createTestClient({ mode: 'anvil', chain: localChain(rpcUrl), transport: http(rpcUrl) });
    await tester.setAutomine(false);
    try {
      const nonce = await reader.getTransactionCount({ address: payer.address, blockTag: 'pending' });
      const hashes = await Promise.all(
        [1n, 2n, 3n].map((value, index) =>
          wallet.writeContract({
            address: BASE_SEPOLIA_USDC,
            abi: testUsdcAbi,
            functionName: 'transfer',
            args: [payee.address, value],
            nonce: nonce + index,
            gas: 100_000n,
          }),
        ),
      );
      await mineBlocks(rpcUrl);
      return hashes;
    } finally {
      await tester.setAutomine(true);
    }
  }

  it('reads the newest block’s receipts once for all the transactions it holds', async () => {
    const hashes = await threeInOneBlock();
    const proxy = await startRpcCounter(rpcUrl);
    try {
      const counted = createViemChain({ relayerPrivateKey: relayerKey });
      const receipts = await Promise.all(
        hashes.map((hash) => counted.receipt({ ...network, rpcUrls: [proxy.url] }, hash)),
      );
      expect(receipts.map((receipt) => receipt.kind === 'mined' && receipt.transfers[0]!.value)).toEqual([1n, 2n, 3n]);
      expect(new Set(receipts.map((receipt) => receipt.kind === 'mined' && receipt.blockNumber)).size).toBe(1);
      expect(proxy.calls()).toMatchObject({ eth_getBlockReceipts: 1, eth_getBlockByNumber: 1 });
      // The head's time came with the head read.
      expect(proxy.calls().eth_getBlockByHash).toBeUndefined();
      expect(proxy.calls().eth_getTransactionReceipt).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it('serves no receipt of a head block that a reorganisation replaced by another of the same height', async () => {
    const hash = await payeeTransfer(4_000_000n);
    const before = await chain.receipt(network, hash);
    expect(before).toMatchObject({ kind: 'mined', confirmations: 1 });
    // The head block, kept with its receipts, becomes another block at the same height without the transfer.
    await jsonRpc(rpcUrl, 'anvil_reorg', [1, []]);
    const replaced = await reader.getBlock();
    expect(replaced.number).toBe(before.kind === 'mined' && before.blockNumber);
    expect(replaced.hash).not.toBe(before.kind === 'mined' && before.blockHash);
    expect(await chain.receipt(network, hash)).toEqual({ kind: 'not_found' });
  });

  it('reads each receipt alone from a node without eth_getBlockReceipts, and stops asking for it', async () => {
    const hashes = await threeInOneBlock();
    const node = await startNodeWithout('eth_getBlockReceipts', rpcUrl);
    try {
      const plain = createViemChain({ relayerPrivateKey: relayerKey });
      const on = { ...network, rpcUrls: [node.url] };
      expect(await plain.receipt(on, hashes[0]!)).toMatchObject({ kind: 'mined', transfers: [{ value: 1n }] });
      await mineBlocks(rpcUrl);
      expect(await plain.receipt(on, hashes[1]!)).toMatchObject({ kind: 'mined', confirmations: 2 });
      expect(node.refused).toBe(1);
    } finally {
      await node.close();
    }
  });
});

/** A node in front of `target` that answers `method` as one that does not have it (-32601), and counts those. */
async function startNodeWithout(method: string, target: string) {
  let refused = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const call = JSON.parse(body) as { id: number; method: string };
      const answer =
        call.method === method
          ? Promise.resolve(
              JSON.stringify({
                jsonrpc: '2.0',
                id: call.id,
                error: { code: -32601, message: `${method} does not exist` },
              }),
            ).finally(() => refused++)
          : fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) =>
              r.text(),
            );
      void answer.then((text) => response.writeHead(200, { 'content-type': 'application/json' }).end(text));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get refused() {
      return refused;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
