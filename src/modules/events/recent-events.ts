import type { Db } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { NewEvent, WorkspaceEvent } from './event.js';

/** The most bytes of events one database's readers keep: about 30,000 events of ~900 bytes. */
const MAX_BYTES = 32 * 1024 * 1024;
/** A workspace's first slab; each next one is twice as large, up to MAX_SLAB_BYTES. */
const FIRST_SLAB_BYTES = 16 * 1024;
/** About a page of 1,000 events of ~900 bytes. */
const MAX_SLAB_BYTES = 1024 * 1024;
/** What a slab costs beyond its bytes, a run of consecutive ids beyond its events, an event beyond its JSON. */
const BYTES_PER_SLAB = 256;
const BYTES_PER_RUN = 128;
const BYTES_PER_EVENT = 16;

/** A buffer a workspace's events are written into one after another, and forgotten with as a whole. */
class Slab {
  used = 0;
  /** What it counts for against MAX_BYTES: its bytes, its runs and their events. */
  cost: number;

  constructor(
    readonly workspaceId: string,
    // A buffer of its own (allocUnsafeSlow): a slice of Buffer's shared pool would keep its 8 KB alive.
    readonly bytes: Buffer,
  ) {
    this.cost = bytes.length + BYTES_PER_SLAB;
  }
}

/**
 * Events with consecutive ids, one after another in a slab, each after a comma: the events from the
 * i-th to the j-th joined by commas are one range of bytes, so a page is sent as a few ranges however
 * many events it holds, never copied (joining 1,000 buffers into a new one took 3 ms a page here).
 */
class Segment {
  /** Where each event ends in the slab. */
  readonly ends: number[] = [];

  constructor(
    readonly slab: Slab,
    readonly firstId: bigint,
    /** Where its first event's comma is. */
    readonly start: number,
  ) {}

  /** The id the next event appended here must have. */
  get nextId(): bigint {
    return this.firstId + BigInt(this.ends.length);
  }

  /** Appends the event (`length`: its UTF-8 bytes) when this run is the last in its slab and it fits. */
  append(json: string, length: number): boolean {
    const { slab } = this;
    if (slab.used !== (this.ends.at(-1) ?? this.start) || slab.used + 1 + length > slab.bytes.length) return false;
    slab.bytes[slab.used] = 0x2c; // ,
    slab.bytes.write(json, slab.used + 1);
    slab.used += 1 + length;
    this.ends.push(slab.used);
    return true;
  }

  /** Events `id`… (`count` of them) as bytes: with the comma before the first when `comma`. */
  range(id: bigint, count: number, comma: boolean): Buffer {
    const index = Number(id - this.firstId);
    const start = index === 0 ? this.start : this.ends[index - 1]!;
    return this.slab.bytes.subarray(comma ? start : start + 1, this.ends[index + count - 1]);
  }
}

/** Events `id`… of a segment, `count` of them. */
interface RunPiece {
  readonly segment: Segment;
  readonly id: bigint;
  readonly count: number;
}

/** A run of remembered events with consecutive ids (RecentEvents.run). */
export class RecentRun {
  constructor(
    private readonly pieces: readonly RunPiece[],
    /** How many events it holds. */
    readonly count: number,
  ) {}

  /** Its first `count` events joined by commas, one piece a segment they span. */
  joined(count: number): Buffer[] {
    const bytes: Buffer[] = [];
    let left = Math.min(count, this.count);
    for (const { segment, id, count: held } of this.pieces) {
      if (left <= 0) break;
      const taken = Math.min(left, held);
      bytes.push(segment.range(id, taken, bytes.length > 0));
      left -= taken;
    }
    return bytes;
  }
}

interface WorkspaceEvents {
  /** By first id; each holds consecutive ids, and one's ids may continue in the next. */
  segments: Segment[];
  /** Where the workspace's next run is written while it has room. */
  slab: Slab | undefined;
  /** The highest id remembered. */
  newest: bigint;
}

/**
 * The events this process committed most recently, each as the change feed shows it (UTF-8 JSON), so
 * that a reader right behind the writers takes its pages from memory, not from the `events` table.
 *
 * An event never changes once committed, so a remembered one is the row a reader would get; what a page
 * may hold (the workspace's last committed id, its retention bound) is still read from the database each
 * time (ChangeFeedService). Only events whose transaction is known to have committed are remembered;
 * events another process wrote are not here, and a page that needs one is read from the table. The
 * oldest slabs go first once MAX_BYTES is passed.
 */
