/**
 * The markup discipline of the API reference: every string from the document or the options reaches the
 * page through `html`, which escapes it, unless it is already an `Html` built here.
 */

/** Markup known to be safe. Only `html`, `inline`, `prose` and `raw` build one, so any plain string reaching the page is escaped. */
export class Html {
  constructor(readonly value: string) {}
}
export type Part = string | number | Html | readonly Part[] | false | undefined;

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const esc = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

function flatten(part: Part): string {
  if (part === false || part === undefined) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return (part as readonly Part[]).map(flatten).join('');
  return esc(String(part));
}

export function html(strings: TemplateStringsArray, ...parts: readonly Part[]): Html {
  return new Html(strings.reduce((out, text, i) => out + text + (i < parts.length ? flatten(parts[i]) : ''), ''));
}

/** For the page's own constants (style, script) only: never for a value from the document. */
export const raw = (trusted: string): Html => new Html(trusted);

// Backticks survive escaping unchanged, so turning them into <code> after escaping cannot inject markup.
const inlineCode = (escaped: string): string => escaped.replace(/`([^`\n]+)`/g, '<code>$1</code>');
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
