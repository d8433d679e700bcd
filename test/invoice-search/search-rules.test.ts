import { describe, expect, it } from 'vitest';
import {
  classifyQuery,
  encodeCursor,
  parseCursor,
  type SearchLookups,
} from '../../src/modules/invoice-search/search.js';
import type { InvoiceId } from '../../src/modules/invoices/invoice.js';
import type { WorkspaceId } from '../../src/shared/ids.js';

const workspaceId = 'ws_0123456789abcdefghjkmnpqrs' as WorkspaceId;
const invoiceId = 'inv_0123456789abcdefghjkmnpqrs' as InvoiceId;
const context = { workspaceId, publicBaseUrl: new URL('https://pay.example.com') };
const classify = (q: string) => classifyQuery(q, context);
const only = (lookups: Partial<SearchLookups>): SearchLookups => ({
  externalId: null,
  number: null,
  invoiceId: null,
  txHash: null,
  ...lookups,
});

describe('classifyQuery', () => {
  it('reads invoice numbers in any letter case and padding, and as order references too', () => {
    expect(classify('INV-000042')).toEqual(only({ number: 42n, externalId: 'INV-000042' }));
    expect(classify('inv-42')).toEqual(only({ number: 42n, externalId: 'inv-42' }));
    expect(classify('INV-1000000')).toEqual(only({ number: 1_000_000n, externalId: 'INV-1000000' }));
  });

  it('reads no invoice number from zero, an overflow, a sign or a bare number', () => {
    for (const q of ['INV-0', 'INV-000000', 'INV-9223372036854775808', 'INV--1', 'INV-', 'INV 42', '42', '000042']) {
      expect(classify(q).number, q).toBeNull();
    }
    expect(classify('42')).toEqual(only({ externalId: '42' }));
  });

  it('reads invoice ids exactly', () => {
    expect(classify(invoiceId)).toEqual(only({ invoiceId, externalId: invoiceId }));
    expect(classify(invoiceId.toUpperCase()).invoiceId).toBeNull();
    expect(classify(`${invoiceId}x`).invoiceId).toBeNull();
  });

  it('reads the invoice id from checkout and x402 links of this workspace on this origin', () => {
    for (const q of [
      `https://pay.example.com/w/${workspaceId}/i/${invoiceId}`,
      `https://pay.example.com/w/${workspaceId}/x402/${invoiceId}`,
      `https://PAY.example.com:443/w/${workspaceId}/i/${invoiceId}?utm_source=chat#top`,
    ]) {
      expect(classify(q).invoiceId, q).toBe(invoiceId);
    }
  });

  it('reads nothing from links of another workspace, origin, scheme or path', () => {
    for (const q of [
      `https://pay.example.com/w/ws_zzzzzzzzzzzzzzzzzzzzzzzzzz/i/${invoiceId}`,
      `http://pay.example.com/w/${workspaceId}/i/${invoiceId}`,
      `https://pay.example.com:8443/w/${workspaceId}/i/${invoiceId}`,
      `https://pay.example.com.evil.test/w/${workspaceId}/i/${invoiceId}`,
      `https://user@pay.example.com/w/${workspaceId}/i/${invoiceId}`,
      `https://pay.example.com/w/${workspaceId}/i/${invoiceId}/`,
      `https://pay.example.com/w/${workspaceId}/v1/invoices/${invoiceId}`,
      `https://pay.example.com/w/${workspaceId}/i/inv_short`,
      'https://',
    ]) {
      expect(classify(q).invoiceId, q).toBeNull();
    }
  });

  it('reads transaction hashes in any letter case as lowercase', () => {
    const hash = `0x${'aB'.repeat(32)}`;
    expect(classify(hash)).toEqual(only({ txHash: hash.toLowerCase(), externalId: hash }));
    expect(classify(`0X${'AB'.repeat(32)}`).txHash).toBe(`0x${'ab'.repeat(32)}`);
    expect(classify(`0x${'ab'.repeat(31)}`).txHash).toBeNull();
    expect(classify(`0x${'ag'.repeat(32)}`).txHash).toBeNull();
  });

  it('tries as order reference only what could be stored as one (≤ 128 UTF-8 bytes, no NUL)', () => {
    expect(classify('é'.repeat(64)).externalId).toBe('é'.repeat(64));
    expect(classify('é'.repeat(65)).externalId).toBeNull();
    expect(classify('a\u0000b').externalId).toBeNull();
    // A link longer than any order reference is still recognised.
    expect(classify(`https://pay.example.com/w/${workspaceId}/i/${invoiceId}?ref=${'x'.repeat(200)}`)).toEqual(
      only({ invoiceId }),
    );
  });
});

describe('cursors', () => {
  it('round-trip the last number of a page', () => {
    expect(parseCursor(encodeCursor(42n))).toBe(42n);
    expect(parseCursor(encodeCursor(2n ** 63n - 1n))).toBe(2n ** 63n - 1n);
    expect(parseCursor(undefined)).toBeNull();
  });

  it('refuse anything this search does not hand out with invalid_cursor', () => {
    for (const raw of ['', '0', '-1', '01', '1e3', ' 1', 'abc', '9223372036854775808']) {
      expect(() => parseCursor(raw), raw).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
    }
  });
});
