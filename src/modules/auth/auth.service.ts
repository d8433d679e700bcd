import { createHash } from 'node:crypto';
import type { Hex } from 'viem';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { randomToken, type WalletAddress } from '../../shared/ids.js';
import type { Limit, RateLimitService } from '../rate-limits/index.js';
import { consumeNonce, deleteSession, findLiveSession, insertNonce, insertSession } from './auth.repo.js';
import { NONCE_TTL_MS, checkSiwe } from './siwe.js';

export const SESSION_TTL_MS = 7 * 24 * 3_600_000;

export interface Session {
  readonly wallet: WalletAddress;
  readonly expiresAt: Date;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on portal routes once the session cookie is verified (src/modules/auth/auth.guard.ts). */
    portalSession?: Session;
  }
}

export interface AuthServiceDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly publicBaseUrl: URL;
  readonly chainIds: readonly number[];
  readonly limits: RateLimitService;
  /** Nonces one client IP may request per minute, across all server processes. */
  readonly noncesPerMinute: number;
}

/** Wallet sign-in (EIP-4361) and the portal's sessions. */
export class AuthService {
  private readonly nonceLimit: Limit;

  constructor(private readonly deps: AuthServiceDeps) {
    this.nonceLimit = { name: 'auth.nonce', max: deps.noncesPerMinute, windowSeconds: 60 };
  }

  /**
   * Every nonce is a row, requested without signing in: counted per client IP in the database, so
   * anonymous callers cannot fill the table however many server processes answer them.
   */
  async issueNonce(client: string): Promise<string> {
    const verdict = await this.deps.limits.hit(this.nonceLimit, client);
    if (!verdict.allowed) {
      throw new AppError(
        'rate_limited',
        'Too many sign-in nonces requested from this address. Retry after the delay in Retry-After.',
        {
          retryAfterSeconds: verdict.retryAfterSeconds,
        },
      );
    }
    // SIWE nonces are alphanumeric; 26 base32 characters carry 130 random bits.
    const nonce = randomToken();
    await insertNonce(this.deps.db, nonce);
    return nonce;
  }

  /**
   * Verifies the message and signature, then spends the nonce and opens the session in one
   * transaction: of many concurrent verifications of one message, exactly one gets a session.
   */
  async signIn(message: string, signature: Hex): Promise<Session & { token: string }> {
    const { publicBaseUrl, chainIds, clock } = this.deps;
    const accepted = await checkSiwe(message, signature, {
      domain: publicBaseUrl.host,
      origin: publicBaseUrl.origin,
      chainIds,
      now: clock.now(),
    });
    const token = randomToken(52);
    const expiresAt = new Date(clock.now().getTime() + SESSION_TTL_MS);
    await this.deps.db.transaction().execute(async (trx) => {
      if (!(await consumeNonce(trx, accepted.nonce, NONCE_TTL_MS / 1000))) {
        throw new AppError(
          'siwe_nonce_invalid',
          'The nonce is unknown, already used or older than 10 minutes. Request a new nonce and sign again.',
        );
      }
      await insertSession(trx, { tokenHash: hashToken(token), wallet: accepted.address, expiresAt });
    });
    return { token, wallet: accepted.address, expiresAt };
  }

  async session(token: string): Promise<Session | undefined> {
    const row = await findLiveSession(this.deps.db, hashToken(token));
    return row && { wallet: row.wallet_address as WalletAddress, expiresAt: row.expires_at };
  }

  async signOut(token: string): Promise<void> {
    await deleteSession(this.deps.db, hashToken(token));
  }
}

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
