import type { Services } from './services.js';

/**
 * What /readyz tells the operator of the RPC providers: each one being skipped, and each network none of
 * whose providers answers. Neither makes the service unready: invoices, pages and the API do not need the
 * chain, and payments on a network wait until one of its providers answers again.
 */
export function rpcWarnings(services: Pick<Services, 'rpcProviders'>): string[] {
  return services.rpcProviders().flatMap(({ network, providers }) => {
    const down = providers.filter((provider) => provider.down);
    const lines = down.map(
      (provider) =>
        `RPC ${provider.provider} (${provider.host}) of network "${network}" is down${provider.lastError ? ` (${provider.lastError})` : ''}: skipped until ${provider.downUntil?.toISOString()}`,
    );
    if (down.length > 0 && down.length === providers.length)
      lines.push(`no RPC provider of network "${network}" answers: payments on it wait until one does`);
    return lines;
  });
}
