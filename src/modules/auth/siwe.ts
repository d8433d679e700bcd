import { verifyMessage, type Hex } from 'viem';
import { AppError } from '../../shared/errors.js';
import { walletAddress, type WalletAddress } from '../../shared/ids.js';
import { parseSiweMessage } from './siwe-message.js';

/** What this service accepts in an EIP-4361 message: its domain, origin, chain and a fresh nonce of ours. */
export interface SiwePolicy {
  /** The host (and port) of PUBLIC_BASE_URL. */
  readonly domain: string;
  /** The origin of PUBLIC_BASE_URL; the message's `uri` must be on it. */
  readonly origin: string;
  readonly chainIds: readonly number[];
  readonly now: Date;
}

export interface AcceptedSiwe {
  readonly address: WalletAddress;
  readonly nonce: string;
}

/** How far a wallet's clock may run ahead of ours, and how old a message may be. */
const CLOCK_SKEW_MS = 60_000;
export const NONCE_TTL_MS = 10 * 60_000;

/**
 * Checks every field of a signed sign-in message, parsed strictly (siwe-message.ts), and its signature.
 * Pure apart from signature recovery; the nonce's single use is enforced by the caller in the database.
 */
export async function checkSiwe(message: string, signature: Hex, policy: SiwePolicy): Promise<AcceptedSiwe> {
  const fields = parseSiweMessage(message);
  // EIP-4361 allows `scheme://` before the domain; the only scheme this service is reached by is its own.
  const scheme = new URL(policy.origin).protocol.slice(0, -1);
  if (fields.scheme !== undefined && fields.scheme !== scheme) {
    throw new AppError(
      'siwe_domain_mismatch',
      `The message is for ${fields.scheme}://${fields.domain}; sign in on ${policy.origin}.`,
    );
  }
  if (fields.domain !== policy.domain) {
    throw new AppError('siwe_domain_mismatch', `The message is for ${fields.domain}; sign in on ${policy.domain}.`);
  }
  if (originOf(fields.uri) !== policy.origin) {
    throw new AppError('siwe_uri_mismatch', `The message's URI must be on ${policy.origin}.`);
  }
  if (!policy.chainIds.includes(fields.chainId)) {
    throw new AppError(
      'siwe_chain_not_supported',
      `Chain ${fields.chainId} is not a network of this service (${policy.chainIds.join(', ')}).`,
    );
  }
  const now = policy.now.getTime();
  const issuedAt = fields.issuedAt.getTime();
  if (issuedAt > now + CLOCK_SKEW_MS || (fields.notBefore && fields.notBefore.getTime() > now + CLOCK_SKEW_MS)) {
    throw new AppError(
      'siwe_not_yet_valid',
      'The message is dated in the future. Check the device clock and sign again.',
    );
  }
  if (issuedAt < now - NONCE_TTL_MS || (fields.expirationTime && fields.expirationTime.getTime() <= now)) {
    throw new AppError('siwe_expired', 'The message has expired. Request a new nonce and sign again.');
  }
  const valid = await verifyMessage({ address: fields.address, message, signature }).catch(() => false);
  if (!valid) throw new AppError('siwe_signature_invalid', 'The signature does not match the message and address.');
  return { address: walletAddress(fields.address), nonce: fields.nonce };
}

function originOf(uri: string): string | undefined {
  try {
    return new URL(uri).origin;
  } catch {
    return undefined;
  }
}
