import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, verifyWebhook, WebhookVerificationError } from '@invoice-service/client';
import { newSigningSecret } from '../../src/modules/webhook-endpoint/webhook-endpoint.js';
import { signedHeaders, webhookBody } from '../../src/modules/webhooks/webhook.js';
import { clientWorkspace, startClientApp } from '../support/client-app.js';

// A receiver on this machine: the service may deliver to it only with private destinations allowed.
const service = await startClientApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });

/** The receiver: keeps each request's raw bytes and headers as they arrived. */
const received: { body: Buffer; headers: http.IncomingHttpHeaders }[] = [];
const receiver = http.createServer((request, response) => {
  void (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    received.push({ body: Buffer.concat(chunks), headers: request.headers });
    response.writeHead(204).end();
  })();
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

/** A workspace whose webhook points at the receiver; its secret as PUT /webhook answered it. */
async function configuredWorkspace() {
  const client = createClient(await clientWorkspace(service));
  const { data } = await client.PUT('/webhook', { body: { endpoint, enabled: true } });
  return { client, secret: data!.secret! };
}

/** A test event the service signs and delivers now (one a minute per workspace). */
async function deliveredTest(client: ReturnType<typeof createClient>) {
  const { data } = await client.POST('/webhook/test');
  expect(data).toMatchObject({ delivered: true, statusCode: 204 });
  const delivery = received.find((request) => request.headers['x-payment-event-id'] === data!.id);
  return delivery!;
}

describe('a webhook the service delivers', () => {
  it('verifies with its secret from the raw bytes and node:http headers, and returns the event', async () => {
    const { client, secret } = await configuredWorkspace();
    const { body, headers } = await deliveredTest(client);

    const event = verifyWebhook(body, headers, secret);
    expect(event).toMatchObject({ type: 'webhook.test', test: true, id: expect.stringMatching(/^test_/) });
    expect(() => verifyWebhook(body, headers, newSigningSecret())).toThrow(WebhookVerificationError);
  });

  it('after a rotation verifies with the new secret, or with both during the change, not with the old one alone', async () => {
    const { client, secret: old } = await configuredWorkspace();
    const { data } = await client.PUT('/webhook', { body: { rotate: true } });
    const rotated = data!.secret!;
    // Delivery is paused after a rotation; a test send still goes out, signed with the new secret.
    const { body, headers } = await deliveredTest(client);

    expect(verifyWebhook(body, headers, rotated).type).toBe('webhook.test');
    expect(verifyWebhook(body, headers, [old, rotated]).type).toBe('webhook.test');
    expect(reason(() => verifyWebhook(body, headers, old))).toBe('signature_mismatch');
  });
});

describe('verifyWebhook refuses', () => {
  const secret = newSigningSecret();
  const at = new Date('2026-03-01T12:00:00Z');
  const body = JSON.stringify(
    webhookBody('ws_shop', { id: '42', type: 'payment_intent.succeeded', at, data: { paymentIntent: { id: 'pi_1' } } }),
  );
  const headers = signedHeaders(secret, '42', body, at);
  const verify = (
    overrides: { body?: string; headers?: Record<string, string | undefined>; secret?: string; now?: Date } = {},
  ) =>
    reason(() =>
      verifyWebhook(overrides.body ?? body, { ...headers, ...overrides.headers }, overrides.secret ?? secret, {
        now: overrides.now ?? at,
      }),
    );

  it('to run with a configuration that would make the check weaker: an empty secret, no secret, a tolerance not a number', () => {
    expect(() => verifyWebhook(body, headers, '', { now: at })).toThrow(TypeError);
    expect(() => verifyWebhook(body, headers, [], { now: at })).toThrow(TypeError);
    expect(() => verifyWebhook(body, headers, [secret, ''], { now: at })).toThrow(TypeError);
    expect(() => verifyWebhook(body, headers, secret, { now: at, toleranceSeconds: Number.NaN })).toThrow(TypeError);
  });

  it('nothing that is as the service signed it, within five minutes either way', () => {
    expect(verifyWebhook(body, headers, secret, { now: at })).toMatchObject({ id: '42', workspaceId: 'ws_shop' });
    expect(verify({ now: new Date(at.getTime() + 300_000) })).toBeUndefined();
    expect(verify({ now: new Date(at.getTime() - 300_000) })).toBeUndefined();
    expect(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret, { now: at }).id).toBe('42');
  });

  it.each([
    ['a body changed after signing', { body: body.replace('pi_1', 'pi_2') }, 'signature_mismatch'],
    ['another secret', { secret: newSigningSecret() }, 'signature_mismatch'],
    ['a timestamp older than the tolerance', { now: new Date(at.getTime() + 301_000) }, 'timestamp_out_of_tolerance'],
    ['a timestamp ahead of the tolerance', { now: new Date(at.getTime() - 301_000) }, 'timestamp_out_of_tolerance'],
    ['no signature', { headers: { 'x-payment-signature': undefined } }, 'missing_header'],
    ['no timestamp', { headers: { 'x-payment-timestamp': undefined } }, 'missing_header'],
    ['no event id', { headers: { 'x-payment-event-id': undefined } }, 'missing_header'],
    ['a timestamp that is not unix seconds', { headers: { 'x-payment-timestamp': 'yesterday' } }, 'invalid_timestamp'],
    [
      'a signature that is not hex',
      { headers: { 'x-payment-signature': `v1=${'zz'.repeat(32)}` } },
      'signature_mismatch',
    ],
    ['an empty v1=', { headers: { 'x-payment-signature': 'v1=' } }, 'signature_mismatch'],
    ['a header event id other than the body id', { headers: { 'x-payment-event-id': '43' } }, 'event_id_mismatch'],
  ])('%s', (_name, overrides, expected) => {
    expect(verify(overrides)).toBe(expected);
  });

  it('a validly signed body that is not an event', () => {
    const notAnEvent = '{"id":"42"}';
    const signed = signedHeaders(secret, '42', notAnEvent, at);
    expect(reason(() => verifyWebhook(notAnEvent, signed, secret, { now: at }))).toBe('malformed_event');
  });

  it('nothing when one of several v1= values matches: a sender signing with two secrets', () => {
    const other = signedHeaders(newSigningSecret(), '42', body, at)['x-payment-signature'];
    expect(
      verify({ headers: { 'x-payment-signature': `${other}, ${headers['x-payment-signature']}` } }),
    ).toBeUndefined();
    expect(verify({ headers: { 'x-payment-signature': `${other} v1=${'0'.repeat(64)}` } })).toBe('signature_mismatch');
  });
});

/** The reason verifyWebhook refused with, or undefined when it accepted. */
function reason(verify: () => unknown): string | undefined {
  try {
    verify();
    return undefined;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}
