import { randomUUID } from 'node:crypto';
import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';
import type { BenchRequest } from './scenario.js';

export interface LoadOptions {
  readonly connections: number;
  readonly durationSeconds: number;
}

export interface Measurement {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Answers with another status than the request expects (any 2xx unless it names one). */
  readonly unexpected: number;
  /** Connection errors and timeouts. */
  readonly errors: number;
}

/** autocannon's placeholder for a fresh id per request. */
const ID = '[<id>]';
/** A backstop next to the duration: no run sends more, whatever the server's speed. */
const MAX_REQUESTS_PER_RUN = 5_000_000;

/** Sends the request from `connections` keep-alive connections for the duration. Loopback only. */
export async function sendLoad(origin: string, request: BenchRequest, options: LoadOptions): Promise<Measurement> {
  if (new URL(origin).hostname !== '127.0.0.1') throw new Error(`refusing to send load to ${origin}: loopback only`);
  if (request.uniqueIds && request.body?.includes(ID))
    throw new Error(`${ID} works in headers only (see BenchRequest.uniqueIds)`);
  const run = autocannon({
    url: `${origin}${request.path}`,
    ...message(request),
    connections: options.connections,
    duration: options.durationSeconds,
    maxOverallRequests: MAX_REQUESTS_PER_RUN,
    idReplacement: request.uniqueIds ?? false,
  });
  // autocannon's own percentiles are whole milliseconds, and the ceiling answers in less than one.
  const latencyMicros = createHistogram();
  let unexpected = 0;
  run.on('response', (_client, status, _bytes, ms) => {
    latencyMicros.record(Math.max(1, Math.round(ms * 1000)));
    if (!expected(request, status)) unexpected += 1;
  });
  const result = await run;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: latencyMicros.percentile(50) / 1000,
    p99Ms: latencyMicros.percentile(99) / 1000,
    unexpected,
    errors: result.errors,
  };
}

/** One request before the load: a scenario answering 401 would otherwise be measured as a fast one. */
export async function checkAnswers(origin: string, request: BenchRequest): Promise<void> {
  const response = await fetch(`${origin}${request.path}`, checkMessage(request));
  const text = await response.text();
  if (!expected(request, response.status))
    throw new Error(
      `${request.method} ${request.path} answered ${response.status} before the load: ${text.slice(0, 300)}`,
    );
}

function expected(request: BenchRequest, status: number): boolean {
  return request.expectedStatus === undefined ? status >= 200 && status < 300 : status === request.expectedStatus;
}

function message(request: BenchRequest): { method: string; headers: Record<string, string>; body?: string } {
  return {
    method: request.method,
    headers: { ...request.headers },
    ...(request.body === undefined ? {} : { body: request.body }),
  };
}

/** The check's own request, with `[<id>]` replaced as autocannon does under load. */
function checkMessage(request: BenchRequest): { method: string; headers: Record<string, string>; body?: string } {
  const plain = message(request);
  if (!request.uniqueIds) return plain;
  const id = randomUUID();
  return {
    ...plain,
    headers: Object.fromEntries(Object.entries(plain.headers).map(([name, value]) => [name, value.replaceAll(ID, id)])),
  };
}
