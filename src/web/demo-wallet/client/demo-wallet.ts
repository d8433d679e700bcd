// The local demo's built-in wallet: two EIP-6963 providers (the demo merchant and the demo buyer)
// whose requests the server answers with demo keys. Served only when the service runs the local demo.
import type { Eip1193Provider } from '../../shared/client/eip1193.js';
import type { DemoRole } from '../demo-wallet.js';

type Listener = (...args: unknown[]) => void;

const ICON =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#6b46c1"/><text x="16" y="21" font-size="14" text-anchor="middle" fill="#fff" font-family="sans-serif">D</text></svg>',
  );

function demoProvider(role: DemoRole) {
  const listeners = new Map<string, Set<Listener>>();
  return {
    isDemoWallet: true,
    async request({ method, params = [] }: { method: string; params?: readonly unknown[] }): Promise<unknown> {
      const response = await fetch('/demo-wallet/rpc', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ role, method, params }),
      });
      const body = (await response.json()) as { result?: unknown; message?: string; rpcCode?: number };
      // 4001 (user rejected) only when the wallet says so; anything else is an internal error.
      if (!response.ok) throw Object.assign(new Error(body.message), { code: body.rpcCode ?? -32603 });
      return body.result;
    },
    on(event: string, listener: Listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)?.add(listener);
    },
    removeListener(event: string, listener: Listener) {
      listeners.get(event)?.delete(listener);
    },
  } satisfies Eip1193Provider & Record<string, unknown>;
}

const ACCOUNTS: readonly { role: DemoRole; name: string; uuid: string }[] = [
  { role: 'merchant', name: 'Demo wallet: merchant (local chain only)', uuid: '0d3e5f7a-1b2c-4d5e-8f90-000000000001' },
  { role: 'buyer', name: 'Demo wallet: buyer (local chain only)', uuid: '0d3e5f7a-1b2c-4d5e-8f90-000000000002' },
];

// A page may ask for some roles only, in its order of preference (`/demo-wallet.js?roles=buyer`): the
// checkout offers the buyer alone, since the merchant's wallet is the invoice's recipient.
const asked = new URL(import.meta.url).searchParams.get('roles')?.split(',');
const wallets = (asked ? asked.map((role) => ACCOUNTS.find((account) => account.role === role)) : ACCOUNTS)
  .filter((account) => account !== undefined)
  .map(({ role, name, uuid }) =>
    Object.freeze({
      info: Object.freeze({ uuid, name, icon: ICON, rdns: `local.demo.${role}` }),
      provider: demoProvider(role),
    }),
  );

function announce(): void {
  for (const detail of wallets) window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
}
window.addEventListener('eip6963:requestProvider', announce);
announce();
