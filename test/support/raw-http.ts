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

/** The one error contract: the status, both headers, and exactly {code, message, requestId}. */
export function expectRawContract(response: RawResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers['x-api-version']).toBe('1.1.0');
  expect(response.headers['x-request-id']).toMatch(/^req_/);
  expect(JSON.parse(response.body)).toEqual({
    code,
    message: expect.any(String),
    requestId: response.headers['x-request-id'],
  });
}
