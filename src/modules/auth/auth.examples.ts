import type { OperationExamples } from '../../http/openapi-examples.js';

const MESSAGE = [
  'pay.example.com wants you to sign in with your Ethereum account:',
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '',
  'Sign in to the Invoice Service.',
  '',
  'URI: https://pay.example.com/portal',
  'Version: 1',
  'Chain ID: 84532',
  'Nonce: 8fK2mQ7xV1nR4tY9',
  'Issued At: 2026-11-14T09:00:00.000Z',
].join('\n');

const SESSION = { address: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', expiresAt: '2026-11-21T09:00:00.000Z' };

export const authExamples = {
  nonce: { response: { nonce: '8fK2mQ7xV1nR4tY9' } },
  verify: { request: { message: MESSAGE, signature: `0x${'8e'.repeat(64)}1c` }, response: SESSION },
  logout: {},
  session: { response: SESSION },
} satisfies Record<string, OperationExamples>;
