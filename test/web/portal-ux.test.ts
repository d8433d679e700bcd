import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { newWallet } from '../support/app.js';
import { auditPage } from '../support/axe.js';
import { injectTestWallet, launchBrowser } from '../support/browser.js';
import { failedDelivery, signedInWithWorkspace, startPortalApp, watchPage } from '../support/portal-browser.js';
import { startTestReceiver } from '../support/webhook-receiver.js';
const portal = await startPortalApp({
  env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '5,30,7200' },
});
const receiver = await startTestReceiver();
const browser = await launchBrowser();

const tab = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name });

/** A signed-in page with a fresh workspace, at `width` × 900. */
const signedIn = (width: number) =>
  signedInWithWorkspace(browser, portal, { viewport: { width, height: 900 }, colorScheme: 'light' });

/**
 * Every tab, and the states within them people meet (empty lists, forms with errors, a one-time secret),
 * in the order a new workspace reaches them: each step starts where the one before it left off.
 */
const PORTAL_STATES: readonly { name: string; reach: (page: Page) => Promise<void> }[] = [
  {
    name: 'overview-empty',
    reach: async (page) => {
      await tab(page, 'Overview').click();
      await page.locator('#chart-webhooks', { hasText: 'No deliveries yet' }).waitFor();
    },
  },
  {
    name: 'invoices-empty',
    reach: async (page) => {
      await tab(page, 'Invoices').click();
      await page.locator('#invoice-list-status', { hasText: 'No invoices yet' }).waitFor();
    },
  },
  {
    name: 'invoice-form-errors',
    reach: async (page) => {
      await page.locator('#invoice-amount').fill('1.1234567');
      await page.getByRole('button', { name: 'Create invoice' }).click();
      await page.locator('#invoice-amount-error').waitFor();
    },
  },
  {
    name: 'invoice-detail',
    reach: async (page) => {
      await page.locator('#invoice-amount').fill('12.50');
      await page.getByRole('button', { name: 'Create invoice' }).click();
      await page.locator('#invoice-facts dt').first().waitFor();
    },
  },
  {
    name: 'invoices-list',
    reach: async (page) => {
      await tab(page, 'Invoices').click();
      await page.locator('#invoice-rows tr').first().waitFor();
    },
  },
  {
    name: 'received-empty',
    reach: async (page) => {
      await tab(page, 'Received').click();
      await page.locator('#received-list-status', { hasText: 'Nothing to resolve' }).waitFor();
    },
  },
  {
    name: 'automations-empty',
    reach: async (page) => {
      await tab(page, 'Automations').click();
      await page.locator('#automation-list-status', { hasText: 'No automations yet' }).waitFor();
    },
  },
  {
    name: 'automation-form-errors',
    reach: async (page) => {
      await page.getByRole('button', { name: 'Create automation' }).click();
      await page.locator('#automation-name-error').waitFor();
    },
  },
  {
    name: 'automation-detail',
    reach: async (page) => {
      await page.locator('#automation-name').fill('Monthly retainer, Acme');
      await page.locator('#automation-amount').fill('250');
      await page.getByRole('button', { name: 'Create automation' }).click();
      await page.locator('#automation-facts dt').first().waitFor();
    },
  },
  {
    name: 'billing',
    reach: async (page) => {
      await tab(page, 'Billing').click();
      await page.locator('#ledger-rows tr').first().waitFor();
    },
  },
  {
    name: 'statement',
    reach: async (page) => {
      await tab(page, 'Statement').click();
      await page.locator('#statement-sheet').waitFor();
    },
  },
  {
    name: 'api-empty',
    reach: async (page) => {
      await tab(page, 'API').click();
      await page.locator('#keys-empty').waitFor();
      await page.locator('#deliveries-empty').waitFor();
    },
  },
  {
    name: 'api-key-secret',
    reach: async (page) => {
      await page.locator('#key-name-input').fill('production server');
      await page.getByRole('button', { name: 'Create invoices' }).click();
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.locator('#key-secret-box').waitFor();
    },
  },
  {
    name: 'settings',
    reach: async (page) => {
      await tab(page, 'Settings').click();
      await expect.poll(() => page.locator('#origins-input').isEnabled()).toBe(true);
    },
  },
  {
    name: 'settings-form-errors',
    reach: async (page) => {
      await page.locator('#profile-name-input').fill('');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await page.locator('#profile-name-input-error').waitFor();
      await page.locator('#origins-input').fill('http://shop.example.com/cart');
      await page.getByRole('button', { name: 'Save origins' }).click();
      await page.locator('#origins-input-error').waitFor();
    },
  },
  {
    name: 'workspace-create-errors',
    reach: async (page) => {
      await page.getByRole('button', { name: 'New workspace' }).click();
      await page.locator('#workspace-create').getByRole('button', { name: 'Create workspace' }).click();
      await page.locator('#workspace-name-input-error').waitFor();
    },
  },
];

