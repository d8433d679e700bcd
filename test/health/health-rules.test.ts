import { describe, expect, it } from 'vitest';
import { issuesFrom, lowCreditThreshold, type HealthFacts } from '../../src/modules/health/health.js';

const none = { count: 0, since: null };
const healthy: HealthFacts = {
  delayedVerifications: none,
  overpayments: none,
  revertedPayments: { ...none, latestInvoiceId: null },
  unmatchedTransfers: none,
  failedDeliveries: none,
  retryingDeliveries: none,
  pausedAutomations: { ...none, reason: null },
};
const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 12, minute));

describe('issue rules', () => {
  it('warns below what five invoices cost at the highest tariff with the success fee', () => {
    expect(lowCreditThreshold(1)).toBe(20);
    expect(lowCreditThreshold(0)).toBe(15);
  });

  it('has no issue for healthy facts', () => {
    expect(issuesFrom(healthy)).toEqual([]);
  });

  it('orders every kind by severity, critical first, whatever the times', () => {
    const issues = issuesFrom({
      lowCredits: { available: 3, threshold: 20, since: at(1) },
      delayedVerifications: { count: 2, since: at(2) },
      overpayments: { count: 3, since: at(6) },
      revertedPayments: { count: 0, since: null, latestInvoiceId: null },
      unmatchedTransfers: { count: 5, since: at(8) },
      failedDeliveries: { count: 1, since: at(5) },
      retryingDeliveries: { count: 4, since: at(3) },
      pausedEndpoint: { since: at(4), backlog: 0 },
      pausedAutomations: { count: 2, since: at(7), reason: 'insufficient_credits' },
    });
    expect(issues.map(({ kind, severity, since, count }) => ({ kind, severity, since, count }))).toEqual([
      { kind: 'automation_paused', severity: 'critical', since: at(7).toISOString(), count: 2 },
      { kind: 'webhook_deliveries_failed', severity: 'critical', since: at(5).toISOString(), count: 1 },
      { kind: 'webhook_paused', severity: 'critical', since: at(4).toISOString(), count: 0 },
      { kind: 'overpayments_received', severity: 'warning', since: at(6).toISOString(), count: 3 },
      { kind: 'unmatched_transfers', severity: 'warning', since: at(8).toISOString(), count: 5 },
      { kind: 'low_credits', severity: 'warning', since: at(1).toISOString(), count: undefined },
      { kind: 'verification_delayed', severity: 'warning', since: at(2).toISOString(), count: 2 },
      { kind: 'webhook_deliveries_retrying', severity: 'warning', since: at(3).toISOString(), count: 4 },
    ]);
    expect(Object.keys(issues[5]!)).not.toContain('count');
  });

  it('says why an automation is paused and how to resume it', () => {
    const [paused] = issuesFrom({
      ...healthy,
      pausedAutomations: { count: 1, since: at(1), reason: 'insufficient_credits' },
    });
    expect(paused).toMatchObject({ kind: 'automation_paused', severity: 'critical', count: 1 });
    expect(paused!.hint).toMatch(
      /^1 automation is paused .*insufficient_credits, buy credits.*POST \/automations\/\{id\}\/resume/,
    );
  });

  it('lists automations paused only by their owner as a warning, after every critical issue', () => {
    const issues = issuesFrom({
      ...healthy,
      failedDeliveries: { count: 1, since: at(5) },
      lowCredits: { available: 3, threshold: 20, since: at(1) },
      pausedAutomations: { count: 2, since: at(7), reason: 'paused_by_owner' },
    });
    expect(issues.map(({ kind, severity }) => ({ kind, severity }))).toEqual([
      { kind: 'webhook_deliveries_failed', severity: 'critical' },
      { kind: 'automation_paused', severity: 'warning' },
      { kind: 'low_credits', severity: 'warning' },
    ]);
    expect(issues[1]!.hint).toMatch(/^2 automations are paused by you and creating no invoices\. Resume with POST/);
  });

  it('tells the merchant what to do, in the singular for one', () => {
    const [failed, paused, overpaid, unmatched, low, delayed, retrying] = issuesFrom({
      lowCredits: { available: 3, threshold: 20, since: at(1) },
      delayedVerifications: { count: 1, since: at(2) },
      overpayments: { count: 1, since: at(6) },
      revertedPayments: { count: 0, since: null, latestInvoiceId: null },
      unmatchedTransfers: { count: 1, since: at(8) },
      failedDeliveries: { count: 1, since: at(5) },
      retryingDeliveries: { count: 1, since: at(3) },
      pausedEndpoint: { since: at(4), backlog: 1 },
      pausedAutomations: { count: 0, since: null, reason: null },
    }).map((issue) => issue.hint);
    expect(failed).toMatch(/^1 webhook event was given up.*POST \/webhook\/retry.*GET \/changes/);
    expect(paused).toMatch(/1 webhook event waiting for it is kept.*PUT \/webhook \{"enabled": true\}/);
    expect(overpaid).toMatch(/^1 payment landed for an invoice already paid.*return it to the payer yourself/);
    expect(unmatched).toMatch(
      /^1 transfer reached your wallet without paying an invoice by itself .*GET \/received-transfers\?status=unmatched.*apply.*dismiss/,
    );
    expect(low).toMatch(/^3 credits available .* below 20.*402 insufficient_credits/);
    expect(delayed).toMatch(
      /^1 payment submitted more than 10 minutes ago is still being verified.*must not pay again/,
    );
    expect(retrying).toMatch(/^1 webhook event failed at least once and is retried automatically with backoff\. /);
  });

  it('lists a reverted payment as critical, first, naming the latest invoice and what to do', () => {
    const [reverted] = issuesFrom({
      ...healthy,
      lowCredits: { available: 3, threshold: 20, since: at(1) },
      revertedPayments: { count: 1, since: at(9), latestInvoiceId: 'inv_reverted' },
    });
    expect(reverted).toMatchObject({ kind: 'payment_reverted', severity: 'critical', count: 1 });
    expect(reverted!.hint).toMatch(
      /^1 confirmed payment was taken out of the chain .*invoice inv_reverted.*Do not ship/,
    );
  });

  it('says how far apart the retries get, from the configured schedule', () => {
    const [retrying] = issuesFrom({
      delayedVerifications: { count: 0, since: null },
      overpayments: { count: 0, since: null },
      revertedPayments: { count: 0, since: null, latestInvoiceId: null },
      unmatchedTransfers: { count: 0, since: null },
      failedDeliveries: { count: 0, since: null },
      retryingDeliveries: { count: 2, since: at(3) },
      pausedAutomations: { count: 0, since: null, reason: null },
      longestRetrySeconds: 7200,
    }).map((issue) => issue.hint);
    expect(retrying).toMatch(
      /^2 webhook events failed at least once and are retried automatically with backoff \(up to 2 hours apart\)\. /,
    );
  });
});
