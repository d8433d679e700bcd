import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createWalletClient, http, numberToHex, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';
/** Screenshots for reviewers; ignored by git. */
export const RESULTS_DIR = fileURLToPath(new URL('../../test-results/', import.meta.url));

/**
 * Debian's chromium, headless, with everything that would reach the internet off. Playwright gives
 * each launch a fresh temporary profile. Closed after the file's tests.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `browser tests need Debian's chromium at ${CHROMIUM}: apt-get install -y chromium (npm test does it as root)`,
    );
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  afterAll(() => browser.close());
  return browser;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS_DIR, `${name}.png`), fullPage: true });
}

export interface TestWallet {
  readonly account: PrivateKeyAccount;
  /** The JSON-RPC methods the page called, in order. */
  readonly calls: string[];
}

interface RpcRequest {
  method: string;
  params?: unknown[];
}

/**
 * Injects an EIP-1193 provider into every page of `context`, announced with EIP-6963 (and as
 * window.ethereum), backed by a viem local account: signing happens in the test process, and
 * transactions go to `rpcUrl` (the test anvil). A real wallet would ask the user; this one approves.
 */
export async function injectTestWallet(
  context: BrowserContext,
  account: PrivateKeyAccount,
  rpcUrl: string,
  chainId: number,
): Promise<TestWallet> {
  const calls: string[] = [];
  let currentChain = chainId;
  const client = createWalletClient({ account, transport: http(rpcUrl) });
  await context.exposeFunction('__testWalletRequest', async ({ method, params = [] }: RpcRequest): Promise<unknown> => {
    calls.push(method);
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return [account.address];
      case 'eth_chainId':
        return numberToHex(currentChain);
      case 'wallet_switchEthereumChain':
        currentChain = Number((params[0] as { chainId: Hex }).chainId);
        return null;
      case 'personal_sign':
        return account.signMessage({ message: { raw: params[0] as Hex } });
      case 'eth_signTypedData_v4': {
        const typed = JSON.parse(params[1] as string) as Parameters<PrivateKeyAccount['signTypedData']>[0];
        const { EIP712Domain: _domain, ...types } = typed.types as Record<string, unknown>;
        return account.signTypedData({ ...typed, types } as Parameters<PrivateKeyAccount['signTypedData']>[0]);
      }
      case 'eth_sendTransaction': {
        const tx = params[0] as { to: Hex; data?: Hex; value?: Hex };
        return client.sendTransaction({
          chain: null,
          to: tx.to,
          data: tx.data,
          value: tx.value ? BigInt(tx.value) : undefined,
        });
      }
      default:
        return client.request({ method, params } as never);
    }
  });
  await context.addInitScript({ content: PROVIDER_SCRIPT });
  return { account, calls };
}

/** Runs in the page before its own scripts: the provider forwards every request to the test process. */
const PROVIDER_SCRIPT = `(() => {
  const listeners = new Map();
  const provider = {
    isTestWallet: true,
    async request(request) {
      const result = await window.__testWalletRequest(request);
      if (request.method === 'wallet_switchEthereumChain') {
        for (const listener of listeners.get('chainChanged') ?? []) listener(request.params[0].chainId);
      }
      return result;
    },
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event).add(listener);
    },
    removeListener(event, listener) {
      listeners.get(event)?.delete(listener);
    },
  };
  const info = { uuid: '6f1c6c9e-0000-4000-8000-000000000001', name: 'Test Wallet', icon: 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E', rdns: 'test.wallet' };
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
  window.addEventListener('eip6963:requestProvider', announce);
  announce();
  window.ethereum = provider;
})();`;
