import { errorResponses } from '../../http/error-examples.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import { WorkspaceParams } from '../../http/common.schemas.js';
import { AppError } from '../../shared/errors.js';
import { isReceivedTransferId, type ReceivedTransferId, type ReceivedTransferStatus } from './received-transfer.js';
import { receivedTransferExamples } from './received-transfer.examples.js';
import { presentReceivedTransfer } from './received-transfer.present.js';
import {
  ApplyBody,
  DismissBody,
  ReceivedTransferListQuery,
  ReceivedTransferPage,
  ReceivedTransferParams,
  ReceivedTransferView,
} from './received-transfer.schemas.js';
import type { ReceivedTransferService } from './received-transfer.service.js';

/** What these routes call. */
export interface ReceivedTransferRouteDeps {
  readonly receivedTransfers: ReceivedTransferService;
}

const tags = ['Received transfers'];

/** GET, apply and dismiss received transfers: the API, and the portal's "Received" list. */
export function receivedTransferRoutes(services: ReceivedTransferRouteDeps): SharedRoute[] {
  const { receivedTransfers } = services;
  return [
    sharedRoute({
      method: 'GET',
      url: '/received-transfers',
      permission: 'payments:read',
      schema: {
        tags,
        summary: 'List received transfers',
        description:
          'USDC transfers to your wallet that paid no invoice by themselves, newest first: `?status=unmatched` lists those to resolve.',
        params: WorkspaceParams,
        querystring: ReceivedTransferListQuery,
        response: { 200: ReceivedTransferPage, ...errorResponses(['invalid_cursor']) },
      },
      errors: ['invalid_cursor'],
      examples: receivedTransferExamples.list,
      handler: async (request) => {
        const { status, cursor, limit } = request.query;
        const page = await receivedTransfers.list(request.principal!.workspaceId, {
          ...(status !== undefined && { status: status as ReceivedTransferStatus }),
          ...(cursor && { cursor: cursor as ReceivedTransferId }),
          limit,
        });
        return { receivedTransfers: page.transfers.map(presentReceivedTransfer), nextCursor: page.nextCursor };
      },
    }),
    sharedRoute({
      method: 'GET',
      url: '/received-transfers/:receivedTransferId',
      permission: 'payments:read',
      schema: {
        tags,
        summary: 'Read a received transfer',
        params: ReceivedTransferParams,
        response: { 200: ReceivedTransferView },
      },
      errors: ['not_found'],
      examples: receivedTransferExamples.get,
      handler: async (request) =>
        presentReceivedTransfer(
          await receivedTransfers.get(request.principal!.workspaceId, idOf(request.params.receivedTransferId)),
        ),
    }),
    sharedRoute({
      method: 'POST',
      url: '/received-transfers/:receivedTransferId/apply',
      permission: 'payments:write',
      schema: {
        tags,
        summary: 'Pay an invoice with a received transfer',
        description:
          'Pays the open invoice with this transfer, as if it had been paid by it: a payment intent, its events and the `payment_intent.succeeded` webhook. ' +
          'A transfer less than the amount needs `acceptShortfall: true` (422 `shortfall_not_accepted`); the payment records `amountReceived` and `shortfall`. ' +
          'More than the amount: the payment records the excess as `overpaid`. An applied or dismissed transfer: 409 `received_transfer_resolved`. ' +
          'Safe to send again when the answer was lost: a transfer that already paid this invoice is marked applied with that payment; one that paid another invoice answers 400 `invalid_payment`.',
        params: ReceivedTransferParams,
        body: ApplyBody,
        response: { 200: ReceivedTransferView },
      },
      errors: [
        'not_found',
        'invalid_request',
        'unknown_field',
        'invalid_json',
        'received_transfer_resolved',
        'shortfall_not_accepted',
        'pay_to_mismatch',
        'invalid_payment',
        'invoice_already_paid',
        'invoice_processing',
        'invoice_cancelled',
        'invoice_expired',
      ],
      examples: receivedTransferExamples.apply,
      handler: async (request) =>
        presentReceivedTransfer(
          await receivedTransfers.apply(request.principal!.workspaceId, idOf(request.params.receivedTransferId), {
            invoiceId: request.body.invoiceId,
            acceptShortfall: request.body.acceptShortfall === true,
          }),
        ),
    }),
    sharedRoute({
      method: 'POST',
      url: '/received-transfers/:receivedTransferId/dismiss',
      permission: 'payments:write',
      schema: {
        tags,
        summary: 'Dismiss a received transfer',
        description:
          'Puts the transfer aside (refunded, or not a payment): it leaves the unmatched list. An applied or dismissed transfer: 409 `received_transfer_resolved`.',
        params: ReceivedTransferParams,
        body: DismissBody,
        response: { 200: ReceivedTransferView },
      },
      errors: ['not_found', 'invalid_request', 'unknown_field', 'invalid_json', 'received_transfer_resolved'],
      examples: receivedTransferExamples.dismiss,
      handler: async (request) =>
        presentReceivedTransfer(
          await receivedTransfers.dismiss(
            request.principal!.workspaceId,
            idOf(request.params.receivedTransferId),
            request.body.note ?? null,
          ),
        ),
    }),
  ];
}

/** A malformed id names no received transfer: 404, as an unknown one. */
function idOf(raw: string): ReceivedTransferId {
  if (!isReceivedTransferId(raw)) throw new AppError('not_found', 'No such received transfer in this workspace.');
  return raw;
}
