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

/** A wallet request that failed, with a sentence for people and the EIP-1193 `code` when there is one. */
export class WalletError extends Error {
  readonly code: unknown;

  constructor(message: string, code?: unknown) {
    super(message);
    this.name = 'WalletError';
    this.code = code;
  }
}

/** What a page tells people for the wallet errors they meet, by EIP-1193 code. */
export type WalletMessages = Readonly<Record<string, string>>;

/** Errors every page words alike: the wallet's state, not the page's request. */
export const COMMON_WALLET_MESSAGES: WalletMessages = {
  4900: 'Your wallet is disconnected from the network.',
  [-32002]: 'Your wallet already has a request waiting: open it to continue.',
};

/**
 * Sends one request to the wallet. A failure becomes a WalletError in `messages`' words for its code,
 * else in the wallet's own ("Your wallet reported: …").
 */
export async function askWallet(
  provider: Eip1193Provider,
  messages: WalletMessages,
  method: string,
  params?: readonly unknown[],
): Promise<unknown> {
  try {
    return await provider.request(params === undefined ? { method } : { method, params });
  } catch (error) {
    const code = errorCode(error);
    const reported = (error as { message?: unknown } | null | undefined)?.message;
    throw new WalletError(messages[String(code)] ?? `Your wallet reported: ${reported ?? String(error)}`, code);
  }
}
