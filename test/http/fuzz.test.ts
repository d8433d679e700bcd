import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/modules/api-keys/api-key.js';
import { systemClock } from '../../src/shared/clock.js';
import { ORIGIN, createTestApp, merchant } from '../support/app.js';
import { createTestChain } from '../support/chain.js';
import { idProbes, type IdProbe, type OpenApiPaths } from '../support/id-sweep.js';
import { contractProblems, rawRequest, sendRaw } from '../support/raw-http.js';
import { belowRouterProbes } from '../support/raw-requests.js';
import { routeTable } from '../support/route-table.js';
import { workspaceRouteTable } from '../../src/main/route-table.js';

/**
 * Property: whatever a client sends to any route — path, query, headers, body — the answer is never a
 * 5xx, every refusal follows the error contract ({code, message, requestId} and both headers), and the
 * service stays healthy. Routes come from the app's own route table, so a new route is fuzzed from the
 * day it exists. Bounded: REQUESTS requests through `inject`, about a minute.
 */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 20_000);

const chain = await createTestChain();
const demo = {
  chainId: 84532,
  rpcUrl: chain.rpcUrl,
  merchant: privateKeyToAccount(generatePrivateKey()),
  buyer: privateKeyToAccount(generatePrivateKey()),
};
const { app, services } = await createTestApp(
  {
    API_RATE_LIMIT_PER_MINUTE: '10000000',
    CHECKOUT_RATE_LIMIT_PER_MINUTE: '10000000',
    NEW_WORKSPACE_CREDITS: '1000000',
  },
  systemClock,
  chain,
  demo,
);
const owner = await merchant(app, [...PERMISSIONS]);
const invoiceIds: string[] = [];
for (let i = 0; i < 3; i++) {
  const created = await app.inject({
    method: 'POST',
    url: `/w/${owner.workspaceId}/v1/invoices`,
    headers: { authorization: `Bearer ${owner.apiKey}`, 'idempotency-key': `fuzz-seed-${i}-${Date.now()}` },
    payload: { amount: '1.5' },
  });
  invoiceIds.push(created.json<{ id: string }>().id);
}
const purchaseId = (
  await app.inject({
    method: 'POST',
    url: `/w/${owner.workspaceId}/v1/credit-purchases`,
    headers: { authorization: `Bearer ${owner.apiKey}`, 'idempotency-key': `fuzz-seed-purchase-${Date.now()}` },
    payload: { packageId: 'starter' },
  })
).json<{ id: string }>().id;
const routes = routeTable(app);

/** Valid example bodies the route table carries, by `METHOD /path`: mutated one field at a time, they reach past validation. */
const table = workspaceRouteTable(services);
const examples = new Map<string, Record<string, unknown>>();
for (const [routes, prefixes] of [
  [table.shared, ['/w/:workspaceId/v1', '/portal/api/w/:workspaceId']],
  [table.portalOnly, ['/portal/api/w/:workspaceId']],
] as const) {
  for (const route of routes) {
    for (const prefix of prefixes)
      if (route.example?.body)
        examples.set(`${route.method} ${prefix}${route.url}`, route.example.body as Record<string, unknown>);
  }
}
const mutated = (example: Record<string, unknown>) =>
  fc.oneof(
    fc.constant(example),
    fc
      .tuple(fc.constantFrom(...Object.keys(example), ...FIELD_NAMES), value)
      .map(([field, replacement]) => ({ ...example, [field]: replacement })),
  );

const NASTY = [
  '',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '%00',
  '%ff',
  '%ED%A0%80',
  '9223372036854775808',
  '-9223372036854775809',
  '1e309',
  '-1',
  '0',
  'null',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  'https://user:pw@shop.example.com/',
  "'; DROP TABLE invoices; --",
  'Bearer isk_key_secret',
  'x'.repeat(300),
  'é'.repeat(2000),
];
const PLAUSIBLE = [
  '1.5',
  '0.000001',
  '12,50',
  'base-sepolia',
  'USDC',
  'https://shop.example.com/ok',
  `0x${'ab'.repeat(32)}`,
  `0x${'11'.repeat(20)}`,
  '1',
  'INV-000001',
  'help@example.com',
  '#0052ff',
];
const nastyString = fc.oneof(
  fc.constantFrom(...NASTY, ...PLAUSIBLE),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 12 }),
);
const leaf = fc.oneof(
  nastyString,
  fc.integer(),
  fc.constantFrom(2 ** 53, 2 ** 63, -(2 ** 63), 1e308, 3600, 86400, 432000, 0.5, true, false, null),
);

