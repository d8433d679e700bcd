import { WorkspaceParams } from '../../http/common.schemas.js';
import type { Config } from '../../config/config.js';
import type { HealthService } from './health.service.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import { LOW_CREDIT_INVOICES, VERIFICATION_DELAY_MS, lowCreditThreshold } from './health.js';
import { IssuesView } from './health.schemas.js';
import { healthExamples } from './health.examples.js';

/** What these routes call. */
export interface HealthRouteDeps {
  readonly config: Pick<Config, 'successFeeCredits'>;
  readonly health: HealthService;
}

/** The route description (in /docs and /openapi.json), with this deployment's credit threshold. */
function description(successFeeCredits: number): string {
  return [
    "The workspace's open issues, measured at the time of the request, each with `since` and a `hint` saying what to do. " +
      'An issue disappears as soon as its cause is resolved; an empty list means nothing needs attention. ' +
      'At most one item per kind: critical ones first, each severity in the order below.',
    '`payment_reverted` (critical): confirmed invoice payments that a reorganisation of the chain took out before they were final, ' +
      'in the last 30 days; the money did not arrive: do not ship, or contact the buyer if you did. The hint names the latest invoice; ' +
      'the invoice is payable again (or expired), and pays itself if the same transaction is mined again. `count`, `since` = the oldest one.',
    '`automation_paused` (critical): automations paused and creating no invoices; `count`, `since` = the first pause, the hint names ' +
      'the cause of the first one not paused by you. Only automations you paused yourself (`paused_by_owner`): a warning, as nothing is wrong.',
    "`webhook_deliveries_failed` (critical): deliveries given up after the retry window; `count`, `since` = the oldest one's last attempt. " +
      'Send them again with POST /webhook/retry, or catch up with GET /changes. They stay listed until retried or until webhook history ' +
      'retention (30 days) removes them.',
    '`webhook_paused` (critical): the endpoint is paused (PUT /webhook `enabled: false`, or a secret rotation); `since` = when it was paused, ' +
      '`count` = deliveries waiting (kept, not lost). Update the receiver with the current secret, then PUT /webhook `{"enabled": true}`.',
    '`overpayments_received` (warning): payments that landed in the last 30 days for an invoice already paid by another payment, ' +
      'or cancelled; the money is in your wallet, settle it with the payer. `count`, `since` = the oldest one.',
    '`unmatched_transfers` (warning): transfers to your wallet that paid no invoice by themselves and are not yet applied or dismissed ' +
      '(GET /received-transfers?status=unmatched); `count`, `since` = the oldest one.',
    '`low_credits` (warning): available credits (balance − reserve, as in GET /billing) below what ' +
      `${LOW_CREDIT_INVOICES} invoices cost at the highest tariff with the success fee: ${lowCreditThreshold(successFeeCredits)} credits here. ` +
      '`since` = the ledger entry that took them below.',
    `\`verification_delayed\` (warning): payments still being verified more than ${VERIFICATION_DELAY_MS / 60_000} minutes after they were ` +
      'submitted; `count`, `since` = the oldest submission.',
    '`webhook_deliveries_retrying` (warning): deliveries with failed attempts that are being retried automatically; `count`, ' +
      "`since` = the oldest one's creation.",
    'Test deliveries (POST /webhook/test) never raise an issue.',
  ].join('\n\n');
}

/** GET /issues: the API, and the portal's issue list above everything else. */
export function healthRoutes(services: HealthRouteDeps): SharedRoute[] {
  return [
    sharedRoute({
      method: 'GET',
      url: '/issues',
      permission: 'billing:read',
      schema: {
        tags: ['Health'],
        summary: 'Open workspace issues and what to do about them',
        description: description(services.config.successFeeCredits),
        params: WorkspaceParams,
        response: { 200: IssuesView },
      },
      errors: [],
      examples: healthExamples.issues,
      portal: { description: 'As GET /issues: critical first, at most one per kind; empty when all is well.' },
      handler: async (request) => services.health.issues(request.principal!.workspaceId),
    }),
  ];
}
