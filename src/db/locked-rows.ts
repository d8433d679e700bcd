/**
 * Rows one transaction locked together, for a group of payments written at once: one statement a kind
 * instead of one a payment. Each row is handed out once, to the step that reads it first; whatever comes
 * after that step (it may have changed the row) locks and reads it again.
 */
export class LockedRows {
  private readonly rows = new Map<string, unknown>();

  keep(kind: string, id: string, row: unknown): void {
    this.rows.set(`${kind} ${id}`, row);
  }

  /** The row kept under `kind` and `id`, once; undefined when none is (any more). */
  take<Row>(kind: string, id: string): Row | undefined {
    const key = `${kind} ${id}`;
    const row = this.rows.get(key) as Row | undefined;
    this.rows.delete(key);
    return row;
  }
}
