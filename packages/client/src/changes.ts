import type { Client } from 'openapi-fetch';
import { ApiError, ChangeFeedGoneError } from './errors.js';
import type { paths } from './generated/api.js';
import { sleep } from './retry.js';

export type ChangePage = paths['/changes']['get']['responses'][200]['content']['application/json'];
export type ChangeEvent = ChangePage['events'][number];

export interface ChangesOptions {
  /** The cursor to read after: "0" (the default) for the start, or the id of the last event processed. */
  readonly after?: string;
  /** Events per request, 1–1000 (the service's default: 100). */
  readonly limit?: number;
  /** Keep waiting for new events once caught up, asking every `pollIntervalMs`; otherwise the iteration ends there. */
  readonly follow?: boolean;
  /** Default 5000. */
  readonly pollIntervalMs?: number;
  /** Ends the iteration with the signal's reason, also while waiting. */
  readonly signal?: AbortSignal;
}

/**
 * The change feed's events in order, page after page, following `nextCursor`. An event's `id` is the
 * cursor after it: save it once the event is processed durably and pass it as `after` to resume.
 * Throws ChangeFeedGoneError (410 `cursor_expired`, with `restartCursor`) when the cursor is older than
 * the events the service keeps, and ApiError for any other refusal.
 */
export async function* readChanges(
  api: Client<paths>,
  options: ChangesOptions = {},
): AsyncGenerator<ChangeEvent, void> {
  let after = options.after ?? '0';
  for (;;) {
    const query = { after, ...(options.limit !== undefined && { limit: options.limit }) };
    const { data, error, response } = await api.GET('/changes', {
      params: { query },
      ...(options.signal && { signal: options.signal }),
    });
    if (data === undefined) throw feedError(response, error);
    yield* data.events;
    after = data.nextCursor;
    if (data.hasMore) continue;
    if (!options.follow) return;
    await sleep(options.pollIntervalMs ?? 5000, options.signal);
  }
}

function feedError(response: Response, body: unknown): ApiError {
  const restartCursor = (body as { restartCursor?: unknown } | undefined)?.restartCursor;
  return response.status === 410 && typeof restartCursor === 'string'
    ? new ChangeFeedGoneError(response, body, restartCursor)
    : new ApiError(response, body);
}
