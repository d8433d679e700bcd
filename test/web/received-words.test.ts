import { describe, expect, it } from 'vitest';
import {
  amountFit,
  appliedWords,
  micros,
  reasonWords,
  shortfallQuestion,
  usdc,
} from '../../src/web/portal/client/received-words.js';

const numbers = new Map([['inv_meant', 'INV-000007']]);
const numberOf = (id: string) => numbers.get(id);

describe('a received transfer in the portal’s words', () => {
  it('says why it paid nothing, naming the invoice it was meant for by its number', () => {
    expect(reasonWords({ reason: 'ambiguous', invoiceId: null }, numberOf)).toBe(
      'Two or more open invoices have this amount',
    );
    expect(reasonWords({ reason: 'no_matching_invoice', invoiceId: null }, numberOf)).toBe(
      'No open invoice has this amount',
    );
    expect(reasonWords({ reason: 'amount_mismatch', invoiceId: 'inv_meant' }, numberOf)).toBe(
      'Sent for INV-000007 but the amount differs',
    );
    expect(reasonWords({ reason: 'late', invoiceId: 'inv_meant' }, numberOf)).toBe(
      'Arrived after the deadline of INV-000007',
    );
  });

  it('falls back to plain words when the invoice is unknown, and never shows an id or a code', () => {
    expect(reasonWords({ reason: 'amount_mismatch', invoiceId: 'inv_gone' }, numberOf)).toBe(
      'Sent for an invoice but the amount differs',
    );
    expect(reasonWords({ reason: 'late', invoiceId: null }, numberOf)).toBe(
      'Arrived after the deadline of the invoice of this amount',
    );
  });

  it('compares amounts exactly, to the millionth', () => {
    expect(micros('12.500000')).toBe(12_500_000n);
    expect(micros('0.000001')).toBe(1n);
    expect(micros('7')).toBe(7_000_000n);
    expect(usdc(12_500_000n)).toBe('12.50');
    expect(usdc(1n)).toBe('0.000001');
    expect(amountFit('12.500000', '12.500000')).toEqual({ kind: 'exact' });
    expect(amountFit('9.999999', '10.000000')).toEqual({ kind: 'short', by: '0.000001' });
    expect(amountFit('10.250000', '10.000000')).toEqual({ kind: 'over', by: '0.25' });
  });

  it('asks before a short transfer pays an invoice, stating both amounts and the shortfall', () => {
    const question = shortfallQuestion('10.000000', { number: 'INV-000003', amount: '12.500000' });
    expect(question).toContain('This transfer of 10.00 USDC is 2.50 USDC short of INV-000003');
    expect(question).toContain('for 12.50 USDC');
    expect(question).toMatch(/Mark INV-000003 paid with what arrived\?/);
  });

  it('says what applying recorded: paid, short or overpaid', () => {
    expect(appliedWords('12.500000', { number: 'INV-000001', amount: '12.500000' })).toBe(
      'INV-000001 is paid with this transfer.',
    );
    expect(appliedWords('10.000000', { number: 'INV-000001', amount: '12.500000' })).toMatch(
      /INV-000001 is paid, 2\.50 USDC short/,
    );
    expect(appliedWords('13.000000', { number: 'INV-000001', amount: '12.500000' })).toMatch(
      /the 0\.50 USDC above its amount is recorded as overpaid/,
    );
  });
});
