/** Where a line goes: the process's logger (pino's signature: fields first, then the words). */
export interface LogTarget {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/** A process's logger, as the operator log writes to it. */
interface ProcessLogger extends LogTarget {
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * The lines an operator reads at the default level: one per business event (a payment recorded or
 * failed, a webhook attempt that failed, an automation run or paused, a credit purchase paid), in plain
 * words, with the ids to look it up by, written once what it tells has committed. Never a secret:
 * callers pass ids, amounts, networks, hashes and error codes, not request bodies, URLs or keys.
 *
 * Services exist before the process's logger does, so it is plugged in later (`use`); until then, and
 * in tests that do not look, lines go nowhere.
 */
export class OperatorLog implements LogTarget {
  private target: ProcessLogger | undefined;

  use(target: ProcessLogger): void {
    this.target = target;
  }

  info(fields: Record<string, unknown>, message: string): void {
    this.target?.info(fields, message);
  }

  warn(fields: Record<string, unknown>, message: string): void {
    this.target?.warn(fields, message);
  }

  error(fields: Record<string, unknown>, message: string): void {
    this.target?.error(fields, message);
  }
}
