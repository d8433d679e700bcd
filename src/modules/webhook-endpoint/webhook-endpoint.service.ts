import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { LogTarget } from '../../shared/operator-log.js';
import { ipLiteralOf, parseWebhookEndpoint, resolvedAddressesAllowed } from './destination.js';
import { systemResolve, type Resolver } from './dns-resolver.js';
import { newSigningSecret, type ResumeDeliveries, type WebhookSettingsInput } from './webhook-endpoint.js';
import * as repo from './webhook-endpoint.repo.js';

/** How long configuration waits for DNS before accepting a host it could not check. */
const CONFIGURE_DNS_TIMEOUT_MS = 2000;

export interface WebhookEndpointServiceDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly allowPrivate: boolean;
  readonly resumeDeliveries: ResumeDeliveries;
  readonly resolve?: Resolver;
  /** Told when delivery is paused or resumed. */
  readonly log?: LogTarget;
}

/** The merchant's webhook endpoint: where events go, the secret they are signed with, on or paused. */
export class WebhookEndpointService {
  constructor(private readonly deps: WebhookEndpointServiceDeps) {}

  /**
   * Creates or changes the endpoint. A new endpoint gets a secret; `rotate` replaces it and pauses
   * delivery until the merchant enables it again with the receiver updated. Enabling a paused endpoint
   * sends its backlog. The secret is in the answer only when it was created or rotated.
   */
  async configure(workspaceId: WorkspaceId, input: WebhookSettingsInput) {
    const url = input.endpoint === undefined ? undefined : (await this.checkEndpoint(input.endpoint)).href;
    let change: { paused: boolean; backlog: number } | undefined;
    const settings = await this.deps.db.transaction().execute(async (trx) => {
      const at = this.deps.clock.now();
      const current = await repo.lockEndpoint(trx, workspaceId);
      if (!current) {
        if (url === undefined)
          throw new AppError(
            'webhook_not_configured',
            'No webhook endpoint is set yet: send `endpoint` (an https URL on port 443).',
          );
        const enabled = input.rotate ? false : (input.enabled ?? true);
        const created = await repo.insertEndpoint(trx, workspaceId, { url, enabled, secret: newSigningSecret(), at });
        return { endpoint: created.url, enabled: created.enabled, secret: created.secret };
      }
      const secret = input.rotate ? newSigningSecret() : current.secret;
      const enabled = input.rotate ? false : (input.enabled ?? current.enabled);
      const updated = await repo.updateEndpoint(trx, workspaceId, {
        url: url ?? current.url,
        enabled,
        secret,
        secretCreatedAt: input.rotate ? at : current.secret_created_at,
        pausedAt: enabled ? null : (current.paused_at ?? at),
        at,
      });
      if (enabled && !current.enabled)
        change = { paused: false, backlog: await this.deps.resumeDeliveries(trx, workspaceId, at) };
      if (!enabled && current.enabled) change = { paused: true, backlog: 0 };
      return { endpoint: updated.url, enabled: updated.enabled, ...(input.rotate && { secret }) };
    });
    // Told after the commit: a change that rolled back is not one.
    if (change) this.tellChange(workspaceId, change, input.rotate === true);
    return settings;
  }

  private tellChange(workspaceId: WorkspaceId, change: { paused: boolean; backlog: number }, rotated: boolean): void {
    if (change.paused)
      this.deps.log?.warn(
        { workspaceId },
        `webhook delivery paused${rotated ? ' (its signing secret was rotated)' : ''}: events wait until it is enabled again`,
      );
    else
      this.deps.log?.info(
        { workspaceId },
        `webhook delivery resumed: ${change.backlog} waiting deliveries are sent now`,
      );
  }

  /**
   * The configuration rules, plus one look at DNS: a host that resolves to a private address now is
   * refused at once rather than failing every delivery. A host that does not resolve (yet) is accepted;
   * every attempt checks again anyway.
   */
  private async checkEndpoint(raw: string): Promise<URL> {
    const url = parseWebhookEndpoint(raw, this.deps.allowPrivate);
    if (this.deps.allowPrivate || ipLiteralOf(url.hostname) !== undefined) return url;
    const resolve = this.deps.resolve ?? systemResolve;
    const addresses = await Promise.race([
      resolve(url.hostname).catch(() => undefined),
      new Promise<undefined>((done) => setTimeout(() => done(undefined), CONFIGURE_DNS_TIMEOUT_MS).unref()),
    ]);
    if (addresses && addresses.length > 0 && !resolvedAddressesAllowed(addresses, false)) {
      throw new AppError(
        'invalid_webhook_endpoint',
        `${url.hostname} resolves to a private, loopback or otherwise non-public address; webhooks go to public hosts only.`,
      );
    }
    return url;
  }
}
