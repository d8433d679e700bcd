import { describeEnvironment } from './environment.js';
import { checkAnswers, sendLoad, type Measurement } from './load.js';
import type { Scenario } from './scenario.js';
import { CEILINGS, SCENARIOS } from './scenarios/index.js';
import { startServerProcess } from './server-process.js';
import { loadSettings, type BenchSettings } from './settings.js';
import { formatTable, type ResultRow } from './table.js';
import { runPaymentBench } from './payments.js';
import { runPurchaseBench } from './purchases.js';
import { runWebhookBench } from './webhooks.js';
import { runChangeFeedBench } from './changes.js';

// Timestamped, so other load on the machine during a run can be matched to a scenario.
const progress = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/**
 * `npm run bench`: the references, then every scenario, one at a time, each in a fresh server process
 * loaded from this one; then one reader paging the change feed (bench/changes.ts); then webhook delivery
 * (bench/webhooks.ts); then credit purchases from payment confirmation to credited (bench/purchases.ts);
 * then invoices paid by x402 and by transfer, from their block to paid and to the webhook
 * (bench/payments.ts). BENCH_ONLY=http, =changes, =webhooks, =purchases or =payments runs one part.
 * Progress goes to stderr, the report to stdout.
 */
async function main(): Promise<void> {
  const settings = loadSettings(process.env);
  // Taken first: how idle the machine was must not include this run.
  const environment = await describeEnvironment();
  const report = [...environment];
  const runs = (part: Exclude<BenchSettings['only'], 'all'>) => settings.only === 'all' || settings.only === part;
  // A part that fails does not take the tables of the parts before it along.
  try {
    if (runs('http')) report.push(...(await httpReport(settings)));
    if (runs('changes') && settings.changeEvents > 0)
      report.push('', ...(await runChangeFeedBench(settings.changeEvents, progress)));
    if (runs('webhooks') && settings.webhooks.events > 0)
      report.push('', ...(await runWebhookBench(settings.webhooks, progress)));
    if (runs('purchases') && settings.purchases.count > 0)
      report.push('', ...(await runPurchaseBench(settings.purchases, progress)));
    if (runs('payments') && settings.payments > 0)
      report.push('', ...(await runPaymentBench(settings.payments, progress)));
  } finally {
    process.stdout.write(`\n${report.join('\n')}\n`);
  }
}

/** The ceilings and the scenarios: the sent-line, the table and its legend. */
async function httpReport(settings: BenchSettings): Promise<string[]> {
  const measured = new Map<Scenario, Measurement>();
  for (const scenario of [...CEILINGS, ...SCENARIOS]) measured.set(scenario, await measure(scenario, settings));
  const results: ResultRow[] = [...CEILINGS, ...SCENARIOS].map((scenario) => ({
    name: scenario.name,
    measurement: measured.get(scenario)!,
    ceilingRequestsPerSecond: measured.get(scenario.ceiling ?? scenario)!.requestsPerSecond,
  }));
  return [
    `sent:   ${settings.connections} connections, ${settings.durationSeconds} s per scenario after a ${settings.warmupSeconds} s warm-up`,
    '',
    formatTable(results),
    '',
    ...[...CEILINGS, ...SCENARIOS].map(
      (scenario) =>
        `- ${scenario.name}: ${scenario.measures}${scenario.ceiling ? ` (ratio to "${scenario.ceiling.name}")` : ''}`,
    ),
  ];
}

async function measure(scenario: Scenario, settings: BenchSettings): Promise<Measurement> {
  progress(`${scenario.name}: starting the server process…`);
  const server = await startServerProcess(scenario);
  try {
    await checkAnswers(server.origin, server.request);
    if (settings.warmupSeconds > 0) {
      progress(`${scenario.name}: warming up for ${settings.warmupSeconds} s…`);
      await sendLoad(server.origin, server.request, {
        connections: settings.connections,
        durationSeconds: settings.warmupSeconds,
      });
    }
    progress(`${scenario.name}: measuring for ${settings.durationSeconds} s…`);
    return await sendLoad(server.origin, server.request, {
      connections: settings.connections,
      durationSeconds: settings.durationSeconds,
    });
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
