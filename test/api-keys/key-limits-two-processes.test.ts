import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { freePort, signInOverHttp, startService, type ServiceProcess } from '../support/service-process.js';

const database = await createTestDatabase();
const databaseUrl = database.url;
const basePort = await freePort();
const publicBaseUrl = `http://localhost:${basePort}`;

const services: ServiceProcess[] = [];
afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
});

async function start(portNumber?: number): Promise<ServiceProcess> {
  const service = await startService({
    DATABASE_URL: databaseUrl,
    PUBLIC_BASE_URL: publicBaseUrl,
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'invoice-proc-')),
    ...(portNumber ? { PORT: String(portNumber) } : {}),
  });
  services.push(service);
  return service;
}

it('creates at most 3 keys an hour when creations race on two server processes', { timeout: 120_000 }, async () => {
  const [first, second] = await Promise.all([start(basePort), start()]);
  const urls = [`http://localhost:${basePort}`, `http://localhost:${new URL(second!.baseUrl).port}`];
  expect(first).toBeDefined();

  const headers = await signInOverHttp(urls[0]!, publicBaseUrl);

  const workspace = await fetch(`${urls[1]}/portal/api/workspaces`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Race' }),
  });
  const { id } = (await workspace.json()) as { id: string };

  const statuses = await Promise.all(
    Array.from({ length: 12 }, async (_, i) => {
      const response = await fetch(`${urls[i % 2]}/portal/api/w/${id}/keys`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `key ${i}`, permissions: ['billing:read'] }),
      });
      return response.status;
    }),
  );
  expect(statuses.filter((status) => status === 201)).toHaveLength(3);
  expect(statuses.filter((status) => status === 429)).toHaveLength(9);
  const stored = await database.db.selectFrom('api_keys').where('workspace_id', '=', id).select('id').execute();
  expect(stored).toHaveLength(3);
});
