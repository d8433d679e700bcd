import { examplesBlock, examplesOf, sampleValue } from './docs-examples.js';
import { html, inline, prose, type Html } from './docs-html.js';
import { samplesFor, type SampleSettings } from './docs-samples.js';
import { constraints, principal, schemaBlock, typeLabel, type SchemaContext } from './docs-schema.js';
import type { Operation } from './docs-sections.js';
import type { MediaTypeObject, OperationObject, ParameterObject, ResponseObject } from './openapi-types.js';

export interface OperationContext {
  readonly schemas: SchemaContext;
  readonly samples: SampleSettings;
  /** Where the shared error body is explained (the overview's Errors section). */
  readonly errorsHref: string;
}

export const pathMarkup = (path: string): Html =>
  html`${path.split(/(\{[^}]+\})/).map((piece) => (piece.startsWith('{') ? html`<span class="pp">${piece}</span>` : piece))}`;
export const endpoint = (o: Pick<Operation, 'method' | 'path'>): Html =>
  html`<span class="method ${o.method}">${o.method.toUpperCase()}</span> <code class="path">${pathMarkup(o.path)}</code>`;

export function parametersTable(parameters: readonly ParameterObject[], ctx: SchemaContext): Html {
  if (parameters.length === 0) return html``;
  const rows = parameters.map(
    (p) =>
      html`<tr><td><code>${p.name ?? ''}</code></td><td>${p.in ?? ''}</td><td><span class="type">${
        p.schema ? typeLabel(p.schema, ctx) : 'any'
      }</span>${p.schema ? constraints(principal(p.schema, ctx).schema) : ''}</td><td>${p.required ? html`<span class="req">required</span>` : 'optional'}</td><td>${prose(
        p.description ?? p.schema?.description,
      )}</td></tr>`,
  );
  return html`<div class="scroll" tabindex="0"><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

export function mediaBlock(type: string, media: MediaTypeObject, ctx: SchemaContext, openExamples = false): Html {
  return html`<p class="muted">${type}</p>${media.schema ? schemaBlock(media.schema, ctx) : ''}${examplesBlock(
    examplesOf(media, ctx),
    'Example',
    openExamples,
  )}`;
}

/** curl and TypeScript side by side as tabs that need no script: a radio pair per operation, CSS shows the checked one. */
function samplesBlock(o: Operation, ctx: OperationContext): Html {
  const [bodyType, bodyMedia] = Object.entries(o.op.requestBody?.content ?? {})[0] ?? [];
  const success = Object.entries(o.op.responses ?? {}).find(([status]) => /^2/.test(status))?.[1];
  const samples = samplesFor(
    {
      ...o,
      body: bodyType && bodyMedia ? { mediaType: bodyType, value: sampleValue(bodyMedia, ctx.schemas) } : undefined,
      responseType: Object.keys(success?.content ?? {})[0],
    },
    ctx.samples,
  );
  const name = `sample-${o.anchor}`;
  return html`<div class="samples"><input type="radio" name="${name}" id="${name}-curl" value="curl" checked><label for="${name}-curl">curl</label><input type="radio" name="${name}" id="${name}-ts" value="ts"><label for="${name}-ts">TypeScript</label><div class="sample"><pre tabindex="0"><code>${samples.curl}</code></pre></div><div class="sample"><pre tabindex="0"><code>${samples.typescript}</code></pre></div></div>`;
}

export function operationSection(o: Operation, ctx: OperationContext): Html {
  const { op } = o;
  const meta = [
    op['x-permission'] ? html`<span class="chip perm">Permission <code>${op['x-permission']}</code></span> ` : '',
    op.security?.length === 0 ? html`<span class="chip">No authentication</span> ` : '',
    op.security?.length ? html`<span class="chip">${securityLabel(op, ctx)}</span> ` : '',
    op.deprecated ? html`<span class="chip warn">Deprecated</span>` : '',
  ].filter((part) => part !== '');
  const body = Object.entries(op.requestBody?.content ?? {});
  const responses = Object.entries(op.responses ?? {});
  return html`<section class="op" id="${o.anchor}">
<h2><a href="#${o.anchor}">${op.summary ?? `${o.method.toUpperCase()} ${o.path}`}</a></h2>
<p class="endpoint">${endpoint(o)}</p>
${meta.length > 0 ? html`<p class="meta">${meta}</p>` : ''}
${prose(op.description)}
${samplesBlock(o, ctx)}
${o.parameters.length > 0 ? html`<h3>Parameters</h3>${parametersTable(o.parameters, ctx.schemas)}` : ''}
${body.length > 0 ? html`<h3>Request body</h3>${prose(op.requestBody?.description)}${body.map(([type, media]) => mediaBlock(type, media, ctx.schemas))}` : ''}
${responses.length > 0 ? html`<h3>Responses</h3>${responsesBlock(responses, ctx)}` : ''}
</section>`;
}

/** What the operation's first security requirement asks for, in the reader's words. */
function securityLabel(op: OperationObject, ctx: OperationContext): string {
  const names = Object.keys(op.security?.[0] ?? {});
  const cookie = names.some((name) => ctx.samples.securitySchemes[name]?.in === 'cookie');
  return cookie ? 'Session cookie' : 'API key';
}

/** Error statuses all share the one error body, documented once under Errors, so they get no schema of their own. */
export function responsesBlock(responses: readonly [string, ResponseObject][], ctx: OperationContext): Html {
  const rows = responses.map(([status, r]) => {
    const media = Object.entries(r.content ?? {});
    const examples = media.flatMap(([, m]) => examplesOf(m, ctx.schemas));
    // "Default Response" is @fastify/swagger's filler, and a shared schema's own description says nothing route-specific.
    const generic =
      r.description === 'Default Response' ||
      media.some(([, m]) => m.schema && principal(m.schema, ctx.schemas).schema.description === r.description);
    const isError = /^[45]/.test(status);
    return {
      status,
      isError,
      note: generic ? undefined : r.description,
      media,
      plain: isError && examples.length === 0,
    };
  });
  const badge = (status: string): Html => html`<span class="status s${status.charAt(0)}">${status}</span>`;
  const errorLink = html`<a href="${ctx.errorsHref}">Error body</a>`;
  const plainErrors = rows.filter((r) => r.plain && r.note === undefined);
  return html`${rows
    .filter((r) => !r.plain || r.note !== undefined)
    .map(
      (r) =>
        html`<div class="response"><p>${badge(r.status)} ${inline(r.note)}${r.isError ? html` ${errorLink}` : ''}</p>${r.media.map(
          ([type, m]) =>
            r.isError ? examplesBlock(examplesOf(m, ctx.schemas), 'Example') : mediaBlock(type, m, ctx.schemas),
        )}</div>`,
    )}${plainErrors.length > 0 ? html`<p class="response">${plainErrors.map((r) => html`${badge(r.status)} `)}${errorLink}</p>` : ''}`;
}
