import { examplesBlock, examplesOf } from './docs-examples.js';
import { html, prose, type Html } from './docs-html.js';
import { parametersTable, responsesBlock, type OperationContext } from './docs-operation.js';
import { schemaBlock } from './docs-schema.js';
import type { Operation } from './docs-sections.js';

/**
 * One event of the document's top-level `webhooks`: the request this service sends, so what a receiver
 * reads — its headers, the payload's fields and an example, shown open — and what it should answer.
 */
export function webhookEventSection(event: Operation, ctx: OperationContext): Html {
  const { op } = event;
  const headers = event.parameters.filter((p) => p.in === 'header');
  const body = Object.entries(op.requestBody?.content ?? {});
  const responses = Object.entries(op.responses ?? {});
  return html`<section class="op" id="${event.anchor}">
<h2><a href="#${event.anchor}"><code>${event.path}</code></a></h2>
<p class="endpoint"><span class="method ${event.method}">${event.method.toUpperCase()}</span> ${
    op.summary ? html`<strong>${op.summary}</strong>` : html`<span class="muted">to your webhook endpoint</span>`
  }</p>
${prose(op.description)}
${headers.length > 0 ? html`<h3>Headers</h3>${parametersTable(headers, ctx.schemas)}` : ''}
${body.map(
  ([type, media]) =>
    html`<h3>Payload</h3>${prose(op.requestBody?.description)}<p class="muted">${type}</p>${
      media.schema ? schemaBlock(media.schema, ctx.schemas) : ''
    }${examplesBlock(examplesOf(media, ctx.schemas), 'Example', true)}`,
)}
${responses.length > 0 ? html`<h3>Your answer</h3>${responsesBlock(responses, ctx)}` : ''}
</section>`;
}
