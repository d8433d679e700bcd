import { execFileSync } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import type { Resolver } from '../../src/modules/webhook-endpoint/dns-resolver.js';
import { postWebhook, type SendOptions } from '../../src/modules/webhooks/webhook-http.js';

interface Received {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

interface Receiver {
  readonly port: number;
  readonly origin: string;
  readonly requests: Received[];
  readonly server: http.Server;
}

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve).closeAllConnections())),
  );
});

/** A real loopback receiver that records every request in full before `answer` handles it. */
async function receiver(
  answer: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  {
    host = '127.0.0.1',
    port = 0,
    server = http.createServer(),
  }: { host?: string; port?: number; server?: http.Server } = {},
): Promise<Receiver> {
  const requests: Received[] = [];
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  servers.push(server);
  const bound = (server.address() as AddressInfo).port;
  return { port: bound, origin: `http://${host}:${bound}`, requests, server };
}

const status =
  (code: number, headers: http.OutgoingHttpHeaders = {}) =>
  (_: http.IncomingMessage, res: http.ServerResponse) =>
    res.writeHead(code, headers).end();

const HEADERS = { 'content-type': 'application/json', 'x-payment-event-id': 'evt_1', 'x-payment-signature': 'v1=abc' };
const send = (url: string, options: Partial<SendOptions> = {}, body = '{"id":"evt_1"}') =>
  postWebhook({ url, headers: HEADERS, body }, { allowPrivate: true, ...options });
