import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { createTestApp, merchant } from '../support/app.js';

const { app, database } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000', NEW_WORKSPACE_CREDITS: '20' });

it('gives every request of a concurrent burst its own outcome: refusals inside a group leave the others', async () => {
  const shop = await merchant(app, ['invoices:create']);
  const send = (payload: object, key: string) =>
    app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/invoices`,
      headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': key },
      payload,
    });
  // 20 credits: ten 1-credit invoices (+1 reserved each) fit; the database refuses the rest.
  const requests = Array.from({ length: 30 }, (_, i) => {
    if (i % 3 === 1) return send({ amount: '1', successUrl: 'https://not-allowed.example.com/x' }, `burst-key-${i}`);
    if (i % 3 === 2)
      return send({ amount: '1', payTo: '0x000000000000000000000000000000000000dead' }, `burst-key-${i}`);
    return send({ amount: `${i + 1}` }, `burst-key-${i}`);
  });
  const responses = await Promise.all(requests);
  responses.forEach((response, i) => {
    const expected =
      i % 3 === 1 ? [400, 'return_origin_not_allowed'] : i % 3 === 2 ? [403, 'pay_to_mismatch'] : [201, undefined];
    expect([response.statusCode, response.json().code]).toEqual(expected);
  });
  const created = responses.filter((response) => response.statusCode === 201).map((response) => response.json());
  expect(created.map((invoice) => invoice.amount).sort()).toEqual(
    Array.from({ length: 10 }, (_, k) => `${3 * k + 1}.000000`).sort(),
  );
  const numbers = created.map((invoice) => Number(invoice.number.slice(4))).sort((a, b) => a - b);
  expect(numbers).toEqual(Array.from({ length: 10 }, (_, k) => k + 1));

  const more = await Promise.all(Array.from({ length: 5 }, (_, i) => send({ amount: '1' }, `burst-extra-${i}`)));
  expect(more.map((response) => response.json().code)).toEqual(Array(5).fill('insufficient_credits'));
  const { rows } = await sql<{ invoices: number; seq: string; balance: string; reserved: string }>`
    SELECT (SELECT count(*)::int FROM invoices WHERE workspace_id = ${shop.workspaceId}) AS invoices,
           (SELECT invoice_seq FROM workspaces WHERE id = ${shop.workspaceId}) AS seq,
           (SELECT balance FROM credit_accounts WHERE workspace_id = ${shop.workspaceId}) AS balance,
           (SELECT reserved FROM credit_accounts WHERE workspace_id = ${shop.workspaceId}) AS reserved`.execute(
    database.db,
  );
  expect(rows[0]).toEqual({ invoices: 10, seq: 10n, balance: 10n, reserved: 10n });
});