/** JSON text nested `depth` deep, alone or as a batch item (kept as text: it is deeper than JSON.stringify goes). */
const deep = fc
  .tuple(fc.integer({ min: 20, max: 20_000 }), fc.constantFrom('[', '{"a":'))
  .chain(([depth, open]) => fc.constantFrom(nest(depth, open), `{"items":[${nest(depth, open)}],"budgetCredits":100}`));

function nest(depth: number, open: string): string {
  return open.repeat(depth) + '1' + (open === '[' ? ']' : '}').repeat(depth);
}

const FIELD_NAMES = [
  'amount',
  'currency',
  'network',
  'expiresIn',
  'externalId',
  'successUrl',
  'cancelUrl',
  'number',
  'payTo',
  'items',
  'budgetCredits',
  'origins',
  'endpoint',
  'enabled',
  'rotate',
  'eventId',
  'name',
  'description',
  'supportContact',
  'accentColor',
  'permissions',
  'txHash',
  'authorization',
  'signature',
  'message',
  'role',
  'method',
  'params',
  'from',
  'to',
  'value',
  'validAfter',
  'validBefore',
  'nonce',
  'packageId',
  '__proto__',
  'constructor',
];
const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...FIELD_NAMES), tie('value'), { maxKeys: 4 }),
  ),
})).value;
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELD_NAMES), value, { maxKeys: 6 }),
  fc.record({
    items: fc.array(fc.dictionary(fc.constantFrom(...FIELD_NAMES), value, { maxKeys: 4 }), { maxLength: 30 }),
    budgetCredits: leaf,
  }),
  value,
  fc.constant(undefined),
);
const rawBody = fc.oneof(
  deep,
  fc.constantFrom('{', '{"amount":', 'null', '""', '[]', '\u0000', '{"a":"\\u0000"}', '{"amount":"\\ud800"}'),
);

const segment = (name: string) =>
  fc.oneof(
    name === 'workspaceId'
      ? fc.constant(owner.workspaceId)
      : name === 'invoiceId'
        ? fc.constantFrom(...invoiceIds)
        : name === 'purchaseId'
          ? fc.constant(purchaseId)
          : fc.constant(`${name.slice(0, 3)}_0000000000000000000000`),
    nastyString.map(encodeSegment),
    fc.constantFrom('%00', '%ff', '%ED%A0%80', 'a'.repeat(150), '..', '%2F'),
  );

const paymentHeader = fc
  .record(
    {
      x402Version: fc.constantFrom(1, 2, 3, '2', null),
      accepted: value,
      payload: value,
      scheme: value,
      network: value,
    },
    { requiredKeys: [] },
  )
  .map((decoded) => Buffer.from(JSON.stringify(decoded)).toString('base64'));

const request = fc.constantFrom(...routes).chain((route) => {
  const example = examples.get(`${route.method} ${route.path}`);
  const json = example ? fc.oneof(body, mutated(example)) : body;
  return fc.record({
    route: fc.constant(route),
    query: fc.dictionary(
      fc.constantFrom('q', 'cursor', 'limit', 'after', 'status', 'api_key', 'token', 'x'),
      nastyString.map(encodeSegment),
      { maxKeys: 3 },
    ),
    auth: fc.constantFrom('owner', 'none', 'garbage'),
    session: fc.boolean(),
    origin: fc.constantFrom(ORIGIN, undefined, 'https://evil.example'),
    contentType: fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'multipart/form-data; boundary=x',
      undefined,
    ),
    idempotencyKey: fc.option(
      nastyString.filter((key) => !/[^\t\x20-\x7e\x80-\xff]/.test(key)),
      { nil: undefined },
    ),
    payment: fc.option(
      fc.oneof(
        paymentHeader,
        nastyString.filter((text) => /^[\x20-\x7e]*$/.test(text)),
      ),
      { nil: undefined },
    ),
    body: fc.oneof(
      { weight: 5, arbitrary: json.map((json) => ({ json })) },
      { weight: 1, arbitrary: rawBody.map((raw) => ({ raw })) },
    ),
    segments: fc.tuple(...['workspaceId', 'invoiceId', 'keyId', 'paymentIntentId', 'purchaseId', 'file'].map(segment)),
  });
});

function inErrorContract(response: { body: string; headers: Record<string, unknown> }): boolean {
  try {
    const error = JSON.parse(response.body) as { code?: unknown; message?: unknown; requestId?: unknown };
    return (
      typeof error.code === 'string' &&
      /^[a-z][a-z0-9_]*$/.test(error.code) &&
      typeof error.message === 'string' &&
      error.message.length > 0 &&
      error.requestId === response.headers['x-request-id']
    );
  } catch {
    return false;
  }
}

