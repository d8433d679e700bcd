import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DOCS_CSP, DOCS_SCRIPT } from '../../src/http/docs-assets.js';
import { renderApiReference } from '../../src/http/docs-page.js';
import type { JsonSchema, OpenApiDocument } from '../../src/http/openapi-types.js';
import { OPTIONS } from '../support/docs.js';

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
  servers: [{ url: 'https://pay.test/' }],
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
        operationId: 'getInvoices',
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
        operationId: 'postInvoices',
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

const reference = renderApiReference(document, OPTIONS);
const overview = reference.overview;
const invoices = reference.sections.get('invoices') ?? '';
const pages = [overview, ...reference.sections.values()];
const all = pages.join('\n');

const order = (page: string, ...needles: string[]): number[] => needles.map((needle) => page.indexOf(needle));

describe('renderApiReference', () => {
  it('renders an overview and one page per tag, untagged operations under Other', () => {
    expect([...reference.sections.keys()]).toEqual(['invoices', 'billing', 'other']);
    for (const page of pages) expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(invoices).toContain('<h1>Invoices</h1>');
    expect(reference.sections.get('other')).toContain('id="get-healthz"');
  });

  it('makes self-contained pages: no stylesheet link or external resource, one inline script allowed by its hash', () => {
    for (const page of pages) {
      expect(page).toContain('<style>');
      expect(page).not.toMatch(/@import|url\(/i);
      const tags = page.match(/<[a-z][^>]*>/gi) ?? [];
      expect(tags.filter((tag) => /^<(link|img|iframe|object)\b/i.test(tag) || /\s(on[a-z]+|src)=/i.test(tag))).toEqual(
        [],
      );
      expect([...page.matchAll(/<script>([^]*?)<\/script>/g)].map((m) => m[1])).toEqual([DOCS_SCRIPT]);
      expect(page.match(/<script/g)).toHaveLength(1);
      // Links stay inside the reference; the only absolute address is the server's, in the samples.
      const hrefs = tags.flatMap((tag) => /\shref="([^"]*)"/.exec(tag)?.slice(1) ?? []);
      expect(hrefs.filter((href) => !/^(#|\/docs(\/|#|$))/.test(href))).toEqual([]);
      expect(
        page.match(/https?:\/\/[^\s"'`<]*/g)?.filter((url) => !/^https:\/\/pay\.test(?![\w.-])/.test(url)) ?? [],
      ).toEqual([]);
      expect(page).toContain('prefers-color-scheme:dark');
    }
    const hash = createHash('sha256').update(DOCS_SCRIPT).digest('base64');
    expect(DOCS_CSP).toContain(`script-src 'sha256-${hash}'`);
    expect(DOCS_CSP).toContain("default-src 'none'");
    expect(DOCS_CSP).not.toContain('unsafe-eval');
  });

  it('escapes every value taken from the document and the options', () => {
    expect(invoices).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(invoices).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(invoices).toContain('No workspace &lt;b&gt;here&lt;/b&gt;.');
    expect(overview).toContain('<title>Invoice &lt;Service&gt; API — API reference</title>');
    expect(overview).toContain('<p>Second &lt;i&gt;paragraph&lt;/i&gt;.</p>');
    expect(all).not.toContain('<Service>');
    expect(all).not.toContain('<script>alert');
  });

  it('shows the header, intro paragraphs, sections, bearer authentication and idempotency on the overview', () => {
    expect(overview).toContain('API version 1.1.0');
    expect(overview).toContain('<p>First paragraph with <code>code</code>.</p>');
    expect(overview).toContain('Authorization: Bearer &lt;key&gt;');
    expect(overview).toContain('A key from the portal.');
    expect(overview).toContain('<a href="/docs/invoices"><strong>Invoices</strong></a>');
    expect(overview).toContain('<section id="idempotency">');
    expect(overview).toContain('<p>Send a new key per create.</p>');
    // Operations live on their section's page, not on the overview.
    expect(overview).not.toContain('class="op"');
  });

  it('lists every section in the sidebar of every page, by first tag in document order', () => {
    for (const page of pages.map((p) => p.slice(p.indexOf('id="nav"')))) {
      const [inv, billing, other] = order(page, 'href="/docs/invoices"', 'href="/docs/billing"', 'href="/docs/other"');
      expect(inv).toBeGreaterThan(-1);
      expect(inv).toBeLessThan(billing ?? -1);
      expect(billing).toBeLessThan(other ?? -1);
      expect(page).toContain('<a href="/docs/other#get-healthz" title="GET /healthz" data-words="health check">');
      expect(page).toContain('<input type="search" id="filter"');
    }
    // The page's own group is open and marked current; the others are closed.
    expect(invoices).toContain('<details open data-current><summary>Invoices <span class="count">');
    expect(invoices).toContain(
      '<ul><li><a class="section" href="/docs/invoices" aria-current="page">All of Invoices</a></li>',
    );
    expect(invoices).toContain('<li><a class="section" href="/docs/billing">All of Billing</a></li>');
  });

  it('lists each operation in the sidebar as method, path (merchant prefix dropped) and summary', () => {
    expect(overview).toContain(
      '<a href="/docs/invoices#postInvoices" title="POST /w/{workspaceId}/v1/invoices" data-words="create an invoice"><span class="method post">POST</span> <span class="path">/invoices</span><span class="summary">Create an invoice</span></a>',
    );
  });

  it('anchors operations by operationId, else by method and path, with path parameters highlighted', () => {
    expect(invoices).toContain('<section class="op" id="postInvoices">');
    expect(reference.sections.get('billing')).toContain('id="get-w-workspaceid-v1-billing"');
    expect(reference.sections.get('billing')).toContain(
      '<span class="method get">GET</span> <code class="path">/w/<span class="pp">{workspaceId}</span>/v1/billing</code>',
    );
  });

  it('lists permission, parameters (including path-level ones) and public operations', () => {
    expect(invoices).toContain(
      '<p class="meta"><span class="chip perm">Permission <code>invoices:read</code></span> <span class="chip">API key</span> </p>',
    );
    expect(invoices).toContain('<td><code>workspaceId</code></td><td>path</td>');
    expect(invoices).toContain('Workspace id (<code>ws_…</code>).');
    expect(invoices).toMatch(
      /<code>limit<\/code><\/td><td>query<\/td><td><span class="type">integer<\/span> <span class="chip">1–100<\/span> <span class="chip">default 20<\/span>/,
    );
    expect(invoices).toContain('<span class="type">&quot;open&quot; | &quot;paid&quot;</span>');
    expect(reference.sections.get('other')).toContain('No authentication');
  });

  it('renders schemas as nested fields: unions, nullables, maps, arrays, constraints and required markers', () => {
    expect(invoices).toMatch(
      /<code class="name">amount<\/code> <span class="type">string<\/span> <span class="req">required<\/span> <span class="chip">pattern \^\[0-9\]\+/,
    );
    expect(invoices).toContain(
      '<code class="name">memo</code> <span class="type">string | null</span> <span class="chip">≤ 140 chars</span>',
    );
    expect(invoices).toContain('<code class="name">metadata</code> <span class="type">map of string → string</span>');
    expect(invoices).toContain(
      '<code class="name">[key: string]</code> <span class="type">string</span> <span class="chip">≤ 500 chars</span>',
    );
    expect(invoices).toContain('<code class="name">tags</code> <span class="type">array of string | null</span>');
  });

  it('resolves component $refs and stops at cycles and at the depth limit', () => {
    expect(invoices).toContain('<span class="type">array of object</span>');
    expect(invoices).toContain(
      '<code class="name">id</code> <span class="type">string</span> <span class="req">required</span> <span class="chip">uuid</span>',
    );
    expect(invoices).toContain(
      '<code class="name">paidAt</code> <span class="type">string | null</span> <span class="chip">date-time</span>',
    );
    expect(invoices).toContain('<code class="name">replaces</code> <span class="type">Invoice (recursive)</span>');
    expect(invoices).toContain('Nested deeper than 10 levels; omitted.');
    expect(invoices).not.toContain('bottom of the well');
  });

  it('points error responses at the shared error body on the overview and keeps route-specific descriptions', () => {
    expect(invoices).toContain(
      '<p class="response"><span class="status s4">401</span> <a href="/docs#errors">Error body</a></p>',
    );
    expect(invoices).toMatch(
      /<span class="status s4">404<\/span> No workspace &lt;b&gt;here&lt;\/b&gt;\. <a href="\/docs#errors">/,
    );
  });

  it('explains the error body and lists the codes sorted by status, then code', () => {
    for (const field of ['code', 'message', 'requestId', 'details'])
      expect(overview).toContain(`<code class="name">${field}</code>`);
    const positions = order(
      overview,
      '<code>invalid_json</code>',
      '<code>invalid_request</code>',
      '<code>not_found</code>',
      '<code>rate_limited</code>',
    );
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('shows curl and TypeScript samples as tabs that switch without a script', () => {
    expect(invoices).toContain(
      '<input type="radio" name="sample-postInvoices" id="sample-postInvoices-curl" value="curl" checked><label for="sample-postInvoices-curl">curl</label>',
    );
    expect(invoices).toContain('curl -X POST &quot;https://pay.test/w/$WORKSPACE_ID/v1/invoices&quot;');
    expect(invoices).toContain('await client.POST(&#39;/invoices&#39;');
  });

  it('copes with an empty document', () => {
    const empty = renderApiReference({}, { ...OPTIONS, idempotency: undefined });
    expect(empty.overview).toContain('This API declares no authentication.');
    expect(empty.overview).toContain('id="errors"');
    expect(empty.overview).not.toContain('id="idempotency"');
    expect(empty.sections.size).toBe(0);
  });
});
