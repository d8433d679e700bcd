import type { Scenario } from '../scenario.js';
import { billingRead } from './billing-read.js';
import { changeFeed } from './change-feed.js';
import { feedOnEmptyDatabase, feedOnGrownDatabase } from './grown-database.js';
import { helloCeiling } from './hello-ceiling.js';
import { helloPostCeiling } from './hello-post-ceiling.js';
import { invoiceCreate } from './invoice-create.js';
import { x402Challenge } from './x402-challenge.js';
import { x402ExpressReference } from './x402-express-reference.js';

/**
 * The references: bare Fastify doing a scenario's HTTP work, or another server doing the same job (the
 * x402 reference's 402). Each scenario names the one its req/s is divided by.
 */
export const CEILINGS: readonly Scenario[] = [helloCeiling, helloPostCeiling, x402ExpressReference];

/** To add a scenario: a file in this folder exporting a `Scenario` (with its `ceiling`), and one entry here. */
export const SCENARIOS: readonly Scenario[] = [billingRead, invoiceCreate, x402Challenge];

/** Servers of the parts that measure with a client of their own instead of autocannon (bench/changes.ts). */
export const PART_SERVERS: readonly Scenario[] = [changeFeed, feedOnEmptyDatabase, feedOnGrownDatabase];

export function findScenario(name: string): Scenario | undefined {
  return [...CEILINGS, ...SCENARIOS, ...PART_SERVERS].find((scenario) => scenario.name === name);
}
