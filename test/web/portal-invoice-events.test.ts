import { afterAll, describe, expect, it } from 'vitest';
import type { ChannelListener } from '../../src/db/listener.js';
import { systemClock } from '../../src/shared/clock.js';
import { ORIGIN, createTestApp, createWorkspace, newWallet, signIn } from '../support/app.js';
import { readEventStream } from '../support/event-stream-reader.js';

const testApp = await createTestApp({}, systemClock);
const { app, services, database } = testApp;
await app.listen({ port: 0, host: '127.0.0.1' });
const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

/** As `npm start` serves the portal: the process hears every change of an order. */
async function listen(): Promise<ChannelListener> {
  const listener = services.payments.orderChanges.listen(database.connection, { warn() {} });
  await listener.start();
  afterAll(() => listener.stop());
  return listener;
}
let listener = await listen();

const owner = await signIn(app, newWallet());
const workspaceId = await createWorkspace(app, owner, 'Live shop');
const stranger = await signIn(app, newWallet());
const strangersWorkspace = await createWorkspace(app, stranger, 'Other shop');

const eventsPath = (workspace: string) => `/portal/api/w/${workspace}/invoices/events`;

/** A call of the portal API with the session `cookie`. */
async function portal(cookie: string, workspace: string, method: 'GET' | 'POST', path: string, payload?: object) {
  const response = await app.inject({
    method,
    url: `/portal/api/w/${workspace}${path}`,
    headers: { cookie, origin: ORIGIN },
    ...(payload && { payload }),
  });
  if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${response.statusCode} ${response.body}`);
  return response.json<{ id: string; status: string }>();
}

const openStream = (path: string, cookie: string) => readEventStream(`${origin}${path}`, { cookie });

describe("the portal's invoice event stream", () => {
  it('refuses a request without a session: 401 session_required', async () => {
    const response = await app.inject({ url: eventsPath(workspaceId) });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'session_required' });
  });

  it("answers another wallet's workspace as if it did not exist: 404 not_found", async () => {
    const response = await app.inject({ url: eventsPath(workspaceId), headers: { cookie: stranger } });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not_found' });
  });

  it("names each invoice of the workspace that changes, and none of another workspace's", async () => {
    const mine = await portal(owner, workspaceId, 'POST', '/invoices', { amount: '2' });
    const theirs = await portal(stranger, strangersWorkspace, 'POST', '/invoices', { amount: '3' });
    const stream = openStream(eventsPath(workspaceId), owner);
    const response = await stream.response;
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');

    await portal(stranger, strangersWorkspace, 'POST', `/invoices/${theirs.id}/cancel`);
    expect((await portal(owner, workspaceId, 'POST', `/invoices/${mine.id}/cancel`)).status).toBe('cancelled');
    await expect.poll(() => stream.events, { timeout: 5000 }).toEqual([{ event: 'invoice', data: { id: mine.id } }]);
    stream.close();
    await stream.ended;
  });

  it('holds at most 10 open streams per client address: the next is answered 429', async () => {
    const streams = Array.from({ length: 10 }, () => openStream(eventsPath(workspaceId), owner));
    await Promise.all(streams.map((stream) => stream.response));
    const refused = await app.inject({ url: eventsPath(workspaceId), headers: { cookie: owner } });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'rate_limited' });
    expect(refused.headers['retry-after']).toBeDefined();
    for (const stream of streams) stream.close();
    await Promise.all(streams.map((stream) => stream.ended));
  });

  it('ends when the service stops hearing every change, and ends at once while it does not', async () => {
    const stream = openStream(eventsPath(workspaceId), owner);
    await stream.response;
    await listener.stop();
    await stream.ended;

    const deaf = await app.inject({ url: eventsPath(workspaceId), headers: { cookie: owner } });
    expect(deaf.statusCode).toBe(200);
    expect(deaf.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(deaf.body).toBe('retry: 3000\n\n');
    listener = await listen();
  });

  // Last: it closes the app.
  it('ends every open stream on shutdown rather than waiting for the clients to leave', async () => {
    const stream = openStream(eventsPath(workspaceId), owner);
    await stream.response;
    await app.close();
    await stream.ended;
  });
});
