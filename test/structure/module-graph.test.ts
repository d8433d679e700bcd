import { describe, expect, it } from 'vitest';
import { MAX_MODULE_LINES, analyse, moduleOf, readSources, type SourceFile } from '../../scripts/module-graph.js';

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
      file('src/main/app.ts', '../modules/invoices/index.js'),
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

  it('reports a cycle between folders that are not modules, such as a page area and a module', () => {
    const graph = analyse([
      file('src/web/checkout/checkout.page.ts', '../../modules/payments/index.js'),
      file('src/modules/payments/checkout.routes.ts', '../../web/checkout/checkout.page.js'),
    ]);
    expect(graph.cycles).toEqual([['modules/payments', 'web/checkout']]);
  });

  it('reports a foundation area that imports a module, a page or the wiring, type-only imports included', () => {
    const graph = analyse([
      { path: 'src/http/route-table.ts', text: "import type { X } from '../modules/invoices/index.js';" },
      file('src/db/database.ts', '../main/services.js'),
      file('src/jobs/runner.ts', '../db/database.js', '../shared/ids.js'),
      file('src/shared/html.ts', '../web/html.js'),
    ]);
    expect(graph.layerViolations).toHaveLength(3);
    expect(graph.layerViolations[0]).toContain('src/http/route-table.ts imports src/modules/invoices/index.ts');
  });

  it(`reports a module over ${MAX_MODULE_LINES} lines`, () => {
    const long = { path: 'src/modules/payments/payment.service.ts', text: 'x;\n'.repeat(MAX_MODULE_LINES + 1) };
    const graph = analyse([long, file('src/modules/invoices/invoice.ts')]);
    expect(graph.oversized).toEqual([`modules/payments: ${MAX_MODULE_LINES + 1} lines`]);
  });
});

describe('this code base', () => {
  const graph = analyse(readSources(process.cwd()));

  it("has no cycle between folders and no import past a module's index.ts", () => {
    expect(graph.cycles).toEqual([]);
    expect(graph.boundaryViolations).toEqual([]);
    expect(graph.edges.size).toBeGreaterThan(10);
  });

  it('keeps http, db, jobs, chain, config and shared below the modules: only src/main knows them all', () => {
    expect(graph.layerViolations).toEqual([]);
  });

  it('keeps the payment engine apart from the orders it pays: invoices and credit purchases implement its interface', () => {
    const engine = [...(graph.edges.get('modules/payment-engine') ?? [])];
    expect(engine).toContain('modules/events');
    expect(engine.filter((to) => to === 'modules/invoices' || to === 'modules/credit-purchases')).toEqual([]);
    expect(graph.edges.get('modules/invoices')).toContain('modules/payment-engine');
    expect(graph.edges.get('modules/credit-purchases')).toContain('modules/payment-engine');
  });

  it(`keeps every module under ${MAX_MODULE_LINES} lines, payments in four of them`, () => {
    for (const name of ['payment-engine', 'checkout', 'x402', 'payment-views']) {
      expect(graph.edges.has(`modules/${name}`)).toBe(true);
    }
    expect(graph.oversized).toEqual([]);
  });
});
