import { createTransport, http, webSocket, type EIP1193RequestFn, type Transport } from 'viem';
import {
  blockNeeded,
  headOf,
  preference,
  providerFailure,
  readsHead,
  skipMs,
  type ProviderFailure,
  type ProviderState,
} from './rpc-failover-rules.js';

export interface FailoverOptions {
  /** How long one provider may take to answer one call before the next is asked. */
  readonly timeoutMs: number;
  /** Reads the heads of the providers not in use at most this often (on eth_blockNumber calls). */
  readonly headProbeMs?: number;
  /** Milliseconds since the epoch; tests move it to end a skip without waiting. */
  readonly now?: () => number;
  /** Told when a provider starts being skipped (the operator's log): by position and host, never its URL. */
  readonly onSkip?: (skip: ProviderSkip) => void;
}

/** A provider that did not answer, and until when it is passed over. */
export interface ProviderSkip {
  /** Its position in `rpcUrls`, from 1. */
  readonly provider: number;
  readonly host: string;
  readonly until: Date;
  readonly reason: string;
}

/** One provider as /metrics and /readyz show it: never its URL, which may carry an API key. */
export interface RpcProviderStatus {
  /** Its position in `rpcUrls`, from 1. */
  readonly provider: string;
  readonly host: string;
  readonly calls: number;
  /** Calls it did not answer (refused, timed out, 5xx, 429…); JSON-RPC errors that are answers are not. */
  readonly errors: number;
  readonly head: bigint | undefined;
  /** Skipped after a failure, until `downUntil`. */
  readonly down: boolean;
  readonly downUntil: Date | undefined;
  readonly lastError: string | undefined;
}

export interface FailoverTransport {
  readonly transport: Transport;
  status(): RpcProviderStatus[];
}

type Args = { method: string; params?: unknown };
/** `answer`: a result; `refusal`: a JSON-RPC error that is the node's answer; `failure`: no answer. */
type Answer = { readonly kind: 'answer'; readonly value: unknown };
type Miss = { readonly kind: 'refusal' | 'failure'; readonly error: unknown };
type Outcome = Answer | Miss;

interface Provider {
  readonly state: ProviderState;
  readonly host: string;
  readonly request: (args: Args) => Promise<unknown>;
  probedAt: number;
  probing: boolean;
  /** eth_blockNumber calls sent to it, and the latest of them whose answer set its head. */
  headAsks: number;
  headAnswered: number;
}

const DEFAULT_HEAD_PROBE_MS = 1_000;

/**
 * A viem transport over several providers of one network. Each call goes to the first provider in
 * `preference` order; one that does not answer is skipped for a while (its Retry-After when it gives
 * one) and the call goes to the next, so callers see an error only when no provider answers. A JSON-RPC
 * error that is an answer (a revert, "nonce too low") is returned as it is, from the provider that gave
 * it. A broadcast goes to every healthy provider at once: a provider that accepts it and loses it is
 * covered by the others. Heads come from eth_blockNumber answers: the provider asked answers the call,
 * and the others are asked in the background (at most once per `headProbeMs`), so that a provider that
 * falls behind is known and asked last, and never for a block above its head while another has it.
 */
