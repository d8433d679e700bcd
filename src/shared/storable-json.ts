import { AppError } from './errors.js';

/** Deeper JSON than this is refused before anything walks it recursively (hashing, validation). */
export const MAX_JSON_DEPTH = 32;

/** NUL, which PostgreSQL text cannot hold, and UTF-16 halves that are not a pair (no UTF-8 encoding). */
// eslint-disable-next-line no-control-regex -- finding NUL is the point
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isUnstorable(text: string): boolean {
  return UNSTORABLE.test(text);
}

export interface JsonPlace {
  /** Where the value sits, as error messages name it: `items[3].externalId`; '' for the body itself. */
  readonly path: string;
  /** Its nesting depth in the body (the body itself is 0), so a part is held to the body's limit. */
  readonly depth: number;
  /** A container inside the value left unvisited because its owner checks it itself. */
  readonly leaveOut?: unknown;
}

/**
 * The first thing in a parsed JSON value that no field accepts — a string or a key holding NUL or an
 * unpaired surrogate, or nesting deeper than MAX_JSON_DEPTH — as a 400 `invalid_request` naming the
 * field; undefined when there is none. Iterative, so a value nested as deep as the body limit allows
 * cannot overflow the stack here.
 */
export function findUnstorable(value: unknown, place: JsonPlace = { path: '', depth: 0 }): AppError | undefined {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value, path: place.path, depth: place.depth }];
  while (pending.length > 0) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'string') {
      if (isUnstorable(value)) return unstorable(path || 'body');
      continue;
    }
    if (!value || typeof value !== 'object' || value === place.leaveOut) continue;
    if (depth >= MAX_JSON_DEPTH) return tooDeep(path);
    for (const [key, child] of Object.entries(value)) {
      // A bad key is named with its bad characters replaced, so the message itself stays storable text.
      const name = key.replace(new RegExp(UNSTORABLE.source, 'g'), '\ufffd');
      const childPath = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${name}` : name;
      if (isUnstorable(key)) return unstorable(childPath);
      pending.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return undefined;
}

export function unstorable(field: string): AppError {
  return new AppError(
    'invalid_request',
    `${field} holds a NUL character or an unpaired UTF-16 surrogate, which no field accepts.`,
    { details: [{ path: field, message: 'holds a NUL character or an unpaired surrogate' }] },
  );
}

function tooDeep(path: string): AppError {
  const where = path || '(body)';
  return new AppError('invalid_request', `${where} is nested deeper than ${MAX_JSON_DEPTH} levels of JSON.`, {
    details: [{ path: where, message: 'is nested too deep' }],
  });
}
