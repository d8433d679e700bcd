import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CHECKOUT_PAGE_CSP, accentStyle } from '../../src/web/checkout/checkout.page.js';

describe("the merchant's accent colour on the checkout page", () => {
  it('is one inline style, admitted by its hash alone, with text that keeps its contrast', () => {
    const style = accentStyle('#FFE066')!;
    expect(style.css).toBe(':root{--brand:#ffe066;--brand-text:#111111}');
    const hash = createHash('sha256').update(style.css).digest('base64');
    expect(style.csp).toBe(CHECKOUT_PAGE_CSP.replace("style-src 'self'", `style-src 'self' 'sha256-${hash}'`));
  });

  it('leaves the page as it is without a colour, or with anything that is not one', () => {
    for (const color of [null, '', 'red', '#fff', '#ffe066;}body{display:none', 'url(x)']) {
      expect(accentStyle(color), String(color)).toBeUndefined();
    }
  });
});
