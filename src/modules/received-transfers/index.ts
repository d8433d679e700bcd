/** What other modules may use of received-transfers; everything else is the module's own. */
export type { ReceivedTransferService } from './received-transfer.service.js';
export { RECEIVED_TRANSFER_STATUSES } from './received-transfer.js';
export { ReceivedTransferPage, ReceivedTransferView } from './received-transfer.schemas.js';
export { receivedTransfersModule, SCAN_TRANSFERS_JOB } from './received-transfers.module.js';
