import { lowFundsWarning } from '../modules/relayer/index.js';
import type { Services } from './services.js';

/** What /readyz tells the operator of the relayer: each account and network where its balance is below the minimum. */
export async function relayerWarnings(services: Pick<Services, 'relayer'>): Promise<string[]> {
  const { watch } = services.relayer;
  const states = await watch.answering();
  return states.filter((state) => state.low).map((state) => lowFundsWarning(state, watch.relayers.length));
}
