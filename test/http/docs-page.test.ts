import { describe, expect, it } from 'vitest';
import { renderApiReference } from '../../src/http/docs-page.js';
import type { JsonSchema, OpenApiDocument } from '../../src/http/openapi-types.js';

const ERROR_REF = { $ref: '#/components/schemas/Error' };
const workspaceParam = {
  name: 'workspaceId',
  in: 'path',
  required: true,
  description: 'Workspace id (`ws_…`).',
  schema: { type: 'string' },
};

// Fifteen objects nested inside each other: deeper than the renderer's limit.
const deep = Array.from({ length: 15 }).reduce<JsonSchema>(
  (inner, _, i) => ({ type: 'object', properties: { [`level${15 - i}`]: inner } }),
  { type: 'string', description: 'bottom of the well' },
);

const document: OpenApiDocument = {
  openapi: '3.1.0',
  components: {
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A key from the portal.' } },
    schemas: {
      Error: { type: 'object', description: 'The one error body.', properties: { code: { type: 'string' } } },
      Invoice: {
        type: 'object',
        required: ['id', 'status'],
        properties: {
          id: { type: 'string', format: 'uuid', description: 'Invoice id.' },
          status: {
            anyOf: [
              { type: 'string', const: 'open' },
              { type: 'string', const: 'paid' },
            ],
          },
          paidAt: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
          replaces: { $ref: '#/components/schemas/Invoice' },
        },
      },
    },
  },
  paths: {
    '/healthz': {
      get: { summary: 'Health check', security: [], responses: { '200': { description: 'Default Response' } } },
    },
    '/w/{workspaceId}/v1/invoices': {
      parameters: [workspaceParam],
      get: {
        tags: ['Invoices'],
        summary: 'List invoices',
        description: 'Newest first. <script>alert("x")</script>',
        'x-permission': 'invoices:read',
        security: [{ bearerAuth: [] }],
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
          { name: 'status', in: 'query', schema: { type: 'string', enum: ['open', 'paid'] } },
        ],
        responses: {
          '200': {
            description: 'Default Response',
            content: {
              'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Invoice' } } },
            },
          },
          '401': { description: 'The one error body.', content: { 'application/json': { schema: ERROR_REF } } },
          '404': { description: 'No workspace <b>here</b>.', content: { 'application/json': { schema: ERROR_REF } } },
        },
      },
      post: {
        tags: ['Invoices'],
        summary: 'Create an invoice',
        'x-permission': 'invoices:create',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['amount'],
                additionalProperties: false,
                properties: {
                  amount: {
                    type: 'string',
                    pattern: '^[0-9]+(\\.[0-9]{1,6})?$',
                    description: 'USDC as a decimal string.',
                  },
                  memo: {
                    anyOf: [{ type: 'string', maxLength: 140 }, { type: 'null' }],
                    description: 'Shown to the buyer <img src=x onerror=alert(1)>.',
                  },
                  metadata: { type: 'object', additionalProperties: { type: 'string', maxLength: 500 } },
                  tags: { type: ['array', 'null'], items: { type: 'string', minLength: 1 } },
                  nested: deep,
                },
              },
            },
          },
        },
        responses: {
          '201': {
            description: 'Created.',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Invoice' } } },
          },
        },
      },
    },
    '/w/{workspaceId}/v1/billing': {
      get: { tags: ['Billing'], summary: 'Credit balance', 'x-permission': 'billing:read', responses: {} },
    },
  },
};

const page = renderApiReference(document, {
  title: 'Invoice <Service> API',
  version: '1.1.0',
  intro: 'First paragraph with `code`.\n\nSecond <i>paragraph</i>.',
  errorCodes: [
    { code: 'rate_limited', status: 429 },
    { code: 'not_found', status: 404 },
    { code: 'invalid_request', status: 400 },
    { code: 'invalid_json', status: 400 },
  ],
});

const order = (...needles: string[]): number[] => needles.map((needle) => page.indexOf(needle));