for (const width of [390, 1280]) {
  it(
    `every portal state fits ${width} px without sideways scrolling and has no serious accessibility violations (screenshots in test-results/)`,
    { timeout: 120_000 },
    async () => {
      const signedOut = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: 'light' });
      await injectTestWallet(signedOut, newWallet(), 'http://127.0.0.1:9', 84532);
      const signIn = await signedOut.newPage();
      await signIn.goto(`${portal.origin}/portal`);
      await signIn.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor();
      const found = await auditPage(signIn, `portal-sign-in-${width}`);
      await signedOut.close();

      const { context, page, problems } = await signedIn(width);
      for (const state of PORTAL_STATES) {
        await state.reach(page);
        found.push(...(await auditPage(page, `portal-${state.name}-${width}`)));
      }
      expect(found.join('\n')).toBe('');
      // The form errors are the point of some states: their 400 answers are expected.
      expect(problems.filter((problem) => !problem.includes('400'))).toEqual([]);
      await context.close();
    },
  );
}

it('a signed-out load shows the sign-in, asks for no session and logs no error in the console', async () => {
  const context = await browser.newContext();
  await injectTestWallet(context, newWallet(), 'http://127.0.0.1:9', 84532);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  page.on('pageerror', (error) => errors.push(error.message));
  const asked: string[] = [];
  page.on('request', (request) => asked.push(new URL(request.url()).pathname));
  await page.goto(`${portal.origin}/portal`);
  await page.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor();
  expect(errors).toEqual([]);
  expect(asked).not.toContain('/auth/session');
  await context.close();
});

it('shows form errors next to their field in plain words', { timeout: 60_000 }, async () => {
  const { context, page, problems } = await signedIn(1280);

  await tab(page, 'Invoices').click();
  const amount = page.locator('#invoice-amount');
  await amount.fill('1.1234567');
  await page.getByRole('button', { name: 'Create invoice' }).click();
  const amountError = page.locator('#invoice-amount-error');
  await amountError.getByText('Enter an amount like 12.50').waitFor();
  expect(await amount.getAttribute('aria-invalid')).toBe('true');
  // Nothing to pay, and more than the service takes: each says the limit.
  for (const [value, words] of [
    ['0', 'Enter an amount of more than 0, like 12.50.'],
    ['0.00', 'Enter an amount of more than 0, like 12.50.'],
    ['99999999', /^Enter at most [\d,.]+ USDC: that is the largest invoice the service accepts\.$/],
  ] as const) {
    await amount.fill(value);
    await page.getByRole('button', { name: 'Create invoice' }).click();
    await expect.poll(() => amountError.textContent()).toMatch(words);
  }
  expect((await amount.getAttribute('aria-describedby'))?.split(' ')).toContain('invoice-amount-error');
  expect(await page.locator('#invoice-form').textContent()).not.toMatch(/decimal string|GET \/billing/);
  // The next attempt starts clean.
  await amount.fill('12.50');
  await page.getByRole('button', { name: 'Create invoice' }).click();
  await page.getByRole('heading', { name: /INV-000001/ }).waitFor();
  expect(await amount.getAttribute('aria-invalid')).toBeNull();
  expect(await amountError.count()).toBe(0);
  // The ledger names the invoice its credits went to by its number.
  await tab(page, 'Billing').click();
  await page.locator('#ledger-rows').getByRole('link', { name: 'INV-000001' }).waitFor();

  await tab(page, 'Settings').click();
  const origins = page.locator('#origins-input');
  await origins.fill('https://shop.example.com\nhttp://shop.example.com/cart');
  await page.locator('#origins-form').getByRole('button').click();
  await page.locator('#origins-input-error').getByText('Enter an origin like https://shop.example.com').waitFor();
  expect(await origins.getAttribute('aria-invalid')).toBe('true');
  expect(await page.locator('#origins-form').textContent()).not.toContain('origins[');

  expect(problems.filter((problem) => !problem.includes('400'))).toEqual([]);
  await context.close();
});

