import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, retryAfterMs } from '@invoice-service/client';
import { clientWorkspace, startClientApp } from '../support/client-app.js';

const service = await startClientApp();

/** What the proxy does with the next request: pass it on, pass it on and cut the connection before the answer, or answer itself. */
type Step = 'forward' | 'cut' | { status: number; retryAfter?: string };

/**
 * A loopback proxy in front of the service that misbehaves as told, one step per request (then it
 * forwards), and notes every request it gets.
 */
const proxy = {
  steps: [] as Step[],
  seen: [] as { method: string; path: string; idempotencyKey: string | undefined }[],
  origin: '',
};
const proxyServer = http.createServer((request, response) => {
  void (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const key = request.headers['idempotency-key'];
    proxy.seen.push({ method: request.method!, path: request.url!, idempotencyKey: key as string | undefined });
    const step = proxy.steps.shift() ?? 'forward';
    if (typeof step === 'object') {
      response
        .writeHead(step.status, {
          'content-type': 'application/json',
          ...(step.retryAfter !== undefined && { 'retry-after': step.retryAfter }),
        })
        .end(JSON.stringify({ code: 'unavailable', message: 'The proxy says no.', requestId: 'proxy' }));
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)),
    ) as Record<string, string>;
    const upstream = await fetch(`${service.origin}${request.url}`, {
      method: request.method!,
      headers,
      ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
    });
    const body = Buffer.from(await upstream.arrayBuffer());
    // The service acted and answered; the client never hears of it.
    if (step === 'cut') return void request.socket.destroy();
    response.writeHead(upstream.status, Object.fromEntries(upstream.headers)).end(body);
  })();
});
await new Promise<void>((resolve) => proxyServer.listen(0, '127.0.0.1', resolve));
proxy.origin = `http://127.0.0.1:${(proxyServer.address() as AddressInfo).port}`;
afterAll(() => new Promise<void>((resolve) => proxyServer.close(() => resolve())));

const workspace = await clientWorkspace(service);
/** Through the proxy, with short waits (Retry-After up to 2 s is honoured). */
const client = createClient({ ...workspace, baseUrl: proxy.origin, retry: { baseDelayMs: 1, maxDelayMs: 2000 } });
/** Straight to the service, to see what exists. */
const direct = createClient(workspace);

async function invoicesWith(externalId: string) {
  const found = [];
  for await (const invoice of direct.listInvoices()) if (invoice.externalId === externalId) found.push(invoice);
  return found;
}

beforeEach(() => {
  proxy.steps = [];
  proxy.seen = [];
});

describe('a create retried by the client', () => {
  it('keeps its generated Idempotency-Key when the connection drops after the service created the invoice', async () => {
    proxy.steps = ['cut'];
    const { data, response } = await client.POST('/invoices', { body: { amount: '12.50', externalId: 'order-cut' } });

    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    const keys = proxy.seen.map((request) => request.idempotencyKey);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).toBe(keys[0]);
    expect((await invoicesWith('order-cut')).map((invoice) => invoice.id)).toEqual([data!.id]);
  });

  it('waits out a 503 with Retry-After and sends the same key and body again', async () => {
    proxy.steps = [{ status: 503, retryAfter: '1' }];
    const { data, response } = await client.POST('/invoices', { body: { amount: '3', externalId: 'order-503' } });

    expect(response.status).toBe(201);
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.seen[1]!.idempotencyKey).toBe(proxy.seen[0]!.idempotencyKey);
    expect(data!.amount).toBe('3.000000');
    expect(await invoicesWith('order-503')).toHaveLength(1);
  });

  it("uses the caller's key when one is passed, on every attempt", async () => {
    proxy.steps = [{ status: 502 }, 'cut'];
    const key = `order-own-${Date.now()}`;
    const { response } = await client.POST('/invoices', {
      params: { header: { 'idempotency-key': key } },
      body: { amount: '1', externalId: 'order-own' },
    });

    expect(response.status).toBe(201);
    expect(proxy.seen.map((request) => request.idempotencyKey)).toEqual([key, key, key]);
    expect(await invoicesWith('order-own')).toHaveLength(1);
  });

  it('makes a new key for each new create', async () => {
    await client.POST('/invoices', { body: { amount: '1' } });
    await client.POST('/invoices', { body: { amount: '1' } });
    expect(new Set(proxy.seen.map((request) => request.idempotencyKey)).size).toBe(2);
  });

  it('gives up after the configured attempts and returns the last answer', async () => {
    proxy.steps = [{ status: 503 }, { status: 503 }, { status: 504 }, { status: 503 }];
    const { error, response } = await client.POST('/invoices', { body: { amount: '1', externalId: 'order-down' } });

    expect(response.status).toBe(503);
    expect(error).toMatchObject({ code: 'unavailable' });
    expect(proxy.seen).toHaveLength(4);
    expect(await invoicesWith('order-down')).toEqual([]);
  });
});

