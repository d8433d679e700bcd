import { METHODS } from 'node:http';
import { rawRequest } from './raw-http.js';

/** A request no client library would send, as bytes for a raw socket, with what it probes. */
export interface RawProbe {
  readonly name: string;
  readonly text: string;
  /** An answer to HEAD has no body to check. */
  readonly head?: boolean;
  /** The answer it must get, wherever it is sent, when that does not depend on the route. */
  readonly expected?: { readonly status: number; readonly code: string };
}

/**
 * Requests the HTTP server, the parser or the router refuse before a route runs, aimed at `path` (a
 * route's path with its parameters filled in, at least one segment deep): every method Node knows,
 * an unsupported Expect, no Host, an undecodable or overlong segment, headers too large, ambiguous
 * framing, a header that does not parse, an upgrade nobody serves, and absolute and asterisk forms.
 * Each asks for the connection to close, so the answer ends when the server is done.
 */
export function belowRouterProbes(path: string, host: string): RawProbe[] {
  const headers = { Host: host, Accept: 'application/json', Connection: 'close' };
  const request = (method: string, target = path, extra: Record<string, string> = {}, body?: string) =>
    rawRequest(method, target, { ...headers, ...extra }, body);
  const lastSegment = path.lastIndexOf('/');
  const withSegment = (segment: string) => `${path.slice(0, lastSegment + 1)}${segment}`;
  return [
    ...METHODS.map((method) => ({ name: method, text: request(method), head: method === 'HEAD' })),
    {
      name: 'Expect: foo',
      text: request('POST', path, { Expect: 'foo', 'Content-Type': 'application/json' }, '{}'),
      expected: { status: 417, code: 'expectation_failed' },
    },
    {
      name: 'no Host',
      text: rawRequest('GET', path, { Accept: 'application/json', Connection: 'close' }),
      expected: { status: 400, code: 'invalid_request' },
    },
    { name: 'empty Host', text: request('GET', path, { Host: '' }) },
    { name: 'two Hosts', text: request('GET', path, { host: 'evil.example' }) },
    { name: 'undecodable segment', text: request('GET', withSegment('%ff')) },
    { name: 'lone surrogate segment', text: request('GET', withSegment('%ED%A0%80')) },
    { name: 'segment of 150', text: request('GET', withSegment('a'.repeat(150))) },
    {
      name: '20 KB of headers',
      text: request('GET', path, { 'X-Big': 'a'.repeat(20_000) }),
      expected: { status: 431, code: 'headers_too_large' },
    },
    {
      name: 'Content-Length with Transfer-Encoding',
      text: request('POST', path, { 'Content-Length': '5', 'Transfer-Encoding': 'chunked' }, '0\r\n\r\n'),
      expected: { status: 400, code: 'invalid_request' },
    },
    {
      name: 'two Content-Lengths',
      text: `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab`,
      expected: { status: 400, code: 'invalid_request' },
    },
    {
      name: 'header without a colon',
      text: request('GET', path, { 'X-Broken\r\nnot a header': 'x' }),
      expected: { status: 400, code: 'invalid_request' },
    },
    { name: 'Upgrade: websocket', text: request('GET', path, { Connection: 'Upgrade, close', Upgrade: 'websocket' }) },
    { name: 'absolute form', text: request('GET', `http://${host}${path}`) },
    { name: 'asterisk form', text: request('OPTIONS', '*') },
    {
      name: 'CONNECT authority form',
      text: request('CONNECT', `${host}:443`),
      expected: { status: 405, code: 'method_not_allowed' },
    },
  ];
}
