import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Marked, Renderer, type Tokens } from 'marked';
import { escapeHtml as esc, Html } from '../shared/html.js';

/**
 * The guides of `docs/` (the decisions, deployment, the wire formats, the specification) served beside the
 * API reference, so that "see docs/webhooks.md" in a description is a link a merchant can follow on their
 * own instance. The files are the project's own, shipped with it: their markdown is trusted.
 */

/** Where the guides are served: `docs/deploy.md` is `/docs/guides/deploy`. */
export const GUIDES_PATH = '/docs/guides';

export interface Guide {
  /** Path under `docs/` without `.md`: `deploy`, `spec/merchant-api-core-v1.1.0`. */
  readonly name: string;
  /** The first heading. */
  readonly title: string;
  readonly body: Html;
}

export const guideHref = (name: string, anchor = ''): string => `${GUIDES_PATH}/${name}${anchor}`;

/** Every `.md` file under `directory`, rendered. */
export function loadGuides(directory: string): Guide[] {
  const names = markdownFiles(directory).map((file) => file.slice(0, -'.md'.length));
  const known = new Set(names);
  return names.map((name) => renderGuide(name, readFileSync(path.join(directory, `${name}.md`), 'utf8'), known));
}

function markdownFiles(directory: string, under = ''): string[] {
  return readdirSync(path.join(directory, under), { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const relative = under === '' ? entry.name : `${under}/${entry.name}`;
      if (entry.isDirectory()) return markdownFiles(directory, relative);
      return entry.name.endsWith('.md') ? [relative] : [];
    });
}

/**
 * One guide as HTML. Headings get GitHub's anchors, so links written for the repository (`deploy.md#rpc-traffic`)
 * land here too; links to other guides are rewritten to their pages; a link to a file that is not a guide (the
 * README, an example) keeps its text and drops the link, which would lead nowhere on a running service.
 */
export function renderGuide(name: string, markdown: string, known: ReadonlySet<string>): Guide {
  const anchors = new Map<string, number>();
  let title: string | undefined;
  const renderer = new Renderer();
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth }: Tokens.Heading) {
        const inner = this.parser.parseInline(tokens);
        const text = this.parser.parseInline(tokens, this.parser.textRenderer);
        title ??= text;
        const id = uniqueAnchor(githubAnchor(text), anchors);
        // A heading that holds a link keeps it; a link cannot hold another.
        const linked = inner.includes('<a ') ? inner : `<a href="#${esc(id)}">${inner}</a>`;
        return `<h${depth} id="${esc(id)}">${linked}</h${depth}>\n`;
      },
      // The guides hold no markup of their own: `<cursor>` in a table is a placeholder, not a tag.
      html({ text }: Tokens.HTML | Tokens.Tag) {
        return esc(text);
      },
      link(token: Tokens.Link) {
        const target = linkTarget(name, token.href, known);
        if (target === undefined) return this.parser.parseInline(token.tokens);
        return renderer.link.call(this, { ...token, href: target });
      },
      table(token: Tokens.Table) {
        return `<div class="scroll" tabindex="0">${renderer.table.call(this, token)}</div>`;
      },
      code(token: Tokens.Code) {
        return renderer.code.call(this, token).replace('<pre>', '<pre tabindex="0">');
      },
    },
  });
  const body = marked.parse(markdown, { async: false });
  return { name, title: title ?? name, body: new Html(body) };
}

/** Where a link in guide `from` goes on the service; undefined for a file that is not served. */
function linkTarget(from: string, href: string, known: ReadonlySet<string>): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#') || href.startsWith('/')) return href;
  const [file = '', anchor = ''] = href.split(/(?=#)/);
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(from), file));
  if (!resolved.endsWith('.md')) return undefined;
  const name = resolved.slice(0, -'.md'.length);
  return known.has(name) ? guideHref(name, anchor) : undefined;
}

/** GitHub's heading anchor: lowercase, punctuation dropped, each space a hyphen. */
export const githubAnchor = (text: string): string =>
  text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function uniqueAnchor(anchor: string, seen: Map<string, number>): string {
  const count = seen.get(anchor) ?? 0;
  seen.set(anchor, count + 1);
  return count === 0 ? anchor : `${anchor}-${count}`;
}
