import {
  createWalletClient,
  domainSeparator,
  http,
  keccak256,
  parseEventLogs,
  parseSignature,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAnvil, type Anvil } from '../../src/chain/anvil.js';
import {
  BASE_SEPOLIA_USDC,
  createLocalPublicClient,
  fundWithUsdc,
  installTestUsdc,
  localChain,
  revertToSnapshot,
  setEthBalance,
  takeSnapshot,
} from '../../src/chain/local-chain.js';
import { testUsdcAbi } from '../../src/chain/test-usdc.artifact.js';

const token = { address: BASE_SEPOLIA_USDC, abi: testUsdcAbi } as const;
const domain = { name: 'USDC', version: '2', chainId: 84532, verifyingContract: BASE_SEPOLIA_USDC } as const;
const authorizationFields = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const;

// Fixed keys: a failing run can be replayed exactly.
const payer = privateKeyToAccount(keccak256(toHex('test-usdc payer')));
const payee = privateKeyToAccount(keccak256(toHex('test-usdc payee')));
const relayer = privateKeyToAccount(keccak256(toHex('test-usdc relayer')));
const stranger = privateKeyToAccount(keccak256(toHex('test-usdc stranger')));

let anvil: Anvil;
let chain: PublicClient;
let snapshot: Hex;

beforeAll(async () => {
  anvil = await startAnvil({ accounts: 1 });
  chain = createLocalPublicClient(anvil.rpcUrl);
  await installTestUsdc(anvil.rpcUrl);
  for (const account of [payer, payee, relayer, stranger])
    await setEthBalance(anvil.rpcUrl, account.address, 10n ** 20n);
  await fundWithUsdc(anvil.rpcUrl, payer.address, 100_000_000n);
});
afterAll(async () => anvil?.stop());
beforeEach(async () => {
  snapshot = await takeSnapshot(anvil.rpcUrl);
});
afterEach(async () => revertToSnapshot(anvil.rpcUrl, snapshot));

function walletOf(account: LocalAccount) {
  return createWalletClient({ account, chain: localChain(anvil.rpcUrl), transport: http(anvil.rpcUrl) });
}

/** Waits until the transaction is mined, so that reads after it see its effects. */
async function mined(sent: Promise<Hex>) {
  const receipt = await chain.waitForTransactionReceipt({ hash: await sent });
  expect(receipt.status).toBe('success');
  return receipt;
}

async function balanceOf(address: Address): Promise<bigint> {
  return chain.readContract({ ...token, functionName: 'balanceOf', args: [address] });
}

async function latestTimestamp(): Promise<bigint> {
  return (await chain.getBlock()).timestamp;
}

// A type alias, not an interface: signTypedData wants a message assignable to Record<string, unknown>.
type Authorization = {
  readonly from: Address;
  readonly to: Address;
  readonly value: bigint;
  readonly validAfter: bigint;
  readonly validBefore: bigint;
  readonly nonce: Hex;
};

let nonceCounter = 0;
async function authorization(overrides: Partial<Authorization> = {}): Promise<Authorization> {
  return {
    from: payer.address,
    to: payee.address,
    value: 12_500_000n,
    validAfter: 0n,
    validBefore: (await latestTimestamp()) + 3600n,
    nonce: keccak256(toHex(`nonce ${++nonceCounter}`)),
    ...overrides,
  };
}

function sign(
  signer: LocalAccount,
  message: Authorization,
  primaryType: 'TransferWithAuthorization' | 'ReceiveWithAuthorization' = 'TransferWithAuthorization',
): Promise<Hex> {
  const types =
    primaryType === 'TransferWithAuthorization'
      ? { TransferWithAuthorization: authorizationFields }
      : { ReceiveWithAuthorization: authorizationFields };
  return signer.signTypedData({ domain, types, primaryType, message });
}

/** Submits through the (v, r, s) overload, as USDC v2 has it and x402 uses for 65-byte signatures. */
async function submitVrs(auth: Authorization, signature: Hex, sender: LocalAccount = relayer): Promise<Hex> {
  const { v, r, s } = parseSignature(signature);
  return walletOf(sender).writeContract({
    ...token,
    functionName: 'transferWithAuthorization',
    args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, Number(v), r, s],
  });
}

