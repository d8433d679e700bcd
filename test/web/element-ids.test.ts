import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ids as checkoutIds, statusNoticeIds } from '../../src/web/checkout/checkout.ids.js';
import { renderCheckoutPage, type CheckoutDetails } from '../../src/web/checkout/checkout.page.js';
import { ids as portalIds, profileFieldIds, secretBoxIds } from '../../src/web/portal/portal.ids.js';
import { renderPortalHome } from '../../src/web/portal/portal.page.js';

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

const network = {
  chainId: 84532,
  token: `0x${'1'.repeat(40)}`,
  tokenName: 'USDC',
  tokenVersion: '2',
  confirmations: 1,
  paymentUri: `ethereum:0x${'1'.repeat(40)}@84532/transfer?address=0x${'2'.repeat(40)}&uint256=1000000`,
};
const openInvoice: CheckoutDetails = {
  invoiceId: 'inv_test',
  number: 'INV-000001',
  merchantName: 'Shop',
  merchantDescription: '',
  status: 'open',
  amount: '1.000000',
  currency: 'USDC',
  recipient: `0x${'2'.repeat(40)}`,
  recipientChanged: false,
  expiresAt: '2030-01-01T01:00:00.000Z',
  serverTime: '2030-01-01T00:00:00.000Z',
  linkVersion: 1,
  authorizationNonce: `0x${'3'.repeat(64)}`,
  networks: [
    { ...network, name: 'base-sepolia' },
    { ...network, name: 'other', chainId: 31337 },
  ],
  successUrl: null,
  cancelUrl: null,
  payment: null,
  receipt: null,
};

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
