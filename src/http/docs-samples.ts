import type { HttpMethod, OperationObject, ParameterObject, SecuritySchemeObject } from './openapi-types.js';

/** What the samples need to know beyond one operation: where the service runs and how callers reach it. */
export interface SampleSettings {
  /** The service's public origin, as in the document's `servers`. */
  readonly origin: string;
  readonly securitySchemes: Readonly<Record<string, SecuritySchemeObject>>;
  /** The document's default security, for operations that declare none. */
  readonly security?: OperationObject['security'];
  /** Operations under this prefix are shown through the TypeScript client, which fills the prefix in itself. */
  readonly clientPrefix: string;
  readonly clientPackage: string;
  /** The environment variable samples read a bearer key from. */
  readonly apiKeyVariable: string;
  /** Prefixes whose changes must carry the service's Origin: a browser sends it, curl must say it. */
  readonly originCheckedPrefixes: readonly string[];
}

export interface SampleOperation {
  readonly method: HttpMethod;
  readonly path: string;
  readonly op: OperationObject;
  readonly parameters: readonly ParameterObject[];
  /** The request body a sample sends, if the operation takes one. */
  readonly body?: { readonly mediaType: string; readonly value: unknown };
  /** The media type of the success response, to read it the right way. */
  readonly responseType?: string;
}

export interface Samples {
  readonly curl: string;
  readonly typescript: string;
}

/** `invoiceId` → `INVOICE_ID`: the shell variable a curl sample expects. */
export const shellVariable = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();

/** `idempotency-key` → `Idempotency-Key`, as HTTP documentation spells header names. */
const headerName = (name: string): string =>
  name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

const isJson = (mediaType: string | undefined): boolean => mediaType !== undefined && /\bjson\b/i.test(mediaType);
const parameterExample = (p: ParameterObject): unknown =>
  p.example ?? Object.values(p.examples ?? {})[0]?.value ?? p.schema?.examples?.[0] ?? p.schema?.example;

interface Auth {
  readonly headers: [string, string][];
  readonly cookie?: { readonly name: string; readonly description?: string };
  readonly query: [string, string][];
}

function authOf(o: SampleOperation, settings: SampleSettings): Auth {
  const auth: Auth = { headers: [], query: [] };
  // The first requirement is enough to make the call; alternatives are listed under Authentication.
  const requirement = (o.op.security ?? settings.security ?? [])[0] ?? {};
  let cookie: Auth['cookie'];
  for (const name of Object.keys(requirement)) {
    const scheme = settings.securitySchemes[name];
    if (scheme?.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer')
      auth.headers.push(['Authorization', `Bearer $${settings.apiKeyVariable}`]);
    else if (scheme?.type === 'apiKey' && scheme.in === 'header' && scheme.name)
      auth.headers.push([scheme.name, `$${shellVariable(scheme.name)}`]);
    else if (scheme?.type === 'apiKey' && scheme.in === 'query' && scheme.name)
      auth.query.push([scheme.name, `$${shellVariable(scheme.name)}`]);
    else if (scheme?.type === 'apiKey' && scheme.in === 'cookie' && scheme.name)
      cookie = { name: scheme.name, description: scheme.description };
  }
  return { ...auth, cookie };
}

/** Required query parameters, and optional ones the document gives an example for. */
function queryOf(o: SampleOperation): [string, unknown][] {
  return o.parameters.flatMap((p): [string, unknown][] => {
    if (p.in !== 'query' || !p.name) return [];
    const example = parameterExample(p);
    if (example !== undefined) return [[p.name, example]];
    return p.required ? [[p.name, p.schema?.default ?? `<${p.name}>`]] : [];
  });
}

/** Required headers other than the ones security adds. An Idempotency-Key gets a fresh value per call. */
function headersOf(o: SampleOperation): { name: string; value: unknown }[] {
  return o.parameters
    .filter((p) => p.in === 'header' && p.required && p.name)
    .map((p) => ({ name: headerName(p.name ?? ''), value: parameterExample(p) }));
}

const originChecked = (o: SampleOperation, settings: SampleSettings): boolean =>
  !['get', 'head', 'options'].includes(o.method) &&
  settings.originCheckedPrefixes.some((prefix) => o.path.startsWith(prefix));

// ---- curl -----------------------------------------------------------------------------------------

/** Inside "…": the shell still expands $VARIABLES and $(commands), which the samples rely on. */
const doubleQuoted = (text: string): string => `"${text.replace(/["\\`]/g, '\\$&')}"`;
const singleQuoted = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
const queryValue = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

