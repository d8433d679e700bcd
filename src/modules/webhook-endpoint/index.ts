/** What other modules may use of webhook-endpoint; everything else is the module's own. */
// The destination rules, which every delivery attempt applies again (it may predate a rule).
export { ipLiteralOf, parseWebhookEndpoint, resolvedAddressesAllowed } from './destination.js';
export { systemResolve, type ResolvedAddress, type Resolver } from './dns-resolver.js';
// Read and locked inside the caller's transaction: retries and test sends are serialised on the endpoint row.
export { findEndpoint, lockEndpoint, takeTestSlot } from './webhook-endpoint.repo.js';
export { WebhookEndpointService } from './webhook-endpoint.service.js';
export { webhookEndpointModule } from './webhook-endpoint.module.js';
