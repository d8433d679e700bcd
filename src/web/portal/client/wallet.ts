// Browser wallets through EIP-1193 (`provider.request`), found by EIP-6963 discovery with the injected
// `window.ethereum` as the fallback, and on top the Sign-In with Ethereum flow and the gasless payment
// of a credit purchase (an EIP-3009 authorization the service settles).
import { VALIDITY_SECONDS, normalizeSignature, transferAuthorization } from '../../shared/client/authorization.js';
import type { TransferAuthorization } from '../../shared/client/authorization.js';
import {
  COMMON_WALLET_MESSAGES,
  type Eip1193Provider,
  type Eip6963Info,
  WalletError,
  announcement,
  askWallet,
  isProvider,
  safeIcon,
} from '../../shared/client/eip1193.js';
import { api, serverNow } from './api.js';
import type { CreditPurchase, Nonce, Session } from './api-types.js';
import { createSiweMessage, utf8ToHex } from './siwe.js';

const STATEMENT = 'Sign in to the Invoice Service portal.';
const announced: { provider: Eip1193Provider; info: Eip6963Info }[] = [];
const listeners = new Set<() => void>();

/** A wallet found in this browser. */
export interface Wallet {
  readonly id: string;
  readonly provider: Eip1193Provider;
  readonly name: string | undefined;
  readonly icon: string | undefined;
  /** The wallet's reverse-DNS id from its EIP-6963 announcement (`local.demo.buyer`), when it gave one. */
  readonly rdns: string | undefined;
}

/** A network a credit purchase can be paid on, as its payment details list it. */
export type PurchaseNetwork = CreditPurchase['payment']['networks'][number];

/** The body of POST …/credit-purchases/<id>/authorizations. The signature is as the wallet gave it. */
export interface PurchasePayment {
  readonly network: string;
  readonly authorization: TransferAuthorization;
  readonly signature: unknown;
}

/** Starts listening for EIP-6963 announcements and asks wallets to announce themselves. Call once. */
export function startWalletDiscovery(): void {
  window.addEventListener('eip6963:announceProvider', (event) => {
    const found = announcement(event.detail);
    if (!found) return;
    const uuid = found.info.uuid;
    if (uuid && announced.some((w) => w.info.uuid === uuid)) return;
    announced.push(found);
    listeners.forEach((listener) => listener());
  });
  // Some wallets inject window.ethereum late and say so with this event.
  window.addEventListener('ethereum#initialized', () => listeners.forEach((listener) => listener()), { once: true });
  window.dispatchEvent(new Event('eip6963:requestProvider'));
}

/** `listener` runs whenever another wallet shows up. */
export function onWalletsChanged(listener: () => void): void {
  listeners.add(listener);
}

/**
 * Every wallet found: the ones announced through EIP-6963 in the order they announced, or else the
 * injected `window.ethereum`, the only one older wallets offer.
 */
export function listWallets(): Wallet[] {
  if (announced.length > 0) {
    return announced.map(({ provider, info }, i) => ({
      id: info.uuid === undefined || info.uuid === null ? `wallet-${i}` : String(info.uuid),
      provider,
      name: info.name === undefined || info.name === null ? undefined : String(info.name),
      icon: safeIcon(info.icon),
      rdns: typeof info.rdns === 'string' ? info.rdns : undefined,
    }));
  }
  const injected = window.ethereum;
  if (isProvider(injected))
    return [{ id: 'injected', provider: injected, name: undefined, icon: undefined, rdns: undefined }];
  return [];
}

const WALLET_MESSAGES = {
  ...COMMON_WALLET_MESSAGES,
  4001: 'You declined the request in your wallet.',
  4100: 'Your wallet has not given this site access. Connect it, then try again.',
};

const ask = (provider: Eip1193Provider, method: string, params?: readonly unknown[]) =>
  askWallet(provider, WALLET_MESSAGES, method, params);

const readChainId = async (provider: Eip1193Provider): Promise<number> =>
  Number.parseInt(String(await ask(provider, 'eth_chainId')), 16);

/** The wallet's chain when the service accepts it; otherwise asks the wallet to switch to the first accepted one. */
async function acceptedChain(
  provider: Eip1193Provider,
  chainIds: readonly number[],
  onStep: (text: string) => void,
): Promise<number> {
  const current = await readChainId(provider);
  if (chainIds.includes(current)) return current;
  const target = chainIds[0] ?? current;
  onStep(`Your wallet is on chain ${current}; approve the switch to chain ${target} in your wallet…`);
  try {
    await ask(provider, 'wallet_switchEthereumChain', [{ chainId: `0x${target.toString(16)}` }]);
  } catch (error) {
    if (error instanceof WalletError && error.code === 4902)
      throw new WalletError(
        `Your wallet does not know chain ${target}. Add that network to your wallet, then sign in again.`,
        4902,
      );
    if (error instanceof WalletError && error.code === 4001)
      throw new WalletError(
        `Signing in needs your wallet on chain ${chainIds.join(' or ')}; the switch was declined.`,
        4001,
      );
    throw error;
  }
  const switched = await readChainId(provider);
  if (!chainIds.includes(switched))
    throw new WalletError(`Your wallet is still on chain ${switched}. Switch it to chain ${target} and try again.`);
  return switched;
}

