import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { freePort, ROOT, startService } from '../support/service-process.js';
import { startTestReceiver } from '../support/webhook-receiver.js';

// The local demo as `npm start` runs it, at the default log level: what an operator reads.
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'invoice-log-'));
const service = await startService({
  PORT: String(port),
  PUBLIC_BASE_URL: origin,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'info',
  LOG_FORMAT: 'json',
  WEBHOOK_RETRY_SCHEDULE: '30',
});
afterAll(() => service.stop());
// The endpoint refuses every delivery: each attempt fails.
const receiver = await startTestReceiver(() => ({ status: 503 }));

const banner = service.output();
const apiKey = /Demo API key:\s+(\S+)/.exec(banner)?.[1];
const workspaceId = /Workspace:\s+(\S+)/.exec(banner)?.[1];
if (!apiKey || !workspaceId) throw new Error(`no demo key or workspace in the start banner:\n${banner}`);
const api = `${origin}/w/${workspaceId}/v1`;

async function call<T>(method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${api}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': `log-${route}-${Math.random()}`,
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** `npm run pay -- <url>`: the demo buyer pays with the unmodified x402 client. */
async function pay(url: string): Promise<void> {
  await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/pay.ts', url], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
  });
}

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** The lines at info or above printed so far (pino JSON: info is 30). */
const lines = (): LogLine[] =>
  service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.level >= 30);

async function lineWith(text: string): Promise<LogLine> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = lines().find((line) => line.msg.includes(text));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no log line with "${text}":\n${service.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('tells each business event in one line with its ids, and never a secret', { timeout: 120_000 }, async () => {
  const { secret: webhookSecret } = await call<{ secret: string }>('PUT', '/webhook', {
    endpoint: receiver.url,
    enabled: true,
  });
  const invoice = await call<{ id: string; number: string; url: string }>('POST', '/invoices', { amount: '2.5' });
  await pay(invoice.url);

  const paid = await lineWith('payment recorded');
  expect(paid.msg).toBe(`payment recorded: 2.500000 USDC for ${invoice.number} on base-sepolia`);
  expect(paid).toMatchObject({ workspaceId, invoiceId: invoice.id, network: 'base-sepolia' });
  expect(paid.paymentIntentId).toMatch(/^pi_/);
  expect(paid.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);

  const failedDelivery = await lineWith('webhook delivery of event');
  expect(failedDelivery.msg).toMatch(
    /^webhook delivery of event \d+ failed \(the endpoint answered 503, attempt 1\); next attempt in \d+ s$/,
  );
  expect(failedDelivery).toMatchObject({ workspaceId, attempt: 1, statusCode: 503, error: 'http_status' });
  await call('PUT', '/webhook', { enabled: false });
  expect(await lineWith('webhook delivery paused')).toMatchObject({ workspaceId, level: 40 });
  // The payment's delivery waits for its next attempt: resuming sends it at once.
  await call('PUT', '/webhook', { enabled: true });
  const resumed = await lineWith('webhook delivery resumed');
  expect(resumed.msg).toMatch(/^webhook delivery resumed: [1-9]\d* waiting deliveries are sent now$/);
  expect(resumed).toMatchObject({ workspaceId, level: 30 });

  const automation = await call<{ id: string }>('POST', '/automations', {
    name: 'Monthly',
    schedule: { every: 'month', startAt: new Date(Date.now() + 2_000).toISOString() },
    template: { amount: '1' },
  });
  const ran = await lineWith('automation created its invoice');
  expect(ran).toMatchObject({ workspaceId, automationId: automation.id });
  expect(ran.invoiceId).toMatch(/^inv_/);

  const { packages } = await call<{ packages: { id: string }[] }>('GET', '/billing');
  const purchase = await call<{ id: string; url: string }>('POST', '/credit-purchases', {
    packageId: packages[0]!.id,
  });
  await pay(purchase.url);
  const bought = await lineWith('credit purchase paid');
  expect(bought).toMatchObject({ workspaceId, creditPurchaseId: purchase.id });

  // One line per event: the payment of the invoice and the purchase's are each told once.
  expect(lines().filter((line) => line.msg.startsWith('payment recorded'))).toHaveLength(1);
  expect(lines().filter((line) => line.msg.startsWith('credit purchase paid'))).toHaveLength(1);
  // Requests are logged at debug only.
  expect(lines().some((line) => line.msg === 'request completed')).toBe(false);

  const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8')) as Record<string, unknown>;
  const keys = Object.values(demo).filter(
    (value): value is string => typeof value === 'string' && value.startsWith('0x'),
  );
  const log = lines()
    .map((line) => JSON.stringify(line))
    .join('\n');
  for (const secret of [apiKey, webhookSecret, ...keys.filter((key) => key.length === 66)])
    expect(log).not.toContain(secret);
});