export function curlSample(o: SampleOperation, settings: SampleSettings): string {
  const auth = authOf(o, settings);
  const path = o.path.replace(/\{([^}]+)\}/g, (_, name: string) => `$${shellVariable(name)}`);
  const query = [
    ...queryOf(o).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(queryValue(value))}`),
    ...auth.query.map(([name, value]) => `${encodeURIComponent(name)}=${value}`),
  ];
  const url = `${settings.origin}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  const comments: string[] = [];
  const options: string[] = [];
  for (const [name, value] of auth.headers) options.push(`-H ${doubleQuoted(`${name}: ${value}`)}`);
  if (auth.cookie) {
    comments.push(`# ${auth.cookie.description ?? `The ${auth.cookie.name} cookie of a signed-in session.`}`);
    options.push(`-b ${doubleQuoted(`${auth.cookie.name}=$${shellVariable(auth.cookie.name)}`)}`);
  }
  if (originChecked(o, settings)) options.push(`-H ${doubleQuoted(`Origin: ${settings.origin}`)}`);
  for (const { name, value } of headersOf(o)) {
    const shown =
      value !== undefined ? queryValue(value) : name === 'Idempotency-Key' ? '$(uuidgen)' : `$${shellVariable(name)}`;
    options.push(`-H ${doubleQuoted(`${name}: ${shown}`)}`);
  }
  if (o.body) {
    options.push(`-H ${doubleQuoted(`Content-Type: ${o.body.mediaType}`)}`);
    const text = typeof o.body.value === 'string' ? o.body.value : JSON.stringify(o.body.value, null, 2);
    // Indented under the option; whitespace inside the quotes changes nothing of the JSON.
    const indented = isJson(o.body.mediaType) ? (text ?? '').replace(/\n/g, '\n  ') : (text ?? '');
    options.push(`${isJson(o.body.mediaType) ? '-d' : '--data-binary'} ${singleQuoted(indented)}`);
  }
  const method = o.method === 'get' ? '' : `-X ${o.method.toUpperCase()} `;
  return [...comments, [`curl ${method}${doubleQuoted(url)}`, ...options].join(' \\\n  ')].join('\n');
}

// ---- TypeScript -----------------------------------------------------------------------------------

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const tsString = (text: string): string => {
  const quoted = JSON.stringify(text);
  return text.includes("'") || quoted.includes('\\"') ? quoted : `'${quoted.slice(1, -1)}'`;
};

/** Literals that fit within this many columns stay on one line, as a formatter would leave them. */
const LINE = 80;

/** A value as a TypeScript literal, indented from `indent`: objects keep their keys unquoted where they can. */
export function tsLiteral(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (typeof value === 'string') return tsString(value);
  const key = (name: string) => (IDENTIFIER.test(name) ? name : tsString(name));
  let items: string[];
  let open: string;
  let close: string;
  if (Array.isArray(value)) {
    [items, open, close] = [value.map((item) => tsLiteral(item, inner)), '[', ']'];
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    [items, open, close] = [entries.map(([name, item]) => `${key(name)}: ${tsLiteral(item, inner)}`), '{ ', ' }'];
  } else {
    return JSON.stringify(value) ?? 'undefined';
  }
  if (items.length === 0) return open.trim() + close.trim();
  const oneLine = `${open}${items.join(', ')}${close}`;
  if (!oneLine.includes('\n') && indent.length + oneLine.length <= LINE) return oneLine;
  return `${open.trim()}\n${items.map((item) => `${inner}${item},`).join('\n')}\n${indent}${close.trim()}`;
}

const pathValue = (o: SampleOperation, name: string): unknown =>
  parameterExample(o.parameters.find((p) => p.in === 'path' && p.name === name) ?? {}) ?? `<${name}>`;

/** Merchant API operations through the client package (which adds the prefix, the key and an Idempotency-Key); others with fetch. */
export function typescriptSample(o: SampleOperation, settings: SampleSettings): string {
  return o.path.startsWith(`${settings.clientPrefix}/`) || o.path === settings.clientPrefix
    ? clientSample(o, settings)
    : fetchSample(o, settings);
}

