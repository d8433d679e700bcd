import { describe, expect, it } from 'vitest';
import { recoverTypedDataAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { wrapFetchWithPaymentV1, type PaymentPayloadV1 } from '../support/x402-v1.js';
import { decodeBase64Json } from '../support/x402.js';
import { transferWithAuthorizationTypes } from '../../src/chain/usdc-eip3009.js';

// The tests' v1 buyer stands in for x402-fetch 1.2.0: it must send what that client sends, and refuse
// what it refuses (test/support/x402-v1.ts). Here it pays a 402 of the shape the service answers.
const payer = privateKeyToAccount(generatePrivateKey());
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const BASE_SEPOLIA_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

function requirement(overrides: Record<string, unknown> = {}) {
  return {
    scheme: 'exact',
    network: 'base-sepolia',
    maxAmountRequired: '2500000',
    resource: 'http://127.0.0.1:3000/w/ws_1/x402/inv_1',
    description: 'Invoice INV-1',
    mimeType: 'application/json',
    payTo: '0x00000000000000000000000000000000000000aa',
    maxTimeoutSeconds: 300,
    asset: TOKEN,
    outputSchema: { input: { type: 'http', method: 'GET' }, output: null },
    extra: { name: 'USD Coin', version: '2', linkVersion: 1 },
    ...overrides,
  };
}

interface Call {
  readonly url: string;
  readonly init: (RequestInit & { __is402Retry?: boolean }) | undefined;
}

/** A server that answers 402 with `accepts` until a request carries X-PAYMENT, then 200. */
function shop(accepts: unknown[], first = 402) {
  const calls: Call[] = [];
  const fetchImpl = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    calls.push({ url: String(input), init });
    if (calls.length > 1) return new Response('{"paid":true}', { status: 200 });
    return new Response(JSON.stringify({ x402Version: 1, error: 'X-PAYMENT header is required', accepts }), {
      status: first,
    });
  };
  return { fetch: fetchImpl as typeof fetch, calls };
}

function sentPayment(call: Call | undefined): PaymentPayloadV1 {
  const header = (call?.init?.headers as Record<string, string> | undefined)?.['X-PAYMENT'];
  if (!header) throw new Error('no X-PAYMENT header was sent');
  return decodeBase64Json<PaymentPayloadV1>(header);
}

function signer(payment: PaymentPayloadV1, asset: string, chainId: number, extra = requirement().extra) {
  const { authorization } = payment.payload;
  return recoverTypedDataAddress({
    domain: { name: extra.name, version: extra.version, chainId, verifyingContract: asset as Hex },
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: authorization.from as Hex,
      to: authorization.to as Hex,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce,
    },
    signature: payment.payload.signature,
  });
}

