import { describeEnvironment } from './environment.js';
import { checkAnswers, sendLoad, type Measurement } from './load.js';
import type { Scenario } from './scenario.js';
import { CEILINGS, SCENARIOS } from './scenarios/index.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { loadSettings, type BenchSettings } from './settings.js';
import { formatTable, type ResultRow } from './table.js';
import { runPaymentBench } from './payments.js';
import { runPurchaseBench } from './purchases.js';
import { runWebhookBench } from './webhooks.js';
import { runChangeFeedBench } from './changes.js';
import { runGrownDatabaseBench } from './grown-database.js';

// Timestamped, so other load on the machine during a run can be matched to a scenario.
const progress = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/**
 * `npm run bench`: the references, then every scenario, one at a time, each in a fresh server process
 * loaded from this one; then one reader paging the change feed (bench/changes.ts); then the feed and
 * creates on a grown database against an empty one (bench/grown-database.ts); then webhook delivery
 * (bench/webhooks.ts); then credit purchases from payment confirmation to credited (bench/purchases.ts);
 * then invoices paid by x402 and by transfer, from their block to paid and to the webhook
 * (bench/payments.ts). BENCH_ONLY=http, =changes, =grown, =webhooks, =purchases or =payments runs one part.
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
    if (runs('grown') && settings.grown.events > 0 && settings.changeEvents > 0)
      report.push('', ...(await runGrownDatabaseBench(settings, progress)));
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

/**
 * The ceilings and the scenarios: the sent-line, the table and its legend. Every server runs from the
 * start, and each round measures them all in turn, so that a ceiling and its scenario are measured
 * minutes apart at most, and a change in the machine's other load moves one round, not the ratio.
 */
async function httpReport(settings: BenchSettings): Promise<string[]> {
  const scenarios = [...CEILINGS, ...SCENARIOS];
  const servers = new Map<Scenario, ServerProcess>();
  try {
    for (const scenario of scenarios) servers.set(scenario, await startWarm(scenario, settings));
    const rounds: Map<Scenario, Measurement>[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      const measured = new Map<Scenario, Measurement>();
      for (const scenario of scenarios) {
        progress(
          `${scenario.name}: round ${round} of ${settings.rounds}, measuring for ${settings.durationSeconds} s…`,
        );
        measured.set(
          scenario,
          await sendLoad(servers.get(scenario)!.origin, servers.get(scenario)!.request, load(settings, 'measure')),
        );
      }
      rounds.push(measured);
    }
    return [
      `sent:   ${settings.connections} connections, ${settings.rounds} rounds of ${settings.durationSeconds} s per scenario after a ${settings.warmupSeconds} s warm-up; a row is its median round, its ratio the median of its rounds' ratios`,
      '',
      formatTable(scenarios.map((scenario) => resultRow(scenario, rounds))),
      '',
      ...scenarios.map(
        (scenario) =>
          `- ${scenario.name}: ${scenario.measures}${scenario.ceiling ? ` (ratio to "${scenario.ceiling.name}")` : ''}`,
      ),
    ];
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }
}

async function startWarm(scenario: Scenario, settings: BenchSettings): Promise<ServerProcess> {
  progress(`${scenario.name}: starting the server process…`);
  const server = await startServerProcess(scenario);
  try {
    await checkAnswers(server.origin, server.request);
    if (settings.warmupSeconds > 0) {
      progress(`${scenario.name}: warming up for ${settings.warmupSeconds} s…`);
      await sendLoad(server.origin, server.request, load(settings, 'warm up'));
    }
    return server;
  } catch (error) {
    await server.stop();
    throw error;
  }
}

function load(settings: BenchSettings, phase: 'warm up' | 'measure') {
  return {
    connections: settings.connections,
    durationSeconds: phase === 'warm up' ? settings.warmupSeconds : settings.durationSeconds,
  };
}

/** The scenario's median round, with the answers it did not expect in every round and its median ratio. */
function resultRow(scenario: Scenario, rounds: readonly Map<Scenario, Measurement>[]): ResultRow {
  const own = rounds.map((round) => round.get(scenario)!);
  const ratios = rounds.map(
    (round) => round.get(scenario)!.requestsPerSecond / round.get(scenario.ceiling ?? scenario)!.requestsPerSecond,
  );
  const median = [...own].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(own.length / 2)]!;
  return {
    name: scenario.name,
    measurement: {
      ...median,
      unexpected: own.reduce((sum, m) => sum + m.unexpected, 0),
      errors: own.reduce((sum, m) => sum + m.errors, 0),
    },
    ratio: [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!,
  };
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
