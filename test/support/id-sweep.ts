import type { RouteEntry } from './route-table.js';

/**
 * Numbers past what a double holds exactly or a PostgreSQL bigint holds: 2^53, 2^63 − 1, 2^63 and 2^64,
 * written as a client writes them. As a JSON number 2^63 − 1 reaches the server as 2^63 (a double),
 * and each is sent as a JSON string as well.
 */
export const HUGE_IDS = ['9007199254740992', '9223372036854775807', '9223372036854775808', '18446744073709551616'];

/** One field of one operation set to a huge id: where it goes and how it is written. */
export interface IdProbe {
  readonly route: RouteEntry;
  readonly field: string;
  readonly as: 'path' | 'query' | 'json number' | 'json string';
  readonly value: string;
  /** The route's path with its parameters filled in (one of them the probe's, for a path probe). */
  readonly path: string;
  readonly query?: string;
  /** JSON text, with the huge id as a literal number when `as` is 'json number'. */
  readonly body?: string;
}

interface Schema {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly items?: Schema;
  readonly anyOf?: readonly Schema[];
}

interface Operation {
  readonly parameters?: readonly { readonly in: string; readonly name: string }[];
  readonly requestBody?: {
    readonly content?: Record<string, { schema?: Schema; examples?: Record<string, { value?: unknown }> }>;
  };
}

export interface OpenApiPaths {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
}

/** A stand-in that JSON.stringify keeps as a string, then swapped for the literal number. */
const PLACEHOLDER = '\u0000huge-id\u0000';

/**
 * Every field of every route set, one at a time, to each of HUGE_IDS: each path parameter, each query
 * parameter the API document names, and each body field of the documented request (every leaf of its
 * example and every property of its schema, nested ones included), the rest of the body as in the
 * example so that the request gets past validation to the code that uses the field. A superset of the
 * id-like fields (event ids, cursors, sequence numbers), so none can be missed.
 */
export function idProbes(
  routes: readonly RouteEntry[],
  document: OpenApiPaths,
  validParams: Readonly<Record<string, string>>,
): IdProbe[] {
  return routes.flatMap((route) => {
    const operation = document.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
    const params = [...route.path.matchAll(/:(\w+)|\*/g)].map((match) => match[1] ?? '*');
    const fill = (name?: string, value?: string) =>
      route.path.replace(/:(\w+)|\*/g, (_, param: string | undefined) =>
        (param ?? '*') === name ? value! : (validParams[param ?? '*'] ?? `${(param ?? 'x').slice(0, 3)}_unknown`),
      );
    const query = (operation?.parameters ?? []).filter((parameter) => parameter.in === 'query');
    const json = operation?.requestBody?.content?.['application/json'];
    const example = Object.values(json?.examples ?? {})[0]?.value ?? (json ? {} : undefined);
    const bodyFields = json ? fieldPaths(example, json.schema).filter((field) => field.length > 0) : [];
    return HUGE_IDS.flatMap((value): IdProbe[] => {
      const body = example === undefined ? undefined : JSON.stringify(example);
      const base = { route, value, path: fill(), ...(body !== undefined && { body }) };
      return [
        ...params.map((name) => ({ ...base, field: name, as: 'path' as const, path: fill(name, value) })),
        ...query.map(({ name }) => ({ ...base, field: name, as: 'query' as const, query: `${name}=${value}` })),
        ...bodyFields.flatMap((field) => [
          { ...base, field: field.join('.'), as: 'json number' as const, body: withField(example, field, value, true) },
          {
            ...base,
            field: field.join('.'),
            as: 'json string' as const,
            body: withField(example, field, value, false),
          },
        ]),
      ];
    });
  });
}

/** The path of every leaf of `example` and of every property `schema` names, nested ones included. */
function fieldPaths(example: unknown, schema: Schema | undefined, at: (string | number)[] = []): (string | number)[][] {
  const objectSchema = schema?.properties ? schema : schema?.anyOf?.find((option) => option.properties);
  if (Array.isArray(example)) {
    const items = schema?.items ?? schema?.anyOf?.find((option) => option.items)?.items;
    return example.length > 0 ? fieldPaths(example[0], items, [...at, 0]) : [[...at, 0]];
  }
  if ((example !== null && typeof example === 'object') || (example === undefined && objectSchema)) {
    const values = (example ?? {}) as Record<string, unknown>;
    const names = new Set([...Object.keys(values), ...Object.keys(objectSchema?.properties ?? {})]);
    const paths = [...names].flatMap((name) =>
      fieldPaths(values[name], objectSchema?.properties?.[name], [...at, name]),
    );
    // An optional object left out of the example is probed as a whole as well as field by field.
    return at.length > 0 && example === undefined ? [at, ...paths] : paths;
  }
  return [at];
}

/** The example as JSON text with the field at `path` set to `value`, a literal number or a string. */
function withField(example: unknown, path: (string | number)[], value: string, asNumber: boolean): string {
  const copy = structuredClone(example ?? {}) as Record<string | number, unknown>;
  let target = copy;
  for (const key of path.slice(0, -1)) {
    const next = target[key];
    target[key] = next !== null && typeof next === 'object' ? next : {};
    target = target[key] as Record<string | number, unknown>;
  }
  target[path.at(-1)!] = asNumber ? PLACEHOLDER : value;
  return JSON.stringify(copy).replace(JSON.stringify(PLACEHOLDER), value);
}
