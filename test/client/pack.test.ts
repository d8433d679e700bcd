import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { signedHeaders, webhookBody } from '../../src/modules/webhooks/webhook.js';
import { clientWorkspace, startClientApp } from '../support/client-app.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGE_DIR = path.join(ROOT, 'packages/client');
const service = await startClientApp();

const temp = mkdtempSync(path.join(os.tmpdir(), 'client-pack-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** `npm pack` of `dir` into the temp directory; returns the tarball's path. */
async function pack(dir: string, ...flags: string[]): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--pack-destination', temp, ...flags, dir], { cwd: PACKAGE_DIR });
  return path.join(temp, stdout.trim().split('\n').at(-1)!);
}

/** Where the package's own openapi-fetch is installed, and the one package it needs. */
function dependencyDirs(): string[] {
  const fromPackage = createRequire(path.join(PACKAGE_DIR, 'package.json'));
  const fetchDir = path.dirname(fromPackage.resolve('openapi-fetch/package.json'));
  const helpersDir = path.dirname(
    createRequire(path.join(fetchDir, 'package.json')).resolve('openapi-typescript-helpers/package.json'),
  );
  return [fetchDir, helpersDir];
}

describe('the packed client package', () => {
  it('installs into a fresh project, type-checks its use, and creates, verifies and reads the feed with plain node', async () => {
    // Packing builds dist/ (prepack). Its dependency is packed from the copy installed here, so the
    // fresh project installs with no registry.
    const dependencies = await Promise.all(dependencyDirs().map((dir) => pack(dir, '--ignore-scripts')));
    const tarballs = [await pack(PACKAGE_DIR), ...dependencies];
    const project = path.join(temp, 'shop');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module' }));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', ...tarballs], { cwd: project });
    expect(readdirSync(path.join(project, 'node_modules/@invoice-service/client/dist'))).toContain('index.d.ts');

    copyFileSync(path.join(ROOT, 'test/client/fixtures/packed-usage.ts'), path.join(project, 'usage.ts'));
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [path.join(ROOT, 'node_modules/@types')],
          outDir: 'out',
        },
        include: ['usage.ts'],
      }),
    );
    // Fails on a type error, and on an @ts-expect-error the packed types no longer produce.
    await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: project,
    });

    const workspace = await clientWorkspace(service);
    const secret = 'whsec_packed-test-secret';
    const body = JSON.stringify(
      webhookBody(workspace.workspaceId, { id: '7', type: 'payment_intent.succeeded', at: new Date(), data: {} }),
    );
    const input = { ...workspace, webhook: { secret, body, headers: signedHeaders(secret, '7', body, new Date()) } };
    const { stdout } = await run(process.execPath, ['out/usage.js'], {
      cwd: project,
      env: { ...process.env, CLIENT_INPUT: JSON.stringify(input) },
    });
    const seen = JSON.parse(stdout) as {
      invoice: { id: string; number: string; status: string };
      event: { id: string; type: string };
      tampered: string;
      feed: { id: string; type: string; invoiceId?: string }[];
    };

    expect(seen.invoice).toEqual({ id: expect.stringMatching(/^inv_/), number: 'INV-000001', status: 'open' });
    const stored = await service.app.inject({
      method: 'GET',
      url: `/w/${workspace.workspaceId}/v1/invoices/${seen.invoice.id}`,
      headers: { authorization: `Bearer ${workspace.apiKey}` },
    });
    expect(stored.json()).toMatchObject({ externalId: 'packed-order', amount: '12.500000' });
    expect(seen.event).toEqual({ id: '7', type: 'payment_intent.succeeded' });
    expect(seen.tampered).toBe('signature_mismatch');
    expect(seen.feed).toEqual([{ id: '1', type: 'invoice.created', invoiceId: seen.invoice.id }]);
  }, 300_000);
});
