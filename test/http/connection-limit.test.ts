import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp } from '../support/app.js';
import { expectRawContract, readUntilClose } from '../support/raw-http.js';

const { app } = await createTestApp({ MAX_CONNECTIONS_PER_IP: '3' });
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as net.AddressInfo).port;

const HEALTHZ = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n';

const opened: net.Socket[] = [];
afterEach(async () => {
  for (const socket of opened.splice(0)) socket.destroy();
  await until(async () => (await serverConnections()) === 0);
});

/** A connected socket that sends nothing, from `localAddress` (any address of 127/8 is loopback). */
async function idle(localAddress = '127.0.0.1'): Promise<net.Socket> {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  opened.push(socket);
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

/** Connections the server holds, admitted or being refused: a client's connect precedes the server's accept. */
function serverConnections(): Promise<number> {
  return new Promise((resolve, reject) =>
    app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    if (await condition()) return;
    await delay(10);
  }
  throw new Error('condition not met within 5 s');
}

async function idleConnections(count: number, localAddress?: string): Promise<net.Socket[]> {
  const before = await serverConnections();
  const sockets = await Promise.all(Array.from({ length: count }, () => idle(localAddress)));
  await until(async () => (await serverConnections()) === before + count);
  return sockets;
}

describe('connections per client address', () => {
  it('answers the connection past the limit 429 too_many_connections in the error contract and closes it', async () => {
    await idleConnections(3);
    const fourth = net.connect(port, '127.0.0.1');
    opened.push(fourth);
    const response = await readUntilClose(fourth);
    expectRawContract(response, 429, 'too_many_connections');
    expect(response.headers['retry-after']).toBe('5');
    expect(response.headers.connection).toBe('close');
  });

  it('never serves a request sent on a refused connection', async () => {
    await idleConnections(3);
    const fourth = net.connect(port, '127.0.0.1', () => fourth.write(HEALTHZ));
    opened.push(fourth);
    const response = await readUntilClose(fourth);
    expectRawContract(response, 429, 'too_many_connections');
    expect(response.text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });

  it('serves a new connection once one of the three is closed', async () => {
    const [first] = await idleConnections(3);
    first!.destroy();
    await until(async () => (await serverConnections()) === 2);
    const next = net.connect(port, '127.0.0.1', () => next.write(HEALTHZ));
    opened.push(next);
    const response = await readUntilClose(next);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ status: 'ok' });
  });

  it('counts each address on its own', async () => {
    await idleConnections(3, '127.0.0.1');
    const other = net.connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' }, () => other.write(HEALTHZ));
    opened.push(other);
    expect((await readUntilClose(other)).status).toBe(200);
  });
});
