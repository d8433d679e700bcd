import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { operationIdOf } from '../../src/http/openapi-operation.js';
import type { OpenApiDocument } from '../../src/http/openapi-types.js';
import { createTestApp } from '../support/app.js';

const { app } = await createTestApp();
const source = (await app.inject({ method: 'GET', url: '/openapi.json' })).body;
const document = JSON.parse(source) as OpenApiDocument;

describe('the API document', () => {
  it("passes Redocly's recommended lint without an error", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    const found = problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message}`);
    expect(found.filter((line) => line.startsWith('error'))).toEqual([]);
    // What is left are notes about this deployment's document: no license is stated, and tests serve it
    // from example.com.
    expect(new Set(problems.map((problem) => problem.ruleId))).toEqual(
      new Set(['info-license', 'no-server-example.com']),
    );
  });

  it('names every operation, uniquely, and says how each is authenticated', () => {
    const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { operationId?: string; security?: unknown[] }>).map(
        ([method, operation]) => ({
          path,
          method,
          ...operation,
        }),
      ),
    );
    expect(operations.length).toBeGreaterThanOrEqual(80);
    const ids = operations.map((operation) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const security = (path: string, method = 'get') =>
      operations.find((o) => o.path === path && o.method === method)?.security;
    expect(security('/w/{workspaceId}/v1/invoices', 'post')).toEqual([{ bearerAuth: [] }]);
    expect(security('/portal/api/w/{workspaceId}/invoices', 'post')).toEqual([{ portalSession: [] }]);
    expect(security('/auth/nonce')).toEqual([]);
    expect(document.components?.securitySchemes?.portalSession).toMatchObject({ type: 'apiKey', in: 'cookie' });
  });

  it('marks the Idempotency-Key required where the merchant API requires it, not for portal forms', () => {
    const idempotencyKey = (path: string) =>
      (
        document.paths?.[path] as { post?: { parameters?: { name: string; in: string; required?: boolean }[] } }
      )?.post?.parameters?.find((parameter) => parameter.in === 'header' && parameter.name === 'idempotency-key');
    expect(idempotencyKey('/w/{workspaceId}/v1/invoices')).toMatchObject({ required: true });
    expect(idempotencyKey('/w/{workspaceId}/v1/invoice-batches')).toMatchObject({ required: true });
    expect(idempotencyKey('/portal/api/w/{workspaceId}/invoices')?.required).not.toBe(true);
  });

  it('declares every tag it uses, merchant API first, and /docs follows that order', async () => {
    const declared = (document.tags ?? []).map((tag) => tag.name);
    const used = new Set(
      Object.values(document.paths ?? {}).flatMap((item) =>
        Object.values(item as Record<string, { tags?: string[] }>).flatMap((operation) => operation.tags ?? []),
      ),
    );
    expect([...used].filter((tag) => !declared.includes(tag))).toEqual([]);
    expect(declared[0]).toBe('Invoices');
    expect(declared.indexOf('Portal')).toBeGreaterThan(declared.indexOf('Webhooks'));

    const page = (await app.inject({ method: 'GET', url: '/docs' })).body;
    const contents = page.slice(page.indexOf('id="nav"'));
    // Each section is a disclosure whose summary names it, then links to its own page.
    // After the API's sections, the guides of docs/, which have no page of their own.
    const groups = [...contents.matchAll(/<summary>([^<]+?) <span class="count">/g)].map((match) => match[1]);
    expect(groups.at(-1)).toBe('Guides');
    const sections = groups.slice(0, -1);
    const pages = [...contents.matchAll(/<a class="section" href="\/docs\/[^"]*"[^>]*>All of ([^<]+)<\/a>/g)].map(
      (match) => match[1],
    );
    expect(pages).toEqual(sections);
    expect(sections.slice(0, 2)).toEqual(['Invoices', 'Invoice batches']);
    expect(sections.indexOf('Portal')).toBeGreaterThan(sections.indexOf('Billing'));
  });

  it('derives operation ids from the method and the path', () => {
    expect(operationIdOf('POST', '/w/:workspaceId/v1/invoices')).toBe('postInvoices');
    expect(operationIdOf('GET', '/w/:workspaceId/v1/invoices/:invoiceId')).toBe('getInvoicesByInvoiceId');
    expect(operationIdOf('POST', '/w/:workspaceId/v1/invoice-batches/quote')).toBe('postInvoiceBatchesQuote');
    expect(operationIdOf('GET', '/portal/api/w/:workspaceId/invoices')).toBe('portalGetWorkspaceInvoices');
    expect(operationIdOf('GET', '/portal/api/workspaces')).toBe('portalGetWorkspaces');
    expect(operationIdOf('GET', '/w/:workspaceId/i/:invoiceId')).toBe('checkoutGetByInvoiceId');
    expect(operationIdOf('GET', '/openapi.json')).toBe('getOpenapiJson');
  });
});
