import { describe, expect, it } from 'vitest';
import { samplesFor, shellVariable, tsLiteral, type SampleSettings } from '../../src/http/docs-samples.js';
import type { ParameterObject } from '../../src/http/openapi-types.js';

const settings: SampleSettings = {
  origin: 'https://pay.example.com',
  securitySchemes: {
    bearerAuth: { type: 'http', scheme: 'bearer' },
    portalSession: { type: 'apiKey', in: 'cookie', name: 'invoice_session', description: 'The signed-in session.' },
  },
  clientPrefix: '/w/{workspaceId}/v1',
  clientPackage: '@invoice-service/client',
  apiKeyVariable: 'INVOICE_API_KEY',
  originCheckedPrefixes: ['/portal/api/', '/auth/'],
};

const workspaceId: ParameterObject = { name: 'workspaceId', in: 'path', required: true };
const invoiceId: ParameterObject = { name: 'invoiceId', in: 'path', required: true, example: 'inv_01hx' };
const idempotencyKey: ParameterObject = { name: 'idempotency-key', in: 'header', required: true };
const bearer = [{ bearerAuth: [] }];

const createInvoice = samplesFor(
  {
    method: 'post',
    path: '/w/{workspaceId}/v1/invoices',
    op: { security: bearer },
    parameters: [workspaceId, idempotencyKey],
    body: { mediaType: 'application/json', value: { amount: '12.50', memo: "Bob's order" } },
  },
  settings,
);

const readInvoice = samplesFor(
  {
    method: 'get',
    path: '/w/{workspaceId}/v1/invoices/{invoiceId}',
    op: { security: bearer },
    parameters: [
      workspaceId,
      invoiceId,
      { name: 'expand', in: 'query', example: 'payments' },
      { name: 'cursor', in: 'query' },
    ],
  },
  settings,
);

describe('curl samples', () => {
  it("send a create's Idempotency-Key, bearer key and JSON body", () => {
    expect(createInvoice.curl).toBe(
      [
        'curl -X POST "https://pay.example.com/w/$WORKSPACE_ID/v1/invoices" \\',
        '  -H "Authorization: Bearer $INVOICE_API_KEY" \\',
        '  -H "Idempotency-Key: $(uuidgen)" \\',
        '  -H "Content-Type: application/json" \\',
        `  -d '{`,
        `    "amount": "12.50",`,
        `    "memo": "Bob'\\''s order"`,
        `  }'`,
      ].join('\n'),
    );
  });

  it('turn path parameters into shell variables and keep query examples; a GET has no -X', () => {
    expect(readInvoice.curl).toBe(
      [
        'curl "https://pay.example.com/w/$WORKSPACE_ID/v1/invoices/$INVOICE_ID?expand=payments" \\',
        '  -H "Authorization: Bearer $INVOICE_API_KEY"',
      ].join('\n'),
    );
    expect(shellVariable('paymentIntentId')).toBe('PAYMENT_INTENT_ID');
  });

  it('send no credentials for a public operation', () => {
    const { curl } = samplesFor(
      { method: 'get', path: '/w/{workspaceId}/i/{invoiceId}', op: { security: [] }, parameters: [] },
      settings,
    );
    expect(curl).toBe('curl "https://pay.example.com/w/$WORKSPACE_ID/i/$INVOICE_ID"');
  });

  it("carry the session cookie, its note and this origin's Origin header for a portal change", () => {
    const { curl } = samplesFor(
      {
        method: 'post',
        path: '/portal/api/workspaces',
        op: { security: [{ portalSession: [] }] },
        parameters: [],
        body: { mediaType: 'application/json', value: { name: 'Shop' } },
      },
      settings,
    );
    expect(curl.split('\n').slice(0, 4)).toEqual([
      '# The signed-in session.',
      'curl -X POST "https://pay.example.com/portal/api/workspaces" \\',
      '  -b "invoice_session=$INVOICE_SESSION" \\',
      '  -H "Origin: https://pay.example.com" \\',
    ]);
  });

  it('quote what the shell would otherwise run or expand inside a value', () => {
    const { curl } = samplesFor(
      {
        method: 'get',
        path: '/things',
        op: { security: [] },
        parameters: [{ name: 'q', in: 'query', example: '"$(rm -rf /)" `x`' }],
      },
      settings,
    );
    expect(curl).toBe('curl "https://pay.example.com/things?q=%22%24(rm%20-rf%20%2F)%22%20%60x%60"');
  });
});

