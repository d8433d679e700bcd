import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ORIGIN, createTestApp, merchant } from '../support/app.js';

const { app, database } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000' });
const shop = await merchant(app, ['settings:write']);

function put(payload: object) {
  return app.inject({
    method: 'PUT',
    url: `/w/${shop.workspaceId}/v1/workspace`,
    headers: { authorization: `Bearer ${shop.apiKey}` },
    payload,
  });
}

/** The workspace as the portal reads it back (`GET /portal/api/workspaces`). */
async function shown() {
  const response = await app.inject({
    method: 'GET',
    url: '/portal/api/workspaces',
    headers: { cookie: shop.cookie, origin: ORIGIN },
  });
  const { workspaces } = response.json<{
    workspaces: { id: string; supportContact: unknown; accentColor: unknown }[];
  }>();
  return workspaces.find((workspace) => workspace.id === shop.workspaceId)!;
}

describe('support contact', () => {
  it('starts empty, and is null in every view of a new workspace', async () => {
    expect(await shown()).toMatchObject({ supportContact: null, accentColor: null });
  });

  it.each([
    ['an email address', 'help@example.com', 'help@example.com'],
    ['an email address with spaces around it', '  Sales+EU@Shop.example.co.uk ', 'Sales+EU@Shop.example.co.uk'],
    ['an https URL', 'https://shop.example.com/help?topic=orders', 'https://shop.example.com/help?topic=orders'],
    ['an https URL in the parser spelling', 'HTTPS://Shop.Example.com', 'https://shop.example.com/'],
  ])('stores %s and shows it again', async (_name, sent, stored) => {
    const response = await put({ supportContact: sent });
    expect(response.statusCode).toBe(200);
    expect(response.json().supportContact).toBe(stored);
    expect((await shown()).supportContact).toBe(stored);
  });

  it.each([null, '', '   '])('removes it when sent %j, and keeps it when left out', async (cleared) => {
    expect((await put({ supportContact: 'help@example.com' })).statusCode).toBe(200);
    expect((await put({ name: 'Renamed' })).json().supportContact).toBe('help@example.com');
    const response = await put({ supportContact: cleared });
    expect(response.statusCode).toBe(200);
    expect(response.json().supportContact).toBeNull();
    expect((await shown()).supportContact).toBeNull();
  });

  it.each([
    ['an http URL', 'http://shop.example.com/help'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a URL with credentials', 'https://user:secret@shop.example.com/help'],
    ['a URL with a user name', 'https://user@shop.example.com/help'],
    ['a mailto: URL', 'mailto:help@example.com'],
    ['a host without a dot', 'https://localhost/help'],
    ['text', 'not an email'],
    ['an address without a domain', 'help@'],
    ['an address on a host without a dot', 'help@localhost'],
    ['an address with a space', 'help desk@example.com'],
    ['a URL with a newline', 'https://shop.example.com/he\nlp'],
    [
      'an email address over 254 characters',
      `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`,
    ],
    ['a URL over 2048 characters', `https://shop.example.com/${'a'.repeat(2024)}`],
  ])('refuses %s with 400 invalid_support_contact, changing nothing', async (_name, sent) => {
    expect((await put({ supportContact: 'kept@example.com' })).statusCode).toBe(200);
    const response = await put({ supportContact: sent, name: 'Not saved' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'invalid_support_contact',
      message: expect.stringMatching(/email address .* or an https URL/),
      requestId: response.headers['x-request-id'],
    });
    expect(await shown()).toMatchObject({
      supportContact: 'kept@example.com',
      name: expect.not.stringMatching('Not saved'),
    });
  });

  it('takes an email address of exactly 254 characters', async () => {
    const address = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(address).toHaveLength(254);
    expect((await put({ supportContact: address })).json().supportContact).toBe(address);
  });

  it('takes a URL of exactly 2048 characters', async () => {
    const url = `https://shop.example.com/${'a'.repeat(2023)}`;
    expect(url).toHaveLength(2048);
    expect((await put({ supportContact: url })).json().supportContact).toBe(url);
  });
});

describe('accent colour', () => {
  it('stores #rrggbb in lowercase and shows it again', async () => {
    const response = await put({ accentColor: '#0052FF' });
    expect(response.statusCode).toBe(200);
    expect(response.json().accentColor).toBe('#0052ff');
    expect((await shown()).accentColor).toBe('#0052ff');
  });

  it('removes it when sent null, and keeps it when left out', async () => {
    expect((await put({ accentColor: '#123abc' })).statusCode).toBe(200);
    expect((await put({ description: 'Pots.' })).json().accentColor).toBe('#123abc');
    expect((await put({ accentColor: null })).json().accentColor).toBeNull();
    expect((await shown()).accentColor).toBeNull();
  });

  it.each(['#12345', 'red', '#GGGGGG', '', '0052ff', '#0052ff ', '#0052ff00', 'rgb(0, 82, 255)'])(
    'refuses %j with 400 invalid_accent_color',
    async (sent) => {
      const response = await put({ accentColor: sent });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'invalid_accent_color',
        message: expect.stringContaining('#rrggbb'),
        requestId: response.headers['x-request-id'],
      });
    },
  );

  it('refuses a colour that is not a string with the body schema (invalid_request)', async () => {
    expect((await put({ accentColor: 0x0052ff })).json().code).toBe('invalid_request');
  });
});

describe('the portal profile form route', () => {
  it('saves both fields through PATCH, with the same checks', async () => {
    const patch = (payload: object) =>
      app.inject({
        method: 'PATCH',
        url: `/portal/api/w/${shop.workspaceId}`,
        headers: { cookie: shop.cookie, origin: ORIGIN },
        payload,
      });
    const saved = await patch({ supportContact: 'https://shop.example.com/help', accentColor: '#FFAA00' });
    expect(saved.json()).toMatchObject({ supportContact: 'https://shop.example.com/help', accentColor: '#ffaa00' });
    expect((await patch({ supportContact: 'http://shop.example.com' })).json().code).toBe('invalid_support_contact');
    expect((await patch({ accentColor: 'orange' })).json().code).toBe('invalid_accent_color');
  });
});

describe('the columns', () => {
  it('refuse what no page can use, whoever writes them', async () => {
    const write = (column: 'support_contact' | 'accent_color', value: string) =>
      sql`UPDATE workspaces SET ${sql.ref(column)} = ${value} WHERE id = ${shop.workspaceId}`.execute(database.db);
    await expect(write('accent_color', '#0052FF')).rejects.toThrow(/check constraint/);
    await expect(write('support_contact', 'http://shop.example.com')).rejects.toThrow(/check constraint/);
    await expect(write('support_contact', 'no contact')).rejects.toThrow(/check constraint/);
  });
});