function encodeSegment(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80'; // a lone surrogate, encoded as a client would send its bytes
  }
}

it(
  `answers ${REQUESTS} generated bad requests to every route without a 5xx, each refusal in the error contract`,
  { timeout: 300_000 },
  async () => {
    expect(routes.length).toBeGreaterThan(50);
    let sent = 0;
    const statuses = new Map<number, number>();
    // Every distinct failure (kind, status, code) with one example, so one run shows every root cause.
    const failures = new Map<string, string>();
    const fail = (kind: string, status: number, body: string, example: string) => {
      const key = `${kind} ${status} ${/"code":"([^"]+)"/.exec(body)?.[1] ?? ''}`;
      if (!failures.has(key)) failures.set(key, example);
    };
    await fc.assert(
      fc.asyncProperty(request, async (generated) => {
        const [workspaceId, invoiceId, keyId, paymentIntentId, purchaseId, file] = generated.segments;
        const values: Record<string, string | undefined> = {
          workspaceId,
          invoiceId,
          keyId,
          paymentIntentId,
          purchaseId,
          file,
          '*': file,
        };
        const path = generated.route.path.replace(
          /:(\w+)|\*/g,
          (_, name: string | undefined) => values[name ?? '*'] ?? 'x',
        );
        const query = Object.entries(generated.query)
          .map(([key, text]) => `${key}=${text}`)
          .join('&');
        const headers: Record<string, string> = { accept: 'application/json' };
        if (generated.auth === 'owner') headers.authorization = `Bearer ${owner.apiKey}`;
        if (generated.auth === 'garbage') headers.authorization = 'Bearer isk_key_0000000000000000000000_secret';
        // Sign-out would end the session the rest of the run uses.
        if (generated.session && !generated.route.path.startsWith('/auth')) headers.cookie = owner.cookie;
        if (generated.origin) headers.origin = generated.origin;
        if (generated.contentType) headers['content-type'] = generated.contentType;
        if (generated.idempotencyKey !== undefined) headers['idempotency-key'] = generated.idempotencyKey;
        if (generated.payment !== undefined) headers['payment-signature'] = headers['x-payment'] = generated.payment;
        const payload =
          'raw' in generated.body
            ? generated.body.raw
            : generated.body.json === undefined
              ? undefined
              : JSON.stringify(generated.body.json);
        const hasBody =
          generated.route.method !== 'GET' && generated.route.method !== 'DELETE' && payload !== undefined;

        const response = await app.inject({
          method: generated.route.method as 'GET',
          url: query ? `${path}?${query}` : path,
          headers,
          ...(hasBody && { payload }),
        });
        sent += 1;
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        const where = `${generated.route.method} ${path}${query ? `?${query}` : ''} ${hasBody ? ` ${String(payload).slice(0, 200)}` : ''} → ${response.statusCode} ${response.body.slice(0, 300)}`;
        const { statusCode: status, body } = response;
        if (status >= 500) fail('5xx', status, body, where);
        if (
          response.headers['x-api-version'] !== '1.1.0' ||
          !response.headers['x-request-id'] ||
          response.headers['x-content-type-options'] !== 'nosniff' ||
          !response.headers['cache-control']
        )
          fail('missing headers', status, body, where);
        // The x402 endpoint's 402 is the x402 protocol's own body (x402Version, error, accepts), which payers parse.
        const x402Challenge =
          status === 402 && generated.route.path.includes('/x402/') && body.includes('"x402Version"');
        if (status >= 400 && !x402Challenge && !inErrorContract(response))
          fail('error outside the contract', status, body, where);
      }),
      { numRuns: REQUESTS, endOnFailure: true },
    );
    console.log(
      `fuzz: ${sent} requests over ${routes.length} routes; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`,
    );
    expect([...failures].map(([key, example]) => `${key}\n    e.g. ${example}`)).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(REQUESTS);

    // Healthy afterwards: the database answers and a valid invoice is still created.
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const created = await app.inject({
      method: 'POST',
      url: `/w/${owner.workspaceId}/v1/invoices`,
      headers: { authorization: `Bearer ${owner.apiKey}`, 'idempotency-key': `fuzz-after-${Date.now()}` },
      payload: { amount: '2' },
    });
    expect(created.statusCode).toBe(201);
  },
);

// Over a real socket from here on: what Node's HTTP server and its parser answer is seen only there.
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as AddressInfo).port;

