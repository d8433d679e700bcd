import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { EVENT_EXAMPLES, TIMELINE_RECORD_OF } from '../../src/modules/events/index.js';
import { HISTORY_DATA } from '../../src/modules/events/event-retention.repo.js';
import { eventRecord, type TimelineEvent } from '../../src/modules/timeline/timeline.js';
import { createTestDatabase } from '../support/database.js';

const { db } = await createTestDatabase();

/** An event's data as retention copies it to the invoice history, by the same SQL. */
async function kept(data: unknown): Promise<unknown> {
  const { rows } = await sql<{ data: unknown }>`
    SELECT ${HISTORY_DATA} AS data FROM (SELECT ${JSON.stringify(data)}::json AS data) e`.execute(db);
  return rows[0]!.data;
}

// The documented objects (src/modules/events/event.examples.ts), carrying every fact a record may show.
const invoice = { ...EVENT_EXAMPLES['invoice.scheduled'].data.invoice, network: 'base-sepolia' };
const { paymentIntent, invoice: invoiceRef } = EVENT_EXAMPLES['payment_intent.succeeded'].data;
const failed = { ...paymentIntent, status: 'failed', failureReason: 'amount_mismatch' };

/** An event of the kind as the feed stores it: an invoice's snapshot, or a payment and its invoice. */
function eventOf(type: string, at: number): TimelineEvent {
  const data = type.startsWith('invoice.')
    ? { invoice }
    : { paymentIntent: type === 'payment_intent.failed' ? failed : paymentIntent, invoice: invoiceRef };
  const paymentIntentId = type.startsWith('payment_intent.') ? paymentIntent.id : null;
  return { id: BigInt(at), type, paymentIntentId, data, createdAt: new Date(Date.UTC(2026, 10, 14, 9, at)) };
}

describe('the invoice history keeps of an event only what its timeline record shows', () => {
  it('reads every kind of record the same from the history as from the feed, at a fraction of the size', async () => {
    const facts = new Set<string>();
    for (const [at, type] of Object.keys(TIMELINE_RECORD_OF).entries()) {
      const event = eventOf(type, at);
      const data = await kept(event.data);
      const full = eventRecord(event)!;
      expect(eventRecord({ ...event, data }), type).toEqual(full);
      expect(JSON.stringify(data).length * 4, type).toBeLessThan(JSON.stringify(event.data).length);
      for (const key of Object.keys(full)) facts.add(key);
    }
    // The events above carried every fact a record shows, so each was checked.
    expect([...facts]).toEqual(
      expect.arrayContaining(['network', 'transactionHash', 'failureReason', 'linkVersion', 'expiresAt']),
    );
  });
});
