import { HTTP_METHODS } from './openapi-types.js';
import type {
  HttpMethod,
  JsonSchema,
  OpenApiDocument,
  OperationObject,
  ParameterObject,
  ResponseObject,
} from './openapi-types.js';

export interface ApiReferenceOptions {
  readonly title: string;
  readonly version: string;
  readonly errorCodes: ReadonlyArray<{ code: string; status: number }>;
  /** Plain text; blank lines separate paragraphs and `backticks` become code. */
  readonly intro?: string;
}

/** Markup known to be safe. Only `html`, `inline` and `prose` build one, so any plain string reaching the page is escaped. */
class Html {
  constructor(readonly value: string) {}
}
type Part = string | number | Html | readonly Part[] | false | undefined;

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const esc = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

function flatten(part: Part): string {
  if (part === false || part === undefined) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return (part as readonly Part[]).map(flatten).join('');
  return esc(String(part));
}

function html(strings: TemplateStringsArray, ...parts: readonly Part[]): Html {
  return new Html(strings.reduce((out, text, i) => out + text + (i < parts.length ? flatten(parts[i]) : ''), ''));
}

// Backticks survive escaping unchanged, so turning them into <code> after escaping cannot inject markup.
const inlineCode = (escaped: string): string => escaped.replace(/`([^`\n]+)`/g, '<code>$1</code>');
const inline = (text: string | undefined): Html => new Html(inlineCode(esc(text ?? '')));
function prose(text: string | undefined): Html {
  const paragraphs = (text ?? '')
    .trim()
    .split(/\n\s*\n/)
    .filter((p) => p.trim() !== '');
  return new Html(paragraphs.map((p) => `<p>${inlineCode(esc(p.trim()))}</p>`).join(''));
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
const isMethod = (key: string): key is HttpMethod => (HTTP_METHODS as readonly string[]).includes(key);
const json = (value: unknown): string => JSON.stringify(value) ?? String(value);

// ---- JSON schemas --------------------------------------------------------------------------------

/** Nesting deeper than this is cut off: a page, not a schema browser, and it bounds the work per schema. */
const MAX_DEPTH = 10;
const REF_PREFIX = '#/components/schemas/';

interface SchemaContext {
  readonly components: Readonly<Record<string, JsonSchema>>;
  /** Component names being expanded on the current path; meeting one again means a cycle. */
  readonly expanding: ReadonlySet<string>;
  readonly depth: number;
}

interface Resolved {
  readonly schema: JsonSchema;
  readonly ctx: SchemaContext;
  /** Set when the schema is a $ref that is not expanded (a cycle or an unknown target). */
  readonly unexpanded?: string;
}

function resolve(schema: JsonSchema, ctx: SchemaContext): Resolved {
  let current = schema;
  let expanding = ctx.expanding;
  while (current.$ref !== undefined) {
    const name = current.$ref.startsWith(REF_PREFIX) ? current.$ref.slice(REF_PREFIX.length) : current.$ref;
    const target = ctx.components[name];
    if (!target) return { schema: {}, ctx, unexpanded: name };
    if (expanding.has(name)) return { schema: {}, ctx, unexpanded: `${name} (recursive)` };
    expanding = new Set([...expanding, name]);
    current = target;
  }
  return { schema: current, ctx: { ...ctx, expanding, depth: ctx.depth + 1 } };
}

const isNull = (s: JsonSchema): boolean => s.type === 'null' || (s.const === null && s.type === undefined);

/** The schema a reader cares about: refs followed, `T | null` unwrapped to T, allOf members merged. */
function principal(schema: JsonSchema, ctx: SchemaContext): Resolved {
  const resolved = resolve(schema, ctx);
  const { schema: s } = resolved;
  const variants = (s.anyOf ?? s.oneOf ?? []).filter((v) => !isNull(v));
  if (variants.length === 1 && variants[0] && resolved.ctx.depth < MAX_DEPTH)
    return principal(variants[0], resolved.ctx);
  if (!s.allOf || resolved.ctx.depth >= MAX_DEPTH) return resolved;
  const parts = s.allOf.map((member) => principal(member, resolved.ctx).schema);
  const merged: JsonSchema = {
    ...s,
    allOf: undefined,
    type: s.type ?? 'object',
    properties: Object.assign({}, s.properties, ...parts.map((p) => p.properties)) as Record<string, JsonSchema>,
    required: [...(s.required ?? []), ...parts.flatMap((p) => p.required ?? [])],
  };
  return { ...resolved, schema: merged };
}

function typeLabel(schema: JsonSchema, ctx: SchemaContext): string {
  const { schema: s, ctx: inner, unexpanded } = resolve(schema, ctx);
  if (unexpanded !== undefined) return unexpanded;
  if (inner.depth > MAX_DEPTH) return '…';
  if (s.const !== undefined) return json(s.const);
  if (s.enum) return s.enum.map(json).join(' | ');
  const variants = s.anyOf ?? s.oneOf;
  if (variants) return [...new Set(variants.map((v) => typeLabel(v, inner)))].join(' | ');
  if (s.allOf) return 'object';
  const declared = typeof s.type === 'string' ? [s.type] : [...(s.type ?? [])];
  const types = declared.length > 0 ? declared : [s.properties ? 'object' : s.items ? 'array' : 'any'];
  if (s.nullable && !types.includes('null')) types.push('null');
  return types
    .map((t) => {
      if (t === 'array' && s.items) {
        const item = typeLabel(s.items, inner);
        return `array of ${item.includes(' | ') ? `(${item})` : item}`;
      }
      const extra = s.additionalProperties;
      if (t === 'object' && !s.properties && typeof extra === 'object')
        return `map of string → ${typeLabel(extra, inner)}`;
      return t;
    })
    .join(' | ');
}

function range(low: number | undefined, high: number | undefined, unit: string): string | undefined {
  if (low !== undefined && high !== undefined) return low === high ? `exactly ${low}${unit}` : `${low}–${high}${unit}`;
  if (low !== undefined) return `≥ ${low}${unit}`;
  return high !== undefined ? `≤ ${high}${unit}` : undefined;
}

function constraints(s: JsonSchema): Html {
  const notes = [
    s.format,
    s.pattern !== undefined ? `pattern ${s.pattern}` : undefined,
    range(s.minLength, s.maxLength, ' chars'),
    range(s.minItems, s.maxItems, ' items'),
    range(s.minimum, s.maximum, ''),
    s.exclusiveMinimum !== undefined ? `> ${s.exclusiveMinimum}` : undefined,
    s.exclusiveMaximum !== undefined ? `< ${s.exclusiveMaximum}` : undefined,
    s.default !== undefined ? `default ${json(s.default)}` : undefined,
    s.deprecated ? 'deprecated' : undefined,
  ].filter((note): note is string => note !== undefined);
  return html`${notes.map((note) => html` <span class="chip">${note}</span>`)}`;
}

/** The nested field list of an object (or of an array's items, or of each object variant of a union). */
function fields(schema: JsonSchema, ctx: SchemaContext): Html {
  const { schema: s, ctx: inner, unexpanded } = principal(schema, ctx);
  if (unexpanded !== undefined) return html``;
  if (inner.depth > MAX_DEPTH)
    return html`<ul class="fields"><li class="muted">Nested deeper than ${MAX_DEPTH} levels; omitted.</li></ul>`;
  const variants = s.anyOf ?? s.oneOf;
  if (variants) {
    const options = variants.map((v, i) => ({ n: i + 1, label: typeLabel(v, inner), body: fields(v, inner) }));
    // A union of scalars (enum-like literals) is already fully described by its type label.
    if (options.every((o) => o.body.value === '')) return html``;
    return html`<ul class="fields">${options.map((o) => html`<li><div class="field"><span class="muted">Option ${o.n}:</span> <span class="type">${o.label}</span></div>${o.body}</li>`)}</ul>`;
  }
  if (s.items && (s.type === undefined || s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array')))) {
    return fields(s.items, inner);
  }
  const required = new Set(s.required ?? []);
  const rows = Object.entries(s.properties ?? {}).map(([name, prop]) => field(name, prop, required.has(name), inner));
  if (typeof s.additionalProperties === 'object')
    rows.push(field('[key: string]', s.additionalProperties, false, inner));
  return rows.length > 0 ? html`<ul class="fields">${rows}</ul>` : html``;
}

function field(name: string, schema: JsonSchema, required: boolean, ctx: SchemaContext): Html {
  const main = principal(schema, ctx).schema;
  return html`<li><div class="field"><code class="name">${name}</code> <span class="type">${typeLabel(schema, ctx)}</span>${
    required ? html` <span class="req">required</span>` : ''
  }${constraints(main)}</div>${prose(schema.description ?? main.description)}${fields(schema, ctx)}</li>`;
}

function schemaBlock(schema: JsonSchema, ctx: SchemaContext): Html {
  const main = principal(schema, ctx).schema;
  return html`<div class="schema"><span class="type">${typeLabel(schema, ctx)}</span>${constraints(main)}${prose(
    schema.description ?? main.description,
  )}${fields(schema, ctx)}</div>`;
}

// ---- Page sections -------------------------------------------------------------------------------

interface Operation {
  readonly id: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly op: OperationObject;
  readonly parameters: readonly ParameterObject[];
}

function collectOperations(document: OpenApiDocument): Map<string, Operation[]> {
  const groups = new Map<string, Operation[]>();
  const used = new Set(['contents', 'authentication', 'errors']);
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of Object.keys(item).filter(isMethod)) {
      const op = item[method];
      if (!op) continue;
      const base = slug(`${method} ${path}`);
      let id = base;
      for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
      used.add(id);
      // Operation-level parameters override path-level ones with the same name and location.
      const own = op.parameters ?? [];
      const shared = (item.parameters ?? []).filter((p) => !own.some((o) => o.name === p.name && o.in === p.in));
      const tag = op.tags?.[0] ?? 'Other';
      groups.set(tag, [...(groups.get(tag) ?? []), { id, method, path, op, parameters: [...shared, ...own] }]);
    }
  }
  // The document's tag order first (the merchant API before the portal's and the public pages'), then
  // any other tag as met, 'Other' last.
  const order = [...(document.tags ?? []).map((tag) => tag.name), ...groups.keys()];
  const rank = (tag: string) => (tag === 'Other' ? Infinity : order.indexOf(tag));
  return new Map([...groups].sort(([a], [b]) => rank(a) - rank(b)));
}

const pathMarkup = (path: string): Html =>
  html`${path.split(/(\{[^}]+\})/).map((piece) => (piece.startsWith('{') ? html`<span class="pp">${piece}</span>` : piece))}`;
const endpoint = (o: Operation): Html =>
  html`<span class="method ${o.method}">${o.method.toUpperCase()}</span> <code class="path">${pathMarkup(o.path)}</code>`;

function authentication(document: OpenApiDocument): Html {
  const schemes = Object.entries(document.components?.securitySchemes ?? {});
  if (schemes.length === 0) return html`<p>This API declares no authentication.</p>`;
  return html`${schemes.map(([name, s]) => {
    const how =
      s.type === 'http' && s.scheme?.toLowerCase() === 'bearer'
        ? html`Send your API key as a bearer token: <code>Authorization: Bearer &lt;key&gt;</code>.`
        : s.type === 'apiKey'
          ? html`Send the key in the <code>${s.name ?? ''}</code> ${s.in ?? ''}.`
          : html`Scheme <code>${name}</code> (${s.type ?? 'unknown'}).`;
    return html`<p>${how}</p>${prose(s.description)}`;
  })}<p>Operations marked <span class="chip">API key</span> need a key; most also name the <strong>permission</strong> the key must hold.</p>`;
}

function operationSection(o: Operation, ctx: SchemaContext): Html {
  const { op } = o;
  const params = o.parameters.map(
    (p) =>
      html`<tr><td><code>${p.name ?? ''}</code></td><td>${p.in ?? ''}</td><td><span class="type">${
        p.schema ? typeLabel(p.schema, ctx) : 'any'
      }</span>${p.schema ? constraints(principal(p.schema, ctx).schema) : ''}</td><td>${p.required ? html`<span class="req">required</span>` : 'optional'}</td><td>${prose(
        p.description ?? p.schema?.description,
      )}</td></tr>`,
  );
  const meta = [
    op['x-permission'] ? html`<span class="chip perm">Permission <code>${op['x-permission']}</code></span> ` : '',
    op.security?.length === 0 ? html`<span class="chip">No authentication</span> ` : '',
    op.security?.length ? html`<span class="chip">API key</span> ` : '',
    op.deprecated ? html`<span class="chip warn">Deprecated</span>` : '',
  ].filter((part) => part !== '');
  const body = Object.entries(op.requestBody?.content ?? {});
  const responses = Object.entries(op.responses ?? {});
  return html`<section class="op" id="${o.id}">
