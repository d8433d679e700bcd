import { createWalletClient, http, numberToHex, type Hex, type LocalAccount } from 'viem';
import { AppError } from '../../shared/errors.js';

/** The accounts the local demo offers in the browser: worthless keys on a local chain, never real funds. */
export interface DemoWallet {
  readonly chainId: number;
  readonly rpcUrl: string;
  /** The wallet that owns the demo workspace: signs in to the portal. */
  readonly merchant: LocalAccount;
  /** Holds the demo's test USDC: pays on the checkout page. */
  readonly buyer: LocalAccount;
}

export type DemoRole = 'merchant' | 'buyer';

/**
 * Answers the EIP-1193 requests a page sends to the demo wallet, signing with the role's account. It
 * approves everything, as a real wallet would after asking its user: so it exists only in the local
 * demo, where the keys guard test tokens on a chain on this machine.
 */
export async function answerDemoRequest(wallet: DemoWallet, role: DemoRole, method: string, params: readonly unknown[]): Promise<unknown> {
  const account = wallet[role];
  switch (method) {
    case 'eth_requestAccounts':
    case 'eth_accounts':
      return [account.address];
    case 'eth_chainId':
      return numberToHex(wallet.chainId);
    case 'wallet_switchEthereumChain': {
      const wanted = Number((params[0] as { chainId?: string } | undefined)?.chainId);
      if (wanted !== wallet.chainId) throw rpcError(4902, `The demo wallet knows only the local chain ${wallet.chainId}.`);
      return null;
    }
    case 'personal_sign':
      return account.signMessage({ message: { raw: params[0] as Hex } });
    case 'eth_signTypedData_v4': {
      const typed = JSON.parse(String(params[1])) as { types: Record<string, unknown> } & Record<string, unknown>;
      const { EIP712Domain: _domain, ...types } = typed.types;
      return account.signTypedData({ ...typed, types } as Parameters<LocalAccount['signTypedData']>[0]);
    }
    case 'eth_sendTransaction': {
      const tx = params[0] as { to: Hex; data?: Hex; value?: Hex };
      const client = createWalletClient({ account, transport: http(wallet.rpcUrl) });
      return client.sendTransaction({ chain: null, to: tx.to, data: tx.data, value: tx.value === undefined ? undefined : BigInt(tx.value) });
    }
    default:
      throw rpcError(4200, `The demo wallet does not support ${method}.`);
  }
}

function rpcError(rpcCode: number, message: string): AppError {
  return new AppError('invalid_request', message, { fields: { rpcCode } });
}
