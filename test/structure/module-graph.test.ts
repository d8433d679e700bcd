import { describe, expect, it } from 'vitest';
import { analyse, moduleOf, readSources, type SourceFile } from '../../scripts/module-graph.js';

const file = (path: string, ...imports: string[]): SourceFile => ({
  path,
  text: imports.map((specifier) => `import { x } from '${specifier}';`).join('\n'),
});

describe('module graph', () => {
  it('names capability modules by folder and everything else by area', () => {
    expect(moduleOf('src/modules/invoices/invoice.repo.ts')).toBe('modules/invoices');
    expect(moduleOf('src/http/app.ts')).toBe('http');
    expect(moduleOf('src/web/portal/client/app.js')).toBe('web/portal');
  });

  it('accepts imports through index.ts and within a module', () => {
    const graph = analyse([
      file(
        'src/modules/invoices/invoice.service.ts',
        './invoice.repo.js',
        '../events/index.js',
        '../../shared/errors.js',
      ),
      file('src/http/app.ts', '../modules/invoices/index.js'),
    ]);
    expect(graph.boundaryViolations).toEqual([]);
    expect(graph.cycles).toEqual([]);
    expect([...graph.edges.get('modules/invoices')!]).toEqual(['modules/events', 'shared']);
  });

  it("reports an import past another module's index.ts, from a module or an area", () => {
    const graph = analyse([
      file('src/modules/payments/payment.service.ts', '../invoices/invoice.repo.js'),
      file('src/main/services.ts', '../modules/payments/payment.service.js'),
    ]);
    expect(graph.boundaryViolations).toHaveLength(2);
    expect(graph.boundaryViolations[0]).toContain('src/modules/invoices/invoice.repo.ts');
  });

  it('reports a cycle between modules, also through a third one', () => {
    const graph = analyse([
      file('src/modules/events/index.ts', '../webhooks/index.js'),
      file('src/modules/webhooks/index.ts', '../invoices/index.js'),
      file('src/modules/invoices/index.ts', '../events/index.js'),
      file('src/modules/billing/index.ts', '../events/index.js'),
    ]);
    expect(graph.cycles).toEqual([['modules/events', 'modules/invoices', 'modules/webhooks']]);
  });
});

describe('this code base', () => {
  it("has no cycle between modules and no import past a module's index.ts", () => {
    const graph = analyse(readSources(process.cwd()));
    expect(graph.cycles).toEqual([]);
    expect(graph.boundaryViolations).toEqual([]);
    expect(graph.edges.size).toBeGreaterThan(10);
  });
});