<h3><a href="#${o.id}">${op.summary ?? `${o.method.toUpperCase()} ${o.path}`}</a></h3>
<p class="endpoint">${endpoint(o)}</p>
${meta.length > 0 ? html`<p class="meta">${meta}</p>` : ''}
${prose(op.description)}
${params.length > 0 ? html`<h4>Parameters</h4><div class="scroll"><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>${params}</tbody></table></div>` : ''}
${body.length > 0 ? html`<h4>Request body</h4>${prose(op.requestBody?.description)}${body.map(([type, media]) => html`<p class="muted">${type}</p>${media.schema ? schemaBlock(media.schema, ctx) : ''}`)}` : ''}
${responses.length > 0 ? html`<h4>Responses</h4>${responsesBlock(responses, ctx)}` : ''}
</section>`;
}

/** Error statuses all share the one error body, documented once under Errors, so they get no schema of their own. */
function responsesBlock(responses: readonly [string, ResponseObject][], ctx: SchemaContext): Html {
  const rows = responses.map(([status, r]) => {
    const schemas = Object.values(r.content ?? {}).flatMap((m) => (m.schema ? [m.schema] : []));
    // "Default Response" is @fastify/swagger's filler, and a shared schema's own description says nothing route-specific.
    const generic =
      r.description === 'Default Response' ||
      schemas.some((x) => principal(x, ctx).schema.description === r.description);
    return { status, isError: /^[45]/.test(status), note: generic ? undefined : r.description, schemas };
  });
  const badge = (status: string): Html => html`<span class="status s${status.charAt(0)}">${status}</span>`;
  const plainErrors = rows.filter((r) => r.isError && r.note === undefined);
  return html`${rows
    .filter((r) => !r.isError || r.note !== undefined)
    .map(
      (r) =>
        html`<div class="response"><p>${badge(r.status)} ${inline(r.note)}${r.isError ? html` <a href="#errors">Error body</a>` : ''}</p>${
          r.isError ? '' : r.schemas.map((x) => schemaBlock(x, ctx))
        }</div>`,
    )}${plainErrors.length > 0 ? html`<p class="response">${plainErrors.map((r) => html`${badge(r.status)} `)}<a href="#errors">Error body</a></p>` : ''}`;
}

function errorsSection(errorCodes: ApiReferenceOptions['errorCodes']): Html {
  const sorted = [...errorCodes].sort((a, b) => a.status - b.status || a.code.localeCompare(b.code));
  return html`<section id="errors"><h2><a href="#errors">Errors</a></h2>
