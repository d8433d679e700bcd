import net from 'node:net';
import { expect } from 'vitest';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything the server sent before it closed. */
  text: string;
}

/** Collects what the server sends on `socket` until the connection closes. */
export function readUntilClose(socket: net.Socket): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseRaw(Buffer.concat(chunks).toString('latin1'))));
  });
}

/** Sends bytes as they are (no client library would send these) and reads until the server closes. */
export function sendRaw(port: number, request: string | Buffer): Promise<RawResponse> {
  const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
  return readUntilClose(socket);
}

/** The first response in `text`: its status line, headers and body. */
export function parseRaw(text: string): RawResponse {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: headers['transfer-encoding'] === 'chunked' ? (body.split('\r\n')[1] ?? '') : body,
    text,
  };
}

export const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * The headers every answer carries, wherever it was made: X-Request-ID, X-API-Version, nosniff, a
 * Cache-Control, and Strict-Transport-Security exactly when the app's PUBLIC_BASE_URL is https.
 */
export function expectCommonHeaders(headers: Record<string, string | undefined>, options: { https?: boolean } = {}) {
  expect(headers['x-api-version']).toBe('1.1.0');
  expect(headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['cache-control']).toMatch(/\S/);
  expect(headers['strict-transport-security']).toBe(options.https ? HSTS : undefined);
}

/**
 * The one error contract: the status, the headers every answer carries (no-store, JSON), and exactly
 * {code, message, requestId}.
 */
export function expectRawContract(
  response: RawResponse,
  status: number,
  code: string,
  options: { https?: boolean; requestId?: string } = {},
) {
  expect(response.status).toBe(status);
  expectCommonHeaders(response.headers, options);
  // The client's own id when it sent a sane one (so logs correlate), else a fresh one.
  if (options.requestId) expect(response.headers['x-request-id']).toBe(options.requestId);
  else expect(response.headers['x-request-id']).toMatch(/^req_/);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(response.headers['cache-control']).toBe('no-store');
  expect(JSON.parse(response.body)).toEqual({
    code,
    message: expect.any(String),
    requestId: response.headers['x-request-id'],
  });
}

/** An HTTP/1.1 request as text: `headers` as given (Host included or not), Content-Length for a body. */
export function rawRequest(
  method: string,
  target: string,
  headers: Readonly<Record<string, string>>,
  body?: string,
): string {
  const lines = Object.entries({
    ...headers,
    ...(body !== undefined && { 'Content-Length': String(Buffer.byteLength(body)) }),
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  return `${method} ${target} HTTP/1.1\r\n${lines.join('')}\r\n${body ?? ''}`;
}

/**
 * What is wrong with an answer, against the contract, for suites that gather every distinct problem
 * before failing: no answer or a 5xx, a header every answer carries missing, an error body that is not
 * JSON with {code, message, requestId} (and the fields its case adds, e.g. details). The x402
 * endpoint's 402 is the x402 protocol's own body.
 */
export function contractProblems(response: RawResponse, options: { https?: boolean; head?: boolean } = {}): string[] {
  const { status, headers } = response;
  if (!(status >= 100)) return ['no answer'];
  const problems: string[] = [];
  if (status >= 500) problems.push('5xx');
  if (headers['x-api-version'] !== '1.1.0') problems.push('no X-API-Version');
  if (!headers['x-request-id']) problems.push('no X-Request-ID');
  if (headers['x-content-type-options'] !== 'nosniff') problems.push('no nosniff');
  if (!headers['cache-control']) problems.push('no Cache-Control');
  if ((headers['strict-transport-security'] === HSTS) !== Boolean(options.https))
    problems.push(options.https ? 'no Strict-Transport-Security' : 'Strict-Transport-Security over http');
  const x402Challenge = status === 402 && response.body.includes('"x402Version"');
  if (status >= 400 && !options.head && !x402Challenge && !errorBodyInContract(response))
    problems.push('error outside the contract');
  return problems;
}

function errorBodyInContract(response: RawResponse): boolean {
  try {
    const body = JSON.parse(response.body) as Record<string, unknown>;
    return (
      response.headers['content-type'] === 'application/json; charset=utf-8' &&
      typeof body.code === 'string' &&
      /^[a-z][a-z0-9_]*$/.test(body.code) &&
      typeof body.message === 'string' &&
      body.message.length > 0 &&
      body.requestId === response.headers['x-request-id']
    );
  } catch {
    return false;
  }
}
