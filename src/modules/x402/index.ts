/** What other modules may use of x402, the protocol agents pay an order's `url` by; everything else is the module's own. */
export { registerX402 } from './x402.routes.js';
export { x402Operations } from './x402.openapi.js';
