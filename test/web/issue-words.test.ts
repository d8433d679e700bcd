import { describe, expect, it } from 'vitest';
import { ISSUE_KINDS } from '../../src/modules/health/health.js';
import { issueWords, portalHints } from '../../src/web/portal/client/issue-words.js';
import type { Issue } from '../../src/web/portal/client/api-types.js';
import { renderPortalHome } from '../../src/web/portal/portal.page.js';

const hints = portalHints([60, 600, 7200]);
/** The tabs the portal page renders (`data-tab`), which its script shows by the fragment. */
const TABS = new Set(
  Array.from(
    renderPortalHome({ config: { origin: 'http://localhost', chainIds: [84532] }, networks: [] }).matchAll(
      /data-tab="([a-z]+)"/g,
    ),
    (match) => `#${match[1]}`,
  ),
);
/** What the service's hints say and the portal must not: request lines and error codes. */
const API_TERMS = /\b(GET|POST|PUT|PATCH|DELETE) \/|\{id\}|\b[a-z]+_[a-z_]+\b/;

describe('the health banner in the portal', () => {
  it.each(ISSUE_KINDS.flatMap((kind) => [1, 3].map((count) => [kind, count] as const)))(
    '%s (count %i) reads in plain words and points at a tab',
    (kind, count) => {
      const issue: Issue = {
        kind,
        severity: 'warning',
        since: '2026-01-02T03:04:05.000Z',
        count,
        hint: 'the service hint, GET /issues',
      };
      const words = issueWords(issue, hints);
      expect(words.title).not.toMatch(API_TERMS);
      expect(words.hint).not.toBe(issue.hint);
      expect(words.hint).not.toMatch(API_TERMS);
      expect(words.href).toMatch(/^#[a-z]+$/);
      expect(TABS, words.href).toContain(words.href);
      if (kind !== 'low_credits') expect(words.hint).toContain(String(count));
    },
  );

  it('says a paused automation waits for the owner when they paused it, and what to fix when a cause did', () => {
    const paused = (severity: Issue['severity']): Issue => ({
      kind: 'automation_paused',
      severity,
      since: '2026-01-02T03:04:05.000Z',
      count: 1,
      hint: 'the service hint',
    });
    expect(issueWords(paused('warning'), hints).hint).toMatch(/paused by you[^]*press Resume/);
    expect(issueWords(paused('warning'), hints).hint).not.toMatch(/remove the cause/);
    expect(issueWords(paused('critical'), hints).hint).toMatch(/remove the cause, then press Resume/);
  });

  it('keeps the service words for a kind it does not know yet', () => {
    const issue = {
      kind: 'something_new',
      severity: 'warning',
      since: '2026-01-02T03:04:05.000Z',
      hint: 'As the service says.',
    };
    expect(issueWords(issue as unknown as Issue, hints)).toMatchObject({
      title: 'something_new',
      hint: 'As the service says.',
    });
  });
});
