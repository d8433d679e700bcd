import type { OperationExamples } from '../../http/openapi-examples.js';
import { EXAMPLE_IDS } from '../../shared/example-ids.js';

export const PURCHASE_ID_EXAMPLE = 'cp_01jd6r2m8k4x7t1v9c3n5b0q6z';
const ORIGIN = 'https://pay.example.com';

/** An open credit purchase, as GET /credit-purchases/{id} shows it. */
export const CREDIT_PURCHASE_EXAMPLE = {
  id: PURCHASE_ID_EXAMPLE,
  packageId: 'starter',
  credits: 100,
  price: '10.000000',
  currency: 'USDC',
  status: 'open',
  recipient: '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
  network: null,
  expiresAt: '2026-11-14T10:30:00.000Z',
  createdAt: '2026-11-14T09:30:00.000Z',
  paidAt: null,
  url: `${ORIGIN}/w/${EXAMPLE_IDS.workspace}/x402/credit-purchases/${PURCHASE_ID_EXAMPLE}`,
  payment: {
    authorizationNonce: '0x6f1c0a2d3b4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8',
    networks: [
      {
        name: 'base-sepolia',
        chainId: 84532,
        token: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
        tokenName: 'USDC',
        tokenVersion: '2',
        confirmations: 2,
        paymentUri:
          'ethereum:0x036CbD53842c5426634e7929541eC2318f3dCF7e@84532/transfer?address=0x8617E340B3D01FA5F11F306F4090FD50E238070D&uint256=10000000',
      },
    ],
  },
  lastPayment: null,
} as const;

export const creditPurchaseExamples = {
  create: { request: { packageId: 'starter' }, response: CREDIT_PURCHASE_EXAMPLE },
  list: { response: { purchases: [CREDIT_PURCHASE_EXAMPLE], nextCursor: null } },
  get: { response: CREDIT_PURCHASE_EXAMPLE },
} satisfies Record<string, OperationExamples>;