it(
  'opened at another address than the configured one, sign-in names the right address and its wallet buttons are disabled',
  { timeout: 60_000 },
  async () => {
    // The same service, reached by another name: the browser would send that origin with the sign-in.
    const elsewhere = portal.origin.replace('127.0.0.1', 'localhost');
    const found: string[] = [];
    for (const width of [390, 1280]) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: 'light' });
      await injectTestWallet(context, newWallet(), 'http://127.0.0.1:9', 84532);
      const page = await context.newPage();
      const problems = watchPage(page, elsewhere);
      await page.goto(`${elsewhere}/portal`);
      const warning = page.locator('#origin-warning');
      await warning.waitFor();
      expect((await warning.innerText()).replace(/\s+/g, ' ')).toContain(
        `Sign in at ${portal.origin} — this address is not the one the service is configured for.`,
      );
      expect(await warning.getByRole('link').getAttribute('href')).toBe(`${portal.origin}/portal`);
      const signIn = page.getByRole('button', { name: 'Sign in with Test Wallet' });
      await signIn.waitFor();
      expect(await signIn.isDisabled()).toBe(true);
      // Wallets that announce themselves later join a list that is already disabled.
      await page.evaluate("window.dispatchEvent(new Event('eip6963:requestProvider'))");
      expect(await signIn.isDisabled()).toBe(true);
      found.push(...(await auditPage(page, `portal-sign-in-other-origin-${width}`)));
      expect(problems).toEqual([]);
      await context.close();
    }
    expect(found.join('\n')).toBe('');

    // At the configured address nothing stands in the way.
    const context = await browser.newContext();
    await injectTestWallet(context, newWallet(), 'http://127.0.0.1:9', 84532);
    const page = await context.newPage();
    await page.goto(`${portal.origin}/portal`);
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor();
    expect(await page.getByRole('button', { name: 'Sign in with Test Wallet' }).isEnabled()).toBe(true);
    expect(await page.locator('#origin-warning').isHidden()).toBe(true);
    await context.close();
  },
);

/** The error shown next to the field `id`, and the marks it left on the field for screen readers. */
async function fieldErrorOf(page: Page, id: string) {
  const field = page.locator(`#${id}`);
  const error = page.locator(`#${id}-error`);
  await error.waitFor();
  return {
    text: await error.textContent(),
    invalid: await field.getAttribute('aria-invalid'),
    describedBy: (await field.getAttribute('aria-describedby'))?.split(' ') ?? [],
    focused: await page.evaluate('document.activeElement?.id'),
  };
}

it(
  'the automation and workspace profile forms show their own checks next to the field',
  { timeout: 60_000 },
  async () => {
    const { context, page, problems } = await signedIn(1280);

    await tab(page, 'Automations').click();
    const create = page.getByRole('button', { name: 'Create automation' });
    await create.click();
    expect(await fieldErrorOf(page, 'automation-name')).toEqual({
      text: 'Give the automation a name, e.g. "Monthly retainer, Acme".',
      invalid: 'true',
      describedBy: ['automation-name-error'],
      focused: 'automation-name',
    });
    // The next check moves to its own field, and the one fixed is clean again.
    await page.locator('#automation-name').fill('Monthly retainer, Acme');
    await create.click();
    expect(await fieldErrorOf(page, 'automation-amount')).toMatchObject({
      text: 'Enter the amount of each invoice in USDC, e.g. 250,00.',
      invalid: 'true',
      focused: 'automation-amount',
    });
    expect(await page.locator('#automation-name').getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('#automation-name-error').count()).toBe(0);
    await page.locator('#automation-amount').fill('250');
    await page.locator('#automation-start').fill('');
    await create.click();
    expect(await fieldErrorOf(page, 'automation-start')).toEqual({
      text: 'Choose when the first invoice is created.',
      invalid: 'true',
      describedBy: ['automation-start-error', 'automation-start-hint'],
      focused: 'automation-start',
    });
    expect(await page.locator('#automation-form .notice').isVisible()).toBe(false);

    await tab(page, 'Settings').click();
    const save = page.getByRole('button', { name: 'Save profile' });
    await page.locator('#profile-name-input').fill(' ');
    await save.click();
    expect(await fieldErrorOf(page, 'profile-name-input')).toEqual({
      text: 'The workspace needs a name.',
      invalid: 'true',
      describedBy: ['profile-name-input-error'],
      focused: 'profile-name-input',
    });
    await page.locator('#profile-name-input').fill('Corner Shop');
    await page.locator('#profile-description-input').fill('x'.repeat(501));
    await save.click();
    expect(await fieldErrorOf(page, 'profile-description-input')).toEqual({
      text: 'The description is too long: at most 500 characters.',
      invalid: 'true',
      describedBy: ['profile-description-input-error', 'profile-description-count'],
      focused: 'profile-description-input',
    });
    expect(await page.locator('#profile-form .notice').isVisible()).toBe(false);

    // The form that creates a workspace has the same fields, and the same checks.
    await page.getByRole('button', { name: 'New workspace' }).click();
    await page.locator('#workspace-create').getByRole('button', { name: 'Create workspace' }).click();
    expect(await fieldErrorOf(page, 'workspace-name-input')).toMatchObject({
      text: 'Give the workspace a name.',
      invalid: 'true',
      focused: 'workspace-name-input',
    });

    expect(problems).toEqual([]);
    await context.close();
  },
);

