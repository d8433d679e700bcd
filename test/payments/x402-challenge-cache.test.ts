import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestChain } from '../support/chain.js';
import { waitFor } from '../jobs/support.js';
import { openShop, startPayingApp } from '../support/paying-app.js';
import { bodyOf, decodeBase64Json, payV2 } from '../support/x402.js';

const chain = await createTestChain();
const paying = await startPayingApp(chain, { orderChanges: true });
const db = paying.database.db;

interface Challenge {
  readonly status: number;
  /** The v2 requirements' link version, or the refusal's code. */
  readonly answer: number | string;
}

/** What a client reads first at an invoice's url: 402 with the requirements, or the refusal. */
async function challenge(url: string): Promise<Challenge> {
  const response = await fetch(url);
  if (response.status !== 402)
    return { status: response.status, answer: (await bodyOf<{ code: string }>(response)).code };
  await response.arrayBuffer();
  const required = decodeBase64Json<{ accepts: { extra: { linkVersion: number } }[] }>(
    response.headers.get('payment-required')!,
  );
  return { status: 402, answer: required.accepts[0]!.extra.linkVersion };
}

/**
 * Asks until the challenge answers `expected`, and says how long that took after `changedAt`; the time is
 * printed, never asserted (it depends on the machine).
 */
async function answersWithin(what: string, url: string, expected: Challenge, changedAt: number): Promise<void> {
  await waitFor(async () => ((await challenge(url)).answer === expected.answer ? true : undefined), 5_000, what);
  console.log(`402 challenge: ${what} answered ${Math.round(performance.now() - changedAt)} ms after the change`);
  expect(await challenge(url)).toEqual(expected);
}

/** Runs `change` with the invoices' change notifications switched off: only a kept copy can hide it. */
async function unannounced(change: () => Promise<unknown>): Promise<void> {
  await sql`ALTER TABLE invoices DISABLE TRIGGER invoices_order_changes`.execute(db);
  try {
    await change();
  } finally {
    await sql`ALTER TABLE invoices ENABLE TRIGGER invoices_order_changes`.execute(db);
  }
}

describe('402 challenges answer from a copy of the invoice that every change drops', () => {
  it('answers from the copy: a change nobody announced is not seen, an announced one is', async () => {
    const shop = await openShop(paying);
    const invoice = await shop.invoice('1');
    expect(await challenge(invoice.payUrl)).toEqual({ status: 402, answer: 1 });

    await unannounced(() => sql`UPDATE invoices SET link_version = 7 WHERE id = ${invoice.id}`.execute(db));
    await delay(200);
    expect(await challenge(invoice.payUrl)).toEqual({ status: 402, answer: 1 });

    const changedAt = performance.now();
    await sql`UPDATE invoices SET link_version = 8 WHERE id = ${invoice.id}`.execute(db);
    await answersWithin(
      'a change written by another connection',
      invoice.payUrl,
      { status: 402, answer: 8 },
      changedAt,
    );
  });

  it('a cancelled, renewed or paid invoice answers its new state', async () => {
    const shop = await openShop(paying);
    const [cancelled, renewed, paid] = await Promise.all([shop.invoice('1'), shop.invoice('1'), shop.invoice('1')]);
    for (const invoice of [cancelled, renewed, paid])
      expect(await challenge(invoice.payUrl)).toEqual({ status: 402, answer: 1 });

    let changedAt = performance.now();
    expect((await shop.api('POST', `/invoices/${cancelled.id}/cancel`)).statusCode).toBe(200);
    await answersWithin('cancelled', cancelled.payUrl, { status: 409, answer: 'invoice_cancelled' }, changedAt);

    changedAt = performance.now();
    expect((await shop.api('POST', `/invoices/${renewed.id}/renew`, {})).statusCode).toBe(200);
    await answersWithin('renewed', renewed.payUrl, { status: 402, answer: 2 }, changedAt);

    const payer = await chain.payer(10_000_000n);
    const response = await payV2(payer)(paid.payUrl);
    changedAt = performance.now();
    expect(response.status).toBe(200);
    await answersWithin('paid', paid.payUrl, { status: 409, answer: 'invoice_already_paid' }, changedAt);
  });

  it('judges the copy at each request: an invoice expires on time without any change', async () => {
    const shop = await openShop(paying);
    const invoice = await shop.invoice('1');
    await sql`UPDATE invoices SET expires_at = now() + interval '1 second' WHERE id = ${invoice.id}`.execute(db);
    await waitFor(async () => ((await challenge(invoice.payUrl)).status === 402 ? true : undefined), 5_000, 'the copy');

    await unannounced(async () => {
      await delay(1_200);
      expect(await challenge(invoice.payUrl)).toEqual({ status: 409, answer: 'invoice_expired' });
    });
  });
});
