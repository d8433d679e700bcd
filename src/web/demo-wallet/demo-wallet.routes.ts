import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../http/services.js';
import { AppError } from '../../shared/errors.js';
import { answerDemoRequest, type DemoRole } from './demo-wallet.js';

// Read by path (not `new URL(file, import.meta.url)`, which bundlers and Vitest treat as a module import).
const SCRIPT = readFileSync(path.join(fileURLToPath(new URL('./client/', import.meta.url)), 'demo-wallet.js'));

const RpcBody = Type.Object(
  {
    role: Type.Unsafe<DemoRole>({ type: 'string', enum: ['merchant', 'buyer'] }),
    method: Type.String({ maxLength: 64 }),
    params: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 4 })),
  },
  { additionalProperties: false },
);

/** The script tag pages add so the demo wallet shows in their wallet pickers; empty outside the demo. */
export function demoWalletScriptTag(services: Services): string {
  return services.demoWallet ? '<script type="module" src="/demo-wallet.js"></script>' : '';
}

/**
 * The built-in demo wallet: registered only when the service runs the local demo chain. Its signing
 * endpoint answers same-origin requests only, so no other site can make it sign.
 */
export function registerDemoWallet(app: FastifyInstance, services: Services): void {
  const wallet = services.demoWallet;
  if (!wallet) return;
  const origin = services.config.publicBaseUrl.origin;
  app.get('/demo-wallet.js', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('Cache-Control', 'no-cache')
      .header('X-Content-Type-Options', 'nosniff')
      .type('text/javascript; charset=utf-8')
      .send(SCRIPT),
  );
  app.post<{ Body: { role: DemoRole; method: string; params?: unknown[] } }>(
    '/demo-wallet/rpc',
    { schema: { hide: true, body: RpcBody } },
    async (request) => {
      if (request.headers.origin !== origin)
        throw new AppError('origin_mismatch', `The demo wallet signs only for pages of ${origin}.`);
      return {
        result: await answerDemoRequest(wallet, request.body.role, request.body.method, request.body.params ?? []),
      };
    },
  );
}
