/**
 * The markup discipline of the API reference: every string from the document or the options reaches the
 * page through `html`, which escapes it, unless it is already an `Html` built here.
 */

import { Html, escapeHtml } from '../shared/html.js';
import { guideHref } from './docs-guides.js';

export { Html, html, type Part } from '../shared/html.js';
export const esc = escapeHtml;

/** For the page's own constants (style, script) only: never for a value from the document. */
export const raw = (trusted: string): Html => new Html(trusted);

// Backticks survive escaping unchanged, so turning them into <code> after escaping cannot inject markup; the
// same holds for a guide's path, which holds only letters, digits, '-', '.', '/' and '#'.
const inlineCode = (escaped: string): string =>
  escaped
    .replace(/`([^`\n]+)`/g, '<code>$1</code>')
    .replace(
      /(?<![\w/])docs\/([a-z0-9-]+(?:\/[a-z0-9.-]+)?)\.md(#[a-z0-9-]+)?/g,
      (reference: string, name: string, anchor = '') => `<a href="${guideHref(name, anchor)}">${reference}</a>`,
    );
export const inline = (text: string | undefined): Html => new Html(inlineCode(esc(text ?? '')));
/** Plain text; blank lines separate paragraphs and `backticks` become code. */
export function prose(text: string | undefined): Html {
  const paragraphs = (text ?? '')
    .trim()
    .split(/\n\s*\n/)
    .filter((p) => p.trim() !== '');
  return new Html(paragraphs.map((p) => `<p>${inlineCode(esc(p.trim()))}</p>`).join(''));
}

export const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

export const json = (value: unknown): string => JSON.stringify(value) ?? String(value);
