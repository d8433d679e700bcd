import { AppError } from '../../shared/errors.js';
import { isLoopbackHttp } from '../../shared/loopback.js';

export const MAX_RETURN_ORIGINS = 10;

// https, a host of letters, digits, dots and dashes (or an IPv6 literal is refused), optional :443, nothing else.
const ORIGIN_SHAPE = /^https:\/\/([a-z0-9.-]+)(:443)?$/i;

/**
 * Normalises the allowed checkout return origins: each an exact `https://host` on port 443. Wildcards,
 * credentials, paths, queries, other ports, http and duplicates are refused with the offending entry.
 * With `loopbackHttp` (local development), `http://localhost:port` and the loopback addresses are taken too.
 */
export function validateReturnOrigins(origins: readonly string[], loopbackHttp = false): string[] {
  if (origins.length > MAX_RETURN_ORIGINS) {
    throw new AppError('invalid_origin', `At most ${MAX_RETURN_ORIGINS} return origins are allowed.`);
  }
  const seen = new Set<string>();
  return origins.map((raw, index) => {
    const origin = (loopbackHttp && loopbackOrigin(raw)) || normalise(raw, index);
    if (seen.has(origin)) throw invalid(index, raw, 'is listed twice');
    seen.add(origin);
    return origin;
  });
}

function normalise(raw: string, index: number): string {
  if (raw.includes('*')) throw invalid(index, raw, 'must not contain a wildcard');
  if (raw.includes('@')) throw invalid(index, raw, 'must not contain credentials');
  if (!raw.toLowerCase().startsWith('https://'))
    throw invalid(
      index,
      raw,
      loopbackOrigin(raw)
        ? 'must use https (http on this machine is taken only with WEBHOOK_ALLOW_PRIVATE=true, for local development)'
        : 'must use https',
    );
  const match = ORIGIN_SHAPE.exec(raw);
  if (!match)
    throw invalid(index, raw, 'must be exactly https://host (no path, query, fragment or port other than 443)');
  const host = match[1]!.toLowerCase();
  if (host.startsWith('.') || host.endsWith('.') || host.includes('..') || !host.includes('.')) {
    throw invalid(index, raw, 'must name a full host such as shop.example.com');
  }
  return `https://${host}`;
}

/** `http://localhost:5173` and the like, exactly an origin (no path, query or trailing slash), or undefined. */
function loopbackOrigin(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  return isLoopbackHttp(url) && !url.username && !url.password && url.origin === raw.toLowerCase()
    ? url.origin
    : undefined;
}

function invalid(index: number, raw: string, problem: string): AppError {
  return new AppError('invalid_origin', `origins[${index}] "${raw}" ${problem}.`, {
    details: [{ path: `origins.${index}`, message: problem }],
  });
}