<p>Every error has the same JSON body, whatever the endpoint:</p>
<pre><code>{
  "code": "invalid_request",
  "message": "Invalid body: amount is required.",
  "requestId": "req_…",
  "details": [{ "path": "amount", "message": "is required" }]
}</code></pre>
<ul class="fields">
<li><div class="field"><code class="name">code</code> <span class="type">string</span> <span class="req">required</span></div><p>Stable and machine-readable: branch on this. One of the codes below.</p></li>
<li><div class="field"><code class="name">message</code> <span class="type">string</span> <span class="req">required</span></div><p>For humans; the wording may change, so never parse it.</p></li>
<li><div class="field"><code class="name">requestId</code> <span class="type">string</span> <span class="req">required</span></div><p>Identifies the request in the server logs; quote it when reporting a problem. Send your own <code>X-Request-ID</code> to choose it.</p></li>
<li><div class="field"><code class="name">details</code> <span class="type">array of object</span></div><p>Present on validation errors: which field failed (<code>path</code>) and why (<code>message</code>).</p></li>
</ul>
<p>Some errors may add fields of their own; ignore fields you do not know. A 429 carries a <code>Retry-After</code> header: the seconds to wait before retrying.</p>
<div class="scroll"><table><thead><tr><th>Status</th><th>Code</th></tr></thead><tbody>${sorted.map(
    (e) =>
      html`<tr><td><span class="status s${String(e.status).charAt(0)}">${e.status}</span></td><td><code>${e.code}</code></td></tr>`,
  )}</tbody></table></div></section>`;
}

const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#e3e6ea;--code:#f4f5f7;--accent:#2557d6;
--get:#1f7a4d;--post:#2557d6;--put:#8a5a00;--patch:#8a5a00;--delete:#b42318;--other:#5b6470}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--fg:#e6e8eb;--muted:#9aa3ad;--line:#2a3038;--code:#1b2027;--accent:#7aa2ff;
--get:#4cc38a;--post:#7aa2ff;--put:#e0b34f;--patch:#e0b34f;--delete:#ff7b72;--other:#9aa3ad}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main,header{max-width:62rem;margin:0 auto;padding:0 1.25rem}
header{padding-top:2.5rem;border-bottom:1px solid var(--line)}
h1{font-size:2rem;margin:0 0 .25rem}h2{margin-top:3rem;padding-top:1rem;border-top:1px solid var(--line)}
h3{margin:0 0 .25rem}h4{margin:1.5rem 0 .5rem;font-size:.8rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}h2 a,h3 a{color:inherit}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875em}
code{background:var(--code);padding:.1em .35em;border-radius:4px;overflow-wrap:anywhere}
pre{background:var(--code);padding:1rem;border-radius:8px;overflow-x:auto}pre code{padding:0;background:none}
.version,.muted{color:var(--muted)}
.op{padding:1.5rem 0;border-bottom:1px solid var(--line);scroll-margin-top:1rem}
.endpoint{margin:.25rem 0}.path{font-size:.95em}.pp{color:var(--accent);font-weight:600}
.method{display:inline-block;min-width:4.2em;text-align:center;font:700 .75rem/1.8 ui-monospace,monospace;border-radius:4px;color:#fff;background:var(--other);padding:0 .4em}
.get{background:var(--get)}.post{background:var(--post)}.put,.patch{background:var(--put)}.delete{background:var(--delete)}
@media (prefers-color-scheme:dark){.method{color:#111418}}
.chip{display:inline-block;font-size:.78rem;border:1px solid var(--line);border-radius:999px;padding:0 .55em;color:var(--muted)}
.chip.perm{color:var(--fg)}.chip.warn,.req{color:var(--delete)}.req{font-size:.78rem;font-weight:600}
.type{font-family:ui-monospace,monospace;font-size:.85rem;color:var(--accent)}
.fields{list-style:none;margin:.25rem 0;padding-left:1rem;border-left:2px solid var(--line)}
.fields li{margin:.5rem 0}.fields p{margin:.1rem 0 0;color:var(--muted)}.name{font-weight:600}
.schema{margin:.25rem 0 1rem}.response>p{margin:.6rem 0 .25rem}
.status{font:700 .8rem ui-monospace,monospace;padding:.1em .45em;border-radius:4px;background:var(--code)}
.s2{color:var(--get)}.s3{color:var(--accent)}.s4{color:var(--put)}.s5{color:var(--delete)}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;vertical-align:top;padding:.45rem .6rem;border-bottom:1px solid var(--line)}td p{margin:0}
nav ul{list-style:none;padding:0;margin:.25rem 0 1rem}nav li{margin:.2rem 0}nav h3{font-size:1rem;margin-top:1rem}
nav .method{min-width:3.8em;font-size:.68rem}
`;

