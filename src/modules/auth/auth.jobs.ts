import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { RetryLater, enqueueJob, type JobHandler } from '../../jobs/index.js';
import { NONCE_TTL_MS } from './siwe.js';

export const AUTH_CLEANUP_JOB = 'auth.cleanup';
/** Nonces live 10 minutes: deleting them as often keeps the table at about 20 minutes of issuance. */
const EVERY_SECONDS = 600;

/** Creates the recurring cleanup job unless it exists (its unique key makes this safe on every start). */
export function scheduleAuthCleanup(db: Db) {
  return enqueueJob(db, { kind: AUTH_CLEANUP_JOB, uniqueKey: AUTH_CLEANUP_JOB });
}

/**
 * Deletes sign-in nonces past their lifetime (used or not, they can no longer sign anyone in) and
 * expired sessions. A recurring job is one row that never completes:
 * after its work it reschedules itself with RetryLater, which spends no attempt.
 */
export function authCleanupHandler(db: Db): JobHandler {
  return async () => {
    await db
      .deleteFrom('auth_nonces')
      .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${NONCE_TTL_MS / 1000})`)
      .execute();
    await db
      .deleteFrom('sessions')
      .where('expires_at', '<', sql<Date>`now()`)
      .execute();
    throw new RetryLater(EVERY_SECONDS, 'next cleanup in ten minutes');
  };
}