export class RecentEvents {
  private readonly byWorkspace = new Map<string, WorkspaceEvents>();
  /** Every workspace's slabs, oldest first, from `head` on; a forgotten one's place is emptied at once. */
  private readonly order: (Slab | undefined)[] = [];
  private head = 0;
  private bytes = 0;

  // A slab is at most a quarter of what is kept, so that a new one never pushes out all the rest; an
  // event larger than that is read from the table.
  private readonly maxSlabBytes: number;

  constructor(private readonly maxBytes = MAX_BYTES) {
    this.maxSlabBytes = Math.min(MAX_SLAB_BYTES, Math.floor(maxBytes / 4));
  }

  /**
   * Events of a transaction that committed, with the ids it gave them. Never throws: the commit is done,
   * and an event that cannot be remembered is read from the table.
   */
  remember(events: readonly WorkspaceEvent[], ids: readonly bigint[]): void {
    events.forEach((event, index) => {
      try {
        const json = eventJson(ids[index]!, event);
        if (json !== undefined) this.add(event.workspaceId, ids[index]!, json);
      } catch {
        // Data jsonbText cannot walk (nested deeper than the stack): the table has it.
      }
    });
    this.evict();
  }

  /** Forgets every event, as a restart does. */
  clear(): void {
    this.byWorkspace.clear();
    this.order.length = 0;
    this.head = 0;
    this.bytes = 0;
  }

  /**
   * The remembered events with consecutive ids from `after + 1`, at most `limit` of them. It stays as it
   * is: forgetting a slab later does not take its events out of a run taken before.
   */
  run(workspaceId: WorkspaceId, after: bigint, limit: number): RecentRun {
    const events = this.byWorkspace.get(workspaceId);
    const pieces: RunPiece[] = [];
    let id = after + 1n;
    let left = limit;
    for (let segment = events && holder(events, id); segment && left > 0; segment = holder(events!, id)) {
      const count = Math.min(left, Number(segment.nextId - id));
      pieces.push({ segment, id, count });
      id += BigInt(count);
      left -= count;
    }
    return new RecentRun(pieces, limit - left);
  }

  /** The highest event id of the workspace remembered; undefined for none. */
  newest(workspaceId: WorkspaceId): bigint | undefined {
    return this.byWorkspace.get(workspaceId)?.newest;
  }

  private add(workspaceId: string, id: bigint, json: string): void {
    const length = Buffer.byteLength(json);
    if (1 + length > this.maxSlabBytes) return;
    let events = this.byWorkspace.get(workspaceId);
    if (!events) this.byWorkspace.set(workspaceId, (events = { segments: [], slab: undefined, newest: id }));
    if (id > events.newest) events.newest = id;
    // Remembered already: an event never changes.
    if (holder(events, id)) return;
    const previous = holder(events, id - 1n);
    if (previous?.nextId === id && previous.append(json, length)) return this.charge(previous.slab, BYTES_PER_EVENT);
    // A new run (the first event, one after a gap in the ids, or a full slab): in the workspace's slab
    // while it has room, so that ids with gaps (another process's events between) cost little.
    let slab = events.slab;
    if (!slab || slab.used + 1 + length > slab.bytes.length) {
      const grown = Math.min(this.maxSlabBytes, slab ? slab.bytes.length * 2 : FIRST_SLAB_BYTES);
      slab = events.slab = new Slab(workspaceId, Buffer.allocUnsafeSlow(Math.max(grown, 1 + length)));
      this.order.push(slab);
      this.bytes += slab.cost;
    }
    const segment = new Segment(slab, id, slab.used);
    segment.append(json, length);
    events.segments.splice(after(events.segments, id), 0, segment);
    this.charge(slab, BYTES_PER_RUN + BYTES_PER_EVENT);
  }

  /** What `slab` costs beyond its bytes grows by `cost`, and with it what is kept. */
  private charge(slab: Slab, cost: number): void {
    slab.cost += cost;
    this.bytes += cost;
  }

  private evict(): void {
    while (this.bytes > this.maxBytes && this.head < this.order.length) {
      const slab = this.order[this.head]!;
      this.order[this.head] = undefined;
      this.head += 1;
      this.bytes -= slab.cost;
      const events = this.byWorkspace.get(slab.workspaceId);
      if (!events) continue;
      events.segments = events.segments.filter((segment) => segment.slab !== slab);
      if (events.slab === slab) events.slab = undefined;
      if (events.segments.length === 0) this.byWorkspace.delete(slab.workspaceId);
    }
    // The queue's front is dropped in one go once it is most of the array.
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order.splice(0, this.head);
      this.head = 0;
    }
  }
}