describe('TypeScript samples', () => {
  it('use the client for the merchant API, with the prefix, the workspace and the Idempotency-Key left to it', () => {
    expect(createInvoice.typescript).toBe(
      [
        "import { createClient } from '@invoice-service/client';",
        '',
        'const client = createClient({',
        "  baseUrl: 'https://pay.example.com',",
        '  workspaceId: process.env.WORKSPACE_ID!,',
        '  apiKey: process.env.INVOICE_API_KEY!,',
        '});',
        '',
        `const { data, error } = await client.POST('/invoices', { body: { amount: '12.50', memo: "Bob's order" } });`,
      ].join('\n'),
    );
    expect(createInvoice.typescript).not.toContain('Idempotency');
    expect(createInvoice.typescript).not.toContain('/w/');
  });

  it('pass path parameters (an example, else a placeholder) and query parameters in params', () => {
    expect(readInvoice.typescript).toContain(
      "await client.GET('/invoices/{invoiceId}', { params: { path: { invoiceId: 'inv_01hx' }, query: { expand: 'payments' } } });",
    );
    const { typescript } = samplesFor(
      { method: 'get', path: '/w/{workspaceId}/v1/billing', op: { security: bearer }, parameters: [workspaceId] },
      settings,
    );
    expect(typescript).toContain("await client.GET('/billing');");
  });

  it('use fetch elsewhere: the full URL, the body as JSON and how to read the answer', () => {
    const { typescript } = samplesFor(
      {
        method: 'post',
        path: '/w/{workspaceId}/i/{invoiceId}/transactions',
        op: { security: [] },
        parameters: [workspaceId, invoiceId],
        body: { mediaType: 'application/json', value: { txHash: '0xabc' } },
        responseType: 'application/json',
      },
      settings,
    );
    expect(typescript).toBe(
      [
        "const workspaceId = '<workspaceId>';",
        "const invoiceId = 'inv_01hx';",
        'const response = await fetch(`https://pay.example.com/w/${workspaceId}/i/${invoiceId}/transactions`, {',
        "  method: 'POST',",
        "  headers: { 'Content-Type': 'application/json' },",
        "  body: JSON.stringify({ txHash: '0xabc' }),",
        '});',
        'const data = await response.json();',
      ].join('\n'),
    );
  });

  it('send the session cookie along from a page of this origin for a portal operation', () => {
    const { typescript } = samplesFor(
      {
        method: 'post',
        path: '/portal/api/w/{workspaceId}/invoices',
        op: { security: [{ portalSession: [] }] },
        parameters: [workspaceId, idempotencyKey],
        responseType: 'text/csv',
      },
      settings,
    );
    expect(typescript).toContain("credentials: 'include',");
    expect(typescript).toContain("headers: { 'Idempotency-Key': crypto.randomUUID() },");
    expect(typescript).toContain('const text = await response.text();');
  });

  it('write literals as a formatter would: short ones on one line, long ones one item per line', () => {
    expect(tsLiteral({ a: 1, 'b-c': [true, null] })).toBe("{ a: 1, 'b-c': [true, null] }");
    expect(tsLiteral({ description: 'x'.repeat(70), n: 1 })).toBe(`{\n  description: '${'x'.repeat(70)}',\n  n: 1,\n}`);
    expect(tsLiteral([])).toBe('[]');
    expect(tsLiteral({})).toBe('{}');
  });
});
