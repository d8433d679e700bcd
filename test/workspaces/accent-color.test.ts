import { describe, expect, it } from 'vitest';
import { DARK_TEXT, LIGHT_TEXT, MIN_TEXT_CONTRAST } from '../../src/modules/workspaces/accent-color.js';
import { accentButtonColors, contrastRatio } from '../../src/modules/workspaces/index.js';

describe('contrastRatio', () => {
  it('follows WCAG 2: 21 for black on white, 1 for a colour on itself, either order', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrastRatio('#0052ff', '#0052FF')).toBe(1);
    // A published reference pair: #777777 on white is just under AA.
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });
});

describe('accentButtonColors', () => {
  it.each([
    ['#ffff00', '#ffff00', DARK_TEXT],
    ['#0052ff', '#0052ff', LIGHT_TEXT],
    ['#0052FF', '#0052ff', LIGHT_TEXT],
    ['#000000', '#000000', LIGHT_TEXT],
    ['#ffffff', '#ffffff', DARK_TEXT],
  ])('keeps %s as it is, where one text colour reads on it', (accent, background, text) => {
    expect(accentButtonColors(accent)).toEqual({ background, text });
    expect(contrastRatio(background, text)).toBeGreaterThanOrEqual(MIN_TEXT_CONTRAST);
  });

  it('darkens a mid-grey on which neither text colour reaches 4.5:1, by the least step that does', () => {
    expect(contrastRatio('#777777', LIGHT_TEXT)).toBeLessThan(MIN_TEXT_CONTRAST);
    expect(contrastRatio('#777777', DARK_TEXT)).toBeLessThan(MIN_TEXT_CONTRAST);
    const { background, text } = accentButtonColors('#777777');
    expect({ background, text }).toEqual({ background: '#767676', text: LIGHT_TEXT });
    expect(contrastRatio(background, text)).toBeGreaterThanOrEqual(MIN_TEXT_CONTRAST);
  });

  it('lightens instead where that is the smaller change', () => {
    // A slightly lighter grey: near-black text is closer to 4.5:1 on it than white is.
    expect(contrastRatio('#7a7a7a', DARK_TEXT)).toBeLessThan(MIN_TEXT_CONTRAST);
    const { background, text } = accentButtonColors('#7a7a7a');
    expect({ background, text }).toEqual({ background: '#7d7d7d', text: DARK_TEXT });
    expect(contrastRatio(background, text)).toBeGreaterThanOrEqual(MIN_TEXT_CONTRAST);
  });

  it('gives a readable pair for every grey and a sweep of colours', () => {
    const hex = (n: number) => n.toString(16).padStart(2, '0');
    const colours = [
      ...Array.from({ length: 256 }, (_, v) => `#${hex(v).repeat(3)}`),
      ...Array.from({ length: 512 }, (_, i) => `#${hex((i * 37) % 256)}${hex((i * 91) % 256)}${hex((i * 13) % 256)}`),
    ];
    for (const accent of colours) {
      const { background, text } = accentButtonColors(accent);
      expect([LIGHT_TEXT, DARK_TEXT]).toContain(text);
      expect(background).toMatch(/^#[0-9a-f]{6}$/);
      expect(contrastRatio(background, text), accent).toBeGreaterThanOrEqual(MIN_TEXT_CONTRAST);
    }
  });

  it('refuses what is not #rrggbb, which a stored colour never is', () => {
    expect(() => accentButtonColors('red')).toThrow(RangeError);
  });
});
