import decodeQR from 'qr/decode.js';
import { getAddress, recoverTypedDataAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import type { Network } from '../../src/chain/networks.js';
import { authorizationMessage, transferWithAuthorizationTypes, usdcDomain } from '../../src/chain/usdc-eip3009.js';
import type { TransferAuthorization } from '../../src/chain/chain-port.js';
import { checkoutNonce, eip681TransferUri } from '../../src/modules/checkout/checkout.js';
import { qrSvg } from '../../src/web/checkout/checkout.qr.js';
import { chainName } from '../../src/chain/chain-names.js';
import * as eip3009 from '../../src/web/shared/client/authorization.js';
import { displayAmount, formatRemaining, shortHash } from '../../src/web/checkout/checkout.text.js';

// The live page uses the same formatRemaining, shortHash and chainName (its script bundles these modules),
// and the browser's authorization builder is pure: all of it runs here in Node.
describe('checkout client modules', () => {
  it('spell the time left as people read a timer', () => {
    const samples = [0, -5000, 1, 999, 1000, 1001, 59_000, 60_000, 3_599_001, 3_600_000, 86_399_999, 86_400_000];
    expect(samples.map(formatRemaining).slice(0, 10)).toEqual([
      '0:00',
      '0:00',
      '0:01',
      '0:01',
      '0:01',
      '0:02',
      '0:59',
      '1:00',
      '1:00:00',
      '1:00:00',
    ]);
    expect(formatRemaining(432_000_000)).toBe('5d 00:00:00');
  });

  it('builds the authorization the service verifies: token domain, recipient, exact micro-units, the link nonce', async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    const network = {
      name: 'base-sepolia',
      chainId: 84532,
      usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      tokenName: 'USDC',
      tokenVersion: '2',
    } as unknown as Network;
    const recipient = getAddress(`0x${'ab'.repeat(20)}`);
    const nonce = checkoutNonce('inv_test', 1);
    const serverNow = Date.parse('2030-01-01T00:00:00Z');
    const { authorization, typedData } = eip3009.transferAuthorization(
      { recipient, amount: '12.500000', authorizationNonce: nonce },
      { chainId: 84532, token: network.usdc, tokenName: 'USDC', tokenVersion: '2' },
      payer.address,
      serverNow,
    );
    expect(authorization).toEqual({
      from: payer.address,
      to: recipient,
      value: '12500000',
      validAfter: '0',
      validBefore: String(serverNow / 1000 + 300),
      nonce,
    });
    // Signed as a wallet does (eth_signTypedData_v4 of the JSON), recovered as the service checks it.
    const typed = JSON.parse(JSON.stringify(typedData)) as typeof typedData;
    const { EIP712Domain: _domain, ...types } = typed.types;
    const signature = await payer.signTypedData({ ...typed, types } as Parameters<typeof payer.signTypedData>[0]);
    const signer = await recoverTypedDataAddress({
      domain: usdcDomain(network),
      types: transferWithAuthorizationTypes,
      primaryType: 'TransferWithAuthorization',
      // The service reads the same strings, checked against 0x patterns, as its own TransferAuthorization.
      message: authorizationMessage(authorization as TransferAuthorization),
      signature,
    });
    expect(signer).toBe(payer.address);
  });

  it('reads amounts in micro-units and repairs 0/1 signature v values', () => {
    expect(['0.000001', '1.000000', '12.500000', '1000000.000000'].map(eip3009.microUnits)).toEqual([
      '1',
      '1000000',
      '12500000',
      '1000000000000',
    ]);
    const body = `0x${'11'.repeat(64)}`;
    expect(eip3009.normalizeSignature(`${body}00`)).toBe(`${body}1b`);
    expect(eip3009.normalizeSignature(`${body}01`)).toBe(`${body}1c`);
    expect(eip3009.normalizeSignature(`${body}1c`)).toBe(`${body}1c`);
  });

  it('shows amounts as written, never rounded', () => {
    expect(['12.500000', '3.000000', '0.000001', '24.900000', '1.234560'].map(displayAmount)).toEqual([
      '12.50',
      '3.00',
      '0.000001',
      '24.90',
      '1.23456',
    ]);
  });
});

describe('checkout receipt', () => {
  it('shortens a transaction hash and names a network', () => {
    const hash = `0x${'0123456789abcdef'.repeat(4)}`;
    expect(shortHash(hash)).toBe('0x01234567…89abcdef');
    expect(chainName(84532, 'base-sepolia')).toEqual({ label: 'Base Sepolia', testnet: true });
    expect(chainName(31337, 'anvil')).toEqual({ label: 'Local test chain', testnet: true });
    expect(chainName(8453, 'base')).toEqual({ label: 'Base', testnet: false });
    expect(chainName(999_999, 'my-chain')).toEqual({ label: 'my-chain', testnet: false });
  });
});

describe('checkout QR code', () => {
  it('is inline SVG that decodes back to the EIP-681 URI', () => {
    const uri = eip681TransferUri(
      '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      84532,
      `0x${'ab'.repeat(20)}`,
      12_500_000n,
    );
    const svg = qrSvg(uri, 'QR code').value;
    expect(svg).toMatch(/^<svg class="qr-code" viewBox="0 0 \d+ \d+"/);
    expect(svg.length).toBeLessThan(5000);
    expect(decodeQR(rasterize(svg, 4))).toBe(uri);
  });
});

/** Draws the SVG's strokes (`M x y.5`, `m dx 0`, `h n`) into an RGB image, `scale` pixels per module. */
function rasterize(svg: string, scale: number) {
  const size = Number(/viewBox="0 0 (\d+) /.exec(svg)?.[1]);
  const width = size * scale;
  const data = new Uint8Array(width * width * 3).fill(255);
  let x = 0;
  let y = 0;
  for (const [, command, a, b] of (/ d="([^"]*)"/.exec(svg)?.[1] ?? '').matchAll(/([Mmh])(\d+)(?: (\d+)(?:\.5)?)?/g)) {
    if (command === 'M') [x, y] = [Number(a), Number(b)];
    if (command === 'm') x += Number(a);
    if (command !== 'h') continue;
    for (let dy = 0; dy < scale; dy += 1) {
      const row = (y * scale + dy) * width;
      data.fill(0, (row + x * scale) * 3, (row + (x + Number(a)) * scale) * 3);
    }
    x += Number(a);
  }
  return { width, height: width, data };
}
