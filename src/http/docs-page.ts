import { DOCS_SCRIPT, DOCS_STYLE } from './docs-assets.js';
import { guideHref, type Guide } from './docs-guides.js';
import { html, prose, raw, type Html } from './docs-html.js';
import { operationSection, type OperationContext } from './docs-operation.js';
import type { SampleSettings } from './docs-samples.js';
import { schemaContext } from './docs-schema.js';
import { sectionsOf, type Operation, type Section } from './docs-sections.js';
import { webhookEventSection } from './docs-webhooks.js';
import type { OpenApiDocument } from './openapi-types.js';

export interface ApiReferenceOptions {
  readonly title: string;
  readonly version: string;
  readonly errorCodes: ReadonlyArray<{ code: string; status: number }>;
  /** Where the reference is served: the overview at `basePath`, a section at `basePath/<slug>`. */
  readonly basePath: string;
  /** Plain text; blank lines separate paragraphs and `backticks` become code. */
  readonly intro?: string;
  /** The rules of the Idempotency-Key, as plain text; the operations that require one are listed after it. */
  readonly idempotency?: string;
  readonly samples: Omit<SampleSettings, 'origin' | 'securitySchemes' | 'security'>;
  /** The guides of `docs/`, listed in the sidebar and the overview, each a page of the reference. */
  readonly guides?: readonly Guide[];
}

/** The pages of the reference, rendered once: the overview and one page per section, by slug. */
export interface ApiReference {
  readonly overview: string;
  readonly sections: ReadonlyMap<string, string>;
  /** Guide pages by name (`deploy`, `spec/merchant-api-core-v1.1.0`). */
  readonly guides: ReadonlyMap<string, string>;
}

/** What samples call when the document names no server. */
const UNNAMED_ORIGIN = 'https://pay.example.com';

interface Site {
  readonly document: OpenApiDocument;
  readonly options: ApiReferenceOptions;
  readonly sections: readonly Section[];
  readonly ctx: OperationContext;
}

const sectionHref = (site: Site, section: Section): string => `${site.options.basePath}/${section.slug}`;
const operationHref = (site: Site, section: Section, o: Operation): string =>
  `${sectionHref(site, section)}#${encodeURIComponent(o.anchor)}`;
/** Merchant API paths are listed without the prefix every one of them shares; the link's title keeps the full path. */
const shortPath = (site: Site, path: string): string =>
  path.startsWith(`${site.options.samples.clientPrefix}/`)
    ? path.slice(site.options.samples.clientPrefix.length)
    : path;

function sidebar(site: Site, current: Section | Guide | undefined): Html {
  const guides = site.options.guides ?? [];
  return html`<nav id="nav" class="sidebar" aria-label="API reference">
<input type="search" id="filter" placeholder="Filter operations" aria-label="Filter operations" autocomplete="off" hidden>
<p id="filter-none" class="muted" role="status" hidden>No operation mentions that. Try a shorter word, or read the <a href="${site.options.basePath}#getting-started">getting started</a> steps.</p>
<p><a href="${site.options.basePath}"${current ? '' : html` aria-current="page"`}>Overview</a> · <a href="${site.options.basePath}#authentication">Authentication</a> · <a href="${site.options.basePath}#errors">Errors</a></p>
${site.sections.map(
  (section) =>
    // The section's own page is the list's first link, not the summary: a link inside a summary is a
    // control inside a control, which keyboards and screen readers cannot tell apart.
    html`<details${section === current ? html` open data-current` : ''}><summary>${section.title} <span class="count">${section.operations.length}</span></summary><ul><li><a class="section" href="${sectionHref(site, section)}"${
      section === current ? html` aria-current="page"` : ''
    }>All of ${section.title}</a></li>${section.operations.map(
      (o) =>
        html`<li><a href="${operationHref(site, section, o)}"${
          section.kind === 'tag' ? html` title="${o.method.toUpperCase()} ${o.path}"` : ''
        } data-words="${filterWords(o)}"><span class="method ${o.method}">${o.method.toUpperCase()}</span> <span class="path">${
          section.kind === 'tag' ? shortPath(site, o.path) : o.path
        }</span>${o.op.summary ? html`<span class="summary">${o.op.summary}</span>` : ''}</a></li>`,
    )}</ul></details>`,
)}${
    guides.length > 0
      ? html`<details${guides.some((g) => g === current) ? html` open data-current` : ''}><summary>Guides <span class="count">${guides.length}</span></summary><ul>${guides.map(
          (guide) =>
            html`<li><a href="${guideHref(guide.name)}"${guide === current ? html` aria-current="page"` : ''} data-words="${guide.name}">${guide.title}</a></li>`,
        )}</ul></details>`
      : ''
  }
</nav>`;
}

