import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MINIMUM_NODE, unsupportedNode } from '../../src/main/runtime.js';

describe('unsupportedNode', () => {
  it('accepts the minimum and every later release', () => {
    for (const version of ['20.19.0', '20.19.5', '20.20.2', '21.0.0', '22.12.0', '24.1.0', '26.10.0'])
      expect(unsupportedNode(version)).toBeUndefined();
  });

  it('refuses older releases with a sentence that names both versions', () => {
    for (const version of ['20.18.3', '20.9.0', '18.20.4', '16.0.0'])
      expect(unsupportedNode(version)).toBe(
        `Node.js ${version} is too old: the Invoice Service needs Node.js 20.19.0 or newer.`,
      );
  });

  it('is the minimum that package.json states', () => {
    const { engines } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      engines: { node: string };
    };
    expect(engines.node).toBe(`>=${MINIMUM_NODE.slice(0, 2).join('.')}`);
  });

  it('accepts the Node.js running these tests', () => {
    expect(unsupportedNode()).toBeUndefined();
  });
});