describe('test USDC', () => {
  it('has 6 decimals and the name, symbol and version of Base Sepolia USDC', async () => {
    expect(await chain.readContract({ ...token, functionName: 'decimals' })).toBe(6);
    expect(await chain.readContract({ ...token, functionName: 'name' })).toBe('USDC');
    expect(await chain.readContract({ ...token, functionName: 'symbol' })).toBe('USDC');
    expect(await chain.readContract({ ...token, functionName: 'version' })).toBe('2');
  });

  it('reports its EIP-712 domain for chain 84532 at its own address (EIP-5267)', async () => {
    const [fields, name, version, chainId, verifyingContract, salt, extensions] = await chain.readContract({
      ...token,
      functionName: 'eip712Domain',
    });
    expect({ fields, name, version, chainId, verifyingContract, salt, extensions }).toEqual({
      fields: '0x0f',
      name: 'USDC',
      version: '2',
      chainId: 84532n,
      verifyingContract: BASE_SEPOLIA_USDC,
      salt: `0x${'0'.repeat(64)}`,
      extensions: [],
    });
    expect(await chain.readContract({ ...token, functionName: 'DOMAIN_SEPARATOR' })).toBe(domainSeparator({ domain }));
    expect(await chain.readContract({ ...token, functionName: 'TRANSFER_WITH_AUTHORIZATION_TYPEHASH' })).toBe(
      keccak256(
        toHex(
          'TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)',
        ),
      ),
    );
    expect(await chain.readContract({ ...token, functionName: 'CANCEL_AUTHORIZATION_TYPEHASH' })).toBe(
      keccak256(toHex('CancelAuthorization(address authorizer,bytes32 nonce)')),
    );
  });

  it('mints, transfers, and moves allowances like an ERC-20', async () => {
    expect(await chain.readContract({ ...token, functionName: 'totalSupply' })).toBe(100_000_000n);
    const transfer = await mined(
      walletOf(payer).writeContract({ ...token, functionName: 'transfer', args: [payee.address, 30_000_000n] }),
    );
    const logs = parseEventLogs({ abi: testUsdcAbi, logs: transfer.logs });
    expect(logs.map((l) => [l.eventName, l.args])).toEqual([
      ['Transfer', { from: payer.address, to: payee.address, value: 30_000_000n }],
    ]);
    expect(await balanceOf(payer.address)).toBe(70_000_000n);
    expect(await balanceOf(payee.address)).toBe(30_000_000n);

    await mined(
      walletOf(payer).writeContract({ ...token, functionName: 'approve', args: [stranger.address, 5_000_000n] }),
    );
    expect(
      await chain.readContract({ ...token, functionName: 'allowance', args: [payer.address, stranger.address] }),
    ).toBe(5_000_000n);
    await mined(
      walletOf(stranger).writeContract({
        ...token,
        functionName: 'transferFrom',
        args: [payer.address, stranger.address, 4_000_000n],
      }),
    );
    expect(await balanceOf(stranger.address)).toBe(4_000_000n);
    await expect(
      walletOf(stranger).writeContract({
        ...token,
        functionName: 'transferFrom',
        args: [payer.address, stranger.address, 2_000_000n],
      }),
    ).rejects.toThrow(/transfer amount exceeds allowance/);
    await expect(
      walletOf(payee).writeContract({ ...token, functionName: 'transfer', args: [payer.address, 30_000_001n] }),
    ).rejects.toThrow(/transfer amount exceeds balance/);
  });

  it('moves exactly value once for a transferWithAuthorization and marks the nonce used', async () => {
    const auth = await authorization();
    const signature = await sign(payer, auth);
    expect(
      await chain.readContract({ ...token, functionName: 'authorizationState', args: [payer.address, auth.nonce] }),
    ).toBe(false);

    const receipt = await mined(submitVrs(auth, signature));
    expect(await balanceOf(payer.address)).toBe(100_000_000n - auth.value);
    expect(await balanceOf(payee.address)).toBe(auth.value);
    expect(await balanceOf(relayer.address)).toBe(0n);
    expect(
      await chain.readContract({ ...token, functionName: 'authorizationState', args: [payer.address, auth.nonce] }),
    ).toBe(true);
    const events = parseEventLogs({ abi: testUsdcAbi, logs: receipt.logs }).map((l) => l.eventName);
    expect(events).toEqual(['AuthorizationUsed', 'Transfer']);

    await expect(submitVrs(auth, signature)).rejects.toThrow(/authorization is used or canceled/);
    expect(await balanceOf(payee.address)).toBe(auth.value);
  });

  it('accepts the bytes-signature overload of USDC v2.2 that x402 facilitators call', async () => {
    const auth = await authorization();
    const signature = await sign(payer, auth);
    await mined(
      walletOf(relayer).writeContract({
        ...token,
        functionName: 'transferWithAuthorization',
        args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature],
      }),
    );
    expect(await balanceOf(payee.address)).toBe(auth.value);
  });

  it('refuses an authorization signed by anyone but from', async () => {
    const auth = await authorization();
    await expect(submitVrs(auth, await sign(stranger, auth))).rejects.toThrow(/invalid signature/);
    expect(await balanceOf(payee.address)).toBe(0n);
  });

  it('refuses a malleable high-s copy of a valid signature', async () => {
    const auth = await authorization();
    const { r, s, yParity } = parseSignature(await sign(payer, auth));
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const highS = toHex(n - BigInt(s), { size: 32 });
    await expect(
      walletOf(relayer).writeContract({
        ...token,
        functionName: 'transferWithAuthorization',
        args: [
          auth.from,
          auth.to,
          auth.value,
          auth.validAfter,
          auth.validBefore,
          auth.nonce,
          yParity === 0 ? 28 : 27,
          r,
          highS,
        ],
      }),
    ).rejects.toThrow(/invalid signature 's' value/);
  });

  it('refuses an authorization at or after validBefore, and before validAfter', async () => {
    const now = await latestTimestamp();
    const expired = await authorization({ validBefore: now });
    await expect(submitVrs(expired, await sign(payer, expired))).rejects.toThrow(/authorization is expired/);
    const early = await authorization({ validAfter: now + 3600n, validBefore: now + 7200n });
    await expect(submitVrs(early, await sign(payer, early))).rejects.toThrow(/authorization is not yet valid/);
    expect(await balanceOf(payee.address)).toBe(0n);
  });

  it('refuses an authorization for more than the balance', async () => {
    const auth = await authorization({ value: 100_000_001n });
    await expect(submitVrs(auth, await sign(payer, auth))).rejects.toThrow(/transfer amount exceeds balance/);
  });

  it('lets only the payee submit a receiveWithAuthorization', async () => {
    const auth = await authorization();
    const signature = await sign(payer, auth, 'ReceiveWithAuthorization');
    const { v, r, s } = parseSignature(signature);
    const args = [
      auth.from,
      auth.to,
      auth.value,
      auth.validAfter,
      auth.validBefore,
      auth.nonce,
      Number(v),
      r,
      s,
    ] as const;
    await expect(
      walletOf(relayer).writeContract({ ...token, functionName: 'receiveWithAuthorization', args }),
    ).rejects.toThrow(/caller must be the payee/);
    // A receive signature is not a transfer signature: the type hash differs.
    await expect(submitVrs(auth, signature)).rejects.toThrow(/invalid signature/);

    await mined(walletOf(payee).writeContract({ ...token, functionName: 'receiveWithAuthorization', args }));
    expect(await balanceOf(payee.address)).toBe(auth.value);
  });

  it('cancelAuthorization makes the nonce unusable', async () => {
    const auth = await authorization();
    const transferSignature = await sign(payer, auth);
    const cancelSignature = await payer.signTypedData({
      domain,
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce: auth.nonce },
    });
    const { v, r, s } = parseSignature(cancelSignature);
    const receipt = await mined(
      walletOf(relayer).writeContract({
        ...token,
        functionName: 'cancelAuthorization',
        args: [payer.address, auth.nonce, Number(v), r, s],
      }),
    );
    const logs = parseEventLogs({ abi: testUsdcAbi, logs: receipt.logs });
    expect(logs.map((l) => [l.eventName, l.args])).toEqual([
      ['AuthorizationCanceled', { authorizer: payer.address, nonce: auth.nonce }],
    ]);
    expect(
      await chain.readContract({ ...token, functionName: 'authorizationState', args: [payer.address, auth.nonce] }),
    ).toBe(true);

    await expect(submitVrs(auth, transferSignature)).rejects.toThrow(/authorization is used or canceled/);
    expect(await balanceOf(payee.address)).toBe(0n);
  });
});
