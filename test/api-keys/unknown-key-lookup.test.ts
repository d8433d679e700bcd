import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { ApiKeyService, KEY_CACHE_MS } from '../../src/modules/api-keys/api-key.service.js';
import { RateLimitService } from '../../src/modules/rate-limits/index.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp, merchant } from '../support/app.js';

/** Counts the statements a service sends to the database. */
class CountingPlugin implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count += 1;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

const { app, database } = await createTestApp();
const shop = await merchant(app, ['billing:read']);
const workspaceId = shop.workspaceId as WorkspaceId;
const wrongSecret = shop.apiKey.replace(/.$/, (last) => (last === 'a' ? 'b' : 'a'));
const unknownId = `isk_${'0'.repeat(26)}_${shop.apiKey.slice(-52)}`;

function service() {
  const counter = new CountingPlugin();
  let now = 1_000_000;
  const keys = new ApiKeyService({
    db: database.db.withPlugin(counter),
    // The failed-attempt limit has its own counting; only key lookups are measured here.
    limits: new RateLimitService({ db: database.db }),
    failedAttemptsPerMinute: 1_000_000,
    now: () => now,
  });
  return { keys, counter, advance: (ms: number) => (now += ms) };
}

async function refusal(keys: ApiKeyService, key: string) {
  const error = await keys.authenticate(workspaceId, key, '192.0.2.77').then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeDefined();
  return { code: (error as { code: string }).code, message: (error as Error).message };
}

describe('unknown key ids and wrong secrets are told apart by nothing', () => {
  it('answers a repeated unknown key id from memory, as a repeated wrong secret is', async () => {
    const { keys, counter } = service();
    const unknown = await refusal(keys, unknownId);
    const wrong = await refusal(keys, wrongSecret);
    expect(counter.count).toBe(2);
    // The same answer on both paths.
    expect(unknown).toEqual(wrong);
    expect(unknown.code).toBe('invalid_api_key');

    for (let i = 0; i < 5; i++) {
      expect(await refusal(keys, unknownId)).toEqual(unknown);
      expect(await refusal(keys, wrongSecret)).toEqual(wrong);
    }
    expect(counter.count).toBe(2);
  });

  it('remembers an unknown id only briefly', async () => {
    const { keys, counter, advance } = service();
    await refusal(keys, unknownId);
    advance(KEY_CACHE_MS - 1);
    await refusal(keys, unknownId);
    expect(counter.count).toBe(1);
    advance(2);
    await refusal(keys, unknownId);
    expect(counter.count).toBe(2);
  });

  it('still lets the correct key in', async () => {
    const { keys } = service();
    await refusal(keys, wrongSecret);
    await expect(keys.authenticate(workspaceId, shop.apiKey, '192.0.2.77')).resolves.toMatchObject({
      keyId: shop.keyId,
    });
  });

  it("writes a key's last use once while it is remembered, not on every request", async () => {
    // A key never used: its cached row says so for as long as it is remembered.
    const unused = await merchant(app, ['billing:read']);
    const { keys, counter } = service();
    for (let i = 0; i < 20; i++) {
      await keys.authenticate(unused.workspaceId as WorkspaceId, unused.apiKey, '192.0.2.78');
    }
    // The lookup and one write of last_used_at.
    expect(counter.count).toBe(2);
  });
});