describe('renderApiReference', () => {
  it('renders a self-contained page with no script, stylesheet link or external resource', () => {
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain('<style>');
    expect(page).not.toMatch(/@import|url\(|https?:\/\//i);
    const tags = page.match(/<[a-z][^>]*>/gi) ?? [];
    expect(
      tags.filter((tag) => /^<(script|link|img|iframe|object)\b/i.test(tag) || /\s(on[a-z]+|src)=/i.test(tag)),
    ).toEqual([]);
    expect(
      tags.flatMap((tag) => /\shref="([^"]*)"/.exec(tag)?.slice(1) ?? []).filter((href) => !href.startsWith('#')),
    ).toEqual([]);
    expect(page).toContain('prefers-color-scheme:dark');
  });

  it('escapes every value taken from the document and the options', () => {
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain('No workspace &lt;b&gt;here&lt;/b&gt;.');
    expect(page).toContain('<title>Invoice &lt;Service&gt; API — API reference</title>');
    expect(page).toContain('<p>Second &lt;i&gt;paragraph&lt;/i&gt;.</p>');
    expect(page).not.toContain('<Service>');
  });

  it('shows the header, intro paragraphs and bearer authentication', () => {
    expect(page).toContain('API version 1.1.0');
    expect(page).toContain('<p>First paragraph with <code>code</code>.</p>');
    expect(page).toContain('Authorization: Bearer &lt;key&gt;');
    expect(page).toContain('A key from the portal.');
  });

  it('groups the contents by first tag in document order, untagged operations last under Other', () => {
    const [invoices, billing, other] = order('href="#tag-invoices"', 'href="#tag-billing"', 'href="#tag-other"');
    expect(invoices).toBeGreaterThan(-1);
    expect(invoices).toBeLessThan(billing ?? -1);
    expect(billing).toBeLessThan(other ?? -1);
    expect(page).toContain('<a href="#get-healthz">');
  });

  it('gives every operation an anchor from its method and path, with path parameters highlighted', () => {
    expect(page).toContain('id="get-w-workspaceid-v1-billing"');
    expect(page).toContain('href="#get-w-workspaceid-v1-billing"');
    expect(page).toContain('id="post-w-workspaceid-v1-invoices"');
    expect(page).toContain(
      '<span class="method get">GET</span> <code class="path">/w/<span class="pp">{workspaceId}</span>/v1/billing</code>',
    );
  });

  it('lists permission, parameters (including path-level ones) and public operations', () => {
    expect(page).toContain(
      '<p class="meta"><span class="chip perm">Permission <code>invoices:read</code></span> <span class="chip">API key</span> </p>',
    );
    expect(page).toContain('<td><code>workspaceId</code></td><td>path</td>');
    expect(page).toContain('Workspace id (<code>ws_…</code>).');
    expect(page).toMatch(
      /<code>limit<\/code><\/td><td>query<\/td><td><span class="type">integer<\/span> <span class="chip">1–100<\/span> <span class="chip">default 20<\/span>/,
    );
    expect(page).toContain('<span class="type">&quot;open&quot; | &quot;paid&quot;</span>');
    expect(page).toContain('No authentication');
  });

  it('renders schemas as nested fields: unions, nullables, maps, arrays, constraints and required markers', () => {
    expect(page).toMatch(
      /<code class="name">amount<\/code> <span class="type">string<\/span> <span class="req">required<\/span> <span class="chip">pattern \^\[0-9\]\+/,
    );
    expect(page).toContain(
      '<code class="name">memo</code> <span class="type">string | null</span> <span class="chip">≤ 140 chars</span>',
    );
    expect(page).toContain('<code class="name">metadata</code> <span class="type">map of string → string</span>');
    expect(page).toContain(
      '<code class="name">[key: string]</code> <span class="type">string</span> <span class="chip">≤ 500 chars</span>',
    );
    expect(page).toContain('<code class="name">tags</code> <span class="type">array of string | null</span>');
  });

  it('resolves component $refs and stops at cycles and at the depth limit', () => {
    expect(page).toContain('<span class="type">array of object</span>');
    expect(page).toContain(
      '<code class="name">id</code> <span class="type">string</span> <span class="req">required</span> <span class="chip">uuid</span>',
    );
    expect(page).toContain(
      '<code class="name">paidAt</code> <span class="type">string | null</span> <span class="chip">date-time</span>',
    );
    expect(page).toContain('<code class="name">replaces</code> <span class="type">Invoice (recursive)</span>');
    expect(page).toContain('Nested deeper than 10 levels; omitted.');
    expect(page).not.toContain('bottom of the well');
  });

  it('points error responses at the shared error body and keeps route-specific descriptions', () => {
    expect(page).toContain(
      '<p class="response"><span class="status s4">401</span> <a href="#errors">Error body</a></p>',
    );
    expect(page).toMatch(
      /<span class="status s4">404<\/span> No workspace &lt;b&gt;here&lt;\/b&gt;\. <a href="#errors">/,
    );
  });

  it('explains the error body and lists the codes sorted by status, then code', () => {
    for (const field of ['code', 'message', 'requestId', 'details'])
      expect(page).toContain(`<code class="name">${field}</code>`);
    const positions = order(
      '<code>invalid_json</code>',
      '<code>invalid_request</code>',
      '<code>not_found</code>',
      '<code>rate_limited</code>',
    );
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('copes with an empty document', () => {
    const empty = renderApiReference({}, { title: 'T', version: '0', errorCodes: [] });
    expect(empty).toContain('This API declares no authentication.');
    expect(empty).toContain('id="errors"');
  });
});
