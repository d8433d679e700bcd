import type { Role } from '../../config/config.js';

/** How often a process refreshes its row and rereads the count. */
export const HEARTBEAT_MS = 5_000;
/** Seen this recently, a process is live: three heartbeats, so one slow beat does not drop it. */
export const LIVE_SECONDS = 15;
/** Unseen this long, a process has ended without a word (a crash, kill -9): its row is deleted. */
export const FORGET_SECONDS = 60;
/** The roles that serve the merchant API and checkout, and so share their rate limits. */
export const HTTP_ROLES: readonly Role[] = ['all', 'api'];

/** How many live processes serve HTTP: at least 1, answered from memory (read in the background). */
export interface HttpProcessCount {
  httpProcesses(): number;
}
