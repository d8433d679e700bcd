import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The dependency graph between the capability modules of `src/modules/`, and the two rules that keep it
 * worth having: another module is imported only through its `index.ts`, and no module depends on
 * itself through others. `npm run graph` prints the graph and exits 1 on a violation; the test suite
 * runs the same check.
 */

export interface SourceFile {
  /** Path relative to the project root, with forward slashes: `src/modules/invoices/invoice.ts`. */
  readonly path: string;
  readonly text: string;
}

export interface ModuleGraph {
  /** Module (`modules/invoices`, or an area such as `http`) → the modules it imports. */
  readonly edges: ReadonlyMap<string, ReadonlySet<string>>;
  /** Imports into another capability module that bypass its `index.ts`. */
  readonly boundaryViolations: readonly string[];
  /** Each cycle between capability modules, as the list of modules on it. */
  readonly cycles: readonly string[][];
}

const MODULES_DIR = 'src/modules/';

/** `modules/<name>` for a capability module's file; the area (`http`, `web/portal`, …) otherwise. */
export function moduleOf(file: string): string {
  if (file.startsWith(MODULES_DIR)) return `modules/${file.slice(MODULES_DIR.length).split('/')[0]}`;
  const parts = file.replace(/^src\//, '').split('/');
  return parts[0] === 'web' && parts.length > 2 ? `web/${parts[1]}` : parts[0]!;
}

export function analyse(files: readonly SourceFile[]): ModuleGraph {
  const edges = new Map<string, Set<string>>();
  const boundaryViolations: string[] = [];
  for (const file of files) {
    const from = moduleOf(file.path);
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
    }
  }
  const capability = new Map(
    [...edges]
      .filter(([name]) => name.startsWith('modules/'))
      .map(([name, to]) => [name, new Set([...to].filter((t) => t.startsWith('modules/')))]),
  );
  return { edges, boundaryViolations, cycles: cyclesOf(capability) };
}

/** Relative module specifiers of static imports, re-exports and dynamic imports (packages are not ours). */
function relativeImports(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((imported) => imported.fileName)
    .filter((name) => name.startsWith('.'));
}

/** Strongly connected components with more than one module (Tarjan), each sorted for a stable report. */
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
  const modules = [...graph.edges.keys()].filter((name) => name.startsWith('modules/')).length;
  lines.push(
    `${modules} capability modules, ${graph.cycles.length} cycles, ${graph.boundaryViolations.length} imports past an index.ts`,
  );
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const graph = analyse(readSources(process.cwd()));
  console.log(report(graph));
  process.exitCode = graph.cycles.length > 0 || graph.boundaryViolations.length > 0 ? 1 : 0;
}
