import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The dependency graph between the folders of `src/` (each capability module of `src/modules/`, each
 * page area of `src/web/`, and the areas `http`, `db`, `jobs`, `chain`, `config`, `shared`, `main`), and
 * the rules that keep it worth having: another module is imported only through its `index.ts`; no folder
 * depends on itself through others; the foundation areas import no module, no page and no wiring (only
 * `src/main` knows every module); and no module grows past MAX_MODULE_LINES. `npm run graph` prints the
 * graph and exits 1 on a violation; the test suite runs the same check.
 */

export interface SourceFile {
  /** Path relative to the project root, with forward slashes: `src/modules/invoices/invoice.ts`. */
  readonly path: string;
  readonly text: string;
}

export interface ModuleGraph {
  /** Folder (`modules/invoices`, `web/portal`, or an area such as `http`) → the folders it imports. */
  readonly edges: ReadonlyMap<string, ReadonlySet<string>>;
  /** Imports into another capability module that bypass its `index.ts`. */
  readonly boundaryViolations: readonly string[];
  /** Imports from a foundation area into anything above the foundations (type-only imports included). */
  readonly layerViolations: readonly string[];
  /** Each cycle between folders, as the list of folders on it. */
  readonly cycles: readonly string[][];
  /** Capability modules over MAX_MODULE_LINES, with their line counts. */
  readonly oversized: readonly string[];
}

const MODULES_DIR = 'src/modules/';
/** The areas every module may build on: they know no module, no page and no wiring. */
export const FOUNDATIONS: ReadonlySet<string> = new Set(['http', 'db', 'jobs', 'chain', 'config', 'shared']);
/** A module past this many lines holds more than one capability: split it. */
export const MAX_MODULE_LINES = 2000;

/** `modules/<name>` for a capability module's file; the area (`http`, `web/portal`, …) otherwise. */
export function moduleOf(file: string): string {
  if (file.startsWith(MODULES_DIR)) return `modules/${file.slice(MODULES_DIR.length).split('/')[0]}`;
  const parts = file.replace(/^src\//, '').split('/');
  return parts[0] === 'web' && parts.length > 2 ? `web/${parts[1]}` : parts[0]!;
}

export function analyse(files: readonly SourceFile[]): ModuleGraph {
  const edges = new Map<string, Set<string>>();
  const boundaryViolations: string[] = [];
  const layerViolations: string[] = [];
  const lines = new Map<string, number>();
  for (const file of files) {
    const from = moduleOf(file.path);
    lines.set(from, (lines.get(from) ?? 0) + (file.text.match(/\n/g) ?? []).length);
    for (const specifier of relativeImports(file.text)) {
      const target = path.posix
        .normalize(path.posix.join(path.posix.dirname(file.path), specifier))
        .replace(/\.js$/, '.ts');
      const to = moduleOf(target);
      if (to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
      if (target.startsWith(MODULES_DIR) && path.posix.basename(target) !== 'index.ts') {
        boundaryViolations.push(`${file.path} imports ${target}: import ${to}/index.ts instead`);
      }
      if (FOUNDATIONS.has(from) && !FOUNDATIONS.has(to)) {
        layerViolations.push(`${file.path} imports ${target}: ${from} may import only ${[...FOUNDATIONS].join(', ')}`);
      }
    }
  }
  const oversized = [...lines]
    .filter(([name, count]) => name.startsWith('modules/') && count > MAX_MODULE_LINES)
    .map(([name, count]) => `${name}: ${count} lines`);
  return { edges, boundaryViolations, layerViolations, cycles: cyclesOf(edges), oversized };
}

/** Relative module specifiers of static imports, re-exports and dynamic imports (packages are not ours). */
function relativeImports(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((imported) => imported.fileName)
    .filter((name) => name.startsWith('.'));
}

/** Strongly connected components with more than one folder (Tarjan), each sorted for a stable report. */
function cyclesOf(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) components.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components;
}

export function readSources(root: string): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith('.ts'))
        files.push({ path: relative, text: readFileSync(path.join(root, relative), 'utf8') });
    }
  };
  walk('src');
  return files;
}

/** The printed graph: one line per module with what it imports, then the violations. */
export function report(graph: ModuleGraph): string {
  const lines = [...graph.edges.keys()]
    .sort()
    .map((name) => `${name} -> ${[...graph.edges.get(name)!].sort().join(', ')}`);
  for (const cycle of graph.cycles) lines.push(`CYCLE: ${cycle.join(' <-> ')}`);
  for (const violation of graph.boundaryViolations) lines.push(`PAST INDEX: ${violation}`);
  for (const violation of graph.layerViolations) lines.push(`ABOVE ITS LAYER: ${violation}`);
  for (const module of graph.oversized) lines.push(`OVER ${MAX_MODULE_LINES} LINES: ${module}`);
  const modules = [...graph.edges.keys()].filter((name) => name.startsWith('modules/')).length;
  lines.push(
    `${graph.edges.size} folders (${modules} capability modules), ${graph.cycles.length} cycles, ` +
      `${graph.boundaryViolations.length} imports past an index.ts, ${graph.layerViolations.length} foundation imports ` +
      `above their layer, ${graph.oversized.length} modules over ${MAX_MODULE_LINES} lines`,
  );
  return lines.join('\n');
}

/** Whether the graph breaks any rule. */
export function violated(graph: ModuleGraph): boolean {
  return [graph.cycles, graph.boundaryViolations, graph.layerViolations, graph.oversized].some(
    (list) => list.length > 0,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const graph = analyse(readSources(process.cwd()));
  console.log(report(graph));
  process.exitCode = violated(graph) ? 1 : 0;
}
