// Browser wallets: EIP-6963 discovery (every announced wallet is offered), the injected `window.ethereum`
// as the fallback, and the gasless payment: connect, switch chain, sign the EIP-3009 authorization.
import type { Static } from '@sinclair/typebox';
import type { AuthorizationBody } from '../../../modules/checkout/index.js';
import type { CheckoutDetails } from '../checkout.page.js';
import { normalizeSignature, transferAuthorization } from '../../shared/client/authorization.js';
import {
  COMMON_WALLET_MESSAGES,
  type Eip1193Provider,
  WalletError,
  announcement,
  askWallet,
  isProvider,
  safeIcon,
} from '../../shared/client/eip1193.js';

/** A wallet the buyer can pay with. */
export interface Wallet {
  readonly provider: Eip1193Provider;
  readonly uuid?: unknown;
  readonly name: string;
  readonly icon?: string | undefined;
}

/** A network of the payment details, with the name people read (`Base Sepolia`). */
export type PayNetwork = CheckoutDetails['networks'][number] & { readonly label?: string };

/** The body of POST …/authorizations. The signature is as the wallet gave it: the service judges it. */
export type AuthorizationPayment = Omit<Static<typeof AuthorizationBody>, 'signature'> & { signature: unknown };

const announced: Wallet[] = [];

/** Listens for announcements (`onChange` runs on each new wallet), then asks wallets to announce. */
export function discoverWallets(onChange: () => void): void {
  window.addEventListener('eip6963:announceProvider', (event) => {
    const found = announcement(event.detail);
    if (!found) return;
    const { provider, info } = found;
    if (announced.some((wallet) => wallet.provider === provider || (info.uuid && wallet.uuid === info.uuid))) return;
    announced.push({
      provider,
      uuid: info.uuid,
      name: String(info.name ?? 'Browser wallet'),
      icon: safeIcon(info.icon),
    });
    onChange();
  });
  window.dispatchEvent(new Event('eip6963:requestProvider'));
}

/** The announced wallets, else the injected one (older wallets do not announce). */
export function wallets(): readonly Wallet[] {
  if (announced.length > 0) return announced;
  const injected = window.ethereum;
  return isProvider(injected) ? [{ provider: injected, name: 'Browser wallet' }] : [];
}

const MESSAGES = {
  ...COMMON_WALLET_MESSAGES,
  4001: 'You declined the request in your wallet. Nothing was paid.',
  4100: 'Your wallet has not given this page access. Connect it, then try again.',
};

const ask = (provider: Eip1193Provider, method: string, params?: readonly unknown[]) =>
  askWallet(provider, MESSAGES, method, params);

const chainOf = async (provider: Eip1193Provider) => Number.parseInt(String(await ask(provider, 'eth_chainId')), 16);

async function useChain(provider: Eip1193Provider, network: PayNetwork, onStep: (text: string) => void): Promise<void> {
  if ((await chainOf(provider)) === network.chainId) return;
  onStep(`Approve the switch to ${network.label ?? network.name} in your wallet…`);
  try {
    await ask(provider, 'wallet_switchEthereumChain', [{ chainId: `0x${network.chainId.toString(16)}` }]);
  } catch (error) {
    if (error instanceof WalletError && error.code === 4902)
      throw new WalletError(
        `Your wallet does not know ${network.label ?? network.name} (chain ${network.chainId}). Add it to your wallet, or pay from any wallet below.`,
      );
    throw error;
  }
  if ((await chainOf(provider)) !== network.chainId)
    throw new WalletError(
      `Your wallet is not on ${network.label ?? network.name}. Switch it to chain ${network.chainId} and try again.`,
    );
}

/**
 * Has `wallet` sign the authorization for the current details and returns the POST body. The caller
 * passes a getter so the details are fresh (status, nonce, server time) at the moment of signing.
 */
export async function signPayment(
  wallet: Wallet,
  network: PayNetwork,
  fresh: () => Promise<{ details: CheckoutDetails; serverNow: number }>,
  onStep: (text: string) => void,
): Promise<AuthorizationPayment> {
  onStep('Approve the connection in your wallet…');
  const accounts = await ask(wallet.provider, 'eth_requestAccounts');
  const from: unknown = Array.isArray(accounts) ? accounts[0] : undefined;
  if (typeof from !== 'string') throw new WalletError('Your wallet shared no account. Unlock it and try again.');
  await useChain(wallet.provider, network, onStep);
  const { details, serverNow } = await fresh();
  if (details.status !== 'open' || !details.authorizationNonce || !details.recipient)
    throw new WalletError('This invoice cannot take a payment now.');
  // Not signed for nothing: the service would refuse it (the page then offers the plain transfer instead).
  if (details.networks.find((each) => each.name === network.name)?.gasless === false)
    throw new WalletError('Paying without a gas fee is unavailable right now. Send the amount from any wallet below.');
  const { authorization, typedData } = transferAuthorization(
    { ...details, recipient: details.recipient, authorizationNonce: details.authorizationNonce },
    network,
    from,
    serverNow,
  );
  onStep('Sign the payment in your wallet. No gas fee: the payment service submits it.');
  const signature = await ask(wallet.provider, 'eth_signTypedData_v4', [from, JSON.stringify(typedData)]);
  return { network: network.name, authorization, signature: normalizeSignature(signature) };
}
