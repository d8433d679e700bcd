/** An answer of the API other than the one asked for: its status and the error body's `code`, `message` and `requestId`. */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  readonly status: number;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  /** The parsed error body (the service's `{code, message, requestId, …}`), or its text when it was not JSON. */
  readonly body: unknown;

  constructor(response: Response, body: unknown) {
    const error = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const code = typeof error.code === 'string' ? error.code : undefined;
    const message = typeof error.message === 'string' ? error.message : `HTTP ${response.status}`;
    super(`${response.status}${code ? ` ${code}` : ''}: ${message}`);
    this.status = response.status;
    this.code = code;
    this.requestId =
      typeof error.requestId === 'string' ? error.requestId : (response.headers.get('x-request-id') ?? undefined);
    this.body = body;
  }
}

/**
 * 410 `cursor_expired`: events after the cursor were deleted by retention. Reconcile from current state
 * (invoices, receipts), then read the feed again from `restartCursor`.
 */
export class ChangeFeedGoneError extends ApiError {
  override readonly name: string = 'ChangeFeedGoneError';
  readonly restartCursor: string;

  constructor(response: Response, body: unknown, restartCursor: string) {
    super(response, body);
    this.restartCursor = restartCursor;
  }
}
