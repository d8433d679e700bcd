// autocannon ships no types; this declares the subset bench/load.ts uses (autocannon 8 README, "API").
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      /** Requests across all connections after which the run ends, even before `duration`. */
      maxOverallRequests?: number;
      /** Replaces each `[<id>]` in the raw request (request line, headers, body) with a fresh id. */
      idReplacement?: boolean;
    }
    interface Result {
      /** Requests completed per one-second sample. */
      requests: { average: number; total: number; sent: number };
      non2xx: number;
      /** Connection errors, timeouts included. */
      errors: number;
    }
    /** Without a callback the returned instance is also a promise of the result. */
    interface Instance extends PromiseLike<Result> {
      /** `responseTime` in milliseconds with sub-millisecond precision (process.hrtime). */
      on(
        event: 'response',
        listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
      ): this;
    }
  }
  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
