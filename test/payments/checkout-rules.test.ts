import { describe, expect, it } from 'vitest';
import { encodeAbiParameters, keccak256 } from 'viem';
import type { ReceiptStatus, TransferLog } from '../../src/chain/chain-port.js';
import { orderNonceVersion } from '../../src/modules/authorization-bindings/index.js';
import { checkoutNonce, eip681TransferUri } from '../../src/modules/checkout/checkout.js';
import { prefersHtml } from '../../src/modules/checkout/checkout.routes.js';
import { isOrderNonce } from '../../src/shared/payment-request.js';
import {
  CLOCK_SKEW_MS,
  UNMINED_WINDOW_MS,
  judgeTransfer,
  type TransferExpectation,
} from '../../src/modules/transfer-rules/transfer-rules.js';

const PAY_TO = '0x00000000000000000000000000000000000000aa';
const OTHER = '0x00000000000000000000000000000000000000bb';
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const t = (minutes: number) => new Date(Date.UTC(2030, 0, 1) + minutes * 60_000);

describe('the checkout nonce', () => {
  it('is keccak256(abi.encode(invoiceId, linkVersion)) tagged "ORDR": one per link version', () => {
    const hash = keccak256(encodeAbiParameters([{ type: 'string' }, { type: 'uint256' }], ['inv_abc', 3n]));
    const expected = `0x4f524452${hash.slice(10)}`;
    expect(checkoutNonce('inv_abc', 3)).toBe(expected);
    expect(isOrderNonce(expected)).toBe(true);
    expect(isOrderNonce(`0x${'0'.repeat(64)}`)).toBe(false);
    expect(checkoutNonce('inv_abc', 2)).not.toBe(expected);
    expect(checkoutNonce('inv_abd', 3)).not.toBe(expected);
  });

  it('tells which link version a nonce was made for', () => {
    expect(orderNonceVersion('inv_abc', 3, checkoutNonce('inv_abc', 3).toUpperCase().replace('0X', '0x'))).toBe(3);
    expect(orderNonceVersion('inv_abc', 3, checkoutNonce('inv_abc', 1))).toBe(1);
    expect(orderNonceVersion('inv_abc', 3, checkoutNonce('inv_abc', 4))).toBeUndefined();
    expect(orderNonceVersion('inv_abc', 3, checkoutNonce('inv_other', 3))).toBeUndefined();
  });
});

it('builds an EIP-681 transfer URI in base units with checksummed addresses', () => {
  expect(eip681TransferUri(USDC.toLowerCase(), 84532, PAY_TO, 12_500_000n)).toBe(
    `ethereum:${USDC}@84532/transfer?address=0x00000000000000000000000000000000000000AA&uint256=12500000`,
  );
});

it.each([
  [undefined, false],
  ['application/json', false],
  ['*/*', false],
  ['text/html', true],
  ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
  ['application/json, text/html;q=0.5', false],
  ['text/html;q=0.5, application/json', false],
  ['text/html;q=0', false],
])('Accept %s prefers HTML: %s', (accept, expected) => {
  expect(prefersHtml(accept)).toBe(expected);
});

