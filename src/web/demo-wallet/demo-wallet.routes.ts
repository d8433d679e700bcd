import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/config.js';
import type { DemoWallet } from './demo-wallet.js';
import { AppError } from '../../shared/errors.js';
import { scriptAsset, sendAsset } from '../assets.js';
import { answerDemoRequest, type DemoRole } from './demo-wallet.js';

/** What these routes call. */
export interface DemoWalletRouteDeps {
  readonly config: Pick<Config, 'publicBaseUrl'>;
  readonly demoWallet?: DemoWallet;
}

// By path (not `new URL(file, import.meta.url)`, which bundlers and Vitest treat as a module import).
export const DEMO_WALLET_ENTRY = path.join(fileURLToPath(new URL('./client/', import.meta.url)), 'demo-wallet.ts');

const RpcBody = Type.Object(
  {
    role: Type.Unsafe<DemoRole>({ type: 'string', enum: ['merchant', 'buyer'] }),
    method: Type.String({ maxLength: 64 }),
    params: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 4 })),
  },
  { additionalProperties: false },
);

/** The script tag pages add so the demo wallet shows in their wallet pickers; empty outside the demo. */
export function demoWalletScriptTag(services: DemoWalletRouteDeps): string {
  return services.demoWallet ? '<script type="module" src="/demo-wallet.js"></script>' : '';
}

/**
 * The built-in demo wallet: registered only when the service runs the local demo chain. Its signing
 * endpoint answers same-origin requests only, so no other site can make it sign.
 */
export async function registerDemoWallet(app: FastifyInstance, services: DemoWalletRouteDeps): Promise<void> {
  const wallet = services.demoWallet;
  if (!wallet) return;
  const origin = services.config.publicBaseUrl.origin;
  const script = await scriptAsset(DEMO_WALLET_ENTRY);
  app.get('/demo-wallet.js', { schema: { hide: true } }, async (request, reply) => sendAsset(request, reply, script));
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
