// The chaos test's load generator, run as a process of its own (`node --import tsx`), so that the service
// processes it drives can be killed without touching it. It reads its settings from CHAOS_LOAD (JSON),
// sends a mix of invoice creates (retried on network errors and 429/502/503/504 with the same
// Idempotency-Key and body), x402 payments and transaction-hash payments until SIGTERM, lets what is in
// flight finish, writes what it saw to `resultFile` and exits.
import { writeFileSync } from 'node:fs';
import { createWalletClient, http, parseAbi, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { localChain } from '../../src/chain/local-chain.js';
import { payV2 } from './x402.js';

export interface ChaosLoadSettings {
  /** The api processes, as a load balancer would spread requests over them. */
  readonly apiUrls: readonly string[];
  readonly workspaces: readonly { readonly id: string; readonly apiKey: string; readonly wallet: Hex }[];
  readonly rpcUrl: string;
  readonly usdc: Hex;
  readonly network: string;
  /** One pair of funded buyers per concurrent loop: one pays by x402, one by sending a transfer. */
  readonly buyers: readonly { readonly x402: Hex; readonly transfer: Hex }[];
  readonly resultFile: string;
}

export interface CreateRecord {
  readonly workspaceId: string;
  readonly externalId: string;
  readonly amount: string;
  /** Set when the service acknowledged the create with 201. */
  invoiceId?: string;
  /** The last answer when it never did: a status, or the network error. */
  lastError?: string;
  attempts: number;
}

export interface PaymentRecord {
  readonly workspaceId: string;
  readonly invoiceId: string;
  readonly method: 'x402' | 'transfer';
  /** The statuses of every try, e.g. [200] or ['network', 409]. */
  readonly outcomes: (number | string)[];
  txHash?: Hex;
}

export interface ChaosLoadResult {
  readonly creates: CreateRecord[];
  readonly payments: PaymentRecord[];
  requests: number;
  networkErrors: number;
  /** What went wrong in the generator itself (not an answer of the service): must stay empty. */
  readonly errors: string[];
  /** Answers by status, over every request sent. */
  readonly statuses: Record<string, number>;
}

const RETRYABLE = new Set([429, 502, 503, 504]);
const RETRY_FOR_MS = 120_000;
const transferAbi = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

const settings = JSON.parse(process.env.CHAOS_LOAD ?? '') as ChaosLoadSettings;
const result: ChaosLoadResult = { creates: [], payments: [], requests: 0, networkErrors: 0, statuses: {}, errors: [] };
let stopping = false;
process.once('SIGTERM', () => (stopping = true));

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** fetch through a random api process, as behind a load balancer; counts every request and answer. */
const balancedFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const url = new URL(request.url);
  const target = new URL(pick(settings.apiUrls));
  url.protocol = target.protocol;
  url.host = target.host;
  result.requests++;
  try {
    const response = await fetch(new Request(url, request));
    result.statuses[response.status] = (result.statuses[response.status] ?? 0) + 1;
    return response;
  } catch (error) {
    result.networkErrors++;
    throw error;
  }
};

/** Sends until an answer that retrying cannot change, within RETRY_FOR_MS; undefined when none came. */
async function withRetries(send: () => Promise<Response>, attempts: { count: number; last?: string }) {
  const deadline = Date.now() + RETRY_FOR_MS;
  for (let delay = 50; Date.now() < deadline; delay = Math.min(2_000, delay * 2)) {
    attempts.count++;
    try {
      const response = await send();
      if (!RETRYABLE.has(response.status)) return response;
      attempts.last = String(response.status);
      await response.body?.cancel();
    } catch (error) {
      attempts.last = `network: ${(error as Error).message}`;
    }
    await sleep(delay + Math.random() * delay);
  }
  return undefined;
}

