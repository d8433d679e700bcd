import { html, prose, type Html } from './docs-html.js';
import { MAX_DEPTH, principal, resolve, type SchemaContext } from './docs-schema.js';
import type { JsonSchema, MediaTypeObject, ParameterObject } from './openapi-types.js';

export interface Example {
  readonly title?: string;
  readonly description?: string;
  readonly value: unknown;
}

/**
 * The examples a media type (or a parameter) documents, from OpenAPI 3.1's places in order of precedence:
 * the named `examples`, the single `example`, then the schema's own `examples` (or 3.0's `example`).
 */
export function examplesOf(media: MediaTypeObject | ParameterObject, ctx: SchemaContext): Example[] {
  const named = Object.entries(media.examples ?? {}).filter(([, e]) => e.value !== undefined);
  if (named.length > 0)
    return named.map(([name, e]) => ({ title: e.summary ?? name, description: e.description, value: e.value }));
  if (media.example !== undefined) return [{ value: media.example }];
  if (!media.schema) return [];
  const { schema } = resolve(media.schema, ctx);
  const values = media.schema.examples ?? schema.examples ?? (schema.example !== undefined ? [schema.example] : []);
  return values.map((value) => ({ value }));
}

/** Strings shown as they are (a CSV, a page), anything else as indented JSON. */
export const exampleText = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));

export function examplesBlock(examples: readonly Example[], label: string, open = false): Html {
  return html`${examples.map(
    (e) =>
      html`<details class="example"${open ? html` open` : ''}><summary>${label}${e.title ? `: ${e.title}` : ''}</summary>${prose(
        e.description,
      )}<pre tabindex="0"><code>${exampleText(e.value)}</code></pre></details>`,
  )}`;
}

/**
 * The value a sample sends: the first documented example, else one built from the schema, with only its
 * required fields (what a first request must send), each from its own example, default or type.
 */
export function sampleValue(media: MediaTypeObject | ParameterObject, ctx: SchemaContext): unknown {
  const [first] = examplesOf(media, ctx);
  if (first) return first.value;
  return media.schema ? synthesize(media.schema, ctx) : undefined;
}

const FORMAT_SAMPLES: Readonly<Record<string, string>> = {
  'date-time': '2026-01-31T12:00:00Z',
  date: '2026-01-31',
  email: 'billing@example.com',
  uri: 'https://shop.example.com/',
  url: 'https://shop.example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
};

/** `name` is the field's, so that a string without a better sample reads as a placeholder: `<amount>`. */
function synthesize(schema: JsonSchema, ctx: SchemaContext, name = 'value'): unknown {
  const own = schema.examples?.[0] ?? schema.example;
  if (own !== undefined) return own;
  const { schema: s, ctx: inner, unexpanded } = principal(schema, ctx);
  if (unexpanded !== undefined || inner.depth > MAX_DEPTH) return null;
  const documented = s.examples?.[0] ?? s.example ?? s.default ?? s.const ?? s.enum?.[0];
  if (documented !== undefined) return documented;
  const variant = (s.anyOf ?? s.oneOf)?.[0];
  if (variant) return synthesize(variant, inner, name);
  const declared = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : (s.type as string | undefined);
  const type = declared ?? (s.properties ? 'object' : s.items ? 'array' : undefined);
  if (type === 'object')
    return Object.fromEntries(
      (s.required ?? []).map((field) => {
        const property = s.properties?.[field];
        return [field, property ? synthesize(property, inner, field) : null];
      }),
    );
  if (type === 'array') return s.items ? [synthesize(s.items, inner, name)] : [];
  if (type === 'string') return (s.format && FORMAT_SAMPLES[s.format]) ?? `<${name}>`;
  if (type === 'integer' || type === 'number')
    return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
  if (type === 'boolean') return false;
  return null;
}
