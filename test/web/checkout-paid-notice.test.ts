import { describe, expect, it } from 'vitest';
import { renderCheckoutPage, type CheckoutDetails } from '../../src/web/checkout/checkout.page.js';
import { openInvoiceDetails } from '../support/checkout-details.js';

/** The paid notice as the page draws it, tags stripped. */
function paidNotice(details: CheckoutDetails): string {
  const page = renderCheckoutPage(details, { workspaceId: 'ws_test', demoWallet: false });
  const found = /<p id="notice-paid"[^>]*>(.*?)<\/p>/.exec(page);
  if (!found) throw new Error('no paid notice on the page');
  return found[1]!.replace(/<[^>]+>/g, '');
}

describe('the paid notice says what is true of the merchant', () => {
  it('says the merchant has been notified when a webhook endpoint takes the payment', () => {
    expect(paidNotice(openInvoiceDetails({ status: 'paid', merchantNotified: true }))).toBe(
      'Paid. Thank you! The merchant has been notified.',
    );
  });

  it('says only that the payment is recorded for the merchant when nothing is sent to them', () => {
    const notice = paidNotice(openInvoiceDetails({ status: 'paid', merchantNotified: false }));
    expect(notice).toBe('Paid. Thank you! The payment is recorded for the merchant.');
    expect(notice).not.toMatch(/notified/);
  });
});
