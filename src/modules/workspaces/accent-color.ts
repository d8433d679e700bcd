const HEX_COLOR = /^#[0-9a-f]{6}$/i;

/** The accent colour as stored (`#rrggbb`, lowercase), or undefined when it is not one. */
export function normaliseAccentColor(raw: string): string | undefined {
  return HEX_COLOR.test(raw) ? raw.toLowerCase() : undefined;
}

/** WCAG 2's minimum contrast of normal-size text (success criterion 1.4.3, level AA). */
export const MIN_TEXT_CONTRAST = 4.5;

/** The two text colours a button may use: white, or a near-black that reads as black but is softer. */
export const LIGHT_TEXT = '#ffffff';
export const DARK_TEXT = '#111111';

/** The colours of a primary button drawn in the workspace's accent colour. */
export interface ButtonColors {
  /** The accent colour itself, or the nearest darker or lighter shade of it where text would not read. */
  readonly background: string;
  /** `LIGHT_TEXT` or `DARK_TEXT`: at least MIN_TEXT_CONTRAST against `background`. */
  readonly text: string;
}

type Rgb = readonly [number, number, number];

/**
 * The button colours a buyer's page uses for `accent` (`#rrggbb`, any case). The text colour is the one
 * of white and near-black with the higher contrast; when neither reaches 4.5:1 (mid-tones such as
 * #777777), the background is darkened under white text or lightened under near-black text, whichever
 * changes it less, by the smallest step that does. So the merchant's colour is kept wherever it reads,
 * and changed as little as possible where it does not. Pure; throws only for a malformed colour.
 */
export function accentButtonColors(accent: string): ButtonColors {
  if (!HEX_COLOR.test(accent)) throw new RangeError(`Not a #rrggbb colour: ${accent}`);
  const rgb = parseHex(accent);
  const text = contrastRatio(accent, LIGHT_TEXT) >= contrastRatio(accent, DARK_TEXT) ? LIGHT_TEXT : DARK_TEXT;
  if (contrastRatio(accent, text) >= MIN_TEXT_CONTRAST) return { background: accent.toLowerCase(), text };
  const darker = firstReadableMix(rgb, [0, 0, 0], LIGHT_TEXT);
  const lighter = firstReadableMix(rgb, [255, 255, 255], DARK_TEXT);
  return darker.amount <= lighter.amount
    ? { background: darker.color, text: LIGHT_TEXT }
    : { background: lighter.color, text: DARK_TEXT };
}

/** The WCAG 2 contrast ratio of two `#rrggbb` colours, from 1 (same luminance) to 21 (black on white). */
export function contrastRatio(a: string, b: string): number {
  const [high, low] = [luminance(parseHex(a)), luminance(parseHex(b))].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

/**
 * `rgb` mixed with `toward` in 1 % steps until `text` reaches MIN_TEXT_CONTRAST on it. Always ends: at
 * 100 % the mix is black (21:1 under white) or white (18.9:1 under near-black).
 */
function firstReadableMix(rgb: Rgb, toward: Rgb, text: string): { color: string; amount: number } {
  for (let percent = 1; ; percent++) {
    const mixed = (i: 0 | 1 | 2) => rgb[i] + ((toward[i] - rgb[i]) * percent) / 100;
    const color = toHex([mixed(0), mixed(1), mixed(2)]);
    if (contrastRatio(color, text) >= MIN_TEXT_CONTRAST) return { color, amount: percent };
  }
}

/** WCAG 2's relative luminance of an sRGB colour. */
function luminance([r, g, b]: Rgb): number {
  const linear = (channel: number) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

function parseHex(color: string): Rgb {
  const channel = (start: number) => parseInt(color.slice(start, start + 2), 16);
  return [channel(1), channel(3), channel(5)];
}

function toHex(rgb: Rgb): string {
  return `#${rgb.map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`;
}
