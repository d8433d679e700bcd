/** Markup known to be safe. Only `html` and `jsonScript` build one, so any plain string reaching a page is escaped. */
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

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

function flatten(part: Part): string {
  if (part === false || part === undefined) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return (part as readonly Part[]).map(flatten).join('');
  return escapeHtml(String(part));
}

/** Tagged template: interpolated values are HTML-escaped unless they are already `Html`. */
export function html(strings: TemplateStringsArray, ...parts: readonly Part[]): Html {
  return new Html(strings.reduce((out, text, i) => out + text + (i < parts.length ? flatten(parts[i]) : ''), ''));
}

/**
 * A `<script type="application/json">` data block. `<`, `>` and `&` are written as JSON escapes, so no
 * value can close the element or open a comment; the browser never executes it (CSP needs no exception).
 */
export function jsonScript(id: string, value: unknown): Html {
  const json = JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return html`<script type="application/json" id="${id}">${new Html(json)}</script>`;
}
