import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileAll } from '../../scripts/compile-token.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('checked-in contract artifacts', () => {
  it('are exactly what the compile script produces from the current sources', () => {
    const generated = compileAll();
    expect([...generated.keys()].sort()).toEqual([
      'src/chain/multicall3.artifact.ts',
      'src/chain/test-usdc.artifact.ts',
    ]);
    for (const [file, content] of generated) {
      // On failure: run `npm run compile:token` and commit the result.
      expect(readFileSync(`${ROOT}${file}`, 'utf8'), file).toBe(content);
    }
  });
});
