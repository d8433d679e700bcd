import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { CHECKOUT_PAGE_CSP } from '../../src/web/checkout/checkout.page.js';
import { newWallet } from '../support/app.js';
import { injectTestWallet, launchBrowser, screenshot } from '../support/browser.js';
import { createTestChain } from '../support/chain.js';
import { RETURN_ORIGIN, checkoutShop, foreignRequests } from '../support/checkout-browser.js';
import { startPayingApp } from '../support/paying-app.js';

const chain = await createTestChain();
const paying = await startPayingApp(chain);
const browser = await launchBrowser();
const shop = await checkoutShop(paying);
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** Every src/href attribute value of a page. */
const references = (page: string): string[] => [...page.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1] ?? '');

describe('checkout page: first paint without JavaScript', () => {
  it('states merchant, description, number, amount, recipient, network, deadline with time left, and status', async () => {
    const invoice = await shop.invoice({
      amount: '12.5',
      description: 'Ethiopia Guji, 250 g\nGround for filter',
      cancelUrl: `${RETURN_ORIGIN}/cart`,
    });
    const response = await fetch(invoice.link, { headers: HTML });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await response.text();
    expect(page).toContain('<h1>Corner Shop</h1>');
    expect(page).toContain('Fresh coffee beans, roasted weekly.');
    expect(page).toContain(`<strong>${invoice.number}</strong>`);
    expect(page).toContain('<span id="amount">12.50</span> <span class="unit">USDC</span>');
    // What the buyer pays for, its line break kept (the paragraph's white-space: pre-line shows it).
    expect(page).toContain('<p class="purchase">Ethiopia Guji, 250 g\nGround for filter</p>');
    expect(page).toContain(`<code id="recipient">${getAddress(shop.wallet.address)}</code>`);
    // The network by its name, marked as a test network (chain 84532 is Base Sepolia).
    expect(page).toContain('Network <strong>Base Sepolia</strong> <span class="badge testnet">Testnet</span>');
    expect(page).toMatch(/Time left <strong id="countdown" role="timer">(59:5\d|1:00:00)<\/strong>/);
    expect(page).toMatch(/Deadline <time id="deadline" datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);
    expect(page).toContain('data-status="open">Awaiting payment</span>');
    // The QR code is inline SVG linking the EIP-681 URI: no image request, no client library.
    expect(page).toMatch(
      /<a class="qr" href="ethereum:0x[0-9a-fA-F]{40}@84532\/transfer\?address=0x[0-9a-fA-F]{40}&amp;uint256=12500000"[^>]*><svg class="qr-code"/,
    );
    expect(page).toContain(`<a id="back-link" href="${RETURN_ORIGIN}/cart" rel="noreferrer">Back to merchant</a>`);
    expect(page).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(page).toContain('<footer class="footer">Only people with this link can see this page.</footer>');
    expect(page).not.toContain('private');
    expect(page).toContain('<section id="receipt" class="card receipt" aria-labelledby="receipt-title" hidden>');
  });

  it('reads the same in a browser with JavaScript off; the parts that need it stay hidden', async () => {
    const invoice = await shop.invoice({ amount: '3' });
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(invoice.link);
    const text = await page.locator('main').innerText();
    for (const expected of [
      'Corner Shop',
      invoice.number,
      '3.00',
      'USDC',
      'Awaiting payment',
      'Time left',
      getAddress(shop.wallet.address),
      'Base Sepolia',
      'Testnet',
    ]) {
      expect(text).toContain(expected);
    }
    expect(await page.locator('.qr-code').isVisible()).toBe(true);
    expect(await page.locator('#tx-form').isVisible()).toBe(false);
    expect(await page.locator('#wallet-pay').isVisible()).toBe(false);
    expect(await page.locator('#back-link').isVisible()).toBe(false); // no cancelUrl: no link
    expect(text).toContain('needs JavaScript to take the transaction hash');
    await context.close();
  });

  it('is served under a strict Content-Security-Policy, without referrer, framing or indexing, and loads only its own files', async () => {
    const invoice = await shop.invoice({ amount: '1' });
    const response = await fetch(invoice.link, { headers: HTML });
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(response.headers.get('content-security-policy')).toBe(CHECKOUT_PAGE_CSP);
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('vary')).toBe('Accept');
    const page = await response.text();
    const refs = references(page).filter((ref) => !ref.startsWith('ethereum:') && ref !== 'data:,');
    expect(refs).toEqual(['/checkout/assets/checkout.css', '/checkout/assets/checkout.js']);
    expect(page).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    const inlineScripts = [...page.matchAll(/<script(?![^>]*\ssrc=)([^>]*)>/g)].map((m) => m[1]);
    expect(inlineScripts).toEqual([' type="application/json" id="checkout-config"']);
    expect(page).not.toContain('/demo-wallet.js'); // only in the local demo
  });

  it('escapes what the merchant wrote', async () => {
    const evil = await checkoutShop(paying, '<script>alert(1)</script> & Co', '<img src=x onerror=alert(2)>');
    const invoice = await evil.invoice({ amount: '1', description: '<b onclick=alert(3)>Mug</b>' });
    const page = await (await fetch(invoice.link, { headers: HTML })).text();
    expect(page).toContain('<p class="purchase">&lt;b onclick=alert(3)&gt;Mug&lt;/b&gt;</p>');
    expect(page).toContain('<h1>&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co</h1>');
    expect(page).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<img src=x');
  });

  it('answers unknown and foreign invoice ids with the same plain 404 page', async () => {
    const other = await checkoutShop(paying, 'Other Shop');
    const foreign = await other.invoice({ amount: '1' });
    const own = await shop.invoice({ amount: '1' });
    const links = [
      `${paying.origin}/w/${shop.workspaceId}/i/inv_00000000000000000000000000`,
      `${paying.origin}/w/${shop.workspaceId}/i/${foreign.id}`,
      `${paying.origin}/w/${other.workspaceId}/i/${own.id}`,
      `${paying.origin}/w/not-a-workspace/i/${own.id}`,
    ];
    const answers = await Promise.all(links.map((link) => fetch(link, { headers: HTML })));
    const bodies = await Promise.all(answers.map((answer) => answer.text()));
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(answer.headers.get('content-security-policy')).toBe(CHECKOUT_PAGE_CSP);
    }
    expect(new Set(bodies).size).toBe(1);
    expect(bodies[0]).toContain('Not found');
    for (const secret of [foreign.id, own.id, 'Other Shop', 'Corner Shop', shop.workspaceId])
      expect(bodies[0]).not.toContain(secret);
  });
});

