import cookie from '@fastify/cookie';
import Fastify from 'fastify';
import { getAddress } from 'viem';
import { createSiweMessage as viemSiweMessage } from 'viem/siwe';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, signInChainIds } from '../../src/config/config.js';
import { PERMISSION_PRESETS } from '../../src/modules/api-keys/index.js';
import { PORTAL_CSP, registerPortalPages } from '../../src/web/portal/portal.routes.js';
// The browser module itself, run in Node: it is pure, without DOM access.
import * as clientSiwe from '../../src/web/portal/client/siwe.js';
import { renderPortalHome } from '../../src/web/portal/portal.page.js';
import type { PortalClientConfig } from '../../src/web/portal/portal.layout.js';
import { SESSION_COOKIE } from '../../src/http/portal-guards.js';
import { BASE_URL, ORIGIN, createTestApp, merchant, merchantApi, newWallet } from '../support/app.js';

const { app, services } = await createTestApp();

/** Every src/href attribute value of a page. */
const references = (page: string): string[] => [...page.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1] ?? '');

function embeddedConfig(page: string): PortalClientConfig {
  const match = /<script type="application\/json" id="portal-config">([^<]*)<\/script>/.exec(page);
  if (!match?.[1]) throw new Error('no #portal-config block');
  return JSON.parse(match[1]) as PortalClientConfig;
}

