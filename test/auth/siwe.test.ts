import { describe, expect, it } from 'vitest';
import { BASE_URL, ORIGIN, createTestApp, newWallet, signedSiwe } from '../support/app.js';

const { app, database, services } = await createTestApp();
// The service judges messages by its own (manual) clock, not by the time a test happens to run.
const appNow = () => services.clock.now().getTime();

async function verify(payload: { message: string; signature: string }, origin: string | null = ORIGIN) {
  return app.inject({ method: 'POST', url: '/auth/verify', headers: origin === null ? {} : { origin }, payload });
}

describe('wallet sign-in (EIP-4361)', () => {
  it('signs in with a signed message and answers the session', async () => {
    const wallet = newWallet();
    const response = await verify(await signedSiwe(app, wallet));
    expect(response.statusCode).toBe(200);
    expect(response.json().address).toBe(wallet.address.toLowerCase());
    const cookie = response.cookies.find((candidate) => candidate.name === 'invoice_session');
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe('Lax');
    const session = await app.inject({
      method: 'GET',
      url: '/auth/session',
      cookies: { invoice_session: cookie!.value },
    });
    expect(session.json().address).toBe(wallet.address.toLowerCase());
  });

  it('stores only a hash of the session token', async () => {
    const response = await verify(await signedSiwe(app, newWallet()));
    const token = response.cookies.find((candidate) => candidate.name === 'invoice_session')!.value;
    const rows = await database.db.selectFrom('sessions').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  const refusals: [string, () => Promise<{ message: string; signature: string }>, number, string][] = [
    ['a foreign domain', () => signedSiwe(app, newWallet(), { domain: 'evil.example' }), 401, 'siwe_domain_mismatch'],
    [
      'a URI on another origin',
      () => signedSiwe(app, newWallet(), { uri: 'https://evil.example/login' }),
      401,
      'siwe_uri_mismatch',
    ],
    ['an unconfigured chain', () => signedSiwe(app, newWallet(), { chainId: 1 }), 401, 'siwe_chain_not_supported'],
    [
      'a nonce this service never issued',
      () => signedSiwe(app, newWallet(), { nonce: 'abcdefgh12345678' }),
      401,
      'siwe_nonce_invalid',
    ],
    [
      'an expired message',
      () => signedSiwe(app, newWallet(), { expirationTime: new Date(appNow() - 1000) }),
      401,
      'siwe_expired',
    ],
    [
      'a message issued over 10 minutes ago',
      () => signedSiwe(app, newWallet(), { issuedAt: new Date(appNow() - 11 * 60_000) }),
      401,
      'siwe_expired',
    ],
    [
      'a message from the future',
      () => signedSiwe(app, newWallet(), { issuedAt: new Date(Date.now() + 5 * 60_000) }),
      401,
      'siwe_not_yet_valid',
    ],
    [
      'a not-before in the future',
      () => signedSiwe(app, newWallet(), { notBefore: new Date(Date.now() + 5 * 60_000) }),
      401,
      'siwe_not_yet_valid',
    ],
    [
      'a signature by another wallet',
      async () => {
        const signed = await signedSiwe(app, newWallet());
        return { message: signed.message, signature: await newWallet().signMessage({ message: signed.message }) };
      },
      401,
      'siwe_signature_invalid',
    ],
    [
      'a tampered message',
      async () => {
        const signed = await signedSiwe(app, newWallet());
        return { ...signed, message: signed.message.replace('Sign in to', 'Sign into') };
      },
      401,
      'siwe_signature_invalid',
    ],
    [
      'a message that is not EIP-4361',
      async () => ({ message: 'hello', signature: '0x1234' }),
      400,
      'invalid_siwe_message',
    ],
  ];

  it.each(refusals)('refuses %s', async (_name, build, status, code) => {
    const response = await verify(await build());
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject({ code, requestId: expect.any(String), message: expect.any(String) });
    expect(response.cookies).toHaveLength(0);
  });

  /** A fresh message of `wallet`, changed by `edit`, then signed by the wallet: only the text is at fault. */
  async function edited(edit: (message: string) => string, wallet = newWallet()) {
    const message = edit((await signedSiwe(app, wallet)).message);
    return { message, signature: await wallet.signMessage({ message }) };
  }

  const strict: [string, (message: string) => string, number, string][] = [
    [
      'text after Issued At',
      (message) => `${message}\nPay to: 0x0000000000000000000000000000000000000000`,
      400,
      'invalid_siwe_message',
    ],
    ['a line break at the end', (message) => `${message}\n`, 400, 'invalid_siwe_message'],
    ['CRLF line breaks', (message) => message.replaceAll('\n', '\r\n'), 400, 'invalid_siwe_message'],
    ["a scheme other than the service's", (message) => `javascript://${message}`, 401, 'siwe_domain_mismatch'],
    ['https where the service is on http', (message) => `https://${message}`, 401, 'siwe_domain_mismatch'],
    [
      'an address not in its EIP-55 form',
      (message) => message.replace(/^(0x[0-9a-fA-F]{40})$/m, (address) => address.toLowerCase()),
      400,
      'invalid_siwe_message',
    ],
    [
      'optional fields out of order',
      (message) => `${message}\nNot Before: 2020-01-01T00:00:00.000Z\nExpiration Time: 2999-01-01T00:00:00.000Z`,
      400,
      'invalid_siwe_message',
    ],
    [
      'a second statement line',
      (message) => message.replace('Sign in to the Invoice Service.', 'Sign in.\nAnd pay.'),
      400,
      'invalid_siwe_message',
    ],
    ['a field repeated', (message) => message.replace(/^(Chain ID: .*)$/m, '$1\n$1'), 400, 'invalid_siwe_message'],
  ];

  it.each(strict)('refuses %s (parsed as EIP-4361 writes it)', async (_name, edit, status, code) => {
    const response = await verify(await edited(edit));
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject({ code, message: expect.any(String) });
    expect(response.cookies).toHaveLength(0);
  });

  const accepted: [string, (message: string) => string][] = [
    ["the service's own scheme before the domain", (message) => `http://${message}`],
    [
      'every optional field, in order',
      (message) =>
        `${message}\nExpiration Time: 2999-01-01T00:00:00.000Z\nNot Before: 2020-01-01T00:00:00Z` +
        '\nRequest ID: req-1\nResources:\n- https://localhost:3000/a\n- ipfs://bafy',
    ],
    ['no statement', (message) => message.replace('Sign in to the Invoice Service.\n\n', '\n')],
  ];

  it.each(accepted)('accepts %s', async (_name, edit) => {
    const wallet = newWallet();
    const response = await verify(await edited(edit, wallet));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().address).toBe(wallet.address.toLowerCase());
  });

  it('refuses a reused nonce', async () => {
    const signed = await signedSiwe(app, newWallet());
    expect((await verify(signed)).statusCode).toBe(200);
    const again = await verify(signed);
    expect(again.statusCode).toBe(401);
    expect(again.json().code).toBe('siwe_nonce_invalid');
  });

  it('refuses sign-in without this origin (CSRF)', async () => {
    const signed = await signedSiwe(app, newWallet());
    for (const origin of [null, 'https://evil.example']) {
      const response = await verify(signed, origin);
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('origin_mismatch');
    }
    expect((await verify(signed)).statusCode).toBe(200);
  });

  it('creates exactly one session from 20 parallel verifications of one signed message', async () => {
    const signed = await signedSiwe(app, newWallet());
    const before = await database.db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .executeTakeFirstOrThrow();
    const responses = await Promise.all(Array.from({ length: 20 }, () => verify(signed)));
    expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(1);
    expect(
      responses
        .filter((response) => response.statusCode === 401)
        .every((response) => response.json().code === 'siwe_nonce_invalid'),
    ).toBe(true);
    const after = await database.db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n - before.n).toBe(1n);
  });

  it('logs out: the session stops working', async () => {
    const response = await verify(await signedSiwe(app, newWallet()));
    const token = response.cookies.find((candidate) => candidate.name === 'invoice_session')!.value;
    const logout = await app.inject({
      method: 'POST',
      url: '/auth/logout',
      headers: { origin: ORIGIN },
      cookies: { invoice_session: token },
    });
    expect(logout.statusCode).toBe(204);
    const session = await app.inject({ method: 'GET', url: '/auth/session', cookies: { invoice_session: token } });
    expect(session.statusCode).toBe(401);
    expect(session.json().code).toBe('session_required');
  });

  it('issues nonces of at least 128 bits, never the same twice', async () => {
    const nonces = await Promise.all(
      Array.from(
        { length: 10 },
        async () => (await app.inject({ method: 'GET', url: '/auth/nonce' })).json().nonce as string,
      ),
    );
    expect(new Set(nonces).size).toBe(10);
    for (const nonce of nonces) expect(nonce).toMatch(/^[0-9a-z]{26}$/);
    expect(BASE_URL).toBe(ORIGIN);
  });
});
