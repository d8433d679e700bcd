import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../support/app.js';
import { expectCommonHeaders, expectRawContract, parseRaw, readUntilClose, sendRaw } from '../support/raw-http.js';

// Short limits so the slow-client test takes seconds; the defaults are 10 s and 30 s. Public over https,
// so that every answer, made wherever, must carry Strict-Transport-Security.
const PUBLIC_BASE_URL = 'https://pay.example.com';
const { app } = await createTestApp({ HEADERS_TIMEOUT_SECONDS: '2', REQUEST_TIMEOUT_SECONDS: '3', PUBLIC_BASE_URL });
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as net.AddressInfo).port;

const raw = (request: string | Buffer) => sendRaw(port, request);
const https = { https: true };

describe('errors the router and the HTTP parser raise keep the error contract', () => {
  it('a percent-encoding that is not UTF-8: 400 invalid_url', async () => {
    expectRawContract(
      await raw('GET /w/%ff/v1/billing HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'),
      400,
      'invalid_url',
      https,
    );
  });

  it('a path segment over 100 characters: 414 uri_too_long', async () => {
    expectRawContract(
      await raw(`GET /w/${'a'.repeat(150)}/v1/billing HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`),
      414,
      'uri_too_long',
      https,
    );
  });

  it('20 KB of headers: 431 headers_too_large', async () => {
    expectRawContract(
      await raw(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      431,
      'headers_too_large',
      https,
    );
  });

  it('Content-Length together with Transfer-Encoding: 400 invalid_request', async () => {
    const request =
      'POST /auth/verify HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n';
    expectRawContract(await raw(request), 400, 'invalid_request', https);
  });
});

describe('what Node would refuse on its own is answered in the contract', () => {
  it('an Expect other than 100-continue: 417 expectation_failed, then closed', async () => {
    const request =
      'POST /w/ws_0000000000000000000000/v1/invoices HTTP/1.1\r\nHost: pay.example.com\r\nExpect: foo\r\n' +
      'X-Request-ID: expect-test-1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}';
    const response = await raw(request);
    expectRawContract(response, 417, 'expectation_failed', { ...https, requestId: 'expect-test-1' });
    expect(response.headers.connection).toBe('close');
  });

  it('Expect: 100-continue is still served: 100 Continue, then the answer', async () => {
    const request =
      'GET /healthz HTTP/1.1\r\nHost: pay.example.com\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n';
    const response = await raw(request);
    expect(response.status).toBe(100);
    const answer = parseRaw(response.text.slice(response.text.indexOf('\r\n\r\n') + 4));
    expect(answer.status).toBe(200);
    expectCommonHeaders(answer.headers, https);
  });

  it('an HTTP/1.1 request without Host: 400 invalid_request', async () => {
    expectRawContract(await raw('GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'), 400, 'invalid_request', https);
  });

  it('an HTTP/1.0 request may leave Host out', async () => {
    const response = await raw('GET /healthz HTTP/1.0\r\n\r\n');
    expect(response.status).toBe(200);
    expectCommonHeaders(response.headers, https);
  });

  it('CONNECT: 405 method_not_allowed with Allow, then closed', async () => {
    const response = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expectRawContract(response, 405, 'method_not_allowed', https);
    expect(response.headers.allow).toBe('GET, HEAD, POST, PUT, PATCH, DELETE');
  });

  it('a method HTTP does not know: 400 invalid_request', async () => {
    expectRawContract(
      await raw('BREW /healthz HTTP/1.1\r\nHost: pay.example.com\r\n\r\n'),
      400,
      'invalid_request',
      https,
    );
  });
});

describe('routed answers carry the same headers', () => {
  it('JSON answers: nosniff and no-store', async () => {
    for (const path of ['/healthz', '/openapi.json', '/nowhere']) {
      const response = await raw(`GET ${path} HTTP/1.1\r\nHost: pay.example.com\r\nConnection: close\r\n\r\n`);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expectCommonHeaders(response.headers, https);
    }
  });

  it('the API reference: nosniff, and kept only until checked again', async () => {
    const response = await raw('GET /docs HTTP/1.1\r\nHost: pay.example.com\r\nConnection: close\r\n\r\n');
    expect(response.status).toBe(200);
    expectCommonHeaders(response.headers, https);
    expect(response.headers['cache-control']).toBe('no-cache');
  });
});

describe('slow clients', () => {
  it('cuts a body trickled one byte a second once the request timeout passes', async () => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /auth/verify HTTP/1.1\r\nHost: localhost\r\nOrigin: https://pay.example.com\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n',
    );
    const trickle = setInterval(() => socket.writable && socket.write('{'), 1000);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('close', resolve));
    clearInterval(trickle);
    const elapsed = Date.now() - started;
    // Cut by the request timeout (3 s, checked every second), long before the 100 s the body would take.
    expect(elapsed).toBeLessThan(15_000);
    expectRawContract(parseRaw(Buffer.concat(chunks).toString('latin1')), 408, 'request_timeout', https);
  });

  it('cuts a client that never finishes its headers', async () => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    const trickle = setInterval(() => socket.writable && socket.write('X-A: b\r\n'), 500);
    socket.on('error', () => {});
    socket.resume();
    await new Promise((resolve) => socket.once('close', resolve));
    clearInterval(trickle);
    // The headers would never end; the headers timeout (2 s) closes the connection.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

/** A promise and the function that resolves it. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('closing', () => {
  it('a request that arrives while the app closes: 503 service_unavailable in the contract, then closed', async () => {
    const { app: closing } = await createTestApp({ PUBLIC_BASE_URL });
    // A request held in progress keeps its connection open through the close; a second request on that
    // connection is sent once the close has begun, and read while the first is still held.
    const entered = deferred();
    const release = deferred();
    const closeBegun = deferred();
    closing.get('/held', async () => {
      entered.resolve();
      await release.promise;
      return { held: true };
    });
    closing.addHook('preClose', async () => closeBegun.resolve());
    await closing.listen({ port: 0, host: '127.0.0.1' });
    const secondRead = deferred();
    closing.server.on('request', (request: IncomingMessage) => request.url === '/healthz' && secondRead.resolve());

    const socket = net.connect((closing.server.address() as net.AddressInfo).port, '127.0.0.1');
    const answers = readUntilClose(socket);
    socket.write('GET /held HTTP/1.1\r\nHost: pay.example.com\r\n\r\n');
    await entered.promise;
    const closed = closing.close();
    await closeBegun.promise;
    socket.write('GET /healthz HTTP/1.1\r\nHost: pay.example.com\r\n\r\n');
    await secondRead.promise;
    release.resolve();

    const { text } = await answers;
    const second = parseRaw(text.slice(text.indexOf('HTTP/1.1', 1)));
    expect(parseRaw(text).status).toBe(200);
    expectRawContract(second, 503, 'service_unavailable', https);
    expect(second.headers['retry-after']).toBe('1');
    await closed;
  });
});