describe('checkout page in the browser', () => {
  it('makes no request beyond the service and breaks no CSP rule while it runs', async () => {
    const invoice = await shop.invoice({ amount: '2.75', cancelUrl: `${RETURN_ORIGIN}/cart` });
    const context = await browser.newContext();
    const page = await context.newPage();
    const foreign = foreignRequests(page, paying.origin);
    const problems: string[] = [];
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(invoice.link);
    await page.locator('#no-wallet').waitFor(); // the script runs and has given wallets their time to announce
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
    expect(await page.locator('#tx-form').isVisible()).toBe(true);
    await context.close();
  });

  it('fits a phone and a desktop screen (screenshots in test-results/)', async () => {
    const invoice = await shop.invoice({ amount: '24.9', cancelUrl: `${RETURN_ORIGIN}/cart` });
    for (const [name, viewport] of [
      ['checkout-phone', { width: 390, height: 844 }],
      ['checkout-desktop', { width: 1280, height: 800 }],
    ] as const) {
      const context = await browser.newContext({ viewport });
      await injectTestWallet(context, newWallet(), chain.rpcUrl, chain.network.chainId); // as a buyer with a wallet sees it
      const page = await context.newPage();
      await page.goto(invoice.link);
      await page.getByRole('button', { name: 'Pay with Test Wallet' }).waitFor();
      // Nothing wider than the screen: no sideways scrolling on a phone.
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
      await screenshot(page, name);
      await context.close();
    }
  });
});
