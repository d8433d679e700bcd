import { createHmac } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/http/error-status.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/modules/events/index.js';
import { TEST_EVENT_TYPE } from '../../src/modules/webhooks/index.js';
import type { ErrorCode } from '../../src/shared/errors.js';
import { createTestApp, merchant, merchantApi } from '../support/app.js';

/**
 * The API document's examples are true: every operation shows a request (when it takes a body), a success
 * and each error it answers; every example fits its schema; every error example's code is one the
 * catalogue answers with that status. The merchant API's main operations are then called with their own
 * request examples and must answer as documented.
 */

interface Example {
  summary?: string;
  value: unknown;
}
interface Media {
  schema?: object;
  examples?: Record<string, Example>;
}
interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; schema?: object; example?: unknown }[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media>; headers?: Record<string, Header> }>;
}
interface Header {
  schema?: { contentSchema?: object };
  example?: unknown;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: { schemas: Record<string, object> };
}

const { app } = await createTestApp({ NEW_WORKSPACE_CREDITS: '1000' });
const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<Document>();

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const validators = new Map<object, ValidateFunction>();
/** Validates against a schema of the document; its `#/components/…` references resolve in the document. */
function validate(schema: object, value: unknown): string[] {
  let check = validators.get(schema);
  if (!check) {
    check = ajv.compile({ ...schema, components: document.components });
    validators.set(schema, check);
  }
  return check(value) ? [] : (check.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, ...operation })),
);
const successOf = (operation: Operation) =>
  Object.entries(operation.responses ?? {}).find(([status]) => /^2\d\d$/.test(status));

/** Operations that answer no body on success, so they can show no success example. */
const EMPTY_SUCCESS = new Set(['POST /auth/logout']);
/** Operations that truly cannot fail: none today; one would be named here. */
const CANNOT_FAIL = new Set<string>();

