import { recoverMessageAddress, recoverTypedDataAddress, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { BASE_URL, createTestApp } from '../support/app.js';

const merchant = privateKeyToAccount(generatePrivateKey());
const buyer = privateKeyToAccount(generatePrivateKey());
const { app } = await createTestApp({}, undefined, undefined, {
  chainId: 84532,
  rpcUrl: 'http://127.0.0.1:1',
  merchant,
  buyer,
});
const { app: realNetworksApp } = await createTestApp();

const rpc = (role: string, method: string, params: unknown[] = [], origin = BASE_URL) =>
  app.inject({ method: 'POST', url: '/demo-wallet/rpc', headers: { origin }, payload: { role, method, params } });

describe('the built-in demo wallet', () => {
  it('serves its script, which announces a merchant and a buyer wallet', async () => {
    const script = await app.inject({ method: 'GET', url: '/demo-wallet.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.body).toContain('eip6963:announceProvider');
    expect(script.body).toContain('Demo wallet: buyer (local chain only)');
  });

  it('signs sign-in messages as the merchant and typed data as the buyer', async () => {
    expect((await rpc('merchant', 'eth_requestAccounts')).json()).toEqual({ result: [merchant.address] });
    expect((await rpc('buyer', 'eth_chainId')).json()).toEqual({ result: '0x14a34' });

    const message = 'localhost:3000 wants you to sign in';
    const signed = (await rpc('merchant', 'personal_sign', [toHex(message), merchant.address])).json<{
      result: `0x${string}`;
    }>();
    expect(await recoverMessageAddress({ message, signature: signed.result })).toBe(merchant.address);

    const typed = {
      types: { EIP712Domain: [{ name: 'name', type: 'string' }], Note: [{ name: 'text', type: 'string' }] },
      primaryType: 'Note',
      domain: { name: 'Demo' },
      message: { text: 'pay' },
    };
    const signature = (await rpc('buyer', 'eth_signTypedData_v4', [buyer.address, JSON.stringify(typed)])).json<{
      result: `0x${string}`;
    }>().result;
    const { EIP712Domain: _domain, ...types } = typed.types;
    expect(
      await recoverTypedDataAddress({ ...typed, types, signature } as Parameters<typeof recoverTypedDataAddress>[0]),
    ).toBe(buyer.address);
  });

  it('refuses other chains, unknown methods and requests from other origins', async () => {
    expect((await rpc('buyer', 'wallet_switchEthereumChain', [{ chainId: '0x2105' }])).json()).toMatchObject({
      code: 'invalid_request',
      rpcCode: 4902,
    });
    expect((await rpc('buyer', 'eth_sign', [])).json()).toMatchObject({ code: 'invalid_request', rpcCode: 4200 });
    const foreign = await rpc('merchant', 'eth_requestAccounts', [], 'https://evil.example');
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toMatchObject({ code: 'origin_mismatch' });
  });

  it('does not exist when the service is not running the local demo', async () => {
    expect((await realNetworksApp.inject({ method: 'GET', url: '/demo-wallet.js' })).statusCode).toBe(404);
    expect(
      (
        await realNetworksApp.inject({
          method: 'POST',
          url: '/demo-wallet/rpc',
          headers: { origin: BASE_URL },
          payload: { role: 'buyer', method: 'eth_accounts' },
        })
      ).statusCode,
    ).toBe(404);
  });
});