async function create(workspace: ChaosLoadSettings['workspaces'][number], n: number) {
  const amount = `${1 + Math.floor(Math.random() * 9)}.${String(Math.floor(Math.random() * 100)).padStart(2, '0')}`;
  const externalId = `chaos-${process.pid}-${n}`;
  const record: CreateRecord = { workspaceId: workspace.id, externalId, amount, attempts: 0 };
  result.creates.push(record);
  const body = JSON.stringify({ amount, externalId });
  const tries = { count: 0 } as { count: number; last?: string };
  const response = await withRetries(
    () =>
      balancedFetch(`${settings.apiUrls[0]}/w/${workspace.id}/v1/invoices`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${workspace.apiKey}`,
          'content-type': 'application/json',
          // The same key and body on every retry: one invoice however many times it arrives.
          'idempotency-key': externalId,
        },
        body,
      }),
    tries,
  );
  record.attempts = tries.count;
  if (response?.status === 201) {
    const invoice = (await response.json()) as { id: string; url: string };
    record.invoiceId = invoice.id;
    return { ...invoice, amount };
  }
  record.lastError = response ? `${response.status} ${await response.text()}` : tries.last;
  return undefined;
}

async function payByX402(workspaceId: string, invoice: { id: string; url: string }, buyer: PrivateKeyAccount) {
  const record: PaymentRecord = { workspaceId, invoiceId: invoice.id, method: 'x402', outcomes: [] };
  result.payments.push(record);
  const pay = payV2(buyer, balancedFetch);
  // A network error may come before or after the payment arrived: try again; the service answers a paid
  // or settling invoice with its state instead of taking a second payment.
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      const response = await pay(invoice.url);
      record.outcomes.push(response.status);
      await response.body?.cancel();
      if (response.status !== 402 && !RETRYABLE.has(response.status)) return;
    } catch (error) {
      record.outcomes.push(`error: ${(error as Error).message.slice(0, 80)}`);
    }
    await sleep(500);
  }
}

async function payByTransfer(
  workspace: ChaosLoadSettings['workspaces'][number],
  invoice: { id: string },
  amount: string,
  buyer: PrivateKeyAccount,
) {
  const record: PaymentRecord = { workspaceId: workspace.id, invoiceId: invoice.id, method: 'transfer', outcomes: [] };
  result.payments.push(record);
  const wallet = createWalletClient({
    account: buyer,
    chain: localChain(settings.rpcUrl),
    transport: http(settings.rpcUrl),
  });
  const [whole, cents] = amount.split('.') as [string, string];
  record.txHash = await wallet.writeContract({
    address: settings.usdc,
    abi: transferAbi,
    functionName: 'transfer',
    args: [workspace.wallet, BigInt(whole) * 1_000_000n + BigInt(cents) * 10_000n],
  });
  const tries = { count: 0 } as { count: number; last?: string };
  const response = await withRetries(
    () =>
      balancedFetch(`${settings.apiUrls[0]}/w/${workspace.id}/i/${invoice.id}/transactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ network: settings.network, txHash: record.txHash }),
      }),
    tries,
  );
  record.outcomes.push(response?.status ?? `gave up: ${tries.last}`);
  await response?.body?.cancel();
}

async function loop(index: number): Promise<void> {
  const buyers = settings.buyers[index]!;
  const x402Buyer = privateKeyToAccount(buyers.x402);
  const transferBuyer = privateKeyToAccount(buyers.transfer);
  for (let n = 0; !stopping; n++) {
    const workspace = pick(settings.workspaces);
    try {
      const invoice = await create(workspace, index * 1_000_000 + n);
      if (!invoice) continue;
      const roll = Math.random();
      if (roll < 0.35) await payByX402(workspace.id, invoice, x402Buyer);
      else if (roll < 0.6) await payByTransfer(workspace, invoice, invoice.amount, transferBuyer);
    } catch (error) {
      result.errors.push((error as Error).stack ?? String(error));
    }
  }
}

await Promise.all(settings.buyers.map((_, index) => loop(index)));
writeFileSync(settings.resultFile, JSON.stringify(result));
process.exit(0);
