/** What other modules may use of the service-process registry; everything else is the module's own. */
export { FORGET_SECONDS, HEARTBEAT_MS, LIVE_SECONDS, type HttpProcessCount } from './service-process.js';
export { ProcessRegistry } from './service-process.service.js';
