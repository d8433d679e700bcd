import ipaddr from 'ipaddr.js';
import { numberToHex, type Hex, type LocalAccount } from 'viem';
import { sendFromAccount } from '../../chain/local-chain.js';
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
 * Whether a process listening on `host` (HOST) may serve the demo wallet. Its RPC signs for any request
 * whose Origin is the service's, and any client can write that header: only a process that nothing but
 * this machine can reach (a loopback address) may hold it.
 */
export function demoWalletServable(host: string): boolean {
  if (host === 'localhost') return true;
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}

/**
 * Answers the EIP-1193 requests a page sends to the demo wallet, signing with the role's account. It
 * approves everything, as a real wallet would after asking its user: so it exists only in the local
 * demo, where the keys guard test tokens on a chain on this machine.
 */
export async function answerDemoRequest(
  wallet: DemoWallet,
  role: DemoRole,
  method: string,
  params: readonly unknown[],
): Promise<unknown> {
  const account = wallet[role];
  switch (method) {
    case 'eth_requestAccounts':
    case 'eth_accounts':
      return [account.address];
    case 'eth_chainId':
      return numberToHex(wallet.chainId);
    case 'wallet_switchEthereumChain': {
      const wanted = Number((params[0] as { chainId?: string } | undefined)?.chainId);
      if (wanted !== wallet.chainId)
        throw rpcError(4902, `The demo wallet knows only the local chain ${wallet.chainId}.`);
      return null;
    }
    case 'personal_sign': {
      const [message] = params;
      if (typeof message !== 'string' || !HEX.test(message))
        throw rpcError(-32602, 'personal_sign takes the message as 0x-prefixed hex.');
      return account.signMessage({ message: { raw: message as Hex } });
    }
    case 'eth_signTypedData_v4':
      return account
        .signTypedData(typedData(params[1]) as Parameters<LocalAccount['signTypedData']>[0])
        .catch(invalidParams);
    case 'eth_sendTransaction': {
      const tx = params[0] as Record<string, unknown> | undefined;
      const [to, data, value] = [tx?.to, tx?.data, tx?.value];
      if (
        typeof to !== 'string' ||
        !ADDRESS.test(to) ||
        (data !== undefined && (typeof data !== 'string' || !HEX.test(data))) ||
        (value !== undefined && (typeof value !== 'string' || !HEX.test(value)))
      ) {
        throw rpcError(-32602, 'eth_sendTransaction takes {to, data?, value?} as 0x-prefixed hex.');
      }
      return sendFromAccount(wallet.rpcUrl, account, {
        to: to as Hex,
        data: data as Hex | undefined,
        value: value === undefined ? undefined : BigInt(value),
      });
    }
    default:
      throw rpcError(4200, `The demo wallet does not support ${method}.`);
  }
}

const HEX = /^0x[0-9a-fA-F]*$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The typed data of eth_signTypedData_v4 (a JSON string), without the domain type viem derives itself. */
function typedData(raw: unknown): Record<string, unknown> {
  let typed: unknown;
  try {
    typed = typeof raw === 'string' ? JSON.parse(raw) : undefined;
  } catch {
    typed = undefined;
  }
  const types = (typed as { types?: unknown } | undefined)?.types;
  if (!typed || typeof typed !== 'object' || !types || typeof types !== 'object')
    throw rpcError(-32602, 'eth_signTypedData_v4 takes [address, typed data as a JSON string].');
  const { EIP712Domain: _domain, ...rest } = types as Record<string, unknown>;
  return { ...typed, types: rest };
}

/** viem refuses malformed typed data by throwing; that is the caller's mistake, not ours. */
function invalidParams(error: unknown): never {
  throw rpcError(
    -32602,
    `The typed data cannot be signed: ${error instanceof Error ? error.message.split('\n')[0] : 'invalid'}`,
  );
}

function rpcError(rpcCode: number, message: string): AppError {
  return new AppError('invalid_request', message, { fields: { rpcCode } });
}
