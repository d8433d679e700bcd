import { afterAll, expect, it } from 'vitest';
import { enqueueJob } from '../../src/jobs/index.js';
import { createWorkers } from '../../src/main/jobs.js';
import { RUN_AUTOMATION_JOB } from '../../src/modules/automations/automation.service.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestChain } from '../support/chain.js';
import { openShop, startPayingApp } from '../support/paying-app.js';
import { payV2 } from '../support/x402.js';

const chain = await createTestChain();
const paying = await startPayingApp(chain, { worker: false });
const shop = await openShop(paying);

it('a payment settles while every slot of the other jobs is held by jobs that hang', { timeout: 60_000 }, async () => {
  // Automation runs that never end until the test lets them: more than the general runner has slots.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let hanging = 0;
  const workers = createWorkers(
    {
      ...paying.services,
      jobs: {
        ...paying.services.jobs,
        [RUN_AUTOMATION_JOB]: async () => {
          hanging += 1;
          await released;
        },
      },
    },
    paying.database.connection,
  );
  afterAll(async () => {
    release();
    await workers.stop();
  });
  for (let index = 0; index < 8; index += 1)
    await enqueueJob(paying.database.db, {
      kind: RUN_AUTOMATION_JOB,
      workspaceId: shop.workspaceId as WorkspaceId,
      payload: {},
    });
  await workers.start();
  await expect.poll(() => hanging, { timeout: 10_000 }).toBe(4);

  const invoice = await shop.invoice('1.25');
  const response = await payV2(await chain.payer(5_000_000n))(invoice.payUrl);

  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ status: 'paid' });
  // The hanging jobs still hold their slots: the payment did not wait for one of them.
  expect(hanging).toBe(4);
});
