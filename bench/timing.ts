/**
 * CLOCK_MONOTONIC in ms (libuv's hrtime on Linux): one clock for every process of the machine, so a
 * moment noted in a forked process and one noted in the runner can be subtracted.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Nearest-rank percentiles of every sample, in ms. */
export function percentiles(samples: readonly number[]): { p50: number; p99: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return { p50: rank(0.5), p99: rank(0.99), max: sorted.at(-1) ?? Number.NaN };
}

/** A latency row: name, count, p50, p99, max, errors, and the p50 as a share of `referenceMs`. */
export function latencyRow(name: string, values: readonly number[], errors: number, referenceMs: number): string[] {
  const { p50, p99, max } = percentiles(values);
  return [
    name,
    values.length.toString(),
    p50.toFixed(1),
    p99.toFixed(1),
    max.toFixed(1),
    errors.toString(),
    (p50 / referenceMs).toFixed(3),
  ];
}
