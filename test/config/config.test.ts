import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, finalityBlocksOf, loadConfig } from '../../src/config/config.js';

describe('configuration', () => {
  it('takes one relayer key or several, in their order', () => {
    expect(loadConfig({}).relayerPrivateKeys).toEqual([]);
    expect(
      loadConfig({ RELAYER_PRIVATE_KEY: '0x1111111111111111111111111111111111111111111111111111111111111111' })
        .relayerPrivateKeys,
    ).toEqual(['0x1111111111111111111111111111111111111111111111111111111111111111']);
    expect(
      loadConfig({
        RELAYER_PRIVATE_KEYS:
          ' 0x2222222222222222222222222222222222222222222222222222222222222222, 0x1111111111111111111111111111111111111111111111111111111111111111 ',
      }).relayerPrivateKeys,
    ).toEqual([
      '0x2222222222222222222222222222222222222222222222222222222222222222',
      '0x1111111111111111111111111111111111111111111111111111111111111111',
    ]);
  });

  it('takes read replicas as a comma-separated list, a comma inside a URL kept', () => {
    expect(
      loadConfig({
        DATABASE_URL: 'postgres://db-1/invoice',
        DATABASE_READ_URL: 'postgres://u:p,w@db-2/invoice , postgresql://db-3/invoice?sslmode=require',
        DATABASE_READ_MAX_LAG_MS: '250',
      }),
    ).toMatchObject({
      databaseReadUrls: ['postgres://u:p,w@db-2/invoice', 'postgresql://db-3/invoice?sslmode=require'],
      databaseReadMaxLagMs: 250,
    });
  });

  it('has working defaults', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config).toMatchObject({
      role: 'all',
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      databaseDirectUrl: undefined,
      databaseReadUrls: [],
      databaseReadMaxLagMs: 1000,
      dataDir: '/srv/app/.data',
      networks: undefined,
      webhookAllowPrivate: true,
      newWorkspaceCredits: 100,
      maxWorkspacesPerWallet: 20,
      freeGrantsPerIpPerDay: 3,
      nonceRateLimitPerMinute: 30,
      failedApiKeyLimitPerMinute: 20,
      maxInvoiceAmount: 10_000_000_000n,
      headersTimeoutSeconds: 10,
      requestTimeoutSeconds: 30,
      maxConnectionsPerIp: 100,
      trustProxy: false,
      logLevel: 'info',
    });
    expect(config.publicBaseUrl.origin).toBe('http://localhost:3000');
    expect(config.webhookRetrySchedule.at(-1)).toBe(1800);
    expect(Object.isFrozen(config)).toBe(true);
    expect(config.creditPackages).toEqual([
      { id: 'starter', credits: 100, price: 10_000_000n },
      { id: 'growth', credits: 1000, price: 90_000_000n },
      { id: 'scale', credits: 10000, price: 800_000_000n },
    ]);
  });

  it('follows PORT into the default base URL', () => {
    expect(loadConfig({ PORT: '8080' }).publicBaseUrl.origin).toBe('http://localhost:8080');
  });

  const invalid: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PUBLIC_BASE_URL: 'ftp://x' }, 'PUBLIC_BASE_URL'],
    [{ PUBLIC_BASE_URL: 'https://pay.example.com/app' }, 'PUBLIC_BASE_URL'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://pooler/invoice', DATABASE_DIRECT_URL: 'db.internal' }, 'DATABASE_DIRECT_URL'],
    [{ DATABASE_DIRECT_URL: 'postgres://db.internal/invoice' }, 'DATABASE_DIRECT_URL'],
    [{ DATABASE_READ_URL: 'postgres://replica/invoice' }, 'DATABASE_READ_URL'],
    [{ DATABASE_URL: 'postgres://db/invoice', DATABASE_READ_URL: 'replica.internal' }, 'DATABASE_READ_URL'],
    [
      { DATABASE_URL: 'postgres://db/invoice', DATABASE_READ_URL: 'postgres://r/invoice,postgres://r/invoice' },
      'DATABASE_READ_URL',
    ],
    [{ DATABASE_READ_MAX_LAG_MS: '-5' }, 'DATABASE_READ_MAX_LAG_MS'],
    [{ WEBHOOK_ALLOW_PRIVATE: 'maybe' }, 'WEBHOOK_ALLOW_PRIVATE'],
    [{ WEBHOOK_RETRY_SCHEDULE: '5,x' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ NEW_WORKSPACE_CREDITS: '-1' }, 'NEW_WORKSPACE_CREDITS'],
    [{ MAX_WORKSPACES_PER_WALLET: '0' }, 'MAX_WORKSPACES_PER_WALLET'],
    [{ FREE_GRANTS_PER_IP_PER_DAY: 'three' }, 'FREE_GRANTS_PER_IP_PER_DAY'],
    [{ FREE_GRANTS_PER_IP_PER_DAY: '-1' }, 'FREE_GRANTS_PER_IP_PER_DAY'],
    [{ RELAYER_PRIVATE_KEY: '0x123' }, 'RELAYER_PRIVATE_KEY'],
    [
      { RELAYER_PRIVATE_KEYS: '0x1111111111111111111111111111111111111111111111111111111111111111,0x123' },
      'RELAYER_PRIVATE_KEYS',
    ],
    [
      {
        RELAYER_PRIVATE_KEYS:
          '0x1111111111111111111111111111111111111111111111111111111111111111,0x1111111111111111111111111111111111111111111111111111111111111111',
      },
      'RELAYER_PRIVATE_KEYS',
    ],
    [
      {
        RELAYER_PRIVATE_KEYS: '0x1111111111111111111111111111111111111111111111111111111111111111',
        RELAYER_PRIVATE_KEY: '0x2222222222222222222222222222222222222222222222222222222222222222',
      },
      'RELAYER_PRIVATE_KEYS',
    ],
    [
      {
        RELAYER_PRIVATE_KEYS: Array.from({ length: 17 }, (_, i) => `0x${(i + 1).toString(16).padStart(64, '0')}`).join(
          ',',
        ),
      },
      'RELAYER_PRIVATE_KEYS',
    ],
    [{ OPERATOR_WALLET: 'alice' }, 'OPERATOR_WALLET'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ ROLE: 'scheduler' }, 'ROLE'],
    [{ MAX_INVOICE_AMOUNT: '1e6' }, 'MAX_INVOICE_AMOUNT'],
    [{ NETWORKS: '[{"name":"base"}]' }, 'NETWORKS'],
    [{ NETWORKS: '{' }, 'NETWORKS'],
    [{ NETWORKS: './missing.json' }, 'NETWORKS'],
    [{ HEADERS_TIMEOUT_SECONDS: '0' }, 'HEADERS_TIMEOUT_SECONDS'],
    [{ HEADERS_TIMEOUT_SECONDS: '20', REQUEST_TIMEOUT_SECONDS: '10' }, 'REQUEST_TIMEOUT_SECONDS'],
    [{ NONCE_RATE_LIMIT_PER_MINUTE: '0' }, 'NONCE_RATE_LIMIT_PER_MINUTE'],
    [{ FAILED_API_KEY_LIMIT_PER_MINUTE: 'many' }, 'FAILED_API_KEY_LIMIT_PER_MINUTE'],
    [{ MAX_CONNECTIONS_PER_IP: '0' }, 'MAX_CONNECTIONS_PER_IP'],
    [{ MAX_CONNECTIONS_PER_IP: '100001' }, 'MAX_CONNECTIONS_PER_IP'],
    [{ TRUST_PROXY: '0' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '11' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '-1' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.1,,10.0.0.2' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '127.1' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'fd00::/129' }, 'TRUST_PROXY'],
    [{ CREDIT_PACKAGES: '[]' }, 'CREDIT_PACKAGES'],
    [{ CREDIT_PACKAGES: '{' }, 'CREDIT_PACKAGES'],
    [{ CREDIT_PACKAGES: './missing.json' }, 'CREDIT_PACKAGES'],
    [{ CREDIT_PACKAGES: '[{"id":"Big Pack","credits":10,"price":"1"}]' }, 'CREDIT_PACKAGES'],
    [
      { CREDIT_PACKAGES: '[{"id":"a","credits":10,"price":"1"},{"id":"a","credits":20,"price":"2"}]' },
      'CREDIT_PACKAGES',
    ],
    [{ CREDIT_PACKAGES: '[{"id":"a","credits":0,"price":"1"}]' }, 'CREDIT_PACKAGES'],
    [{ CREDIT_PACKAGES: '[{"id":"a","credits":1.5,"price":"1"}]' }, 'CREDIT_PACKAGES'],
    [{ CREDIT_PACKAGES: '[{"id":"a","credits":10,"price":"0"}]' }, 'CREDIT_PACKAGES'],
    [{ CREDIT_PACKAGES: '[{"id":"a","credits":10,"price":10}]' }, 'CREDIT_PACKAGES'],
    [{ CREDIT_PACKAGES: '[{"id":"a","credits":10,"price":"1.2345678"}]' }, 'CREDIT_PACKAGES'],
  ];

  it.each(invalid)('names the variable in the error for %o', (env, variable) => {
    expect(() => loadConfig(env)).toThrowError(ConfigError);
    expect(() => loadConfig(env)).toThrowError(new RegExp(`^${variable}`));
  });

  const DATABASE_URL = 'postgres://db.internal/invoice';

  it('reads ROLE in any case', () => {
    const network = {
      name: 'base-sepolia',
      chainId: 84532,
      rpcUrl: 'http://127.0.0.1:8545',
      usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    };
    const shared = { DATABASE_URL, NETWORKS: JSON.stringify([network]) };
    expect(loadConfig({ ...shared, ROLE: 'api' }).role).toBe('api');
    expect(loadConfig({ ...shared, ROLE: ' Worker ' }).role).toBe('worker');
    expect(loadConfig({ ROLE: 'ALL' }).role).toBe('all');
  });

  it('allows private webhook receivers by default only in the local demo', () => {
    const NETWORKS = JSON.stringify([
      {
        name: 'base',
        chainId: 8453,
        rpcUrl: 'https://rpc.example',
        usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      },
    ]);
    expect(loadConfig({}).webhookAllowPrivate).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'false' }).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ NETWORKS }).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ NETWORKS, WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate).toBe(true);
  });

  it('refuses a split role on state only one process can hold', () => {
    expect(() => loadConfig({ ROLE: 'api' })).toThrowError(/^ROLE: api needs DATABASE_URL and NETWORKS/);
    expect(() => loadConfig({ ROLE: 'worker', DATABASE_URL })).toThrowError(/^ROLE: worker needs NETWORKS/);
  });

  it('reads NETWORKS from a file', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'config-'));
    const network = {
      name: 'base-sepolia',
      chainId: 84532,
      rpcUrl: 'http://127.0.0.1:8545',
      usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      confirmations: 2,
    };
    writeFileSync(path.join(dir, 'networks.json'), JSON.stringify([network]));
    const { rpcUrl, ...rest } = network;
    expect(loadConfig({ NETWORKS: 'networks.json' }, dir).networks).toEqual([{ ...rest, rpcUrls: [rpcUrl] }]);
  });

  it("reads a network's providers from rpcUrls in order, and rpcUrl as a list of one", () => {
    const network = {
      name: 'base',
      chainId: 8453,
      usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      rpcUrl: 'https://rpc.example',
    };
    const urls = ['https://one.example/v2/key', 'wss://two.example', 'http://127.0.0.1:8545'];
    const parse = (entry: object) => loadConfig({ NETWORKS: JSON.stringify([network, { ...network, ...entry }]) });
    expect(parse({ name: 'base-2', rpcUrl: undefined, rpcUrls: urls }).networks?.[1]?.rpcUrls).toEqual(urls);
    expect(parse({ name: 'base-2', rpcUrl: urls[0] }).networks?.[1]?.rpcUrls).toEqual([urls[0]]);
  });

  it.each([
    [{}, /^NETWORKS: NETWORKS\[1\]\.rpcUrls must be a list of http\(s\) or ws\(s\) URLs$/],
    [{ rpcUrls: [] }, /^NETWORKS: NETWORKS\[1\]\.rpcUrls must be a list of 1 to 10/],
    [{ rpcUrls: 'https://one.example' }, /^NETWORKS: NETWORKS\[1\]\.rpcUrls must be a list of 1 to 10/],
    [{ rpcUrls: ['https://one.example', 'ftp://two.example'] }, /^NETWORKS: NETWORKS\[1\]\.rpcUrls\[1\] must be/],
    [
      { rpcUrls: ['https://one.example', 'https://one.example'] },
      /^NETWORKS: NETWORKS\[1\]\.rpcUrls lists the same URL twice/,
    ],
    [{ rpcUrl: 'one.example' }, /^NETWORKS: NETWORKS\[1\]\.rpcUrl must be an http\(s\) or ws\(s\) URL/],
    [
      { rpcUrl: 'https://one.example', rpcUrls: ['https://two.example'] },
      /^NETWORKS: NETWORKS\[1\] has both rpcUrl and rpcUrls/,
    ],
  ])('names the entry and the field of bad providers %o', (providers, message) => {
    const good = { name: 'base', chainId: 8453, rpcUrl: 'https://rpc.example', usdc: `0x${'1'.repeat(40)}` };
    const bad = { name: 'base-sepolia', chainId: 84532, usdc: `0x${'2'.repeat(40)}`, ...providers };
    expect(() => loadConfig({ NETWORKS: JSON.stringify([good, bad]) })).toThrowError(message);
  });

  it("reads a network's optional finalityBlocks, refuses a bad one, and defaults it by chain id", () => {
    const network = {
      name: 'base-sepolia',
      chainId: 84532,
      rpcUrl: 'http://127.0.0.1:8545',
      usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    };
    const withFinality = (finalityBlocks: unknown) => JSON.stringify([{ ...network, finalityBlocks }]);
    expect(loadConfig({ NETWORKS: withFinality(12) }).networks?.[0]?.finalityBlocks).toBe(12);
    expect(() => loadConfig({ NETWORKS: withFinality(0) })).toThrowError(
      /^NETWORKS: NETWORKS\[0\]\.finalityBlocks must be an integer from 1 to 100000/,
    );
    expect(finalityBlocksOf({ chainId: 84532 })).toBe(900);
    expect(finalityBlocksOf({ chainId: 1 })).toBe(64);
    expect(finalityBlocksOf({ chainId: 31337 })).toBe(64);
    expect(finalityBlocksOf({ chainId: 1, finalityBlocks: 3 })).toBe(3);
  });

  it("reads a network's optional explorerUrl without its trailing slash, and refuses one that is not https", () => {
    const network = {
      name: 'base-sepolia',
      chainId: 84532,
      rpcUrl: 'http://127.0.0.1:8545',
      usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    };
    const withExplorer = (explorerUrl: unknown) => JSON.stringify([{ ...network, explorerUrl }]);
    expect(loadConfig({ NETWORKS: withExplorer('https://sepolia.basescan.org/') }).networks?.[0]?.explorerUrl).toBe(
      'https://sepolia.basescan.org',
    );
    expect(loadConfig({ NETWORKS: JSON.stringify([network]) }).networks?.[0]).not.toHaveProperty('explorerUrl');
    for (const bad of ['http://sepolia.basescan.org', 'javascript:alert(1)', 'https://x.example/?q=1', 42])
      expect(() => loadConfig({ NETWORKS: withExplorer(bad) })).toThrowError(
        /^NETWORKS: NETWORKS\[0\]\.explorerUrl must be/,
      );
  });

  it('reads CREDIT_PACKAGES from the variable or a file, prices to micro-units', () => {
    const packages = [
      { id: 'small', credits: 50, price: '4.99' },
      { id: 'big_one', credits: 5000, price: '400' },
    ];
    const expected = [
      { id: 'small', credits: 50, price: 4_990_000n },
      { id: 'big_one', credits: 5000, price: 400_000_000n },
    ];
    expect(loadConfig({ CREDIT_PACKAGES: JSON.stringify(packages) }).creditPackages).toEqual(expected);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'config-'));
    writeFileSync(path.join(dir, 'packages.json'), JSON.stringify(packages));
    expect(loadConfig({ CREDIT_PACKAGES: 'packages.json' }, dir).creditPackages).toEqual(expected);
  });

  it('reads TRUST_PROXY as a hop count or as a list of proxy addresses and ranges', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: ' 2 ' }).trustProxy).toBe(2);
    const list = loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.7,fd00::/8 , ::1' }).trustProxy;
    expect(list).toEqual(['10.0.0.0/8', '192.0.2.7', 'fd00::/8', '::1']);
    expect(Object.isFrozen(list)).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '' }).trustProxy).toBe(false);
  });

  it('says what TRUST_PROXY accepts and which entry is wrong', () => {
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/8, proxy.internal' })).toThrowError(
      /^TRUST_PROXY: expected a hop count .* or a comma-separated list .*; "proxy.internal" is neither an IP address nor a CIDR range$/,
    );
    expect(() => loadConfig({ TRUST_PROXY: '0' })).toThrowError(
      'TRUST_PROXY: a hop count must be between 1 and 10, got 0 (leave TRUST_PROXY unset to trust no proxy)',
    );
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.1,' })).toThrowError(/; an entry is empty$/);
  });

  it('says which package and field is wrong', () => {
    expect(() =>
      loadConfig({ CREDIT_PACKAGES: '[{"id":"a","credits":10,"price":"1"},{"id":"b","credits":-2,"price":"1"}]' }),
    ).toThrowError(/^CREDIT_PACKAGES: CREDIT_PACKAGES\[1\]\.credits must be/);
    expect(() =>
      loadConfig({ CREDIT_PACKAGES: '[{"id":"a","credits":1,"price":"1"},{"id":"a","credits":2,"price":"2"}]' }),
    ).toThrowError('CREDIT_PACKAGES: duplicate package id "a"');
  });
});
