import { Gauge, type Registry } from 'prom-client';
import type { Services } from './services.js';

/**
 * The relayer's balance on every network, read through its watch (at most once a block while
 * settlements happen, once a minute otherwise), and the settlements stuck above the fee cap.
 */
export function registerRelayerMetrics(registry: Registry, services: Pick<Services, 'relayer'>): void {
  const { watch, sender } = services.relayer;
  new Gauge({
    name: 'invoice_service_relayer_balance_wei',
    help: 'The ether of each relayer account that pays the gas of gasless and x402 settlements, by network and account',
    labelNames: ['network', 'relayer'],
    registers: [registry],
    async collect() {
      // A network whose node does not answer is left out rather than failing the whole scrape.
      for (const state of await watch.answering())
        this.set({ network: state.network, relayer: state.relayer }, Number(state.balanceWei));
    },
  });
  new Gauge({
    name: 'invoice_service_relayer_stuck_settlements',
    help: 'Settlements stuck below the base fee whose replacement would pass the fee cap (MAX_FEE_PER_GAS_GWEI), by network',
    labelNames: ['network'],
    registers: [registry],
    collect() {
      const counts = sender.overCapByNetwork();
      for (const network of watch.networkNames()) this.set({ network }, counts.get(network) ?? 0);
    },
  });
}
