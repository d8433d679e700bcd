import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';
import { LoadGraph, STARTERS, TIERS, testFiles, testTiers } from '../setup/test-tiers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What starting PostgreSQL, anvil, chromium, pgbouncer or a service process looks like in a test's code. */
const STARTS = [
  /\binject\(/,
  /\b(createTestDatabase|createTestChain|createControlledChain|launchBrowser|startEmbeddedPostgres|startAnvil|startService|startPgbouncer)\b/,
  /\bchromium\.launch\b/,
  /\b(spawn|spawnSync|execFile|execFileSync|exec|execSync|fork)\(\s*['"`][^'"`]*\b(postgres|initdb|pg_ctl|anvil|chromium|pgbouncer)\b/,
  /['"]--import['"],\s*['"]tsx['"]/,
];

function projects(): { name: string; include: string[] }[] {
  return (config.test?.projects ?? []).map((project) => {
    if (typeof project !== 'object' || !('test' in project)) throw new Error('a project is not inline');
    return { name: String(project.test?.name), include: [...(project.test?.include ?? [])] };
  });
}

describe('test tiers', () => {
  it('are the Vitest projects, and every test file is in exactly one', () => {
    expect(testTiers(ROOT).get('test/structure/test-tiers.test.ts')).toBe('unit');
    expect(projects().map((project) => project.name)).toEqual([...TIERS]);
    const included = projects().flatMap((project) => project.include);
    expect([...included].sort()).toEqual(testFiles(ROOT));
    expect(new Set(included).size).toBe(included.length);
  });

  it('only the tiers that need PostgreSQL start it', () => {
    for (const project of config.test?.projects ?? []) {
      if (typeof project !== 'object' || !('test' in project)) continue;
      const setup = project.test?.globalSetup ?? [];
      expect([project.test?.name, setup]).toEqual([
        project.test?.name,
        project.test?.name === 'unit' ? [] : ['test/setup/global-postgres.ts'],
      ]);
    }
    expect(config.test?.globalSetup).toBeUndefined();
  });

  it('name starters that exist', () => {
    const files = Object.values(STARTERS)
      .flat()
      .filter((starter) => !starter.includes('('));
    expect(files.filter((file) => !existsSync(path.join(ROOT, file)))).toEqual([]);
  });

  it('keep out of the unit tier every file whose code (or a helper of test/ it loads) starts something', () => {
    const graph = new LoadGraph(ROOT);
    // This file names what it looks for.
    const self = 'test/structure/test-tiers.test.ts';
    const unit = [...testTiers(ROOT)].filter(([file, tier]) => tier === 'unit' && file !== self).map(([file]) => file);
    const starting = unit.flatMap((file) =>
      graph
        .testSources(file)
        .filter((source) => STARTS.some((start) => start.test(readFileSync(path.join(ROOT, source), 'utf8'))))
        .map((source) => `${file} (in ${source})`),
    );
    expect(starting).toEqual([]);
  });
});

// Spelled so that this file's own text neither asks for PostgreSQL nor runs a command.
function quoted(text: string): string {
  return `'${text}'`;
}

function runs(module: string): string {
  return `spawn(process.execPath, ['--import', 'tsx', ${quoted(`${module}.ts`)}]);\n`;
}

describe('a test file’s tier', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'test-tiers-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  function write(file: string, source: string) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), source);
  }
  write('test/support/database.ts', 'export function createTestDatabase() {}\n');
  write('test/support/chain.ts', "import { startAnvil } from '../../src/chain/anvil.js';\n");
  write('test/support/browser.ts', "import { chromium } from 'playwright-core';\n");
  write('test/support/app.ts', "import { createTestDatabase } from './database.js';\n");
  write('test/support/types.ts', "import type { X } from './chain.js';\n");

  it.each([
    ['pure.test.ts', "import { it } from 'vitest';\nimport { rule } from '../src/rule.js';\n", 'unit'],
    ['types-only.test.ts', "import type { Chain } from './support/types.js';\n", 'unit'],
    ['through-a-helper.test.ts', "import { createTestApp } from './support/app.js';\n", 'db'],
    ['injects.test.ts', `const { host } = inject(${quoted('postgres')});\n`, 'db'],
    ['runs-migrate.test.ts', runs('src/main/migrate'), 'db'],
    ['anvil-directly.test.ts', "import { startAnvil } from '../src/chain/anvil.js';\n", 'chain'],
    ['a-service.test.ts', runs('src/main/start'), 'chain'],
    [
      'browser-and-db.test.ts',
      "import { x } from './support/app.js';\nimport { launchBrowser } from './support/browser.js';\n",
      'browser',
    ],
  ])('%s is %s', (name, source, tier) => {
    write(`test/${name}`, source);
    expect(testTiers(root).get(`test/${name}`)).toBe(tier);
  });
});
