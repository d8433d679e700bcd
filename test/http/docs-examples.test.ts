import { describe, expect, it } from 'vitest';
import { renderApiReference } from '../../src/http/docs-page.js';
import type { OpenApiDocument } from '../../src/http/openapi-types.js';
import { OPTIONS } from '../support/docs.js';

const document: OpenApiDocument = {
  openapi: '3.1.0',
  servers: [{ url: 'https://pay.test' }],
  tags: [{ name: 'Invoices' }, { name: 'Webhooks' }],
  components: {
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    schemas: {
      Invoice: {
        type: 'object',
        properties: { id: { type: 'string' } },
        examples: [{ id: 'inv_from_schema' }],
      },
    },
  },
  paths: {
    '/w/{workspaceId}/v1/invoices': {
      post: {
        tags: ['Invoices'],
        operationId: 'postInvoices',
        security: [{ bearerAuth: [] }],
        parameters: [{ name: 'idempotency-key', in: 'header', required: true }],
        requestBody: {
          content: {
            'application/json': {
              schema: { type: 'object', properties: { amount: { type: 'string' } } },
              examples: {
                minimal: { summary: 'Only an amount', value: { amount: '12.50' } },
                memo: { summary: 'With a memo <b>', description: 'Shown to the buyer.', value: { memo: '</code><i>' } },
              },
            },
          },
        },
        responses: {
          '201': {
            description: 'Created.',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Invoice' } } },
          },
          '422': {
            description: 'The key was used with another body.',
            content: { 'application/json': { example: { code: 'idempotency_key_reused' } } },
          },
        },
      },
    },
    '/w/{workspaceId}/v1/invoices/{invoiceId}/renew': {
      post: {
        tags: ['Invoices'],
        operationId: 'postInvoicesByInvoiceIdRenew',
        security: [{ bearerAuth: [] }],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['expiresIn', 'note'],
                properties: {
                  expiresIn: { type: 'integer', default: 3600 },
                  note: { type: 'string' },
                  optional: { type: 'string' },
                },
              },
            },
          },
        },
        responses: {
          '200': { description: 'Renewed.', content: { 'text/csv': { example: 'id,amount\ninv_1,12.50' } } },
        },
      },
    },
    '/w/{workspaceId}/v1/webhook': {
      get: { tags: ['Webhooks'], operationId: 'getWebhook', security: [{ bearerAuth: [] }], responses: {} },
    },
  },
  webhooks: {
    'payment_intent.succeeded': {
      post: {
        summary: 'A payment is confirmed',
        description: 'Fulfil the order after re-reading the payment intent.',
        parameters: [
          {
            name: 'X-Payment-Signature',
            in: 'header',
            required: true,
            description: 'v1=<hex HMAC>',
            schema: { type: 'string' },
          },
        ],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['id'],
                properties: { id: { type: 'string', description: 'Event id.' } },
              },
              example: { id: 'evt_1', type: 'payment_intent.succeeded' },
            },
          },
        },
        responses: { '200': { description: 'Any 2xx acknowledges.' } },
      },
    },
    'invoice.scheduled': { post: { summary: 'An automation created an invoice', responses: {} } },
  },
};

const reference = renderApiReference(document, OPTIONS);
const invoices = reference.sections.get('invoices') ?? '';
const events = reference.sections.get('webhook-events') ?? '';

describe('examples', () => {
  it("renders a request body's named examples with their summary and description, escaped", () => {
    expect(invoices).toContain(
      '<summary>Example: Only an amount</summary><pre tabindex="0"><code>{\n  &quot;amount&quot;: &quot;12.50&quot;\n}</code></pre>',
    );
    expect(invoices).toContain('<summary>Example: With a memo &lt;b&gt;</summary><p>Shown to the buyer.</p>');
    expect(invoices).toContain('&lt;/code&gt;&lt;i&gt;');
    expect(invoices).not.toContain('</code><i>');
  });

  it('sends the first request example in the samples', () => {
    expect(invoices).toContain('-d &#39;{\n    &quot;amount&quot;: &quot;12.50&quot;\n  }&#39;');
    expect(invoices).toContain('client.POST(&#39;/invoices&#39;, { body: { amount: &#39;12.50&#39; } })');
  });

  it("renders a response's examples per status: the schema's own examples, a single example, an error's example", () => {
    expect(invoices).toMatch(/<span class="status s2">201<\/span>[^]*inv_from_schema/);
    expect(invoices).toContain('<span class="status s4">422</span> The key was used with another body.');
    expect(invoices).toMatch(
      /422[^]*<pre tabindex="0"><code>\{\n {2}&quot;code&quot;: &quot;idempotency_key_reused&quot;\n\}<\/code><\/pre>/,
    );
    // A text example is shown as it is, not as a JSON string.
    expect(invoices).toContain('<pre tabindex="0"><code>id,amount\ninv_1,12.50</code></pre>');
  });

  it('builds a sample body from the required fields when the operation documents no example', () => {
    expect(invoices).toContain(
      'client.POST(&#39;/invoices/{invoiceId}/renew&#39;, {\n  params: { path: { invoiceId: &#39;&lt;invoiceId&gt;&#39; } },\n  body: { expiresIn: 3600, note: &#39;&lt;note&gt;&#39; },\n})',
    );
  });
});

describe('webhook events page', () => {
  it('is a section of its own, after the tags, listed in the sidebar and on the overview', () => {
    expect([...reference.sections.keys()]).toEqual(['invoices', 'webhooks', 'webhook-events']);
    expect(reference.overview).toContain('<a href="/docs/webhook-events"><strong>Webhook events</strong></a>');
    expect(reference.overview).toContain(
      '<a href="/docs/webhook-events#payment-intent-succeeded" data-words="a payment is confirmed fulfil the order after re-reading the payment intent."><span class="method post">POST</span> <span class="path">payment_intent.succeeded</span>',
    );
  });

  it('shows each event with its headers, payload fields and example, and what to answer', () => {
    expect(events).toContain('<section class="op" id="payment-intent-succeeded">');
    expect(events).toContain('<code>payment_intent.succeeded</code>');
    expect(events).toContain('<strong>A payment is confirmed</strong>');
    expect(events).toContain('<p>Fulfil the order after re-reading the payment intent.</p>');
    expect(events).toMatch(
      /<h3>Headers<\/h3>[^]*<code>X-Payment-Signature<\/code><\/td><td>header<\/td>[^]*v1=&lt;hex HMAC&gt;/,
    );
    expect(events).toMatch(/<h3>Payload<\/h3>[^]*<code class="name">id<\/code>[^]*Event id\./);
    expect(events).toContain('<details class="example" open><summary>Example</summary>');
    expect(events).toContain('&quot;type&quot;: &quot;payment_intent.succeeded&quot;');
    expect(events).toMatch(/<h3>Your answer<\/h3>[^]*Any 2xx acknowledges\./);
    expect(events).toContain('id="invoice-scheduled"');
    expect(events).toContain('under <a href="/docs/webhooks">Webhooks</a>');
  });

  it('is absent when the document has no webhooks', () => {
    const { webhooks: _none, ...rest } = document;
    expect([...renderApiReference(rest, OPTIONS).sections.keys()]).not.toContain('webhook-events');
  });
});