describe('what the client does not retry', () => {
  it('a 400: the same request would be refused again', async () => {
    const { error, response } = await client.POST('/invoices', { body: { amount: '1.1234567' } });
    expect(response.status).toBe(400);
    expect(error).toMatchObject({ code: expect.any(String), requestId: expect.any(String) });
    expect(proxy.seen).toHaveLength(1);
  });

  it('a 429 whose Retry-After is longer than maxDelayMs: the caller gets it at once', async () => {
    proxy.steps = [{ status: 429, retryAfter: '60' }];
    const { response } = await client.GET('/invoices');
    expect([response.status, response.headers.get('retry-after')]).toEqual([429, '60']);
    expect(proxy.seen).toHaveLength(1);
  });

  it('a POST without an Idempotency-Key on a 503 (it may have acted), but on a 429 (it did not)', async () => {
    const { data: invoice } = await direct.POST('/invoices', { body: { amount: '1' } });
    const cancel = () => client.POST('/invoices/{invoiceId}/cancel', { params: { path: { invoiceId: invoice!.id } } });

    proxy.steps = [{ status: 503 }];
    expect((await cancel()).response.status).toBe(503);
    expect(proxy.seen).toHaveLength(1);

    proxy.steps = [{ status: 429, retryAfter: '1' }];
    const { data } = await cancel();
    expect(data!.status).toBe('cancelled');
    expect(proxy.seen).toHaveLength(3);
  });

  it('anything with retry: false', async () => {
    proxy.steps = [{ status: 503 }];
    const once = createClient({ ...workspace, baseUrl: proxy.origin, retry: false });
    expect((await once.GET('/invoices')).response.status).toBe(503);
    expect(proxy.seen).toHaveLength(1);
  });
});

describe('reads', () => {
  it('retry a dropped connection and a 502 like creates', async () => {
    const { data: invoice } = await direct.POST('/invoices', { body: { amount: '2' } });
    proxy.steps = ['cut', { status: 502 }];
    const { data } = await client.GET('/invoices/{invoiceId}', { params: { path: { invoiceId: invoice!.id } } });
    expect(data!.id).toBe(invoice!.id);
    expect(proxy.seen.map((request) => request.method)).toEqual(['GET', 'GET', 'GET']);
  });
});

describe('a retry policy', () => {
  it('that would retry without end is refused when the client is made', () => {
    const options = { baseUrl: 'http://127.0.0.1:1', workspaceId: 'ws_x', apiKey: 'isk_x' };
    expect(() => createClient({ ...options, retry: { attempts: 0 } })).toThrow(TypeError);
    expect(() => createClient({ ...options, retry: { attempts: Number.NaN } })).toThrow(TypeError);
    expect(() => createClient({ ...options, retry: { maxDelayMs: Number.POSITIVE_INFINITY } })).toThrow(TypeError);
    expect(() => createClient({ ...options, retry: { attempts: undefined } })).not.toThrow();
  });
});

describe('Retry-After', () => {
  it('is read as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:02 GMT', now)).toBe(2000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    // Date.parse would read these as dates long past, that is, no wait at all.
    expect(retryAfterMs('1.5', now)).toBeUndefined();
    expect(retryAfterMs('2026', now)).toBe(2_026_000);
    expect(retryAfterMs('01/01/2026', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});