describe('judgeTransfer', () => {
  const UNSEEN_WINDOW_MS = 10 * 60_000;
  const FOREIGN_NONCE = `0x${'f'.repeat(64)}` as const;
  const expected: TransferExpectation = {
    payTo: PAY_TO,
    amount: 2_500_000n,
    confirmations: 2,
    submittedAt: t(10),
    invoiceCreatedAt: t(0),
    deadline: t(60),
    unseenWindowMs: UNSEEN_WINDOW_MS,
    authorizedFor: (log) => log.authorizationNonce !== FOREIGN_NONCE,
  };
  const log = (overrides: Partial<TransferLog> = {}): TransferLog => ({
    logIndex: 0,
    token: USDC,
    from: OTHER,
    to: PAY_TO,
    value: 2_500_000n,
    ...overrides,
  });
  const mined = (overrides: Partial<Extract<ReceiptStatus, { kind: 'mined' }>> = {}): ReceiptStatus => ({
    kind: 'mined',
    success: true,
    blockNumber: 7n,
    blockHash: `0x${'7'.repeat(64)}`,
    blockTime: t(11),
    confirmations: 2,
    transfers: [log()],
    ...overrides,
  });

  it('waits for an unseen hash within the window, then fails not_found', () => {
    expect(judgeTransfer({ kind: 'not_found' }, expected, new Date(t(10).getTime() + UNSEEN_WINDOW_MS - 1)).kind).toBe(
      'wait',
    );
    expect(judgeTransfer({ kind: 'not_found' }, expected, new Date(t(10).getTime() + UNSEEN_WINDOW_MS))).toEqual({
      kind: 'fail',
      reason: 'not_found',
    });
  });

  it('waits for a pending transaction for a day, then fails not_found', () => {
    expect(judgeTransfer({ kind: 'pending' }, expected, new Date(t(10).getTime() + UNMINED_WINDOW_MS - 1)).kind).toBe(
      'wait',
    );
    expect(judgeTransfer({ kind: 'pending' }, expected, new Date(t(10).getTime() + UNMINED_WINDOW_MS))).toEqual({
      kind: 'fail',
      reason: 'not_found',
    });
  });

  it('judges nothing, not even a revert, before the confirmations', () => {
    expect(judgeTransfer(mined({ confirmations: 1, success: false }), expected, t(12)).kind).toBe('wait');
    expect(judgeTransfer(mined({ confirmations: 1, transfers: [log({ to: OTHER })] }), expected, t(12)).kind).toBe(
      'wait',
    );
  });

  it('finds a mined transfer that pays the invoice before its confirmations, with its block time', () => {
    expect(judgeTransfer(mined({ confirmations: 1 }), expected, t(12))).toEqual({ kind: 'found', blockTime: t(11) });
    expect(judgeTransfer(mined({ confirmations: 0 }), expected, t(12)).kind).toBe('found');
  });

  it('drops an unseen hash after the configured window, whatever it is', () => {
    const short = { ...expected, unseenWindowMs: 60_000 };
    expect(judgeTransfer({ kind: 'not_found' }, short, new Date(t(10).getTime() + 59_999)).kind).toBe('wait');
    expect(judgeTransfer({ kind: 'not_found' }, short, new Date(t(10).getTime() + 60_000))).toEqual({
      kind: 'fail',
      reason: 'not_found',
    });
  });

  it.each([
    ['reverted', mined({ success: false })],
    ['wrong_token', mined({ transfers: [] })],
    ['recipient_mismatch', mined({ transfers: [log({ to: OTHER })] })],
    ['amount_mismatch', mined({ transfers: [log({ value: 2_499_999n }), log({ to: OTHER, logIndex: 1 })] })],
    ['predates_invoice', mined({ blockTime: new Date(t(0).getTime() - CLOCK_SKEW_MS - 1000) })],
    ['authorized_for_another_order', mined({ transfers: [log({ authorizationNonce: FOREIGN_NONCE })] })],
  ])('fails %s', (reason, receipt) => {
    expect(judgeTransfer(receipt, expected, t(12))).toEqual({ kind: 'fail', reason });
  });

  it('accepts a block shortly before the invoice time (clock skew) and a checksummed recipient', () => {
    const receipt = mined({
      blockTime: new Date(t(0).getTime() - CLOCK_SKEW_MS + 1000),
      transfers: [log({ to: '0x00000000000000000000000000000000000000AA' })],
    });
    expect(judgeTransfer(receipt, expected, t(12)).kind).toBe('accept');
  });

  it('accepts a transfer mined after the deadline when the hash was submitted before it, not when submitted after', () => {
    const late = mined({ blockTime: t(90) });
    expect(judgeTransfer(late, expected, t(95)).kind).toBe('accept');
    expect(judgeTransfer(late, { ...expected, submittedAt: t(61) }, t(95))).toEqual({
      kind: 'fail',
      reason: 'expired',
    });
    // Mined in time, submitted late: the transfer itself was on time.
    expect(judgeTransfer(mined({ blockTime: t(59) }), { ...expected, submittedAt: t(61) }, t(95)).kind).toBe('accept');
  });

  it('offers a transfer that executed an authorization only to the order it was made for', () => {
    const own = `0x${'1'.repeat(64)}` as const;
    const receipt = mined({
      transfers: [
        log({ logIndex: 2, authorizationNonce: FOREIGN_NONCE }),
        log({ logIndex: 4, authorizationNonce: own }),
      ],
    });
    const verdict = judgeTransfer(receipt, expected, t(12));
    expect(verdict.kind === 'accept' && verdict.candidates.map((candidate) => candidate.logIndex)).toEqual([4]);
  });

  it('offers every matching transfer, in log order, as a candidate to claim', () => {
    const receipt = mined({ transfers: [log({ logIndex: 2 }), log({ logIndex: 3, to: OTHER }), log({ logIndex: 5 })] });
    const verdict = judgeTransfer(receipt, expected, t(12));
    expect(verdict.kind === 'accept' && verdict.candidates.map((candidate) => candidate.logIndex)).toEqual([2, 5]);
  });
});
