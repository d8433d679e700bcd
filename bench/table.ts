import type { Measurement } from './load.js';

export interface ResultRow {
  readonly name: string;
  readonly measurement: Measurement;
  /** This row's req/s over its ceiling's, measured in the same round (the median of the rounds); a ceiling's is 1. */
  readonly ratio: number;
}

const HEADER = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'unexpected', 'errors', 'ratio to ceiling'];

/** A Markdown table, padded for the terminal, so a run can be pasted into docs/performance.md as is. */
export function formatTable(rows: readonly ResultRow[]): string {
  const cells = rows.map(({ name, measurement: m, ratio }) => [
    name,
    Math.round(m.requestsPerSecond).toString(),
    m.p50Ms.toFixed(2),
    m.p99Ms.toFixed(2),
    m.unexpected.toString(),
    m.errors.toString(),
    ratio.toFixed(3),
  ]);
  return markdownTable(HEADER, cells);
}

/** Any table in the same style: the first column left-aligned, the others (numbers) right-aligned. */
export function markdownTable(header: readonly string[], cells: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column]?.length ?? 0)));
  // Names left-aligned, numbers right-aligned, in the terminal and in rendered Markdown alike.
  const line = (row: readonly string[]) =>
    `| ${row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (column === 0 ? `:${'-'.repeat(width + 1)}` : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...cells.map(line)].join('\n');
}