export function failoverTransport(urls: readonly string[], options: FailoverOptions): FailoverTransport {
  const now = options.now ?? Date.now;
  const probeMs = options.headProbeMs ?? DEFAULT_HEAD_PROBE_MS;
  const providers: Provider[] = urls.map((url, index) => ({
    state: { index, skippedUntil: 0, failuresInRow: 0, head: undefined, calls: 0, errors: 0, lastError: undefined },
    host: new URL(url).host,
    request: providerRequest(url, options.timeoutMs),
    probedAt: -Infinity,
    probing: false,
    headAsks: 0,
    headAnswered: 0,
  }));
  const states = providers.map((provider) => provider.state);

  async function ask(provider: Provider, args: Args): Promise<Outcome> {
    const { state } = provider;
    state.calls += 1;
    const headAsk = readsHead(args.method, args.params) ? ++provider.headAsks : 0;
    try {
      const value = await provider.request(args);
      answered(state);
      // Answers may come back out of order: one to an older call must not set the head back.
      const head = headAsk > provider.headAnswered ? headOf(args.method, value) : undefined;
      if (head !== undefined) {
        provider.headAnswered = headAsk;
        state.head = head;
      }
      return { kind: 'answer', value };
    } catch (error) {
      const failure = providerFailure(error, now());
      if (!failure) {
        answered(state);
        return { kind: 'refusal', error };
      }
      const wasSkipped = state.skippedUntil > now();
      failed(state, failure);
      if (!wasSkipped) {
        const until = new Date(state.skippedUntil);
        options.onSkip?.({ provider: state.index + 1, host: provider.host, until, reason: failure.reason });
      }
      return { kind: 'failure', error };
    }
  }

  function answered(state: ProviderState): void {
    state.failuresInRow = 0;
    state.skippedUntil = 0;
  }

  function failed(state: ProviderState, failure: ProviderFailure): void {
    state.errors += 1;
    state.failuresInRow += 1;
    state.skippedUntil = now() + skipMs(state.failuresInRow, failure);
    state.lastError = failure.reason;
  }

  /** Asks the providers one after the other until one answers or refuses. */
  async function inTurn(order: readonly ProviderState[], args: Args): Promise<unknown> {
    let firstFailure: unknown;
    for (const state of order) {
      const provider = providers[state.index]!;
      const outcome = await ask(provider, args);
      if (outcome.kind === 'answer') {
        if (readsHead(args.method, args.params)) probeHeads(provider);
        return outcome.value;
      }
      if (outcome.kind === 'refusal') throw outcome.error;
      firstFailure ??= outcome.error;
    }
    throw firstFailure;
  }

  /** Reads the others' heads in the background; a provider being skipped is left alone. */
  function probeHeads(asked: Provider): void {
    const at = now();
    asked.probedAt = at;
    for (const provider of providers) {
      if (provider === asked || provider.probing || provider.state.skippedUntil > at) continue;
      if (at - provider.probedAt < probeMs) continue;
      provider.probing = true;
      provider.probedAt = at;
      void ask(provider, { method: 'eth_blockNumber' }).finally(() => {
        provider.probing = false;
      });
    }
  }

  /** To every healthy provider at once: the first acceptance answers; a refusal only when none accepts. */
  async function broadcast(args: Args): Promise<unknown> {
    const order = preference(states, now());
    const healthy = order.filter((state) => state.skippedUntil <= now());
    const outcomes = await firstAnswer(healthy.map((state) => ask(providers[state.index]!, args)));
    if (!Array.isArray(outcomes)) return outcomes.value;
    const refusal = outcomes.find((outcome) => outcome.kind === 'refusal');
    if (refusal) throw refusal.error;
    // Nobody healthy took it: the skipped providers are the last resort, as for any call (their refusal,
    // such as "already known", is the answer then).
    const rest = order.filter((state) => !healthy.includes(state));
    if (rest.length === 0) throw outcomes[0]?.error;
    return inTurn(rest, args);
  }

  const request = (async (args: Args) => {
    if (args.method === 'eth_sendRawTransaction') return broadcast(args);
    return inTurn(preference(states, now(), blockNeeded(args.method, args.params)), args);
  }) as EIP1193RequestFn;

  return {
    // When every provider failed, viem tries the whole round again (3 times unless told), as for one URL.
    transport: ({ retryCount }) =>
      createTransport({ key: 'failover', name: 'Failover', type: 'failover', request, retryCount: retryCount ?? 3 }),
    status: () =>
      providers.map(({ state, host }) => ({
        provider: String(state.index + 1),
        host,
        calls: state.calls,
        errors: state.errors,
        head: state.head,
        down: state.skippedUntil > now(),
        downUntil: state.skippedUntil > now() ? new Date(state.skippedUntil) : undefined,
        lastError: state.lastError,
      })),
  };
}

/** Resolves with the first answer, or with every outcome when none is an answer. */
function firstAnswer(asks: Promise<Outcome>[]): Promise<Answer | Miss[]> {
  return new Promise((resolve) => {
    const outcomes: Miss[] = [];
    let pending = asks.length;
    if (pending === 0) resolve(outcomes);
    asks.forEach(
      (asked, at) =>
        void asked.then((outcome) => {
          if (outcome.kind === 'answer') resolve(outcome);
          else outcomes[at] = outcome;
          if (--pending === 0) resolve(outcomes);
        }),
    );
  });
}

/** One provider, without viem's own retries: a failure moves the call on to the next provider instead. */
function providerRequest(url: string, timeout: number): (args: Args) => Promise<unknown> {
  const transport = /^wss?:/.test(url)
    ? webSocket(url, { retryCount: 0, timeout })
    : http(url, { retryCount: 0, timeout });
  const { request } = transport({ retryCount: 0 });
  return (args) => request(args as Parameters<typeof request>[0]);
}
