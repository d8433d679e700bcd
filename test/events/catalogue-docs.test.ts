import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import {
  INVOICE_EVENT_TYPES,
  PAYMENT_INTENT_EVENT_TYPES,
  TRANSFER_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
} from '../../src/modules/events/index.js';

it('docs/change-feed.md lists exactly the kinds of the event catalogue, with its webhook flags', () => {
  const doc = readFileSync(new URL('../../docs/change-feed.md', import.meta.url), 'utf8');
  const table = doc.slice(doc.indexOf('## Event kinds'), doc.indexOf('## Retention'));
  const rows = [...table.matchAll(/^\| `([a-z_.]+)` \|.*\| (yes|no) \|$/gm)].map(
    ([, type, webhook]) => [type!, webhook === 'yes'] as const,
  );
  const kinds = new Set([
    ...INVOICE_EVENT_TYPES,
    ...PAYMENT_INTENT_EVENT_TYPES,
    ...TRANSFER_EVENT_TYPES,
    ...WEBHOOK_EVENT_TYPES,
  ]);
  expect(new Set(rows.map(([type]) => type))).toEqual(kinds);
  expect(rows.filter(([, webhook]) => webhook).map(([type]) => type)).toEqual([...WEBHOOK_EVENT_TYPES]);
});
