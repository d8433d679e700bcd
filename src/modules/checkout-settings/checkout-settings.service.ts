import type { Db } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { validateReturnOrigins } from './checkout-settings.js';
import { findReturnOrigins, saveReturnOrigins } from './checkout-settings.repo.js';

export interface CheckoutSettings {
  readonly origins: string[];
}

export class CheckoutSettingsService {
  constructor(
    private readonly deps: {
      db: Db;
      /** WEBHOOK_ALLOW_PRIVATE: http origins on this machine are taken too (local development). */
      loopbackHttp: boolean;
    },
  ) {}

  /** Replaces the allowed origins. Invoices already issued keep their return URLs. */
  async replace(workspaceId: WorkspaceId, origins: readonly string[]): Promise<CheckoutSettings> {
    const row = await saveReturnOrigins(
      this.deps.db,
      workspaceId,
      validateReturnOrigins(origins, this.deps.loopbackHttp),
    );
    if (!row) throw new AppError('not_found', 'No such workspace.');
    return { origins: row.return_origins };
  }

  async get(workspaceId: WorkspaceId): Promise<CheckoutSettings> {
    const row = await findReturnOrigins(this.deps.db, workspaceId);
    if (!row) throw new AppError('not_found', 'No such workspace.');
    return { origins: row.return_origins };
  }
}
