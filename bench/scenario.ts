import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { PoolConfig } from 'pg';

/** What the load generator sends, as plain data: it crosses from the server process to the runner. */
export interface BenchRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query, e.g. `/w/ws_…/v1/billing`; the runner adds `http://127.0.0.1:<port>`. */
  readonly path: string;
  /** Sent as given: a scenario with a JSON body names its own content-type. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * Each `[<id>]` in a header value becomes a fresh id per request (autocannon's idReplacement), e.g.
   * `Idempotency-Key: bench-[<id>]`, so a create is not measured as a replay. Headers only: in a body,
   * autocannon 8 sends a wrong Content-Length (autocannon#539) and the server waits for bytes forever.
   */
  readonly uniqueIds?: boolean;
  /** The status every answer must have (an x402 challenge answers 402); unset, any 2xx. */
  readonly expectedStatus?: number;
}

/** A scenario after setup, inside the server process: the app to listen with and the request to send. */
export interface PreparedScenario {
  /**
   * Not yet listening: the server process binds it to 127.0.0.1 on a free port. A Fastify app, or any
   * `node:http` server (a reference built on another framework, such as the x402 reference's Express).
   */
  readonly app: FastifyInstance | Server;
  readonly request: BenchRequest;
  /** Where the app's PostgreSQL is, for a part that reads it directly as a reference (the change feed). */
  readonly database?: PoolConfig;
  /** Closes the app and removes whatever setup created. */
  stop(): Promise<void>;
}

/**
 * One row of the benchmark table. `prepare` runs in the server process, never in the runner, so the
 * load generator and the code under test do not share an event loop.
 */
export interface Scenario {
  readonly name: string;
  /** One line for the table's legend: what a request exercises. */
  readonly measures: string;
  /** The ceiling row this one is divided by: bare Fastify doing the same HTTP work. */
  readonly ceiling?: Scenario;
  /** How long `prepare` may take; 120 s unless it builds something large. */
  readonly readySeconds?: number;
  prepare(): Promise<PreparedScenario>;
}
