// Sign-In with Ethereum (EIP-4361) message text, byte for byte what viem's createSiweMessage writes,
// and what the server's strict EIP-4361 parser accepts. Pure: safe to import outside a browser.
import { keccak_256 } from '@noble/hashes/sha3.js';

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** The EIP-55 mixed-case form of a 0x address, which EIP-4361 requires in the message. */
export function checksumAddress(address: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error(`Not an Ethereum address: ${address}`);
  const lower = address.slice(2).toLowerCase();
  const hash = hex(keccak_256(new TextEncoder().encode(lower)));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const char = lower.charAt(i);
    out += parseInt(hash.charAt(i), 16) >= 8 ? char.toUpperCase() : char;
  }
  return out;
}

/** What an EIP-4361 message says. The statement must be a single line. */
export interface SiweFields {
  readonly domain: string;
  readonly address: string;
  readonly statement?: string;
  readonly uri: string;
  readonly version?: string;
  readonly chainId: number;
  readonly nonce: string;
  readonly issuedAt?: Date;
}

export function createSiweMessage({
  domain,
  address,
  statement,
  uri,
  version = '1',
  chainId,
  nonce,
  issuedAt = new Date(),
}: SiweFields): string {
  if (statement?.includes('\n')) throw new Error('The statement must be one line.');
  const head = `${domain} wants you to sign in with your Ethereum account:\n${checksumAddress(address)}\n\n${statement ? `${statement}\n` : ''}`;
  const tail = `URI: ${uri}\nVersion: ${version}\nChain ID: ${chainId}\nNonce: ${nonce}\nIssued At: ${issuedAt.toISOString()}`;
  return `${head}\n${tail}`;
}

/** UTF-8 hex, the form personal_sign expects for its message parameter. */
export function utf8ToHex(text: string): string {
  return `0x${hex(new TextEncoder().encode(text))}`;
}
