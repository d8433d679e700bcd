/** Markup known to be safe. Only `html` and the pages' own builders make one, so any plain string reaching a page is escaped. */
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
