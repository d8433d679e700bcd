import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier';
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import type { PrivateKeyAccount } from 'viem/accounts';
import { wrapFetchWithPaymentV1 } from './x402-v1.js';

/**
 * Clients exactly as a buyer sets them up (docs/x402-wire-formats.md, "Client set-up used in tests"), on
 * Base Sepolia unless another CAIP-2 `network` is given.
 */
export function v2Client(account: PrivateKeyAccount, network: `eip155:${number}` = 'eip155:84532'): x402Client {
  // USDC on another network than Base Sepolia is not among the client's default assets: allowed by name.
  const client = new x402Client().setSpendControls({
    maxAmountPerPayment: '$20',
    ...(network !== 'eip155:84532' && { allowedAssets: true }),
  });
  registerExactEvmScheme(client, { signer: account, networks: [network], policies: [] });
  return client;
}

export function payV2(account: PrivateKeyAccount, fetchImpl: typeof fetch = fetch, network?: `eip155:${number}`) {
  return wrapFetchWithPayment(fetchImpl, v2Client(account, network));
}

/**
 * A v2 client that names its payments `paymentId` (the payment-identifier extension), as @x402/extensions
 * documents it: the id goes into the 402's declaration before the payload is made.
 */
export function withPaymentIdentifier(client: x402Client, paymentId: string): x402Client {
  return client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    if (paymentRequired.extensions) appendPaymentIdentifierToExtensions(paymentRequired.extensions, paymentId);
  });
}

/** A v1 buyer as x402-fetch 1.2.0 pays (test/support/x402-v1.ts), with a cap of 20 USDC. */
export function payV1(account: PrivateKeyAccount, fetchImpl: typeof fetch = fetch) {
  return wrapFetchWithPaymentV1(fetchImpl, account, 20_000_000n);
}

export type PaymentHeaderName = 'PAYMENT-SIGNATURE' | 'X-PAYMENT';

export interface SentPayment {
  readonly name: PaymentHeaderName;
  readonly value: string;
}

export interface FetchHooks {
  /** Sees (and may replace) every 402 before the client does: a proxy that rewrites, or a pause. */
  readonly on402?: (response: Response) => Response | Promise<Response>;
  /** Runs before a request carrying a payment header goes out (e.g. a barrier for racing clients). */
  readonly beforePayment?: (payment: SentPayment) => Promise<void> | void;
}

/** A fetch that records every payment header a client sends, with optional hooks around it. */
export function recordingFetch(hooks: FetchHooks = {}): { fetch: typeof fetch; sent: SentPayment[] } {
  const sent: SentPayment[] = [];
  const wrapped = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const payment = paymentHeaderOf(request.headers);
    if (payment) {
      sent.push(payment);
      await hooks.beforePayment?.(payment);
    }
    const response = await fetch(request);
    return response.status === 402 && hooks.on402 ? hooks.on402(response) : response;
  };
  return { fetch: wrapped as typeof fetch, sent };
}

function paymentHeaderOf(headers: Headers): SentPayment | undefined {
  const v2 = headers.get('payment-signature');
  if (v2) return { name: 'PAYMENT-SIGNATURE', value: v2 };
  const v1 = headers.get('x-payment');
  return v1 ? { name: 'X-PAYMENT', value: v1 } : undefined;
}

type Json = Record<string, unknown>;

export function decodeBase64Json<T = Json>(value: string): T {
  return JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as T;
}

export function encodeBase64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/**
 * A 402 whose offered requirements were edited in both spellings (v2 header and v1 body): what a
 * malicious proxy or a buggy client would sign.
 */
export async function editRequirements(response: Response, edit: (accept: Json) => void): Promise<Response> {
  const body = (await response.json()) as { accepts: Json[] };
  body.accepts.forEach(edit);
  const headers = new Headers(response.headers);
  const required = headers.get('payment-required');
  if (required) {
    const decoded = decodeBase64Json<{ accepts: Json[] }>(required);
    decoded.accepts.forEach(edit);
    headers.set('payment-required', encodeBase64Json(decoded));
  }
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: 402, headers });
}

/**
 * A v2 payment header signed by the unmodified client for what `url` asks now, without sending it.
 * `edit` changes the requirements before signing (a client that signs something else); `paymentId` names
 * the payment with the payment-identifier extension.
 */
export async function signPaymentHeader(
  account: PrivateKeyAccount,
  url: string,
  edit?: (accept: Json) => void,
  paymentId?: string,
): Promise<string> {
  let response = await fetch(url);
  if (response.status !== 402)
    throw new Error(`expected 402 from ${url}, got ${response.status}: ${await response.text()}`);
  if (edit) response = await editRequirements(response, edit);
  const client = v2Client(account);
  const http = new x402HTTPClient(paymentId ? withPaymentIdentifier(client, paymentId) : client);
  const body: unknown = await response.json();
  const required = http.getPaymentRequiredResponse((name) => response.headers.get(name), body);
  const payload = await http.createPaymentPayload(required);
  const header = http.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE'];
  if (!header) throw new Error('the client made no PAYMENT-SIGNATURE header');
  return header;
}

/** A payment header with its signed authorization edited after signing. */
export function tamperAuthorization(header: string, edit: (authorization: Json) => void): string {
  const decoded = decodeBase64Json<{ payload: { authorization: Json } }>(header);
  edit(decoded.payload.authorization);
  return encodeBase64Json(decoded);
}

/** The JSON body of a response, typed by the caller. */
export async function bodyOf<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** Sends a payment header by hand, as a replaying attacker would. */
export function sendPayment(url: string, payment: SentPayment): Promise<Response> {
  return fetch(url, { headers: { [payment.name]: payment.value } });
}