/**
 * Connects, makes sure the chain is accepted, has the wallet sign an EIP-4361 message with a fresh
 * nonce and exchanges it for a session cookie. `onStep(text)` narrates what the person should do next.
 */
export async function signInWithWallet(
  wallet: Wallet,
  chainIds: readonly number[],
  onStep: (text: string) => void,
): Promise<Session> {
  const { provider } = wallet;
  onStep('Approve the connection in your wallet…');
  const accounts = await ask(provider, 'eth_requestAccounts');
  const address: unknown = Array.isArray(accounts) ? accounts[0] : undefined;
  if (typeof address !== 'string') throw new WalletError('Your wallet shared no account. Unlock it and try again.');
  const chainId = await acceptedChain(provider, chainIds, onStep);
  const { nonce } = await api.get<Nonce>('/auth/nonce');
  const message = createSiweMessage({
    domain: window.location.host,
    address,
    statement: STATEMENT,
    uri: `${window.location.origin}/portal`,
    version: '1',
    chainId,
    nonce,
    issuedAt: new Date(),
  });
  onStep('Sign the message in your wallet (no transaction, no fee)…');
  const signature = await ask(provider, 'personal_sign', [utf8ToHex(message), address]);
  onStep('Checking the signature…');
  return api.post<Session>('/auth/verify', { message, signature });
}

/** Makes the wallet use `network`'s chain, asking it to switch when it is on another. */
async function useChain(
  provider: Eip1193Provider,
  network: PurchaseNetwork,
  onStep: (text: string) => void,
): Promise<void> {
  if ((await readChainId(provider)) === network.chainId) return;
  onStep(`Approve the switch to ${network.name} in your wallet…`);
  try {
    await ask(provider, 'wallet_switchEthereumChain', [{ chainId: `0x${network.chainId.toString(16)}` }]);
  } catch (error) {
    if (error instanceof WalletError && error.code === 4902)
      throw new WalletError(
        `Your wallet does not know ${network.name} (chain ${network.chainId}). Add it to your wallet, or pay another way.`,
        4902,
      );
    throw error;
  }
  if ((await readChainId(provider)) !== network.chainId)
    throw new WalletError(
      `Your wallet is not on ${network.name}. Switch it to chain ${network.chainId} and try again.`,
    );
}

/**
 * Has `wallet` sign the EIP-3009 authorization that pays a credit purchase on `network`, and resolves
 * the body of POST …/credit-purchases/<id>/authorizations. `fresh()` reads the purchase again once the
 * wallet is ready, so the status and nonce are those of the moment of signing.
 */
export async function signPurchasePayment(
  wallet: Wallet,
  network: PurchaseNetwork,
  fresh: () => Promise<CreditPurchase>,
  onStep: (text: string | undefined) => void,
): Promise<PurchasePayment> {
  const { provider } = wallet;
  onStep('Approve the connection in your wallet…');
  const accounts = await ask(provider, 'eth_requestAccounts');
  const from: unknown = Array.isArray(accounts) ? accounts[0] : undefined;
  if (typeof from !== 'string') throw new WalletError('Your wallet shared no account. Unlock it and try again.');
  await useChain(provider, network, onStep);
  const purchase = await fresh();
  const nonce = purchase.payment.authorizationNonce;
  if (purchase.status !== 'open' || !nonce)
    throw new WalletError(`This purchase cannot take a payment now: it is ${purchase.status}.`);
  // Valid for VALIDITY_SECONDS, but never past the purchase's deadline: after it the signature could
  // still move the money on-chain although the purchase takes no payment any more.
  const countFrom = Math.min(serverNow(), Date.parse(purchase.expiresAt) - VALIDITY_SECONDS * 1000);
  const { authorization, typedData } = transferAuthorization(
    { recipient: purchase.recipient, amount: purchase.price, authorizationNonce: nonce },
    network,
    from,
    countFrom,
  );
  onStep('Sign the payment in your wallet. No gas fee: the service submits it.');
  const signature = await ask(provider, 'eth_signTypedData_v4', [from, JSON.stringify(typedData)]);
  return { network: network.name, authorization, signature: normalizeSignature(signature) };
}
