/* global window, Event */
// Browser wallets: EIP-6963 discovery (every announced wallet is offered), the injected `window.ethereum`
// as the fallback, and the gasless payment: connect, switch chain, sign the EIP-3009 authorization.
import { normalizeSignature, transferAuthorization } from './authorization.js';

const announced = [];

/** A wallet request that failed, with a sentence for people. */
export class WalletError extends Error {}

/** Listens for announcements (`onChange` runs on each new wallet), then asks wallets to announce. */
export function discoverWallets(onChange) {
  window.addEventListener('eip6963:announceProvider', (event) => {
    const detail = event.detail;
    if (typeof detail?.provider?.request !== 'function') return;
    if (
      announced.some(
        (wallet) => wallet.provider === detail.provider || (detail.info?.uuid && wallet.uuid === detail.info.uuid),
      )
    )
      return;
    announced.push({
      provider: detail.provider,
      uuid: detail.info?.uuid,
      name: String(detail.info?.name ?? 'Browser wallet'),
      icon: safeIcon(detail.info?.icon),
    });
    onChange();
  });
  window.dispatchEvent(new Event('eip6963:requestProvider'));
}

/** The announced wallets, else the injected one (older wallets do not announce). */
export function wallets() {
  if (announced.length > 0) return announced;
  const injected = window.ethereum;
  return typeof injected?.request === 'function' ? [{ provider: injected, name: 'Browser wallet' }] : [];
}

// EIP-6963 icons are data URIs; only images are shown (the CSP allows nothing else anyway).
const safeIcon = (icon) =>
  typeof icon === 'string' && /^data:image\/(png|svg\+xml|webp|jpeg|gif)[;,]/.test(icon) ? icon : undefined;

const MESSAGES = {
  4001: 'You declined the request in your wallet. Nothing was paid.',
  4100: 'Your wallet has not given this page access. Connect it, then try again.',
  4900: 'Your wallet is disconnected from the network.',
  [-32002]: 'Your wallet already has a request waiting: open it to continue.',
};

async function ask(provider, method, params) {
  try {
    return await provider.request(params === undefined ? { method } : { method, params });
  } catch (error) {
    const code = error?.code ?? error?.data?.originalError?.code;
    throw Object.assign(new WalletError(MESSAGES[code] ?? `Your wallet reported: ${error?.message ?? String(error)}`), {
      code,
    });
  }
}

const chainOf = async (provider) => Number.parseInt(await ask(provider, 'eth_chainId'), 16);

async function useChain(provider, network, onStep) {
  if ((await chainOf(provider)) === network.chainId) return;
  onStep(`Approve the switch to ${network.label ?? network.name} in your wallet…`);
  try {
    await ask(provider, 'wallet_switchEthereumChain', [{ chainId: `0x${network.chainId.toString(16)}` }]);
  } catch (error) {
    if (error.code === 4902)
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
export async function signPayment(wallet, network, fresh, onStep) {
  onStep('Approve the connection in your wallet…');
  const accounts = await ask(wallet.provider, 'eth_requestAccounts');
  const from = Array.isArray(accounts) ? accounts[0] : undefined;
  if (typeof from !== 'string') throw new WalletError('Your wallet shared no account. Unlock it and try again.');
  await useChain(wallet.provider, network, onStep);
  const { details, serverNow } = await fresh();
  if (details.status !== 'open' || !details.authorizationNonce)
    throw new WalletError('This invoice cannot take a payment now.');
  const { authorization, typedData } = transferAuthorization(details, network, from, serverNow);
  onStep('Sign the payment in your wallet. No gas fee: the payment service submits it.');
  const signature = await ask(wallet.provider, 'eth_signTypedData_v4', [from, JSON.stringify(typedData)]);
  return { network: network.name, authorization, signature: normalizeSignature(signature) };
}
