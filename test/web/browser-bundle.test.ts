import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bundleBrowserScript } from '../../src/web/browser-bundle.js';
import { CHECKOUT_ENTRY } from '../../src/web/checkout/checkout.assets.js';
import { DEMO_WALLET_ENTRY } from '../../src/web/demo-wallet/demo-wallet.routes.js';
import { PORTAL_ENTRY } from '../../src/web/portal/portal.assets.js';

/** Budget for the checkout's script, gzipped: a buyer on a slow phone connection loads it before paying. */
const CHECKOUT_GZIP_BUDGET = 20 * 1024;

/**
 * What a bundle may be made of: browser folders, the pages' element ids, the three pure modules the
 * checkout renders its words with (texts, chain names, amounts), and @noble/hashes. Anything else is
 * server code that leaked in.
 */
const ALLOWED_INPUT =
  /^(src\/web\/[a-z-]+\/client\/[a-z0-9-]+\.ts|src\/web\/[a-z-]+\/[a-z-]+\.ids\.ts|src\/web\/checkout\/checkout\.text\.ts|src\/chain\/chain-names\.ts|src\/shared\/money\.ts|node_modules\/@noble\/hashes\/.+\.js)$/;

describe('browser bundles', () => {
  it('keep the checkout within 20 KB of gzipped JavaScript (about 5 KB now)', async () => {
    const { code } = await bundleBrowserScript(CHECKOUT_ENTRY);
    const gzipped = gzipSync(code, { level: 9 }).length;
    expect(gzipped, `checkout.js is ${gzipped} bytes gzipped (${code.length} bytes minified)`).toBeLessThanOrEqual(
      CHECKOUT_GZIP_BUDGET,
    );
  });

  it('contain no server code: only browser files, the ids modules, the checkout texts and @noble/hashes', async () => {
    for (const entry of [PORTAL_ENTRY, CHECKOUT_ENTRY, DEMO_WALLET_ENTRY]) {
      const { inputs, code } = await bundleBrowserScript(entry);
      expect(
        inputs.filter((input) => !ALLOWED_INPUT.test(input)),
        entry,
      ).toEqual([]);
      // Type-only imports of the response schemas leave nothing behind.
      expect(code.toString()).not.toMatch(/@sinclair\/typebox|node:|fastify/);
    }
    const portal = await bundleBrowserScript(PORTAL_ENTRY);
    expect(portal.inputs).toContain('src/web/shared/client/authorization.ts');
    expect(portal.inputs.some((input) => input.startsWith('node_modules/@noble/hashes/'))).toBe(true);
  });

  it('are built once per process: every app built afterwards gets the same bundle', async () => {
    expect(bundleBrowserScript(PORTAL_ENTRY)).toBe(bundleBrowserScript(PORTAL_ENTRY));
    expect(await bundleBrowserScript(CHECKOUT_ENTRY)).toBe(await bundleBrowserScript(CHECKOUT_ENTRY));
  });
});
