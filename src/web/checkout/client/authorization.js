// The EIP-3009 TransferWithAuthorization a checkout payment signs, exactly as the service checks it
// (docs/checkout.md): the token's EIP-712 domain from the payment details, to = recipient, value = the
// amount in micro-units, the link's `authorizationNonce`. Pure: runs in Node too (tests).

/** How long a signature stays valid: long enough to settle, short enough not to linger (x402 uses 300 s). */
export const VALIDITY_SECONDS = 300;

const DOMAIN_FIELDS = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];

const TRANSFER_FIELDS = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
];

/** "12.500000" → "12500000": USDC has six decimals and the API always writes six. */
export function microUnits(amount) {
  const [whole, fraction = ''] = amount.split('.');
  return (BigInt(whole) * 1000000n + BigInt(fraction.padEnd(6, '0').slice(0, 6))).toString();
}

/**
 * The authorization body for POST …/authorizations and the typed data for `eth_signTypedData_v4`.
 * `validAfter` is 0 (valid at once, whatever the clocks say); `validBefore` counts from the server's time.
 */
export function transferAuthorization(details, network, from, serverNowMs) {
  const authorization = {
    from,
    to: details.recipient,
    value: microUnits(details.amount),
    validAfter: '0',
    validBefore: String(Math.floor(serverNowMs / 1000) + VALIDITY_SECONDS),
    nonce: details.authorizationNonce,
  };
  const typedData = {
    types: { EIP712Domain: DOMAIN_FIELDS, TransferWithAuthorization: TRANSFER_FIELDS },
    primaryType: 'TransferWithAuthorization',
    domain: {
      name: network.tokenName,
      version: network.tokenVersion,
      chainId: network.chainId,
      verifyingContract: network.token,
    },
    message: authorization,
  };
  return { authorization, typedData };
}

/** Some wallets return `v` as 0/1; the token's ecrecover wants 27/28. */
export function normalizeSignature(signature) {
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return signature;
  const v = Number.parseInt(signature.slice(130), 16);
  return v < 27 ? `${signature.slice(0, 130)}${(v + 27).toString(16)}` : signature;
}
