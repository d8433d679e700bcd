import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../support/app.js';
import { expectRawContract, parseRaw, sendRaw } from '../support/raw-http.js';

// Short limits so the slow-client test takes seconds; the defaults are 10 s and 30 s.
const { app } = await createTestApp({ HEADERS_TIMEOUT_SECONDS: '2', REQUEST_TIMEOUT_SECONDS: '3' });
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as net.AddressInfo).port;

const raw = (request: string | Buffer) => sendRaw(port, request);

describe('errors the router and the HTTP parser raise keep the error contract', () => {
  it('a percent-encoding that is not UTF-8: 400 invalid_url', async () => {
    expectRawContract(
      await raw('GET /w/%ff/v1/billing HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'),
      400,
      'invalid_url',
    );
  });

  it('a path segment over 100 characters: 414 uri_too_long', async () => {
    expectRawContract(
      await raw(`GET /w/${'a'.repeat(150)}/v1/billing HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`),
      414,
      'uri_too_long',
    );
  });

  it('20 KB of headers: 431 headers_too_large', async () => {
    expectRawContract(
      await raw(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      431,
      'headers_too_large',
    );
  });

  it('Content-Length together with Transfer-Encoding: 400 invalid_request', async () => {
    const request =
      'POST /auth/verify HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n';
    expectRawContract(await raw(request), 400, 'invalid_request');
  });
});

describe('slow clients', () => {
  it('cuts a body trickled one byte a second once the request timeout passes', async () => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /auth/verify HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost:3000\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n',
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
    expectRawContract(parseRaw(Buffer.concat(chunks).toString('latin1')), 408, 'request_timeout');
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
