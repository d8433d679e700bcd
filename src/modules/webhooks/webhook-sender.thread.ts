import { parentPort, workerData } from 'node:worker_threads';
import { postWebhook } from './webhook-http.js';
import type { SenderMessage, SenderReply, SenderThreadData } from './webhook-sender.js';

/**
 * The sending thread (SenderThread): POSTs what it is handed with postWebhook and answers each outcome.
 *
 * Starting a POST costs about 0.15 ms of CPU, so a claim's worth (64 jobs) started in one go would keep
 * this loop from the answers of earlier POSTs for 10 ms: it starts them a few at a time, answers in
 * between. Outcomes go back together, once per turn of the loop.
 */
const STARTS_PER_TURN = 16;

const port = parentPort;
if (!port) throw new Error('webhook-sender.thread runs as a worker thread');
const { allowPrivate } = workerData as SenderThreadData;
const controllers = new Map<number, AbortController>();
const toStart: Extract<SenderMessage, { type: 'send' }>[] = [];
let replies: SenderReply[] = [];

port.on('message', (messages: SenderMessage[]) => {
  const idle = toStart.length === 0;
  for (const message of messages) {
    if (message.type === 'send') toStart.push(message);
    else abort(message.id);
  }
  if (idle) startSome();
});

function startSome(): void {
  const now = toStart.splice(0, STARTS_PER_TURN);
  for (const { id, request } of now) {
    const controller = new AbortController();
    controllers.set(id, controller);
    void postWebhook(request, { allowPrivate, signal: controller.signal }).then((outcome) => {
      controllers.delete(id);
      if (replies.push({ id, outcome }) === 1) setImmediate(answer);
    });
  }
  if (toStart.length > 0) setImmediate(startSome);
}

/** Aborts a POST in flight; one not started yet ends at once, as aborted. */
function abort(id: number): void {
  const controller = controllers.get(id);
  if (controller) return controller.abort(new Error('the delivery attempt was stopped'));
  const waiting = toStart.findIndex((message) => message.id === id);
  if (waiting < 0) return;
  toStart.splice(waiting, 1);
  if (replies.push({ id, outcome: { ok: false, error: 'timeout', durationMs: 0 } }) === 1) setImmediate(answer);
}

function answer(): void {
  const batch = replies;
  replies = [];
  port!.postMessage(batch);
}
