import { hashTypedData, keccak256, parseSignature, recoverAddress, toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { recoverSigner } from '../../src/chain/signer-recovery.js';
import { vrsSignature } from '../../src/chain/usdc-eip3009.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe('recoverSigner', () => {
  it('finds the signer viem finds, for many keys, digests and both recovery ids', async () => {
    const yParities = new Set<number>();
    for (let i = 0; i < 40; i += 1) {
      const account = privateKeyToAccount(generatePrivateKey());
      const digest = keccak256(toHex(`payment ${i}`));
      const signature = await account.sign({ hash: digest });
      yParities.add(parseSignature(signature).yParity);

      expect(recoverSigner(digest, vrsSignature(signature)!)).toBe(account.address.toLowerCase());
      expect(await recoverAddress({ hash: digest, signature })).toBe(account.address);
    }
    expect(yParities).toEqual(new Set([0, 1]));
  });

  it('recovers the signer of an EIP-712 authorization, and another address for another message', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const typed = {
      domain: { name: 'USDC', version: '2', chainId: 84532, verifyingContract: account.address },
      types: { Pay: [{ name: 'value', type: 'uint256' }] },
      primaryType: 'Pay',
      message: { value: 12_500_000n },
    } as const;
    const vrs = vrsSignature(await account.signTypedData(typed))!;

    expect(recoverSigner(hashTypedData(typed), vrs)).toBe(account.address.toLowerCase());
    const other = recoverSigner(hashTypedData({ ...typed, message: { value: 12_500_001n } }), vrs);
    expect(other).toMatch(/^0x[0-9a-f]{40}$/);
    expect(other).not.toBe(account.address.toLowerCase());
  });

  it('answers undefined for an r or s of 0 or not below the curve order', () => {
    const digest = keccak256(toHex('payment'));
    const word = (n: bigint) => toHex(n, { size: 32 });
    for (const [r, s] of [
      [0n, 1n],
      [1n, 0n],
      [N, 1n],
      [1n, N],
      [2n ** 256n - 1n, 1n],
    ] as const) {
      expect(recoverSigner(digest, { v: 27, r: word(r) as Hex, s: word(s) as Hex }), `${r} ${s}`).toBeUndefined();
    }
  });
});
