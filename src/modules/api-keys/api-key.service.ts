import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { ApiKeyId, WorkspaceId } from '../../shared/ids.js';
import type { Limit, RateLimitService, Verdict } from '../rate-limits/index.js';
import { lockWorkspace } from '../workspaces/index.js';
import {
  CREATIONS_PER_DAY,
  CREATIONS_PER_HOUR,
  MAX_ACTIVE_KEYS,
  generateKey,
  parseKey,
  secretMatches,
  type ApiKeyView,
  type Permission,
} from './api-key.js';
import { countKeysForLimits, findKey, insertKey, listKeys, revokeKey, touchKey } from './api-key.repo.js';

/** Who is calling the merchant API: a verified, unrevoked key of the workspace in the path. */
export interface ApiKeyPrincipal {
  readonly workspaceId: WorkspaceId;
  readonly keyId: ApiKeyId;
  readonly permissions: ReadonlySet<Permission>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on merchant API routes once the API key is verified (src/modules/api-keys/api-key.guard.ts). */
    apiKey?: ApiKeyPrincipal;
  }
}

type KeyRow = Awaited<ReturnType<typeof listKeys>>[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

type KeyLookup = NonNullable<Awaited<ReturnType<typeof findKey>>>;

interface CachedKey {
  readonly row: KeyLookup | undefined;
  readonly until: number;
  /**
   * When this process last wrote the key's `last_used_at`. The cached row keeps the value it was read
   * with, so without this every request within the cache's lifetime would write it again.
   */
  touchedAt: number;
}

/** `last_used_at` is bookkeeping for the portal: written at most once a minute per key and process. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * How long a looked-up key id — found or not — is reused without asking the database. A key revoked
 * through this process is forgotten at once; one revoked through another process stops working within
 * this time. Unknown ids are remembered too, so that an unknown id and a known id with a wrong secret
 * both answer from memory on repeat and take the same time: the answer's speed must not tell which key
 * ids exist. (A new key's id is random and never looked up before its creation, so remembering that an
 * id is unknown cannot hide a key created since.)
 */
export const KEY_CACHE_MS = 5_000;
const KEY_CACHE_MAX = 10_000;
/** What the presented secret is compared with when its key id is unknown: the same work either way. */
const ABSENT_KEY_HASH = randomBytes(32);

/** Refusals that a guessed or stolen key gets: these count towards the client's failed-attempt limit. */
const FAILED_ATTEMPT_CODES: ReadonlySet<string> = new Set(['invalid_api_key', 'api_key_revoked']);

export interface ApiKeyServiceDeps {
  readonly db: Db;
  readonly limits: RateLimitService;
  /** Failed key attempts one client IP may make per minute, across all server processes. */
  readonly failedAttemptsPerMinute: number;
  readonly now?: () => number;
}

export class ApiKeyService {
  private readonly cache = new Map<string, CachedKey>();
  private readonly failedAttempts: Limit;

  constructor(private readonly deps: ApiKeyServiceDeps) {
    this.failedAttempts = { name: 'api-keys.failed', max: deps.failedAttemptsPerMinute, windowSeconds: 60 };
  }

  /**
   * Creates a key bound to the workspace wallet. The limits (active keys, creations per hour and day)
   * are checked under the workspace row lock, so concurrent requests on any number of server
   * processes cannot exceed them.
   */
  async create(
    workspaceId: WorkspaceId,
    input: { name: string; permissions: readonly Permission[]; recipient?: string },
  ): Promise<{ key: ApiKeyView; secret: string }> {
    return this.deps.db.transaction().execute(async (trx) => {
      const workspace = await lockWorkspace(trx, workspaceId);
      if (!workspace) throw new AppError('not_found', 'No such workspace.');
      // A key receives only at the workspace wallet; naming another address is refused, not ignored.
      if (input.recipient !== undefined && input.recipient.toLowerCase() !== workspace.wallet_address.toLowerCase()) {
        throw new AppError(
          'key_recipient_mismatch',
          `Keys of this workspace always receive at its wallet ${workspace.wallet_address}. To receive at another address, sign in with that wallet and use its own workspace.`,
        );
      }
      const counts = await countKeysForLimits(trx, workspaceId);
      if (counts.active >= MAX_ACTIVE_KEYS) {
        throw new AppError(
          'api_key_limit_reached',
          `A workspace may hold ${MAX_ACTIVE_KEYS} active keys. Revoke one before creating another.`,
        );
      }
      const now = counts.now.getTime();
      if (counts.lastHour >= CREATIONS_PER_HOUR && counts.oldestInHour) {
        throw creationLimited(`${CREATIONS_PER_HOUR} per hour`, counts.oldestInHour.getTime() + HOUR_MS - now);
      }
      if (counts.lastDay >= CREATIONS_PER_DAY && counts.oldestInDay) {
        throw creationLimited(`${CREATIONS_PER_DAY} per day`, counts.oldestInDay.getTime() + DAY_MS - now);
      }
      const generated = generateKey();
      const row = await insertKey(trx, workspaceId, {
        id: generated.id,
        name: input.name.trim(),
        permissions: [...new Set(input.permissions)],
        recipientAddress: workspace.wallet_address,
        secretHash: generated.secretHash,
        displayPrefix: generated.displayPrefix,
      });
      return { key: toView(row), secret: generated.secret };
    });
  }

  async list(workspaceId: WorkspaceId): Promise<ApiKeyView[]> {
    return (await listKeys(this.deps.db, workspaceId)).map(toView);
  }

  /** Idempotent: revoking a revoked key answers the key as it is. */
  async revoke(workspaceId: WorkspaceId, keyId: ApiKeyId): Promise<ApiKeyView> {
    const row = await revokeKey(this.deps.db, workspaceId, keyId);
    this.cache.delete(`${workspaceId}/${keyId}`);
    if (!row) throw new AppError('not_found', 'No such API key in this workspace.');
    return toView(row);
  }

  /**
   * The key's principal, for a request from `client` (its IP). A client that has used up its failed
   * attempts is refused with 429 before its key is even looked up, whatever the key, until its window
   * ends. Successful requests are not counted; each failure is, and a failure over the limit answers 429
   * itself, so no more than the limit of 401s reach one client per window however many processes serve it.
   */
  async authenticate(workspaceId: WorkspaceId, presented: string, client: string): Promise<ApiKeyPrincipal> {
    const gate = await this.deps.limits.check(this.failedAttempts, client);
    if (!gate.allowed) throw tooManyFailures(gate);
    try {
      return await this.verify(workspaceId, presented);
    } catch (error) {
      if (error instanceof AppError && FAILED_ATTEMPT_CODES.has(error.code)) {
        const verdict = await this.deps.limits.hit(this.failedAttempts, client);
        if (!verdict.allowed) throw tooManyFailures(verdict);
      }
      throw error;
    }
  }

  /** Tenant first: a key is looked up only within the workspace named in the path. */
  private async verify(workspaceId: WorkspaceId, presented: string): Promise<ApiKeyPrincipal> {
    const parsed = parseKey(presented);
    if (!parsed)
      throw new AppError(
        'invalid_api_key',
        'The API key is malformed. Send "Authorization: Bearer isk_…" with a key from the portal.',
      );
    const cached = await this.lookup(workspaceId, parsed.id);
    const row = cached.row;
    const matches = secretMatches(parsed, row?.secret_hash ?? ABSENT_KEY_HASH);
    if (!row || !matches) {
      throw new AppError('invalid_api_key', 'The API key is not valid for this workspace.');
    }
    if (row.revoked_at)
      throw new AppError('api_key_revoked', 'This API key was revoked. Create a new key in the portal.');
    if (row.recipient_address !== row.wallet_address) {
      throw new AppError(
        'key_recipient_mismatch',
        'This key was bound to a different receiving address than the workspace wallet and is blocked. Revoke it and create a new key.',
      );
    }
    const now = (this.deps.now ?? Date.now)();
    if (now - Math.max(row.last_used_at?.getTime() ?? 0, cached.touchedAt) > TOUCH_INTERVAL_MS) {
      cached.touchedAt = now;
      // Bookkeeping only: a failure here must not fail the request.
      touchKey(this.deps.db, workspaceId, parsed.id).catch(() => {});
    }
    return { workspaceId, keyId: parsed.id, permissions: new Set(row.permissions as Permission[]) };
  }

  /** The key row or its absence, from the short-lived cache (bounded in size) or the database. */
  private async lookup(workspaceId: WorkspaceId, keyId: ApiKeyId): Promise<CachedKey> {
    const now = (this.deps.now ?? Date.now)();
    const cacheKey = `${workspaceId}/${keyId}`;
    const cached = this.cache.get(cacheKey);
    if (cached && cached.until > now) return cached;
    const fresh: CachedKey = {
      row: await findKey(this.deps.db, workspaceId, keyId),
      until: now + KEY_CACHE_MS,
      touchedAt: 0,
    };
    if (this.cache.size >= KEY_CACHE_MAX) this.cache.clear();
    this.cache.set(cacheKey, fresh);
    return fresh;
  }
}

function tooManyFailures(verdict: Verdict): AppError {
  return new AppError(
    'rate_limited',
    'Too many failed API key attempts from this address. Retry after the delay in Retry-After.',
    {
      retryAfterSeconds: verdict.retryAfterSeconds,
    },
  );
}

function creationLimited(limit: string, retryAfterMs: number): AppError {
  return new AppError(
    'api_key_creation_rate_limited',
    `API key creation is limited to ${limit} per workspace. Try again later.`,
    {
      retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
    },
  );
}

function toView(row: KeyRow): ApiKeyView {
  return {
    id: row.id as ApiKeyId,
    name: row.name,
    permissions: row.permissions as Permission[],
    recipient: row.recipient_address,
    prefix: row.display_prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}