describe('portal page', () => {
  it('answers /portal with HTML under the strict Content-Security-Policy', async () => {
    const response = await app.inject({ method: 'GET', url: '/portal' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(response.headers['content-security-policy']).toBe(PORTAL_CSP);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-request-id']).toMatch(/^req_/);
    expect(response.body).toMatch(/^<!doctype html>/);
    expect(response.body).toContain('href="/docs"');
  });

  it('references only same-origin assets and has no inline script or style', async () => {
    const page = (await app.inject({ method: 'GET', url: '/portal' })).body;
    const refs = references(page);
    expect(refs.length).toBeGreaterThan(3);
    // Same-origin paths, or fragments of this page (the tab links, and a tab's form: #invoices/new); the
    // one absolute link is the service's own portal address, which the page offers when it is opened at
    // another address (a link to follow, not an asset).
    const own = `${ORIGIN}/portal`;
    for (const ref of refs) if (ref !== own) expect(ref).toMatch(/^(\/(?!\/)|#[a-z]+(\/[a-z]+)?$)/);
    expect(page).toContain(`<a id="origin-link" href="${own}">${ORIGIN}</a>`);
    // Otherwise the service origin appears only as data for the script (to tell when the page is opened
    // elsewhere); other addresses are examples in placeholders and help text, which nothing loads.
    const addresses =
      page
        .replace(/<script type="application\/json"[^]*?<\/script>/, '')
        .replace(/<a id="origin-link"[^]*?<\/a>/, '')
        .match(/https?:\/\/[^\s"<]*/g) ?? [];
    for (const address of addresses) expect(address).toMatch(/^https:\/\/(host|([a-z]+\.)*example\.com)(\/|$)/);
    expect(page).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    // The only script without src is the JSON data block, which browsers never execute.
    const inlineScripts = [...page.matchAll(/<script(?![^>]*\ssrc=)([^>]*)>/g)].map((m) => m[1]);
    expect(inlineScripts).toEqual([' type="application/json" id="portal-config"']);
    expect(page).toContain('<script type="module" src="/portal/assets/app.js"></script>');
    expect(page).toContain('<link rel="stylesheet" href="/portal/assets/portal.css">');
  });

  it('embeds the accepted sign-in chain ids, the service origin and the webhook retry schedule', async () => {
    const page = (await app.inject({ method: 'GET', url: '/portal' })).body;
    expect(embeddedConfig(page)).toEqual({
      origin: ORIGIN,
      chainIds: signInChainIds(services.config),
      webhookRetrySchedule: services.config.webhookRetrySchedule,
      sessionCookie: false,
    });
    expect(embeddedConfig(page).chainIds).toEqual([84532]);
  });

  it('tells the page whether a session cookie came, so a signed-out load asks for no session', async () => {
    const signedOut = await app.inject({ method: 'GET', url: '/portal' });
    const withCookie = await app.inject({ method: 'GET', url: '/portal', cookies: { [SESSION_COOKIE]: 'anything' } });
    expect([embeddedConfig(signedOut.body).sessionCookie, embeddedConfig(withCookie.body).sessionCookie]).toEqual([
      false,
      true,
    ]);
    expect(signedOut.headers.vary).toContain('Cookie');
  });

  it('embeds the configured networks in their order when NETWORKS is set', async () => {
    const networks = [
      { name: 'base', chainId: 8453, rpcUrls: ['https://rpc.invalid'], usdc: `0x${'1'.repeat(40)}` },
      { name: 'base-sepolia', chainId: 84532, rpcUrls: ['https://rpc.invalid'], usdc: `0x${'2'.repeat(40)}` },
    ];
    const config = loadConfig({ PUBLIC_BASE_URL: 'https://pay.example.com', NETWORKS: JSON.stringify(networks) });
    const bare = Fastify({ logger: false });
    await bare.register(cookie);
    await registerPortalPages(bare, { ...services, config });
    afterAll(() => bare.close());
    const page = (await bare.inject({ method: 'GET', url: '/portal' })).body;
    expect(embeddedConfig(page)).toMatchObject({ origin: 'https://pay.example.com', chainIds: [8453, 84532] });
    expect(page).toContain('base (chain 8453)');
  });

  it('escapes server-rendered values', () => {
    const page = renderPortalHome({
      config: { origin: 'https://x.example/</script><script>alert(1)</script>', chainIds: [1] },
      networks: [{ chainId: 1, name: '<img src=x onerror=alert(1)>' }],
    });
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).not.toContain('</script><script>alert(1)');
    expect(embeddedConfig(page).origin).toBe('https://x.example/</script><script>alert(1)</script>');
  });

  it('offers both presets and every permission', async () => {
    const page = (await app.inject({ method: 'GET', url: '/portal' })).body;
    expect(page).toContain('data-preset="invoices:create invoices:read payments:read"');
    expect(page).toContain('data-preset="invoices:read payments:read"');
    for (const permission of [
      'invoices:create',
      'invoices:read',
      'payments:read',
      'payments:write',
      'billing:read',
      'billing:write',
      'webhooks:read',
      'webhooks:write',
      'settings:write',
    ]) {
      expect(page).toContain(`name="permissions" value="${permission}"`);
    }
  });

  it('the Create invoices preset reads back the invoice it created, lists it and follows the change feed', async () => {
    const { workspaceId, apiKey } = await merchant(app, [...PERMISSION_PRESETS['create-invoices']]);
    const call = merchantApi(app, workspaceId, apiKey);
    const created = await call('POST', '/invoices', { 'idempotency-key': 'preset-read-back' }, { amount: '12.50' });
    expect(created.statusCode).toBe(201);
    const { id } = created.json<{ id: string }>();
    expect((await call('GET', `/invoices/${id}`)).statusCode).toBe(200);
    const listed = await call('GET', '/invoices');
    expect([
      listed.statusCode,
      listed.json<{ invoices: { id: string }[] }>().invoices.map((invoice) => invoice.id),
    ]).toEqual([200, [id]]);
    const feed = await call('GET', '/changes');
    expect([feed.statusCode, feed.json<{ events: { invoiceId: string }[] }>().events[0]?.invoiceId]).toEqual([200, id]);
  });

  it('says in the webhook and return origin hints what this configuration allows', async () => {
    const strict = (await app.inject({ method: 'GET', url: '/portal' })).body;
    expect(strict).toContain('A public https address on port 443.');
    expect(strict).not.toContain('http://localhost:port');
    const bare = Fastify({ logger: false });
    await bare.register(cookie);
    await registerPortalPages(bare, { ...services, config: loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' }) });
    afterAll(() => bare.close());
    const local = (await bare.inject({ method: 'GET', url: '/portal' })).body;
    expect(local).toContain('An http or https address, on this machine too');
    expect(local).toContain('<code>http://localhost:port</code>');
  });

  it('names the renewal choice a new payment window', async () => {
    const page = (await app.inject({ method: 'GET', url: '/portal' })).body;
    expect(page).toMatch(/<label for="renew-expires" class="inline">New payment window<\/label>/);
  });

  it('redirects /portal/ to /portal', async () => {
    const response = await app.inject({ method: 'GET', url: '/portal/' });
    expect(response.statusCode).toBe(301);
    expect(response.headers.location).toBe('/portal');
  });

  it('keeps the pages out of the OpenAPI document', async () => {
    const paths = Object.keys(
      (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, unknown> }>().paths,
    );
    expect(paths.some((path) => path.startsWith('/portal/api/'))).toBe(true);
    expect(paths.filter((path) => path.startsWith('/portal') && !path.startsWith('/portal/api/'))).toEqual([]);
  });
});

describe('portal assets', () => {
  it('serves the script, the stylesheet and the icon with their content types', async () => {
    const script = await app.inject({ method: 'GET', url: '/portal/assets/app.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    for (const sheet of ['portal.css', 'statement.css']) {
      const style = await app.inject({ method: 'GET', url: `/portal/assets/${sheet}` });
      expect(style.statusCode).toBe(200);
      expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    }
    const icon = await app.inject({ method: 'GET', url: '/portal/assets/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
  });

  it('serves the browser code as one bundled module that imports and fetches nothing else', async () => {
    const response = await app.inject({ method: 'GET', url: '/portal/assets/app.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.body).not.toMatch(/\bimport\s*[\s{*'"(]/);
    // The SVG namespace is a name, never fetched.
    expect(response.body.replaceAll('http://www.w3.org/2000/svg', '')).not.toMatch(/https?:\/\/(?!localhost)/);
    // The modules it was bundled from are not served one by one.
    for (const file of ['dom.js', 'wallet.js', 'authorization.js'])
      expect((await app.inject({ method: 'GET', url: `/portal/assets/${file}` })).statusCode, file).toBe(404);
  });

  it('answers a matching If-None-Match with 304', async () => {
    const first = await app.inject({ method: 'GET', url: '/portal/assets/portal.css' });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await app.inject({
      method: 'GET',
      url: '/portal/assets/portal.css',
      headers: { 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('answers unknown files and paths outside the folder with the one 404 body', async () => {
    for (const url of [
      '/portal/assets/nope.js',
      '/portal/assets/..%2Fportal.routes.ts',
      '/portal/assets/portal.page.ts',
      '/portal/assets/app.ts',
      '/portal/assets/',
    ]) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json().code).toBe('not_found');
    }
  });
});

describe('the browser sign-in message', () => {
  it('checksums addresses exactly like viem (EIP-55)', () => {
    for (let i = 0; i < 50; i++) {
      const address = newWallet().address;
      expect(clientSiwe.checksumAddress(address.toLowerCase())).toBe(getAddress(address));
    }
  });

  it('writes the same text as viem and signs in through /auth/verify', async () => {
    const wallet = newWallet();
    const { nonce } = (await app.inject({ method: 'GET', url: '/auth/nonce' })).json<{ nonce: string }>();
    const fields = {
      domain: new URL(BASE_URL).host,
      statement: 'Sign in to the Invoice Service portal.',
      uri: `${BASE_URL}/portal`,
      version: '1' as const,
      chainId: 84532,
      nonce,
      issuedAt: new Date(),
    };
    // Wallets hand out lowercase addresses; the message must carry the checksummed form.
    const message = clientSiwe.createSiweMessage({ ...fields, address: wallet.address.toLowerCase() });
    expect(message).toBe(viemSiweMessage({ ...fields, address: wallet.address }));
    const response = await app.inject({
      method: 'POST',
      url: '/auth/verify',
      headers: { origin: ORIGIN },
      payload: { message, signature: await wallet.signMessage({ message }) },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().address).toBe(wallet.address.toLowerCase());
  });
});
