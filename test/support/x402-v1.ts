import { getAddress, toHex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { transferWithAuthorizationTypes } from '../../src/chain/usdc-eip3009.js';

/**
 * An x402 protocol v1 buyer that sends, byte for byte, what `x402-fetch` 1.2.0 (over `x402` 1.2.0) sends
 * for an EVM account: the same choice among `accepts`, the same checks of the 402 body, the same
 * `X-PAYMENT` header and one retry. The real client pulls in ~450 MB of wallet SDKs for what is, for an
 * EVM account, an EIP-712 signature; buyers in the wild still use it, so this copy must not drift from it.
 * The v2 client in tests stays the unmodified `@x402/fetch`.
 */

/** x402 1.2.0's EVM networks: chain id and the USDC address its selector prefers (exact spelling). */
const EVM_NETWORKS: Readonly<Record<string, { readonly chainId: number; readonly usdc: string }>> = {
  abstract: { chainId: 2741, usdc: '0x84a71ccd554cc1b02749b35d22f684cc8ec987e1' },
  'abstract-testnet': { chainId: 11124, usdc: '0xe4C7fBB0a626ed208021ccabA6Be1566905E2dFc' },
  'base-sepolia': { chainId: 84532, usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' },
  base: { chainId: 8453, usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' },
  'avalanche-fuji': { chainId: 43113, usdc: '0x5425890298aed601595a70AB815c96711a31Bc65' },
  avalanche: { chainId: 43114, usdc: '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E' },
  iotex: { chainId: 4689, usdc: '0xcdf79194c6c285077a58da47641d4dbe51f63542' },
  sei: { chainId: 1329, usdc: '0xe15fc38f6d8c56af07bbcbe3baf5708a2bf42392' },
  'sei-testnet': { chainId: 1328, usdc: '0x4fcf1784b31630811181f670aea7a7bef803eaed' },
  polygon: { chainId: 137, usdc: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359' },
  'polygon-amoy': { chainId: 80002, usdc: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582' },
  peaq: { chainId: 3338, usdc: '0xbbA60da06c2c5424f03f7434542280FCAd453d10' },
  story: { chainId: 1514, usdc: '0xF1815bd50389c46847f0Bda824eC8da914045D14' },
  educhain: { chainId: 41923, usdc: '0x12a272A581feE5577A5dFa371afEB4b2F3a8C2F8' },
  'skale-base-sepolia': { chainId: 324705682, usdc: '0x2e08028E3C4c2356572E096d8EF835cD5C6030bD' },
};

/** Networks x402 1.2.0 accepts in a 402 but cannot pay with an EVM account. */
const SVM_NETWORKS: Readonly<Record<string, string>> = {
  'solana-devnet': '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  solana: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
};

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SVM_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
// Unanchored on the left, as x402's own: it accepts more than it looks like.
const MIXED_ADDRESS = /^0x[a-fA-F0-9]{40}|[A-Za-z0-9][A-Za-z0-9-]{0,34}[A-Za-z0-9]$/;

/** What the v1 client reads of one entry of `accepts`. */
export interface RequirementsV1 {
  readonly scheme: string;
  readonly network: string;
  readonly maxAmountRequired: string;
  readonly payTo: string;
  readonly maxTimeoutSeconds: number;
  readonly asset: string;
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** The decoded `X-PAYMENT` header. */
export interface PaymentPayloadV1 {
  readonly x402Version: unknown;
  readonly scheme: string;
  readonly network: string;
  readonly payload: {
    readonly signature: `0x${string}`;
    readonly authorization: {
      readonly from: string;
      readonly to: string;
      readonly value: string;
      readonly validAfter: string;
      readonly validBefore: string;
      readonly nonce: `0x${string}`;
    };
  };
}

/**
 * `wrapFetchWithPayment` of x402-fetch 1.2.0 for a viem account: a 402 is answered by signing the chosen
 * requirements and sending the request again, once, with `X-PAYMENT`. Anything else passes through.
 * Throws, as the real client does, when the 402 body does not parse or the amount is over `maxValue`.
 */
export function wrapFetchWithPaymentV1(
  fetchImpl: typeof fetch,
  account: PrivateKeyAccount,
  maxValue = 100_000n,
): typeof fetch {
  const paying = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const response = await fetchImpl(input, init);
    if (response.status !== 402) return response;
    const { x402Version, accepts } = (await response.json()) as { x402Version: unknown; accepts: unknown[] };
    const selected = selectRequirements(accepts.map(parseRequirements));
    if (BigInt(selected.maxAmountRequired) > maxValue) throw new Error('Payment amount exceeds maximum allowed');
    const header = encodePayment(await createPayment(account, x402Version, selected));
    // The caller's headers are spread as a plain object, as x402-fetch does: a Headers instance adds none.
    const headers = {
      ...(init?.headers as Record<string, string> | undefined),
      'X-PAYMENT': header,
      'Access-Control-Expose-Headers': 'X-PAYMENT-RESPONSE',
    };
    // x402-fetch marks its retry in the init it passes on; a fetch that looks for the mark finds it here too.
    return fetchImpl(input, { ...init, headers, __is402Retry: true } as RequestInit);
  };
  return paying as typeof fetch;
}

/** x402's `PaymentRequirementsSchema`: a 402 entry that fails it makes the client throw, paying nothing. */
export function parseRequirements(value: unknown): RequirementsV1 {
  const entry = isRecord(value) ? value : {};
  const checks: Record<string, boolean> = {
    scheme: entry.scheme === 'exact',
    network: typeof entry.network === 'string' && isKnownNetwork(entry.network),
    maxAmountRequired: typeof entry.maxAmountRequired === 'string' && isNonNegativeInteger(entry.maxAmountRequired),
    resource: typeof entry.resource === 'string' && URL.canParse(entry.resource),
    description: typeof entry.description === 'string',
    mimeType: typeof entry.mimeType === 'string',
    outputSchema: entry.outputSchema === undefined || isRecord(entry.outputSchema),
    payTo: typeof entry.payTo === 'string' && (EVM_ADDRESS.test(entry.payTo) || SVM_ADDRESS.test(entry.payTo)),
    maxTimeoutSeconds: Number.isInteger(entry.maxTimeoutSeconds),
    asset: typeof entry.asset === 'string' && (MIXED_ADDRESS.test(entry.asset) || SVM_ADDRESS.test(entry.asset)),
    extra: entry.extra === undefined || isRecord(entry.extra),
  };
  const invalid = Object.keys(checks).filter((field) => !checks[field]);
  if (invalid.length > 0) throw new Error(`invalid payment requirements: ${invalid.join(', ')}`);
  return entry as unknown as RequirementsV1;
}

/**
 * x402's `selectPaymentRequirements` for a signer without a chain (a viem account): the first `exact`
 * entry whose asset is spelled exactly as x402's USDC table has it for its network, else the first `exact`
 * entry, else the first entry.
 */
export function selectRequirements(accepts: readonly RequirementsV1[]): RequirementsV1 {
  const exact = accepts.filter((requirement) => requirement.scheme === 'exact');
  const usdc = exact.find((requirement) => requirement.asset === usdcOf(requirement.network));
  const selected = usdc ?? exact[0] ?? accepts[0];
  if (!selected) throw new Error('the 402 offers no payment requirements');
  return selected;
}

async function createPayment(
  account: PrivateKeyAccount,
  x402Version: unknown,
  requirements: RequirementsV1,
): Promise<PaymentPayloadV1> {
  const chainId = evmChainId(requirements);
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from: account.address,
    to: requirements.payTo,
    value: requirements.maxAmountRequired,
    validAfter: String(now - 600), // ten minutes back, for clocks behind the buyer's
    validBefore: String(now + requirements.maxTimeoutSeconds),
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const signature = await account.signTypedData({
    // The token's EIP-712 domain is taken from the 402's `extra`, as sent, never looked up on the chain.
    domain: {
      name: requirements.extra?.name as string | undefined,
      version: requirements.extra?.version as string | undefined,
      chainId,
      verifyingContract: getAddress(requirements.asset),
    },
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: getAddress(authorization.from),
      to: getAddress(authorization.to),
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce,
    },
  });
  return {
    x402Version,
    scheme: requirements.scheme,
    network: requirements.network,
    payload: { signature, authorization },
  };
}

function evmChainId(requirements: RequirementsV1): number {
  if (requirements.scheme !== 'exact') throw new Error('Unsupported scheme');
  if (Object.hasOwn(EVM_NETWORKS, requirements.network)) return EVM_NETWORKS[requirements.network]!.chainId;
  if (Object.hasOwn(SVM_NETWORKS, requirements.network)) throw new Error('Invalid svm wallet client provided');
  throw new Error('Unsupported network');
}

function encodePayment(payment: PaymentPayloadV1): string {
  return Buffer.from(JSON.stringify(payment), 'utf8').toString('base64');
}

function usdcOf(network: string): string | undefined {
  if (Object.hasOwn(EVM_NETWORKS, network)) return EVM_NETWORKS[network]!.usdc;
  return Object.hasOwn(SVM_NETWORKS, network) ? SVM_NETWORKS[network] : undefined;
}

function isKnownNetwork(network: string): boolean {
  return Object.hasOwn(EVM_NETWORKS, network) || Object.hasOwn(SVM_NETWORKS, network);
}

/** x402's `isInteger`: what Number() reads as a whole number ≥ 0 ("1e3" and " 7 " pass). */
function isNonNegativeInteger(value: string): boolean {
  return Number.isInteger(Number(value)) && Number(value) >= 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
