import { recoverMessageAddress, recoverTypedDataAddress, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { demoWalletServable } from '../../src/web/demo-wallet/demo-wallet.js';
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
const demoWallet = { chainId: 84532, rpcUrl: 'http://127.0.0.1:1', merchant, buyer };
// The same demo on a process listening beyond this machine: anyone who reaches it can send any Origin.
const { app: exposedApp } = await createTestApp({ HOST: '0.0.0.0' }, undefined, undefined, demoWallet);
const { app: ipv6LoopbackApp } = await createTestApp({ HOST: '::1' }, undefined, undefined, demoWallet);

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

  it('is served only by a process listening on a loopback address (HOST)', async () => {
    const accounts = (target: typeof app) =>
      target.inject({
        method: 'POST',
        url: '/demo-wallet/rpc',
        headers: { origin: BASE_URL },
        payload: { role: 'merchant', method: 'eth_requestAccounts' },
      });
    const exposed = await accounts(exposedApp);
    expect(exposed.statusCode).toBe(404);
    expect(exposed.body).not.toContain(merchant.address);
    expect((await exposedApp.inject({ method: 'GET', url: '/demo-wallet.js' })).statusCode).toBe(404);
    const portal = await exposedApp.inject({ method: 'GET', url: '/portal' });
    expect(portal.statusCode).toBe(200);
    expect(portal.body).not.toContain('demo-wallet.js');
    // Loopback, IPv4 or IPv6: the local demo as it is meant to run.
    expect((await accounts(ipv6LoopbackApp)).json()).toEqual({ result: [merchant.address] });
    expect((await accounts(app)).json()).toEqual({ result: [merchant.address] });
    expect((await app.inject({ method: 'GET', url: '/portal' })).body).toContain('demo-wallet.js');
  });

  it.each([
    ['127.0.0.1', true],
    ['127.3.2.1', true],
    ['::1', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.10', false],
    ['example.com', false],
  ])('HOST=%s may serve it: %s', (host, servable) => {
    expect(demoWalletServable(host)).toBe(servable);
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
