import { mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** What the receiver keeps for a verified, matched event: the dedupe key and the fulfilment to run. */
export interface FulfilmentRecord {
  readonly workspaceId: string;
  readonly eventId: string;
  readonly paymentIntentId: string;
  readonly invoiceId: string;
  /** The merchant's own order id the payment was matched to. */
  readonly orderId: string;
  readonly receivedAt: string;
}

/**
 * The receiver's durable memory. Swap the file store for your database: `recordOnce` is an INSERT into a
 * table with a unique constraint on (workspace_id, event_id) that also serves as the fulfilment queue;
 * `markFulfilled` sets `fulfilled_at`; `pending` selects rows where it is null.
 */
export interface EventStore {
  /**
   * Stores the record unless (workspaceId, eventId) is already stored. Resolves true for the first
   * delivery, false for a duplicate, and only after the record is durable. Rejects when it cannot persist.
   */
  recordOnce(workspaceId: string, eventId: string, record: FulfilmentRecord): Promise<boolean>;
  /** Marks a fulfilment done so it is not run again at the next start. */
  markFulfilled(workspaceId: string, eventId: string): Promise<void>;
  /** Recorded fulfilments not yet marked done: the queue to resume after a crash or a failed `onFulfil`. */
  pending(): Promise<FulfilmentRecord[]>;
}

type Line =
  ({ kind: 'received' } & FulfilmentRecord) | { kind: 'fulfilled'; workspaceId: string; eventId: string; at: string };

const keyOf = (workspaceId: string, eventId: string) => JSON.stringify([workspaceId, eventId]);

/**
 * An append-only JSON-lines file, fsynced before a write resolves, loaded into memory at start.
 * One process per file: a second process appending to the same file would not see the first one's
 * events and could fulfil twice. Writes within the process are serialized, so two concurrent deliveries
 * of one event cannot both win.
 */
export class JsonLinesEventStore implements EventStore {
  private readonly received = new Map<string, FulfilmentRecord>();
  private readonly fulfilled = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly file: FileHandle,
    private size: number,
  ) {}

  static async open(filePath: string): Promise<JsonLinesEventStore> {
    await mkdir(path.dirname(filePath), { recursive: true });
    const text = await readFile(filePath, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    // A line without its newline was cut off by a crash mid-write. Its delivery was never acknowledged
    // (2xx follows the fsync), so the service will send it again: drop it rather than append after it.
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    const lines = complete
      .split('\n')
      .filter(Boolean)
      .map((line, index) => parseLine(line, index + 1));
    const handle = await open(filePath, 'a');
    if (complete.length !== text.length) {
      await handle.truncate(Buffer.byteLength(complete));
      await handle.datasync();
    }
    await syncDirectory(path.dirname(filePath));
    const store = new JsonLinesEventStore(handle, Buffer.byteLength(complete));
    lines.forEach((line) => store.apply(line));
    return store;
  }

  recordOnce(workspaceId: string, eventId: string, record: FulfilmentRecord): Promise<boolean> {
    return this.serialized(async () => {
      if (this.received.has(keyOf(workspaceId, eventId))) return false;
      await this.append({ kind: 'received', ...record, workspaceId, eventId });
      return true;
    });
  }

  markFulfilled(workspaceId: string, eventId: string): Promise<void> {
    return this.serialized(async () => {
      if (this.fulfilled.has(keyOf(workspaceId, eventId))) return;
      await this.append({ kind: 'fulfilled', workspaceId, eventId, at: new Date().toISOString() });
    });
  }

  async pending(): Promise<FulfilmentRecord[]> {
    return [...this.received].filter(([key]) => !this.fulfilled.has(key)).map(([, record]) => record);
  }

  async close(): Promise<void> {
    await this.queue;
    await this.file.close();
  }

  private apply(line: Line): void {
    const key = keyOf(line.workspaceId, line.eventId);
    if (line.kind === 'received') {
      const { kind: _kind, ...record } = line;
      this.received.set(key, record);
    } else {
      this.fulfilled.add(key);
    }
  }

  /** Memory changes only after the data is on disk, so a failed write leaves no trace a retry would trip on. */
  private async append(line: Line): Promise<void> {
    const bytes = Buffer.from(`${JSON.stringify(line)}\n`);
    try {
      await this.file.write(bytes);
      await this.file.datasync();
    } catch (error) {
      // Cut a partial line off so the next append starts clean; if even that fails, the open step
      // at the next start drops it.
      await this.file.truncate(this.size).catch(() => undefined);
      throw error;
    }
    this.size += bytes.length;
    this.apply(line);
  }

  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task);
    this.queue = result.catch(() => undefined);
    return result;
  }
}

function parseLine(line: string, number: number): Line {
  try {
    const value = JSON.parse(line) as Line;
    if (
      (value.kind === 'received' || value.kind === 'fulfilled') &&
      typeof value.workspaceId === 'string' &&
      typeof value.eventId === 'string'
    )
      return value;
  } catch {
    // fall through: a complete line that is not a record means the file was edited or damaged
  }
  throw new Error(`Event store line ${number} is not a record; refusing to start rather than forget events.`);
}

/** A new file's directory entry is durable only once the directory itself is synced (Linux, macOS). */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r').catch(() => undefined); // Windows cannot open a directory
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the file's own datasync still holds.
  } finally {
    await handle.close();
  }
}