describe('the examples of the API document', () => {
  it('show a request for every body, a success and at least one error for every operation', () => {
    const missing: string[] = [];
    for (const operation of operations) {
      const body = operation.requestBody?.content;
      if (body && Object.values(body).some((media) => !media.examples))
        missing.push(`${operation.name}: request example`);
      const [, success] = successOf(operation) ?? [];
      if (!EMPTY_SUCCESS.has(operation.name) && !Object.values(success?.content ?? {}).some((media) => media.examples))
        missing.push(`${operation.name}: success example`);
      const errors = Object.entries(operation.responses ?? {}).filter(([status]) => Number(status) >= 400);
      if (!CANNOT_FAIL.has(operation.name) && errors.length === 0) missing.push(`${operation.name}: no error`);
      for (const [status, response] of errors) {
        if (!response.content?.['application/json']?.examples) missing.push(`${operation.name}: ${status} example`);
      }
    }
    expect(missing).toEqual([]);
    expect(operations.length).toBeGreaterThanOrEqual(84);
  });

  it('fit their schemas, request, success and error alike', () => {
    const invalid: string[] = [];
    for (const operation of operations) {
      const media = [
        ...Object.values(operation.requestBody?.content ?? {}).map((m) => ['request', m] as const),
        ...Object.entries(operation.responses ?? {}).flatMap(([status, response]) =>
          Object.values(response.content ?? {}).map((m) => [status, m] as const),
        ),
      ];
      for (const [where, { schema, examples }] of media) {
        for (const [name, example] of Object.entries(examples ?? {})) {
          for (const problem of validate(schema ?? {}, example.value))
            invalid.push(`${operation.name} ${where} ${name}: ${problem}`);
        }
      }
    }
    expect(invalid).toEqual([]);
  });

  it('name, under each error status, only codes the catalogue answers with that status', () => {
    const wrong: string[] = [];
    let count = 0;
    for (const operation of operations) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (Number(status) < 400 || Number(status) === 402) continue;
        for (const [name, example] of Object.entries(response.content?.['application/json']?.examples ?? {})) {
          const code = (example.value as { code?: string }).code as ErrorCode;
          count += 1;
          if (name !== code || ERROR_STATUS[code] !== Number(status))
            wrong.push(`${operation.name} ${status}: ${name} → ${code} (${ERROR_STATUS[code]})`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(count).toBeGreaterThan(400);
  });

  it('show two errors of one status side by side', () => {
    const created = document.paths['/w/{workspaceId}/v1/invoices']!.post!;
    const badRequests = Object.keys(created.responses!['400']!.content!['application/json']!.examples!);
    expect(badRequests).toEqual(
      expect.arrayContaining(['invalid_request', 'idempotency_key_missing', 'invalid_amount']),
    );
  });
});

describe('the x402 endpoint in the document', () => {
  const invoice = document.paths['/w/{workspaceId}/x402/{invoiceId}'];

  it('is documented for GET and POST, for invoices and credit purchases, under the x402 tag', () => {
    expect(Object.keys(invoice ?? {})).toEqual(['get', 'post']);
    expect(document.paths['/w/{workspaceId}/x402/credit-purchases/{purchaseId}']?.post).toBeDefined();
    expect((invoice!.get as { tags?: string[] }).tags).toEqual(['x402']);
    const headers = invoice!.post!.parameters!.filter((p) => p.in === 'header').map((p) => p.name);
    expect(headers).toEqual(['PAYMENT-SIGNATURE', 'X-PAYMENT']);
    expect(Object.keys(invoice!.get!.responses!)).toEqual(
      expect.arrayContaining(['200', '202', '402', '403', '404', '409', '429']),
    );
    expect(Object.keys(invoice!.get!.responses!['200']!.headers!)).toEqual(['PAYMENT-RESPONSE', 'X-PAYMENT-RESPONSE']);
  });

  it('shows base64 headers that decode to their documented JSON', () => {
    for (const [status, name] of [
      ['402', 'PAYMENT-REQUIRED'],
      ['200', 'PAYMENT-RESPONSE'],
    ] as const) {
      const header = invoice!.get!.responses![status]!.headers![name]!;
      const decoded: unknown = JSON.parse(Buffer.from(String(header.example), 'base64').toString('utf8'));
      expect(validate(header.schema!.contentSchema!, decoded)).toEqual([]);
    }
  });

  it('documents the 402 the endpoint really answers', async () => {
    const owner = await merchant(app, ['invoices:create', 'invoices:read']);
    const api = merchantApi(app, owner.workspaceId, owner.apiKey);
    const created = await api('POST', '/invoices', { 'idempotency-key': 'x402-doc-1' }, { amount: '1.25' });
    const { url } = created.json<{ url: string }>();
    const answer = await app.inject({ method: 'GET', url: new URL(url).pathname });
    expect(answer.statusCode).toBe(402);
    const media = invoice!.get!.responses!['402']!.content!['application/json']!;
    expect(validate(media.schema!, answer.json())).toEqual([]);
    const header = invoice!.get!.responses!['402']!.headers!['PAYMENT-REQUIRED']!;
    const decoded: unknown = JSON.parse(Buffer.from(String(answer.headers['payment-required']), 'base64').toString());
    expect(validate(header.schema!.contentSchema!, decoded)).toEqual([]);
  });
});

describe('the webhooks section', () => {
  it('has one POST per kind the service sends, with a signed example body that fits its schema', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE].sort());
    for (const [kind, { post }] of Object.entries(document.webhooks)) {
      const media = post.requestBody!.content!['application/json']!;
      const body = Object.values(media.examples!)[0]!.value as { type: string; id: string };
      expect(body.type).toBe(kind);
      expect(validate(media.schema!, body)).toEqual([]);
      const headers = Object.fromEntries(post.parameters!.map((p) => [p.name, p.example]));
      expect(headers['X-Payment-Event-ID']).toBe(body.id);
      // Signed with the secret the description names, over `<timestamp>.<raw body>`: a receiver can test against it.
      const secret = /`(whsec_[^`]+)`/.exec(String((post as { description?: string }).description))?.[1] ?? '';
      const signed = `${String(headers['X-Payment-Timestamp'])}.${JSON.stringify(body)}`;
      expect(headers['X-Payment-Signature']).toBe(`v1=${createHmac('sha256', secret).update(signed).digest('hex')}`);
      expect(Object.keys(post.responses!)).toContain('200');
    }
  });
});

const owner = await merchant(app, [
  'invoices:create',
  'invoices:read',
  'payments:read',
  'billing:read',
  'webhooks:read',
  'webhooks:write',
  'settings:write',
]);
let key = 0;

describe('the request examples, sent to the merchant API', () => {
  /** Calls an operation with its documented request example and checks the answer against its documented success. */
  async function callAsDocumented(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH',
    path: string,
    ids: Record<string, string> = {},
  ): Promise<Record<string, unknown>> {
    const operation = document.paths[`/w/{workspaceId}/v1${path.split('?')[0]}`]?.[method.toLowerCase()];
    expect(operation, `${method} ${path} is documented`).toBeDefined();
    const example = Object.values(operation!.requestBody?.content?.['application/json']?.examples ?? {})[0]?.value;
    const [status, success] = successOf(operation!)!;
    const url = `/w/${owner.workspaceId}/v1${path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name]!)}`;
    const answer = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${owner.apiKey}`, 'idempotency-key': `documented-example-${(key += 1)}` },
      ...(example !== undefined && { payload: example as object }),
    });
    expect(`${answer.statusCode} ${answer.body.slice(0, 300)}`).toMatch(new RegExp(`^${status} `));
    const body = answer.json<Record<string, unknown>>();
    expect(validate(success!.content!['application/json']!.schema!, body)).toEqual([]);
    return body;
  }

  it('answer as documented for invoices, batches, settings, webhooks, automations and the feed', async () => {
    await callAsDocumented('PUT', '/checkout-settings');
    await callAsDocumented('PUT', '/workspace');
    await callAsDocumented('GET', '/billing');
    const invoice = await callAsDocumented('POST', '/invoices');
    const invoiceId = String(invoice.id);
    await callAsDocumented('GET', '/invoices/{invoiceId}', { invoiceId });
    await callAsDocumented('GET', '/invoices');
    await callAsDocumented('GET', '/invoice-search?q=order-1042');
    await callAsDocumented('GET', '/invoices/{invoiceId}/timeline', { invoiceId });
    await callAsDocumented('POST', '/invoices/{invoiceId}/renew', { invoiceId });
    await callAsDocumented('POST', '/invoices/{invoiceId}/cancel', { invoiceId });
    await callAsDocumented('POST', '/invoice-batches/quote');
    const batch = await callAsDocumented('POST', '/invoice-batches');
    expect((batch.results as object[]).length).toBe(3);
    await callAsDocumented('PUT', '/webhook');
    await callAsDocumented('GET', '/webhook');
    const automation = await callAsDocumented('POST', '/automations');
    const automationId = String(automation.id);
    await callAsDocumented('PATCH', '/automations/{automationId}', { automationId });
    await callAsDocumented('POST', '/automations/{automationId}/pause', { automationId });
    await callAsDocumented('GET', '/automations');
    await callAsDocumented('GET', '/changes');
    await callAsDocumented('GET', '/issues');
  });
});
