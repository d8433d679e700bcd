import { afterEach, expect, it, vi } from 'vitest';
import type { ChainPort, RelayerFunds } from '../../src/chain/chain-port.js';
import type { Network } from '../../src/chain/networks.js';
import { RelayerWatch } from '../../src/modules/relayer/relayer-watch.js';

// The watch's reading rules on the clock alone: the node is a counter of balance reads.
const network = { name: 'base-sepolia', chainId: 84532, blockTimeSeconds: 2 } as Network;
const DRY: RelayerFunds = { balanceWei: 0n, maxFeePerGasWei: 1_000_000_000n };
const FUNDED: RelayerFunds = { balanceWei: 10n ** 20n, maxFeePerGasWei: 1_000_000_000n };

function watchOf(...accounts: { now: RelayerFunds | Error }[]) {
  let reads = 0;
  const signers = accounts.map(
    (funds, index) =>
      ({
        relayer: `0x${String(index + 1).padStart(40, '0')}`,
        relayerFunds: async () => {
          reads += 1;
          if (funds.now instanceof Error) throw funds.now;
          return funds.now;
        },
      }) as unknown as ChainPort,
  );
  const watch = new RelayerWatch({ signers, networks: [network], minBalanceWei: undefined });
  return { watch, reads: () => reads };
}

afterEach(() => vi.useRealTimers());

it('while the relayer is dry, checkout loads confirm the refusal with at most one read a block', async () => {
  vi.useFakeTimers({ now: new Date('2026-11-26T12:00:00Z') });
  const funds = { now: DRY };
  const { watch, reads } = watchOf(funds);

  for (let load = 0; load < 20; load += 1) expect(await watch.canPayGas(network)).toBe(false);
  expect(reads()).toBe(1);

  // Funded meanwhile: the first load a block later reads again and takes payments.
  funds.now = FUNDED;
  vi.advanceTimersByTime(1_999);
  expect(await watch.canPayGas(network)).toBe(false);
  vi.advanceTimersByTime(1);
  expect(await watch.canPayGas(network)).toBe(true);
  expect(reads()).toBe(2);
});

it('while funded, the funds are read once a minute, or once a block for a minute after a settlement', async () => {
  vi.useFakeTimers({ now: new Date('2026-11-26T12:00:00Z') });
  const { watch, reads } = watchOf({ now: FUNDED });

  expect(await watch.canPayGas(network)).toBe(true);
  vi.advanceTimersByTime(59_000);
  expect(await watch.canPayGas(network)).toBe(true);
  expect(reads()).toBe(1);
  vi.advanceTimersByTime(1_000);
  await watch.canPayGas(network);
  expect(reads()).toBe(2);

  watch.noteSettlement(network);
  vi.advanceTimersByTime(2_000);
  await watch.canPayGas(network);
  expect(reads()).toBe(3);
});

it('with several relayer accounts, settlements go to those that can pay, and payments stop only when none can', async () => {
  vi.useFakeTimers({ now: new Date('2026-11-26T12:00:00Z') });
  const first = { now: DRY };
  const second = { now: FUNDED };
  const { watch } = watchOf(first, second);

  expect(await watch.canPayGas(network)).toBe(true);
  expect((await watch.payers(network)).map((signer) => signer.relayer)).toEqual([`0x${'0'.repeat(39)}2`]);
  const states = await watch.answering();
  expect(states.map((state) => [state.relayer, state.low])).toEqual([
    [`0x${'0'.repeat(39)}1`, true],
    [`0x${'0'.repeat(39)}2`, false],
  ]);

  second.now = DRY;
  vi.advanceTimersByTime(60_000);
  expect(await watch.canPayGas(network)).toBe(false);
  first.now = FUNDED;
  vi.advanceTimersByTime(2_000);
  expect((await watch.payers(network)).map((signer) => signer.relayer)).toEqual([`0x${'0'.repeat(39)}1`]);
});

it('an account whose funds cannot be read is not ruled out; when none can be read, the error is thrown', async () => {
  vi.useFakeTimers({ now: new Date('2026-11-26T12:00:00Z') });
  const unreadable = { now: new Error('node down') as RelayerFunds | Error };
  const { watch } = watchOf(unreadable, { now: DRY });
  expect((await watch.payers(network)).map((signer) => signer.relayer)).toEqual([`0x${'0'.repeat(39)}1`]);

  const { watch: blind } = watchOf({ now: new Error('node down') }, { now: new Error('node down') });
  await expect(blind.canPayGas(network)).rejects.toThrow('node down');
});
