import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { createTestChain } from '../support/chain.js';
import { readEventStream } from '../support/event-stream-reader.js';
import { openShop, startPayingApp } from '../support/paying-app.js';

const chain = await createTestChain();
const paying = await startPayingApp(chain, { worker: false, orderChanges: true });
const shop = await openShop(paying);

interface StateEvent {
  readonly status: string;
  readonly linkVersion: number;
  readonly [field: string]: unknown;
}

/** A checkout event stream as it arrives: its answer, the details of its `state` events so far, and its end. */
function openStream(path: string) {
  const stream = readEventStream(`${paying.origin}${path}`);
  return {
    ...stream,
    next: async (count: number) => (await stream.next(count)).data as StateEvent,
    get states() {
      return stream.events.map((event) => event.data as StateEvent);
    },
  };
}

/** The status a new stream is answered with; the stream is closed at once. */
function statusOf(path: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${paying.origin}${path}`, (response) => {
      resolve(response.statusCode);
      request.destroy();
    });
    request.on('error', reject);
  });
}

const eventsPath = (invoiceId: string) => `/w/${shop.workspaceId}/i/${invoiceId}/events`;

describe('the checkout event stream', () => {
  it('sends the payment details at once, again after a change, and ends when the invoice is cancelled', async () => {
    const invoice = await shop.invoice('3.5');
    const stream = openStream(eventsPath(invoice.id));
    const response = await stream.response;
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');

    const first = await stream.next(1);
    const details = await paying.app.inject({ url: `/w/${shop.workspaceId}/i/${invoice.id}` });
    expect({ ...first, serverTime: undefined }).toEqual({ ...details.json<StateEvent>(), serverTime: undefined });
    expect(first.status).toBe('open');

    // A renewal keeps the invoice open: the stream stays and tells the new link version.
    expect((await shop.api('POST', `/invoices/${invoice.id}/renew`, {})).statusCode).toBe(200);
    const renewed = await stream.next(2);
    expect(renewed).toMatchObject({ status: 'open', linkVersion: first.linkVersion + 1 });

    expect((await shop.api('POST', `/invoices/${invoice.id}/cancel`)).statusCode).toBe(200);
    expect((await stream.next(3)).status).toBe('cancelled');
    await stream.ended;
    expect(stream.states).toHaveLength(3);
  });

  it('sends the final state and ends at once for an invoice already final', async () => {
    const invoice = await shop.invoice('1');
    await shop.api('POST', `/invoices/${invoice.id}/cancel`);
    const stream = openStream(eventsPath(invoice.id));
    await stream.ended;
    expect(stream.states.map((state) => state.status)).toEqual(['cancelled']);
  });

  it('answers 404 with the usual error body for an unknown invoice', async () => {
    const response = await paying.app.inject({ url: eventsPath('inv_00000000000000000000000000') });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not_found' });
  });

  it('holds at most 10 open streams per client address: the next is answered 429, and a closed one frees its slot', async () => {
    const invoice = await shop.invoice('2');
    const streams = Array.from({ length: 10 }, () => openStream(eventsPath(invoice.id)));
    await Promise.all(streams.map((stream) => stream.next(1)));
    const refused = await paying.app.inject({ url: eventsPath(invoice.id) });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'rate_limited' });
    expect(refused.headers['retry-after']).toBeDefined();

    streams[0]!.close();
    await streams[0]!.ended;
    await expect.poll(() => statusOf(eventsPath(invoice.id))).toBe(200);
    for (const stream of streams) stream.close();
  });

  // Last: it closes the app.
  it('ends every open stream on shutdown rather than waiting for the clients to leave', async () => {
    const invoice = await shop.invoice('4');
    const stream = openStream(eventsPath(invoice.id));
    await stream.next(1);
    await paying.app.close();
    await stream.ended;
  });
});
