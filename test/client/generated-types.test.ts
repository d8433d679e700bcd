import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateClientTypes } from '../../scripts/generate-client-types.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe("the client package's generated types", () => {
  it('are exactly what npm run client:generate makes from the current API document', async () => {
    const generated = await generateClientTypes();
    expect([...generated.keys()].sort()).toEqual([
      'packages/client/src/generated/api.ts',
      'packages/client/src/generated/operations.ts',
    ]);
    for (const [file, content] of generated) {
      const stale = `${file} differs from the API document: run \`npm run client:generate\` and commit the result`;
      expect(readFileSync(`${ROOT}${file}`, 'utf8') === content, stale).toBe(true);
    }
  });

  it('hold the merchant API only, from its base, without the workspace parameter', async () => {
    const api = (await generateClientTypes()).get('packages/client/src/generated/api.ts')!;
    const paths = [...api.matchAll(/^ {4}"(\/[^"]*)": \{$/gm)].map((match) => match[1]);
    expect(paths).toEqual(expect.arrayContaining(['/invoices', '/invoices/{invoiceId}', '/changes', '/webhook']));
    expect(paths.filter((path) => /^\/(w|portal|auth)\//.test(path!))).toEqual([]);
    // The workspace is in the client's base URL: no operation takes it as a path parameter (webhook
    // payloads still carry it as a field).
    const pathParameters = [...api.matchAll(/^\s*path: \{\n([^}]*)\}/gm)].map((match) => match[1]!);
    expect(pathParameters.length).toBeGreaterThan(0);
    expect(pathParameters.filter((block) => /workspaceId/.test(block))).toEqual([]);
  });
});
