export interface BackoffPolicy {
  readonly baseSeconds: number;
  readonly factor: number;
  readonly maxSeconds: number;
  /** 0..1: the share of the delay that is randomised away, so failed jobs do not retry in lockstep. */
  readonly jitter: number;
}

/** 2 s, 4 s, 8 s … capped at an hour: 25 attempts span about 18 hours. */
export const DEFAULT_BACKOFF: BackoffPolicy = { baseSeconds: 2, factor: 2, maxSeconds: 3600, jitter: 0.2 };

/**
 * Seconds to wait after the `attempts`-th failed attempt: exponential, capped, with jitter that only
 * shortens the delay (so the cap holds).
 */
export function backoffSeconds(
  attempts: number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, attempts - 1);
  const delay = Math.min(policy.maxSeconds, policy.baseSeconds * policy.factor ** exponent);
  return delay * (1 - policy.jitter * random());
}
