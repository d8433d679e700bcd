import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Executor } from '../../src/db/database.js';
import { GroupedWrites, type GroupedWritesOptions, type WorkspaceWrites } from '../../src/modules/events/index.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp, merchant } from '../support/app.js';
import { deferred } from '../support/deferred.js';

const { app, database } = await createTestApp();
const { db } = database;
const shop = { workspaceId: (await merchant(app, ['invoices:read'])).workspaceId as WorkspaceId };
const other = { workspaceId: (await merchant(app, ['invoices:read'])).workspaceId as WorkspaceId };

/** One use case: writes its mark and an event, in whichever transaction it is given. */
interface Item {
  readonly workspaceId: WorkspaceId;
  readonly mark: string;
  readonly fails?: boolean;
  /** Holds the use case, before its event, until it resolves. */
  readonly hold?: Promise<void>;
}

/** Per mark: the transaction that wrote it, in the order the use cases were written. */
const written: { mark: string; transaction: string }[] = [];

async function writeItem(trx: Executor, writes: WorkspaceWrites, item: Item): Promise<void> {
  const { rows } = await sql<{ transaction: string }>`SELECT txid_current()::text AS transaction`.execute(trx);
  await item.hold;
  if (item.fails) throw new Error(`${item.mark} cannot be written`);
  written.push({ mark: item.mark, transaction: rows[0]!.transaction });
  writes.append(item.workspaceId, {
    type: 'invoice.created',
    invoiceId: `inv_${item.mark}`,
    data: { mark: item.mark } as never,
    at: new Date(),
  });
}

/** Groups of `Item`s written by writeItem in mark order, with `options` of their own. */
const groupedWrites = (options: Partial<GroupedWritesOptions<Item, undefined>> = {}) =>
  new GroupedWrites<Item>({
    db,
    log: { info: () => {}, warn: () => {} } as never,
    write: writeItem,
    lockOrder: (item) => item.mark,
    ...options,
  });

const group = groupedWrites();

const write = (item: Item) => group.write(item.workspaceId, item);

/** The events of `marks`, with their feed ids, as committed. */
async function eventsOf(...marks: string[]): Promise<{ mark: string; id: bigint }[]> {
  const rows = await db
    .selectFrom('events')
    .select(['invoice_id', 'id'])
    .where(
      'invoice_id',
      'in',
      marks.map((mark) => `inv_${mark}`),
    )
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ mark: row.invoice_id!.slice(4), id: BigInt(row.id) }));
}

const transactionOf = (mark: string) => written.findLast((entry) => entry.mark === mark)?.transaction;

