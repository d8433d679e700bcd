import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { schemaCompiler } from '../../src/http/validation.js';
import { CreateInvoiceBody, InvoiceView } from '../../src/modules/invoices/invoice.schemas.js';
import type { Scenario } from '../scenario.js';

const ANSWER = {
  id: 'inv_00000000000000000000000000',
  number: 'INV-000001',
  status: 'open' as const,
  amount: '1.000000',
  currency: 'USDC' as const,
  network: null,
  expiresIn: 3600,
  expiresAt: new Date(0).toISOString(),
  linkVersion: 1,
  externalId: null,
  description: null,
  successUrl: null,
  cancelUrl: null,
  payTo: '0x0000000000000000000000000000000000000000',
  url: 'http://127.0.0.1/w/ws/x402/inv',
  checkoutUrl: 'http://127.0.0.1/w/ws/i/inv',
  createdAt: new Date(0).toISOString(),
  updatedAt: new Date(0).toISOString(),
  paidAt: null,
  expiredAt: null,
  cancelledAt: null,
  automationId: null,
  occurrence: null,
  archived: false,
};

/**
 * The ceiling of POST /invoices: bare Fastify receiving the same body through the same JSON-schema
 * validation (our compiler, our schema) and answering the same 201 shape through the same response
 * schema — everything but authentication and the database.
 */
export const helloPostCeiling: Scenario = {
  name: 'ceiling: Fastify hello-world POST',
  measures: 'bare Fastify POST with the invoice body schema and response schema, no hooks, no database',
  async prepare() {
    const app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>();
    app.setValidatorCompiler(schemaCompiler);
    app.post(
      '/invoices',
      { schema: { body: CreateInvoiceBody, response: { 201: InvoiceView } } },
      async (_request, reply) => reply.code(201).send(ANSWER),
    );
    return {
      app,
      request: {
        method: 'POST',
        path: '/invoices',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'bench-[<id>]' },
        body: JSON.stringify({ amount: '1.00' }),
        uniqueIds: true,
      },
      stop: () => app.close(),
    };
  },
};
