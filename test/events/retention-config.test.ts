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
