import type { LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { buildApp } from '../../src/main/app.js';
import { NO_CHAIN, createServices } from '../../src/main/services.js';
import { ProcessRegistry } from '../../src/modules/service-processes/index.js';
import { ManualClock } from '../../src/shared/clock.js';
import { BASE_URL, GENEROUS_LIMITS, TEST_OPERATOR_WALLET, merchant } from '../support/app.js';
import { createTestDatabase } from '../support/database.js';

const database = await createTestDatabase();
const { db } = database;
// This process, registered as the service registers an api process.
const registry = new ProcessRegistry({ db, role: 'api' });
await registry.start();
afterAll(() => registry.stop());
// 6 a minute: a burst of 10 s worth, at least 10; the next token comes 10 s later, after any test here.
const config = loadConfig({
  PUBLIC_BASE_URL: BASE_URL,
  OPERATOR_WALLET: TEST_OPERATOR_WALLET,
  ...GENEROUS_LIMITS,
  API_RATE_LIMIT_PER_MINUTE: '6',
  CHECKOUT_RATE_LIMIT_PER_MINUTE: '6',
});
const app = await buildApp(createServices(config, db, new ManualClock(), NO_CHAIN, undefined, registry), {
  logger: false,
});
afterAll(() => app.close());

const CHECKOUT = '/w/ws_00000000000000000000000000/i/inv_00000000000000000000000000';

interface Caller {
  send(): Promise<LightMyRequestResponse>;
  /** What the caller gets while under the limit. */
  answered: number;
}

/** Requests until the first 429; how many were answered before it. */
async function allowedBefore429(caller: Caller): Promise<number> {
  for (let allowed = 0; allowed <= 100; allowed += 1) {
    const response = await caller.send();
    if (response.statusCode === 429) {
      expect(response.json()).toMatchObject({ code: 'rate_limited', requestId: response.headers['x-request-id'] });
      expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      return allowed;
    }
    expect(response.statusCode).toBe(caller.answered);
  }
  throw new Error('never rate-limited');
}

const checkoutFrom = (address: string): Caller => ({
  send: () => app.inject({ method: 'GET', url: CHECKOUT, remoteAddress: address }),
  answered: 404,
});

async function apiWithNewKey(): Promise<Caller> {
  const shop = await merchant(app, ['billing:read']);
  return {
    send: () =>
      app.inject({
        method: 'GET',
        url: `/w/${shop.workspaceId}/v1/billing`,
        headers: { authorization: `Bearer ${shop.apiKey}` },
      }),
    answered: 200,
  };
}

const gauge = async () =>
  /^live_http_processes (\d+)$/m.exec((await app.inject({ method: 'GET', url: '/metrics' })).body)?.[1];

describe('rate limits shared by the live HTTP processes', () => {
  it('alone, a process allows the whole burst; when it sees two processes, about half of it', async () => {
    expect(await gauge()).toBe('1');
    expect(await allowedBefore429(checkoutFrom('203.0.113.1'))).toBe(10);
    expect(await allowedBefore429(await apiWithNewKey())).toBe(10);

    // Another api process starts on the same database; this one sees it at its next heartbeat.
    const other = new ProcessRegistry({ db, role: 'api' });
    await other.start();
    try {
      await registry.refresh();
      expect(await gauge()).toBe('2');
      expect(await allowedBefore429(checkoutFrom('203.0.113.2'))).toBe(5);
      expect(await allowedBefore429(await apiWithNewKey())).toBe(5);
    } finally {
      await other.stop();
    }

    // It stops: the whole budget is this process's again.
    await registry.refresh();
    expect(await gauge()).toBe('1');
    expect(await allowedBefore429(checkoutFrom('203.0.113.3'))).toBe(10);
  });
});
