const MICRO = 1_000_000n;

/** USDC micro-units as the API's canonical decimal string: always six decimals ("12.500000"). */
export function formatUsdc(micro: bigint): string {
  const sign = micro < 0n ? '-' : '';
  const abs = micro < 0n ? -micro : micro;
  return `${sign}${abs / MICRO}.${(abs % MICRO).toString().padStart(6, '0')}`;
}