/** What the sidebar filter searches besides an operation's path and summary: its description, lowercase. */
function filterWords(o: Operation): string {
  return `${o.op.summary ?? ''} ${o.op.description ?? ''}`.toLowerCase().replace(/\s+/g, ' ').trim();
}

function layout(site: Site, title: string, current: Section | Guide | undefined, content: Html): string {
  const { options } = site;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${raw(DOCS_STYLE)}</style></head>
<body><header class="topbar"><a class="brand" href="${options.basePath}">${options.title}</a><span class="version">API version ${options.version}</span><span class="spacer"></span><a class="tocLink" href="#nav">Contents</a></header>
<div class="layout"><main>
${content}
</main>
${sidebar(site, current)}
</div><script>${raw(DOCS_SCRIPT)}</script></body></html>
`.value;
}

function authentication(document: OpenApiDocument): Html {
  const schemes = Object.entries(document.components?.securitySchemes ?? {});
  if (schemes.length === 0) return html`<p>This API declares no authentication.</p>`;
  return html`${schemes.map(([name, s]) => {
    const how =
      s.type === 'http' && s.scheme?.toLowerCase() === 'bearer'
        ? html`Send your API key as a bearer token: <code>Authorization: Bearer &lt;key&gt;</code>.`
        : s.type === 'apiKey' && s.in === 'cookie'
          ? html`The portal's session: the <code>${s.name ?? ''}</code> cookie that signing in sets, which the browser sends by itself.`
          : s.type === 'apiKey'
            ? html`Send the key in the <code>${s.name ?? ''}</code> ${s.in ?? ''}.`
            : html`Scheme <code>${name}</code> (${s.type ?? 'unknown'}).`;
    return html`<p>${how}</p>${prose(s.description)}`;
  })}<p>Operations marked <span class="chip">API key</span> need a key; most also name the <strong>permission</strong> the key must hold. Those marked <span class="chip">Session cookie</span> are the portal's, on a signed-in session.</p>`;
}

function idempotency(site: Site): Html {
  const requiring = site.sections.flatMap((section) =>
    section.kind === 'tag'
      ? section.operations
          .filter((o) =>
            o.parameters.some((p) => p.in === 'header' && p.required && p.name?.toLowerCase() === 'idempotency-key'),
          )
          .map((o) => ({ section, o }))
      : [],
  );
  if (requiring.length === 0 && !site.options.idempotency) return html``;
  return html`<section id="idempotency"><h2><a href="#idempotency">Idempotency</a></h2>${prose(site.options.idempotency)}${
    requiring.length > 0
      ? html`<p>These operations require an <code>Idempotency-Key</code> header:</p><ul>${requiring.map(
          ({ section, o }) =>
            html`<li><a href="${operationHref(site, section, o)}">${o.method.toUpperCase()} ${shortPath(site, o.path)}</a> ${o.op.summary ?? ''}</li>`,
        )}</ul>`
      : ''
  }</section>`;
}

function errorsSection(errorCodes: ApiReferenceOptions['errorCodes']): Html {
  const sorted = [...errorCodes].sort((a, b) => a.status - b.status || a.code.localeCompare(b.code));
  return html`<section id="errors"><h2><a href="#errors">Errors</a></h2>
<p>Every error has the same JSON body, whatever the endpoint:</p>
<pre tabindex="0"><code>{
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
<div class="scroll" tabindex="0"><table><thead><tr><th>Status</th><th>Code</th></tr></thead><tbody>${sorted.map(
    (e) =>
      html`<tr><td><span class="status s${String(e.status).charAt(0)}">${e.status}</span></td><td><code>${e.code}</code></td></tr>`,
  )}</tbody></table></div></section>`;
}

