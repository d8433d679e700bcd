import { describe, expect, it } from 'vitest';
import { githubAnchor, renderGuide } from '../../src/http/docs-guides.js';

const known = new Set(['deploy', 'webhooks', 'spec/merchant-api-core-v1.1.0']);
const render = (markdown: string, name = 'webhooks') => renderGuide(name, markdown, known);

describe('a guide of docs/ as a page', () => {
  it('takes its title from the first heading and anchors headings as GitHub does', () => {
    const guide = render(
      '# Webhooks, timeline — and issues\n\n## The ledger (GET /billing/ledger)\n\n## Retries\n\n## Retries\n',
    );
    expect(guide.title).toBe('Webhooks, timeline — and issues');
    expect(guide.body.value).toContain('<h2 id="the-ledger-get-billingledger">');
    expect(guide.body.value).toContain('<h2 id="retries">');
    expect(guide.body.value).toContain('<h2 id="retries-1">');
    expect(githubAnchor('`PUT /webhook` and `enabled`')).toBe('put-webhook-and-enabled');
  });

  it('links other guides to their pages, keeps outside and in-page links, and drops links to files it does not serve', () => {
    const body = render(
      [
        'See [deploying](deploy.md#rpc-traffic), [the spec](spec/merchant-api-core-v1.1.0.md#endpoints),',
        '[above](#retries), [PostgreSQL](https://www.postgresql.org/docs/),',
        'the [README](../README.md#configuration) and [a receiver](../examples/webhook-receiver/README.md).',
      ].join('\n'),
    ).body.value;
    expect(body).toContain('<a href="/docs/guides/deploy#rpc-traffic">deploying</a>');
    expect(body).toContain('<a href="/docs/guides/spec/merchant-api-core-v1.1.0#endpoints">the spec</a>');
    expect(body).toContain('<a href="#retries">above</a>');
    expect(body).toContain('<a href="https://www.postgresql.org/docs/">PostgreSQL</a>');
    expect(body).toContain('the README and a receiver.');
    expect(body).not.toContain('README.md');
  });

  it('resolves a link from a guide in a folder against that folder', () => {
    const body = render('[deploying](../deploy.md) and [nothing](deploy.md)', 'spec/merchant-api-core-v1.1.0').body
      .value;
    expect(body).toContain('<a href="/docs/guides/deploy">deploying</a>');
    expect(body).toContain(' and nothing');
  });

  it('lets a wide table or code block scroll by itself, reachable from the keyboard', () => {
    const body = render('| a | b |\n|---|---|\n| 1 | 2 |\n\n```sh\nnpm start\n```\n').body.value;
    expect(body).toMatch(/^<div class="scroll" tabindex="0"><table>/);
    expect(body).toContain('<pre tabindex="0"><code class="language-sh">npm start');
  });
});

describe('markup in a guide', () => {
  it('shows a placeholder written like a tag as text, and keeps a heading’s own link without nesting one in it', () => {
    const body = render(
      '# Reading\n\n| Call |\n|---|\n| GET /changes?after=<cursor> |\n\n## See [deploying](deploy.md)\n',
    ).body.value;
    expect(body).toContain('<td>GET /changes?after=&lt;cursor&gt;</td>');
    expect(body).toContain('<h2 id="see-deploying">See <a href="/docs/guides/deploy">deploying</a></h2>');
  });
});
