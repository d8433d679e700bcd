import type { Db } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import { newWorkspaceId, type WalletAddress, type WorkspaceId } from '../../shared/ids.js';
import { openAccount } from '../billing/credits.repo.js';
import { toWorkspace, type Workspace } from './workspace.js';
import { findWorkspace, insertWorkspace, listWorkspacesOfWallet } from './workspace.repo.js';

export class WorkspaceService {
  constructor(private readonly deps: { db: Db; newWorkspaceCredits: number }) {}

  /** Creates a workspace bound to the signing wallet, with its credit grant, in one transaction. */
  async create(owner: WalletAddress, input: { name: string; description?: string }): Promise<Workspace> {
    return this.deps.db.transaction().execute(async (trx) => {
      const row = await insertWorkspace(trx, { id: newWorkspaceId(), name: input.name.trim(), description: input.description ?? '', wallet: owner });
      await openAccount(trx, row.id as WorkspaceId, this.deps.newWorkspaceCredits);
      return toWorkspace(row);
    });
  }

  async listOwnedBy(owner: WalletAddress): Promise<Workspace[]> {
    return (await listWorkspacesOfWallet(this.deps.db, owner)).map(toWorkspace);
  }

  /** The workspace when `owner` owns it; otherwise not_found, so ids of others' workspaces reveal nothing. */
  async getOwned(owner: WalletAddress, workspaceId: WorkspaceId): Promise<Workspace> {
    const row = await findWorkspace(this.deps.db, workspaceId);
    if (!row || row.wallet_address !== owner) throw new AppError('not_found', 'No such workspace for this wallet.');
    return toWorkspace(row);
  }
}
