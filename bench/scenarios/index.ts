import type { Scenario } from '../scenario.js';
import { billingRead } from './billing-read.js';
import { helloCeiling } from './hello-ceiling.js';
import { helloPostCeiling } from './hello-post-ceiling.js';
import { invoiceCreate } from './invoice-create.js';

/** Bare Fastify doing a scenario's HTTP work; each scenario names the one its req/s is divided by. */
export const CEILINGS: readonly Scenario[] = [helloCeiling, helloPostCeiling];

/** To add a scenario: a file in this folder exporting a `Scenario` (with its `ceiling`), and one entry here. */
export const SCENARIOS: readonly Scenario[] = [billingRead, invoiceCreate];

export function findScenario(name: string): Scenario | undefined {
  return [...CEILINGS, ...SCENARIOS].find((scenario) => scenario.name === name);
}