/** How many of `segments` (by first id) start at or before `id`. */
function after(segments: readonly Segment[], id: bigint): number {
  let low = 0;
  let high = segments.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (segments[middle]!.firstId <= id) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The segment of the workspace that holds `id`. */
function holder(events: WorkspaceEvents, id: bigint): Segment | undefined {
  const segment = events.segments[after(events.segments, id) - 1];
  return segment && id < segment.nextId ? segment : undefined;
}

/**
 * An event exactly as change-feed.repo.ts has PostgreSQL write it for a page, byte for byte: the same
 * fields in the same order, and `data` in jsonb's text form, which is how it is stored (append_event
 * takes jsonb). Undefined for data that form cannot be told for here (a number JavaScript writes with an
 * exponent): such an event is not remembered, and its pages are read from the table.
 */
export function eventJson(id: bigint, event: NewEvent): string | undefined {
  const data = jsonbText(event.data);
  if (data === undefined) return undefined;
  let json = `{"id":"${id}","type":${JSON.stringify(event.type)},"createdAt":"${event.at.toISOString()}"`;
  if (event.invoiceId != null) json += `,"invoiceId":${JSON.stringify(event.invoiceId)}`;
  if (event.paymentIntentId != null) json += `,"paymentIntentId":${JSON.stringify(event.paymentIntentId)}`;
  return `${json},"data":${data}}`;
}

/**
 * What PostgreSQL prints for the jsonb that JSON.stringify(value) makes: object keys shortest first, then
 * by their UTF-8 bytes; `": "` and `", "` between parts; strings escaped as JSON.stringify escapes them
 * (jsonb escapes the same characters: quote, backslash, and controls as \b \f \n \r \t or \u00xx).
 */
export function jsonbText(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return quoted(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number': {
      if (!Number.isFinite(value)) return 'null';
      const text = String(value);
      // numeric prints 1e+21 as its digits: not worth telling here.
      return text.includes('e') ? undefined : text;
    }
    case 'object':
      break;
    default:
      return undefined;
  }
  const toJson = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof toJson === 'function') return jsonbText(toJson.call(value));
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const item of value as unknown[]) {
      const text = item === undefined || typeof item === 'function' ? 'null' : jsonbText(item);
      if (text === undefined) return undefined;
      items.push(text);
    }
    return `[${items.join(', ')}]`;
  }
  const object = value as Record<string, unknown>;
  let json = '';
  for (const key of keysInJsonbOrder(Object.keys(object))) {
    const item = object[key];
    if (item === undefined || typeof item === 'function') continue;
    const text = jsonbText(item);
    if (text === undefined) return undefined;
    json += `${json === '' ? '' : ', '}${quoted(key)}: ${text}`;
  }
  return `{${json}}`;
}

/** What JSON.stringify escapes in a string: quote, backslash, controls and lone surrogates. */
const ESCAPED = /["\\\p{Cc}\p{Cs}]/u;

/** A JSON string, as JSON.stringify writes it (most need no escape: they are quoted as they are). */
function quoted(text: string): string {
  return ESCAPED.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** The orders of the key sets seen (events have a few shapes), at most this many kept. */
const KEY_ORDERS = new Map<string, readonly string[]>();
const MOST_KEY_ORDERS = 1000;

function keysInJsonbOrder(keys: string[]): readonly string[] {
  const shape = keys.join('\u0000');
  let order = KEY_ORDERS.get(shape);
  if (!order) {
    order = keys.sort(jsonbKeyOrder);
    if (KEY_ORDERS.size < MOST_KEY_ORDERS) KEY_ORDERS.set(shape, order);
  }
  return order;
}

const NOT_ASCII = /[^\t\n\r\u0020-\u007e]/u;

/** jsonb's order of object keys: the shorter UTF-8 first, then byte by byte. */
function jsonbKeyOrder(a: string, b: string): number {
  if (!NOT_ASCII.test(a) && !NOT_ASCII.test(b)) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length - right.length || Buffer.compare(left, right);
}

const OF_DATABASE = new WeakMap<Db, RecentEvents>();

/**
 * Keeps the recent events committed through `db`, from now on: called where the change feed is served
 * (a worker process, which serves no feed, keeps none). Every writer and reader of one database in this
 * process shares them, and another database (a test's second one) has its own.
 */
export function keepRecentEvents(db: Db): RecentEvents {
  let recent = OF_DATABASE.get(db);
  if (!recent) OF_DATABASE.set(db, (recent = new RecentEvents()));
  return recent;
}

/** The recent events committed through `db`, if this process keeps them (keepRecentEvents). */
export function recentEventsOf(db: Db): RecentEvents | undefined {
  return OF_DATABASE.get(db);
}
