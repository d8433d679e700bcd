/** What other modules may use of payment finality: the module, which src/main wires. */
export { FINALITY_JOB, paymentFinalityModule } from './payment-finality.module.js';
export { judgeFinality } from './payment-finality.js';
export { CanonicalChain, type ReadHeader } from './canonical-chain.js';