/** Runs `send` for every item, `parallel` at a time. */
async function inParallel<T>(items: readonly T[], send: (item: T) => Promise<void>, parallel = 8): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await send(items[next++]!);
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** The owner's credentials where each kind of route takes them, and a fresh Idempotency-Key for a body. */
function probeHeaders(probe: IdProbe, n: number): Record<string, string> {
  const headers: Record<string, string> = { Host: 'localhost:3000', Accept: 'application/json', Connection: 'close' };
  if (/^\/w\/[^/]+\/v1\//.test(probe.path)) headers.Authorization = `Bearer ${owner.apiKey}`;
  if (/^\/(portal|auth)\//.test(probe.path)) Object.assign(headers, { Cookie: owner.cookie, Origin: ORIGIN });
  if (probe.body !== undefined)
    Object.assign(headers, { 'Content-Type': 'application/json', 'Idempotency-Key': `huge-id-${n}` });
  return headers;
}

it(
  'answers every field of every operation set to 2^53, 2^63 − 1, 2^63 or 2^64, as a number or a string, without a 5xx and in the contract',
  { timeout: 300_000 },
  async () => {
    // A retry reaches the event lookup only once an endpoint is set (a public address: no DNS needed).
    const configured = await app.inject({
      method: 'PUT',
      url: `/w/${owner.workspaceId}/v1/webhook`,
      headers: { authorization: `Bearer ${owner.apiKey}` },
      payload: { endpoint: 'https://1.1.1.1/hooks', enabled: true },
    });
    expect(configured.statusCode, configured.body).toBe(200);
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<OpenApiPaths>();
    // Sign-out would end the session the rest of the run uses.
    const probes = idProbes(
      routes.filter((route) => route.path !== '/auth/logout'),
      document,
      { workspaceId: owner.workspaceId, invoiceId: invoiceIds[0]!, purchaseId },
    );
    const fields = new Set(probes.map((probe) => `${probe.route.method} ${probe.route.path} ${probe.field}`));
    for (const field of ['POST /w/:workspaceId/v1/webhook/retry eventId', 'GET /w/:workspaceId/v1/changes after'])
      expect(fields).toContain(field);

    const failures = new Set<string>();
    let sent = 0;
    await inParallel(probes, async (probe) => {
      const target = probe.query ? `${probe.path}?${probe.query}` : probe.path;
      const withBody = probe.route.method !== 'GET' && probe.route.method !== 'DELETE';
      const request = rawRequest(
        probe.route.method,
        target,
        probeHeaders(probe, sent++),
        withBody ? probe.body : undefined,
      );
      const response = await sendRaw(port, request);
      const code = /"code":"([^"]+)"/.exec(response.body)?.[1] ?? '';
      for (const problem of contractProblems(response))
        failures.add(
          `${problem}: ${probe.route.method} ${probe.route.path} ${probe.field} as ${probe.as} → ${response.status} ${code}`,
        );
    });
    console.log(`huge ids: ${sent} requests, ${fields.size} fields of ${routes.length} routes`);
    expect([...failures]).toEqual([]);
  },
);

const SECURE_HOST = 'pay.example.com';
const secure = await createTestApp({ PUBLIC_BASE_URL: `https://${SECURE_HOST}` });
await secure.app.listen({ port: 0, host: '127.0.0.1' });
const securePort = (secure.app.server.address() as AddressInfo).port;

it(
  'answers requests refused below the router, to every route over a raw socket, in the contract with every header (https)',
  { timeout: 300_000 },
  async () => {
    const secureRoutes = routeTable(secure.app);
    const probes = secureRoutes.flatMap((route) => {
      const path = route.path.replace(
        /:(\w+)|\*/g,
        (_, name: string | undefined) => `${(name ?? 'file').slice(0, 3)}_0000000000000000000000`,
      );
      return belowRouterProbes(path, SECURE_HOST).map((probe) => ({ route, probe }));
    });
    const failures = new Set<string>();
    const statuses = new Map<number, number>();
    await inParallel(probes, async ({ route, probe }) => {
      const response = await sendRaw(securePort, probe.text);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const code = /"code":"([^"]+)"/.exec(response.body)?.[1] ?? '';
      const problems = contractProblems(response, { https: true, head: probe.head });
      if (probe.expected && (probe.expected.status !== response.status || probe.expected.code !== code))
        problems.push(`not ${probe.expected.status} ${probe.expected.code}`);
      for (const problem of problems)
        failures.add(`${problem}: ${probe.name} to ${route.method} ${route.path} → ${response.status} ${code}`);
    });
    console.log(
      `below the router: ${probes.length} requests over ${secureRoutes.length} routes; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect([...failures]).toEqual([]);
  },
);
