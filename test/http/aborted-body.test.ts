import { once } from 'node:events';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { buildApp } from '../../src/main/app.js';
import { createServices } from '../../src/main/services.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestDatabase } from '../support/database.js';
import { ORIGIN } from '../support/app.js';
import { until } from '../support/service-fleet.js';

interface LogRecord {
  level: number;
  msg: string;
  reqId?: string;
  err?: { code?: string };
}

const records: LogRecord[] = [];
const stream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    const lines = chunk.toString().split('\n').filter(Boolean);
    records.push(...lines.map((line) => JSON.parse(line) as LogRecord));
    done();
  },
});
const database = await createTestDatabase();
const app = await buildApp(createServices(loadConfig({ PUBLIC_BASE_URL: ORIGIN }), database.db, new ManualClock()), {
  logger: { level: 'info', stream },
});
const origin = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
afterAll(() => app.close());

it('a client that closes the connection in the middle of its body is logged at info, not as an error', async () => {
  const socket = connect(Number(origin.port), '127.0.0.1');
  await once(socket, 'connect');
  // Once the server has the headers it reads the body; the client then goes away with 90 bytes owed.
  const received = once(app.server, 'request');
  socket.write(
    [
      'POST /auth/verify HTTP/1.1',
      'Host: localhost:3000',
      `Origin: ${ORIGIN}`,
      'Content-Type: application/json',
      'Content-Length: 100',
      '',
      '{"message":',
    ].join('\r\n'),
  );
  await received;
  socket.destroy();
  const aborted = await until('the aborted request in the log', async () =>
    records.find((record) => record.err?.code === 'ECONNRESET'),
  );
  expect(aborted).toMatchObject({ level: 30, msg: expect.stringMatching(/client aborted/) });
  expect(records.filter((record) => record.level >= 50)).toEqual([]);
});
