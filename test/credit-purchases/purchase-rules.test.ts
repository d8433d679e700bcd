import { describe, expect, it } from 'vitest';
import {
  effectiveStatus,
  purchaseCursor,
  transition,
  type CreditPurchase,
  type CreditPurchaseId,
} from '../../src/modules/credit-purchases/credit-purchase.js';
import type { WorkspaceId } from '../../src/shared/ids.js';

const created = new Date('2026-03-01T10:00:00.000Z');
const deadline = new Date('2026-03-01T11:00:00.000Z');
const before = new Date('2026-03-01T10:30:00.000Z');
const after = new Date('2026-03-01T11:00:00.001Z');

function purchase(status: CreditPurchase['status']): CreditPurchase {
  return {
    workspaceId: 'ws_x' as WorkspaceId,
    id: `cp_${'a'.repeat(26)}` as CreditPurchaseId,
    packageId: 'starter',
    credits: 100,
    price: 10_000_000n,
    status,
    payTo: `0x${'ab'.repeat(20)}`,
    network: null,
    expiresAt: deadline,
    createdAt: created,
    paidAt: null,
    source: 'api',
  };
}

describe('the credit purchase state machine', () => {
  it('reads an open purchase as expired from its deadline on, and nothing else', () => {
    expect(effectiveStatus(purchase('open'), before)).toBe('open');
    expect(effectiveStatus(purchase('open'), deadline)).toBe('expired');
    expect(effectiveStatus(purchase('processing'), after)).toBe('processing');
    expect(effectiveStatus(purchase('paid'), after)).toBe('paid');
  });

  it('starts a payment only while open and within the deadline', () => {
    expect(transition(purchase('open'), { type: 'begin_payment', startedAt: before }, before)).toEqual({
      ok: true,
      changes: { status: 'processing' },
      credits: 0,
    });
    expect(transition(purchase('open'), { type: 'begin_payment', startedAt: after }, after)).toEqual({
      ok: false,
      code: 'purchase_expired',
    });
    expect(transition(purchase('processing'), { type: 'begin_payment', startedAt: before }, before)).toEqual({
      ok: false,
      code: 'purchase_processing',
    });
    expect(transition(purchase('paid'), { type: 'begin_payment', startedAt: before }, before)).toEqual({
      ok: false,
      code: 'purchase_paid',
    });
  });

  it('takes a transfer sent before the deadline and found after it', () => {
    for (const status of ['open', 'expired'] as const)
      expect(transition(purchase(status), { type: 'begin_payment', startedAt: before }, after)).toEqual({
        ok: true,
        changes: { status: 'processing' },
        credits: 0,
      });
    expect(transition(purchase('expired'), { type: 'begin_payment', startedAt: deadline }, after)).toEqual({
      ok: false,
      code: 'purchase_expired',
    });
  });

  it('carries the credits only on the step into paid, which may come after the deadline', () => {
    expect(transition(purchase('processing'), { type: 'payment_succeeded', network: 'base' }, after)).toEqual({
      ok: true,
      changes: { status: 'paid', paidAt: after, network: 'base' },
      credits: 100,
    });
    for (const status of ['open', 'paid', 'expired'] as const)
      expect(transition(purchase(status), { type: 'payment_succeeded', network: 'base' }, before)).toEqual({
        ok: false,
        code: 'noop',
      });
  });

  it('goes back to open after a failed attempt, or to expired past the deadline', () => {
    expect(transition(purchase('processing'), { type: 'payment_failed' }, before)).toMatchObject({
      changes: { status: 'open' },
    });
    expect(transition(purchase('processing'), { type: 'payment_failed' }, after)).toMatchObject({
      changes: { status: 'expired' },
    });
  });
});

describe('list cursors', () => {
  it('round-trip a purchase and refuse anything else', () => {
    const p = purchase('open');
    expect(purchaseCursor.parse(purchaseCursor.encode(p))).toEqual({ createdAt: created, id: p.id });
    expect(purchaseCursor.parse(undefined)).toBeNull();
    for (const bad of [
      '',
      '12',
      'x.cp_aaaaaaaaaaaaaaaaaaaaaaaaaa',
      `1234.inv_${'a'.repeat(26)}`,
      `${'9'.repeat(16)}.${p.id}`,
    ])
      expect(() => purchaseCursor.parse(bad)).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
  });
});