function clientSample(o: SampleOperation, settings: SampleSettings): string {
  const path = o.path.slice(settings.clientPrefix.length) || '/';
  const prefixParams = new Set([...settings.clientPrefix.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]));
  const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '').filter((n) => !prefixParams.has(n));
  const params: Record<string, unknown> = {};
  if (pathParams.length > 0) params.path = Object.fromEntries(pathParams.map((name) => [name, pathValue(o, name)]));
  const query = queryOf(o);
  if (query.length > 0) params.query = Object.fromEntries(query);
  const init: Record<string, unknown> = {};
  if (Object.keys(params).length > 0) init.params = params;
  if (o.body) init.body = o.body.value;
  const args = [tsString(path), ...(Object.keys(init).length > 0 ? [tsLiteral(init)] : [])].join(', ');
  return [
    `import { createClient } from ${tsString(settings.clientPackage)};`,
    '',
    'const client = createClient({',
    `  baseUrl: ${tsString(settings.origin)},`,
    '  workspaceId: process.env.WORKSPACE_ID!,',
    `  apiKey: process.env.${settings.apiKeyVariable}!,`,
    '});',
    '',
    `const { data, error } = await client.${o.method.toUpperCase()}(${args});`,
  ].join('\n');
}

function fetchSample(o: SampleOperation, settings: SampleSettings): string {
  const auth = authOf(o, settings);
  const names = [...o.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
  const declarations = names.map(
    (name) => `const ${IDENTIFIER.test(name) ? name : '_'} = ${tsLiteral(pathValue(o, name))};`,
  );
  const path = o.path.replace(/\{([^}]+)\}/g, (_, name: string) => `\${${IDENTIFIER.test(name) ? name : '_'}}`);
  const query = [
    ...queryOf(o).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(queryValue(value))}`),
    ...auth.query.map(([name, value]) => `${encodeURIComponent(name)}=\${process.env.${value.slice(1)}}`),
  ];
  const address = `${settings.origin}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  const url = address.includes('${') ? `\`${address}\`` : tsString(address);
  const headers: [string, string][] = [
    ...auth.headers.map(([name, value]): [string, string] => [
      name,
      value.startsWith('Bearer $')
        ? `\`Bearer \${process.env.${settings.apiKeyVariable}}\``
        : `process.env.${value.slice(1)}!`,
    ]),
    ...headersOf(o).map(({ name, value }): [string, string] => [
      name,
      value !== undefined ? tsLiteral(value) : name === 'Idempotency-Key' ? 'crypto.randomUUID()' : `'<${name}>'`,
    ]),
    ...(o.body ? [['Content-Type', tsString(o.body.mediaType)] as [string, string]] : []),
  ];
  const init: string[] = [];
  if (o.method !== 'get') init.push(`method: '${o.method.toUpperCase()}',`);
  if (headers.length > 0)
    init.push(
      `headers: { ${headers.map(([name, value]) => `${IDENTIFIER.test(name) ? name : tsString(name)}: ${value}`).join(', ')} },`,
    );
  if (o.body)
    init.push(
      isJson(o.body.mediaType)
        ? `body: JSON.stringify(${tsLiteral(o.body.value, '  ')}),`
        : `body: ${tsLiteral(typeof o.body.value === 'string' ? o.body.value : JSON.stringify(o.body.value))},`,
    );
  // The browser sends the session cookie and the Origin header itself, from a page of this origin.
  if (auth.cookie) init.push("credentials: 'include',");
  const call = init.length > 0 ? `fetch(${url}, {\n${init.map((line) => `  ${line}`).join('\n')}\n})` : `fetch(${url})`;
  const read = isJson(o.responseType)
    ? ['const data = await response.json();']
    : o.responseType !== undefined
      ? ['const text = await response.text();']
      : [];
  return [
    ...(auth.cookie
      ? [`// From a page on ${settings.origin} with a signed-in session (the ${auth.cookie.name} cookie).`]
      : []),
    ...declarations,
    `const response = await ${call};`,
    ...read,
  ].join('\n');
}

export function samplesFor(o: SampleOperation, settings: SampleSettings): Samples {
  return { curl: curlSample(o, settings), typescript: typescriptSample(o, settings) };
}
