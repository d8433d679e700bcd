import { expect, it } from 'vitest';
import { erc20Abi, getAbiItem, type Hash, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import {
  BASE_SEPOLIA_USDC,
  createLocalPublicClient,
  fundManyWithUsdc,
  setEthBalance,
} from '../../src/chain/local-chain.js';
import { scheduleRecurringJobs } from '../../src/main/jobs.js';
import { createTestChain, jsonRpc, type TestChain } from '../support/chain.js';
import { signCheckoutAuthorization, signTransfer } from '../support/checkout.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { BASE_URL } from '../support/app.js';
import { openShop, startPayingApp, type InvoiceView } from '../support/paying-app.js';
import { payV2 } from '../support/x402.js';

// The chain as it is on a bad day, all at once: two networks (two anvils with their own chain ids), each
// behind two providers that fail as hosted ones do, payments of every kind, and reorganisations that take
// recorded payments out of the chain. At the end the books must agree with the chains.

/** Deeper than every reorganisation below: each one reverts recorded payments. */
const FINALITY_BLOCKS = 40;
const ROUNDS = 7;
/** Invoices of each kind on each network in a round: 4 kinds x 2 networks x 2 = 16 payments a round. */
const PER_KIND = 2;
/** After these rounds, one network's blocks holding the round's payments are replaced. */
const REORGS: Record<number, 0 | 1> = { 2: 0, 3: 1, 5: 0, 6: 1 };

interface Side {
  readonly chain: TestChain;
  readonly providers: FaultProxy[];
  readonly caip: `eip155:${number}`;
}

async function side(network?: { name: string; chainId: number }): Promise<Side> {
  const providers: FaultProxy[] = [];
  const chain = await createTestChain({
    ...(network && { network }),
    providers: async (rpcUrl) => {
      providers.push(await startFaultProxy(rpcUrl), await startFaultProxy(rpcUrl));
      return providers.map((provider) => provider.url);
    },
  });
  return { chain, providers, caip: `eip155:${chain.network.chainId}` };
}

const sides = [await side(), await side({ name: 'other-chain', chainId: 31337 })] as const;
const [first, second] = sides;
// One relayer settles on both networks.
await setEthBalance(second.chain.rpcUrl, first.chain.chain.relayer, 10n ** 20n);
const paying = await startPayingApp({
  networks: sides.map((s) => ({ ...s.chain.network, finalityBlocks: FINALITY_BLOCKS })),
  chain: first.chain.chain,
});
const db = paying.database.db;
await scheduleRecurringJobs(paying.services);
const shop = await openShop(paying);
const headers = { authorization: `Bearer ${shop.apiKey}` };

/** Every status the service answered a buyer or the merchant with: none may be a 5xx. */
const statuses: number[] = [];
const rpc = <T>(s: Side, method: string, params: unknown[] = []) => jsonRpc<T>(s.chain.rpcUrl, method, params);
const head = async (s: Side) => BigInt(await rpc<string>(s, 'eth_blockNumber'));

type Kind = 'x402' | 'submittedHash' | 'gasless' | 'plainTransfer';
const KINDS: Kind[] = ['x402', 'submittedHash', 'gasless', 'plainTransfer'];

interface Payment {
  readonly side: Side;
  readonly kind: Kind;
  readonly invoice: InvoiceView & { payUrl: string };
  readonly payer: PrivateKeyAccount;
  /** The buyer's own signed transfer (the kinds that send one), kept to be mined again after a reorganisation. */
  raw?: Hex;
}

let cents = 1_000;
/** Each invoice its own amount: a plain transfer then matches exactly one open invoice. */
const micro = (amount: string) => BigInt(Math.round(Number(amount) * 1e6));

async function createInvoice(s: Side): Promise<InvoiceView & { payUrl: string }> {
  cents += 1;
  const response = await paying.app.inject({
    method: 'POST',
    url: `/w/${shop.workspaceId}/v1/invoices`,
    headers: { ...headers, 'idempotency-key': `chaos-${cents}` },
    payload: { amount: (cents / 100).toFixed(2), network: s.chain.network.name },
  });
  statuses.push(response.statusCode);
  expect(response.statusCode, response.body).toBe(201);
  const invoice = response.json<InvoiceView>();
  return { ...invoice, payUrl: invoice.url.replace(BASE_URL, paying.origin) };
}

const checkoutPath = (invoice: InvoiceView) => `/w/${shop.workspaceId}/i/${invoice.id}`;

async function pay(payment: Payment): Promise<void> {
  const { side: s, invoice, payer } = payment;
  const amount = micro(invoice.amount);
  if (payment.kind === 'x402') {
    const response = await sentAgainWhileUnavailable(async () => {
      const answer = await payV2(payer, fetch, s.caip)(invoice.payUrl);
      return { status: answer.status, retryAfter: answer.headers.get('retry-after'), body: await answer.text() };
    });
    statuses.push(response.status);
    // 202: the settlement took longer than the request waits for it; it is recorded all the same.
    const { body } = response;
    expect([200, 202], response.status >= 500 ? `${body}\n${paying.errorLog()}` : body).toContain(response.status);
  } else if (payment.kind === 'gasless') {
    const view = (
      await paying.app.inject({ method: 'GET', url: checkoutPath(invoice), headers: { accept: 'application/json' } })
    ).json<{ recipient: string; amount: string; authorizationNonce: Hex }>();
    const payload = await signCheckoutAuthorization(payer, view, view.authorizationNonce, s.chain.network);
    const response = await sentAgainWhileUnavailable(async () => {
      const answer = await paying.app.inject({
        method: 'POST',
        url: `${checkoutPath(invoice)}/authorizations`,
        payload,
      });
      return { status: answer.statusCode, retryAfter: answer.headers['retry-after'] ?? null, body: answer.body };
    });
    statuses.push(response.status);
    expect(response.status, response.body).toBe(202);
  } else {
    // The buyer's wallet sends to its own node (the anvil itself), not through the service's providers.
    const signed = await signTransfer(s.chain.rpcUrl, payer, invoice.payTo as Hex, amount);
    payment.raw = signed.raw;
    const txHash = await rpc<Hash>(s, 'eth_sendRawTransaction', [signed.raw]);
    if (payment.kind === 'submittedHash') {
      const response = await sentAgainWhileUnavailable(async () => {
        const answer = await paying.app.inject({
          method: 'POST',
          url: `${checkoutPath(invoice)}/transactions`,
          payload: { network: s.chain.network.name, txHash },
        });
        return { status: answer.statusCode, retryAfter: answer.headers['retry-after'] ?? null, body: answer.body };
      });
      statuses.push(response.status);
      expect(response.status, response.body).toBe(202);
    }
  }
}

/**
 * The 503s answered while a network could not be read (every provider failing at once, past the
 * transport's retries): the buyer sends the same payment again after Retry-After, as a client should.
 */
const unavailable: { retryAfter: string | null; body: string }[] = [];

async function sentAgainWhileUnavailable(
  send: () => Promise<{ status: number; retryAfter: string | null; body: string }>,
) {
  for (let attempt = 1; ; attempt++) {
    const answer = await send();
    if (answer.status !== 503 || attempt === 3) return answer;
    unavailable.push(answer);
    await new Promise((resolve) => setTimeout(resolve, Number(answer.retryAfter ?? 1) * 1000));
  }
}

const payments: Payment[] = [];

/** Polls `probe` every 200 ms until it answers true. */
async function waitFor(probe: () => Promise<boolean | undefined>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
let reverted = 0;

async function invoiceStatuses(ids: readonly string[]) {
  return db.selectFrom('invoices').select(['id', 'status']).where('id', 'in', ids).execute();
}

async function allPaid(list: readonly Payment[], why: string) {
  const ids = list.map((payment) => payment.invoice.id);
  try {
    await waitFor(async () => (await invoiceStatuses(ids)).every((row) => row.status === 'paid'), 90_000, why);
  } catch (error) {
    const unpaid = (await invoiceStatuses(ids)).filter((row) => row.status !== 'paid');
    const intents = await db
      .selectFrom('payment_intents')
      .select(['invoice_id', 'method', 'status', 'failure_reason', 'tx_hash'])
      .where(
        'invoice_id',
        'in',
        unpaid.map((row) => row.id),
      )
      .execute();
    const described = unpaid.map((row) => {
      const payment = list.find((candidate) => candidate.invoice.id === row.id)!;
      const tried = intents.filter((intent) => intent.invoice_id === row.id);
      return `${payment.kind} on ${payment.side.chain.network.name}: ${row.status} ${JSON.stringify(tried)}`;
    });
    throw new Error(`${(error as Error).message}; not paid:\n${described.join('\n')}`);
  }
}

/** One round: 16 invoices, their buyers funded before the round's first block, then paid all at once. */
async function round(): Promise<{ list: Payment[]; from: bigint[] }> {
  const list: Payment[] = [];
  for (const s of sides)
    for (const kind of KINDS)
      for (let i = 0; i < PER_KIND; i += 1)
        list.push({ side: s, kind, invoice: await createInvoice(s), payer: privateKeyToAccount(generatePrivateKey()) });
  for (const s of sides) {
    const own = list.filter((payment) => payment.side === s);
    await fundManyWithUsdc(
      s.chain.rpcUrl,
      own.map((payment) => ({ to: payment.payer.address, amountMicro: micro(payment.invoice.amount) })),
    );
    for (const payment of own)
      if (payment.kind === 'submittedHash' || payment.kind === 'plainTransfer')
        await setEthBalance(s.chain.rpcUrl, payment.payer.address, 10n ** 18n);
    // Funding stays in the chain through a reorganisation of the round's payments: they start blocks later.
    await rpc(s, 'anvil_mine', ['0x3']);
  }
  const from = await Promise.all(sides.map(async (s) => (await head(s)) + 1n));
  await Promise.all(list.map(pay));
  payments.push(...list);
  await allPaid(list, 'every payment of the round to be recorded');
  return { list, from };
}

/**
 * Replaces the blocks of a round on one network. The buyers' own transfers are mined again in the new
 * blocks, as a real network's nodes put the transactions of dropped blocks back in their pools; the
 * relayer's settlements are not: the service must send them again itself, or its nonces have a gap.
 */
async function reorganise(s: Side, list: readonly Payment[], from: bigint): Promise<void> {
  const before = await countReverted();
  const remine = list
    .filter((payment) => payment.side === s && payment.raw)
    .map((payment) => [payment.raw!, 1] as const);
  // Two blocks deeper than the round's first: the block producer may mine one before the reorganisation.
  const depth = Number((await head(s)) - from) + 3;
  await s.chain.reorganise(depth, remine);
  await waitFor(async () => ((await countReverted()) > before ? true : undefined), 60_000, 'payments to be reverted');
  reverted += 1;
}

async function countReverted(): Promise<number> {
  const row = await db
    .selectFrom('payment_intents')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('workspace_id', '=', shop.workspaceId as never)
    .where('status', '=', 'reverted')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Provider faults for a round: 429s with Retry-After, 502 pages, latency, a provider that loses every
 * broadcast (while the other one of its network sends them), and one provider of a network down for rounds.
 */
async function faultsFor(n: number): Promise<void> {
  const [a1, a2] = first.providers as [FaultProxy, FaultProxy];
  const [b1, b2] = second.providers as [FaultProxy, FaultProxy];
  a1.set({ tooManyEvery: 5, retryAfter: '1', badGatewayEvery: 9, latencyMs: 20, loseBroadcasts: n % 2 === 0 });
  a2.set({ tooManyEvery: 7, latencyMs: 10 });
  b1.set({ latencyMs: 25, loseBroadcasts: true });
  b2.set({ badGatewayEvery: 6, latencyMs: 15 });
  if (n === 1) await b1.down();
  if (n === 4) await b1.up();
  if (n === 4) await a1.down();
  if (n === 6) await a1.up();
}

it(
  'over two networks, faulty providers and reorganisations, every transfer pays exactly one invoice and every change reaches the feed',
  { timeout: 600_000 },
  async () => {
    // The scans follow the shop's wallet from now on: an open invoice on each network keeps it watched. (A
    // scan that starts later looks back by the block time, which the blocks mined at once here outrun.)
    for (const s of sides) await createInvoice(s);
    await waitFor(
      async () =>
        (await db.selectFrom('transfer_scans').select('next_block').where('next_block', 'is not', null).execute())
          .length === sides.length,
      60_000,
      'the transfer scans to start',
    );
    for (let n = 1; n <= ROUNDS; n += 1) {
      await faultsFor(n);
      const { list, from } = await round();
      const reorganised = REORGS[n];
      if (reorganised !== undefined) {
        await reorganise(sides[reorganised], list, from[reorganised]!);
        await allPaid(list, 'the reverted payments to be recorded again from the new blocks');
      }
    }
    for (const provider of [...first.providers, ...second.providers]) {
      await provider.up();
      provider.set({});
    }
    expect(payments.length).toBeGreaterThanOrEqual(100);
    expect(reverted).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    for (const answer of unavailable) {
      expect(answer.retryAfter).toBe('1');
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'service_unavailable' });
    }
    await noPaymentInFlight();

    const intents = await db
      .selectFrom('payment_intents')
      .select(['id', 'invoice_id', 'network', 'method', 'status', 'tx_hash', 'log_index', 'block_number', 'block_hash'])
      .where('workspace_id', '=', shop.workspaceId as never)
      .execute();
    const succeeded = intents.filter((intent) => intent.status === 'succeeded');
    // Reorganisations reverted payments of every kind on both networks; the providers did fail.
    const revertedIntents = intents.filter((intent) => intent.status === 'reverted');
    expect(new Set(revertedIntents.map((intent) => intent.network))).toEqual(
      new Set(sides.map((s) => s.chain.network.name)),
    );
    expect(new Set(revertedIntents.map((intent) => intent.method))).toEqual(new Set(['authorization', 'transaction']));
    const providers = [...first.providers, ...second.providers];
    expect(providers.reduce((sum, provider) => sum + provider.faulted(), 0)).toBeGreaterThan(0);
    for (const s of sides) await expectBooksMatchChain(s, succeeded);
    await expectFeedHasEveryChange(intents);
    for (const s of sides) await expectRelayerNoncesWithoutGap(s);
  },
);

async function noPaymentInFlight(): Promise<void> {
  await waitFor(
    async () => {
      const row = await db
        .selectFrom('payment_intents')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('workspace_id', '=', shop.workspaceId as never)
        .where('status', '=', 'processing')
        .executeTakeFirstOrThrow();
      return Number(row.count) === 0 ? true : undefined;
    },
    60_000,
    'no payment to be in flight',
  );
}

type IntentRow = {
  id: string;
  invoice_id: string | null;
  network: string;
  method: string;
  status: string;
  tx_hash: string | null;
  log_index: number | null;
  block_number: bigint | null;
  block_hash: string | null;
};

/**
 * Every USDC transfer to the shop in the network's canonical chain pays exactly one invoice of the
 * amount it moved; every invoice paid on the network is paid by such a transfer, in the block recorded.
 */
async function expectBooksMatchChain(s: Side, succeeded: readonly IntentRow[]): Promise<void> {
  const name = s.chain.network.name;
  const own = payments.filter((payment) => payment.side === s);
  const logs = await createLocalPublicClient(s.chain.rpcUrl).getLogs({
    address: BASE_SEPOLIA_USDC,
    event: getAbiItem({ abi: erc20Abi, name: 'Transfer' }),
    args: { to: [...new Set(own.map((payment) => payment.invoice.payTo as Hex))] },
    fromBlock: 0n,
    toBlock: 'latest',
  });
  const byTransfer = new Map(
    succeeded
      .filter((intent) => intent.network === name)
      .map((intent) => [`${intent.tx_hash}:${intent.log_index}`, intent]),
  );
  const paidBy = new Map<string, string>();
  for (const log of logs) {
    const intent = byTransfer.get(`${log.transactionHash.toLowerCase()}:${log.logIndex}`);
    expect(intent, `canonical transfer ${log.transactionHash} on ${name} pays an invoice`).toBeDefined();
    expect(paidBy.has(intent!.invoice_id!), `invoice ${intent!.invoice_id} paid once`).toBe(false);
    paidBy.set(intent!.invoice_id!, log.transactionHash);
    const payment = own.find((candidate) => candidate.invoice.id === intent!.invoice_id);
    expect(log.args.value).toBe(micro(payment!.invoice.amount));
    const block = await rpc<{ hash: string }>(s, 'eth_getBlockByNumber', [`0x${log.blockNumber.toString(16)}`, false]);
    expect(intent!.block_hash).toBe(block.hash.toLowerCase());
  }
  // Every invoice of this network is paid (everything taken out was mined again), each by a canonical transfer.
  const rows = await invoiceStatuses(own.map((payment) => payment.invoice.id));
  expect(rows.filter((row) => row.status !== 'paid')).toEqual([]);
  expect([...paidBy.keys()].sort()).toEqual(own.map((payment) => payment.invoice.id).sort());
  expect(logs.length).toBe(own.length);
}

/**
 * The feed has every change: each payment's outcome, each revert, and per invoice a paid for its first
 * payment and for every payment after a revert, a reopen for every revert, ending paid.
 */
async function expectFeedHasEveryChange(intents: readonly IntentRow[]): Promise<void> {
  const events: { type: string; invoiceId?: string; paymentIntentId?: string }[] = [];
  for (let after = '0'; ;) {
    const response = await shop.api('GET', `/changes?after=${after}&limit=500`);
    statuses.push(response.statusCode);
    const page = response.json<{ events: typeof events; nextCursor: string; hasMore: boolean }>();
    events.push(...page.events);
    after = page.nextCursor;
    if (!page.hasMore) break;
  }
  for (const intent of intents.filter((row) => row.status === 'succeeded' || row.status === 'reverted'))
    expect(
      events.some((event) => event.paymentIntentId === intent.id && event.type === `payment_intent.${intent.status}`),
      `payment_intent.${intent.status} of ${intent.id}`,
    ).toBe(true);
  for (const payment of payments) {
    const id = payment.invoice.id;
    const revertedHere = intents.filter((intent) => intent.invoice_id === id && intent.status === 'reverted').length;
    const changes = events
      .filter((event) => event.invoiceId === id && (event.type === 'invoice.paid' || event.type === 'invoice.reopened'))
      .map((event) => event.type);
    expect(changes, `the invoice changes of ${payment.invoice.number}`).toEqual([
      ...Array.from({ length: revertedHere }, () => ['invoice.paid', 'invoice.reopened']).flat(),
      'invoice.paid',
    ]);
  }
}

/** Every relayer transaction the node has is mined, and none waits behind a missing nonce. */
async function expectRelayerNoncesWithoutGap(s: Side): Promise<void> {
  const relayer = first.chain.chain.relayer;
  const count = (tag: string) => rpc<string>(s, 'eth_getTransactionCount', [relayer, tag]).then(Number);
  await waitFor(
    async () => ((await count('pending')) === (await count('latest')) ? true : undefined),
    30_000,
    `every transaction of the relayer on ${s.chain.network.name} to be mined`,
  );
  const pool = await rpc<{ queued: Record<string, unknown> }>(s, 'txpool_content');
  const queued = Object.entries(pool.queued).filter(([from]) => from.toLowerCase() === relayer.toLowerCase());
  expect(queued, `relayer transactions waiting behind a gap on ${s.chain.network.name}`).toEqual([]);
  expect(await count('latest')).toBeGreaterThan(0);
}