/**
 * The merchant-facing API reference served at /docs: one self-contained HTML page, no JavaScript and no
 * external requests, so it renders under `Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'`.
 * Every value from the document and options is HTML-escaped (see `html`). Operation anchors are the slug of
 * "method path", e.g. `#get-w-workspaceid-v1-billing`. Never throws on a partial document.
 */
export function renderApiReference(document: OpenApiDocument, options: ApiReferenceOptions): string {
  const ctx: SchemaContext = { components: document.components?.schemas ?? {}, expanding: new Set(), depth: 0 };
  const groups = [...collectOperations(document)];
  const tagInfo = new Map((document.tags ?? []).map((t) => [t.name, t.description]));
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} — API reference</title><style>${new Html(STYLE)}</style></head>
<body><header><h1>${options.title}</h1><p class="version">API version ${options.version}</p>${prose(options.intro)}</header>
<main>
<section id="authentication"><h2><a href="#authentication">Authentication</a></h2>${authentication(document)}</section>
<nav id="contents" aria-label="Contents"><h2><a href="#contents">Contents</a></h2>${groups.map(
    ([tag, ops]) =>
      html`<h3><a href="#tag-${slug(tag)}">${tag}</a></h3><ul>${ops.map(
        (o) => html`<li><a href="#${o.id}">${endpoint(o)}</a> ${o.op.summary ?? ''}</li>`,
      )}</ul>`,
  )}<p><a href="#errors">Errors</a></p></nav>
${groups.map(
  ([tag, ops]) =>
    html`<section id="tag-${slug(tag)}"><h2><a href="#tag-${slug(tag)}">${tag}</a></h2>${prose(tagInfo.get(tag))}${ops.map(
      (o) => operationSection(o, ctx),
    )}</section>`,
)}
${errorsSection(options.errorCodes)}
</main></body></html>
`;
  return page.value;
}
