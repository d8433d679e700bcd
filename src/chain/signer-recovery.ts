import { recover } from 'tiny-secp256k1';
import { bytesToHex, hexToBytes, keccak256, type Address, type Hex } from 'viem';
import type { VrsSignature } from './usdc-eip3009.js';

/**
 * The address whose key made `signature` over the 32-byte `digest`; undefined when no key did (also
 * when r or s is 0 or not below the curve's order).
 *
 * Recovered by libsecp256k1 compiled to WebAssembly rather than by viem's curve in JavaScript: every
 * x402 payment recovers its payer once, and that took ~4 ms of the event loop on 2 shared cores
 * (a tenth of the service's time at 20 payers at once); this takes ~0.5 ms.
 */
export function recoverSigner(digest: Hex, signature: VrsSignature): Address | undefined {
  const compact = hexToBytes(`0x${signature.r.slice(2).padStart(64, '0')}${signature.s.slice(2).padStart(64, '0')}`);
  let publicKey: Uint8Array | null;
  try {
    publicKey = recover(hexToBytes(digest), compact, (signature.v - 27) as 0 | 1, false);
  } catch {
    return undefined;
  }
  // An uncompressed key is 0x04 ‖ x ‖ y; the address is the last 20 bytes of the hash of x ‖ y.
  return publicKey ? (`0x${keccak256(bytesToHex(publicKey.subarray(1))).slice(-40)}` as Address) : undefined;
}
