import { createServer } from 'node:http';
import type { FacilitatorClient } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import express from 'express';
import type { Scenario } from '../scenario.js';

/** Base Sepolia, where the bench's invoices are payable too. */
const NETWORK = 'eip155:84532';
const PAY_TO = `0x${'be'.repeat(20)}`;
/** The shape of an invoice's x402 url; the reference protects this one path. */
export const REFERENCE_PATH = '/w/ws_reference/x402/inv_reference';
/** The price of the invoices our 402 row answers for (0.01 USDC). */
export const REFERENCE_PRICE = '$0.01';

/**
 * What the reference asks a facilitator at start: which schemes it can verify and settle. A 402 without
 * a payment header never reaches the facilitator, so this answers in process instead of over HTTP.
 */
const facilitator: FacilitatorClient = {
  getSupported: () =>
    Promise.resolve({ kinds: [{ x402Version: 2, scheme: 'exact', network: NETWORK }], extensions: [], signers: {} }),
  verify: () => Promise.reject(new Error('the 402 row sends no payment')),
  settle: () => Promise.reject(new Error('the 402 row sends no payment')),
};

/**
 * The x402 reference resource server answering its own 402: `@x402/express`'s `paymentMiddleware` in front
 * of one paid route, as its README sets it up, with the same price and path shape as an invoice's `url`.
 */
export const x402ExpressReference: Scenario = {
  name: 'reference: @x402/express 402',
  measures: "x402's reference resource server (Express 5, paymentMiddleware, one paid route): its own 402",
  async prepare() {
    const resourceServer = new x402ResourceServer(facilitator).register(NETWORK, new ExactEvmScheme());
    const app = express();
    app.use(
      paymentMiddleware(
        {
          [`GET ${REFERENCE_PATH}`]: {
            accepts: { scheme: 'exact', price: REFERENCE_PRICE, network: NETWORK, payTo: PAY_TO },
            description: 'Invoice',
          },
        },
        resourceServer,
      ),
    );
    app.get(REFERENCE_PATH, (_request, response) => {
      response.json({ paid: true });
    });
    const server = createServer(app);
    return {
      app: server,
      request: { method: 'GET', path: REFERENCE_PATH, headers: {}, expectedStatus: 402 },
      stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  },
};
