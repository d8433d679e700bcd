import { API_VERSION } from './api-version.js';

/** A year, as is usual: once a browser has seen it, it never falls back to http for this origin. */
const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

/**
 * The headers every answer carries besides its own X-Request-ID, wherever it is made: by a route, by the
 * router's refusals (framework-errors.ts) or below the router, on the socket (below-router.ts). Served
 * over https (PUBLIC_BASE_URL), browsers must never fall back to http for this origin.
 */
export function commonHeaders(https: boolean): Readonly<Record<string, string>> {
  return {
    'X-API-Version': API_VERSION,
    // A JSON answer (or an error page) is never read as HTML or script, whatever a browser would guess.
    'X-Content-Type-Options': 'nosniff',
    ...(https && { 'Strict-Transport-Security': STRICT_TRANSPORT_SECURITY }),
  };
}

/**
 * What a route that says nothing about caching answers: nothing is stored. Answers are per workspace,
 * per key or per session, or change with every request; a route whose answer may be kept says so itself.
 */
export const DEFAULT_CACHE_CONTROL = 'no-store';