function overview(site: Site): string {
  const { options, document } = site;
  const prefix = options.samples.clientPrefix;
  return layout(
    site,
    `${options.title} — API reference`,
    undefined,
    html`<h1>${options.title}</h1><p class="version">API version ${options.version}</p>${prose(options.intro)}
${gettingStarted(site)}
<section id="sections"><h2><a href="#sections">Sections</a></h2>
<p>Merchant API paths start with <code>${prefix}</code>; the sidebar lists them without it.</p>
<ul class="sections">${site.sections.map(
      (section) =>
        html`<li><a href="${sectionHref(site, section)}"><strong>${section.title}</strong></a> <span class="muted">(${section.operations.length})</span>${
          section.description ? html` — ${section.description}` : ''
        }</li>`,
    )}</ul></section>
${guideList(site)}
<section id="authentication"><h2><a href="#authentication">Authentication</a></h2>${authentication(document)}</section>
${idempotency(site)}
${errorsSection(options.errorCodes)}`,
  );
}

/** From a key to knowing an invoice is paid, with curl and with the TypeScript client. */
function gettingStarted(site: Site): Html {
  const { clientPackage, apiKeyVariable } = site.options.samples;
  const origin = (site.document.servers?.[0]?.url ?? UNNAMED_ORIGIN).replace(/\/+$/, '');
  const api = `${origin}${site.options.samples.clientPrefix.replace('{workspaceId}', 'ws_…')}`;
  const section = (title: string) => site.sections.find((s) => s.title === title);
  const link = (title: string, text: string) => {
    const target = section(title);
    return target ? html`<a href="${sectionHref(site, target)}">${text}</a>` : html`${text}`;
  };
  return html`<section id="getting-started"><h2><a href="#getting-started">Getting started</a></h2>
<ol class="steps">
<li><p><strong>Get an API key.</strong> Sign in to the portal (<code>/portal</code>) with the wallet that receives your payments, open the <em>API</em> tab and create a key with the <em>Create invoices</em> preset: it creates invoices, reads them and follows the change feed. The key is shown once; keep it in <code>${apiKeyVariable}</code>. (The local demo, <code>npm start</code>, prints one.)</p></li>
<li><p><strong>Create an invoice</strong> (${link('Invoices', 'Invoices')}). Each create carries its own <code>Idempotency-Key</code>, reused only when retrying:</p>
<pre tabindex="0"><code>curl -X POST ${api}/invoices \
  -H "Authorization: Bearer $${apiKeyVariable}" \
  -H "Idempotency-Key: order-1001" \
  -H "Content-Type: application/json" \
  -d '{"amount":"12.50","description":"Two bags of coffee","externalId":"order-1001"}'</code></pre>
<p>Or with the TypeScript client, <code>${clientPackage}</code> (Node.js 20 or later): <code>npm pack</code> in the service's <code>packages/client</code> folder, then <code>npm install</code> the tarball in your project. It makes the Idempotency-Key, retries safely and types every call:</p>
<pre tabindex="0"><code>import { createClient } from '${clientPackage}';

const client = createClient({ baseUrl: '${origin}', workspaceId: 'ws_…', apiKey: process.env.${apiKeyVariable}! });
const { data: invoice, error } = await client.POST('/invoices', { body: { amount: '12.50', externalId: 'order-1001' } });</code></pre></li>
<li><p><strong>Send the buyer the <code>checkoutUrl</code>.</strong> The checkout page takes a browser wallet, any wallet app (QR code) or a pasted transaction hash. Software pays the invoice's <code>url</code> with any x402 client (${link('x402', 'x402')}).</p></li>
<li><p><strong>Learn that it is paid</strong>, from a webhook or from the change feed. Set your endpoint with <code>PUT /webhook</code> (${link('Webhooks', 'Webhooks')}) and check each delivery's signature before trusting it:</p>
<pre tabindex="0"><code>import { verifyWebhook } from '${clientPackage}';

const event = verifyWebhook(rawBody, request.headers, process.env.WEBHOOK_SECRET!); // throws when the signature is wrong
if (event.type === 'invoice.paid') await fulfil(event.data.invoice.externalId);</code></pre>
<p>Or follow the change feed (${link('Changes', 'Changes')}), saving the cursor after each event you processed; it also catches up on anything a webhook missed:</p>
<pre tabindex="0"><code>for await (const change of client.changes({ after: savedCursor, follow: true })) {
  await handle(change);
  savedCursor = change.id;
}</code></pre></li>
<li><p><strong>Give the receipt.</strong> <code>GET /invoices/{invoiceId}/receipt</code> answers the numbered receipt as JSON, or as a PDF with <code>Accept: application/pdf</code>; the buyer downloads the same PDF from the paid checkout page.</p></li>
</ol></section>`;
}

