import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { screenshot } from './browser.js';

/** axe-core's browser build, read once; it defines `window.axe` in the page it is evaluated in. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  /** Each offending element: its selector, then what to fix. */
  readonly nodes: readonly string[];
}

/**
 * Checks the page as it is on screen now (WCAG 2.x A and AA rules and axe's best practices) and
 * resolves the serious and critical violations. axe is evaluated through the DevTools protocol, which
 * the pages' Content-Security-Policy does not govern, so it runs on the real, unrelaxed page.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if ((await page.evaluate('typeof window.axe')) === 'undefined') await page.evaluate(AXE_SOURCE);
  return (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((results) =>
    results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => n.target.join(' ') + ' — ' + (n.failureSummary ?? '').replace(/\\s+/g, ' ')),
      })))`)) as AxeViolation[];
}

/** The violations as lines for a failure message: rule, impact, what it asks, and every element. */
export function describeViolations(violations: readonly AxeViolation[]): string {
  return violations
    .map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((node) => `    ${node}`).join('\n')}`)
    .join('\n');
}

/**
 * What is wrong with the page as shown now, in words (none: empty): it scrolls sideways (wider than the
 * window), or axe finds serious or critical violations. Takes its screenshot as `test-results/<name>.png`
 * on the way, for reviewers.
 */
export async function auditPage(page: Page, name: string): Promise<string[]> {
  const problems: string[] = [];
  const [scrollWidth, innerWidth] = (await page.evaluate(
    '[document.documentElement.scrollWidth, window.innerWidth]',
  )) as [number, number];
  if (scrollWidth > innerWidth) problems.push(`${name}: ${scrollWidth} px wide in a ${innerWidth} px window`);
  const violations = await seriousViolations(page);
  if (violations.length > 0) problems.push(`${name}: ${describeViolations(violations)}`);
  await screenshot(page, name);
  return problems;
}
