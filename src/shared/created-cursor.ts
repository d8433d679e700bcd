import { AppError } from './errors.js';

/** A list position newest-first lists page by: the last row's creation time and id. */
export interface CreatedPosition<Id extends string> {
  readonly createdAt: Date;
  readonly id: Id;
}

/**
 * The cursors of a list ordered by (created_at, id) descending, whose ids are `<prefix>_` and 26 base32
 * characters: `<milliseconds>.<id>`. Clients treat them as opaque; they reveal nothing the page did not
 * show. Parsing answers null for the first page and `invalid_cursor` for anything the list never gave.
 */
export function createdCursor<Id extends string>(prefix: string) {
  const pattern = new RegExp(`^([0-9]{1,15})\\.(${prefix}_[0-9a-hjkmnp-tv-z]{26})$`);
  return {
    encode: (row: CreatedPosition<Id>): string => `${row.createdAt.getTime()}.${row.id}`,
    parse(raw: string | undefined): CreatedPosition<Id> | null {
      if (raw === undefined) return null;
      const match = pattern.exec(raw);
      if (!match) {
        throw new AppError(
          'invalid_cursor',
          `"${raw.slice(0, 40)}" is not a cursor of this list: omit cursor for the first page, then pass the nextCursor it returned.`,
        );
      }
      return { createdAt: new Date(Number(match[1])), id: match[2] as Id };
    },
  };
}
