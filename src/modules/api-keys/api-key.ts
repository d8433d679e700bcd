import { createHash, timingSafeEqual } from 'node:crypto';
import { KEY_PREFIX } from '../../shared/api-key-text.js';
import { randomToken, type ApiKeyId } from '../../shared/ids.js';
import { PERMISSIONS, type Permission } from '../../shared/permissions.js';

export { PERMISSIONS, type Permission };
export { looksLikeKey } from '../../shared/api-key-text.js';

/**
 * The portal's two presets, the spec's "Create invoices" and "Read invoices"
 * (docs/spec/merchant-api-core-v1.1.0.md, Authentication). A server that creates invoices also reads back
 * what it created: their status (GET /invoices/{id} needs payments:read), its list and the change feed
 * that tells it of payments (invoices:read), so that preset has both.
 */
export const PERMISSION_PRESETS = {
  'create-invoices': ['invoices:create', 'invoices:read', 'payments:read'],
  'read-invoices': ['invoices:read', 'payments:read'],
} as const satisfies Record<string, readonly Permission[]>;

export const MAX_ACTIVE_KEYS = 5;
export const CREATIONS_PER_HOUR = 3;
export const CREATIONS_PER_DAY = 10;

const ID_CHARS = 26;
const SECRET_CHARS = 52; // 260 random bits
const KEY_PATTERN = new RegExp(
  `^${KEY_PREFIX}([0-9a-hjkmnp-tv-z]{${ID_CHARS}})_([0-9a-hjkmnp-tv-z]{${SECRET_CHARS}})$`,
);

export interface ApiKeyView {
  readonly id: ApiKeyId;
  readonly name: string;
  readonly permissions: readonly Permission[];
  readonly recipient: string;
  /** The first characters of the key, to recognise it; the secret is never shown again. */
  readonly prefix: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

export interface GeneratedKey {
  readonly id: ApiKeyId;
  /** The whole key, shown once: `isk_<id>_<secret>`. */
  readonly secret: string;
  readonly secretHash: Buffer;
  readonly displayPrefix: string;
}

/**
 * A key names its row (so lookup is by id, tenant first) and carries a secret that is stored only as a
 * SHA-256 hash: with 260 random bits a slow hash adds nothing.
 */
export function generateKey(): GeneratedKey {
  const idPart = randomToken(ID_CHARS);
  const secretPart = randomToken(SECRET_CHARS);
  return {
    id: `key_${idPart}` as ApiKeyId,
    secret: `${KEY_PREFIX}${idPart}_${secretPart}`,
    secretHash: hashSecret(secretPart),
    displayPrefix: `${KEY_PREFIX}${idPart.slice(0, 8)}`,
  };
}

export interface ParsedKey {
  readonly id: ApiKeyId;
  readonly secretHash: Buffer;
}

export function parseKey(presented: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(presented);
  if (!match) return undefined;
  return { id: `key_${match[1]}` as ApiKeyId, secretHash: hashSecret(match[2] ?? '') };
}

/** Constant-time comparison of the presented secret's hash with the stored one. */
export function secretMatches(presented: ParsedKey, storedHash: Buffer): boolean {
  return storedHash.length === presented.secretHash.length && timingSafeEqual(storedHash, presented.secretHash);
}

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}
