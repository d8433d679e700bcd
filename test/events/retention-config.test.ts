import { expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

it('keeps change-feed events 30 days unless EVENT_RETENTION_DAYS says otherwise', () => {
  expect(loadConfig({}).eventRetentionDays).toBe(30);
  expect(loadConfig({ EVENT_RETENTION_DAYS: '7' }).eventRetentionDays).toBe(7);
  for (const bad of ['0', '-1', 'week', '3651']) {
    expect(() => loadConfig({ EVENT_RETENTION_DAYS: bad })).toThrow(ConfigError);
    expect(() => loadConfig({ EVENT_RETENTION_DAYS: bad })).toThrow(/EVENT_RETENTION_DAYS/);
  }
});

it('keeps invoices’ timeline records 400 days unless INVOICE_RETENTION_DAYS says otherwise, never less than the feed', () => {
  expect(loadConfig({}).invoiceRetentionDays).toBe(400);
  expect(loadConfig({ INVOICE_RETENTION_DAYS: '90' }).invoiceRetentionDays).toBe(90);
  expect(loadConfig({ EVENT_RETENTION_DAYS: '500' }).invoiceRetentionDays).toBe(500);
  expect(() => loadConfig({ INVOICE_RETENTION_DAYS: '29' })).toThrow(
    /INVOICE_RETENTION_DAYS.*at least EVENT_RETENTION_DAYS \(30\)/,
  );
  for (const bad of ['0', 'year', '36501'])
    expect(() => loadConfig({ INVOICE_RETENTION_DAYS: bad })).toThrow(ConfigError);
});
