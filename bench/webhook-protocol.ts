/**
 * What the webhook bench's runner (bench/webhooks.ts, holding the receiver) and its worker process
 * (bench/webhook-process.ts, holding the real services, PostgreSQL and the job runners) say to each
 * other over IPC. Plain JSON: times are monotonic milliseconds as numbers.
 */

/** The worker process's first message, once PostgreSQL runs and the services are built. */
export interface WebhookProcessReady {
  readonly type: 'ready';
  /** The embedded server's socket: the runner opens its own connection there to watch progress. */
  readonly connection: {
    readonly host?: string;
    readonly port?: number;
    readonly user?: string;
    readonly database?: string;
  };
}

export type WebhookCommand =
  /** Fresh workspaces, each with its endpoint `<receiver>/<label>/<index>` configured and enabled. */
  | { readonly type: 'setup'; readonly label: string; readonly workspaces: number }
  /** `postWebhook` alone, `count` signed POSTs to `<receiver><path>`, `concurrency` at a time. */
  | { readonly type: 'ceiling'; readonly path: string; readonly count: number; readonly concurrency: number }
  /** `perWorkspace` events per workspace through the event writer `append`, one transaction each, `writers` at a time. */
  | {
      readonly type: 'backlog';
      readonly workspaceIds: readonly string[];
      readonly perWorkspace: number;
      readonly writers: number;
    }
  /** Fresh workers (`createWorkers`), started. */
  | { readonly type: 'startWorkers' }
  | { readonly type: 'stopWorkers' }
  /** One event at a time, each in its own transaction, at `ratePerSecond`; answers when each committed. */
  | { readonly type: 'paced'; readonly workspaceId: string; readonly ratePerSecond: number; readonly count: number };

export interface SetupResult {
  readonly workspaceIds: readonly string[];
}
export interface CeilingResult {
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly ok: number;
  readonly failed: number;
  /** Each request's `durationMs` as postWebhook measured it. */
  readonly durationsMs: readonly number[];
}
export interface BacklogResult {
  readonly events: number;
  readonly ms: number;
}
export interface StartedWorkers {
  /** Taken just before `start()`: the clock of a backlog run starts here. */
  readonly startedAt: number;
}
export interface StoppedWorkers {
  /** Delivery job runs (calls of `WebhookDeliverer.attempt`) since the workers started. */
  readonly handlerRuns: number;
}
export interface PacedResult {
  /** Event id, and when its transaction's COMMIT had returned. */
  readonly commits: readonly (readonly [eventId: string, committedAt: number])[];
}

export type WebhookReply =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly error: string };
export interface WebhookRequestMessage {
  readonly id: number;
  readonly command: WebhookCommand;
}
