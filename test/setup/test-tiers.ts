import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The tiers of the test suite, by what a test file starts: `unit` starts nothing (no PostgreSQL, no
 * chain, no browser), `db` PostgreSQL, `chain` anvil or a service process, `browser` chromium. A file's
 * tier is read from what it loads, so a new test file needs no list to be kept: it is `unit` until it,
 * or a helper in test/ it imports, starts something. vitest.config.ts makes one project of each tier.
 */
export const TIERS = ['unit', 'db', 'chain', 'browser'] as const;
export type Tier = (typeof TIERS)[number];

/** Stands in the graph for a file that asks for the run's PostgreSQL (test/setup/global-postgres.ts). */
const INJECTED_POSTGRES = "inject('postgres')";

/** Loading one of these (or asking for the run's PostgreSQL with `inject('postgres')`) starts its tier. */
export const STARTERS: Readonly<Record<Exclude<Tier, 'unit'>, readonly string[]>> = {
  db: [
    'test/support/database.ts',
    'src/db/embedded-postgres.ts',
    INJECTED_POSTGRES,
    // Commands a test runs, each against a database.
    'src/main/migrate.ts',
    'scripts/credits.ts',
  ],
  chain: [
    'test/support/chain.ts',
    'test/support/controlled-chain.ts',
    'src/chain/anvil.ts',
    // A service process starts its own PostgreSQL and local chain unless told where they are.
    'src/main/start.ts',
  ],
  browser: ['test/support/browser.ts'],
};

/** Every test file under `test/`, relative to the root, with `/` separators. */
export function testFiles(root: string): string[] {
  return readdirSync(path.join(root, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.posix.join('test', file.split(path.sep).join('/')))
    .sort();
}

/** Each test file's tier: the highest among the starters it loads (browser > chain > db > unit). */
export function testTiers(root: string): Map<string, Tier> {
  const graph = new LoadGraph(root);
  return new Map(testFiles(root).map((file) => [file, tierOf(graph.closure(file))]));
}

function tierOf(closure: ReadonlySet<string>): Tier {
  for (const tier of ['browser', 'chain', 'db'] as const) {
    if (STARTERS[tier].some((starter) => closure.has(starter))) return tier;
  }
  return 'unit';
}

// `import x from './a.js'`, `export * from './a.js'`, `import('./a.js')`, `import './a.js'`; not `import type`.
const IMPORT =
  /(?:^|[\n;])\s*(?:(?:import|export)(?!\s+type\s)[^'";]*?\sfrom\s*|import\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
// A project file run as a command: `spawn(node, ['--import', 'tsx', 'src/main/start.ts'])`.
const COMMAND = /['"]((?:src|scripts|bench)\/[\w./-]+\.ts)['"]/g;
// A file next to the test run as a process: `new URL('./fixtures/worker-process.ts', import.meta.url)`.
const URL_FILE = /new URL\(\s*['"](\.{1,2}\/[\w./-]+\.ts)['"]\s*,\s*import\.meta\.url/g;
const INJECT = /\binject\(\s*['"]postgres['"]\s*\)/;

/**
 * What each file loads or runs, followed through test/ only: a module of src/ is a leaf, as importing
 * it starts nothing (src/main/services.ts names the local chain without starting one); the starters in
 * src/ are the modules a test imports directly to start something. test/setup/ is the harness (this
 * file names every starter), a leaf too: what it starts is given to a tier by vitest.config.ts.
 */
export class LoadGraph {
  private readonly edges = new Map<string, readonly string[]>();

  constructor(private readonly root: string) {}

  closure(file: string): Set<string> {
    const seen = new Set<string>();
    const queue = [file];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      if (seen.has(next)) continue;
      seen.add(next);
      if (next.startsWith('test/') && !next.startsWith('test/setup/')) queue.push(...this.loadsOf(next));
    }
    return seen;
  }

  /** The files of `closure(file)` under test/: what a test's own code consists of. */
  testSources(file: string): string[] {
    return [...this.closure(file)].filter((each) => each.startsWith('test/') && each.endsWith('.ts'));
  }

  private loadsOf(file: string): readonly string[] {
    let loads = this.edges.get(file);
    if (!loads) {
      loads = this.read(file);
      this.edges.set(file, loads);
    }
    return loads;
  }

  private read(file: string): string[] {
    let source: string;
    try {
      source = readFileSync(path.join(this.root, file), 'utf8');
    } catch {
      return [];
    }
    const here = path.posix.dirname(file);
    const relative = [...source.matchAll(IMPORT), ...source.matchAll(URL_FILE)].map((match) =>
      path.posix.normalize(path.posix.join(here, match[1]!)),
    );
    const commands = [...source.matchAll(COMMAND)].map((match) => match[1]!);
    const injected = INJECT.test(source) ? [INJECTED_POSTGRES] : [];
    return [...relative, ...commands, ...injected].map((module) => module.replace(/\.js$/, '.ts'));
  }
}
