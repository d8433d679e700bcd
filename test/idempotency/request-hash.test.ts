import { describe, expect, it } from 'vitest';
import { requestHash } from '../../src/modules/idempotency/index.js';

describe('request hash', () => {
  // Stored hashes (idempotency keys, batch bindings) are compared with new ones: the digest of a body
  // must never change, or a retry after an upgrade would be refused as another request.
  it('keeps the digests it has always given', () => {
    const digests = [
      { amount: '12.50', externalId: 'order-1', expiresIn: 86400 },
      {
        items: [{ amount: '1', externalId: 'a\u0000b' }, 'x', 3, null, [true, false, { z: 1, a: [] }]],
        budgetCredits: 10,
      },
      { b: { '\ud800': 'é', 'a"b': [1.5, -0, 1e21] }, a: {} },
    ].map((body) => requestHash(body).toString('hex'));
    expect(digests).toEqual([
      '5b6e943d9512d45e2f33cba8602734aa0907f8e07713a80a4cfc7f5777790af2',
      '43864d052e3bef10c0726656a910c7d8685509fde67ee0dc50a347d1651098d7',
      '5e9335cbf4586aac76903bab3a9bdab6c1f13c0404f7a51e20061cdeab05edd7',
    ]);
  });

  it('is the same however the keys are ordered', () => {
    expect(requestHash({ a: 1, b: { d: [1, 2], c: 'x' } })).toEqual(requestHash({ b: { c: 'x', d: [1, 2] }, a: 1 }));
  });

  it('hashes a value nested as deep as a 256 KB body allows without overflowing the stack', () => {
    const depth = 130_000;
    const deep = JSON.parse('['.repeat(depth) + '{"a":1}' + ']'.repeat(depth)) as unknown;
    expect(requestHash({ items: [deep] })).toHaveLength(32);
    expect(requestHash({ items: [deep] })).not.toEqual(requestHash({ items: [[deep]] }));
  });
});
