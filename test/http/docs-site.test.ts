import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOCS_CSP } from '../../src/http/docs-assets.js';
import { HTTP_METHODS, type OpenApiDocument } from '../../src/http/openapi-types.js';
import { createTestApp } from '../support/app.js';

const { app } = await createTestApp();
const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<OpenApiDocument>();
const overview = await app.inject({ method: 'GET', url: '/docs' });
const sectionPaths = [
  ...new Set([...overview.body.matchAll(/<a class="section" href="(\/docs\/[^"#]+)"/g)].map((m) => m[1]!)),
];
const sections = new Map(
  await Promise.all(sectionPaths.map(async (path) => [path, await app.inject({ method: 'GET', url: path })] as const)),
);

const guidePaths = [...new Set([...overview.body.matchAll(/href="(\/docs\/guides\/[^"#]+)"/g)].map((m) => m[1]!))];
const guides = new Map(
  await Promise.all(guidePaths.map(async (path) => [path, await app.inject({ method: 'GET', url: path })] as const)),
);
const operations = Object.values(document.paths ?? {}).flatMap((item) =>
  HTTP_METHODS.flatMap((method) => (item[method] ? [item[method]] : [])),
);
const count = (text: string, needle: string): number => text.split(needle).length - 1;

describe('/docs on the real API document', () => {
  it('has a page per tag, each answering 200 as HTML under the same CSP as the overview', () => {
    const tags = new Set(operations.map((op) => op.tags?.[0]));
    expect(sections.size).toBeGreaterThanOrEqual(tags.size);
    expect(sectionPaths).toContain('/docs/invoices');
    for (const response of [overview, ...sections.values()]) {
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['content-security-policy']).toBe(DOCS_CSP);
    }
  });

  it('puts every operation on exactly one page, its first tag’s, anchored by its operationId and linked from the sidebar', () => {
    expect(operations.length).toBeGreaterThan(50);
    for (const op of operations) {
      const anchor = `<section class="op" id="${op.operationId}">`;
      const holders = [...sections].filter(([, response]) => response.body.includes(anchor)).map(([path]) => path);
      expect(holders, op.operationId).toHaveLength(1);
      expect(count(sections.get(holders[0]!)!.body, anchor)).toBe(1);
      expect(overview.body).toContain(`href="${holders[0]}#${op.operationId}"`);
      expect(sections.get(holders[0]!)!.body).toContain(`<h1>${op.tags?.[0]}</h1>`);
    }
  });

  it('gives every merchant API operation a curl sample with the key and a client sample without the prefix', () => {
    const invoices = sections.get('/docs/invoices')!.body;
    expect(invoices).toContain(
      'curl -X POST &quot;http://localhost:3000/w/$WORKSPACE_ID/v1/invoices&quot; \\\n  -H &quot;Authorization: Bearer $INVOICE_API_KEY&quot; \\\n  -H &quot;Idempotency-Key: $(uuidgen)&quot;',
    );
    expect(invoices).toContain('await client.POST(&#39;/invoices&#39;');
    expect(count(invoices, 'class="samples"')).toBe(count(invoices, 'class="op"'));
  });

  it('puts every webhook event of the document on the webhook events page', () => {
    const events = Object.keys(document.webhooks ?? {});
    const page = sections.get('/docs/webhook-events');
    expect(page === undefined).toBe(events.length === 0);
    for (const event of events) expect(page?.body).toContain(`<code>${event}</code>`);
  });

  it('lands on an overview a fraction of the size of the whole reference', () => {
    const whole = [...sections.values()].reduce((bytes, response) => bytes + response.rawPayload.length, 0);
    expect(overview.rawPayload.length * 5).toBeLessThan(whole);
    expect(overview.body).not.toContain('class="op"');
  });

  it('answers an unknown section with the error body', async () => {
    const response = await app.inject({ method: 'GET', url: '/docs/no-such-section' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not_found', requestId: expect.stringMatching(/^req_/) });
    expect(response.json().message).toEqual(expect.any(String));
  });
});

describe('the guides of docs/, beside the reference', () => {
  const idsOf = (page: string): Set<string> => new Set([...page.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]!));

  it('serves every markdown file of docs/ as a page under the reference’s CSP', () => {
    const files = readdirSync('docs', { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md'));
    expect(guidePaths.sort()).toEqual(files.map((file) => `/docs/guides/${file.slice(0, -3)}`).sort());
    for (const [path, response] of guides) {
      expect(response.statusCode, path).toBe(200);
      expect(response.headers['content-security-policy']).toBe(DOCS_CSP);
      expect(response.body).toMatch(/<h1 id="[^"]+">/);
    }
  });

  it('makes the references to docs/*.md in descriptions links that land on a guide and its heading', () => {
    expect(sections.get('/docs/changes')?.body).toContain('<a href="/docs/guides/change-feed">docs/change-feed.md</a>');
    const pages = [overview, ...sections.values(), ...guides.values()].map((response) => response.body);
    const links = pages.flatMap((page) => [...page.matchAll(/href="\/docs\/guides\/([^"#]+)(?:#([^"]+))?"/g)]);
    // Descriptions name guides as docs/<name>.md in x402, search and the change feed, at least.
    const references = [...sections.values()].flatMap((response) => [
      ...response.body.matchAll(/<a href="\/docs\/guides\/[^"]+">docs\/[a-z0-9./-]+\.md<\/a>/g),
    ]);
    expect(references.length).toBeGreaterThanOrEqual(3);
    for (const [link, name, anchor] of links) {
      const target = guides.get(`/docs/guides/${name}`);
      expect(target, link).toBeDefined();
      if (anchor) expect(idsOf(target!.body), link).toContain(anchor);
    }
  });

  it('keeps each guide’s own anchors, and shows no markdown syntax outside code', () => {
    for (const [path, response] of guides) {
      const ids = idsOf(response.body);
      for (const [, anchor] of response.body.matchAll(/href="#([^"]+)"/g))
        expect(ids, `${path}#${anchor}`).toContain(anchor);
      const article = /<article class="guide">([\s\S]*)<\/article>/.exec(response.body)?.[1] ?? '';
      const text = article.replace(/<pre[\s\S]*?<\/pre>|<code>[\s\S]*?<\/code>/g, '');
      expect(text, path).not.toMatch(/`|\]\(|^#+ /m);
    }
  });

  it('sends /docs/guides to the list of guides on the overview', async () => {
    const response = await app.inject({ method: 'GET', url: '/docs/guides' });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/docs#guides');
  });

  it('answers an unknown guide, or a path out of docs/, with the error body', async () => {
    for (const url of ['/docs/guides/no-such-guide', '/docs/guides/../package.json', '/docs/guides/%2e%2e/README']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toMatchObject({ code: 'not_found', requestId: expect.stringMatching(/^req_/) });
    }
  });
});
