/** A limit of `max` hits per subject (e.g. a client IP) in a fixed window of `windowSeconds`. */
export interface Limit {
  /** Stable name, stored with each counter: renaming a limit resets its counters. */
  readonly name: string;
  readonly max: number;
  readonly windowSeconds: number;
}

export interface Verdict {
  /** False once the subject has used up the window. */
  readonly allowed: boolean;
  /** Seconds until the window ends (at least 1 while refused; 0 when allowed). */
  readonly retryAfterSeconds: number;
}

export const ALLOWED: Verdict = { allowed: true, retryAfterSeconds: 0 };

/** Refused until the window ends; Retry-After is whole seconds, rounded up so a retry is never early. */
export function refusedUntil(windowEnds: Date, now: Date): Verdict {
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowEnds.getTime() - now.getTime()) / 1000)) };
}
