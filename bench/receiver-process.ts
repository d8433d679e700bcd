import { serveReceiverProcess } from './webhook-receiver.js';

/** Entry of the webhook receiver's own process (startReceiverProcess in bench/webhook-receiver.ts). */
await serveReceiverProcess();
