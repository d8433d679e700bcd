import { Counter, Gauge, type Registry } from 'prom-client';
import type { Services } from './services.js';

const LABELS = ['network', 'provider', 'host'] as const;

/**
 * Each RPC provider of each network, labelled by its position in `rpcUrls` (from 1) and its host, never
 * its URL (whose path or query may hold an API key): calls, failures, its latest head and whether it is
 * being skipped. Read from this process's own clients when /metrics is scraped.
 */
export function registerRpcMetrics(registry: Registry, services: Pick<Services, 'rpcProviders'>): void {
  const each = (fill: (labels: Record<(typeof LABELS)[number], string>, provider: ProviderStatus) => void) => {
    for (const { network, providers } of services.rpcProviders())
      for (const provider of providers) fill({ network, provider: provider.provider, host: provider.host }, provider);
  };
  new Counter({
    name: 'invoice_service_rpc_calls_total',
    help: 'JSON-RPC calls sent to a provider, by network and provider',
    labelNames: LABELS,
    registers: [registry],
    collect() {
      // The clients count; the counter shows their totals as they are at the scrape.
      this.reset();
      each((labels, provider) => this.inc(labels, provider.calls));
    },
  });
  new Counter({
    name: 'invoice_service_rpc_errors_total',
    help: 'Calls a provider did not answer (refused, timed out, HTTP 5xx or 429, rate limited); JSON-RPC errors that are answers are not counted',
    labelNames: LABELS,
    registers: [registry],
    collect() {
      this.reset();
      each((labels, provider) => this.inc(labels, provider.errors));
    },
  });
  new Gauge({
    name: 'invoice_service_rpc_head_block',
    help: 'The latest block number a provider answered to eth_blockNumber',
    labelNames: LABELS,
    registers: [registry],
    collect() {
      this.reset();
      each((labels, provider) => provider.head !== undefined && this.set(labels, Number(provider.head)));
    },
  });
  new Gauge({
    name: 'invoice_service_rpc_provider_up',
    help: '0 while a provider is skipped after a failure (calls go to the others), else 1',
    labelNames: LABELS,
    registers: [registry],
    collect() {
      this.reset();
      each((labels, provider) => this.set(labels, provider.down ? 0 : 1));
    },
  });
}

type ProviderStatus = ReturnType<Services['rpcProviders']>[number]['providers'][number];