describe('the v1 test client, as x402-fetch 1.2.0', () => {
  it('answers a 402 once with X-PAYMENT: the chosen requirements signed as an EIP-3009 authorization', async () => {
    const server = shop([requirement()]);

    const response = await wrapFetchWithPaymentV1(
      server.fetch,
      payer,
      20_000_000n,
    )('http://shop/pay', {
      headers: { Accept: 'application/json' },
    });

    expect(response.status).toBe(200);
    expect(server.calls).toHaveLength(2);
    const retry = server.calls[1]!;
    expect(retry.url).toBe('http://shop/pay');
    expect(retry.init?.__is402Retry).toBe(true);
    expect(Object.keys(retry.init?.headers ?? {})).toEqual(['Accept', 'X-PAYMENT', 'Access-Control-Expose-Headers']);
    const payment = sentPayment(retry);
    expect(Object.keys(payment)).toEqual(['x402Version', 'scheme', 'network', 'payload']);
    expect(Object.keys(payment.payload)).toEqual(['signature', 'authorization']);
    const { authorization } = payment.payload;
    expect(payment).toMatchObject({ x402Version: 1, scheme: 'exact', network: 'base-sepolia' });
    expect(authorization).toMatchObject({ from: payer.address, to: requirement().payTo, value: '2500000' });
    // Valid from ten minutes back (clocks behind the buyer's) until maxTimeoutSeconds from now.
    expect(Number(authorization.validBefore) - Number(authorization.validAfter)).toBe(600 + 300);
    expect(authorization.nonce).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await signer(payment, TOKEN, 84532)).toBe(payer.address);
  });

  it('signs with the token domain the 402 names in extra, on the chain of its network', async () => {
    const extra = { name: 'Bridged USDC', version: '7' };
    const server = shop([requirement({ network: 'base', extra })]);
    await wrapFetchWithPaymentV1(server.fetch, payer, 20_000_000n)('http://shop/pay');
    expect(await signer(sentPayment(server.calls[1]), TOKEN, 8453, { ...extra, linkVersion: 0 })).toBe(payer.address);
  });

  it('draws a new nonce for every payment', async () => {
    const first = shop([requirement()]);
    const second = shop([requirement()]);
    await wrapFetchWithPaymentV1(first.fetch, payer, 20_000_000n)('http://shop/pay');
    await wrapFetchWithPaymentV1(second.fetch, payer, 20_000_000n)('http://shop/pay');
    expect(sentPayment(first.calls[1]).payload.authorization.nonce).not.toBe(
      sentPayment(second.calls[1]).payload.authorization.nonce,
    );
  });

  it('prefers the entry whose asset is spelled as x402’s USDC for its network, else takes the first', async () => {
    const usdc = requirement({ asset: BASE_SEPOLIA_USDC, payTo: '0x00000000000000000000000000000000000000bb' });
    const lowercase = requirement({ asset: BASE_SEPOLIA_USDC.toLowerCase() });
    const preferred = shop([lowercase, requirement(), usdc]);
    await wrapFetchWithPaymentV1(preferred.fetch, payer, 20_000_000n)('http://shop/pay');
    expect(sentPayment(preferred.calls[1]).payload.authorization.to).toBe(usdc.payTo);

    const first = shop([requirement({ payTo: '0x00000000000000000000000000000000000000cc' }), requirement()]);
    await wrapFetchWithPaymentV1(first.fetch, payer, 20_000_000n)('http://shop/pay');
    expect(sentPayment(first.calls[1]).payload.authorization.to).toBe('0x00000000000000000000000000000000000000cc');
  });

  it('passes every answer but a 402 through, untouched and unpaid', async () => {
    const server = shop([requirement()], 409);
    const response = await wrapFetchWithPaymentV1(server.fetch, payer, 20_000_000n)('http://shop/pay');
    expect(response.status).toBe(409);
    expect(server.calls).toHaveLength(1);
  });

  it('drops caller headers given as a Headers instance on the retry, as x402-fetch does', async () => {
    const server = shop([requirement()]);
    await wrapFetchWithPaymentV1(
      server.fetch,
      payer,
      20_000_000n,
    )('http://shop/pay', {
      headers: new Headers({ Accept: 'application/json' }),
    });
    expect(Object.keys(server.calls[1]?.init?.headers ?? {})).toEqual(['X-PAYMENT', 'Access-Control-Expose-Headers']);
  });

  it.each([
    ['an amount over its cap', { maxAmountRequired: '20000001' }, /exceeds maximum/],
    ['a v2 network name', { network: 'eip155:84532' }, /network/],
    ['another scheme', { scheme: 'upto' }, /scheme/],
    ['no mimeType', { mimeType: undefined }, /mimeType/],
    ['a fractional timeout', { maxTimeoutSeconds: 1.5 }, /maxTimeoutSeconds/],
    ['outputSchema null', { outputSchema: null }, /outputSchema/],
    ['a resource that is no URL', { resource: 'inv_1' }, /resource/],
    ['a Solana network (an EVM account cannot pay there)', { network: 'solana' }, /svm/],
  ])('throws on %s, sending no payment', async (_name, overrides, error) => {
    const server = shop([requirement(overrides)]);
    await expect(wrapFetchWithPaymentV1(server.fetch, payer, 20_000_000n)('http://shop/pay')).rejects.toThrow(error);
    expect(server.calls).toHaveLength(1);
  });
});
