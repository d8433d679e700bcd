import type { IncomingMessage } from 'node:http';
import { randomToken } from '../shared/ids.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's X-Request-ID when it is sane (so logs correlate across services), else a fresh one. */
export function requestIdFor(request: IncomingMessage): string {
  const supplied = request.headers['x-request-id'];
  if (typeof supplied === 'string' && SANE_REQUEST_ID.test(supplied)) return supplied;
  return `req_${randomToken()}`;
}
