// What pages know of browser wallets: the EIP-1193 provider and its EIP-6963 announcement. Whatever a
// wallet extension announces is untrusted until these guards have looked at it.

/** An EIP-1193 provider: the one method every wallet has. */
export interface Eip1193Provider {
  request(args: { method: string; params?: readonly unknown[] }): Promise<unknown>;
}

/** The `info` of an EIP-6963 announcement, each field as announced (not yet checked). */
export interface Eip6963Info {
  readonly uuid?: unknown;
  readonly name?: unknown;
  readonly icon?: unknown;
  readonly rdns?: unknown;
}

declare global {
  interface Window {
    /** The injected provider of wallets that predate EIP-6963. */
    ethereum?: unknown;
  }
  interface WindowEventMap {
    'eip6963:announceProvider': CustomEvent<unknown>;
    'eip6963:requestProvider': Event;
  }
}

export function isProvider(value: unknown): value is Eip1193Provider {
  return typeof (value as { request?: unknown } | null | undefined)?.request === 'function';
}

/** The provider and info of an announcement, or undefined when it carries no usable provider. */
export function announcement(detail: unknown): { provider: Eip1193Provider; info: Eip6963Info } | undefined {
  const { provider, info } = (detail ?? {}) as { provider?: unknown; info?: unknown };
  if (!isProvider(provider)) return undefined;
  return { provider, info: typeof info === 'object' && info !== null ? info : {} };
}

/** The EIP-1193 error code of a failed request; some wallets wrap the original in `data.originalError`. */
export function errorCode(error: unknown): unknown {
  const failure = error as { code?: unknown; data?: { originalError?: { code?: unknown } } } | null | undefined;
  return failure?.code ?? failure?.data?.originalError?.code;
}

// EIP-6963 icons are data URIs; only images are shown (the CSP allows nothing else anyway).
export const safeIcon = (icon: unknown): string | undefined =>
  typeof icon === 'string' && /^data:image\/(png|svg\+xml|webp|jpeg|gif)[;,]/.test(icon) ? icon : undefined;