it(
  'the workspace profile saves the support contact and the accent colour, and shows them again after a reload',
  { timeout: 60_000 },
  async () => {
    const { context, page, problems, workspaceId } = await signedIn(1280);
    await tab(page, 'Settings').click();
    const save = page.getByRole('button', { name: 'Save profile' });
    const contact = page.getByLabel('Support contact (email or https URL)');
    const colour = page.getByLabel('Accent colour', { exact: true });
    const noColour = page.getByLabel(/No accent colour/);
    // A new workspace has neither.
    expect(await contact.inputValue()).toBe('');
    expect(await noColour.isChecked()).toBe(true);

    // The server's refusal is shown next to its field, in plain words.
    await contact.fill('http://shop.example.com/help');
    await save.click();
    expect(await fieldErrorOf(page, 'profile-support-contact')).toEqual({
      text: 'Enter an email address like help@example.com, or the https address of your help page, without a user name or password.',
      invalid: 'true',
      describedBy: ['profile-support-contact-error'],
      focused: 'profile-support-contact',
    });

    // Picking a colour unticks "no accent colour"; the URL comes back in the server's spelling.
    await contact.fill('HTTPS://Shop.Example.com/help');
    await colour.fill('#0052ff');
    expect(await noColour.isChecked()).toBe(false);
    await save.click();
    await page.getByText('Profile saved.').waitFor();
    expect(await contact.inputValue()).toBe('https://shop.example.com/help');
    expect(await page.locator('#profile-support-contact-error').count()).toBe(0);

    await page.reload();
    await expect.poll(() => contact.inputValue()).toBe('https://shop.example.com/help');
    expect(await colour.inputValue()).toBe('#0052ff');
    expect(await noColour.isChecked()).toBe(false);

    // Emptied and ticked, both are removed.
    await contact.fill('');
    await noColour.check();
    await save.click();
    await page.getByText('Profile saved.').waitFor();
    const row = await portal.database.db
      .selectFrom('workspaces')
      .select(['support_contact', 'accent_color'])
      .where('id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ support_contact: null, accent_color: null });
    await page.reload();
    await expect.poll(() => noColour.isChecked()).toBe(true);
    expect(await contact.inputValue()).toBe('');

    // The refusal above was the one expected answer that is not a success.
    expect(problems.filter((problem) => !problem.includes('400'))).toEqual([]);
    await context.close();
  },
);

it(
  'the webhook banner points at the Retry button, follows the retry and states the configured schedule',
  { timeout: 60_000 },
  async () => {
    const { context, page, problems, workspaceId } = await signedIn(1280);
    await tab(page, 'API').click();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.locator('#webhook-secret-box').getByRole('button', { name: 'I have stored it' }).click();
    const { invoice } = await portal.services.invoices.create(
      workspaceId,
      { amount: '5.00' },
      { idempotencyKey: `ux-${Date.now()}`, source: 'api' },
    );
    const eventId = await failedDelivery(portal, workspaceId, { id: invoice.id, number: 'INV-000001' });
    // Its last attempt, as the delivery worker records it.
    await portal.database.db
      .insertInto('webhook_attempts')
      .values({
        workspace_id: workspaceId,
        event_id: eventId,
        invoice_id: invoice.id,
        attempt: 9,
        started_at: new Date('2026-01-02T03:04:05Z'),
        duration_ms: 120,
        status_code: 503,
        error: 'http_status',
      })
      .execute();

    await page.reload();
    const issues = page.getByRole('region', { name: 'Needs your attention' });
    const failed = issues.locator('li', { hasText: 'Webhook deliveries failed' });
    await failed.waitFor();
    expect(await failed.textContent()).toContain('Retry now');
    expect(await failed.textContent()).not.toContain('POST /webhook');

    await tab(page, 'API').click();
    // Attempt times show seconds; the event links to its invoice.
    const attempt = page.locator('#attempts-body tr', { hasText: eventId });
    expect(await attempt.locator('time').first().textContent()).toMatch(/\d{1,2}:\d{2}:\d{2}/);
    await attempt.getByRole('link', { name: eventId }).click();
    await page.getByRole('heading', { name: /INV-000001/ }).waitFor();
    await tab(page, 'API').click();
    const row = page.locator('#deliveries-body tr', { hasText: eventId });
    await row.getByRole('button', { name: 'Retry now' }).click();
    await failed.waitFor({ state: 'detached' });
    const retrying = issues.locator('li', { hasText: 'Webhook deliveries are being retried' });
    expect(await retrying.textContent()).toContain('up to about 2 hours apart');
    expect(problems).toEqual([]);
    await context.close();
  },
);

it('renewing asks first with its credit cost and says the link is unchanged', { timeout: 60_000 }, async () => {
  const { context, page, problems } = await signedIn(1280);
  await tab(page, 'Invoices').click();
  await page.getByLabel('Amount in USDC').fill('12.50');
  await page.getByRole('button', { name: 'Create invoice' }).click();
  await page.getByRole('heading', { name: /INV-000001/ }).waitFor();

  const questions: string[] = [];
  page.once('dialog', (dialog) => {
    questions.push(dialog.message());
    void dialog.dismiss();
  });
  await page.locator('#renew-expires').selectOption('86400');
  await page.getByRole('button', { name: 'Renew the link' }).click();
  await expect.poll(() => questions.length).toBe(1);
  expect(questions[0]).toMatch(/Renew INV-000001 for 1 day\?[^]*This costs \d+ credits?\./);
  // Declined: nothing was renewed.
  expect(await page.locator('#invoice-timeline').textContent()).not.toContain('renewed');

  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Renew the link' }).click();
  await page
    .locator('#invoice-actions + .notice', {
      hasText: /INV-000001 is renewed until .+; the payment link is unchanged\./,
    })
    .waitFor();
  expect(problems).toEqual([]);
  await context.close();
});

it('the overview leads to a new invoice, and empty lists and charts say so plainly', { timeout: 60_000 }, async () => {
  const { context, page, problems } = await signedIn(1280);
  await page.locator('#chart-webhooks', { hasText: 'No deliveries yet' }).waitFor();
  expect(await page.locator('#chart-webhooks').textContent()).not.toContain('%');
  // Ids and the credit rules are there for whoever needs them, folded away from the first look.
  const overview = page.locator('#panel-overview');
  expect(await page.locator('#workspace-id').isVisible()).toBe(false);
  expect(await page.locator('#billing-tariff').isVisible()).toBe(false);
  await overview.getByText('For your developers').click();
  expect(await page.locator('#workspace-id').textContent()).toMatch(/^ws_/);
  expect(await page.locator('#workspace-id').isVisible()).toBe(true);
  await overview.getByText('How credits work').click();
  expect(await page.locator('#billing-tariff').isVisible()).toBe(true);
  expect(await auditPage(page, 'portal-overview-unfolded')).toEqual([]);

  await page.locator('#panel-overview').getByRole('link', { name: 'Create invoice' }).click();
  await page.locator('#invoice-list-status', { hasText: 'No invoices yet' }).waitFor();
  expect(await page.locator('#invoice-table').isHidden()).toBe(true);
  await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('invoice-amount');
  expect(await page.locator('[data-tab="invoices"]').getAttribute('aria-current')).toBe('page');

  await page.getByLabel('Amount in USDC').fill('3.00');
  await page.getByRole('button', { name: 'Create invoice' }).click();
  await page.getByRole('heading', { name: /INV-000001/ }).waitFor();
  await tab(page, 'Invoices').click();
  await page.locator('#invoice-rows tr').first().waitFor();
  expect(await page.locator('#invoice-table').isVisible()).toBe(true);
  expect(problems).toEqual([]);
  await context.close();
});
