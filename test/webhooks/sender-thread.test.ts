import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SenderThread } from '../../src/modules/webhooks/webhook-sender.js';

interface Arrival {
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

const servers: http.Server[] = [];
const threads: SenderThread[] = [];
afterEach(async () => {
  await Promise.all(threads.splice(0).map((thread) => thread.close()));
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve).closeAllConnections())),
  );
});

/** A loopback receiver: `/status/N/...` answers N; `/hang` never answers. */
async function receiver(): Promise<{ readonly origin: string; readonly arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      arrivals.push({ url: req.url ?? '', headers: req.headers, body });
      const status = /^\/status\/(\d+)\//.exec(req.url ?? '')?.[1];
      if (status) res.writeHead(Number(status)).end('ignored');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals };
}

function senderThread(allowPrivate = true): SenderThread {
  const thread = new SenderThread({ allowPrivate });
  threads.push(thread);
  return thread;
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

describe('SenderThread', () => {
  it('sends each request as given and answers each with its own outcome', async () => {
    const { origin, arrivals } = await receiver();
    const { send } = senderThread();
    // More than the thread starts in one turn, with outcomes that tell the requests apart.
    const statuses = Array.from({ length: 100 }, (_, i) => [200, 204, 302, 404, 503][i % 5]!);
    const outcomes = await Promise.all(
      statuses.map((status, i) =>
        send({
          url: `${origin}/status/${status}/${i}?n=${i}`,
          headers: { 'content-type': 'application/json', 'webhook-id': `evt_${i}` },
          body: JSON.stringify({ n: i }),
        }),
      ),
    );

    outcomes.forEach((outcome, i) => {
      const status = statuses[i]!;
      if (status < 300) expect(outcome).toMatchObject({ ok: true, status });
      else expect(outcome).toMatchObject({ ok: false, status, error: status < 400 ? 'redirect' : 'http_status' });
      expect(outcome.durationMs).toBeGreaterThan(0);
    });
    expect(arrivals).toHaveLength(100);
    for (const arrival of arrivals) {
      const n = Number(new URL(arrival.url, origin).searchParams.get('n'));
      expect(arrival.headers['webhook-id']).toBe(`evt_${n}`);
      expect(arrival.headers['content-type']).toBe('application/json');
      expect(JSON.parse(arrival.body)).toEqual({ n });
    }
  });

  it('keeps the SSRF guard on its thread: a loopback receiver is refused unless private destinations are allowed', async () => {
    const { origin, arrivals } = await receiver();
    const outcome = await senderThread(false).send({ url: `${origin}/status/200/x`, headers: {}, body: '{}' });
    expect(outcome).toMatchObject({ ok: false, error: 'blocked_destination' });
    expect(arrivals).toHaveLength(0);
  });

  it('ends an attempt as a timeout when its signal aborts, in flight or before it was sent', async () => {
    const { origin, arrivals } = await receiver();
    const { send } = senderThread();
    const controller = new AbortController();
    const hanging = send({ url: `${origin}/hang`, headers: {}, body: '{}' }, controller.signal);
    await until(() => arrivals.length === 1);
    controller.abort(new Error('stopping'));
    // Well before the 8 s attempt timeout.
    expect(await hanging).toMatchObject({ ok: false, error: 'timeout' });

    const early = new AbortController();
    const sent = send({ url: `${origin}/hang`, headers: {}, body: '{}' }, early.signal);
    early.abort(new Error('stopping'));
    expect(await sent).toMatchObject({ ok: false, error: 'timeout' });

    const already = AbortSignal.abort(new Error('stopped before the attempt'));
    expect(await send({ url: `${origin}/status/200/never`, headers: {}, body: '{}' }, already)).toMatchObject({
      ok: false,
      error: 'timeout',
    });
  });

  it('ends the attempts of a thread that stops as network errors, and sends the next on a new thread', async () => {
    const { origin, arrivals } = await receiver();
    const thread = senderThread();
    const hanging = thread.send({ url: `${origin}/hang`, headers: {}, body: '{}' });
    await until(() => arrivals.length === 1);
    await thread.close();
    expect(await hanging).toMatchObject({ ok: false, error: 'network_error' });

    expect(await thread.send({ url: `${origin}/status/200/again`, headers: {}, body: '{}' })).toMatchObject({
      ok: true,
      status: 200,
    });
  });
});
