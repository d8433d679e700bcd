import { createHmac } from 'node:crypto';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonLinesEventStore } from '../../examples/webhook-receiver/event-store.js';
import { checkEvent } from '../../examples/webhook-receiver/verify.js';

let dir = '';
let file = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'webhook-store-'));
  file = path.join(dir, 'nested', 'events.jsonl');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const record = (eventId: string) => ({
  workspaceId: 'ws_a',
  eventId,
  paymentIntentId: 'pi_1',
  invoiceId: 'inv_1',
  orderId: 'o1',
  receivedAt: '2026-01-01T00:00:00.000Z',
});

describe('JsonLinesEventStore', () => {
  it('records a (workspace, event id) once, keyed per workspace, across reopening', async () => {
    const store = await JsonLinesEventStore.open(file);
    expect(await store.recordOnce('ws_a', '1', record('1'))).toBe(true);
    expect(await store.recordOnce('ws_a', '1', record('1'))).toBe(false);
    // Event ids are tenant-local: "1" of another workspace is another event.
    expect(await store.recordOnce('ws_b', '1', { ...record('1'), workspaceId: 'ws_b' })).toBe(true);
    await store.close();
    const reopened = await JsonLinesEventStore.open(file);
    expect(await reopened.recordOnce('ws_a', '1', record('1'))).toBe(false);
    expect((await reopened.pending()).map((pending) => pending.workspaceId)).toEqual(['ws_a', 'ws_b']);
    await reopened.close();
  });

  it('drops a line cut off by a crash and appends cleanly after it', async () => {
    const store = await JsonLinesEventStore.open(file);
    await store.recordOnce('ws_a', '1', record('1'));
    await store.close();
    await appendFile(file, '{"kind":"received","workspaceId":"ws_a","eventId":"2"');
    const reopened = await JsonLinesEventStore.open(file);
    expect(await reopened.recordOnce('ws_a', '2', record('2'))).toBe(true);
    await reopened.close();
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    expect(lines.map((line) => (JSON.parse(line) as { eventId: string }).eventId)).toEqual(['1', '2']);
  });

  it('refuses to start on a damaged complete line rather than forget events', async () => {
    const store = await JsonLinesEventStore.open(file);
    await store.close();
    await writeFile(file, 'not json\n');
    await expect(JsonLinesEventStore.open(file)).rejects.toThrow(/line 1/);
  });
});

describe('checkEvent', () => {
  const secret = 'whsec_abc';
  const body = Buffer.from(
    JSON.stringify({ id: '1', type: 'webhook.test', workspaceId: 'ws_a', createdAt: '', test: true, data: {} }),
  );
  const hex = (key: string, timestamp: string) =>
    createHmac('sha256', key).update(`${timestamp}.${body.toString()}`).digest('hex');
  const headers = (signature: string, timestamp = '1000') => ({
    'x-payment-timestamp': timestamp,
    'x-payment-signature': signature,
    'x-payment-event-id': '1',
  });

  it('accepts any one matching v1 value among several, separated by commas or spaces', () => {
    const header = `v1=${hex('whsec_old', '1000')}, v1=${hex(secret, '1000')} v0=abc`;
    expect(checkEvent(secret, body, headers(header), 1000_000)).toMatchObject({ ok: true, event: { id: '1' } });
  });

  it('allows the configured skew either way and no more', () => {
    const header = headers(`v1=${hex(secret, '1000')}`);
    expect(checkEvent(secret, body, header, 1300_000).ok).toBe(true);
    expect(checkEvent(secret, body, header, 700_000).ok).toBe(true);
    const stale = { ok: false, status: 401, reason: 'timestamp_out_of_tolerance' };
    expect(checkEvent(secret, body, header, 1301_000)).toEqual(stale);
    expect(checkEvent(secret, body, header, 1010_000, 5)).toEqual(stale);
  });

  it.each(['', 'v1', 'v1=', 'v1=abc', `v1=${'g'.repeat(64)}`, `v1=${'a'.repeat(66)}`, 'sha256=deadbeef'])(
    'rejects the malformed header %j with 401 without throwing',
    (header) => {
      expect(checkEvent(secret, body, headers(header), 1000_000)).toMatchObject({ ok: false, status: 401 });
    },
  );

  it('answers 400 for a signed body that is not an event', () => {
    const notAnEvent = Buffer.from('{"id":"1"}');
    const signature = createHmac('sha256', secret).update(`1000.${notAnEvent.toString()}`).digest('hex');
    expect(checkEvent(secret, notAnEvent, headers(`v1=${signature}`), 1000_000)).toEqual({
      ok: false,
      status: 400,
      reason: 'malformed_event',
    });
  });
});
