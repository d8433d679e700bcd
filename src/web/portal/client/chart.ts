// Bar charts as inline SVG, drawn from numbers the server already summed per day: no chart library,
// nothing fetched. Colours come from CSS classes, so dark mode and the CSP need nothing special.
const SVG = 'http://www.w3.org/2000/svg';
const HEIGHT = 160;
const LEFT = 44; // y-axis labels
const BOTTOM = 20; // x-axis labels
const TOP = 8;

function svg(
  tag: string,
  attributes: Readonly<Record<string, string | number | undefined>> = {},
  ...children: (Node | string)[]
): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes))
    if (value !== undefined) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

const text = (x: number, y: number, content: string, anchor: string, className = 'axis') =>
  svg('text', { x, y, 'text-anchor': anchor, class: className }, content);

/**
 * One bar per entry of `bars`: `{ value (number | null), label (x-axis text), title (hover and screen
 * reader text), tone? (CSS class) }`. null draws a small mark on the baseline: "nothing to measure".
 * `max` is the top of the scale; `formatTick(v)` writes the y-axis labels; `summary` is the chart's
 * accessible name. `width` is the width it will be shown at, in CSS pixels, so that its text is drawn
 * at the page's own size on a phone as on a desktop.
 */
export interface Bar {
  readonly value: number | null;
  readonly label: string;
  readonly title: string;
  readonly tone?: string | undefined;
}

export function barChart({
  bars,
  max,
  formatTick,
  summary,
  width = 600,
}: {
  readonly bars: readonly Bar[];
  readonly max: number;
  readonly formatTick: (value: number) => string;
  readonly summary: string;
  readonly width?: number;
}): SVGElement {
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const band = (width - LEFT) / Math.max(bars.length, 1);
  const y = (value: number) => TOP + plotHeight - (max > 0 ? (value / max) * plotHeight : 0);
  const grid = [0, max / 2, max].map((tick) =>
    svg(
      'g',
      {},
      svg('line', { x1: LEFT, x2: width, y1: y(tick), y2: y(tick), class: 'grid' }),
      text(LEFT - 6, y(tick) + 4, formatTick(tick), 'end'),
    ),
  );
  const columns = bars.map((bar, i) => {
    const x = LEFT + i * band + band * 0.15;
    const barWidth = band * 0.7;
    const shape =
      bar.value === null
        ? svg('rect', { x, y: y(0) - 2, width: barWidth, height: 2, class: 'bar none' })
        : svg('rect', {
            x,
            y: y(bar.value),
            width: barWidth,
            height: Math.max(y(0) - y(bar.value), bar.value > 0 ? 1 : 0),
            class: `bar ${bar.tone ?? ''}`,
          });
    // The transparent full-height hit area makes a tiny bar easy to hover or tap.
    return svg(
      'g',
      {},
      svg('title', {}, bar.title),
      svg('rect', { x: LEFT + i * band, y: TOP, width: band, height: plotHeight, class: 'hit' }),
      shape,
    );
  });
  // First, middle and last day only: thirty labels do not fit a phone. The outer ones align to the plot's edges.
  const middle = Math.floor((bars.length - 1) / 2);
  const [first, center, last] = [bars[0], bars[middle], bars.at(-1)];
  const labels =
    first && center && last
      ? [
          text(LEFT, HEIGHT - 4, first.label, 'start'),
          text(LEFT + middle * band + band / 2, HEIGHT - 4, center.label, 'middle'),
          text(width, HEIGHT - 4, last.label, 'end'),
        ]
      : [];
  return svg(
    'svg',
    { viewBox: `0 0 ${width} ${HEIGHT}`, role: 'img', 'aria-label': summary, class: 'bars' },
    ...grid,
    ...columns,
    ...labels,
  );
}

/** A round scale top at or above `value`: 1, 2 or 5 times a power of ten. */
export function niceMax(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= value) ?? 10 * power;
}
