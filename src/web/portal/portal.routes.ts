import type { FastifyInstance, FastifyReply } from 'fastify';
import { LOCAL_CHAIN_ID, networkNames, signInChainIds, type Config } from '../../config/config.js';
import type { DemoWallet } from '../demo-wallet/demo-wallet.js';
import { SESSION_COOKIE } from '../../http/portal-guards.js';
import { registerPortalAssets } from './portal.assets.js';
import { renderPortalHome, type SignInNetwork } from './portal.page.js';

/** What these routes call. */
export interface PortalPageDeps {
  readonly config: Config;
  readonly demoWallet?: DemoWallet;
}

/**
 * Same-origin scripts, styles and fetches only; no inline code, no framing. `img-src data:` admits the
 * wallet icons that EIP-6963 announces as data URIs.
 */
export const PORTAL_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const hide = { hide: true } as const;

/**
 * The web portal's pages and their static assets, outside the OpenAPI document. Pages only render the
 * shell; the browser script talks to the JSON API (/auth, /portal/api), which owns every check.
 */
export async function registerPortalPages(app: FastifyInstance, services: PortalPageDeps): Promise<void> {
  const networks = signInNetworks(services.config);
  // The page depends on configuration and on whether a session cookie came, so it is rendered twice, once.
  const home = (sessionCookie: boolean) =>
    renderPortalHome({
      config: {
        origin: services.config.publicBaseUrl.origin,
        chainIds: networks.map((n) => n.chainId),
        webhookRetrySchedule: services.config.webhookRetrySchedule,
        sessionCookie,
      },
      networks,
      paymentNetworks: networkNames(services.config),
      demoWallet: services.demoWallet !== undefined,
      localReceivers: services.config.webhookAllowPrivate,
    });
  const pages = { withCookie: home(true), withoutCookie: home(false) };

  app.get('/portal', { schema: hide }, async (request, reply) => {
    pageHeaders(reply);
    reply.header('Vary', 'Cookie');
    const page = request.cookies[SESSION_COOKIE] ? pages.withCookie : pages.withoutCookie;
    return reply.type('text/html; charset=utf-8').send(page);
  });
  app.get('/portal/', { schema: hide }, async (_request, reply) => reply.redirect('/portal', 301));

  await registerPortalAssets(app);
}

function pageHeaders(reply: FastifyReply): void {
  reply.header('Content-Security-Policy', PORTAL_CSP);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Frame-Options', 'DENY');
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('Cache-Control', 'no-cache');
}

/** The accepted sign-in chains with names for people; ids and order come from `signInChainIds`. */
function signInNetworks(config: Config): SignInNetwork[] {
  return signInChainIds(config).map((chainId) => ({
    chainId,
    name:
      config.networks?.find((n) => n.chainId === chainId)?.name ??
      (chainId === LOCAL_CHAIN_ID ? 'local demo chain' : `chain ${chainId}`),
  }));
}
