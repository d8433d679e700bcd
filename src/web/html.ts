import { Html, html } from '../shared/html.js';

export { Html, escapeHtml, html, type Part } from '../shared/html.js';

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
