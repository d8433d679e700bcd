import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { buildApp } from '../../src/main/app.js';
import { createServices } from '../../src/main/services.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestDatabase } from '../support/database.js';
import { ORIGIN, createKey, createWorkspace, signIn, newWallet } from '../support/app.js';

it('logs every request in one line at debug with its request id, and never a key, a cookie or a query string', async () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const database = await createTestDatabase();
  const config = loadConfig({ PUBLIC_BASE_URL: ORIGIN });
  const app = await buildApp(createServices(config, database.db, new ManualClock()), {
    logger: { level: 'debug', stream },
  });
  const cookie = await signIn(app, newWallet());
  const workspaceId = await createWorkspace(app, cookie);
  const key = (await createKey(app, cookie, workspaceId, ['billing:read'])).json<{ secret: string }>().secret;

  await app.inject({
    method: 'GET',
    url: `/w/${workspaceId}/v1/billing`,
    headers: { authorization: `Bearer ${key}`, 'x-request-id': 'trace-billing-1' },
  });
  await app.inject({
    method: 'GET',
    url: `/w/${workspaceId}/v1/billing?api_key=${key}`,
    headers: { 'x-request-id': 'trace-query-1' },
  });
  await app.close();

  const records = lines.map(
    (line) =>
      JSON.parse(line) as {
        requestId?: string;
        reqId?: string;
        msg: string;
        level: number;
        req?: { path?: string };
        res?: { statusCode?: number };
      },
  );
  const traced = records.filter((record) => (record.requestId ?? record.reqId) === 'trace-billing-1');
  expect(traced.map((record) => record.msg)).toEqual(['request completed']);
  // pino's debug level: below info, so `LOG_LEVEL=info` (the default) shows no line per request.
  expect(traced[0]?.level).toBe(20);
  expect(traced[0]?.req?.path).toBe(`/w/${workspaceId}/v1/billing`);
  expect(traced[0]?.res?.statusCode).toBe(200);
  expect(records.some((record) => (record.requestId ?? record.reqId) === 'trace-query-1')).toBe(true);
  const all = lines.join('\n');
  expect(all).not.toContain(key);
  expect(all).not.toContain(key.split('_')[2]);
  expect(all).not.toContain(cookie.split('=')[1]);
  expect(all).not.toContain('api_key=');
});
