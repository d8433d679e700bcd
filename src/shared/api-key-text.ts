/** Every API key secret starts with it (isk_<id>_<secret>). */
export const KEY_PREFIX = 'isk_';

/** A key anywhere in the text, or a Bearer credential: what must never travel in a URL. */
export function looksLikeKey(value: string): boolean {
  return value.includes(KEY_PREFIX) || /^\s*bearer\s+\S/i.test(value);
}
