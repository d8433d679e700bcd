import { html, json, prose, type Html } from './docs-html.js';
import type { JsonSchema, OpenApiDocument } from './openapi-types.js';

/** Nesting deeper than this is cut off: a page, not a schema browser, and it bounds the work per schema. */
export const MAX_DEPTH = 10;
const REF_PREFIX = '#/components/schemas/';

export interface SchemaContext {
  readonly components: Readonly<Record<string, JsonSchema>>;
  /** Component names being expanded on the current path; meeting one again means a cycle. */
  readonly expanding: ReadonlySet<string>;
  readonly depth: number;
}

export const schemaContext = (document: OpenApiDocument): SchemaContext => ({
  components: document.components?.schemas ?? {},
  expanding: new Set(),
  depth: 0,
});

export interface Resolved {
  readonly schema: JsonSchema;
  readonly ctx: SchemaContext;
  /** Set when the schema is a $ref that is not expanded (a cycle or an unknown target). */
  readonly unexpanded?: string;
}

export function resolve(schema: JsonSchema, ctx: SchemaContext): Resolved {
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
export function principal(schema: JsonSchema, ctx: SchemaContext): Resolved {
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

export function typeLabel(schema: JsonSchema, ctx: SchemaContext): string {
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

export function constraints(s: JsonSchema): Html {
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

export function schemaBlock(schema: JsonSchema, ctx: SchemaContext): Html {
  const main = principal(schema, ctx).schema;
  return html`<div class="schema"><span class="type">${typeLabel(schema, ctx)}</span>${constraints(main)}${prose(
    schema.description ?? main.description,
  )}${fields(schema, ctx)}</div>`;
}
