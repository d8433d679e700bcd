import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ids as checkoutIds, statusNoticeIds } from '../../src/web/checkout/checkout.ids.js';
import { renderCheckoutPage } from '../../src/web/checkout/checkout.page.js';
import { ids as portalIds, profileFieldIds, secretBoxIds } from '../../src/web/portal/portal.ids.js';
import { renderPortalHome } from '../../src/web/portal/portal.page.js';
import { DETAILS_NETWORK, openInvoiceDetails } from '../support/checkout-details.js';

const root = path.resolve(import.meta.dirname, '../..');
const filesOf = (dir: string): string[] =>
  readdirSync(path.join(root, dir))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(dir, name));

/** Every id="…" a page renders, with how often. */
function renderedIds(page: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [, id = ''] of page.matchAll(/\sid="([^"]+)"/g)) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

const PORTAL_SHARED = [
  ...Object.values(portalIds),
  ...(['workspace', 'profile'] as const).flatMap((prefix) => Object.values(profileFieldIds(prefix))),
  ...(['key', 'webhook'] as const).flatMap((prefix) => Object.values(secretBoxIds(prefix))),
];
const CHECKOUT_SHARED = [...Object.values(checkoutIds), ...Object.values(statusNoticeIds)];

const openInvoice = openInvoiceDetails({
  networks: [DETAILS_NETWORK, { ...DETAILS_NETWORK, name: 'other', chainId: 31337 }],
});

describe('element ids shared by a page and its script', () => {
  it('are all rendered by the portal page, each once', () => {
    const rendered = renderedIds(
      renderPortalHome({ config: { origin: 'http://localhost', chainIds: [84532] }, networks: [], demoWallet: true }),
    );
    for (const id of PORTAL_SHARED) expect(rendered.get(id), id).toBe(1);
    // The JSON config block is a <script> with an id too.
    expect(PORTAL_SHARED).toContain(portalIds.portalConfig);
  });

  it('are all rendered by the checkout page of an open invoice, each once', () => {
    const rendered = renderedIds(renderCheckoutPage(openInvoice, { workspaceId: 'ws_test', demoWallet: false }));
    for (const id of CHECKOUT_SHARED) expect(rendered.get(id), id).toBe(1);
  });

  it('are spelled only in the ids modules: no lookup by a literal id, no literal id in the markup', () => {
    const shared = new Set<string>([...PORTAL_SHARED, ...CHECKOUT_SHARED]);
    const browser = ['src/web/portal/client', 'src/web/checkout/client'].flatMap(filesOf);
    const markup = [
      ...filesOf('src/web/portal/sections'),
      'src/web/portal/portal.layout.ts',
      'src/web/portal/portal.page.ts',
      'src/web/checkout/checkout.page.ts',
      'src/web/checkout/checkout.receipt.ts',
    ];
    const offences: string[] = [];
    for (const file of browser) {
      const text = readFileSync(path.join(root, file), 'utf8');
      for (const [call] of text.matchAll(/\b(?:byId|getElementById)\(\s*['"`]|\$\(\s*['"`]/g))
        offences.push(`${file}: ${call}`);
    }
    for (const file of markup) {
      const text = readFileSync(path.join(root, file), 'utf8');
      for (const [, attribute = '', id = ''] of text.matchAll(
        /\s(id|for|aria-labelledby|aria-describedby|data-copy-from|data-copy)="([a-z0-9-]+)"/g,
      ))
        if (shared.has(id)) offences.push(`${file}: ${attribute}="${id}"`);
    }
    expect(offences).toEqual([]);
  });
});
