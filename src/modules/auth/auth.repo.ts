import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';

export function insertNonce(db: Executor, nonce: string) {
  return db.insertInto('auth_nonces').values({ nonce }).execute();
}

/** Marks the nonce used if it is unused and fresh. Exactly one of any number of concurrent callers wins. */
export async function consumeNonce(db: Executor, nonce: string, ttlSeconds: number): Promise<boolean> {
  const row = await db
    .updateTable('auth_nonces')
    .set({ used_at: sql`now()` })
    .where('nonce', '=', nonce)
    .where('used_at', 'is', null)
    .where('created_at', '>', sql<Date>`now() - make_interval(secs => ${ttlSeconds})`)
    .returning('nonce')
    .executeTakeFirst();
  return row !== undefined;
}

export function insertSession(db: Executor, session: { tokenHash: Buffer; wallet: string; expiresAt: Date }) {
  return db
    .insertInto('sessions')
    .values({ token_hash: session.tokenHash, wallet_address: session.wallet, expires_at: session.expiresAt })
    .execute();
}

export function findLiveSession(db: Executor, tokenHash: Buffer) {
  return db
    .selectFrom('sessions')
    .select(['wallet_address', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

export function deleteSession(db: Executor, tokenHash: Buffer) {
  return db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}