describe('GroupedWrites', () => {
  it('writes the use cases of one workspace that come in the same turn in one transaction, in lock order', async () => {
    await Promise.all([
      write({ workspaceId: shop.workspaceId, mark: 'a3' }),
      write({ workspaceId: shop.workspaceId, mark: 'a1' }),
      write({ workspaceId: shop.workspaceId, mark: 'a2' }),
    ]);

    expect(new Set(['a1', 'a2', 'a3'].map(transactionOf)).size).toBe(1);
    expect(written.slice(-3).map((entry) => entry.mark)).toEqual(['a1', 'a2', 'a3']);
    // One append for the group: consecutive ids, in the order they were written.
    const events = await eventsOf('a1', 'a2', 'a3');
    expect(events.map((event) => event.mark)).toEqual(['a1', 'a2', 'a3']);
    expect(events[2]!.id - events[0]!.id).toBe(2n);
  });

  it('keeps workspaces apart: each has its own transaction', async () => {
    await Promise.all([
      write({ workspaceId: shop.workspaceId, mark: 'b1' }),
      write({ workspaceId: other.workspaceId, mark: 'b2' }),
    ]);

    expect(transactionOf('b1')).not.toBe(transactionOf('b2'));
    expect((await eventsOf('b1', 'b2')).length).toBe(2);
  });

  it('writes a failed group again one use case a transaction: only the failing one fails', async () => {
    const results = await Promise.allSettled([
      write({ workspaceId: shop.workspaceId, mark: 'c1' }),
      write({ workspaceId: shop.workspaceId, mark: 'c2', fails: true }),
      write({ workspaceId: shop.workspaceId, mark: 'c3' }),
    ]);

    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ message: 'c2 cannot be written' });
    expect((await eventsOf('c1', 'c2', 'c3')).map((event) => event.mark)).toEqual(expect.arrayContaining(['c1', 'c3']));
    expect(await eventsOf('c2')).toEqual([]);
    // Written alone the second time: two transactions, neither the failed group's.
    expect(transactionOf('c1')).not.toBe(transactionOf('c3'));
    expect(written.filter((entry) => entry.mark === 'c1')).toHaveLength(2);
  });

  it('never makes a later group wait for an earlier one that is still being written', async () => {
    const { promise: hold, release } = deferred();
    const first = write({ workspaceId: shop.workspaceId, mark: 'd1', hold });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));

    await write({ workspaceId: shop.workspaceId, mark: 'd2' });
    expect(await eventsOf('d1', 'd2')).toEqual([expect.objectContaining({ mark: 'd2' })]);

    release();
    await first;
    expect((await eventsOf('d1', 'd2')).map((event) => event.mark)).toEqual(['d2', 'd1']);
  });

  it('writes use cases of different rows at once on a pipelined connection, those of the same rows in lock order', async () => {
    const atOnce = groupedWrites({
      // The letter after `f` names the rows: f1a and f3a share theirs.
      rowsOf: (item) => item.mark.slice(2),
      pipelined: true,
    });
    const { promise: hold, release } = deferred();
    const writing = Promise.all([
      atOnce.write(shop.workspaceId, { workspaceId: shop.workspaceId, mark: 'f1a', hold }),
      atOnce.write(shop.workspaceId, { workspaceId: shop.workspaceId, mark: 'f2b' }),
      atOnce.write(shop.workspaceId, { workspaceId: shop.workspaceId, mark: 'f3a' }),
    ]);
    // f2b is written while f1a is held; f3a waits for f1a, whose rows it shares.
    await expect.poll(() => written.some((entry) => entry.mark === 'f2b')).toBe(true);
    expect(written.some((entry) => entry.mark === 'f3a')).toBe(false);
    release();
    await writing;

    expect(written.slice(-3).map((entry) => entry.mark)).toEqual(['f2b', 'f1a', 'f3a']);
    expect(new Set(['f1a', 'f2b', 'f3a'].map(transactionOf)).size).toBe(1);
    expect((await eventsOf('f1a', 'f2b', 'f3a')).map((event) => event.mark)).toEqual(['f2b', 'f1a', 'f3a']);
  });

  it('writes a failed pipelined group again one use case a transaction', async () => {
    const atOnce = groupedWrites({
      rowsOf: (item) => item.mark,
      pipelined: true,
    });
    const results = await Promise.allSettled(
      ['g1', 'g2', 'g3'].map((mark) =>
        atOnce.write(shop.workspaceId, { workspaceId: shop.workspaceId, mark, fails: mark === 'g2' }),
      ),
    );

    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await eventsOf('g1', 'g2', 'g3')).map((event) => event.mark).sort()).toEqual(['g1', 'g3']);
    expect(transactionOf('g1')).not.toBe(transactionOf('g3'));
  });

  it('gathers the use cases that come one by one while a group is written, when asked to', async () => {
    const gathering = groupedWrites({
      gatherWhileWriting: true,
    });
    const { promise: hold, release } = deferred();
    const first = gathering.write(shop.workspaceId, { workspaceId: shop.workspaceId, mark: 'h1', hold });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // Two turns apart: each would be a group of its own if nothing were being written.
    const second = gathering.write(shop.workspaceId, { workspaceId: shop.workspaceId, mark: 'h2' });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    const third = gathering.write(shop.workspaceId, { workspaceId: shop.workspaceId, mark: 'h3' });
    release();
    await Promise.all([first, second, third]);

    expect(transactionOf('h2')).toBe(transactionOf('h3'));
    expect(transactionOf('h1')).not.toBe(transactionOf('h2'));
  });

  it('waits for the use cases `more` says are on their way, but not for ever', async () => {
    let coming = true;
    const waiting = groupedWrites({
      more: () => coming,
    });
    const first = waiting.write(shop.workspaceId, { workspaceId: shop.workspaceId, mark: 'e1' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = waiting.write(shop.workspaceId, { workspaceId: shop.workspaceId, mark: 'e2' });
    coming = false;
    await Promise.all([first, second]);
    expect(transactionOf('e1')).toBe(transactionOf('e2'));

    // Something said to be coming that never comes holds a group up only briefly.
    coming = true;
    await waiting.write(shop.workspaceId, { workspaceId: shop.workspaceId, mark: 'e3' });
    expect(await eventsOf('e3')).toHaveLength(1);
  });
});
