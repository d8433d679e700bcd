import { randomFillSync } from 'node:crypto';

declare const brand: unique symbol;
/** A string that the type checker keeps apart from other ids. */
export type Branded<T, Name extends string> = T & { readonly [brand]: Name };

export type WorkspaceId = Branded<string, 'WorkspaceId'>;
export type ApiKeyId = Branded<string, 'ApiKeyId'>;
export type WalletAddress = Branded<`0x${string}`, 'WalletAddress'>;

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lowercase: no i, l, o, u.

/**
 * Random bytes are drawn from the CSPRNG 4 KiB at a time: one call per request id costs several
 * microseconds, one per 150 ids next to nothing. Every byte is handed out once.
 */
const POOL = Buffer.alloc(4096);
let poolOffset = POOL.length;

/** 26 base32 characters = 130 random bits: unguessable, so links and ids can act as capabilities. */
export function randomToken(length = 26): string {
  if (length > POOL.length) throw new RangeError(`randomToken: at most ${POOL.length} characters`);
  if (poolOffset + length > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  let out = '';
  for (let index = poolOffset; index < poolOffset + length; index += 1) out += ALPHABET[POOL[index]! & 31];
  poolOffset += length;
  return out;
}

export const ID_PATTERN = '^[a-z]{2,4}_[0-9a-hjkmnp-tv-z]{26}$';

export function newWorkspaceId(): WorkspaceId {
  return `ws_${randomToken()}` as WorkspaceId;
}

export function newApiKeyId(): ApiKeyId {
  return `key_${randomToken()}` as ApiKeyId;
}

/** Lowercase hex, the one spelling stored and compared. */
export function walletAddress(address: string): WalletAddress {
  return address.toLowerCase() as WalletAddress;
}
