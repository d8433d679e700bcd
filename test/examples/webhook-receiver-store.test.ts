import { createHmac } from 'node:crypto';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonLinesEventStore } from '../../examples/webhook-receiver/event-store.js';
import { verifySignature } from '../../examples/webhook-receiver/verify.js';

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

describe('verifySignature', () => {
  const secret = 'whsec_abc';
  const body = Buffer.from('{"id":"1"}');
  const hex = (key: string, timestamp: string) =>
    createHmac('sha256', key).update(`${timestamp}.${body.toString()}`).digest('hex');

  it('accepts any one matching v1 value among several, separated by commas or spaces', () => {
    const header = `v1=${hex('whsec_old', '1000')}, v1=${hex(secret, '1000')} v0=abc`;
    expect(verifySignature(secret, '1000', body, header, 1000)).toEqual({ ok: true });
  });

  it('allows the configured skew either way and no more', () => {
    const header = `v1=${hex(secret, '1000')}`;
    expect(verifySignature(secret, '1000', body, header, 1300).ok).toBe(true);
    expect(verifySignature(secret, '1000', body, header, 700).ok).toBe(true);
    expect(verifySignature(secret, '1000', body, header, 1301)).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(verifySignature(secret, '1000', body, header, 1010, 5)).toEqual({ ok: false, reason: 'stale_timestamp' });
  });

  it.each(['', 'v1', 'v1=', 'v1=abc', `v1=${'g'.repeat(64)}`, `v1=${'a'.repeat(66)}`, 'sha256=deadbeef'])(
    'rejects the malformed header %j without throwing',
    (header) => {
      expect(verifySignature(secret, '1000', body, header, 1000).ok).toBe(false);
    },
  );
});
