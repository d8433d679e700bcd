const MICRO = 1_000_000n;

/** USDC micro-units as the API's canonical decimal string: always six decimals ("12.500000"). */
export function formatUsdc(micro: bigint): string {
  const sign = micro < 0n ? '-' : '';
  const abs = micro < 0n ? -micro : micro;
  return `${sign}${abs / MICRO}.${(abs % MICRO).toString().padStart(6, '0')}`;
}

/** The API's amount spelling: digits, optionally a dot and 1–6 decimals. No sign, exponent or grouping. */
export const USDC_AMOUNT_PATTERN = '^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$';
const AMOUNT = new RegExp(USDC_AMOUNT_PATTERN);

/** Micro-units of a decimal USDC string, or undefined when it is not the API's spelling. */
export function parseUsdc(text: string): bigint | undefined {
  if (!AMOUNT.test(text)) return undefined;
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * MICRO + BigInt(fraction.padEnd(6, '0'));
}

/** The API's six-decimal amount ("12.500000") as people write it, still exact: "12.50", "0.000001". */
export function displayAmount(amount: string): string {
  const [whole = '0', fraction = ''] = amount.split('.');
  const trimmed = fraction.replace(/0+$/, '');
  return `${whole}.${trimmed.padEnd(2, '0')}`;
}
