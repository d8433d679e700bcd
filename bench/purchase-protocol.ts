/**
 * What the runner of a chain part (bench/purchases.ts and bench/payments.ts, holding the chain, the payers
 * and the watchers) and its service process (bench/purchase-process.ts, holding the real app, its workers
 * and PostgreSQL)
 * say to each other over IPC: the runner's options first, then the process's `ready`, then `stop`.
 */

/** The runner's first message. Sent over IPC, so the relayer key never appears on a command line. */
export interface PurchaseProcessOptions {
  readonly type: 'options';
  /** The local anvil: must be http://127.0.0.1. */
  readonly rpcUrl: string;
  /** Generated for this run and funded on the local chain only. */
  readonly relayerPrivateKey: `0x${string}`;
  /** OPERATOR_WALLET: where purchases are paid. */
  readonly operatorWallet: `0x${string}`;
  readonly confirmations: number;
  readonly blockSeconds: number;
  /**
   * The payment part's receiver (http://127.0.0.1 only): the workspace's webhook endpoint, which private
   * addresses are then allowed for. Unset: no endpoint.
   */
  readonly webhookUrl?: string;
  /** NEW_WORKSPACE_CREDITS, for a part that creates more invoices than the default grant pays for. */
  readonly newWorkspaceCredits?: number;
}

/** Once PostgreSQL runs, the app listens and the workers have started. */
export interface PurchaseProcessReady {
  readonly type: 'ready';
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly workspaceId: string;
  /** `Bearer <secret>` of a key with billing:read, billing:write, invoices:create and invoices:read. */
  readonly authorization: string;
  /** The embedded server's socket: the runner opens its own connection there to watch the purchases. */
  readonly connection: {
    readonly host?: string;
    readonly port?: number;
    readonly user?: string;
    readonly database?: string;
  };
}