function guideList(site: Site): Html {
  const guides = site.options.guides ?? [];
  if (guides.length === 0) return html``;
  return html`<section id="guides"><h2><a href="#guides">Guides</a></h2>
<p>The rules behind the API and how to run the service, as in the <code>docs/</code> folder of its source.</p>
<ul class="sections">${guides.map((guide) => html`<li><a href="${guideHref(guide.name)}">${guide.title}</a></li>`)}</ul></section>`;
}

function guidePage(site: Site, guide: Guide): string {
  return layout(
    site,
    `${guide.title} — ${site.options.title}`,
    guide,
    html`<article class="guide">${guide.body}</article>
<nav class="pager" aria-label="Guides"><a href="${site.options.basePath}#guides">← All guides</a></nav>`,
  );
}

function sectionPage(site: Site, section: Section, index: number): string {
  const previous = site.sections[index - 1];
  const next = site.sections[index + 1];
  const render = section.kind === 'webhooks' ? webhookEventSection : operationSection;
  const webhooks = site.sections.find((s) => s.kind === 'tag' && s.title === 'Webhooks');
  return layout(
    site,
    `${section.title} — ${site.options.title}`,
    section,
    html`<h1>${section.title}</h1>${prose(section.description)}${
      section.kind === 'webhooks' && webhooks
        ? html`<p>Set the endpoint and read its deliveries under <a href="${sectionHref(site, webhooks)}">Webhooks</a>.</p>`
        : ''
    }
${section.operations.map((o) => render(o, site.ctx))}
<nav class="pager" aria-label="Sections">${
      previous
        ? html`<a href="${sectionHref(site, previous)}">← ${previous.title}</a>`
        : html`<a href="${site.options.basePath}">← Overview</a>`
    }${next ? html`<a href="${sectionHref(site, next)}">${next.title} →</a>` : ''}</nav>`,
  );
}

/**
 * The merchant-facing API reference: an overview (authentication, idempotency, errors, the sections) and a
 * page per tag with each operation's fields, examples and curl/TypeScript samples, plus the webhook events.
 * Self-contained pages: inline style and one inline script (allowed by hash, see DOCS_CSP), no external
 * request. Every value from the document and options is HTML-escaped (see `html`). Operations are anchored
 * by operationId. Never throws on a partial document.
 */
export function renderApiReference(document: OpenApiDocument, options: ApiReferenceOptions): ApiReference {
  const origin = (document.servers?.[0]?.url ?? UNNAMED_ORIGIN).replace(/\/+$/, '');
  const site: Site = {
    document,
    options,
    sections: sectionsOf(document),
    ctx: {
      schemas: schemaContext(document),
      errorsHref: `${options.basePath}#errors`,
      samples: {
        ...options.samples,
        origin,
        securitySchemes: document.components?.securitySchemes ?? {},
        security: document.security,
      },
    },
  };
  return {
    overview: overview(site),
    sections: new Map(site.sections.map((section, i) => [section.slug, sectionPage(site, section, i)])),
    guides: new Map((options.guides ?? []).map((guide) => [guide.name, guidePage(site, guide)])),
  };
}