const answers = (...addresses: string[]) => {
  const calls: string[] = [];
  const resolve: Resolver = async (hostname) => {
    calls.push(hostname);
    const address = addresses[Math.min(calls.length, addresses.length) - 1] ?? '';
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  return { calls, resolve };
};

describe('postWebhook against a loopback receiver (private receivers allowed)', () => {
  it.each([200, 201, 204])('acknowledges a %i with its status', async (code) => {
    const hook = await receiver(status(code));
    expect(await send(`${hook.origin}/hook`)).toMatchObject({ ok: true, status: code });
  });

  it('sends exactly the given headers and body bytes, as a POST to the path and query', async () => {
    const hook = await receiver(status(200));
    const body = '{"id":"evt_1","note":"café ✓ 💸"}';
    await send(`${hook.origin}/in/hook?x=1`, {}, body);
    const [request] = hook.requests;
    expect(request).toMatchObject({ method: 'POST', url: '/in/hook?x=1', headers: HEADERS });
    expect(request?.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    // Only what HTTP/1.1 itself needs is added.
    const added = Object.keys(request?.headers ?? {}).filter((name) => !(name in HEADERS));
    expect(added.sort()).toEqual(['connection', 'content-length', 'host']);
    expect(request?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it.each([400, 404, 410, 500, 503])('reports a %i as http_status with the status', async (code) => {
    const hook = await receiver(status(code));
    expect(await send(`${hook.origin}/hook`)).toMatchObject({ ok: false, status: code, error: 'http_status' });
  });

  it.each([301, 302, 303, 307, 308])('never follows a %i redirect', async (code) => {
    const target = await receiver(status(200));
    const hook = await receiver(status(code, { location: `${target.origin}/elsewhere` }));
    expect(await send(`${hook.origin}/hook`)).toMatchObject({ ok: false, status: code, error: 'redirect' });
    expect(target.requests).toHaveLength(0);
  });

  it('times out a receiver that never answers', async () => {
    const hook = await receiver(() => {});
    const outcome = await send(`${hook.origin}/hook`, { timeoutMs: 300 });
    expect(outcome).toMatchObject({ ok: false, error: 'timeout' });
    expect(outcome).not.toHaveProperty('status');
  });

  it('ends as a timeout when the caller aborts (shutdown)', async () => {
    const hook = await receiver(() => {});
    const controller = new AbortController();
    const pending = send(`${hook.origin}/hook`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toMatchObject({ ok: false, error: 'timeout' });
  });

  it('reports a receiver that drops the connection as connection_reset', async () => {
    const hook = await receiver((req) => req.socket.destroy());
    expect(await send(`${hook.origin}/hook`)).toMatchObject({ ok: false, error: 'connection_reset' });
  });

  it('reports a closed port as connection_refused', async () => {
    const hook = await receiver(status(200));
    await new Promise((resolve) => hook.server.close(resolve));
    expect(await send(`${hook.origin}/hook`)).toMatchObject({ ok: false, error: 'connection_refused' });
  });

  it('does not read a huge (endless) response body', async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const hook = await receiver((_, res) => {
      res.writeHead(200);
      const pump = () => {
        while (!res.destroyed && res.write(Buffer.alloc(64 * 1024))) {
          /* fill until back-pressure */
        }
      };
      res.on('drain', pump).on('close', () => closed());
      pump();
    });
    expect(await send(`${hook.origin}/hook`)).toMatchObject({ ok: true, status: 200 });
    await connectionClosed;
  });

  it('has closed its connection by the time it returns, instead of keeping it alive', async () => {
    const hook = await receiver(status(204));
    // undici announces every socket it connects; each must be destroyed once the attempt is over.
    const sockets: Socket[] = [];
    const onConnected = (message: unknown) => sockets.push((message as { socket: Socket }).socket);
    diagnostics.subscribe('undici:client:connected', onConnected);
    try {
      expect(await send(`${hook.origin}/hook`)).toMatchObject({ ok: true });
    } finally {
      diagnostics.unsubscribe('undici:client:connected', onConnected);
    }
    expect(sockets).toHaveLength(1);
    expect(sockets.every((socket) => socket.destroyed)).toBe(true);
  });
});

describe('postWebhook name resolution', () => {
  it('resolves once per attempt and connects to that answer, keeping the name as Host', async () => {
    // Same port on two loopback addresses: which one gets the request shows which answer was used.
    const first = await receiver(status(200));
    const second = await receiver(status(200), { host: '127.0.0.2', port: first.port });
    const dns = answers('127.0.0.1', '127.0.0.2');
    const url = `http://webhook.test:${first.port}/hook`;

    expect(await send(url, { resolve: dns.resolve })).toMatchObject({ ok: true });
    expect(dns.calls).toEqual(['webhook.test']);
    expect(first.requests.map((r) => r.headers.host)).toEqual([`webhook.test:${first.port}`]);
    expect(second.requests).toHaveLength(0);

    expect(await send(url, { resolve: dns.resolve })).toMatchObject({ ok: true });
    expect(dns.calls).toHaveLength(2);
    expect(first.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(1);
  });

  it('reports an unknown host as dns_failure', async () => {
    expect(await send('http://nonexistent.invalid/hook')).toMatchObject({ ok: false, error: 'dns_failure' });
  });

  it('reports a failing or empty resolver answer as dns_failure', async () => {
    const notFound: Resolver = () =>
      Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    expect(await send('http://webhook.test/hook', { resolve: notFound })).toMatchObject({
      ok: false,
      error: 'dns_failure',
    });
    expect(await send('http://webhook.test/hook', { resolve: async () => [] })).toMatchObject({
      ok: false,
      error: 'dns_failure',
    });
  });

  it('counts a resolver that never answers against the attempt timeout', async () => {
    const hanging: Resolver = () => new Promise(() => {});
    expect(await send('http://webhook.test/hook', { resolve: hanging, timeoutMs: 300 })).toMatchObject({
      ok: false,
      error: 'timeout',
    });
  });

  it('refuses a stored URL that no longer passes the endpoint rules, without resolving it', async () => {
    const dns = answers('8.8.8.8');
    const outcome = await send('http://hooks.example.com/hook', { allowPrivate: false, resolve: dns.resolve });
    expect(outcome).toMatchObject({ ok: false, error: 'blocked_destination' });
    expect(dns.calls).toHaveLength(0);
  });
});

describe('postWebhook over TLS', () => {
  it('reports https to a plain-http receiver as tls_error (OpenSSL: wrong version number)', async () => {
    const hook = await receiver(status(200));
    expect(await send(`https://127.0.0.1:${hook.port}/hook`)).toMatchObject({ ok: false, error: 'tls_error' });
    expect(hook.requests).toHaveLength(0);
  });

  it('sends the name as SNI and verifies the certificate (a self-signed one is refused)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'webhook-tls-'));
    try {
      // openssl ships with Debian and with the Node images; the certificate is valid for the name itself.
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=webhook.test',
          '-addext',
          'subjectAltName=DNS:webhook.test',
          '-keyout',
          path.join(dir, 'key.pem'),
          '-out',
          path.join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
      const context = tls.createSecureContext({
        key: readFileSync(path.join(dir, 'key.pem')),
        cert: readFileSync(path.join(dir, 'cert.pem')),
      });
      const serverNames: string[] = [];
      const server = https.createServer({
        SNICallback: (name, done) => {
          serverNames.push(name);
          done(null, context);
        },
      });
      const hook = await receiver(status(200), { server });
      const dns = answers('127.0.0.1');
      const outcome = await send(`https://webhook.test:${hook.port}/hook`, { resolve: dns.resolve });
      expect(outcome).toMatchObject({ ok: false, error: 'tls_error' });
      expect(serverNames).toEqual(['webhook.test']);
      expect(hook.requests).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
