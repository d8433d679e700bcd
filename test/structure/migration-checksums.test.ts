import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../src/db/migrate.js';

/**
 * A migration on main may have run on a deployed database, which never runs it again: a change to its
 * file would make fresh databases differ from deployed ones. So every migration's SHA-256 is recorded
 * in migrations/checksums.json when it is added, and a file that differs from its record, a recorded
 * file that is gone, or a new file not recorded fails here, saying what to do.
 */
const RECORD = 'checksums.json';
const MIGRATION_FILE = /^\d{4}_[\w-]+\.sql$/;

function sha256(file: string): string {
  return createHash('sha256')
    .update(readFileSync(path.join(MIGRATIONS_DIR, file)))
    .digest('hex');
}

it('every migration is recorded in migrations/checksums.json, unchanged since', () => {
  const recorded = JSON.parse(readFileSync(path.join(MIGRATIONS_DIR, RECORD), 'utf8')) as Record<string, string>;
  const files = readdirSync(MIGRATIONS_DIR).filter((file) => file !== RECORD);
  const problems: string[] = [];
  for (const file of files) {
    if (!MIGRATION_FILE.test(file)) {
      problems.push(
        `migrations/${file} is not applied: a migration is named NNNN_name.sql (nothing else belongs here)`,
      );
    } else if (recorded[file] === undefined) {
      problems.push(`migrations/${file} is new: add "${file}": "${sha256(file)}" to migrations/${RECORD}`);
    } else if (recorded[file] !== sha256(file)) {
      problems.push(
        `migrations/${file} differs from the version recorded in migrations/${RECORD}: a migration is frozen once it ` +
          'is on main (deployed databases ran it and never run it again). Restore it (git checkout main -- ' +
          `migrations/${file}) and make the change in a new migration`,
      );
    }
  }
  for (const file of Object.keys(recorded)) {
    if (!files.includes(file))
      problems.push(
        `migrations/${file} is recorded in migrations/${RECORD} but gone: restore it (git checkout main -- migrations/${file})`,
      );
  }
  expect(problems).toEqual([]);
});
